"""TauBench-v0: τ-bench v1's tools, tasks and reward (airline and retail)."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.common.official import OfficialDataError
from toolgym.envs.taubench.tasks import FOLDER, builtin_task_set, parse_task_file
from toolgym.worlds.taubench.common import data_hash

OFFICIAL_SPLITS = [("airline", "test", 50), ("retail", "test", 115), ("retail", "train", 500), ("retail", "dev", 20)]


def make(domain, **kwargs):
    return gym.make("TauBench-v0", domain=domain, **kwargs).unwrapped


def run_oracle(env, task_id):
    env.reset(options={"task_id": task_id}, seed=0)
    total, done, steps = 0.0, False, 0
    while not done:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        total, done, steps = total + reward, terminated or truncated, steps + 1
        assert steps < 60
    return total, info


def play(env, task_id, actions):
    """Run the given actions, then end the episode as v1 lets an agent (a transfer); the last info."""
    env.reset(options={"task_id": task_id}, seed=0)
    for action in actions:
        _, _, terminated, truncated, info = env.step(action)
        assert not (terminated or truncated)
    _, _, terminated, _, info = env.step({"name": "transfer_to_human_agents", "arguments": {"summary": "done"}})
    assert terminated and info["metrics"]["termination"] == "transfer"
    return info


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_builtin_oracle_scores_100_on_200_tasks_and_the_splits_are_disjoint(domain):
    env = make(domain)
    ids = env.task_ids()
    assert len(ids) >= 200
    train, test = make(domain, split="train").task_ids(), make(domain, split="test").task_ids()
    assert len(test) >= 40 and not set(train) & set(test) and set(train) | set(test) == set(ids)
    for task_id in ids:
        total, info = run_oracle(env, task_id)
        assert total == 1.0 and info["metrics"]["success"] == 1, (task_id, info["metrics"])


@pytest.mark.parametrize("domain,split,count", OFFICIAL_SPLITS)
def test_official_oracle_scores_100(official_data, domain, split, count):
    env = make(domain, tasks="official", split=split, data_dir=str(official_data))
    assert len(env.task_ids()) == count
    failed = []
    for task_id in env.task_ids():
        total, info = run_oracle(env, task_id)
        if total != 1.0:
            failed.append((task_id, info["metrics"]))
    assert not failed


def test_official_default_split_is_test_and_airline_has_no_train(official_data):
    assert make("airline", tasks="official", data_dir=str(official_data)).task_ids()[0] == "test_0"
    with pytest.raises(ValueError, match="airline has the splits"):
        make("airline", tasks="official", split="train", data_dir=str(official_data))


def _task_with(env, last_action, outputs: bool):
    return next(t for t in env.task_ids() if env.task_data.tasks[t]["actions"][-1]["name"] == last_action
                and bool(env.task_data.tasks[t]["outputs"]) == outputs)


def test_a_wrong_write_fails_r_actions_alone():
    env = make("retail")
    task_id = _task_with(env, "cancel_pending_order", outputs=False)
    gold = env.task_data.tasks[task_id]["actions"]
    wrong = dict(gold[-1]["kwargs"])
    wrong["reason"] = next(r for r in ("no longer needed", "ordered by mistake") if r != wrong["reason"])
    info = play(env, task_id, [{"name": a["name"], "arguments": a["kwargs"]} for a in gold[:-1]]
                + [{"name": "cancel_pending_order", "arguments": wrong}, "Done."])
    metrics = info["metrics"]
    assert (metrics["r_actions"], metrics["r_outputs"], metrics["reward"], metrics["success"]) == (0.0, 1.0, 0.0, 0)


def test_a_missing_output_fails_r_outputs_alone_and_commas_are_ignored():
    env = make("airline")
    task_id = _task_with(env, "send_certificate", outputs=True)
    task = env.task_data.tasks[task_id]
    calls = [{"name": a["name"], "arguments": a["kwargs"]} for a in task["actions"]]
    info = play(env, task_id, [*calls, "I have sent it."])
    assert (info["metrics"]["r_actions"], info["metrics"]["r_outputs"], info["metrics"]["reward"]) == (1.0, 0.0, 0.0)
    # v1 lower-cases the agent's message and removes its commas: "1,50" holds "150"
    amount = task["outputs"][0]
    said = f"A certificate of ${amount[:-2]},{amount[-2:]} IS ON ITS WAY."
    _, info = run_oracle(env, task_id)  # the same episode with the output said plainly scores 1
    assert info["metrics"]["reward"] == 1.0
    env.reset(options={"task_id": task_id}, seed=0)
    for call in calls:
        env.step(call)
    _, reward, terminated, _, info = env.step(said)
    assert terminated and reward == 1.0 and info["metrics"]["r_outputs"] == 1.0


def test_transfer_ends_the_episode_and_unknown_tools_answer_as_v1():
    env = make("retail")
    task_id = _task_with(env, "cancel_pending_order", outputs=False)  # a write the agent never does
    env.reset(options={"task_id": task_id}, seed=0)
    observation, _, terminated, _, _ = env.step({"name": "refund_everything", "arguments": {}})
    assert observation == "Unknown action refund_everything" and not terminated
    observation, reward, terminated, _, info = env.step(
        {"name": "transfer_to_human_agents", "arguments": {"summary": "wants a human"}})
    assert observation == "Transfer successful" and terminated
    assert info["metrics"]["termination"] == "transfer" and info["metrics"]["r_actions"] == 0.0


def test_respond_action_is_a_message_and_max_steps_scores_zero():
    env = make("airline", max_steps=2)
    env.reset(options={"task_index": 0}, seed=0)
    observation, _, terminated, _, info = env.step({"name": "respond", "arguments": {"content": "Hello, how can I help?"}})
    assert info["messages"][-2] == {"role": "assistant", "content": "Hello, how can I help?"}
    _, reward, terminated, truncated, info = env.step("Anything else?")
    assert truncated and reward == 0.0 and info["metrics"]["termination"] == "max_steps"


# -- v1's tool outputs, byte for byte (expected texts read off v1's tools and data) --------------

@pytest.fixture
def airline(official_data):
    env = make("airline", tasks="official", data_dir=str(official_data))
    env.reset(options={"task_index": 0}, seed=0)
    return env


def call(env, name, **arguments):
    result = env.toolkit.call(name, arguments)
    assert result.ok, result.error
    return result.response


def test_airline_tool_outputs_are_v1s(airline, official_data):
    raw = json.loads((official_data / "tau2bench" / FOLDER / "airline" / "data" / "reservations.json").read_text())
    assert call(airline, "get_reservation_details", reservation_id="4WQ150") == json.dumps(raw["4WQ150"])
    assert call(airline, "get_reservation_details", reservation_id="NOPE00") == "Error: user not found"
    assert call(airline, "get_user_details", user_id="nobody_1") == "Error: user not found"
    assert call(airline, "cancel_reservation", reservation_id="NOPE00") == "Error: reservation not found"
    assert call(airline, "search_direct_flight", origin="JFK", destination="SEA", date="2024-05-20").startswith(
        '[{"flight_number": "HAT069", "origin": "JFK", "destination": "SEA", "scheduled_departure_time_est": '
        '"06:00:00", "scheduled_arrival_time_est": "12:00:00", "status": "available", "available_seats": '
        '{"basic_economy": 17, "economy": 12, "business": 3}, "prices": {"basic_economy": 51, "economy": 121, '
        '"business": 239}}, {"flight_number": "HAT083"')
    booking = dict(user_id="mia_li_3668", origin="JFK", destination="SEA", flight_type="one_way", cabin="economy",
                   flights=[{"flight_number": "HAT069", "date": "2024-05-20"}],
                   passengers=[{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
                   payment_methods=[{"payment_id": "credit_card_4421486", "amount": 100}], total_baggages=0,
                   nonfree_baggages=0, insurance="no")
    assert call(airline, "book_reservation", **booking) == ("Error: payment amount does not add up, total price is "
                                                            "121, but paid 100")
    assert call(airline, "send_certificate", user_id="mia_li_3668", amount=100) == (
        "Certificate certificate_3221322 added to user mia_li_3668 with amount 100.")
    assert call(airline, "list_all_airports").startswith('{"SFO": "San Francisco", "JFK": "New York", ')
    assert call(airline, "think", thought="hmm") == ""
    assert call(airline, "calculate", expression="2 + 2") == "4.0"
    assert call(airline, "calculate", expression="1/0") == "Error: division by zero"
    assert call(airline, "calculate", expression="2 +") == "Error: invalid syntax (<string>, line 1)"
    assert call(airline, "calculate", expression="x") == "Error: invalid characters in expression"


def test_retail_tool_outputs_are_v1s(official_data):
    env = make("retail", tasks="official", split="dev", data_dir=str(official_data))
    env.reset(options={"task_index": 0}, seed=0)
    assert call(env, "find_user_id_by_email", email="Olivia.Ito5204@example.com") == "olivia_ito_3591"
    assert call(env, "find_user_id_by_email", email="nobody@example.com") == "Error: user not found"
    assert call(env, "get_order_details", order_id="W5442520") == "Error: order not found"
    assert call(env, "cancel_pending_order", order_id="#W2611340", reason="no longer needed") == (
        "Error: non-pending order cannot be cancelled")
    cancelled = json.loads(call(env, "cancel_pending_order", order_id="#W5442520", reason="no longer needed"))
    assert cancelled["status"] == "cancelled" and cancelled["payment_history"][-1]["transaction_type"] == "refund"
    assert list(cancelled)[-1] == "cancel_reason"  # v1 adds the key at the end of the record



def test_refusals_of_the_rules_shared_with_tau2_are_worded_as_v1s_and_change_nothing():
    """v1's tools run τ²'s rules (worlds/tau2) and answer a refusal as v1 words it."""
    retail = make("retail")
    retail.reset(options={"task_index": 0}, seed=0)
    pending = next(o for o in retail.world.records("orders") if o["status"] == "pending")
    item = pending["items"][0]["item_id"]
    before = retail.world.state_hash()
    assert call(retail, "modify_pending_order_items", order_id=pending["order_id"], item_ids=["AB12"],
                new_item_ids=["1"], payment_method_id="x") == "Error: AB12 not found"  # an id keeps its case
    assert call(retail, "exchange_delivered_order_items", order_id=pending["order_id"], item_ids=[item],
                new_item_ids=[item], payment_method_id="x") == "Error: non-delivered order cannot be exchanged"
    assert call(retail, "get_order_details", order_id="#W0") == "Error: order not found"
    assert retail.world.state_hash() == before
    airline = make("airline")
    airline.reset(options={"task_index": 0}, seed=0)
    reservation = next(airline.world.records("reservations"))
    before = airline.world.state_hash()
    flights = [{"flight_number": "HAT999", "date": "2024-05-20"}]
    assert call(airline, "update_reservation_flights", reservation_id=reservation["reservation_id"],
                cabin=reservation["cabin"], flights=flights, payment_id="x") == "Error: flight HAT999 not found"
    assert call(airline, "update_reservation_baggages", reservation_id=reservation["reservation_id"],
                total_baggages=9, nonfree_baggages=9, payment_id="x") == "Error: payment method not found"
    assert call(airline, "update_reservation_passengers", reservation_id=reservation["reservation_id"],
                passengers=[]) == "Error: number of passengers does not match"
    assert airline.world.state_hash() == before

def test_arguments_are_stored_as_v1_stores_them():
    """v1 calls ``invoke(data=data, **arguments)``: nothing is coerced, list items keep their unknown
    keys, and a call that does not bind fails in Python's words for v1's function (issue 48)."""
    env = make("airline")
    env.reset(options={"task_index": 0}, seed=0)
    reservation = next(r for r in env.world.records("reservations") if r.get("status") != "cancelled")
    rid, uid = reservation["reservation_id"], reservation["user_id"]
    card = next(k for k, m in env.world.get("users", uid, "")["payment_methods"].items()
                if m["source"] == "credit_card")
    call(env, "update_reservation_baggages", reservation_id=rid, total_baggages=3.0,
         nonfree_baggages=reservation["nonfree_baggages"], payment_id=card)
    stored = env.world.get("reservations", rid, "")
    assert type(stored["total_baggages"]) is float and stored["total_baggages"] == 3.0
    passengers = [{**p, "note": "window"} for p in reservation["passengers"]]
    call(env, "update_reservation_passengers", reservation_id=rid, passengers=passengers)
    assert env.world.get("reservations", rid, "")["passengers"] == passengers
    assert call(env, "send_certificate", user_id=uid, amount="150") == (
        f"Certificate certificate_3221322 added to user {uid} with amount 150.")
    assert env.world.get("users", uid, "")["payment_methods"]["certificate_3221322"]["amount"] == "150"
    before = env.world.state_hash()
    booking = dict(user_id=uid, origin="JFK", destination="SEA", flight_type="one_way", cabin="economy", flights=[],
                   passengers=passengers, payment_methods=[{"payment_id": "certificate_3221322", "amount": 150}],
                   total_baggages=0, nonfree_baggages=0, insurance="no")
    errors = {
        "'<' not supported between instances of 'str' and 'int'": ("book_reservation", booking),
        "CancelReservation.invoke() missing 1 required positional argument: 'reservation_id'":
            ("cancel_reservation", {}),
        "GetUserDetails.invoke() got an unexpected keyword argument 'name'":
            ("get_user_details", {"user_id": uid, "name": "x"}),
        "tau_bench.envs.airline.tools.get_user_details.GetUserDetails.invoke() got multiple values for keyword "
        "argument 'data'": ("get_user_details", {"user_id": uid, "data": {}}),
        "unhashable type: 'list'": ("cancel_reservation", {"reservation_id": [rid]}),
    }
    for error, (name, arguments) in errors.items():
        assert env.toolkit.call(name, arguments).error == error
        assert env.step({"name": name, "arguments": arguments})[0] == f"Error: {error}"
    assert call(env, "search_direct_flight", origin=["JFK"], destination="SEA", date="2024-05-20") == "[]"
    assert env.world.state_hash() == before


def test_schemas_are_v1s():
    env = make("retail")
    schemas = {tool["function"]["name"]: tool["function"] for tool in env.tools}
    assert len(schemas) == 16
    cancel = schemas["cancel_pending_order"]
    assert cancel["parameters"]["properties"]["reason"]["enum"] == ["no longer needed", "ordered by mistake"]
    assert cancel["parameters"]["required"] == ["order_id", "reason"]
    assert schemas["modify_pending_order_items"]["parameters"]["properties"]["item_ids"]["items"] == {"type": "string"}
    airline = {tool["function"]["name"]: tool["function"] for tool in make("airline").tools}
    assert len(airline) == 14
    assert airline["send_certificate"]["parameters"]["properties"]["amount"]["type"] == "number"
    assert airline["get_user_details"]["description"] == "Get the details of an user, including their reservations."


def test_hash_compares_as_v1s():
    env = make("retail")
    world = env.world
    env.reset(options={"task_index": 0}, seed=0)
    before = world.state_hash()
    user_id, user = next(iter(world.dump()["users"].items()))
    world.put("users", user_id, dict(reversed(list(user.items()))))  # key order does not count
    assert world.state_hash() == before
    assert data_hash({"a": {"x": 1, "y": 2}}) == data_hash({"a": {"y": 2, "x": 1}})
    address = dict(user["address"], zip=2)
    world.put("users", user_id, dict(user, address=address))
    with_int = world.state_hash()
    world.put("users", user_id, dict(user, address=dict(address, zip=2.0)))  # 2 and 2.0 differ, as in v1's str()
    assert len({before, with_int, world.state_hash()}) == 3
    assert data_hash({"a": 2}) != data_hash({"a": 2.0})


def test_task_files_are_parsed_never_run(tmp_path):
    marker = tmp_path / "ran"
    good = tmp_path / "tasks_test.py"
    good.write_text('from tau_bench.types import Action, Task\nTASKS = [\n    Task(annotator="0", user_id="u_1", '
                    'instruction="Your user id is u_1.", actions=[Action(name="get_user_details", '
                    'kwargs={"user_id": "u_1"})], outputs=["42"]),\n]\n')
    assert parse_task_file(good) == [{"annotator": "0", "user_id": "u_1", "instruction": "Your user id is u_1.",
                                      "actions": [{"name": "get_user_details", "kwargs": {"user_id": "u_1"}}],
                                      "outputs": ["42"]}]
    bad = tmp_path / "tasks_train.py"
    bad.write_text(f'TASKS = [Task(user_id=__import__("os").system("touch {marker}"), instruction="x", '
                   f'actions=[], outputs=[])]\n')
    with pytest.raises(OfficialDataError, match=r"tasks_train.py:1: Task\(user_id=...\) is not a literal"):
        parse_task_file(bad)
    assert not marker.exists()
    action = tmp_path / "tasks_dev.py"
    action.write_text('TASKS = [Task(user_id="u", instruction="x", outputs=[], actions=[exec("1")])]\n')
    with pytest.raises(OfficialDataError, match="an action must be Action"):
        parse_task_file(action)


def test_builtin_tasks_are_deterministic_and_scenarios_first_person():
    first, again = builtin_task_set("retail", 0), builtin_task_set.__wrapped__("retail", 0)
    assert list(first.tasks) == list(again.tasks) and first.tasks == again.tasks
    for task in first.tasks.values():  # the customer speaks: "I want ...", "my order", never "You want"
        reason = task["user_scenario"]["instructions"]["reason_for_call"]
        assert re.search(r"\b(I|my)\b", reason) and not re.search(r"\b[Yy]ou\b", reason), reason
    assert task["actions"] and all(set(a) == {"name", "kwargs"} for a in task["actions"])


def _v1_searches(flights, origin, destination, date):
    """v1's search_direct_flight and search_onestop_flight, transcribed, over the raw flights table."""
    direct = []
    for flight in flights.values():
        if flight["origin"] == origin and flight["destination"] == destination and date in flight["dates"] \
                and flight["dates"][date]["status"] == "available":
            direct.append({k: v for k, v in flight.items() if k != "dates"})
            direct[-1].update(flight["dates"][date])
    onestop = []
    for first in flights.values():
        if first["origin"] != origin:
            continue
        for second in flights.values():
            if second["destination"] != destination or first["destination"] != second["origin"]:
                continue
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
            if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                continue
            if date in first["dates"] and date2 in second["dates"] and first["dates"][date]["status"] == "available" \
                    and second["dates"][date2]["status"] == "available":
                leg1 = {k: v for k, v in first.items() if k != "dates"}
                leg1.update(first["dates"][date])
                leg1["date"] = date
                leg2 = {k: v for k, v in second.items() if k != "dates"}
                leg2.update(second["dates"][date])
                leg2["date"] = date2
                onestop.append([leg1, leg2])
    return json.dumps(direct), json.dumps(onestop)


