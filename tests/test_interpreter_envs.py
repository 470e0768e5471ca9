"""The interpreter's budgets and tool-call forms, end to end in HomeSearch, TripBooking and Tabletop."""

from __future__ import annotations

import json
import time
import tracemalloc

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from tests.test_api_program import HOME_0, TRIP_0
from tests.test_interpreter import deadline


def measured(step, action):
    """``step(action)``, with its CPU time (this process's: a busy machine stretches only the
    wall clock) and peak traced memory."""
    tracemalloc.start()
    start = time.process_time()
    with deadline(20):
        result = step(action)
    elapsed = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 5 and peak < 100 * 2**20, (action[:80], elapsed, peak)
    return result


# -- HomeSearch / TripBooking ------------------------------------------------------------------
def test_multi_step_aliasing_blowup_is_refused_before_it_grows():
    env = gym.make("HomeSearch-v0", mode="multi_step")
    base = env.unwrapped
    env.reset(seed=0, options={"task_id": "0"})
    env.step("x = [1]")
    before = base.world.state_hash()
    obs = ""
    for _ in range(8):
        obs, _, terminated, _, info = measured(env.step, "x = [" + ", ".join(["x"] * 10) + "]")
        if obs.startswith("Error"):
            break
    # An error step: the episode goes on, with the namespace as it was before the step.
    assert not terminated and "value too large" in obs and info["error"]
    assert base.world.state_hash() == before and base.interpreter.variables["x"] is not None
    env.reset(seed=0, options={"task_id": "0"})
    obs, *_ = env.step("x = [x] * 10")  # the report's form: operators are not part of the paper's syntax
    assert obs == "Error: line 1: BinOp `[x] * 10` is not allowed"
    env.reset(seed=0, options={"task_id": "0"})
    for line in HOME_0.splitlines():  # usable afterwards
        *_, info = env.step(line)
    assert info["metrics"]["success"] == 1


@pytest.mark.parametrize("env_id, calls", [
    ("HomeSearch-v0", ["API.set_location(x)", 'API.set_buy_or_rent("buy")', "API.search()"]),
    ("TripBooking-v0", ['API.select_booking_type("trip tickets")', 'API.select_transportation("bus")',
                        "API.set_origin(Loc(x))", 'API.set_destination(Loc("Henderson"))',
                        "API.set_departure_date(Date(x, x, 2023))", "API.search()"]),
])
def test_nested_values_passed_to_helpers_and_the_api_stay_cheap(env_id, calls):
    env = gym.make(env_id, mode="multi_step")
    base = env.unwrapped
    env.reset(seed=0, options={"task_id": "0"})
    env.step("x = [[1, 2, 3, 4, 5, 6, 7, 8, 9]]")
    for _ in range(2):  # x holds 900 numbers through aliases; a third round would pass the 10,000 limit
        env.step("x = [x, x, x, x, x, x, x, x, x, x]")
    for call in calls:
        obs, reward, terminated, _, info = measured(env.step, call)
        assert not obs.startswith("Error"), obs
        with deadline(5):
            base.world.state_hash()
    assert terminated and reward == 0.0 and info["metrics"]["executable"] == 1


