"""Tau2-v0: τ²-bench's airline, retail and mock domains, graded as τ²-bench grades."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import play_oracle
from toolgym.llm.backends import Completion
from toolgym.envs.common.actions import ToolCall
from toolgym.envs.tau2.env import USER_ACTION_PREFIX
from toolgym.envs.tau2 import grading
from toolgym.envs.tau2.grading import action_matches
from toolgym.envs.tau2.tasks import call_tool
from toolgym.envs.users import STOP
from toolgym.worlds.tools import ToolError

DATA = Path(os.environ.get("TOOLGYM_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
needs_data = pytest.mark.skipif(not (DATA / "tau2bench" / "tau2" / "domains").is_dir(),
                                reason=f"official τ²-bench data not found under {DATA}")


class AllMetJudge:
    """A judge backend that answers every NL assertion as met (what a perfect judge says of the oracle)."""

    def generate(self, requests, sampling):
        count = requests[0].messages[1]["content"].split("expectedOutcomes:")[1].count("', '") + 1
        return [Completion(text=json.dumps({"results": [{"expectedOutcome": "", "reasoning": "", "metExpectation": True}
                                                        for _ in range(count + 50)]}))]


def make(domain: str, official: bool = False, **kwargs):
    if official:
        kwargs.update(tasks="official", data_dir=str(DATA))
    return gym.make("Tau2-v0", domain=domain, **kwargs).unwrapped


def run(env, task_id: str, change=lambda action: action) -> dict:
    """Play the oracle's script (ground-truth calls, the message, ###STOP###) with ``change``
    applied to each action (None drops it); the episode's metrics."""
    env.reset(options={"task_id": task_id})
    criteria = env.task["evaluation_criteria"]
    infos = criteria.get("communicate_info") or []
    script = [{"name": a["name"], "arguments": json.loads(json.dumps(a["arguments"]))} for a in criteria["actions"]]
    script = [f"{USER_ACTION_PREFIX} {json.dumps(call)}" if action.get("requestor") == "user" else call
              for call, action in zip(script, criteria["actions"])]
    script += [("Done. " + "; ".join(infos)) if infos else "Done. Is there anything else?", STOP]
    for action in script:
        action = change(action)
        if action is None:
            continue
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info["metrics"]
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "mock"])
def test_oracle_scores_1_on_every_builtin_task(domain):
    env = make(domain)
    assert len(env.task_ids()) >= 2
    for task_id in env.task_ids():
        total, info, done = play_oracle(env, task_id)
        assert done and total == 1.0, (task_id, info["metrics"])
        assert info["metrics"]["failed"] == []
        if "DB" in info["metrics"]["basis"]:  # telecom grades by assertions: τ²'s gold run does not sync
            assert info["metrics"]["db"] == 1.0


@needs_data
@pytest.mark.parametrize("domain,count", [("airline", 50), ("retail", 114)])
def test_oracle_scores_1_on_every_official_task(domain, count):
    env = make(domain, official=True)
    judged = make(domain, official=True, judge=AllMetJudge())
    assert len(env.task_ids()) == count
    unscored = 0
    for task_id in env.task_ids():
        _, info, done = play_oracle(env, task_id)
        metrics = info["metrics"]
        assert done and metrics["reward_without_judge"] == 1.0 and metrics["failed"] == [], (task_id, metrics)
        unscored += metrics["unscored"] == ["NL_ASSERTION"]
        if metrics["unscored"]:  # a judge that answers the assertions completes the grade
            assert metrics["reward"] == 0.0 and metrics["nl_assertion"] is None
            total, info, _ = play_oracle(judged, task_id)
            assert total == 1.0 and info["metrics"]["nl_assertion"] == 1.0, (task_id, info["metrics"])
        else:
            assert metrics["reward"] == 1.0
    # retail: 112 tasks have NL_ASSERTION in their basis, 40 of them carry assertions; airline none
    assert unscored == {"airline": 0, "retail": 40}[domain]


@needs_data
def test_mock_official_tasks_with_a_ground_truth_to_replay():
    env = make("mock", official=True)
    results = {task_id: play_oracle(env, task_id)[0] for task_id in env.task_ids()}
    # no ground-truth action to replay; a user action the ground truth lacks
    assert [t for t, total in results.items() if total != 1.0] == [
        "update_task_with_history_and_env_assertions", "update_task_with_user_tools"]