@pytest.mark.parametrize("origin,destination,date", [("JFK", "SEA", "2024-05-20"), ("SFO", "JFK", "2024-05-16"),
                                                     ("LGA", "SFO", "2024-05-20")])
def test_flight_searches_are_v1s(airline, official_data, origin, destination, date):
    flights = json.loads((official_data / "tau2bench" / FOLDER / "airline" / "data" / "flights.json").read_text())
    direct, onestop = _v1_searches(flights, origin, destination, date)
    assert call(airline, "search_direct_flight", origin=origin, destination=destination, date=date) == direct
    assert call(airline, "search_onestop_flight", origin=origin, destination=destination, date=date) == onestop
    assert len(json.loads(onestop)) > 2
    if origin == "LGA":  # HAT002 lands after midnight: its connections leave on the 21st
        assert any(second["date"] == "2024-05-21" for _, second in json.loads(onestop))


def test_official_perturbations_fail_one_component_each(official_data):
    env = make("retail", tasks="official", split="test", data_dir=str(official_data))
    tasks = env.task_data.tasks
    with_outputs = next(t for t in env.task_ids() if tasks[t]["outputs"])
    calls = [{"name": a["name"], "arguments": a["kwargs"]} for a in tasks[with_outputs]["actions"]]
    metrics = play(env, with_outputs, [*calls, "Done."])["metrics"]
    assert (metrics["r_actions"], metrics["r_outputs"], metrics["reward"]) == (1.0, 0.0, 0.0)
    cancel = next(t for t in env.task_ids() if [a["name"] for a in tasks[t]["actions"]][-1:] == ["cancel_pending_order"]
                  and not tasks[t]["outputs"])
    calls = [{"name": a["name"], "arguments": dict(a["kwargs"])} for a in tasks[cancel]["actions"]]
    calls[-1]["arguments"]["reason"] = next(r for r in ("no longer needed", "ordered by mistake")
                                            if r != calls[-1]["arguments"]["reason"])
    metrics = play(env, cancel, [*calls, "Done."])["metrics"]
    assert (metrics["r_actions"], metrics["r_outputs"], metrics["reward"]) == (0.0, 1.0, 0.0)


