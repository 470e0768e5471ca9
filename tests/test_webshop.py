"""WebShop-v0: reward formula, pages token for token, the shop's transitions, goals, oracle, official loader."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import random
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.worlds.webshop.pages import done_page, item_page, results_page, search_page, sub_page
from toolgym.worlds.webshop.reward import get_reward, normalize_color, token_set_ratio, type_reward
from toolgym.worlds.webshop.tasks import builtin_goals, price_upper_for, synthetic_goals
from toolgym.worlds.webshop.catalogue import BULLET_SENTENCES, DESCRIPTION_SENTENCES, PRODUCT_TYPES, REVIEW_TITLES
from toolgym.worlds.webshop.world import WebShopWorld, generate_products

from toolgym.agents import play_oracle

INSTRUCTION = "i need a long lasting red lipstick, and price lower than 30.00 dollars"


@pytest.fixture(scope="module")
def env():
    return gym.make("WebShop-v0").unwrapped


def product(**changes) -> dict:
    base = {"asin": "B0TEST0001", "Title": "Velora Matte Lipstick Set", "name": "Velora Matte Lipstick Set",
            "query": "lipstick", "product_category": "Beauty & Personal Care › Makeup › Lips › Lipstick",
            "BulletPoints": ["CRUELTY FREE - made without animal testing"],
            "Description": "A velvet lipstick that is easy to apply.", "Attributes": ["long lasting", "paraben free"],
            "title_nouns": ["velora", "lipstick", "set"], "Price": "$19.99", "Rating": "4.5",
            "options": {"color": ["ruby red", "nude pink"], "size": ["small", "x-large"]},
            "Reviews": [{"title": "Lovely", "score": 5, "body": "Great colour."}]}
    base.update(changes)
    return base


def goal(**changes) -> dict:
    base = {"query": "lipstick", "product_category": "Beauty & Personal Care › Makeup › Lips › Lipstick",
            "title_nouns": ["velora", "lipstick", "set"], "attributes": ["long lasting", "cruelty free", "vegan"],
            "goal_options": {"color": "red", "size": "small"}, "price_upper": 30.0}
    base.update(changes)
    return base


# -- reward -----------------------------------------------------------------------------------
def test_reward_components_by_hand():
    # attributes: "long lasting" in Attributes (fuzzy 100), "cruelty free" a substring of the
    # bullet points, "vegan" nowhere: 2 of 3. Options: "ruby red" normalises to "red" = goal's
    # "red"; size "small" exact: 2 of 2. Price 19.99 <= 30: 1. r_type 1 (same query).
    r, info = get_reward(product(), goal(), 19.99, {"color": "ruby red", "size": "small"})
    assert r == pytest.approx((2 + 2 + 1) / (3 + 2 + 1))
    assert (info["r_type"], info["r_att"], info["r_option"], info["r_price"]) == (1.0, 2 / 3, 1.0, 1.0)
    assert (info["w_att"], info["w_option"], info["w_price"]) == (3 / 6, 2 / 6, 1 / 6)
    # over the price bound and a wrong colour: (2 + 1 + 0) / 6
    r, info = get_reward(product(), goal(), 31.0, {"color": "nude pink", "size": "small"})
    assert r == pytest.approx(3 / 6) and info["r_price"] == 0.0 and info["r_option"] == 0.5
    # no option chosen: (2 + 0 + 1) / 6
    assert get_reward(product(), goal(), 19.99, {})[0] == pytest.approx(3 / 6)


def test_size_is_exact_in_paper_and_fuzzy_in_paper_compat():
    human = goal(goal_options=["large"])  # human goals list option values
    chosen = {"size": "x-large"}
    assert token_set_ratio("large", "x-large") == 100  # why the released code buys x-large for large
    assert get_reward(product(), human, 19.99, chosen)[1]["option_matches"] == 0
    assert get_reward(product(), human, 19.99, chosen, scoring="paper_compat")[1]["option_matches"] == 1
    # a synthetic goal's dict: the released code compares "('size', 'large')" with "x-large": 83, no match
    synthetic = goal(goal_options={"size": "large"})
    assert token_set_ratio(("size", "large"), "x-large") == 83
    assert get_reward(product(), synthetic, 19.99, chosen, scoring="paper_compat")[1]["option_matches"] == 0
    # paper_compat reads a dict goal's options as (name, value) pairs: "('color', 'red')"
    assert normalize_color(("color", "red")) == "red"
    assert normalize_color(("color", "dark red")) == ("color", "dark red")  # no exact tuple item
    r_compat, _ = get_reward(product(), goal(goal_options={"color": "dark red"}), 19.99, {"color": "dark red"},
                             scoring="paper_compat")
    assert r_compat == pytest.approx((2 + 1 + 1) / 5)  # "dark red" within "('color', 'dark red')": token subset


def test_fuzzy_threshold_is_on_the_rounded_ratio():
    assert token_set_ratio("machine wash", "machine washable") == 86  # 85.7 rounds up: a match
    assert token_set_ratio("", "anything") == 0 and token_set_ratio("!!", "x") == 0
    r, info = get_reward(product(Attributes=["machine washable"], BulletPoints=[], Description=""),
                         goal(attributes=["machine wash"], goal_options={}), 5.0, {})
    assert info["attribute_matches"] == 1 and r == 1.0


@pytest.mark.parametrize("purchased_nouns, desired_nouns, query, category, expected", [
    (["a", "b"], ["a", "b", "c", "d", "e"], "lipstick", "X › Y", 1.0),         # 0.4 > 0.2
    (["a"], ["a", "b", "c", "d", "e"], "other", "X › Y", 0.5),                # 0.2: not > 0.2, no match
    (["a"], ["a", "b", "c", "d", "e"], "lipstick", "X › Y", 1.0),             # 0.2 but the query matches
    (["a"], ["a", "b", "c", "d", "e"], "other", "Beauty & Personal Care › Makeup", 1.0),  # 2 shared levels
    (["a"], ["a"] + [f"n{i}" for i in range(10)], "lipstick", "X › Y", 0.1),  # 1/11 < 0.1
    (["z"], ["a", "b"], "lipstick", "X › Y", 0.0),                            # title score 0
    (["z"], [], "other", "X › Y", 0.5),                                       # no desired nouns: 0.2
])
def test_type_reward_thresholds(purchased_nouns, desired_nouns, query, category, expected):
    purchased = product(title_nouns=purchased_nouns, query=query, product_category=category)
    wanted = goal(title_nouns=desired_nouns)
    assert type_reward(purchased, wanted)["r_type"] == expected


def test_price_bound_procedure():
    assert price_upper_for(1500.0, random.Random(0)) == (1_000_000, "")
    assert price_upper_for(985.0, random.Random(0)) == (1_000_000, "")  # only 990 above: fewer than 2
    assert price_upper_for(975.0, random.Random(0))[0] == 990.0  # 980 and 990: the larger
    upper, text = price_upper_for(21.5, random.Random(0))
    assert upper in (40.0, 50.0, 60.0) and text == f", and price lower than {upper:.2f} dollars"


# -- pages, token for token --------------------------------------------------------------------
def test_page_texts_token_for_token():
    p = product()
    assert search_page(INSTRUCTION).text() == f"WebShop [SEP] Instruction: [SEP] {INSTRUCTION} [SEP] Search"
    assert results_page(INSTRUCTION, [p], 2, 11, frozenset()).text() == (
        f"Instruction: [SEP] {INSTRUCTION} [SEP] Back to Search [SEP] Page 2 (Total results: 11) [SEP] < Prev [SEP] "
        "Next > [SEP] B0TEST0001 [SEP] Velora Matte Lipstick Set [SEP] $19.99")
    assert item_page(INSTRUCTION, p, {}).text() == (
        f"Instruction: [SEP] {INSTRUCTION} [SEP] Back to Search [SEP] < Prev [SEP] color [SEP] ruby red [SEP] "
        "nude pink [SEP] size [SEP] small [SEP] x-large [SEP] Velora Matte Lipstick Set [SEP] Price: $19.99 [SEP] "
        "Rating: 4.5 [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now")
    assert sub_page(INSTRUCTION, p, "Reviews").text().endswith(
        'Back to Search [SEP] < Prev [SEP] "Lovely" [SEP] 5 [SEP] Great colour.')
    assert sub_page(INSTRUCTION, p, "Features").text().endswith(
        "< Prev [SEP] CRUELTY FREE - made without animal testing")
    assert done_page("B0TEST0001", {"size": "small", "color": "ruby red"}, 0.5).text() == (
        "Thank you for shopping with us! [SEP] Your code: [SEP] None [SEP] (Paste it in your MTurk interface.) "
        "[SEP] Purchased [SEP] asin [SEP] B0TEST0001 [SEP] options [SEP] {\"color\": \"ruby red\", \"size\": "
        "\"small\"} [SEP] attrs [SEP] None [SEP] category [SEP] None [SEP] query [SEP] None [SEP] product category "
        "[SEP] None [SEP] Target [SEP] asin [SEP] options [SEP] attrs [SEP] price upper [SEP] instuction text [SEP] "
        "category [SEP] product category [SEP] query [SEP] Goal [SEP] None [SEP] Reward [SEP] Your score (min 0.0, "
        "max 1.0) [SEP] 0.5 [SEP] Reward Details [SEP] None")


def test_text_rich_marks_buttons_and_choices():
    page = item_page(INSTRUCTION, product(), {"color": "ruby red"})
    rich = page.text_rich()
    assert rich.startswith("You have clicked ruby red.\nInstruction:\n")
    assert "  [clicked button] ruby red [clicked button_]\n  [button] nude pink [button_]\n" in rich
    assert rich.endswith("[button] Reviews [button_]\n[button] Buy Now [button_]\n")
    results = results_page(INSTRUCTION, [product()], 1, 1, frozenset({"B0TEST0001"})).text_rich()
    assert "\n[clicked button] B0TEST0001 [clicked button_]\n" in results
    assert page.clickables() == ["back to search", "< prev", "description", "features", "reviews", "buy now",
                                 "ruby red", "nude pink", "small", "x-large"]


class _VisibleText(HTMLParser):
    """The visible text nodes that WebShop's ``convert_html_to_text`` (BeautifulSoup) reads."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.nodes = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "img", "input", "link", "meta", "hr"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if (self.stack[-1] if self.stack else None) not in ("style", "script", "head", "title") and data.strip():
            self.nodes.append(data.strip())


