"""HomeSearch-v0 / TripBooking-v0: the interpreter, the paper's judging rules, modes, tasks."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.api_program.env import criteria_f1
from toolgym.worlds.api_programs import Date, Loc
from toolgym.worlds.homesearch import HomeSearchAPI
from toolgym.worlds.interpreter import Interpreter, ProgramError
from toolgym.worlds.homesearch import HomeSearchWorld
from toolgym.worlds.tripbooking import TripBookingWorld

HOME_0 = 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.set_num_baths(3.5)\nAPI.search()'
TRIP_0 = ('API.select_booking_type("trip tickets")\nAPI.select_transportation("bus")\n'
          'location_from = Loc("Anchorage")\nAPI.set_origin(location_from)\nlocation_to = Loc("Henderson")\n'
          'API.set_destination(location_to)\nAPI.set_num_adults(6)\nAPI.set_max_ticket_price(177)\n'
          'departure_date = Date(7, 7, 2023)\nAPI.set_departure_date(departure_date)\n'
          'return_date = Date(7, 20, 2023)\nAPI.set_return_date(return_date)\nAPI.search()')


@pytest.fixture(scope="module")
def home():
    return gym.make("HomeSearch-v0")


@pytest.fixture(scope="module")
def trip():
    return gym.make("TripBooking-v0")


def play(env, program, task_id="0"):
    env.reset(seed=0, options={"task_id": task_id})
    obs, reward, terminated, truncated, info = env.step(program)
    assert terminated and not truncated
    assert reward == info["metrics"]["success"]
    return obs, info


def test_builtin_tasks_are_what_the_expectations_below_were_computed_for(home, trip):
    assert home.unwrapped.tasks["0"].programs[0] == HOME_0
    assert home.unwrapped.tasks["0"].query == "Find a home for sale in Spokane with at least 3.5 bathrooms."
    assert trip.unwrapped.tasks["0"].programs[0] == TRIP_0
    assert home.unwrapped.label_criteria("0") == [{"location": "Spokane", "buy_or_rent": "buy",
                                                   "num_baths": 3.5, "min_price": 0,
                                                   "min_square_feet": 0}]


# -- Home Search --------------------------------------------------------------------------------
def test_home_ground_truth_succeeds_and_search_returns_matching_listings(home):
    obs, info = play(home, HOME_0)
    assert info["metrics"] == {"executable": 1, "success": 1, "f1": 1.0, "precision": 1.0, "recall": 1.0,
                               "stated_f1": 1.0, "draft_f1": 1.0, "num_statements": 4, "invalid_actions": 0}
    result = json.loads(obs)
    assert result["num_results"] >= 1
    assert all(h["city"] == "Spokane" and h["buy_or_rent"] == "buy" and h["num_baths"] >= 3.5
               for h in result["listings"])


def test_home_wrong_order_is_not_executable_and_leaves_no_criteria(home):
    obs, info = play(home, 'API.set_buy_or_rent("buy")\nAPI.set_location("Spokane")\nAPI.search()')
    assert info["metrics"]["executable"] == 0 and info["metrics"]["f1"] == 0
    assert obs == "Error: line 1: API.set_buy_or_rent(): didn't call set_location before calling set_buy_or_rent"
    assert info["criteria"] == {}


def test_home_criterion_before_buy_or_rent_is_not_executable(home):
    obs, info = play(home, 'API.set_location("Spokane")\nAPI.set_num_baths(3.5)\n'
                           'API.set_buy_or_rent("buy")\nAPI.search()')
    assert info["metrics"]["executable"] == 0
    assert "line 2: API.set_num_baths(): didn't call set_buy_or_rent before setting other criterion" in obs


def test_home_missing_optional_call_is_executable_with_partial_f1(home):
    # predicted: location, buy_or_rent, min_price, min_square_feet (4, all right); truth has 5
    _, info = play(home, 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.search()')
    m = info["metrics"]
    assert (m["executable"], m["success"], m["precision"], m["recall"]) == (1, 0, 1.0, 0.8)
    assert m["f1"] == pytest.approx(8 / 9)


def test_home_stated_f1_leaves_out_the_defaults_that_search_fills_in(home):
    # A bare search() earns criteria F1 from the two defaults it fills in (2 of 5 true, both right)
    # and stated F1 0: it set nothing itself.
    _, info = play(home, "API.search()")
    m = info["metrics"]
    assert (m["executable"], m["precision"], m["recall"], m["stated_f1"]) == (1, 1.0, 0.4, 0.0)
    assert m["f1"] == pytest.approx(4 / 7)
    # stated: location and buy_or_rent, both right, of the truth's three
    _, info = play(home, 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.search()')
    assert info["metrics"]["stated_f1"] == pytest.approx(0.8)
    # A criterion set after a first search() overrides that search's default; the defaults it
    # left stay defaults, so this program states exactly the truth's criteria.
    _, info = play(home, 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.search()\n'
                         'API.set_num_baths(3.5)\nAPI.set_min_price(100)\nAPI.search()')
    assert info["criteria"]["min_price"] == 100
    assert info["metrics"]["stated_f1"] == pytest.approx(6 / 7)  # 3 of 4 stated are right
    # A default written out is a criterion the user did not state: success, but not stated F1 1.
    _, info = play(home, HOME_0.replace("API.search()", "API.set_min_price(0)\nAPI.search()"))
    assert (info["metrics"]["success"], info["metrics"]["stated_f1"]) == (1, pytest.approx(6 / 7))


@pytest.mark.parametrize("env_id", ["HomeSearch-v0", "TripBooking-v0"])
@pytest.mark.parametrize("mode", ["single_step", "multi_step"])
def test_the_oracle_states_every_criterion_of_every_builtin_task(env_id, mode):
    env = gym.make(env_id, mode=mode).unwrapped
    for task_id in env.task_ids():
        env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(env.oracle_action())
            done = terminated or truncated
        m = info["metrics"]
        assert (m["success"], m["stated_f1"], m["draft_f1"]) == (1, 1.0, 1.0), task_id


def test_home_values_compare_with_python_equality(home):
    _, info = play(home, HOME_0.replace("baths(3.5)", 'baths("3.5")'))
    m = info["metrics"]  # "3.5" != 3.5: 4 of 5 predicted right, 4 of 5 true found
    assert (m["executable"], m["success"]) == (1, 0)
    assert m["f1"] == pytest.approx(0.8)
    _, info = play(home, HOME_0.replace('"buy")', '"Buy")'))
    assert info["metrics"]["executable"] == 0  # buy-or-rent is a lower-case word


def test_home_search_is_enforced_by_default_and_not_in_paper_compat(home):
    program = 'API.set_location("Spokane")\nAPI.set_buy_or_rent("buy")\nAPI.set_num_baths(3.5)'
    obs, info = play(home, program)
    assert info["metrics"]["executable"] == 0
    assert "must end with API.search()" in info["error"]
    compat = gym.make("HomeSearch-v0", scoring="paper_compat")
    _, info = play(compat, program)
    m = info["metrics"]  # no search(): no defaults, 3 of 5 true criteria
    assert (m["executable"], m["success"], m["precision"], m["recall"]) == (1, 0, 1.0, 0.6)
    assert m["f1"] == pytest.approx(0.75)
    _, info = play(compat, HOME_0)
    assert info["metrics"]["success"] == 1


def test_home_types_are_case_and_order_insensitive():
    world = HomeSearchWorld()
    api = world.api
    api.invoke("set_location", ["Boston"], {})
    api.invoke("set_buy_or_rent", ["rent"], {})
    api.invoke("select_home_type", [["Condo", "HOUSE"]], {})
    assert world.aux["criteria"]["home_type"] == "condo,house"
    with pytest.raises(ProgramError, match="invalid 'rent' home type"):
        api.invoke("select_home_type", [["Land"]], {})
    assert world.aux["criteria"]["home_type"] == "condo,house"


@pytest.mark.parametrize("program, message", [
    ("import os", "line 1: import is not allowed"),
    ('API.set_location("x")\nos.system("ls")', "line 2: attribute access is only allowed on API"),
    ("API.__class__", "line 1: the attribute '__class__' is not allowed"),
    ("x = API.search.__globals__", "line 1: the attribute '__globals__' is not allowed"),
    ('API.set_location("a" + "b")', "line 1: BinOp `'a' + 'b'` is not allowed"),
    ('open("/etc/passwd")', "line 1: unknown function open()"),
    ("API.set_location(", "line 1: syntax error"),
    ("API.fly()", "line 1: API has no function 'fly'"),
])
def test_non_whitelisted_programs_are_rejected_before_anything_runs(home, program, message):
    home.reset(options={"task_id": "0"})
    before = home.unwrapped.world.state_hash()
    obs, reward, terminated, _, info = home.step(program)
    assert terminated and reward == 0 and info["metrics"]["executable"] == 0
    assert obs.startswith("Error: " + message)
    assert home.unwrapped.world.state_hash() == before


def test_non_string_action_is_an_error_not_a_crash(home):
    home.reset(options={"task_id": "0"})
    obs, reward, terminated, _, info = home.step({"name": "search"})
    assert obs == "Error: the program must be text, got dict" and info["metrics"]["executable"] == 0


# -- Trip Booking ---------------------------------------------------------------------------------
def test_trip_ground_truth_succeeds_and_finds_its_tickets(trip):
    obs, info = play(trip, TRIP_0)
    assert info["metrics"]["success"] == 1
    tickets = json.loads(obs)["tickets"]
    assert tickets["departure"][0]["origin"] == "Anchorage" and tickets["departure"][0]["date"] == "2023-07-07"
    assert tickets["return"][0]["origin"] == "Henderson" and tickets["return"][0]["date"] == "2023-07-20"


def test_trip_missing_required_call_is_not_executable(trip):
    program = TRIP_0.replace("departure_date = Date(7, 7, 2023)\nAPI.set_departure_date(departure_date)\n", "")
    obs, info = play(trip, program)
    assert info["metrics"]["executable"] == 0
    assert obs == "Error: line 11: API.search(): departure date not set for trip tickets search"


def test_trip_missing_optional_call_is_an_unsuccessful_search(trip):
    _, info = play(trip, TRIP_0.replace("API.set_num_adults(6)\n", ""))
    m = info["metrics"]  # 9 predicted, all right; 10 true
    assert (m["executable"], m["success"], m["precision"], m["recall"]) == (1, 0, 1.0, 0.9)
    assert m["f1"] == pytest.approx(18 / 19)


def test_trip_stated_f1_leaves_out_the_defaults_that_search_fills_in(trip):
    _, info = play(trip, TRIP_0.replace("API.set_num_adults(6)\n", ""))
    assert info["metrics"]["stated_f1"] == pytest.approx(14 / 15)  # 7 stated, all right; 8 true
    world = TripBookingWorld()
    interpreter = Interpreter(gym.make("TripBooking-v0").unwrapped.profile, namespaces={"API": world.api.invoke})
    interpreter.run('API.select_booking_type("both")\nAPI.select_transportation("train")\n'
                    'API.set_origin(Loc("Austin"))\nAPI.set_destination(Loc("Denver"))\n'
                    'API.set_hotel_location(Loc("Denver"))\nAPI.set_checkin_date(Date(7, 1, 2023))\n'
                    'API.set_checkout_date(Date(7, 3, 2023))\nAPI.search()')
    # "both": the trip dates come from the hotel's; minimum prices 0; one room
    assert world.aux["defaults"] == {"min_price_ticket": 0, "min_price_room": 0, "departure_date": "7-1-2023",
                                     "return_date": "7-3-2023", "num_rooms": 1}


def test_trip_booking_type_must_come_first(trip):
    program = TRIP_0.replace('API.select_booking_type("trip tickets")\nAPI.select_transportation("bus")',
                             'API.select_transportation("bus")\nAPI.select_booking_type("trip tickets")')
    obs, info = play(trip, program)
    assert info["metrics"]["executable"] == 0
    assert obs == "Error: line 2: API.select_booking_type(): need to set booking type first"


def test_trip_numbers_compare_with_python_equality(trip):
    _, info = play(trip, TRIP_0.replace("set_num_adults(6)", "set_num_adults(6.0)"))
    assert info["metrics"]["success"] == 1  # 6 == 6.0
    _, info = play(trip, TRIP_0.replace("set_num_adults(6)", 'set_num_adults("6")'))
    m = info["metrics"]  # "6" != 6: 9 of 10 on both sides
    assert (m["executable"], m["success"]) == (1, 0) and m["f1"] == pytest.approx(0.9)


def test_trip_dates_are_m_d_y_as_written(trip):
    _, info = play(trip, TRIP_0.replace("Date(7, 7, 2023)", 'Date("7", "7", "2023")'))
    assert info["metrics"]["success"] == 1
    _, info = play(trip, TRIP_0.replace("Date(7, 7, 2023)", "Date(month=7, day=7, year=2023)"))
    assert info["metrics"]["success"] == 1
    _, info = play(trip, TRIP_0.replace("Date(7, 7, 2023)", "Date(7.0, 7, 2023)"))
    m = info["metrics"]  # "7.0-7-2023" != "7-7-2023": 9 of 10 on both sides
    assert (m["executable"], m["success"]) == (1, 0) and m["f1"] == pytest.approx(0.9)
    _, info = play(trip, TRIP_0.replace("Date(7, 7, 2023)", "Date(7, 7)"))
    assert info["metrics"]["executable"] == 0
    assert "Date(): missing a required argument: 'year'" in info["error"]


def test_trip_locations_must_be_loc_objects(trip):
    obs, info = play(trip, TRIP_0.replace("API.set_origin(location_from)", 'API.set_origin("Anchorage")'))
    assert info["metrics"]["executable"] == 0
    assert obs == "Error: line 4: API.set_origin(): origin not a Loc object"


def test_trip_both_fills_trip_dates_from_hotel_dates(trip):
    _, info = play(trip, trip.unwrapped.tasks["2"].programs[0], task_id="2")
    assert info["metrics"]["success"] == 1
    label = trip.unwrapped.label_criteria("2")[0]
    assert (label["departure_date"], label["return_date"], label["num_rooms"]) == ("5-29-2023", "5-30-2023", 1)


# -- multi-step mode ---------------------------------------------------------------------------
def test_multi_step_oracle_and_step_observations():
    env = gym.make("TripBooking-v0", mode="multi_step")
    base = env.unwrapped
    obs, info = env.reset(seed=0, options={"task_id": "0"})
    observations, total = [], 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(base.oracle_action())
        observations.append(obs)
        total += reward
        if terminated or truncated:
            break
    assert observations[0] == '{"response": null}'
    assert observations[2] == "location_from = Loc(location='Anchorage')"
    assert len(observations) == 13 and total == 1.0 and info["metrics"]["success"] == 1


@pytest.mark.parametrize("bad", ["API.set_num_beds(2)", "API.set_num_beds(", "x = (", "x = nope",
                                 'API.set_location("Spokane")\nAPI.search()', "\x00", "{not json"])
def test_multi_step_error_step_changes_nothing_and_the_episode_goes_on(bad):
    """One rule for every step mode: an error observation, nothing changed, the step counts."""
    env = gym.make("HomeSearch-v0", mode="multi_step", max_steps=4)
    env.reset(seed=0, options={"task_id": "0"})
    env.step('API.set_location("Spokane")')
    before = env.unwrapped.world.state_hash()
    variables = dict(env.unwrapped.interpreter.variables)
    obs, reward, terminated, truncated, info = env.step(bad)
    assert obs.startswith("Error:") and not terminated and not truncated and reward == 0 and info["error"]
    assert env.unwrapped.world.state_hash() == before and env.unwrapped.interpreter.variables == variables
    obs, _, terminated, _, _ = env.step('API.set_buy_or_rent("buy")')
    assert not obs.startswith("Error") and not terminated
    obs, _, terminated, truncated, info = env.step("x = (")  # the fourth step: truncated, with the metrics
    assert truncated and info["metrics"]["num_statements"] == 2


def test_multi_step_empty_action_submits_in_paper_compat():
    env = gym.make("HomeSearch-v0", mode="multi_step", scoring="paper_compat")
    env.reset(seed=0, options={"task_id": "0"})
    for line in ['API.set_location("Spokane")', 'API.set_buy_or_rent("buy")', "API.set_num_baths(3.5)",
                 "API.set_min_price(0)"]:
        env.step(line)
    _, reward, terminated, _, info = env.step("API.set_min_square_feet(0)")
    assert not terminated and reward == 1.0  # the criteria already equal the truth's
    _, reward, terminated, _, info = env.step("")
    assert terminated and reward == 0.0 and info["metrics"]["success"] == 1


def test_multi_step_prompt_teaches_one_statement_per_turn_with_the_env_answers():
    """Whole-program demonstrations made SmolLM2 write whole programs, which this mode refuses
    (every one of its turns in a first run): here each demonstration is the turns it would take."""
    single = gym.make("TripBooking-v0", num_demos=2)
    _, single_info = single.reset(seed=0, options={"task_id": "0"})
    env = gym.make("TripBooking-v0", mode="multi_step", num_demos=2)
    base = env.unwrapped
    before = base.world.state_hash()
    _, info = env.reset(seed=0, options={"task_id": "0"})
    assert base.world.state_hash() == before and base.world.aux["criteria"] == {}
    assert "one statement per turn" in info["prompt"]["system_prompt"]
    assert "one statement per turn" not in single_info["prompt"]["system_prompt"]
    assert "turns" not in single_info["prompt"]["demos"][0]
    for demo in info["prompt"]["demos"]:
        turns = demo["turns"]
        assert "\n".join(t["action"] for t in turns) == demo["action"].strip()
        assert turns[-1] == {"action": "API.search()", "observation": None}
        assert turns[0]["observation"] == '{"response": null}'
        assigned = next(t for t in turns if t["action"].startswith("location_from = "))
        assert assigned["observation"].startswith("location_from = Loc(location=")
    assert env.step(base.oracle_action())[0] == '{"response": null}'  # the demos did not touch the episode


# -- env contract ------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["HomeSearch-v0", "TripBooking-v0"])
def test_prompt_and_determinism(env_id):
    env = gym.make(env_id)
    obs_a, info_a = env.reset(seed=3)
    obs_b, info_b = gym.make(env_id).reset(seed=3)
    assert obs_a == obs_b and info_a["task_id"] == info_b["task_id"]
    prompt = info_a["prompt"]
    assert len(prompt["demos"]) == 3
    assert prompt["system_prompt"].startswith(env.unwrapped.goal)
    assert "API.search()" in prompt["api_docs"]
    assert info_a["messages"][1]["content"] == f"Task: {obs_a}\nAction:\n"


def test_task_and_demo_pools_match_the_paper_sizes_and_hold_out_three_functions(home, trip):
    assert (len(home.unwrapped.tasks), len(home.unwrapped.demo_pool)) == (100, 10)
    assert (len(trip.unwrapped.tasks), len(trip.unwrapped.demo_pool)) == (120, 11)
    demo_calls = {c for seq in home.unwrapped.api_call_sequences()["demos"] for c in seq}
    test_calls = {c for seq in home.unwrapped.api_call_sequences()["tests"] for c in seq}
    held_out = {"set_floor_number", "set_max_commute_time", "set_num_balconies"}
    assert not demo_calls & held_out and held_out <= test_calls
    assert test_calls - held_out == demo_calls
    demo_queries = {d.query for d in home.unwrapped.demo_pool}
    assert not demo_queries & {t.query for t in home.unwrapped.tasks.values()}


def test_replay_of_one_program_per_task(tmp_path):
    from toolgym.eval.runner import evaluate
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": "0", "actions": [HOME_0]}) + "\n"
                      + json.dumps({"task_id": "1", "actions": ['API.set_location("Chicago")\nAPI.search()']}) + "\n")
    records, _ = evaluate("HomeSearch-v0", f"replay:{replay}", episodes=2, progress=False)
    assert [r["metrics"]["success"] for r in records] == [1, 0]
    assert records[1]["metrics"]["executable"] == 1  # search() called before buy/rent is allowed, as in the original


def test_official_tasks_load_and_the_oracle_solves_them(official_data):
    for env_id, n in (("HomeSearch-v0", 100), ("TripBooking-v0", 120)):
        env = gym.make(env_id, tasks="official", data_dir=str(official_data))
        base = env.unwrapped
        assert base.task_ids() == [str(i) for i in range(n)]
        for task_id in base.task_ids():
            env.reset(options={"task_id": task_id})
            _, reward, *_ , info = env.step(base.oracle_action())
            assert info["metrics"]["success"] == 1, task_id


# -- interpreter units -------------------------------------------------------------------------
def test_interpreter_binds_names_and_helpers():
    calls = []
    interpreter = Interpreter(HomeSearchAPI.profile(),
                              namespaces={"API": lambda name, args, kwargs: calls.append((name, args, kwargs))})
    interpreter.run('d = Date(1, 2, 2023)\nAPI.set_location(d, [Loc("A"), -3, None], k=True)')
    assert calls == [("set_location", [Date(1, 2, 2023), [Loc("A"), -3, None]], {"k": True})]
    assert Date(1, 2, 2023).date == "1-2-2023"
    with pytest.raises(ProgramError, match="line 1: name 'nope' is not defined"):
        interpreter.run("API.search(nope)")


def test_criteria_f1_matches_the_original_formula():
    assert criteria_f1({}, {"a": 1}) == (0.0, 0.0, 0.0)
    assert criteria_f1({"a": 1, "b": 2}, {"a": 1.0, "c": 3}) == (0.5, 0.5, 0.5)


def test_tripbooking_world_search_requires_booking_type():
    world = TripBookingWorld()
    with pytest.raises(ProgramError, match="booking type not set"):
        world.api.invoke("search", [], {})
    assert world.aux["criteria"] == {}


def test_step_outside_an_episode_is_answered_not_raised():
    env = gym.make("HomeSearch-v0")
    obs, reward, terminated, _, info = env.unwrapped.step(HOME_0)  # gym's wrapper would refuse
    assert (obs, reward, terminated, info["task_id"]) == (
        "HomeSearch-v0: no episode has started; call reset() before step().", 0.0, True, None)
    play(env, HOME_0)
    obs, reward, terminated, _, info = env.step(HOME_0)
    assert "the episode is over" in obs and reward == 0.0 and "metrics" not in info


def test_tasks_and_world_are_identical_in_any_process():
    import subprocess
    import sys
    code = ("import hashlib, gymnasium as gym, toolgym\n"
            "h = hashlib.sha256()\n"
            "for e in ('HomeSearch-v0', 'TripBooking-v0'):\n"
            "    b = gym.make(e).unwrapped\n"
            "    h.update(repr((b.tasks, b.demo_pool)).encode()); h.update(b.world.state_hash().encode())\n"
            "print(h.hexdigest())")
    runs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env={"PYTHONHASHSEED": seed, "PATH": ""}) for seed in ("1", "2")]
    digests = [run.communicate(timeout=120)[0] for run in runs]
    assert digests[0] == digests[1] and len(digests[0].strip()) == 64