@needs_data
def test_official_splits_and_database():
    env = make("retail", official=True, split="test")
    assert len(env.task_ids()) == 40 and env.task_split(env.task_ids()[0]) == "test"
    assert len(make("airline", official=True, split="train").task_ids()) == 30
    airline = make("airline", official=True)
    airline.reset(options={"task_id": "0"})
    observation, *_ = airline.step({"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}})
    assert json.loads(observation)["name"] == {"first_name": "Mia", "last_name": "Li"}
    assert "Airline Agent Policy" in airline._messages[0]["content"]


@needs_data
def test_perturbed_official_runs_score_0_naming_the_component():
    env = make("airline", official=True)
    writes = [t for t in env.task_ids() if any(env.toolkit.specs[a["name"]].is_action
                                                for a in env.task_data.tasks[t]["evaluation_criteria"]["actions"])]
    assert len(writes) == 26  # the other 24 tasks are requests the policy refuses
    for task_id in writes[:5]:
        dropped = run(env, task_id, lambda a: None if isinstance(a, dict) and env.toolkit.specs[a["name"]].is_action
                      else a)
        assert dropped["reward"] == 0.0 and "DB" in dropped["failed"], (task_id, dropped)
    assert dropped["reward"] == 0.0 and dropped["failed"] == ["DB"]

    def change(action):
        if isinstance(action, dict) and action["name"] == "update_reservation_baggages":
            action["arguments"]["nonfree_baggages"] += 1
        return action
    baggage_task = next(t for t in env.task_ids() if any(
        a["name"] == "update_reservation_baggages" for a in env.task_data.tasks[t]["evaluation_criteria"]["actions"]))
    changed = run(env, baggage_task, change)
    assert changed["reward"] == 0.0 and "DB" in changed["failed"]
    talk_task = next(t for t in env.task_ids() if env.task_data.tasks[t]["evaluation_criteria"]["communicate_info"])
    silent = run(env, talk_task, lambda a: "Done." if isinstance(a, str) and a.startswith("Done.") else a)
    assert silent["reward"] == 0.0 and silent["failed"] == ["COMMUNICATE"] and silent["db"] == 1.0


def test_perturbed_builtin_runs_score_0():
    env = make("airline")
    said = next(t for t in env.task_ids() if env.task_data.tasks[t]["evaluation_criteria"]["communicate_info"])
    metrics = run(env, said, lambda a: "Done." if isinstance(a, str) and a.startswith("Done.") else a)
    assert metrics["failed"] == ["COMMUNICATE"] and metrics["reward"] == 0.0
    env = make("mock")
    metrics = run(env, "mock_complete", lambda a: None if isinstance(a, dict) else a)
    assert metrics["failed"] == ["DB", "ACTION"]
    metrics = run(env, "mock_create", lambda a: {**a, "arguments": {**a["arguments"], "title": "Other"}}
                  if isinstance(a, dict) else a)
    assert metrics["failed"] == ["DB"] and metrics["env_assertion"] == 1.0


def test_bad_actions_are_errors_and_leave_the_world_unchanged():
    env = make("retail")
    env.reset(options={"task_index": 0})
    before = env.world.state_hash()
    for action in ('{"name": "cancel_pending_order", "arguments": {"order_id": "#nope", "reason": "x"}}',
                   {"name": "no_such_tool", "arguments": {}}, '{"name": "calculate", "arguments": {"expression": '
                   '"__import__(\'os\')"}}', 'get_order_details(**{"order_id": "#W1"})'):
        observation, reward, terminated, truncated, _ = env.step(action)
        assert observation.startswith("Error:") and reward == 0.0 and not terminated
    assert env.world.state_hash() == before
    observation, *_ = env.step({"name": "calculate", "arguments": {"expression": "(2 + 3) * 4 / 3"}})
    assert observation == "6.67"


def test_agent_stop_and_max_steps():
    env = make("mock", max_steps=2)
    env.reset(options={"task_id": "mock_complete"})
    _, reward, terminated, _, info = env.step(STOP)
    assert terminated and reward == 0.0 and info["metrics"]["failed"] == ["DB", "ACTION"]
    env.reset(options={"task_id": "mock_complete"})
    env.step({"name": "get_users", "arguments": {}})
    _, reward, terminated, truncated, info = env.step({"name": "get_users", "arguments": {}})
    assert truncated and not terminated and info["metrics"]["failed"] == ["TERMINATION"]
    assert info["metrics"]["termination"] == "max_steps"
    env = make("mock", max_errors=3)
    env.reset(options={"task_id": "mock_complete"})
    for _ in range(2):
        assert env.step({"name": "update_task_status", "arguments": {"task_id": "nope", "status": "completed"}})[2] is False
    env.step("What is your task id?")  # a message is no error
    _, reward, terminated, _, info = env.step({"name": "nope", "arguments": {}})
    assert terminated and reward == 0.0 and info["metrics"]["termination"] == "too_many_errors"


def test_action_comparison_is_tau2s():
    gold = {"name": "f", "arguments": {"a": 1, "b": 2}, "compare_args": ["a"]}
    assert action_matches(gold, "f", {"a": 1, "b": 3})
    assert not action_matches({**gold, "compare_args": None}, "f", {"a": 1, "b": 3})
    assert action_matches({**gold, "compare_args": None}, "f", {"a": 1})  # τ² compares the call's own keys
    assert not action_matches(gold, "g", {"a": 1})


def test_unknown_domain_raises_at_make():
    with pytest.raises(ValueError, match="domain must be one of"):
        make("banking")


def _data_copy(tmp_path: Path, leave_out: tuple[str, ...]) -> Path:
    """A data root of links to the official τ² files, without the files named in ``leave_out``."""
    source = DATA / "tau2bench"
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        if path.is_file() and not any(str(relative).endswith(name) for name in leave_out):
            link = tmp_path / "tau2bench" / relative
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    return tmp_path


@needs_data
def test_telecom_dual_control_oracle_scores_1_on_the_base_split():
    env = make("telecom", official=True)
    assert len(env.task_data.tasks) == 2285 and len(env.task_ids()) == 114  # τ²'s base split: the paper's
    assert {split: len(make("telecom", official=True, split=split).task_ids())
            for split in ("train", "test", "small", "full")} == {"train": 74, "test": 40, "small": 20, "full": 2285}
    assert "<tech_support_policy>" in env.task_data.policy
    for task_id in env.task_ids():
        total, info, done = play_oracle(env, task_id)
        assert done and total == 1.0, (task_id, info["metrics"])
    # the user ran its own phone's tools: the calls and their results are in the history
    user_calls = [m for m in info["trajectory"] if m["role"] == "user" and m.get("tool_calls")]
    assert user_calls and [m for m in info["trajectory"] if m.get("requestor") == "user"]


@needs_data
def test_telecom_without_the_full_task_file_reads_tasks_small(tmp_path):
    env = make("telecom", tasks="official", data_dir=str(_data_copy(tmp_path, ("telecom/tasks.json",))))
    assert len(env.task_data.tasks) == 20 and env.task_ids() == list(env.task_data.tasks)
    assert all(play_oracle(env, task_id)[0] == 1.0 for task_id in env.task_ids())


def _episode(env, task_id: str) -> tuple[list, dict]:
    """The oracle's episode: each message's role and content (JSON read as values) and the metrics."""
    _, info, _ = play_oracle(env, task_id)

    def value(text):
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            return text
    return [(m["role"], value(m.get("content")), m.get("tool_calls")) for m in info["trajectory"]], info["metrics"]


@needs_data
def test_airline_reads_tau2s_db_json_and_tau_bench_v1s_tables_give_the_same_episodes(tmp_path):
    tau2 = make("airline", official=True)
    v1 = make("airline", tasks="official", data_dir=str(_data_copy(tmp_path, ("airline/db.json",))))
    for env, destination in ((tau2, "IAH"), (v1, "EWR")):  # Z7GOZK: one of the two records the tables differ in
        env.reset(options={"task_id": "0"})
        observation, *_ = env.step({"name": "get_reservation_details", "arguments": {"reservation_id": "Z7GOZK"}})
        assert json.loads(observation)["destination"] == destination
    compared = 0
    for task_id in tau2.task_ids():
        episode, metrics = _episode(tau2, task_id)
        if any(differs in json.dumps(episode) for differs in ("HAT018", "Z7GOZK")):
            continue
        assert (episode, metrics) == _episode(v1, task_id), task_id
        compared += 1
    assert compared == 47  # the other 3 read HAT018 or Z7GOZK


@needs_data
def test_telecom_faults_are_real_until_fixed():
    env = make("telecom", official=True, split="small")
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(STOP)
        # doing nothing: the phone is still broken, or the transfer the policy needs is missing
        assert terminated and reward == 0.0 and info["metrics"]["failed"] in (["ENV_ASSERTION"], ["ACTION"])
    env.reset(options={"task_id": "[mobile_data_issue]data_mode_off[PERSONA:None]"})
    assert env.user_tools and "toggle_data" in {t["function"]["name"] for t in env.user_tools}
    observation, *_ = env.step(f'Please do this on your phone: {json.dumps({"name": "run_speed_test", "arguments": {}})}')
    assert observation.startswith("I did that. The phone says: Speed test failed")


def test_telecom_builtin_tasks_need_both_sides():
    env = make("telecom")
    task_id = next(t for t in env.task_ids() if "roaming" in t)
    agent_only = run(env, task_id, lambda a: None if isinstance(a, str) and a.startswith(USER_ACTION_PREFIX) else a)
    assert agent_only["failed"] == ["ENV_ASSERTION", "ACTION"]
    assert run(env, task_id)["reward"] == 1.0


@needs_data
def test_records_carry_tau2s_unset_fields_as_null():
    """τ²'s tools return pydantic records whole: unset optional fields are null, and its replay
    compares a write call's recorded result with what its tool returns."""
    airline = make("airline", official=True)
    airline.reset(options={"task_id": "0"})
    user = json.loads(airline.step({"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}})[0])
    assert user["user_id"] == "mia_li_3668"
    reservation = json.loads(airline.step({"name": "get_reservation_details",
                                           "arguments": {"reservation_id": user["reservations"][0]}})[0])
    assert reservation["status"] is None
    retail = make("retail", official=True)
    retail.reset(options={"task_id": "0"})
    order = json.loads(retail.step({"name": "get_order_details", "arguments": {"order_id": "#W2378156"}})[0])
    assert order["status"] == "delivered" and order["return_items"] is None and order["cancel_reason"] is None


def test_paper_compat_skips_the_db_check_of_tasks_without_actions_or_assertions():
    """τ²'s released environment evaluator returns DB 1 early when a task's actions and env
    assertions are both null; the paper compares the database of every task."""
    task = {"evaluation_criteria": {"actions": None, "env_assertions": None, "communicate_info": [],
                                    "reward_basis": ["DB"]}}
    wrote = {"stopped": True, "db_match": False, "run_assertion": lambda a: True}
    assert grading.grade(task, [], **wrote)["failed"] == ["DB"]
    assert grading.grade(task, [], **wrote, compat=True)["reward"] == 1.0
    task["evaluation_criteria"]["actions"] = []  # an empty list is compared, in both
    assert grading.grade(task, [], **wrote, compat=True)["failed"] == ["DB"]
    env = make("mock", scoring="paper_compat")
    assert play_oracle(env, env.task_ids()[0])[0] == 1.0


@needs_data
def test_paper_compat_on_the_official_mock_task_without_actions():
    extra = {"name": "create_task", "arguments": {"user_id": "user_1", "title": "Not asked for"}}
    results = {}
    for scoring in ("paper", "paper_compat"):
        env = make("mock", official=True, scoring=scoring)
        env.reset(options={"task_id": "create_task_1_nl_eval"})
        env.step(extra)
        results[scoring] = env.step(STOP)[4]["metrics"]["db"]
    assert results == {"paper": 0.0, "paper_compat": 1.0}


def test_telecom_plain_dict_results_carry_numbers_as_text_as_tau2_writes_them():
    """τ²'s environment serializes a tool's plain-dict result with every number as text, and its
    strict replay compares a write call's recorded result with that."""
    env = make("telecom")
    env.reset(options={"task_id": env.task_ids()[0]})
    world = env.world
    customer = next(world.records("customers"))
    line_id = customer["line_ids"][0]
    usage = call_tool(world, "assistant", "get_data_usage", {"customer_id": customer["customer_id"],
                                                             "line_id": line_id}, sync=True).response
    assert isinstance(usage["data_used_gb"], str) and float(usage["data_used_gb"]) >= 0
    refuel = call_tool(world, "assistant", "refuel_data", {"customer_id": customer["customer_id"],
                                                           "line_id": line_id, "gb_amount": 2}, sync=True).response
    assert refuel["new_data_refueling_gb"] == str(float(usage["data_refueling_gb"]) + 2)
    assert refuel["charge"].replace(".", "", 1).isdigit()


def test_telecom_bill_walks_fail_and_stop_where_tau2s_do():
    """A customer's bills are walked in order, as τ²'s tools walk them, with their statuses read in
    one statement (issue 48): a missing bill before the one sought fails in τ²'s words, one after
    it is never reached, and a refuel adds to the first draft bill."""
    env = make("telecom")
    env.reset(options={"task_id": env.task_ids()[0]})
    world = env.world
    customer = next(world.records("customers"))
    customer_id, line_id, bills = customer["customer_id"], customer["line_ids"][0], customer["bill_ids"]
    world.put("lines", line_id, {**world.get("lines", line_id, ""), "status": "Active"})
    world.put("customers", customer_id, {**customer, "bill_ids": ["B-missing", *bills]})
    world.commit()
    refuel = {"customer_id": customer_id, "line_id": line_id, "gb_amount": 1}
    assert call_tool(world, "assistant", "refuel_data", refuel, sync=True).error == "Bill with ID B-missing not found"
    draft = {**world.get("bills", bills[0], ""), "status": "Draft", "total_due": 1.5}
    world.put("bills", bills[0], draft)
    world.put("customers", customer_id, {**customer, "bill_ids": [bills[0], "B-missing"]})
    world.commit()
    assert call_tool(world, "assistant", "refuel_data", refuel, sync=True).ok  # the draft comes first
    assert world.get("bills", bills[0], "")["total_due"] > 1.5
    assert world.get("customers", customer_id, "")["bill_ids"] == [bills[0], "B-missing"]  # no new draft
    world.put("bills", bills[0], {**draft, "status": "Awaiting Payment"})
    world.commit()
    request = {"customer_id": customer_id, "bill_id": bills[0]}
    assert call_tool(world, "assistant", "send_payment_request", request, sync=True).error == \
        "A bill is already awaiting payment for this customer"


class TextJudge:
    """A judge backend that answers with the same text every time."""

    def __init__(self, text):
        self.text = text

    def generate(self, requests, sampling):
        return [Completion(text=self.text)]


@pytest.mark.parametrize("text", [
    "{" * 99_000,                      # took seconds: r"\{.*\}" tried every "{" against the rest
    "x{" * 49_500 + "}",
    '{"results":' * 19_800 + "}",      # nested too deep to decode: was a RecursionError
    '{"results": [{"expectedOutcome": "a", "metExpectation": "true"}]}',
])
def test_a_hostile_judge_answer_is_read_in_linear_time_as_not_met(text):
    trajectory = [{"role": "assistant", "content": "Done."}]
    start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
    assert grading.judge_assertions(TextJudge(text), ["the agent said done", "b"], trajectory) == [False, False]
    assert time.process_time() - start < 1.0
    verdict = ('Verdict: {"results": [{"expectedOutcome": "a", "metExpectation": false}, '
               '{"expectedOutcome": "b", "metExpectation": true}]}.')
    assert grading.judge_assertions(TextJudge(verdict), ["a", "b"], trajectory) == [False, True]


def test_telecom_set_apn_settings_fills_tau2s_defaults_and_refuses_unknown_keys():
    env = make("telecom")
    env.reset(options={"task_id": env.task_ids()[0]})
    world = env.world
    result = call_tool(world, "user", "set_apn_settings", {"apn_settings": {"apn_name": "broken"}}, sync=True)
    assert result.response.startswith("APN settings set to: broken\nStatus Bar: ")
    apn = call_tool(world, "user", "check_apn_settings", {}, sync=True).response
    assert apn.startswith("Current APN Name: broken\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc")
    refused = call_tool(world, "user", "set_apn_settings", {"apn_settings": {"apn": "internet"}}, sync=True)
    assert refused.error.startswith("1 validation error for APNSettings\napn\n  Extra inputs are not permitted")


@pytest.mark.parametrize("domain,table,defaults", [
    ("airline", "reservations", {"status": None}),
    ("retail", "orders", dict.fromkeys(("cancel_reason", "exchange_items", "exchange_new_items",
                                        "exchange_payment_method_id", "exchange_price_difference", "return_items",
                                        "return_payment_method_id")))])
def test_the_database_dumps_as_taus_models_do(domain, table, defaults):
    """τ²'s ``FlightDB`` and ``RetailDB`` dump a record's unset optional fields as null (a reservation
    never cancelled has ``"status": null``) where the official file leaves them out; the stored
    record is unchanged, and v1's dump (v1 has no such fields) keeps it as stored."""
    for env_id, dumped in (("Tau2-v0", defaults), ("TauBench-v0", {})):
        world = gym.make(env_id, domain=domain).unwrapped.world
        key, record = next(iter(world.dump()[table].items()))
        record = {field: value for field, value in record.items() if field not in defaults}
        world.put(table, key, record)
        world.commit()
        assert world.find(table, key) == record
        assert world.dump()[table][key] == {**record, **dumped}


def test_the_database_hash_does_not_depend_on_the_order_of_a_records_keys():
    """τ² hashes its database with sorted keys: a tool that writes a record's keys in another
    order leaves the same state."""
    env = make("retail")
    env.reset(options={"task_id": env.task_ids()[0]})
    world, before = env.world, env.world.state_hash()
    key, record = next(iter(world.dump()["users"].items()))
    world.put("users", key, dict(reversed(list(record.items()))))
    world.commit()
    assert list(next(iter(world.dump()["users"].values()))) == list(reversed(list(record)))
    assert world.state_hash() == before
    world.put("users", key, {**record, "email": "someone.else@example.com"})
    assert world.state_hash() != before


def test_tools_are_called_as_tau2_calls_them():
    """τ²'s toolkit runs the method on the arguments as given: its errors are Python's and the
    tool's own words, values are not coerced, unknown keys inside list items are dropped."""
    env = make("airline")
    env.reset(options={"task_id": env.task_ids()[0]})
    step = lambda name, arguments: env.step({"name": name, "arguments": arguments})[0]  # noqa: E731
    assert step("no_such_tool", {}) == "Error: Tool 'no_such_tool' not found."
    assert step("get_user_details", {}) == \
        "Error: AirlineTools.get_user_details() missing 1 required positional argument: 'user_id'"
    assert step("get_user_details", {"user_id": "x", "verbose": True}) == \
        "Error: AirlineTools.get_user_details() got an unexpected keyword argument 'verbose'"
    assert step("get_user_details", {"user_id": "nobody"}) == "Error: User nobody not found"
    reservation_id, reservation = next((k, r) for k, r in env.world.dump()["reservations"].items()
                                       if r.get("status") != "cancelled")
    passengers = [{**p, "seat": "12A"} for p in reservation["passengers"]]
    updated = json.loads(step("update_reservation_passengers", {"reservation_id": reservation_id,
                                                                "passengers": passengers}))
    assert updated["passengers"] == reservation["passengers"]  # the unknown key dropped, as τ²'s Passenger(**p)
    missing = step("update_reservation_passengers", {"reservation_id": reservation_id,
                                                     "passengers": [{"first_name": "A"}]})
    assert missing.startswith("Error: 2 validation errors for Passenger\nlast_name\n  Field required")
    user_id = reservation["user_id"]
    payment_id = next(iter(env.world.dump()["users"][user_id]["payment_methods"]))
    baggage = json.loads(step("update_reservation_baggages", {
        "reservation_id": reservation_id, "total_baggages": float(reservation["total_baggages"]),
        "nonfree_baggages": reservation["nonfree_baggages"], "payment_id": payment_id}))
    assert isinstance(baggage["total_baggages"], float)  # passed through, as τ² stores it


def test_a_message_that_looks_like_json_goes_to_the_user_and_a_turn_keeps_its_text():
    """τ²'s agent speaks in AssistantMessages: text that is not a tool call is said to the user,
    and a message with text and tool calls keeps both."""
    env = make("retail")
    env.reset(options={"task_index": 0})
    said = '{"note": "your order is on its way"}'
    observation, *_ = env.step(said)
    assert not observation.startswith("Error:")
    assert env._messages[-2] == {"role": "assistant", "content": said} and env._messages[-1]["role"] == "user"
    order_id = next(iter(env.world.dump()["orders"]))
    observation, *_ = env.step({"role": "assistant", "content": "Let me look that up.", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "get_order_details",
                                                     "arguments": json.dumps({"order_id": order_id})}},
        {"id": "b", "name": "calculate", "arguments": {"expression": "1 + 1"}}]})
    details, total = observation.split("\n")
    assert json.loads(details)["order_id"] == order_id and total == "2.0"
    turn = env._messages[-3]
    assert turn["role"] == "assistant" and turn["content"] == "Let me look that up."
    assert [c["function"]["name"] for c in turn["tool_calls"]] == ["get_order_details", "calculate"]
    assert [m["content"] for m in env._messages[-2:]] == [details, total]
    assert [m for m in env._info()["messages"] if m.get("content") == "Let me look that up."]


@needs_data
def test_telecom_records_and_phone_are_as_tau2s_tools_show_them():
    """τ²'s records are its pydantic models dumped: every field (unset ones null), datetimes as
    ``str(datetime)``; its setup's turn_*_on/off flip the switch at least once (a network search).
    The texts are τ²'s Environment's for the same calls (tau2-bench a2c0247)."""
    env = make("telecom", official=True, split="full")
    env.reset(options={"task_id": "[mobile_data_issue]airplane_mode_on|bad_vpn|data_usage_exceeded"
                                  "|user_abroad_roaming_enabled_off[PERSONA:Hard]"})
    step = lambda name, arguments: env.step({"name": name, "arguments": arguments})[0]  # noqa: E731
    assert step("get_details_by_id", {"id": "D1002"}) == (
        '{"device_id": "D1002", "device_type": "phone", "model": "Smartphone Pro Max", "imei": "234567890123456", '
        '"is_esim_capable": true, "activated": true, "activation_date": "2025-02-15 11:45:00", '
        '"last_esim_transfer_date": "2025-01-20 09:30:00"}')
    assert step("get_details_by_id", {"id": "L1002"}).endswith(
        '"last_sim_replacement_date": "2025-01-20", "suspension_start_date": null}')
    assert json.loads(step("get_customer_by_phone", {"phone_number": "555-123-2002"}))["created_at"] == \
        "2025-01-15 10:30:00"
    vpn = call_tool(env.world, "user", "check_vpn_status", {}, sync=True).response
    assert vpn == ("VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', "
                   "'server_performance': <PerformanceLevel.POOR: 'poor'>}")


@needs_data
def test_every_ground_truth_calls_output_is_tau2s_text():
    """Each ground-truth call of the base split's tasks, made from the task's start, gives the text
    τ²'s Environment gives (digests written from τ²'s code by benchmarks/tau2_tool_outputs.py)."""
    expected = json.loads((Path(__file__).parent / "data" / "tau2" / "ground_truth_outputs.json").read_text())
    compared = 0
    for domain in ("airline", "retail", "telecom"):
        env = make(domain, official=True)
        for task_id in env.task_ids():
            env.reset(options={"task_id": task_id})
            digests = []
            for action in env.task["evaluation_criteria"].get("actions") or ():
                requestor = action.get("requestor", "assistant")
                observation = env._call(ToolCall(action["name"], action["arguments"]), requestor)
                digests.append(hashlib.sha256(observation.encode()).hexdigest()[:16])
            assert digests == expected[f"{domain}/{task_id}"], (domain, task_id)
            compared += len(digests)
    assert compared == 142 + 550 + 516


@needs_data
def test_book_reservation_reads_its_counts_as_tau2s_reservation_model_does():
    env = make("airline", official=True)
    env.reset(options={"task_id": "8"})
    actions = env.task["evaluation_criteria"]["actions"]
    for action in actions[:3]:
        env.step({"name": action["name"], "arguments": action["arguments"]})
    booking = actions[3]
    assert booking["name"] == "book_reservation"
    arguments = {**booking["arguments"], "total_baggages": str(booking["arguments"]["total_baggages"])}
    reservation = json.loads(env.step({"name": "book_reservation", "arguments": arguments})[0])
    assert reservation["total_baggages"] == booking["arguments"]["total_baggages"]  # "0" stored as 0, as τ²
    env.reset(options={"task_id": "8"})
    refused = env.step({"name": "book_reservation", "arguments": {**booking["arguments"], "cabin": "first"}})[0]
    assert refused.startswith("Error: 1 validation error for Reservation\ncabin\n  Input should be 'business', "
                              "'economy' or 'basic_economy'")


def test_telecom_calls_bind_as_python_and_line_results_are_the_stored_line():
    """A τ² toolkit runs a call that binds without Toolkit.call's layers (issue 48): the binding
    still follows Python's (defaults optional, unknown and missing names in its words), and
    suspend_line and resume_line answer with the line as stored, the text τ²'s json.dumps writes."""
    env = make("telecom")
    env.reset(options={"task_id": env.task_ids()[0]}, seed=0)
    step = lambda name, arguments: env.step({"name": name, "arguments": arguments})[0]  # noqa: E731
    customer_id, customer = next(iter(env.world.dump()["customers"].items()))
    line_id = next(line for line in customer["line_ids"] if env.world.find("lines", line)["status"] == "Active")
    assert step("resume_line", {"customer_id": customer_id}) == \
        "Error: TelecomTools.resume_line() missing 1 required positional argument: 'line_id'"
    assert step("resume_line", {"customer_id": customer_id, "line_id": line_id, "why": "x"}) == \
        "Error: TelecomTools.resume_line() got an unexpected keyword argument 'why'"
    assert step("get_bills_for_customer", {"customer_id": customer_id}) == \
        step("get_bills_for_customer", {"customer_id": customer_id, "limit": 12})
    for name, arguments, message in [
            ("suspend_line", {"customer_id": customer_id, "line_id": line_id, "reason": "travel"},
             "Line suspended successfully. $5/month holding fee will apply."),
            ("resume_line", {"customer_id": customer_id, "line_id": line_id}, "Line resumed successfully")]:
        observation = step(name, arguments)
        line = env.world.find("lines", line_id)
        assert observation == json.dumps({"message": message, "line": line})
        assert line["status"] == ("Suspended" if name == "suspend_line" else "Active")


def test_put_changed_stores_the_record_with_its_fields_set_as_put_would():
    """A line's new text made once per stored text and change (issue 48) is the text ``put`` writes
    for a copy with the fields set: the keys in the record's order, a new one last. Made again from
    the memo in a later episode it is still the row's text, and the sync that follows it from its
    basis leaves the phone as a sync reading every row does."""
    env = make("telecom")
    world = env.world
    changes = (("status", "Suspended"), ("suspension_start_date", "2025-02-25"), ("a_new_field", 2.0))
    for _ in range(2):
        env.reset(options={"task_id": env.task_ids()[0]}, seed=0)
        phone = world.find("user_state", "surroundings")["phone_number"]
        (line_id,), = world.sql().execute("SELECT key FROM lines WHERE json_extract(doc, '$.phone_number') = ?",
                                          (phone,)).fetchall()
        doc = world.text("lines", line_id)
        record = json.loads(doc)
        assert record["status"] == "Active"
        stored = world.put_changed("lines", line_id, doc, changes)
        world.sync()
        world.commit()
        assert stored == world.text("lines", line_id) == json.dumps({**record, **dict(changes)})
        assert list(json.loads(stored)) == [*record, "a_new_field"]
        synced = world.text("user_state", "surroundings")
        assert json.loads(synced)["line_active"] is False
        world._basis = world._synced_at = None  # the next sync reads the rows
        world.sync()
        assert world.text("user_state", "surroundings") == synced


TAU2_MOST_STATEMENTS = {
    "get_reservation_details": 1, "get_user_details": 1, "search_direct_flight": 1, "get_flight_status": 1,
    "cancel_reservation": 4, "send_certificate": 4, "update_reservation_baggages": 6, "update_reservation_flights": 7,
    "update_reservation_passengers": 4, "find_user_id_by_email": 1, "find_user_id_by_name_zip": 1,
    "get_order_details": 1, "get_product_details": 1, "list_all_product_types": 1, "cancel_pending_order": 6,
    "exchange_delivered_order_items": 6, "modify_pending_order_address": 4, "modify_pending_order_items": 7,
    "modify_pending_order_payment": 6, "modify_user_address": 4, "return_delivered_order_items": 5,
    "enable_roaming": 5, "resume_line": 5, "refuel_data": 10, "send_payment_request": 8}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_a_call_makes_a_bounded_number_of_sql_statements(domain):
    """An agent's call as an episode makes it (the call, then the sync), counted on the world's
    sqlite3 connection; the SQLAlchemy engine is not used at all. In telecom a read makes no
    sync: nothing was written since the last one; nor does a failed call."""
    from sqlalchemy import event
    env = make(domain)
    orm_statements = []
    event.listen(env.world.engine, "before_cursor_execute", lambda *args: orm_statements.append(args[2]))
    counted = set()

    def statements_of(requestor, name, arguments, ok=True):
        statements = []
        env.world.sql().set_trace_callback(statements.append)
        try:
            assert call_tool(env.world, requestor, name, arguments, sync=True).ok == ok
        finally:
            env.world.sql().set_trace_callback(None)
        return statements

    for task_id in env.task_ids()[:60]:
        env.reset(options={"task_id": task_id}, seed=0)
        orm_statements.clear()
        for action in env.task_data.tasks[task_id]["evaluation_criteria"]["actions"]:
            if action["name"] not in TAU2_MOST_STATEMENTS or action.get("requestor", "assistant") != "assistant":
                continue
            statements = statements_of("assistant", action["name"], json.loads(json.dumps(action["arguments"])))
            assert len(statements) <= TAU2_MOST_STATEMENTS[action["name"]], (action["name"], statements)
            counted.add(action["name"])
            if domain == "telecom":
                customer = action["arguments"]["customer_id"]
                assert statements_of("assistant", "get_customer_by_id", {"customer_id": customer}) == [
                    f"SELECT doc FROM \"customers\" WHERE key = '{customer}'"]
                # a failed call is rolled back to what the last sync saw: no sync (issue 48)
                assert statements_of("assistant", "enable_roaming", {"customer_id": customer, "line_id": "L0"},
                                     ok=False) == [
                    f"SELECT (SELECT doc FROM \"customers\" WHERE key = '{customer}'), "
                    "(SELECT doc FROM \"lines\" WHERE key = 'L0')"]
        assert orm_statements == []
    assert len(counted) >= 3


def test_telecom_sync_from_its_basis_is_the_sync_from_the_rows():
    """After a write, a telecom sync starts from what the last one read and the rows written since
    (issue 48); its result must be the one a sync reading every row makes. Random calls of both
    sides (failing ones, payments, bills, other customers' lines, a write past ``put``) on the
    built-in tasks, then each of the customer's bills asked for and paid (a paid request is closed
    from the basis), made on two envs, one of whose syncs all read the rows (and keep nothing for
    the next, as before issue 48): the same outputs and the same rows after every call."""
    import random

    env, rows_env = make("telecom"), make("telecom")
    world = env.world
    rows_sync = rows_env.world._sync
    rows_env.world._sync = lambda: rows_sync() and None  # no basis kept: every sync reads the rows
    rng = random.Random(48)
    from_basis, known_sync, failed = [], world._sync_known, 0
    world._sync_known = lambda *args: (known_sync(*args) and not from_basis.append(1)) or False
    paid_from_basis, put_changed = [], world.put_changed  # a sync closing a paid request from its basis
    world.put_changed = lambda table, *args: (table != "bills" or not paid_from_basis.append(1)) and put_changed(
        table, *args)
    user_calls = [("toggle_roaming", {}), ("toggle_airplane_mode", {}), ("toggle_data", {}), ("reboot_device", {}),
                  ("make_payment", {}), ("check_payment_request", {}), ("toggle_wifi", {}), ("reseat_sim_card", {})]
    for task_id in env.task_ids()[:40]:
        env.reset(options={"task_id": task_id}, seed=0)
        rows_env.reset(options={"task_id": task_id}, seed=0)
        phone = world.find("user_state", "surroundings")["phone_number"]
        customer = world.tools.get_customer_by_phone(phone)
        others = [c for c in world.records("customers") if c["customer_id"] != customer["customer_id"]][:2]
        targets = [(customer["customer_id"], line) for line in customer["line_ids"]] + [
            (c["customer_id"], c["line_ids"][0]) for c in others if c["line_ids"]] + [(customer["customer_id"], "L0")]
        bills = customer["bill_ids"] + ["B0"]
        for _ in range(12):
            kind = rng.random()
            customer_id, line_id = rng.choice(targets)
            if kind < 0.3:
                requestor, (name, arguments) = "user", rng.choice(user_calls)
            elif kind < 0.9:
                requestor, name = "assistant", rng.choice(
                    ["enable_roaming", "disable_roaming", "suspend_line", "resume_line", "refuel_data",
                     "send_payment_request", "get_customer_by_id"])
                arguments = {"customer_id": customer_id, "line_id": line_id, "reason": "travel",
                             "gb_amount": rng.choice([1.5, 2.0, -1.0]), "bill_id": rng.choice(bills)}
                parameters = world.tools.specs[name].parameters
                arguments = {key: value for key, value in arguments.items() if key in parameters}
            elif kind < 0.95:  # a write SQLite counts but put() did not make: the next sync reads the rows
                for each in (env, rows_env):
                    each.world.sql().execute(
                        "UPDATE lines SET doc = json_set(doc, '$.data_used_gb', 99.0) WHERE key = ?", (line_id,))
                    each.world.commit()
                requestor, name, arguments = "assistant", "get_customer_by_id", {"customer_id": customer_id}
            else:  # a missing bill first: the refuel fails after writing the line, which is rolled back
                for each in (env, rows_env):
                    record = each.world.get("customers", customer_id, "")
                    each.world.put("customers", customer_id, {**record, "bill_ids": ["B-missing", *record["bill_ids"]]})
                    each.world.commit()
                requestor, name = "assistant", "refuel_data"
                arguments = {"customer_id": customer_id, "line_id": line_id, "gb_amount": 1.0}
            results = [call_tool(each.world, requestor, name, json.loads(json.dumps(arguments)), sync=True)
                       for each in (env, rows_env)]
            assert results[0] == results[1] and world.dump() == rows_env.world.dump(), (task_id, name, arguments)
            failed += not results[0].ok
        for bill_id in customer["bill_ids"]:  # each bill asked for and paid: a paid request closed by the sync
            for requestor, name, arguments in [
                    ("assistant", "send_payment_request", {"customer_id": customer["customer_id"], "bill_id": bill_id}),
                    ("user", "make_payment", {})]:
                results = [call_tool(each.world, requestor, name, dict(arguments), sync=True)
                           for each in (env, rows_env)]
                assert results[0] == results[1] and world.dump() == rows_env.world.dump(), (task_id, name, bill_id)
    assert len(from_basis) > 150 and failed > 100 and len(paid_from_basis) > 20, (
        len(from_basis), failed, len(paid_from_basis))


def test_telecom_a_failing_sync_keeps_the_calls_writes_and_writes_nothing():
    """A call and its sync commit together (issue 48); a sync that fails (the phone's number has
    no line) fails before it writes, so the call's change is kept and the phone is left as it was."""
    env = make("telecom")
    env.reset(options={"task_id": env.task_ids()[0]}, seed=0)
    world = env.world
    customer = next(world.records("customers"))
    line_id = customer["line_ids"][0]
    world.put("lines", line_id, {**world.get("lines", line_id, ""), "roaming_enabled": False})
    world.user_tools.set_user_info("Nobody", "555-000-0000")
    world.commit()
    surroundings = world.text("user_state", "surroundings")
    result = call_tool(world, "assistant", "enable_roaming",
                       {"customer_id": customer["customer_id"], "line_id": line_id}, sync=True)
    assert result.response == "Roaming enabled successfully"
    world.rollback()  # nothing is left uncommitted to undo
    assert world.get("lines", line_id, "")["roaming_enabled"] is True
    assert world.text("user_state", "surroundings") == surroundings
    with pytest.raises(ToolError, match="line not found for phone number: 555-000-0000"):
        world.sync()