def _webshop_text(path: Path) -> list[str]:
    parser = _VisibleText()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.nodes


@pytest.mark.official
def test_pages_match_webshops_rendered_pages(official_data):
    folder = official_data / "webshop"
    instruction = ("i want an xx-small sized slim fit button down shirt with long sleeves. pick something in white, "
                   "and price lower than 50.00 dollars")
    shoe = product(asin="B09P87V3LZ", Title="PMUYBHF Womens Fashion Flat Shoes Comfortable Running Shoes Sneakers "
                   "Tennis Athletic Shoe Casual Walking Shoes", Price="$100.0", Rating="N.A.",
                   options={"color": ["black", "purple", "red"], "size": ["6.5", "7.5", "8", "8.5", "9"]})
    assert item_page(instruction, shoe, {}).text().split(" [SEP] ") == _webshop_text(folder / "mock_parse_item_page_ws")
    nodes = _webshop_text(folder / "mock_parse_results_ws")
    start = nodes.index("Next >") + 1
    listed = [{"asin": nodes[i], "Title": nodes[i + 1], "Price": nodes[i + 2]} for i in range(start, len(nodes), 3)]
    assert len(listed) == 10 and listed[2]["asin"] == "B09P87V3LZ"
    assert results_page(instruction, listed, 1, 50, frozenset()).text().split(" [SEP] ") == nodes


