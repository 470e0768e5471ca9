"""BFCL multi-turn: the APIs' outputs as BFCL's classes give them, and the per-turn checker."""

from __future__ import annotations

import json
import time

import pytest



from toolgym.envs.bfcl.multi_turn import (MULTI_TURN_CATEGORIES, MultiTurnEpisode, MultiTurnTask,
                                          builtin_multi_turn_tasks, load_multi_turn_tasks,
                                          parse_ground_truth_call)
from toolgym.worlds.bfcl.api import function_doc, run_call
from toolgym.worlds.bfcl.apis import API_CLASSES, make_instances
from toolgym.worlds.bfcl.models import dump, load

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
    assert len(tasks) == 300
    assert tasks == builtin_multi_turn_tasks(0) and tasks != builtin_multi_turn_tasks(1)
    assert any(not turn for task in tasks for turn in task.ground_truth)  # irrelevance turns exist
    for task in tasks:
        metrics = _oracle(task)
        assert metrics["success"] == 1 and metrics["turns_passed"] == len(task.turns), (task.id, metrics)


def test_builtin_function_docs_describe_every_parameter_from_the_docstrings():
    docs = {doc["name"]: doc for task in builtin_multi_turn_tasks(0) for doc in task.functions}
    assert len(docs) == 49  # every function of TicketAPI, VehicleControlAPI and GorillaFileSystem
    parameters = [(name, key, spec) for name, doc in docs.items()
                  for key, spec in doc["parameters"]["properties"].items()]
    assert len(parameters) == 60
    for name, key, spec in parameters:
        assert spec["description"] and spec["description"] != key and "\n" not in spec["description"], (name, key)
    assert docs["lockDoors"]["parameters"]["properties"]["door"] == {
        "type": "array",
        "description": "The doors to lock or unlock, each one of driver, passenger, rear_left and rear_right."}
    assert docs["wc"]["parameters"]["properties"]["mode"]["default"] == "l"
    assert docs["wc"]["parameters"]["required"] == ["file_name"]
    assert docs["get_ticket"]["description"] == "Get a specific ticket by its ID."


def test_a_function_doc_refuses_an_undescribed_parameter():
    class Undocumented(API_CLASSES["TicketAPI"]):
        def reopen_ticket(self, ticket_id: int) -> dict:
            """Reopen a ticket."""

    with pytest.raises(ValueError, match="does not describe 'ticket_id'"):
        function_doc(Undocumented, "reopen_ticket")


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
    assert run_call(instances, "TicketAPI.get_ticket", {"ticket_id": 1}) == \
        "Error during execution: name 'TicketAPI' is not defined"
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
    # the entry's excluded_function (cp) is offered, as BFCL offers it (its loader never reads the field)
    assert task.missed_functions == {3: ["sort"]} and "cp" in {d["name"] for d in task.functions}


# Generated by running BFCL's own VehicleControlAPI (config below) and MathAPI from bfcl_eval
# 2026.3.23's source on these calls in order, through its executor's result-to-text step.
VEHICLE_CONFIG = {"fuelLevel": 15.5, "batteryVoltage": 12.8, "random_seed": 7}
BFCL_VEHICLE_OUTPUTS = [
    ("lockDoors(unlock=False, door=['driver'])",
     '{"lockStatus": "locked", "remainingUnlockedDoors": 3}'),
    ("startEngine(ignitionMode='START')",
     '{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: passenger, rear_left, rear_right"}'),
    ("lockDoors(unlock=False, door=['passenger', 'rear_left', 'rear_right'])",
     '{"lockStatus": "locked", "remainingUnlockedDoors": 0}'),
    ("startEngine(ignitionMode='START')",
     '{"error": "Brake pedal needs to be pressed when starting the engine."}'),
    ('pressBrakePedal(pedalPosition=0.5)',
     '{"brakePedalStatus": "pressed", "brakePedalForce": 500.0}'),
    ("startEngine(ignitionMode='START')",
     '{"error": "Must press the brake fully before starting the engine."}'),
    ('pressBrakePedal(pedalPosition=1.0)',
     '{"brakePedalStatus": "pressed", "brakePedalForce": 1000.0}'),
    ("startEngine(ignitionMode='START')",
     '{"engineState": "running", "fuelLevel": 15.5, "batteryVoltage": 12.8}'),
    ('fillFuelTank(fuelAmount=60)',
     '{"error": "Cannot fill gas above the tank capacity."}'),
    ('fillFuelTank(fuelAmount=10.5)',
     '{"fuelLevel": 26.0}'),
    ("adjustClimateControl(temperature=68, unit='fahrenheit', fanSpeed=30, mode='cool')",
     '{"currentACTemperature": 68, "climateMode": "cool", "humidityLevel": 50.0}'),
    ('adjustClimateControl(temperature=20, fanSpeed=101)',
     '{"error": "Fan speed must be between 0 and 100."}'),
    ("displayCarStatus(option='climate')",
     '{"currentACTemperature": 20.0, "fanSpeed": 30, "climateMode": "cool", "humidityLevel": 50.0}'),
    ("displayCarStatus(option='wheels')",
     '{"error": "Invalid option"}'),
    ("activateParkingBrake(mode='engage')",
     '{"parkingBrakeStatus": "engaged", "_parkingBrakeForce": 500.0, "_slopeAngle": 10.0}'),
    ('setCruiseControl(speed=67, activate=True, distanceToNextVehicle=40)',
     '{"error": "Invalid speed"}'),
    ('setCruiseControl(speed=65, activate=True, distanceToNextVehicle=40)',
     '{"cruiseStatus": "active", "currentSpeed": 65.0, "distanceToNextVehicle": 40.0}'),
    ('get_outside_temperature_from_google()',
     '{"outsideTemperature": 6.191638241658119}'),
    ('get_current_speed()',
     '{"currentSpeed": 18.10190087094023}'),
    ('get_outside_temperature_from_weather_com()',
     '{"error": 404}'),
    ("estimate_distance(cityA='74532', cityB='83214')",
     '{"distance": 750.0}'),
    ("estimate_distance(cityA='1', cityB='2')",
     '{"error": "distance not found in database."}'),
    ("get_zipcode_based_on_city(city='Nowhere')",
     '{"zipcode": "00000"}'),
    ('estimate_drive_feasibility_by_mileage(distance=300)',
     '{"canDrive": true}'),
    ('liter_to_gallon(liter=10)',
     '{"gallon": 2.6417200000000003}'),
    ("set_navigation(destination='1 Main St, Rivermist, CA')",
     '{"status": "Navigating to 1 Main St, Rivermist, CA"}'),
    ('check_tire_pressure()',
     '{"frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, "rearLeftTirePressure": 30.0, "rearRightTirePressure": 30.0, "healthy_tire_pressure": true, "car_info": {}}'),
    ("lockDoors(unlock=True, door=['trunk'])",
     "Error during execution: 'trunk'"),
    ("setHeadlights(mode='blink')",
     '{"error": "Invalid headlight mode."}'),
    ("display_log(messages=['a', 'b'])",
     '{"log": ["a", "b"]}'),
]
BFCL_MATH_OUTPUTS = [
    ('logarithm(value=100, base=10, precision=5)',
     "{'result': mpf('2.0')}"),
    ('logarithm(value=2, base=3, precision=20)',
     "{'result': mpf('0.63092975357145743709863')}"),
    ('square_root(number=2, precision=10)',
     "{'result': Decimal('1.414213562')}"),
    ('square_root(number=-1, precision=10)',
     '{"error": "Cannot calculate square root of a negative number"}'),
    ('mean(numbers=[1, 2, 4])',
     '{"result": 2.3333333333333335}'),
    ('standard_deviation(numbers=[1, 2, 4])',
     '{"result": 1.247219128924647}'),
    ('mean(numbers=[])',
     '{"error": "Cannot calculate mean of an empty list"}'),
    ("si_unit_conversion(value=3, unit_in='km', unit_out='mm')",
     '{"result": 3000000.0}'),
    ("imperial_si_conversion(value=100, unit_in='fahrenheit', unit_out='celsius')",
     '{"result": 37.77777777777778}'),
    ("imperial_si_conversion(value=1, unit_in='kg', unit_out='stone')",
     '{"error": "Conversion from \'kg\' to \'stone\' is not supported"}'),
    ('divide(a=1, b=0)',
     '{"error": "Cannot divide by zero"}'),
    ("add(a='1', b=2)",
     '{"error": "Both inputs must be numbers"}'),
    ("multiply(a='1', b=2)",
     '{"error": "Both inputs must be numbers"}'),
    ('round_number(number=3.14159, decimal_places=2)',
     '{"result": 3.14}'),
    ('percentage(part=1, whole=3)',
     '{"result": 33.33333333333333}'),
    ('power(base=2, exponent=0.5)',
     '{"result": 1.4142135623730951}'),
    ('sum_values(numbers=[1.5, 2])',
     '{"result": 3.5}'),
]