def test_official_loader_reads_a_small_folder_in_v1s_layout(tmp_path):
    folder = tmp_path / "tau2bench" / FOLDER / "retail"
    (folder / "data").mkdir(parents=True)
    address = {"address1": "1 Main St", "address2": "", "city": "Austin", "country": "USA", "state": "TX",
               "zip": "78701"}
    tables = {
        "users": {"ann_lee_1": {"name": {"first_name": "Ann", "last_name": "Lee"}, "address": address,
                                "email": "ann@example.com", "payment_methods": {"credit_card_1": {
                                    "source": "credit_card", "id": "credit_card_1"}}, "orders": ["#W1"]}},
        "orders": {"#W1": {"order_id": "#W1", "user_id": "ann_lee_1", "address": address, "items": [],
                           "status": "pending", "fulfillments": [], "payment_history": [
                               {"transaction_type": "payment", "amount": 10.5, "payment_method_id": "credit_card_1"}]}},
        "products": {},
    }
    for name, records in tables.items():
        (folder / "data" / f"{name}.json").write_text(json.dumps(records))
    (folder / "wiki.md").write_text("# Retail agent policy\n")
    (folder / "tasks_test.py").write_text(
        'TASKS_TEST = [Task(annotator="", user_id="ann_lee_1", instruction="Your email is ann@example.com.", '
        'actions=[Action(name="find_user_id_by_email", kwargs={"email": "ann@example.com"}), '
        'Action(name="cancel_pending_order", kwargs={"order_id": "#W1", "reason": "ordered by mistake"})], '
        'outputs=["10.5"])]\n')
    env = make("retail", tasks="official", data_dir=str(tmp_path))
    assert env.task_ids() == ["test_0"]
    observation, info = env.reset(options={"task_index": 0}, seed=0)
    assert info["messages"][0] == {"role": "system", "content": "# Retail agent policy\n"}
    assert observation == "My email is ann@example.com."  # the scenario, said by the customer
    total, info = run_oracle(env, "test_0")
    assert total == 1.0 and info["metrics"]["termination"] == "user_stop"
    with pytest.raises(ValueError, match="split .base. is not one of"):
        make("retail", tasks="official", split="base", data_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError):
        make("retail", tasks="official", split="train", data_dir=str(tmp_path))  # no tasks_train.py