# -- the shop ----------------------------------------------------------------------------------
def test_episode_transitions_and_invalid_actions(env):
    task_id = env.task_ids()[0]
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    target, query = env.goal["asin"], env.goal["query"]
    assert info["available_actions"] == {"has_search_bar": True, "clickables": ["search"]}
    assert [t["function"]["name"] for t in info["tools"]] == ["search", "click"]
    before = env.world.state_hash()
    for bad in ("click[buy now]", "click[search]", "buy it", "search[]", "click[]", {"name": "click"},
                {"name": "fly", "arguments": {}}, "search[   ]", 42):
        obs, reward, terminated, truncated, info = env.step(bad)
        assert reward == 0.0 and not terminated and "Invalid action" in obs and "error" in info
        assert env.world.state_hash() == before
    env.reset(seed=0, options={"task_id": task_id})
    obs, *_ , info = env.step({"name": "search", "arguments": {"query": query.upper()}})
    assert env.shop.state["keywords"] == query and obs.startswith("Instruction: [SEP]")
    assert "Page 1 (Total results: " in obs and info["available_actions"]["clickables"][:2] == ["back to search", "next >"]
    # paper: no search off the search page; paper_compat (the released env) runs it
    assert "no search bar" in env.step(f"search[{query}]")[0]
    obs = env.step("click[next >]")[0]
    assert "Page 2" in obs and "< Prev [SEP] Next >" in obs
    assert "Page 1" in env.step("click[< prev]")[0]
    first = info["available_actions"]["clickables"][2]
    obs = env.step(f"click[{first.upper()}]")[0]  # arguments are lower-cased
    assert env.shop.state["page"] == "item" and env.shop.state["asin"] == first.upper()
    assert "Buy Now" in obs
    obs = env.step("click[Description]")[0]
    assert env.shop.state["page"] == "sub" and obs.split(" [SEP] ")[-1] == env.shop.product(first.upper())["Description"]
    env.step("click[< prev]")
    assert env.shop.state["page"] == "item"
    env.step("click[back to search]")
    assert env.shop.state == {"page": "search", "keywords": None, "page_no": None, "asin": None, "options": {},
                           "asins": [], "sub": None, "reward": None}
    assert target  # the goal's product exists in the catalogue
    assert env.shop.product(target) is not None


def test_search_anywhere_in_paper_compat_and_truncation():
    env = gym.make("WebShop-v0", scoring="paper_compat", max_steps=3).unwrapped
    env.reset(seed=0, options={"task_index": 0})
    env.step("search[shirt]")
    _, _, terminated, truncated, _ = env.step("search[dress]")
    assert env.shop.state["keywords"] == "dress" and not (terminated or truncated)
    _, reward, terminated, truncated, info = env.step("click[nothing here]")
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["metrics"]["score"] == 0.0 and info["metrics"]["purchased"] == 0 and info["metrics"]["steps"] == 3


def test_oracle_scores_one_on_every_built_in_goal(env):
    for task_id in env.task_ids():
        total, info, _ = play_oracle(env, task_id)
        metrics = info["metrics"]
        assert (metrics["score"], metrics["success"], metrics["purchased"], total) == (1.0, 1, 1, 1.0), task_id
        assert metrics["steps"] <= env.max_steps
    assert env.oracle_action() is None


