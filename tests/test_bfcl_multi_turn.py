"""BFCL multi-turn: the APIs' outputs as BFCL's classes give them, and the per-turn checker."""

from __future__ import annotations



from toolgym.envs.bfcl.multi_turn import (MULTI_TURN_CATEGORIES, MultiTurnEpisode, MultiTurnTask,
                                          builtin_multi_turn_tasks, load_multi_turn_tasks,
                                          parse_ground_truth_call)
from toolgym.worlds.bfcl.api import run_call
from toolgym.worlds.bfcl.apis import make_instances

LOGIN = "ticket_login(username='alice', password='pw')"


def _task(ground_truth, config=None, turns=None) -> MultiTurnTask:
    queue = [{"id": 1, "title": "VPN", "description": "", "status": "Open", "priority": 2, "created_by": "alice"}]
    return MultiTurnTask(
        id="t", category="multi_turn_base", turns=turns or [[{"role": "user", "content": "x"}]] * len(ground_truth),
        involved_classes=["TicketAPI"],
        initial_config={"TicketAPI": config or {"ticket_queue": queue, "ticket_counter": 2}},
        ground_truth=ground_truth, missed_functions={}, functions=[], long_context=False)


def _play(task, turns_of_calls, scoring="paper"):
    episode = MultiTurnEpisode(task, scoring=scoring)
    grades = []
    for calls in turns_of_calls:
        for text in calls:
            episode.execute(*parse_ground_truth_call(text, task.involved_classes))
        grades.append(episode.end_turn())
    return episode, grades


def _oracle(task, scoring="paper"):
    episode = MultiTurnEpisode(task, scoring=scoring)
    while not episode.done:
        for name, arguments in episode.oracle_calls():
            episode.execute(name, arguments)
        episode.end_turn()
    return episode.metrics()


def test_oracle_passes_every_builtin_task_and_tasks_are_seeded():
    tasks = builtin_multi_turn_tasks(0)
    assert len(tasks) == 200
    assert tasks == builtin_multi_turn_tasks(0) and tasks != builtin_multi_turn_tasks(1)
    assert any(not turn for task in tasks for turn in task.ground_truth)  # irrelevance turns exist
    for task in tasks:
        metrics = _oracle(task)
        assert metrics["success"] == 1 and metrics["turns_passed"] == len(task.turns), (task.id, metrics)


# What BFCL's TicketAPI returns, read from ticket_api.py and its executor (json.dumps of a dict).
BFCL_OUTPUTS = [
    ("create_ticket(title='x')", '{"error": "User not authenticated. Please log in to create a ticket."}'),
    (LOGIN, '{"success": true}'),
    ("create_ticket(title='Disk', description='full', priority=6)",
     '{"error": "Invalid priority. Priority must be between 1 and 5."}'),
    ("create_ticket(title='Disk', description='full', priority=4)",
     '{"id": 2, "title": "Disk", "description": "full", "status": "Open", "priority": 4, "created_by": "alice"}'),
    ("get_ticket(ticket_id=9)", '{"error": "Ticket with ID 9 not found."}'),
    ("close_ticket(ticket_id=1)", '{"status": "Ticket 1 has been closed successfully."}'),
    ("close_ticket(ticket_id=1)", '{"error": "Ticket with ID 1 is already closed."}'),
    ("resolve_ticket(ticket_id=2, resolution='cleaned')", '{"status": "Ticket 2 has been resolved successfully."}'),
    ("edit_ticket(ticket_id=2, updates={'owner': 'b'})", '{"error": "Invalid fields for update: owner"}'),
    ("edit_ticket(ticket_id=2, updates={'priority': 1})", '{"status": "Ticket 2 has been updated successfully."}'),
    ("get_user_tickets(status='resolved')",
     "[{'id': 2, 'title': 'Disk', 'description': 'full', 'status': 'Resolved', 'priority': 1, "
     "'created_by': 'alice', 'resolution': 'cleaned'}]"),
    ("ticket_get_login_status()", '{"login_status": true}'),
    ("logout()", '{"success": true}'),
    ("logout()", '{"success": false}'),
    ("get_user_tickets()", "[{'error': 'User not authenticated. Please log in to view tickets.'}]"),
]


def test_ticket_api_outputs_are_bfcls_words():
    instances = make_instances(["TicketAPI"], _task([[]]).initial_config, long_context=False)
    for text, expected in BFCL_OUTPUTS:
        name, arguments = parse_ground_truth_call(text, ["TicketAPI"])
        assert run_call(instances, name, arguments) == expected, text