# Generated the same way from BFCL's MessageAPI and TwitterAPI, each from its default state.
BFCL_MESSAGE_OUTPUTS = [
    ("send_message(receiver_id='USR002', message='hi')",
     '{"error": "No user is currently logged in."}'),
    ("message_login(user_id='USR009')",
     '{"login_status": false, "message": "User ID \'USR009\' not found."}'),
    ("message_login(user_id='USR001')",
     '{"login_status": true, "message": "User \'USR001\' logged in successfully."}'),
    ("send_message(receiver_id='USR009', message='hi')",
     '{"error": "Receiver ID \'USR009\' not found."}'),
    ("send_message(receiver_id='USR002', message='Budget is ready')",
     '{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to \'USR002\' successfully."}'),
    ("send_message(receiver_id='USR003', message='see you')",
     '{"sent_status": true, "message_id": {"new_id": 41772}, "message": "Message sent to \'USR003\' successfully."}'),
    ("add_contact(user_name='Eve')",
     '{"added_status": true, "user_id": "USR005", "message": "Contact \'Eve\' added successfully."}'),
    ("add_contact(user_name='Bob')",
     '{"error": "User name \'Bob\' already exists."}'),
    ("get_user_id(user='Zed')",
     '{"error": "User \'Zed\' not found in the workspace."}'),
    ('list_users()',
     '{"user_list": ["Alice", "Bob", "Catherine", "Daniel", "Eve"]}'),
    ("delete_message(receiver_id='USR003')",
     '{"deleted_status": true, "receiver_id": "USR003", "message": "Receiver USR003\'s latest message deleted successfully."}'),
    ("delete_message(receiver_id='USR777')",
     '{"error": "Receiver ID USR777 not found."}'),
    ('view_messages_sent()',
     '{"messages": {"USR002": ["My name is Alice. I want to connect.", "Budget is ready"], "USR003": ["Could you upload the file?"], "USR004": ["Could you upload the file?"]}}'),
    ("search_messages(keyword='BUDGET')",
     '{"results": [{"receiver_id": "USR002", "message": "Budget is ready"}]}'),
    ('get_message_stats()',
     '{"stats": {"received_count": 4, "total_contacts": 3}}'),
    ('message_get_login_status()',
     '{"login_status": true}'),
]
BFCL_TWITTER_OUTPUTS = [
    ("post_tweet(content='x')",
     '{"error": "User not authenticated. Please authenticate before posting."}'),
    ("authenticate_twitter(username='john', password='nope')",
     '{"authentication_status": false}'),
    ("authenticate_twitter(username='john', password='john123')",
     '{"authentication_status": true}'),
    ("post_tweet(content='Launch day', tags=['#launch'], mentions=['@bob'])",
     '{"id": 0, "username": "john", "content": "Launch day", "tags": ["#launch"], "mentions": ["@bob"]}'),
    ('retweet(tweet_id=0)',
     '{"retweet_status": "Successfully retweeted"}'),
    ('retweet(tweet_id=0)',
     '{"retweet_status": "Already retweeted"}'),
    ('retweet(tweet_id=42)',
     '{"error": "Tweet with ID 42 not found."}'),
    ("comment(tweet_id=0, comment_content='Great!')",
     '{"comment_status": "Comment added successfully"}'),
    ("mention(tweet_id=0, mentioned_usernames=['@carol'])",
     '{"mention_status": "Users mentioned successfully"}'),
    ("follow_user(username_to_follow='alice')",
     '{"follow_status": false}'),
    ("follow_user(username_to_follow='dave')",
     '{"follow_status": true}'),
    ("unfollow_user(username_to_unfollow='zed')",
     '{"unfollow_status": false}'),
    ('list_all_following()',
     '{"following_list": ["alice", "bob", "dave"]}'),
    ('get_tweet(tweet_id=0)',
     '{"id": 0, "username": "john", "content": "Launch day", "tags": ["#launch"], "mentions": ["@bob", "@carol"]}'),
    ('get_tweet(tweet_id=5)',
     '{"error": "Tweet with ID 5 not found."}'),
    ("get_user_tweets(username='john')",
     "[{'id': 0, 'username': 'john', 'content': 'Launch day', 'tags': ['#launch'], 'mentions': ['@bob', '@carol']}]"),
    ("search_tweets(keyword='#LAUNCH')",
     "[{'id': 0, 'username': 'john', 'content': 'Launch day', 'tags': ['#launch'], 'mentions': ['@bob', '@carol']}]"),
    ('get_tweet_comments(tweet_id=0)',
     "[{'username': 'john', 'content': 'Great!'}]"),
    ('get_tweet_comments(tweet_id=9)',
     '{"error": "Tweet with ID 9 not found."}'),
    ("get_user_stats(username='john')",
     '{"tweet_count": 1, "following_count": 3, "retweet_count": 1}'),
    ('posting_get_login_status()',
     '{"login_status": true}'),
]