def test_buying_another_option_or_product_scores_less(env):
    task_id = next(t for t in env.task_ids() if env.goal_set.goals[t]["goal_options"])
    env.reset(seed=0, options={"task_id": task_id})
    wanted = env.goal["goal_options"]
    while True:
        action = env.oracle_action()
        if action == "click[buy now]":
            break
        env.step(action)
    name = next(iter(wanted))
    others = [v for v in env.shop.product(env.goal["asin"])["options"][name] if v != wanted[name]]
    env.step(f"click[{others[0]}]")
    _, reward, terminated, _, info = env.step("click[buy now]")
    n = len(env.goal["attributes"]) + len(wanted) + 1
    assert terminated and reward == pytest.approx((n - 1) / n) and info["metrics"]["success"] == 0


def test_observation_modes():
    for mode, marker in (("text_rich", "[button] Search [button_]"), ("html", 'id="search_input"')):
        env = gym.make("WebShop-v0", observation_mode=mode).unwrapped
        obs, _ = env.reset(seed=0, options={"task_index": 0})
        assert marker in obs and env.goal["instruction_text"].replace("'", "&#39;") in obs
    with pytest.raises(ValueError, match="observation_mode must be one of"):
        gym.make("WebShop-v0", observation_mode="pixels")


def test_demonstrations_and_prompt(env):
    _, info = env.reset(seed=0, options={"task_index": 0})
    assert info["demos"]["long"].count("Instruction:") >= 2 and "Action: click[buy now]" in info["demos"]["short"]
    assert len(info["demos"]["short"]) < len(info["demos"]["long"])
    assert info["demos"]["short"] in info["messages"][0]["content"]
    assert info["messages"][1]["content"].startswith("WebShop [SEP] Instruction:")
    demo_ids = {g["task_id"] for g in env.goal_set.demos}
    assert demo_ids and not demo_ids & set(env.task_ids())


