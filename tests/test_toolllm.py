"""ToolLLM-v0 and its RapidAPI world: built-in scoring with hand-made answers, determinism,
state and restore, ToolBench's errors and names, official queries."""

from __future__ import annotations

import json
import multiprocessing
import random

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.agents.fuzz import HOSTILE_VALUES, deep_dict
from toolgym.envs.toolllm.env import FINISH_NO_RETURN_TYPE, ToolLLMEnv, contains_fact
from toolgym.worlds.rapidapi.naming import argument_name, function_name, standardize
from toolgym.worlds.rapidapi.tasks import GROUP_SIZES
from toolgym.worlds.rapidapi.world import RapidAPIWorld, example_arguments, matches_template, request_key

from toolgym.agents import play_oracle

_ENV: list = []


@pytest.fixture
def env() -> ToolLLMEnv:
    if not _ENV:
        _ENV.append(gym.make("ToolLLM-v0").unwrapped)
    return _ENV[0]


def _finish(answer: str) -> dict:
    return {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": answer}}


def _run(env, task_id: str, actions: list) -> tuple[float, dict]:
    env.reset(seed=0, options={"task_id": task_id})
    total, info = 0.0, {}
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            break
    return total, info


def _plan_actions(env, task) -> list[dict]:
    return [{"name": env.world.api(p["api_id"]).function, "arguments": p["arguments"]} for p in task.plan]


def _lookup_task(env):
    return next(t for t in env.tasks.values() if t.group == "G1_instruction" and t.query.startswith("Find the "))


# -- built-in tasks ---------------------------------------------------------------------------
def test_oracle_passes_every_builtin_task_and_groups_have_the_papers_sizes(env):
    groups = {}
    for task_id in env.task_ids():
        total, info, terminated = play_oracle(env, task_id)
        assert terminated and info["metrics"]["pass"] == 1.0 == total, (task_id, info["metrics"])
        assert info["metrics"]["relevant_api_recall"] == 1.0 and info["metrics"]["invalid_calls"] == 0
        groups[env.task_split(task_id)] = groups.get(env.task_split(task_id), 0) + 1
    assert groups == GROUP_SIZES


def test_hand_made_answers_score_as_expected(env):
    task = _lookup_task(env)
    plan = _plan_actions(env, task)
    fact_a, fact_b = task.facts
    assert _run(env, task.query_id, plan + [_finish(f"It is {fact_a} and {fact_b}.")])[0] == 1.0
    # One fact missing, a wrong value, giving up, and the right facts without the required call: 0.
    total, info = _run(env, task.query_id, plan + [_finish(f"It is {fact_a}.")])
    assert total == 0.0 and info["metrics"]["facts_found"] == 0.5
    wrong = "999999" if fact_b != "999999" else "123456"
    assert _run(env, task.query_id, plan + [_finish(f"It is {fact_a} and {wrong}.")])[0] == 0.0
    total, info = _run(env, task.query_id, plan + [{"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}}])
    assert total == 0.0 and info["metrics"]["gave_up"] == 1.0 and info["metrics"]["pass"] == 0.0
    total, info = _run(env, task.query_id, plan[:1] + [_finish(f"It is {fact_a} and {fact_b}.")])
    assert total == 0.0 and info["metrics"]["required_calls_made"] == 0.0 and info["metrics"]["facts_found"] == 1.0
    # A number inside a longer number is not the fact.
    assert contains_fact("rating 4.37", "4.37") and not contains_fact("rating 14.375", "4.37")
    assert contains_fact("1,234,567 plays", "1234567") and contains_fact("City: LISBON.", "Lisbon")


def test_create_task_needs_the_write_and_reports_the_new_id(env):
    task = next(t for t in env.tasks.values() if t.group.startswith("G1") and t.query.startswith("Add a new"))
    plan = _plan_actions(env, task)
    (new_id,) = task.facts
    env.reset(seed=0, options={"task_id": task.query_id})
    initial = env.world.state_hash()
    assert _run(env, task.query_id, plan + [_finish(f"The id is {new_id}.")])[0] == 1.0
    assert env.world.state_hash() != initial
    assert _run(env, task.query_id, [_finish(f"The id is {new_id}.")])[0] == 0.0  # not created
    assert env.world.state_hash() == initial  # reset undid the write


def test_the_cached_task_set_is_the_generated_one(tmp_path, monkeypatch):
    # The built-in tasks are kept in the cache folder: read back, they equal a fresh
    # generation, and a second process reads them instead of running every solution again.
    from toolgym.worlds.rapidapi import tasks

    world = RapidAPIWorld()
    monkeypatch.setenv("TOOLGYM_CACHE", "")
    generated = tasks.builtin_tasks(world)
    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    assert tasks.builtin_tasks(world) == generated
    assert [p.name.split("-")[:2] for p in tmp_path.glob("toolllm-tasks-*.json")] == [["toolllm", "tasks"]]

    def fail(*args):
        raise AssertionError("generated again instead of read from the cache")

    monkeypatch.setattr(tasks, "_generate", fail)
    cached = tasks.builtin_tasks(world)
    assert cached == generated and isinstance(cached[0].relevant[0], tuple)


def test_malformed_finish_and_call_limit(env):
    task = _lookup_task(env)
    env.reset(seed=0, options={"task_id": task.query_id})
    obs, reward, terminated, _, info = env.step({"name": "Finish", "arguments": {"final_answer": "x"}})
    assert obs == FINISH_NO_RETURN_TYPE and not terminated
    obs, _, terminated, _, _ = env.step({"name": "Finish", "arguments": {"return_type": "give_answer"}})
    assert "must have \"final_answer\"" in obs and not terminated
    for _ in range(env.max_calls - 3):
        assert not env.step("just text, no call")[2]
    obs, reward, terminated, truncated, info = env.step(_plan_actions(env, task)[0])
    assert truncated and not terminated and reward == 0.0
    assert info["metrics"]["pass"] == 0.0 and info["metrics"]["invalid_calls"] == env.max_calls - 1


def test_generalisation_splits_hold_out_tools_and_categories(env):
    world = env.world
    tools = {row[0]: row[1:] for row in world.sql().execute(
        "SELECT name, split, category_id, collection_id FROM tools")}
    expected = {"G1_instruction": "train", "G1_tool": "test_tool", "G1_category": "test_category",
                "G2_instruction": "train", "G2_category": "test_category", "G3_instruction": "train"}
    for task in env.tasks.values():
        used = {tool for tool, _ in task.relevant}
        assert {tools[t][0] for t in used} == {expected[task.group]}, task.query_id
        if task.group.startswith("G2"):
            assert len(used) == 2 and len({tools[t][1] for t in used}) == 1
        if task.group.startswith("G3"):
            assert len(used) >= 2 and len({tools[t][2] for t in used}) == 1
    held_out = {tools[t][1] for t in tools if tools[t][0] == "test_category"}
    assert held_out and not held_out & {tools[t][1] for t in tools if tools[t][0] != "test_category"}


# -- the world --------------------------------------------------------------------------------
def _responses(seed: int) -> list[str]:
    world = RapidAPIWorld(seed=seed)
    rng = random.Random(5)
    world._load_apis()
    out = []
    for api in sorted(world._apis.values(), key=lambda a: a.id):
        if api.kind not in ("create", "update", "delete"):
            out.append(world.call(api.id, example_arguments(api)).observation())
    entity = world.entities(1)[0]
    out.append(str(rng.random()) + world.state_hash() + entity.key)
    return out


def test_same_request_same_response_in_another_process():
    here = _responses(3)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply(_responses, (3,))
    assert here == there
    assert _responses(4) != here  # another seed, another world


def test_writes_are_seen_by_later_calls_and_undone_by_restore(env):
    task = next(t for t in env.tasks.values() if t.group.startswith("G1") and t.query.startswith("Add a new"))
    env.reset(seed=0, options={"task_id": task.query_id})
    world = env.world
    create = world.api(task.plan[0]["api_id"])
    search = next(world.api(a) for a in task.api_ids if world.api(a).kind == "search")
    name = task.plan[0]["arguments"]["name"]
    before_hash, snap = world.state_hash(), env.snapshot()
    assert json.loads(json.loads(env.step({"name": search.function, "arguments": {"query": name}})[0])["response"])["count"] == 0
    created = json.loads(json.loads(env.step({"name": create.function, "arguments": task.plan[0]["arguments"]})[0])["response"])
    found = json.loads(json.loads(env.step({"name": search.function, "arguments": {"query": name}})[0])["response"])
    assert found["results"] == [{"id": created["id"], "name": name}]
    details = next(world.api(a) for a in task.api_ids if world.api(a).kind == "details")
    arg = details.required[0]["arg"]
    shown = json.loads(json.loads(env.step({"name": details.function, "arguments": {arg: created["id"]}})[0])["response"])
    assert shown["name"] == name
    env.restore(snap)
    assert world.state_hash() == before_hash and env.episode.steps == 0 and len(env.episode.messages) == 2
    again = json.loads(json.loads(env.step({"name": search.function, "arguments": {"query": name}})[0])["response"])
    assert again["count"] == 0


def test_toolbench_errors_change_nothing(env):
    task = _lookup_task(env)
    env.reset(seed=0, options={"task_id": task.query_id})
    details = env.world.api(task.plan[1]["api_id"])
    top = next((env.world.api(a) for a in task.api_ids if env.world.api(a).kind == "top_by"), None)
    before = env.world.state_hash()
    cases = [
        ({"name": "no_such_function_for_x", "arguments": {}}, "No such function name: no_such_function_for_x"),
        ({"name": details.function, "arguments": "{not json"}, "Tool input parse error...\n"),
        ({"name": details.function, "arguments": {}},
         f"Function executing from my_tools.{details.category}.{standardize(details.tool_name)}.api import "
         f"{details.python_name} error...\n{details.python_name}() missing 1 required positional argument: "
         f"'{details.required[0]['arg']}'"),
        ({"name": details.function, "arguments": {details.required[0]["arg"]: "x", "extra": 1}},
         f"{details.python_name}() got an unexpected keyword argument 'extra'"),
    ]
    if top is not None:
        cases.append(({"name": top.function, "arguments": {"limit": "many"}},
                      f"{top.python_name}() argument 'limit' must be a number, got 'many'"))
    for action, error in cases:
        observation = json.loads(env.step(action)[0])
        assert observation["response"] == "" and error in observation["error"]
    assert env.world.state_hash() == before


def test_faults_are_seeded_and_bad_config_raises():
    def errors(seed):
        world = RapidAPIWorld(seed=seed, fault_rate=0.5)
        api = world.api(1)
        return [world.call(1, example_arguments(api)).error for _ in range(40)]
    first = errors(0)
    assert first == errors(0)
    assert any(e.startswith("Timeout error...") for e in first) and "Rate limit per minute error..." in first
    assert "" in first
    env = gym.make("ToolLLM-v0", fault_rate=0.3, max_calls=40).unwrapped
    faults = 0
    for task_id in env.task_ids()[::40]:
        env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(env.oracle_action())
            done = terminated or truncated
        assert info["metrics"]["pass"] == 1.0 and info["metrics"]["invalid_calls"] == 0  # the oracle retries
        faults += info["metrics"]["faults"]
    assert faults > 0
    for kwargs, match in [({"catalogue_size": "huge"}, "catalogue_size must be one of"),
                          ({"fault_rate": 2}, "fault_rate must be"), ({"max_calls": 0}, "max_calls must be")]:
        with pytest.raises(ValueError, match=match):
            gym.make("ToolLLM-v0", **kwargs)


def test_ten_thousand_fuzzed_calls_never_raise_and_change_nothing():
    world = RapidAPIWorld(seed=1)
    world._load_apis()
    apis = sorted(world._apis.values(), key=lambda a: a.id)
    rng = random.Random(0)
    values = list(HOSTILE_VALUES) + [deep_dict(200), [1] * 50, {"a": [1, {"b": 2}]}, "2023-13-45", "true", 3.5]
    before = world.state_hash()
    writes = 0
    for _ in range(10_000):
        api = rng.choice(apis)
        arguments = example_arguments(api, optional=True)
        for key in rng.sample(list(arguments), min(len(arguments), rng.randint(0, 2))):
            arguments[key] = rng.choice(values)
        if rng.random() < 0.1:
            arguments[rng.choice(("zz", "\ud800", "x" * 300))] = 1
        if rng.random() < 0.05:
            arguments = rng.choice(("{bad", None, [1, 2], 7, "null"))
        result = world.call(api.id, arguments)
        json.loads(result.observation())
        writes += result.wrote
    assert writes > 0 and world.state_hash() != before  # valid writes happened
    assert RapidAPIWorld(seed=1).state_hash() == before  # a fresh world is the built one


# -- names ------------------------------------------------------------------------------------
def test_toolbench_names():
    assert function_name("Get Artist Overview", "TheClique") == "get_artist_overview_for_theclique"
    assert function_name("/api/Tracking/", "Pack & Send") == "api_tracking_for_pack_send"
    assert function_name("3 day forecast", "Weather") == "get_3_day_forecast_for_weather"
    assert len(function_name("a" * 50, "b" * 50)) == 64 and function_name("a" * 50, "b" * 50).endswith("_for_" + "b" * 50)
    assert argument_name("id") == "is_id" and argument_name("from") == "is_from" and argument_name("Page-Size") == "page_size"


# -- official queries -------------------------------------------------------------------------
@pytest.fixture
def official(official_data) -> ToolLLMEnv:
    return gym.make("ToolLLM-v0", tasks="official", data_dir=str(official_data)).unwrapped


def test_official_queries_of_every_group_load_and_every_api_answers(official):
    assert {g: sum(1 for t in official.task_ids() if official.task_split(t) == g) for g in GROUP_SIZES} == {
        "G1_instruction": 163, "G1_category": 153, "G1_tool": 158, "G2_instruction": 106, "G2_category": 124,
        "G3_instruction": 61}
    world = official.world
    world._load_apis()
    assert len(world._apis) == 2490
    shaped = 0
    for api in world._apis.values():
        arguments = example_arguments(api, optional=True)
        result = world.call(api.id, arguments)
        assert result.ok, (api.function, result.error)
        assert len(json.loads(result.observation())["response"]) <= 1024
        if isinstance(api.template, (dict, list)) and request_key(api.function, result.arguments) not in world.recorded:
            assert matches_template(result.response, api.template), api.function
            shaped += 1
        assert world.call(api.id, arguments).response == result.response
    assert shaped > 1400


def test_official_function_names_match_toolbench_answer_trees(official, official_data):
    trees = sorted(official_data.glob("stabletoolbench/**/answer/virtual_chatgpt_dfs/G1_instruction/*.json"))
    assert trees
    for path in trees:
        record = json.loads(path.read_text())
        query_id = path.name.split("_")[0]
        _, info = official.reset(options={"task_id": query_id})
        ours = [t["function"]["name"] for t in info["tools"]]
        theirs = [f["name"] for f in record["answer_generation"]["function"]]
        assert set(theirs) <= set(ours), (query_id, set(theirs) - set(ours))
        their_finish = next(f for f in record["answer_generation"]["function"] if f["name"] == "Finish")
        assert next(t["function"] for t in info["tools"] if t["function"]["name"] == "Finish") == their_finish


def test_official_recorded_responses_are_replayed_and_episodes_are_unscored(official):
    world = official.world
    assert world.recorded
    key, response = next(iter(world.recorded.items()))
    function, arguments = key.split(" ", 1)
    api_id = world.function_ids()[function][0]
    api = world.api(api_id)
    names = {p["name"]: p["arg"] for p in api.required + api.optional}
    assert world.call(api_id, {names[k]: v for k, v in json.loads(arguments).items()}).response == response
    task_id = official.task_ids()[0]
    official.reset(options={"task_id": task_id})
    done, total = False, 0.0
    while not done:
        _, reward, terminated, truncated, info = official.step(official.oracle_action())
        total += reward
        done = terminated or truncated
    assert info["metrics"]["pass"] is None and info["metrics"]["scored"] is False and total == 0.0
    assert "Pass rate" not in [c.title for c in official.table_columns]


def test_missing_official_data_names_the_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="solvable_queries/test_instruction/G1_tool.json"):
        gym.make("ToolLLM-v0", tasks="official", split="G1_tool", data_dir=str(tmp_path))


# -- the official queries as ToolBench's own code offers and reads them (issue 27) -------------
_OFFICIAL: dict = {}


def _official(official_data, scoring: str = "paper") -> ToolLLMEnv:
    if scoring not in _OFFICIAL:
        _OFFICIAL[scoring] = gym.make("ToolLLM-v0", tasks="official", data_dir=str(official_data),
                                      scoring=scoring).unwrapped
    return _OFFICIAL[scoring]


def _queries(official_data) -> list[dict]:
    folder = next(official_data.glob("stabletoolbench/**/solvable_queries/test_instruction"))
    return [q for path in sorted(folder.glob("*.json")) for q in json.loads(path.read_text())]


def test_official_apis_without_required_parameters_are_offered_no_parameters(official_data):
    env = _official(official_data)
    _, info = env.reset(options={"task_id": "608"})
    links = next(t["function"] for t in info["tools"]
                 if t["function"]["name"] == "get_channel_links_for_kick_com_api_kick_api")
    assert links["parameters"] == {"type": "object", "properties": {}, "required": [], "optional": []}
    polls = next(t["function"] for t in info["tools"]
                 if t["function"]["name"] == "get_channel_polls_for_kick_com_api_kick_api")
    assert list(polls["parameters"]["properties"]) == ["channel_name"]
    # the optional parameter is still accepted, as ToolBench's server accepts it
    observation, *_ = env.step({"name": "get_channel_links_for_kick_com_api_kick_api",
                                "arguments": {"channel_name": "gmhikaru"}})
    assert json.loads(observation)["error"] == ""
    only_optional = [d for q in _queries(official_data) for d in q["api_list"]
                     if not d["required_parameters"] and d["optional_parameters"]]
    assert len(only_optional) == 402
    for doc in only_optional[:50]:
        api = env.world.api(env.world.api_id(doc["category_name"], doc["tool_name"], doc["api_name"]))
        assert api.schema()["function"]["parameters"]["properties"] == {}


def test_official_system_prompt_lists_tools_as_toolbench(official_data, monkeypatch):
    env = _official(official_data)
    _, info = env.reset(options={"task_id": "608"})
    prompt = info["messages"][0]["content"]
    assert prompt.endswith("You have access of the following tools:\n1.kick_com_api_kick_api: None\n")
    _, info = env.reset(options={"task_id": "27847"})  # two tools in one query
    lines = info["messages"][0]["content"].split("following tools:\n", 1)[1].splitlines()
    assert lines and all(line == f"{i}.{line.split('.', 1)[1].split(':')[0]}: None" for i, line in enumerate(lines, 1))
    monkeypatch.setattr(env, "_tool_description", lambda tool_id: "  Songs\nand artists " + "x" * 600)
    _, info = env.reset(options={"task_id": "608"})
    line = info["messages"][0]["content"].rsplit("\n", 2)[1]
    assert line == "1.kick_com_api_kick_api: " + ("  Songs\nand artists " + "x" * 600)[:512].replace("\n", "").strip()


@pytest.mark.parametrize("text, terminated, answer, observation", [
    ('{"return_type": "give_answer", "final_answer": "unterminated', True, "unterminated",
     '{"response":"successfully giving the final answer."}'),
    ('{"return_type": "give_answer", "final_answer": "two\nlines"}', True, "two\nlines",
     '{"response":"successfully giving the final answer."}'),
    ('{"return_type": "give_answer", "final_answer": "said "quoted" words"}', True, 'said "quoted" words"}',
     '{"response":"successfully giving the final answer."}'),
    ('{"return_type": "give_up_and_restart", oops', True, None, '{"response":"chose to give up and restart"}'),
    ('{"return_type": "give_answer", oops', False, None, '{error:"must have "final_answer""}'),
    ('{"return_type": "maybe", "x": 1,', False, None, '{error:""return_type" is not a valid choice"}'),
    ('{"final_answer": "no type', False, None, '{error:"must have "return_type""}'),
    ('["give_answer"]', False, None, '{error:"must have "return_type""}'),
])
def test_official_finish_with_malformed_json_is_read_by_substring_as_toolbench(official_data, text, terminated,
                                                                               answer, observation):
    env = _official(official_data)
    env.reset(options={"task_id": "608"})
    got, _, done, _, info = env.step({"name": "Finish", "arguments": text})
    assert (got, done) == (observation, terminated)
    if done:
        assert info["final_answer"] == answer and info["metrics"]["gave_up"] == float(answer is None)


def test_official_paper_compat_dispatches_by_suffix_and_offers_colliding_names(official_data):
    paper, compat = _official(official_data), _official(official_data, "paper_compat")
    for env, runs in ((paper, "geocode_for_uganda_api"), (compat, "reverse_geocode_for_uganda_api")):
        env.reset(options={"task_id": "22781"})
        env.step({"name": "geocode_for_uganda_api", "arguments": {"lat": "0.3", "lon": "32.5", "city": "Kampala"}})
        assert env.episode.calls[-1].function == runs
    name = "e_vip_btts_goal_goal_for_get_168predict_vip_football_predictions"
    _, info = paper.reset(options={"task_id": "27847"})
    assert [t["function"]["name"] for t in info["tools"]].count(name) == 1
    _, info = compat.reset(options={"task_id": "27847"})
    assert [t["function"]["name"] for t in info["tools"]].count(name) == 3
    compat.step({"name": name, "arguments": {}})
    last = compat.world.api(compat.episode.calls[-1].api_id)
    assert last.name == "Today Sure VIP BTTS/Goal Goal"  # ToolBench's api_name_reflect keeps the last one


def test_a_syntax_error_says_what_the_parser_expected(env):
    env.reset(seed=0)
    before = env.world.state_hash()
    unclosed = json.loads(env.step('get_details(id="x"')[0])["error"]
    assert unclosed.startswith("Tool input parse error...\na call that does not parse: '(' was never closed (column 12)\n")
    assert unclosed.endswith('Expected one function call: a JSON object {"name": "<function>", "arguments": {...}} or '
                             "<function>(key=value, ...) with literal values (strings, numbers, lists, dicts).")
    bad_json = json.loads(env.step('{"name": "f", "arguments": {"a": 1,}}')[0])["error"]
    assert "malformed JSON: Expecting property name" in bad_json and "Expected one function call" in bad_json
    plain = json.loads(env.step("I think so (maybe)")[0])["error"]
    assert plain == "No function call: call one of the functions, or Finish to answer or give up."
    assert env.world.state_hash() == before