@pytest.mark.parametrize("involved, config, expected", [
    (["VehicleControlAPI"], {"VehicleControlAPI": VEHICLE_CONFIG}, BFCL_VEHICLE_OUTPUTS),
    (["MathAPI"], {}, BFCL_MATH_OUTPUTS),
    (["MessageAPI"], {}, BFCL_MESSAGE_OUTPUTS),
    (["TwitterAPI"], {}, BFCL_TWITTER_OUTPUTS),
], ids=["vehicle", "math", "message", "twitter"])
def test_api_outputs_equal_bfcls(involved, config, expected):
    instances = make_instances(involved, config, long_context=False)
    for text, output in expected:
        assert run_call(instances, *parse_ground_truth_call(text, involved)) == output, text


def test_long_context_vehicle_adds_bfcls_texts():
    instances = make_instances(["VehicleControlAPI"], {}, long_context=True)
    status = json.loads(run_call(instances, "displayCarStatus", {"option": "fuel"}))
    assert list(status) == ["metadata", "fuelLevel"] and len(status["metadata"]) > 5000
    brake = json.loads(run_call(instances, "activateParkingBrake", {"mode": "engage"}))
    assert brake["parkingBrakeInstruction"].startswith("The parking brake, also commonly referred to as the handbrake")
    assert instances["VehicleControlAPI"].state()["long_context"] is True


def test_oracle_passes_every_official_multi_turn_task(official_data):
    folder = official_data / "bfcl"
    ran = 0
    start = time.process_time()
    for category in MULTI_TURN_CATEGORIES:
        for task in load_multi_turn_tasks(folder, category):
            if not all(name in API_CLASSES for name in task.involved_classes):
                continue
            for scoring in ("paper", "paper_compat"):
                metrics = _oracle(task, scoring)
                assert metrics["success"] == 1 and metrics["turns_passed"] == len(task.turns), (task.id, metrics)
            ran += 1
    assert ran == 800
    assert time.process_time() - start < 60


def test_a_raising_call_rolls_back_under_paper_and_keeps_bfcls_half_change_under_paper_compat():
    task = MultiTurnTask(id="v", category="multi_turn_base", turns=[[{"role": "user", "content": "go"}]],
                         involved_classes=["VehicleControlAPI"], initial_config={}, long_context=False,
                         ground_truth=[["set_navigation(destination='1 Main St')"]], missed_functions={}, functions=[])
    for scoring, destination in (("paper", "None"), ("paper_compat", 7)):
        episode = MultiTurnEpisode(task, scoring=scoring)
        assert episode.execute("set_navigation", {"destination": 7}) == \
            'Error during execution: can only concatenate str (not "int") to str'
        assert episode._model["VehicleControlAPI"].state()["destination"] == destination


# From BFCL's GorillaFileSystem on this tree: mv keeps a folder's children (whose parent is still the
# folder they were made in), cp shares them, pwd names the root, cd '..' returns {}.
FILE_TREE = {"root": {"alex": {"type": "directory", "contents": {
    "docs": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "b line\na line\n"}}},
    "empty": {"type": "directory", "contents": {}}}}}}