def test_reset_is_deterministic_across_processes():
    code = ("import gymnasium as gym, hashlib, toolgym; e = gym.make('WebShop-v0').unwrapped; "
            "o, _ = e.reset(seed=3); a = e.oracle_action(); o2 = e.step(a)[0]; "
            "print(e.task_id, hashlib.sha256((o + a + o2).encode()).hexdigest(), e.world.state_hash())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    here = gym.make("WebShop-v0").unwrapped
    obs, _ = here.reset(seed=3)
    action = here.oracle_action()
    digest = hashlib.sha256((obs + action + here.step(action)[0]).encode()).hexdigest()
    assert other.split() == [here.task_id, digest, here.world.state_hash()]


# -- world and goals ---------------------------------------------------------------------------
def test_generated_catalogue_and_goals():
    world = WebShopWorld(num_products=200, seed=5)
    rows = world.all_rows("asin", "category", "options", "price", "pricing", "price_tag", "instruction")
    assert len(rows) == 200 and len({r[0] for r in rows}) == 200
    assert {r[1] for r in rows} == {"beauty", "food", "fashion", "furniture", "electronics"}
    for _, _, options, price, pricing, tag, instruction in rows:
        pricing = json.loads(pricing)
        assert pricing[0] <= price <= pricing[-1] and tag == "$" + " to $".join(map(str, pricing))
        assert instruction == instruction.lower()
    products = [{"asin": "B1", "name": "X Lamp", "query": "lamp", "category": "furniture", "product_category": "a › b",
                 "options": {"size": ["s", "m"], "color": ["red", "blue"]}, "price": 21.0, "title_nouns": ["lamp"],
                 "instruction": "i want a lamp", "instruction_attributes": ["easy clean"]},
                {"asin": "B2", "name": "Y Lamp", "query": "lamp", "category": "furniture", "product_category": "a › b",
                 "options": {}, "price": 5.0, "title_nouns": ["lamp"], "instruction": "i need a quiet lamp",
                 "instruction_attributes": ["easy clean", "quiet"]}]
    goals = synthetic_goals(products, seed=0)
    assert len(goals) == 5  # 2 x 2 combinations + 1 without options
    first = goals[0]
    assert first["goal_options"] == {"color": "red", "size": "s"}
    assert first["instruction_text"].startswith("i want a lamp with color: red, and size: s, and price lower than ")
    # weights: "easy clean" appears in 5 goals, "quiet" in 1
    assert first["weight"] == pytest.approx(1 / 5) and goals[4]["weight"] == pytest.approx((1 / 5 + 1) / 2)
    with pytest.raises(ValueError, match="num_products must be an int from 1"):
        WebShopWorld(num_products=0)


def test_builtin_goals_are_webshops_weighted_draw_from_the_shuffled_goals():
    """WebShop's server: every synthetic goal, shuffled with seed 233, then ``limit_goals``'s
    weighted draw without replacement; built here over positions, from a catalogue read once."""
    from toolgym.envs.webshop.env import _builtin_goal_set

    products = generate_products(3, 300)
    goals = synthetic_goals(products, seed=3)
    random.Random(233).shuffle(goals)
    cumulative = list(itertools.accumulate([g["weight"] for g in goals], initial=0.0))
    rng, drawn = random.Random("webshop-goals-3"), []
    while len(drawn) < 43:
        index = min(bisect.bisect(cumulative, rng.uniform(0, cumulative[-1])), len(goals) - 1)
        if index not in drawn:
            drawn.append(index)
    expected = [goals[i] for i in drawn]
    drawn_goals = builtin_goals(iter(products), 3, 40, product=products.__getitem__)
    assert list(drawn_goals.goals.values()) == expected[:40] and list(drawn_goals.demos) == expected[40:]
    assert _builtin_goal_set(WebShopWorld(num_products=300, seed=3), 3, 40) == drawn_goals
    assert len(builtin_goals(products, 3, 10 ** 6).goals) == len(goals) - 3  # fewer goals than asked: all of them


def test_the_catalogue_is_one_shared_read_only_file_and_later_makes_build_nothing(tmp_path, monkeypatch):
    from toolgym.envs.webshop import env as webshop_env
    from toolgym.worlds.webshop import search, world as webshop_world

    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    monkeypatch.setattr(search, "_SEARCHES", {})
    first = gym.make("WebShop-v0", num_products=300, num_goals=20).unwrapped
    (catalogue,) = tmp_path.glob("world-WebShopWorld-*.sqlite")
    assert first.world.catalogue_file == catalogue and len(list(tmp_path.glob("webshop-goals-*.json"))) == 1
    snapshot = first.world.snapshot()
    assert len(snapshot.database) < 64 * 1024 < catalogue.stat().st_size  # the rows stay in the file
    with pytest.raises(Exception, match="readonly"):
        first.world.sql().execute("DELETE FROM products")
    monkeypatch.setattr(search, "_SEARCHES", {})
    for name in ("iter_products",):
        monkeypatch.setattr(webshop_world, name, lambda *a: pytest.fail("the catalogue was generated again"))
    monkeypatch.setattr(webshop_env, "builtin_goals", lambda *a: pytest.fail("the goals were drawn again"))
    monkeypatch.setattr(search.BM25Index, "build", lambda *a: pytest.fail("the index was built again"))
    second = gym.make("WebShop-v0", num_products=300, num_goals=20).unwrapped
    assert second.goal_set == first.goal_set and second.world.state_hash() == first.world.state_hash()
    goal = next(iter(first.goal_set.goals))
    assert second.reset(options={"task_id": goal})[0] == first.reset(options={"task_id": goal})[0]
    assert second.shop.search_engine.search(first.goal["query"]) == first.shop.search_engine.search(first.goal["query"])


def test_without_a_cache_folder_the_catalogue_file_is_the_worlds_own(monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", "")
    world = WebShopWorld(num_products=40, seed=2)
    assert not world.catalogue_file.exists()  # unlinked once attached: gone with the world
    assert len(world.all_rows("asin")) == 40


# -- search ------------------------------------------------------------------------------------
def _queries(world: WebShopWorld, count: int) -> list[str]:
    """Queries of 1 to 6 catalogue words, stop words, repeats and unknown words among them."""
    words = " ".join(n + " " + d for n, d in world.all_rows("name", "description")).lower().split()
    rng = random.Random(4)
    drawn = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(count)]
    return drawn + ["", "the and of", "zzqx unknownword", "RED Red red!!", "a 1 22 b3"]


def test_search_index_read_from_the_cache_gives_the_same_results(tmp_path, monkeypatch):
    from toolgym.worlds.webshop import search

    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    monkeypatch.setattr(search, "_SEARCHES", {})  # no earlier index in this process
    world = WebShopWorld(num_products=300, seed=6)
    built = search.catalogue_search(world)
    (entry,) = tmp_path.glob("webshop-search-*")
    assert sorted(p.name for p in entry.iterdir()) == ["asins.npy", "data.npy", "dense.npy", "dense_words.npy",
                                                       "indices.npy", "indptr.npy", "words.json"]
    monkeypatch.setattr(search, "_SEARCHES", {})
    monkeypatch.setattr(search.BM25Index, "build", lambda *a: pytest.fail("the cached index was built again"))
    read = search.catalogue_search(world)
    assert read is not built and read.index.words == built.index.words
    assert isinstance(read.index.data, np.memmap)  # mapped, shared through the page cache
    for name in search.ARRAYS:
        stored, fresh = getattr(read.index, name), getattr(built.index, name)
        assert stored.dtype == fresh.dtype and (stored == fresh).all()
    assert read.index.asins[0].decode() == world.all_rows("asin")[0][0]
    for query in _queries(world, 500):
        assert read.search(query) == built.search(query)
        assert read.search(query, 7) == built.search(query, 7)
    assert entry.exists()


def test_an_unreadable_or_pickled_search_entry_is_a_miss(tmp_path, monkeypatch):
    from toolgym.worlds.webshop import search

    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    world = WebShopWorld(num_products=50, seed=6)
    query = world.all_rows("name")[0][0]
    for unreadable in (b"\x93NUMPY not an array", None):
        monkeypatch.setattr(search, "_SEARCHES", {})
        expected = search.catalogue_search(world).search(query)
        (entry,) = tmp_path.glob("webshop-search-*")
        if unreadable is None:  # an object array, which only pickle could read
            asins = world.all_rows("asin")
            np.save(entry / "asins.npy", np.array(asins, dtype=object), allow_pickle=True)
        else:
            (entry / "data.npy").write_bytes(unreadable)
        assert search.BM25Index.read(entry) is None
        monkeypatch.setattr(search, "_SEARCHES", {})
        assert search.catalogue_search(world).search(query) == expected != []
        assert search.BM25Index.read(entry) is not None  # written again


def test_search_scores_are_bm25s_scores():
    import bm25s
    from bm25s.tokenization import Tokenizer

    from toolgym.worlds.webshop.search import BM25Index, ProductSearch, document_text

    world = WebShopWorld(num_products=400, seed=8)
    rows = world.all_rows("asin", "name", "description", "bullet_points", "options")
    texts = [document_text(n, d, json.loads(b), json.loads(o)) for _, n, d, b, o in rows]
    ours = ProductSearch(BM25Index.build([r[0] for r in rows], texts))
    tokenizer = Tokenizer(stopwords="english")  # bm25s's own query path over the same index
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(tokenizer.tokenize(texts, return_as="ids", show_progress=False), show_progress=False)
    empty = tokenizer.get_vocab_dict()[""]
    for query in _queries(world, 300):
        ids = tokenizer.tokenize([query], update_vocab=False, return_as="ids", show_progress=False)[0]
        ids = [i for i in ids if i != empty]
        scores = ours.scores(query)
        if not ids:
            assert scores is None
        else:
            assert scores.dtype == np.float32 and scores.tobytes() == retriever.get_scores(ids).tobytes()


def test_search_ranks_as_a_full_sort_of_bm25s_scores():
    """The dense columns and the sampled threshold change no result: the hits are the products
    of positive bm25s score, best first, ties in catalogue order, as ranking all of them gives."""
    import bm25s
    from bm25s.tokenization import Tokenizer

    from toolgym.envs.webshop.env import _builtin_goal_set
    from toolgym.worlds.webshop import search

    world = WebShopWorld(num_products=2000, seed=9)
    rows = world.all_rows("asin", "name", "description", "bullet_points", "options")
    texts = [search.document_text(n, d, json.loads(b), json.loads(o)) for _, n, d, b, o in rows]
    ours = search.ProductSearch(search.BM25Index.build([r[0] for r in rows], texts))
    assert len(ours.index.dense_words) > 0  # frequent words are dense columns
    tokenizer = Tokenizer(stopwords="english")
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(tokenizer.tokenize(texts, return_as="ids", show_progress=False), show_progress=False)
    empty = tokenizer.get_vocab_dict()[""]
    goals = _builtin_goal_set(world, 9, 200)
    queries = _queries(world, 400) + [g["instruction_text"] for g in goals.goals.values()]
    sampled = 0
    for query in queries:
        ids = [i for i in tokenizer.tokenize([query], update_vocab=False, return_as="ids", show_progress=False)[0]
               if i != empty]
        scores = retriever.get_scores(ids) if ids else np.zeros(len(rows), dtype=np.float32)
        positive = np.flatnonzero(scores > 0)
        ranked = [rows[i][0] for i in positive[np.lexsort((positive, -scores[positive]))]]
        sampled += len(ranked) > search.SAMPLE_STRIDE * 8
        ours._cache.clear()
        assert ours.search(query, 7) == ranked[:7]
        assert ours.search(query) == ranked[:50]
        assert ours.search(query, 80) == ranked[:80]
        assert ours.search(query, 7) == ranked[:7]  # from the cache
    assert sampled > len(queries) / 2  # most queries pick among the sampled threshold's candidates


# -- official data -----------------------------------------------------------------------------
def _write_official(folder: Path, n: int = 30) -> None:
    folder.mkdir(parents=True)
    items, attributes, human = [], {}, {}
    for i in range(n):
        asin = f"B0OFF{i:05d}"
        items.append({"asin": asin, "name": f"Acme Ceramic Coffee Mug {i}", "full_description": "a sturdy mug",
                      "small_description": ["dishwasher safe stoneware"], "pricing": "$12.5" if i % 2 else "$10.0 - $20.0",
                      "customization_options": {"Color": [{"value": "Dark/Blue", "image": None}, {"value": "White"}]},
                      "images": ["http://img/x.jpg"], "category": "home", "query": "Coffee Mug ",
                      "product_category": "Home & Kitchen › Kitchen › Mugs"})
        attributes[asin] = {"attributes": ["dishwasher safe", "microwave safe"], "instruction": "i want a mug",
                            "instruction_attributes": ["dishwasher safe"]}
        human[asin] = [{"instruction": f"i want a coffee mug number {i}.", "instruction_attributes": ["dishwasher safe"],
                        "instruction_options": ["white"]},
                       {"instruction": "skipped: no attributes", "instruction_attributes": [], "instruction_options": []}]
    items.append(dict(items[0]))  # a repeated asin is skipped
    (folder / "items_shuffle_1000.json").write_text(json.dumps(items))
    (folder / "items_ins_v2_1000.json").write_text(json.dumps(attributes))
    (folder / "items_human_ins.json").write_text(json.dumps(human))


def test_official_loader_on_webshop_format_files(tmp_path):
    _write_official(tmp_path / "webshop")
    env = gym.make("WebShop-v0", tasks="official", data_dir=str(tmp_path)).unwrapped
    assert env.task_ids() == [str(i) for i in range(30)]  # 30 goals with attributes, numbered after the shuffle
    expected = list(range(30))
    random.Random(233).shuffle(expected)
    assert [env.goal_set.goals[str(k)]["asin"] for k in range(30)] == [f"B0OFF{i:05d}" for i in expected]
    first = env.shop.product("B0OFF00001")
    assert first["options"] == {"color": ["dark | blue", "white"]} and first["Price"] == "$12.5"
    assert env.shop.product("B0OFF00000")["Price"] == "$10.0 to $20.0" and first["query"] == "coffee mug"
    env.reset(seed=0, options={"task_id": "0"})
    assert env.goal["instruction_text"].startswith(f"i want a coffee mug number {expected[0]}")
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        done = terminated or truncated
    assert info["metrics"]["purchased"] == 1 and info["metrics"]["r_att"] == 1.0 and info["metrics"]["r_option"] == 1.0
    toolbench = gym.make("WebShop-v0", tasks="official", split="toolbench", data_dir=str(tmp_path / "webshop")).unwrapped
    assert toolbench.task_ids() == [str(i) for i in range(30)]
    with pytest.raises(Exception, match="has no tasks of split 'dev'"):
        gym.make("WebShop-v0", tasks="official", split="dev", data_dir=str(tmp_path))


def test_official_loader_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="items_shuffle\\*.json"):
        gym.make("WebShop-v0", tasks="official", data_dir=str(tmp_path))
    _write_official(tmp_path / "webshop")
    (tmp_path / "webshop" / "items_human_ins.json").write_text("{not json")
    with pytest.raises(ValueError, match="items_human_ins.json:1: invalid JSON"):
        gym.make("WebShop-v0", tasks="official", data_dir=str(tmp_path))