@pytest.mark.parametrize("env_id, program", [
    ("HomeSearch-v0", 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\n'
                      "API.set_min_price(1000000000000000000000000000000)\nAPI.search()"),
    ("HomeSearch-v0", 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.set_min_price(10**30)'),
    ("TripBooking-v0", TRIP_0.replace("Date(7, 7, 2023)", "Date(100000000000000000000, 1, 2023)")),
    ("TripBooking-v0", TRIP_0.replace("Date(7, 7, 2023)", "Date(10**20, 1, 2023)")),
])
def test_integers_beyond_64_bits_are_refused_before_anything_runs(env_id, program):
    env = gym.make(env_id)
    env.reset(seed=0, options={"task_id": "0"})
    before = env.unwrapped.world.state_hash()
    obs, reward, terminated, _, info = env.step(program)
    assert terminated and reward == 0.0 and info["metrics"]["executable"] == 0
    assert obs.startswith("Error: line ") and ("more than 63 bits" in obs or "BinOp" in obs)
    assert env.unwrapped.world.state_hash() == before
    env.reset(seed=0, options={"task_id": "0"})
    assert env.step(env.unwrapped.oracle_action())[-1]["metrics"]["success"] == 1


def test_integers_at_the_64_bit_limit_run_without_overflow():
    trip = gym.make("TripBooking-v0")
    trip.reset(seed=0, options={"task_id": "0"})
    big = 2**63 - 1
    program = (TRIP_0.replace("Date(7, 7, 2023)", f"Date({big}, 1, 2023)")
               .replace("set_num_adults(6)", f"set_num_adults({2**62})\nAPI.set_num_children({2**62})"))
    obs, _, _, _, info = trip.step(program)
    assert info["metrics"]["executable"] == 1 and json.loads(obs)["tickets"]["departure"] == []
    obs, *_ = trip.step("x")  # the episode is over; still no crash
    assert "episode is over" in obs


def test_json_integer_beyond_64_bits_is_a_plain_error():
    env = gym.make("HomeSearch-v0", mode="multi_step")
    env.reset(seed=0, options={"task_id": "0"})
    for line in HOME_0.splitlines()[:2]:
        env.step(line)
    before = env.unwrapped.world.state_hash()
    obs, _, terminated, _, _ = env.step({"name": "set_min_price", "arguments": {"value": 10**30}})
    assert not terminated and obs == "Error: line 1: number too large (more than 63 bits)"  # an error step
    assert env.unwrapped.world.state_hash() == before


def test_json_integer_past_python_digit_limit_is_a_malformed_action():
    env = gym.make("HomeSearch-v0", mode="multi_step")
    env.reset(seed=0, options={"task_id": "0"})
    before = env.unwrapped.world.state_hash()
    obs, _, terminated, _, _ = env.step('{"name": "set_location", "arguments": {"value": ' + "1" * 5000 + "}}")
    assert not terminated and obs.startswith("Error: malformed JSON: Exceeds the limit (4300 digits)")
    assert env.unwrapped.world.state_hash() == before


def test_multi_step_json_and_call_syntax_tool_calls_are_statements():
    env = gym.make("TripBooking-v0", mode="multi_step")
    env.reset(seed=0, options={"task_id": "0"})
    actions = [
        {"name": "select_booking_type", "arguments": {"booking_type": "trip tickets"}},
        '{"name": "select_transportation", "arguments": {"transportation_type": "bus"}}',
        'set_origin("Anchorage")',
        {"type": "function", "function": {"name": "set_destination", "arguments": '{"value": "Henderson"}'}},
        "set_num_adults(value=6)",
        {"name": "set_max_ticket_price", "arguments": {"value": 177}},
        {"name": "set_departure_date", "arguments": {"value": {"month": 7, "day": 7, "year": 2023}}},
        {"name": "set_return_date", "arguments": {"value": {"month": 7, "day": 20, "year": 2023}}},
        '{"name": "search", "arguments": {}}',
    ]
    for action in actions:
        obs, reward, terminated, _, info = env.step(action)
    assert terminated and reward == 1.0 and info["metrics"]["success"] == 1
    assert env.unwrapped.render() is None
    assert "API.set_origin(value=Loc('Anchorage'))" in [s.source for s in env.unwrapped._statements]
    env.reset(seed=0, options={"task_id": "0"})
    obs, _, terminated, *_ = env.step({"name": "set_location", "arguments": {"value": "x"}})
    assert not terminated and obs == "Error: API has no function 'set_location'"


def test_home_search_json_call_of_every_offered_schema_is_accepted():
    env = gym.make("HomeSearch-v0", mode="multi_step")
    _, info = env.reset(seed=0, options={"task_id": "0"})
    assert len(info["tools"]) == 15
    obs, *_ = env.step({"name": "set_location", "arguments": {"value": "Spokane"}})
    assert obs == '{"response": null}'


@pytest.mark.parametrize("wrap", [
    lambda p: f"Sure, here it is:\n```python\n{p}\n```\nThis searches.",
    lambda p: f"Action:\n{p}\n\nTask: Find another home\nAction:\nAPI.search()",
    lambda p: f"```\n{p}\n```",
])
def test_single_step_takes_a_raw_completion(wrap):
    env = gym.make("HomeSearch-v0")
    env.reset(seed=0, options={"task_id": "0"})
    _, reward, *_, info = env.step(wrap(HOME_0))
    assert reward == 1.0 and info["metrics"]["num_statements"] == 4


# -- Tabletop --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tabletop():
    pytest.importorskip("pybullet")
    pytest.importorskip("airo_models")
    env = gym.make("Tabletop-v0", mode="multi_step", max_steps=100).unwrapped
    yield env
    env.close()


def test_tabletop_reproducers_end_fast_with_the_world_unchanged(tabletop):
    single = gym.make("Tabletop-v0").unwrapped
    programs = {
        "\n".join(["x = [0] * 10000", "y = [x] * 10000", "z = [y] * 10000", "w = [z] * 10000", "r1 = y == z",
                   "r2 = x in y", "r3 = sorted(z)", "r4 = min(w)", "r5 = max(w)"]): "value too large",
        "a = [0] * 10000\nb = zip(" + ", ".join(["a"] * 3000) + ")": "would build|work budget",
        "a = [[0] * 999] * 99\nsay(a)\nx = str(a)": "too large to turn into text",
        "a = [[0] * 999] * 99\nx = f'{a}'": "too large to turn into text",
        "a = [[0] * 99] * 999\nfor i in range(10000):\n    r = sorted(a) == a": "work budget",
    }
    for program, message in programs.items():
        single.reset(seed=0, options={"task_id": "stack_all-0"})
        before = single.world.positions()
        obs, reward, terminated, _, info = measured(single.step, program)
        assert terminated and any(part in obs for part in message.split("|")), obs
        assert info["metrics"]["program_ran"] == 0 and single.world.positions() == before
    single.close()


def test_tabletop_multi_step_growth_and_deep_nesting(tabletop):
    tabletop.reset(seed=0, options={"task_id": "stack_all-0"})
    tabletop.step("x = [0] * 6000")
    obs, *_ = measured(tabletop.step, "x[0:0] = x")
    assert "value too long" in obs
    assert tabletop.step("len(x)")[0] == "6000"
    tabletop.step("y = [1]")
    for _ in range(60):
        obs, *_ = measured(tabletop.step, "y = [y]")
    assert "nested too deeply" in obs
    obs, *_ = measured(tabletop.step, "y")
    assert obs.startswith("[[[[") and len(obs) <= 2003
    names = tabletop.world.get_obj_names()
    obs, *_ = tabletop.step(f"put_first_on_second({names[0]!r}, 'middle')")
    assert obs.startswith("pick at") and tabletop.world.sim.pick_place_count == 1  # usable afterwards


def test_tabletop_tools_and_json_tool_calls(tabletop):
    _, info = tabletop.reset(seed=0, options={"task_id": "place_in_bowl-0"})
    tools = {t["function"]["name"]: t["function"] for t in info["tools"]}
    assert list(tools) == ["get_obj_names", "get_obj_pos", "is_obj_visible", "parse_position", "get_corner_name",
                           "get_side_name", "denormalize_xy", "put_first_on_second", "say"]
    assert tools["put_first_on_second"]["parameters"]["required"] == ["obj", "target"]
    assert tools["get_obj_pos"]["parameters"]["properties"]["name"]["type"] == "string"
    task = tabletop.tasks["place_in_bowl-0"]
    obs, reward, *_ = tabletop.step({"name": "put_first_on_second",
                                     "arguments": {"obj": task.param("pick"), "target": task.param("place")}})
    assert "placed" in obs and reward == 1.0
    obs, *_ = tabletop.step('{"name": "get_obj_names", "arguments": {}}')
    assert obs == repr(task.object_names)
    obs, *_ = tabletop.step('{"name": "fly", "arguments": {}}')
    assert obs.startswith("Error: unknown function 'fly'")


def test_tabletop_single_step_takes_a_raw_completion():
    pytest.importorskip("pybullet")
    env = gym.make("Tabletop-v0").unwrapped
    env.reset(seed=0, options={"task_id": "stack_all-0"})
    program = env.oracle_action()
    _, reward, *_, info = env.step(f"Here is the program:\n```python\n{program}\n```\n")
    assert reward == 1.0 and info["metrics"]["program_ran"] == 1
    env.close()