BFCL_FILE_SYSTEM_OUTPUTS = [
    ("pwd()", '{"current_working_directory": "/alex"}'),
    ("ls()", '{"current_directory_content": ["docs", "empty"]}'),
    ("mkdir(dir_name='docs')", '{"error": "mkdir: cannot create directory \'docs\': File exists"}'),
    ("mkdir(dir_name='a:b')", '{"error": "mkdir: cannot create directory \'a:b\': Invalid character"}'),
    ("mkdir(dir_name='new')", "None"),
    ("cd(folder='docs/x')", '{"error": "cd: docs/x: Unsupported path. Only one folder level at a time is supported."}'),
    ("cd(folder='docs')", '{"current_working_directory": "docs"}'),
    ("pwd()", '{"current_working_directory": "/alex/docs"}'),
    ("sort(file_name='a.txt')", '{"sorted_content": "a line\\nb line"}'),
    ("wc(file_name='a.txt', mode='w')", '{"count": 4, "type": "words"}'),
    ("tail(file_name='a.txt', lines=1)", '{"last_lines": "a line"}'),
    ("echo(content='z', file_name='nope.txt')", '{"error": "echo: cannot write to \'nope.txt\': No such file"}'),
    ("cd(folder='..')", "{}"),
    ("cd(folder='..')", '{"error": "Current directory is already the root. Cannot go back."}'),
    ("mv(source='docs', destination='empty')", '{"result": "\'docs\' moved to \'empty/docs\'"}'),
    ("find(path='.', name='a')", '{"matches": ["./empty/docs/a.txt"]}'),
    ("cd(folder='empty')", '{"current_working_directory": "empty"}'),
    ("cp(source='docs', destination='copy')", '{"result": "\'docs\' copied to \'copy\'"}'),
    ("du(human_readable=True)", '{"disk_usage": "28.00 B"}'),
    ("rmdir(dir_name='docs')", '{"error": "rmdir: cannot remove \'docs\': Directory not empty"}'),
    ("cat(file_name='docs')", '{"error": "cat: \'docs\': Is a directory"}'),
    ("diff(file_name1='docs', file_name2='copy')", '{"error": "diff: docs or copy: No such file or directory"}'),
    ("find(path='nowhere')", "{\"error\": \"find: 'nowhere': No such file or directory\"}"),
    # BFCL writes with the item's _write, which only its File class has.
    ("echo(content='z', file_name='docs')", "Error during execution: 'Directory' object has no attribute '_write'"),
]


def test_file_system_outputs_equal_bfcls():
    instances = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": FILE_TREE}, long_context=False)
    for text, output in BFCL_FILE_SYSTEM_OUTPUTS:
        assert run_call(instances, *parse_ground_truth_call(text, ["GorillaFileSystem"])) == output, text


def test_the_file_system_is_rows_that_keep_bfcls_shared_listings_and_files():
    instances = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": FILE_TREE}, long_context=False)
    for text in ["cp(source='docs', destination='copy')", "cd(folder='copy')", "echo(content='new', file_name='a.txt')",
                 "cd(folder='..')", "mv(source='docs', destination='empty')"]:
        run_call(instances, *parse_ground_truth_call(text, ["GorillaFileSystem"]))
    sql = instances["GorillaFileSystem"]._sql
    assert sql.execute("SELECT COUNT(*) FROM files").fetchone() == (1,)  # the copy holds the same file
    # empty/docs is a new folder showing the moved folder's very listing (BFCL's shared contents dict)
    assert sql.execute("SELECT name, listing FROM folders ORDER BY position").fetchall() == [
        ('"alex"', "1"), ('"docs"', "2"), ('"empty"', "3"), ('"copy"', "4"), ('"docs"', "2")]
    root = instances["GorillaFileSystem"].state()["root"]
    assert root.contents["empty"].contents["docs"].contents["a.txt"].content == "new"
    assert repr(root) == ("<Directory: alex, Parent: None, Contents: {'empty': <Directory: empty, Parent: alex, "
                          "Contents: {'docs': <Directory: docs, Parent: empty, Contents: {'a.txt': <<File: a.txt, "
                          "Content: new>>}>}>, 'copy': <Directory: copy, Parent: alex, Contents: {'a.txt': <<File: "
                          "a.txt, Content: new>>}>}>")


def test_miss_func_reveals_held_out_functions_at_their_turn(official_data):
    task = load_multi_turn_tasks(official_data / "bfcl", "multi_turn_miss_func")[0]
    episode = MultiTurnEpisode(task)
    offered = []
    while not episode.done:
        offered.append("sort" in {doc["name"] for doc in episode.functions()})
        for name, arguments in episode.oracle_calls():
            episode.execute(name, arguments)
        episode.end_turn()
    assert offered == [False, False, False, True, True] and episode.metrics()["success"] == 1


def test_oversized_work_is_refused_before_it_starts():
    instances = make_instances(["MathAPI"], {}, long_context=False)
    start = time.process_time()
    assert run_call(instances, "power", {"base": 10, "exponent": 10**9}).startswith(
        "Error during execution: Exceeds the limit (4300 digits) for integer string conversion")
    assert run_call(instances, "power", {"base": 10, "exponent": 5000}) == run_call(
        instances, "power", {"base": 10, "exponent": 10**9})  # computed, then unprintable, as in BFCL
    assert run_call(instances, "square_root", {"number": 2, "precision": 10**9}) == \
        "Error during execution: precision above 10000 digits is not supported"
    assert "nests more than 32 levels" in run_call(instances, "mean", {"numbers": nested_list(40)})
    assert "more than 10000 values" in run_call(instances, "sum_values", {"numbers": [1] * 20_000})
    assert time.process_time() - start < 10


def nested_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _play_calls(task, turns_of_calls, scoring="paper"):
    episode = MultiTurnEpisode(task, scoring=scoring)
    for calls in turns_of_calls:
        for name, arguments in calls:
            episode.execute(name, arguments)
        episode.end_turn()
    return episode.metrics()


def test_perturbed_official_answers_fail_with_the_check_named(official_data):
    folder = official_data / "bfcl"
    for category in MULTI_TURN_CATEGORIES:
        for task in load_multi_turn_tasks(folder, category)[:5]:
            truth = [[parse_ground_truth_call(c, task.involved_classes) for c in turn] for turn in task.ground_truth]
            first = next(i for i, turn in enumerate(truth) if turn)
            dropped = [turn[:-1] if i == first else turn for i, turn in enumerate(truth)]
            metrics = _play_calls(task, dropped)
            assert metrics["success"] == 0 and metrics["failing_turn"] == first, (task.id, metrics)
            assert metrics["failing_check"] in {"state", "response", "empty_turn"}
    # miss_func_0: turn 2 asks for a sort before sort is offered; its ground truth is empty.
    task = load_multi_turn_tasks(folder, "multi_turn_miss_func")[0]
    truth = [[parse_ground_truth_call(c, task.involved_classes) for c in turn] for turn in task.ground_truth]
    truth[2] = [("ls", {})]
    paper = _play_calls(task, truth)
    assert (paper["success"], paper["failing_turn"], paper["failing_check"]) == (0, 2, "irrelevance")
    assert _play_calls(task, truth, scoring="paper_compat")["success"] == 1
    # A changed argument in a state-changing call: the state check names it.
    truth = [[parse_ground_truth_call(c, task.involved_classes) for c in turn] for turn in task.ground_truth]
    assert truth[0][1] == ("mkdir", {"dir_name": "temp"})
    truth[0][1] = ("mkdir", {"dir_name": "tmp"})
    assert _play_calls(task, truth)["failing_check"] == "state"