#: The most SQL statements one ground-truth call of a built-in task makes: a read is one statement a
#: record, a write adds BEGIN, one UPDATE a record written and COMMIT (issue 48).
MOST_STATEMENTS = {"get_reservation_details": 1, "get_user_details": 1, "cancel_reservation": 4,
                   "update_reservation_passengers": 4, "update_reservation_baggages": 6, "send_certificate": 4,
                   "find_user_id_by_email": 1, "get_order_details": 1, "get_product_details": 1,
                   "modify_pending_order_address": 4, "modify_user_address": 4, "cancel_pending_order": 6,
                   "return_delivered_order_items": 5, "exchange_delivered_order_items": 6,
                   "modify_pending_order_items": 7}


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_a_call_makes_a_bounded_number_of_sql_statements(domain):
    """Counted on the world's sqlite3 connection (its tools' hot path) and on its SQLAlchemy engine,
    which a tool call does not use at all."""
    from sqlalchemy import event
    env = make(domain)
    orm_statements = []
    event.listen(env.world.engine, "before_cursor_execute", lambda *args: orm_statements.append(args[2]))
    counted = set()
    for task_id in env.task_ids()[:60]:
        env.reset(options={"task_id": task_id}, seed=0)
        orm_statements.clear()
        for action in env.task_data.tasks[task_id]["actions"]:
            if action["name"] not in MOST_STATEMENTS:
                continue
            statements = []
            env.world.sql().set_trace_callback(statements.append)
            try:
                assert env.toolkit.call(action["name"], json.loads(json.dumps(action["kwargs"]))).ok
            finally:
                env.world.sql().set_trace_callback(None)
            assert len(statements) <= MOST_STATEMENTS[action["name"]], (action["name"], statements)
            counted.add(action["name"])
        assert orm_statements == []
    assert len(counted) >= 6
