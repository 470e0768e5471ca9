"""WebShop-v0 details next to the original: ReAct's think[...] answer, fuzzy matching of text
that is not ASCII (paper keeps it; paper_compat drops it, as the released code does)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.worlds.tools import ACTION
from toolgym.worlds.webshop.reward import get_reward, token_set_ratio
from toolgym.worlds.webshop.session import WebShopSession
from toolgym.worlds.webshop.world import WebShopWorld


@pytest.fixture(scope="module")
def env():
    return gym.make("WebShop-v0", max_steps=3).unwrapped


def test_think_is_answered_ok_and_changes_nothing(env):
    page, info = env.reset(seed=0, options={"task_index": 0})
    session = json.dumps(env.shop.state, sort_keys=True)
    observation, reward, terminated, truncated, info = env.step("think[I should search for the product first.]")
    assert (observation, reward, terminated, truncated) == ("OK.", 0.0, False, False)
    assert "error" not in info and json.dumps(env.shop.state, sort_keys=True) == session and env._steps == 1
    observation, *_ = env.step(env.oracle_action())  # the shop goes on from the same page
    assert "Total results" in observation
    observation, reward, terminated, truncated, info = env.step("think[out of steps]")
    assert (observation, terminated, truncated) == ("OK.", False, True)  # a thought uses one of max_steps
    assert info["metrics"]["score"] == 0.0 and info["metrics"]["steps"] == 3


PRODUCT = {"query": "sneaker", "product_category": "Clothing › Shoes › Sneakers", "title_nouns": ["sneaker"],
           "Title": "Trail Sneaker", "BulletPoints": ["light"], "Description": "a shoe",
           "Attributes": ["women's", "日本製"]}
GOAL = {"query": "sneaker", "product_category": "Clothing › Shoes › Sneakers", "title_nouns": ["sneaker"],
        "attributes": ["women’s", "日本製"], "goal_options": {}, "price_upper": 100.0}


def test_fuzzy_matching_keeps_non_ascii_text_under_paper_scoring():
    assert token_set_ratio("women’s fit", "women's fit", force_ascii=False) == 100
    assert token_set_ratio("women’s", "women's") == 77  # the released code: the ’ is dropped, "womens"
    assert token_set_ratio("日本製", "日本製") == 0 and token_set_ratio("日本製", "日本製", force_ascii=False) == 100
    paper, details = get_reward(PRODUCT, GOAL, 50.0, {}, "paper")
    compat, compat_details = get_reward(PRODUCT, GOAL, 50.0, {}, "paper_compat")
    assert details["attribute_matches"] == 2 and paper == 1.0
    assert compat_details["attribute_matches"] == 0 and compat == pytest.approx(1 / 3)


#: The tools as WebShop-v0 showed them to models when they were written by hand: the schemas
#: derived from the shop's typed tools must stay these, byte for byte.
TOOL_SCHEMAS = [
    {"type": "function", "function": {
        "name": "search", "description": "Search the shop (only on the search page); the same as search[query].",
        "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "keywords"}},
                       "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "click", "description": "Click a button, product or option on the page; the same as click[button].",
        "parameters": {"type": "object", "properties": {"button": {
            "type": "string",
            "description": "one of info['available_actions']['clickables'], e.g. 'buy now', 'next >', an asin"}},
            "required": ["button"]}}},
]


def test_tools_shown_to_models_are_the_shops_derived_schemas(env):
    _, info = env.reset(seed=0, options={"task_index": 0})
    assert json.dumps(info["tools"]) == json.dumps(TOOL_SCHEMAS)  # the same keys in the same order
    *_, info = env.step("search[tea]")
    assert json.dumps(info["tools"]) == json.dumps(TOOL_SCHEMAS)


def test_the_shops_tools_are_typed_methods_of_the_worlds_session():
    assert WebShopSession.schemas(["search", "click"]) == TOOL_SCHEMAS
    assert {name: spec.kind for name, spec in WebShopSession.specs.items()} == {"search": ACTION, "click": ACTION}
    world = WebShopWorld(num_products=60, seed=4)
    shop = WebShopSession(world)
    purchases = []

    def judge(product, price, options):
        purchases.append((product["asin"], price, dict(options)))
        return 0.5, {"r_type": 1.0}
    shop.start("i want something", judge)
    assert shop.available_actions() == {"has_search_bar": True, "clickables": ["search"]}
    hash_before = world.state_hash()
    assert shop.call("click", {"button": "Buy Now"}).error == "'buy now' is not a button on this page"
    assert shop.call("search", {"query": "  "}).error == "search[...] needs keywords"
    assert shop.call("search", {"query": "\ud800"}).error.startswith(
        "Invalid arguments for search: query: the text contains a lone surrogate")
    assert world.state_hash() == hash_before and shop.page.kind == "search"  # refused calls change nothing
    query = world.all_rows("query")[0][0]
    snapshot = world.snapshot()
    result = shop.call("search", {"query": query.upper()})  # read lower-cased, as WebShop's text env does
    assert result.ok and shop.state["keywords"] == query and result.response == shop.page.text()
    assert shop.call("search", {"query": query}).error == (
        "there is no search bar on this page (click[back to search] first)")
    asin = shop.available_actions()["clickables"][2]  # after back to search and next >
    shop.call("click", {"button": asin})
    assert shop.state["page"] == "item" and shop.state["asins"] == [asin.upper()]
    assert shop.call("click", {"button": "buy now"}).ok and shop.purchased and shop.state["reward"] == 0.5
    assert purchases == [(asin.upper(), world.product(asin.upper()).price, {})]
    assert shop.page.text().split(" [SEP] ")[30] == "0.5"  # the done page shows the judge's reward
    world.restore(snapshot)  # the page follows the restored state
    assert shop.page.kind == "search" and shop.available_actions()["clickables"] == ["search"]