def test_a_moved_folders_children_still_know_their_old_parent_as_in_bfcl():
    tree = {"root": {"alex": {"type": "directory", "contents": {
        "a": {"type": "directory", "contents": {"b": {"type": "directory", "contents": {}}}},
        "c": {"type": "directory", "contents": {}}}}}}
    instances = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": tree}, long_context=False)
    for name, arguments in [("mv", {"source": "a", "destination": "c"}), ("cd", {"folder": "c"}),
                            ("cd", {"folder": "a"}), ("cd", {"folder": "b"}), ("cd", {"folder": ".."})]:
        run_call(instances, name, arguments)
    # From BFCL's class: b's parent is the folder it was made in, which mv left detached.
    assert run_call(instances, "pwd", {}) == '{"current_working_directory": "/alex/a"}'


def test_table_values_come_back_with_their_python_types_and_order():
    values = [{"b": 1, "a": 1.0, 3: "int key", "3": "str key", (1, 2): [True, None]}, [1, 1.0, "1"], (1,), {2, 3},
              frozenset({4}), ..., "é\n\"", -7, 10**30, 2.5e-300, {"l": [1]}, {"d": {}}, []]
    for value in values:
        back = load(dump(value))
        assert back == value and repr(back) == repr(value), value
        assert type(back) is type(value)


def test_api_state_is_rows_and_a_failing_call_rolls_back_rows_and_random_stream_under_paper():
    config = {"MessageAPI": {"current_user": "USR001", "user_map": {"Alice": "USR001", "Odd": ["USR9"]}}}
    first_id = json.loads(run_call(make_instances(["MessageAPI"], config, long_context=False), "send_message",
                                   {"receiver_id": "USR001", "message": "hi"}))["message_id"]
    for rollback, drawn in ((True, 0), (False, 1)):
        instances = make_instances(["MessageAPI"], config, long_context=False)
        sql = instances["MessageAPI"]._sql
        # BFCL draws the message id, then fails to use a list as a dict key
        assert run_call(instances, "send_message", {"receiver_id": ["USR9"], "message": "hi"}, rollback=rollback) \
            == "Error during execution: unhashable type: 'list'"
        assert sql.execute("SELECT COUNT(*) FROM message_ids").fetchone() == (drawn,)
        sent = json.loads(run_call(instances, "send_message", {"receiver_id": "USR001", "message": "hi"}))
        assert (sent["message_id"] == first_id) == rollback  # the id stream was rolled back with the call
    assert sql.execute("SELECT record FROM sent_messages ORDER BY position DESC LIMIT 1").fetchone() == \
        ('{"d": [["USR001", "hi"]]}',)
    assert instances["MessageAPI"].state()["inbox"][-1] == {"USR001": "hi"}
    assert instances["MessageAPI"].state()["user_map"] == {"Alice": "USR001", "Odd": ["USR9"]}


def test_worlds_of_one_scenario_are_copies_that_do_not_share_changes():
    config = {"TicketAPI": {"ticket_queue": [{"id": 1, "status": "Open"}], "current_user": "alice"}}
    first = make_instances(["TicketAPI"], config, long_context=False)
    second = make_instances(["TicketAPI"], config, long_context=False)  # copied from the first's loaded image
    run_call(first, "close_ticket", {"ticket_id": 1})
    assert first["TicketAPI"].state()["ticket_queue"] == [{"id": 1, "status": "Closed"}]
    assert second["TicketAPI"].state() == {"ticket_queue": [{"id": 1, "status": "Open"}], "ticket_counter": 1,
                                           "current_user": "alice"}


def test_a_setting_read_once_is_the_databases_after_a_rollback_a_restore_and_a_change_to_what_was_read():
    instances = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": {"root": {"alex": {
        "type": "directory", "contents": {}}}}}, False)
    files = instances["GorillaFileSystem"]
    world = files._world
    snapshot = world.snapshot()
    with pytest.raises(ValueError):
        with world.atomic():
            files._set("cwd", 2)
            assert files._get("cwd") == 2
            raise ValueError("the call fails")
    assert files._get("cwd") == 1
    with world.atomic():
        files._set("cwd", [2])
    read = files._get("cwd")
    read.append(3)  # a fresh value at each read
    assert files._get("cwd") == [2]
    world.restore(snapshot)
    assert files._get("cwd") == 1


def test_an_ended_episodes_worlds_are_reused_and_hold_the_new_episodes_scenario_only():
    """A closed episode hands its worlds back; the next episode's worlds hold its own scenario only
    (a scenario never loaded before, loaded into an emptied world; one loaded before, restored),
    and a read there runs its own statements and nothing else."""
    from toolgym.worlds.bfcl.apis import _SPARE_WORLDS

    tree = {"root": {"home": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "A"}}}}}
    first = MultiTurnEpisode(_file_system_task(tree=tree))
    first.start_step()
    assert first.execute("touch", {"file_name": "new.txt"}) == "None"
    worlds = {id(first._model["GorillaFileSystem"]._world), id(first._truth["GorillaFileSystem"]._world)}
    first.close()
    assert worlds <= {id(world) for world in _SPARE_WORLDS}
    other_tree = {"root": {"work": {"type": "directory", "contents": {}}}}
    for tree_now, listing in ((other_tree, []), (tree, ["a.txt"])):  # loaded into an emptied world; restored
        episode = MultiTurnEpisode(_file_system_task(tree=tree_now))
        assert id(episode._model["GorillaFileSystem"]._world) in worlds
        episode.start_step()
        assert json.loads(episode.execute("ls", {})) == {"current_directory_content": listing}
        assert episode.oracle_calls() == [("ls", {})]
        episode.close()
    again = MultiTurnEpisode(_file_system_task(tree=tree))  # the world already holds this scenario
    sql = again._model["GorillaFileSystem"]._world.sql()
    statements = []
    sql.set_trace_callback(statements.append)
    again.start_step()
    assert json.loads(again.execute("ls", {})) == {"current_directory_content": ["a.txt"]}
    sql.set_trace_callback(None)
    assert len(statements) == 1 and "FROM entries" in statements[0]  # the directory's setting known from the restore
    again.close()