def test_bad_calls_are_bfcls_errors_and_leave_the_state_unchanged():
    instances = make_instances(["TicketAPI"], {"TicketAPI": {"current_user": "alice"}}, long_context=False)
    before = instances["TicketAPI"].state()
    assert run_call(instances, "delete_ticket", {"ticket_id": 1}) == \
        "Error during execution: name 'delete_ticket' is not defined"
    assert run_call(instances, "create_ticket", {}) == \
        "Error during execution: TicketAPI.create_ticket() missing 1 required positional argument: 'title'"
    assert run_call(instances, "create_ticket", {"title": "a", "colour": "red"}) == \
        "Error during execution: TicketAPI.create_ticket() got an unexpected keyword argument 'colour'"
    assert run_call(instances, "create_ticket", {"title": "a", "priority": "high"}) == \
        "Error during execution: '<' not supported between instances of 'str' and 'int'"
    assert run_call(instances, "exit", {}) == "Error during execution: Function call exit is not allowed."
    assert instances["TicketAPI"].state() == before


def test_a_wrong_argument_fails_the_state_check():
    task = _task([[LOGIN, "close_ticket(ticket_id=1)"]])
    episode, grades = _play(task, [[LOGIN, "resolve_ticket(ticket_id=1, resolution='x')"]])
    assert grades[0]["check"] == "state" and "TicketAPI" in grades[0]["detail"]
    assert episode.metrics() | {"failing_detail": None} == {
        "success": 0, "turns_passed": 0, "turns": 1, "failing_turn": 0, "failing_check": "state",
        "failing_detail": None}


def test_a_missing_read_call_fails_the_response_check_and_a_missing_turn_the_empty_check():
    task = _task([[LOGIN, "get_ticket(ticket_id=1)"], ["get_ticket(ticket_id=1)"]])
    _, grades = _play(task, [[LOGIN], []])
    assert [g["check"] for g in grades] == ["response", "empty_turn"]


def test_an_extra_state_changing_call_fails_the_state_check():
    task = _task([[LOGIN], ["get_ticket(ticket_id=1)"]])
    _, grades = _play(task, [[LOGIN, "close_ticket(ticket_id=1)"], ["get_ticket(ticket_id=1)"]])
    assert grades[0]["check"] == "state" and grades[1]["check"] == "state"


def test_calls_out_of_order_fail_where_order_matters():
    task = _task([[LOGIN, "create_ticket(title='Disk')"]])
    _, grades = _play(task, [["create_ticket(title='Disk')", LOGIN]])
    assert grades[0]["check"] == "state"  # created before the login: refused, queue unchanged
    _, grades = _play(task, [[LOGIN, "create_ticket(title='Disk')"]])
    assert grades[0]["passed"]


def test_a_call_where_none_is_wanted_fails_irrelevance_under_paper_only():
    task = _task([[LOGIN], [], ["get_ticket(ticket_id=1)"]])
    answers = [[LOGIN], ["get_ticket(ticket_id=1)"], ["get_ticket(ticket_id=1)"]]
    episode, grades = _play(task, answers)
    assert [g["check"] for g in grades] == [None, "irrelevance", None]
    assert episode.metrics()["failing_check"] == "irrelevance" and episode.metrics()["success"] == 0
    episode, grades = _play(task, answers, scoring="paper_compat")
    assert all(g["passed"] for g in grades) and episode.metrics()["success"] == 1


def test_response_check_is_per_turn_under_paper_and_cumulative_under_paper_compat():
    task = _task([[LOGIN, "get_ticket(ticket_id=1)"], ["ticket_get_login_status()", "get_ticket(ticket_id=1)"]])
    answers = [[LOGIN, "get_ticket(ticket_id=1)"], ["ticket_get_login_status()"]]
    _, grades = _play(task, answers)
    assert grades[1]["check"] == "response"
    _, grades = _play(task, answers, scoring="paper_compat")
    assert grades[1]["passed"]


def test_official_tasks_load_with_their_ground_truth_and_held_out_functions(official_data):
    folder = official_data / "bfcl"
    for category in MULTI_TURN_CATEGORIES:
        tasks = load_multi_turn_tasks(folder, category)
        assert len(tasks) == 200
        for task in tasks:
            assert len(task.ground_truth) == len(task.turns)
            offered = {doc["name"] for doc in task.functions}
            for turn, names in task.missed_functions.items():
                assert not offered & set(names)
                assert {doc["name"] for doc in task.held_out_docs[turn]} == set(names)
    task = load_multi_turn_tasks(folder, "multi_turn_miss_func")[0]
    assert task.missed_functions == {3: ["sort"]} and "cp" not in {d["name"] for d in task.functions}