@pytest.mark.slow
def test_ten_thousand_fuzzed_actions_never_raise():
    from toolgym.agents.fuzz import fuzz_run

    env = gym.make("WebShop-v0")
    stats = fuzz_run(env, 10_000, seed=3)
    assert stats["exceptions"] == []
    base = env.unwrapped
    rng = random.Random(0)
    pieces = ["search[", "click[", "]", "[", "buy now", "next >", "< prev", "\ud800", "b0", "x" * 500, " ", "\n"]
    base.reset(seed=0, options={"task_index": 1})
    rows = base.world.state_hash()
    for _ in range(3000):
        if base._done:
            base.reset(seed=0, options={"task_index": 1})
        before = json.dumps(base.world.aux, sort_keys=True)  # the session: the rows never change
        action = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        obs, reward, *_ , info = base.step(action)
        if "error" in info:
            assert reward == 0.0 and json.dumps(base.world.aux, sort_keys=True) == before
    base.reset(seed=0, options={"task_index": 1})
    assert base.world.state_hash() == rows


# -- serving the html pages --------------------------------------------------------------------
def test_serve_lets_a_person_shop_over_http():
    import threading
    import urllib.parse
    import urllib.request

    from toolgym.envs.webshop.serve import make_server

    env = gym.make("WebShop-v0", observation_mode="html")
    server = make_server(env, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    root = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        task_id = env.unwrapped.task_ids()[0]
        response = urllib.request.urlopen(f"{root}/?task_id={task_id}")
        session_id = response.url.rsplit("/", 1)[1]
        base = server.shop.sessions[session_id].env.unwrapped  # the visitor's own env
        page = response.read().decode()
        assert 'id="search_input"' in page and base.goal["instruction_text"] in page
        while True:
            action = base.oracle_action()
            kind, argument = action[:-1].split("[", 1)
            if kind == "search":
                request = urllib.request.Request(f"{root}/{session_id}/search",
                                                 data=urllib.parse.urlencode({"search_query": argument}).encode())
            else:
                request = urllib.request.Request(f"{root}/{session_id}/click/{urllib.parse.quote(argument, safe='')}",
                                                 data=b"")
            response = urllib.request.urlopen(request)
            page = response.read().decode()
            if action == "click[buy now]":
                break
        assert response.url.startswith(f"{root}/done/{session_id}/{base.goal['asin']}/")
        assert "Thank you for shopping with us!" in page and '<span id="reward">1.000</span>' in page
        assert env.unwrapped._steps == 0  # the served env is only the template of the sessions
    finally:
        server.shutdown()
        server.server_close()




# -- product text ------------------------------------------------------------------------------
def _what_the_reward_reads(count: int) -> str:
    """A digest of what goals and rewards read of the generated products: the goals' fields, the
    options and prices, the title nouns and which attribute phrases the product's text holds."""
    phrases = sorted({a for types in PRODUCT_TYPES.values() for t in types for a in t.attributes})
    digest = hashlib.sha256()
    for p in generate_products(0, count):
        text = [p["name"].lower(), " ".join(p["bullet_points"]).lower(), p["description"].lower()]
        found = [a for a in phrases if any(a in t for t in text)]
        digest.update(json.dumps([p["asin"], p["category"], p["query"], p["product_category"], p["options"],
                                  p["price"], p["pricing"], p["attributes"], p["title_nouns"], p["instruction"],
                                  p["instruction_attributes"], found]).encode())
    return digest.hexdigest()


def test_product_text_changes_no_goal_and_no_reward():
    # The same digest as the catalogue with faker's filler text had: every goal, and the reward
    # of buying any product for any goal, are what they were.
    assert _what_the_reward_reads(3000) == "98781a9fdb6b67d4918d6625e4afa5178042d1e627894ac46429f3df15fae8b8"


def test_product_text_reads_like_a_shop():
    products = generate_products(0, 400)
    nouns = {t.query: t.noun for types in PRODUCT_TYPES.values() for t in types}
    for p in products:
        category = p["category"]
        for bullet in p["bullet_points"][:-1]:
            assert bullet.split(" - ", 1)[1] in BULLET_SENTENCES[category], bullet
        sentences = p["description"].removeprefix(p["name"] + ". ").split(". ")
        assert sentences[2].startswith("Highlights: ") and len(set(sentences)) == 4, p["description"]
        for sentence in sentences[:2] + sentences[3:]:
            assert any(sentence.rstrip(".") == s.format(brand=p["name"].split()[0], noun=nouns[p["query"]],
                                                        query=p["query"]).rstrip(".")
                       for s in DESCRIPTION_SENTENCES[category]), sentence
        said = [w.lower().rstrip("s") for w in p["name"].split(" with ")[0].split()]
        assert len(said) == len(set(said)), p["name"]  # no word twice ("Herbal Tea Bag Tea Bags" was)
        assert p["bullet_points"][-1].startswith(f"WHAT YOU GET - {nouns[p['query']]} ")
        for review in p["reviews"]:
            assert review["title"] in REVIEW_TITLES[review["score"]]
        assert not {"Usb", "Hdmi", "Usda", "For", "With"} & set(p["name"].split()), p["name"]
    assert any("USB" in p["name"] for p in products)


def test_html_observation_is_the_template_with_every_value_escaped():
    from toolgym.worlds.webshop.pages import Page

    page = Page("item", [("text", 'a<b & "c"'), ("heading", "size"), ("label", "1/2 'oz'"), ("label", "<2>"),
                         ("button", "Buy Now"), ("link", "B0<X>")],
                options_json=json.dumps({"size": "1/2 'oz'"}), option_names={"1/2 'oz'": "size", "<2>": "size"})
    assert page.html("s/1").splitlines()[8:-2] == [
        "    <p>a&lt;b &amp; &#34;c&#34;</p>",
        "    <h4>size</h4>",
        '    <form method="post" action="/s/1/click/1%2F2%20%27oz%27" style="display:inline"><input type="radio" '
        'name="size" value="1/2 &#39;oz&#39;" checked onclick="this.form.submit()"><label class="checked">'
        "1/2 &#39;oz&#39;</label></form>",
        '    <form method="post" action="/s/1/click/%3C2%3E" style="display:inline"><input type="radio" name="size" '
        'value="&lt;2&gt;" onclick="this.form.submit()"><label class="">&lt;2&gt;</label></form>',
        '    <form method="post" action="/s/1/click/buy%20now"><button type="submit" class="btn">Buy Now</button></form>',
        '    <form method="post" action="/s/1/click/b0%3Cx%3E"><button type="submit" class="product-link">B0&lt;X&gt;'
        "</button></form>"]


def test_site_pages_are_the_templates_without_a_space_between_tags():
    """Every page of an oracle episode on the served site, the done page and a note of markup: the
    inline buttons touch (a line break of a template between them would draw a space)."""
    import re

    from toolgym.envs.webshop.serve import Shop, product_svg, render

    env = gym.make("WebShop-v0", observation_mode="html")
    session = Shop(env.spec).open(env.unwrapped.task_ids()[0])
    base = session.env.unwrapped
    *_, info = session.env.step("click[<b>&'x'</b>]")
    session.note = f"Invalid action: {info['error']}"
    pages = [render(session)]
    while session.metrics is None:
        *_, terminated, truncated, info = session.env.step(base.oracle_action())
        if terminated or truncated:
            session.metrics = info["metrics"]
        pages.append(render(session))
    assert all(p.startswith("<!DOCTYPE html>\n<html") and p.endswith("</body></html>\n") for p in pages)
    assert [re.findall(r">\s+<", p.split("\n", 1)[1]) for p in pages] == [[]] * len(pages)
    assert '<p class="note">Invalid action: &#34;&lt;b&gt;&amp;&#39;x&#39;&lt;/b&gt;&#34; is not a button' in pages[0]
    assert pages[-1].count('<span id="reward">1.000</span>') == 1 and pages[-1].count("<tr>") == 5
    svg = product_svg(base.shop.product(base.goal["asin"]))
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and svg.endswith("</text></svg>")