def test_a_kept_world_takes_a_loaded_scenario_as_rows_on_its_own_connection():
    """A scenario loaded before is written back into a kept world as rows (``BfclWorld.restore_rows``):
    the tables another scenario filled are emptied, the state (rows, streams, clock) is the loaded
    one's, the connection keeps its schema (no image is read in: a write's size check then runs its
    one statement), and a world that still holds the scenario unchanged runs no statement at all."""
    from toolgym.worlds.bfcl.apis import _LOADED, release_instances
    from toolgym.worlds.bfcl.world import _filled_tables

    tickets = {"TicketAPI": {"ticket_queue": [{"id": 1, "status": "Open"}], "current_user": "alice"}}
    loaded = make_instances(["TicketAPI"], tickets, long_context=False)
    loaded_hash = loaded["TicketAPI"]._world.state_hash()
    other = make_instances(["MessageAPI", "TwitterAPI"], {}, long_context=False)
    world = other["MessageAPI"]._world
    assert json.loads(run_call(other, "add_contact", {"user_name": "Zed"}))["user_id"] == "USR005"
    filled_by_other = set(_filled_tables(world.sql()))
    assert {"contacts", "follows", "settings"} <= filled_by_other, filled_by_other  # the tickets' scenario has none
    release_instances(other)
    statements = []
    world.sql().set_trace_callback(statements.append)
    try:
        again = make_instances(["TicketAPI"], tickets, long_context=False)
        restored = list(statements)
        assert again["TicketAPI"]._world is world
        assert world.state_hash() == loaded_hash
        statements.clear()
        assert json.loads(run_call(again, "close_ticket", {"ticket_id": 1})) == {
            "status": "Ticket 1 has been closed successfully."}
        assert "PRAGMA page_count" in statements and "PRAGMA page_size" not in statements
        release_instances(again)
        statements.clear()
        unchanged = make_instances(["TicketAPI"], tickets, long_context=False)
        assert unchanged["TicketAPI"]._world is world and world.state_hash() == loaded_hash
        statements.clear()
        release_instances(unchanged)
        third = make_instances(["TicketAPI"], tickets, long_context=False)  # nothing written since: nothing to do
        assert third["TicketAPI"]._world is world and not statements
    finally:
        world.sql().set_trace_callback(None)
    deletes = [s for s in restored if s.startswith("DELETE")]
    inserts = [s for s in restored if s.startswith("INSERT")]
    assert sorted(s.split('"')[1] for s in deletes) == sorted(filled_by_other)  # each filled table once
    assert len(inserts) == sum(map(len, _LOADED[json.dumps([["TicketAPI"], tickets, False])][1].values())) == 3
    assert len(restored) <= 1 + len(deletes) + len(inserts) + 2, restored  # the filled tables' query, COMMITs


def test_a_closed_env_hands_its_multi_turn_worlds_back_and_a_later_step_says_the_episode_is_over():
    from toolgym.envs.bfcl.env import BFCLEnv
    from toolgym.worlds.bfcl.apis import _SPARE_WORLDS

    env = BFCLEnv(category="multi_turn_base")
    env.reset(options={"task_index": 0})
    world = next(api._world for api in env.episode._model.values() if hasattr(api, "_world"))
    env.close()
    assert any(spare is world for spare in _SPARE_WORLDS)
    observation, reward, terminated, _, info = env.step("[ls()]")
    assert terminated and reward == 0.0 and "the episode is over" in observation


# -- budgets on sums: a step's and a turn's calls and work, a world's bytes, walks without recursion --
def _file_system_task(turns: int = 1, tree: dict | None = None) -> MultiTurnTask:
    tree = tree or {"root": {"home": {"type": "directory", "contents": {}}}}
    return MultiTurnTask(id="fs", category="multi_turn_base", turns=[[{"role": "user", "content": "x"}]] * turns,
                         involved_classes=["GorillaFileSystem", "MathAPI"],
                         initial_config={"GorillaFileSystem": tree}, ground_truth=[["ls()"]] * turns,
                         missed_functions={}, functions=[], long_context=False)


def test_a_steps_and_a_turns_calls_and_work_are_budgeted_and_refused_calls_never_run():
    from toolgym.envs.bfcl.multi_turn import MAX_CALLS_PER_STEP, MAX_WORK_PER_STEP, MAX_WORK_PER_TURN

    for scoring in ("paper", "paper_compat"):
        episode = MultiTurnEpisode(_file_system_task(), scoring=scoring)
        world = episode._model["GorillaFileSystem"]._world
        episode.start_step()
        results = [episode.execute("touch", {"file_name": f"f{i}"}) for i in range(MAX_CALLS_PER_STEP)]
        assert results == ["None"] * MAX_CALLS_PER_STEP
        before = world.state_hash()
        assert episode.execute("touch", {"file_name": "late"}) == (
            "Error during execution: the call did not run: more than 200 calls in one step is over toolgym's budget")
        assert world.state_hash() == before
        episode.start_step()  # the next step has its own budget
        assert episode.execute("touch", {"file_name": "late"}) == "None"
    # Work: a precision costs its digits (a logarithm at 10,000 digits takes 0.16 s; a step of 2,000 took minutes).
    episode = MultiTurnEpisode(_file_system_task(), scoring="paper")
    start = time.process_time()
    ran = []
    for _ in range(MAX_WORK_PER_TURN // MAX_WORK_PER_STEP + 1):
        episode.start_step()
        ran.append(sum(not episode.execute("square_root", {"number": 2, "precision": 10_000}).startswith("Error")
                       for _ in range(2_000)))
    # Each costs 10,000 units and its 10,030-character result 100 more: 4 fit in a step's 50,000,
    # 19 in a turn's 200,000
    assert ran == [4, 4, 4, 4, 3]
    episode.start_step()
    assert episode.execute("square_root", {"number": 2, "precision": 10_000}) == (
        "Error during execution: the call did not run: more than 200000 work units in one turn is over "
        "toolgym's budget")
    assert episode.execute("square_root", {"number": 2, "precision": 3}) == "{'result': Decimal('1.41')}"
    assert time.process_time() - start < 30  # 19 square roots run (0.03 s each unloaded), 9,981 refused
    episode.end_turn()  # (the episode's one turn; a new turn's budget is fresh, as the step's above)


def test_round_number_with_a_huge_negative_precision_is_bfcls_zero_without_computing_the_power():
    instances = make_instances(["MathAPI"], {}, long_context=False)
    start = time.process_time()
    assert run_call(instances, "round_number", {"number": 5, "decimal_places": -10**8}) == '{"result": 0}'
    assert run_call(instances, "round_number", {"number": -2**63, "decimal_places": -10**18}) == '{"result": 0}'
    assert run_call(instances, "round_number", {"number": 5.5, "decimal_places": -10**8}) == '{"result": 0.0}'
    assert time.process_time() - start < 2  # 10**(10**7) alone took 9.6 s
    # Below the number's length Python's (and BFCL's) own rounding answers
    assert [run_call(instances, "round_number", {"number": n, "decimal_places": -1}) for n in (15, 25, -35)] == \
        ['{"result": 20}', '{"result": 20}', '{"result": -40}']


def test_a_tree_thousands_of_folders_deep_is_graded_and_walked_without_recursion():
    """2,800 mkdir/cd pairs made the turn's end raise RecursionError out of env.step."""
    episode = MultiTurnEpisode(_file_system_task(turns=4), scoring="paper")
    start = time.process_time()
    for _ in range(3):  # 1,500 folders deep over three turns, each within the turn's budget
        for _ in range(5):
            episode.start_step()
            for _ in range(100):
                episode.execute("mkdir", {"dir_name": "d"})
                episode.execute("cd", {"folder": "d"})
        assert episode.end_turn()["check"] == "state"
    model = episode._model["GorillaFileSystem"]
    assert json.loads(run_call(episode._model, "pwd", {}))["current_working_directory"] == "/home" + "/d" * 1500
    run_call(episode._model, "touch", {"file_name": "bottom.txt"})  # in the deepest folder, where cwd still is
    assert run_call(episode._model, "cd", {"folder": "/"}) == '{"current_working_directory": "home"}'
    assert run_call(episode._model, "find", {"name": "bottom"}) == \
        json.dumps({"matches": ["." + "/d" * 1500 + "/bottom.txt"]})
    # Every folder's path: 2.25 million characters in all, past find's bound on what it returns
    assert run_call(episode._model, "find", {"name": "d"}) == \
        "Error during execution: find: the matches under '.' pass 1000000 characters"
    assert run_call(episode._model, "du", {}) == '{"disk_usage": "0 bytes"}'
    root = model.state()["root"]
    assert root == model.state()["root"] and root != episode._truth["GorillaFileSystem"].state()["root"]
    assert repr(root).startswith("<Directory: home, Parent: None, Contents: {'d': <Directory: d, Parent: home")
    assert time.process_time() - start < 30


def test_a_folder_copied_into_itself_is_walked_to_a_bound_and_compared_without_end():
    """BFCL's cp of a folder into itself makes it hold itself, as here; find and du stop with an error."""
    task = _file_system_task(tree={"root": {"home": {"type": "directory", "contents": {
        "a": {"type": "directory", "contents": {"f": {"type": "file", "content": "xy"}}}}}}})
    episode = MultiTurnEpisode(task, scoring="paper_compat")
    episode.start_step()
    assert episode.execute("cp", {"source": "a", "destination": "a"}) == '{"result": "\'a\' copied to \'a/a\'"}'
    start = time.process_time()
    for name, arguments in (("find", {"name": "nothing"}), ("du", {})):
        assert episode.execute(name, arguments) == (
            "Error during execution: the tree below this folder holds more than 10000 entries "
            "(a folder copied into itself holds itself)")
    assert episode.execute("find", {}) == "Error during execution: find: the matches under '.' pass 1000000 characters"
    state = episode._model["GorillaFileSystem"].state()
    assert state["root"] == state["root"]  # a pair met again on the cycle counts as equal
    assert len(repr(state["root"])) == 100_003
    assert episode.end_turn()["check"] == "state"
    assert time.process_time() - start < 10


def test_copies_that_would_pass_the_worlds_byte_limit_are_undone_under_both_scorings():
    """cp of a 99 KB file 2,700 times per step grew the world by a gigabyte per step."""
    from toolgym.worlds.bfcl.world import MAX_WORLD_BYTES

    content = "x" * 99_000
    for scoring in ("paper", "paper_compat"):
        task = _file_system_task(tree={"root": {"home": {"type": "directory", "contents": {
            "big": {"type": "file", "content": content}}}}})
        episode = MultiTurnEpisode(task, scoring=scoring)
        world = episode._model["GorillaFileSystem"]._world
        episode.start_step()
        results = [episode.execute("cp", {"source": "big", "destination": f"c{i}"}) for i in range(200)]
        copied = sum(r.startswith('{"result"') for r in results)
        assert 100 < copied < 200 and world.stored_bytes() <= MAX_WORLD_BYTES
        refused = results[copied]
        assert refused.startswith("Error during execution: the call was undone: it would make the world ") and \
            refused.endswith(f"bytes, more than toolgym's limit of {MAX_WORLD_BYTES} bytes"), refused
        assert all(r.startswith("Error") for r in results[copied:])
        episode.start_step()
        before = world.state_hash()
        assert episode.execute("cp", {"source": "big", "destination": "late"}) == refused
        assert world.state_hash() == before and "late" not in episode.execute("ls", {})
        assert episode.execute("echo", {"content": "y" * 99_000, "file_name": "big"}) == "None"  # no growth: runs
        assert world.state_hash() != before


def test_a_steps_results_are_budgeted_by_their_size():
    """200 cat calls of a 99 KB file made a 20 MB observation; results cost a unit per 100 characters."""
    task = _file_system_task(tree={"root": {"home": {"type": "directory", "contents": {
        "big": {"type": "file", "content": "x" * 99_000}}}}})
    episode = MultiTurnEpisode(task)
    episode.start_step()
    results = [episode.execute("cat", {"file_name": "big"}) for _ in range(200)]
    shown = [r for r in results if r.startswith('{"file_content"')]
    assert len(shown) == 51 == 1 + 50_000 // (1 + 99_020 // 100)  # the last one runs within the budget, then pays
    assert results[51] == ("Error during execution: the call did not run: more than 50000 work units in one step "
                           "is over toolgym's budget")
    assert sum(map(len, results)) < 5_200_000


def test_folder_views_compare_as_bfcls_directories_by_names_and_contents():
    from toolgym.worlds.bfcl.gorilla_file_system import FileView, FolderView

    ours, theirs = FolderView("a", None), FolderView("a", None)
    assert ours == theirs and ours != FileView("a", "") and ours != "a"
    ours.contents["x"], theirs.contents["x"] = FileView("x", "1"), FolderView("x", theirs)
    assert ours != theirs and theirs != ours  # a file against a folder of the same name
    ours.contents["x"] = FolderView("x", None)  # the parent is not compared, as in BFCL
    assert ours == theirs
    theirs.contents["x"].contents["f"] = FileView("f", "")
    assert ours != theirs


def test_a_call_makes_a_bounded_number_of_sql_statements():
    """Counted on the world's sqlite3 connection: a read runs its own queries and nothing else (a
    call that wrote nothing leaves the world's size as it was, so it is not measured); a write
    adds its statements, the size check (the pages held: one statement, and the page size once per
    world) and the commit. A setting read once (the working directory) is not read again, nor
    an entry within a call that has not written since (``cat`` checks the name, then reads it)."""
    instances = make_instances(["GorillaFileSystem"], {"GorillaFileSystem": {"root": {"alex": {
        "type": "directory", "contents": {"f.txt": {"type": "file", "content": "hi"}}}}}}, False)
    sql = instances["GorillaFileSystem"]._world.sql()
    most = {"ls": 2, "pwd": 1, "cat": 2, "touch": 8, "echo": 5, "mkdir": 8}
    made = {}
    for name, arguments in (("ls", {}), ("pwd", {}), ("cat", {"file_name": "f.txt"}), ("touch", {"file_name": "g"}),
                            ("echo", {"content": "x", "file_name": "g"}), ("mkdir", {"dir_name": "d"})):
        statements = []
        sql.set_trace_callback(statements.append)
        try:
            made[name] = run_call(instances, name, arguments, rollback=False)
        finally:
            sql.set_trace_callback(None)
        assert len(statements) <= most[name], (name, statements)
        assert statements.count("PRAGMA page_count") == (name in ("touch", "echo", "mkdir")), statements
        assert statements.count("PRAGMA page_size") <= (name == "touch"), statements  # once per world
    assert made["cat"] == '{"file_content": "hi"}' and made["ls"] == '{"current_directory_content": ["f.txt"]}'


def test_a_positional_argument_reaches_the_function_as_a_missing_one_and_the_turn_goes_on():
    """BFCL's default_decode_execute_prompting keeps keywords only: its executor runs
    ``get_zipcode_based_on_city()`` and answers with Python's error; the turn continues."""
    from toolgym.envs.bfcl.env import BFCLEnv
    from toolgym.envs.bfcl.protocol import _call_texts
    from toolgym.worlds.bfcl.calls import CallSyntaxError, parse_calls

    assert parse_calls("get_zipcode_based_on_city('Rivermist')") == [("get_zipcode_based_on_city", {})]
    assert parse_calls("[f('x', *xs, b=2)]") == [("f", {"b": 2})]
    # the tool messages' names in a live run: BFCL's execution list for the same text
    assert _call_texts({"content": "[get_zipcode_based_on_city('Rivermist'), f('a', b=2)]"}) == [
        "get_zipcode_based_on_city()", "f(b=2)"]
    with pytest.raises(CallSyntaxError, match=r"\*\*arguments are not allowed"):  # the env's docstring names it
        parse_calls("[f(b=2, **kw)]")
    vehicle = make_instances(["VehicleControlAPI"], {}, long_context=False)
    assert run_call(vehicle, "get_zipcode_based_on_city", {}) == (
        "Error during execution: VehicleControlAPI.get_zipcode_based_on_city() missing 1 required positional "
        "argument: 'city'")
    for scoring in ("paper", "paper_compat"):
        env = BFCLEnv(category="multi_turn_base", scoring=scoring)
        env.reset(options={"task_index": 0})
        assert env.episode.task.involved_classes == ["TicketAPI"]
        observation, reward, terminated, _, _ = env.step("[create_ticket('VPN down')]")
        assert (observation, reward, terminated, env._turn_steps) == (
            "Error during execution: TicketAPI.create_ticket() missing 1 required positional argument: 'title'",
            0.0, False, 1)
        # the keyword is kept: the call runs (and wants a login) instead of missing its title
        observation, _, terminated, _, _ = env.step("[create_ticket('ignored', title='Disk')]")
        assert (observation, terminated, env._turn_steps) == (
            '{"error": "User not authenticated. Please log in to create a ticket."}', False, 2)
