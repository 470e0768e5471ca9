"""Seeded multi-turn tasks over BFCL's APIs, each with its ground-truth calls.

Three kinds, in turn: a support-desk conversation on the TicketAPI (log in, open a ticket,
look one up, close, resolve or edit one), a drive on the VehicleControlAPI (lock up and start,
refuel, climate, navigation, tyres) and a tidy-up on the GorillaFileSystem (enter a folder,
make one, move a file into it, search and count a file). Each has a turn the APIs cannot
serve (deleting a ticket, opening the sunroof, e-mailing a file), whose ground truth is empty.
The ground truth is written as BFCL writes it, call strings in BFCL's syntax.
"""

from __future__ import annotations

import random

from toolgym.worlds.bfcl.api import function_doc
from toolgym.worlds.bfcl.gorilla_file_system import GorillaFileSystem
from toolgym.worlds.bfcl.ticket_api import TicketAPI
from toolgym.worlds.bfcl.vehicle_control import ZIPCODES, VehicleControlAPI

USERS = ["alice", "bob", "carol", "dmitri", "eun", "farah"]
TOPICS = ["Printer jam on floor 3", "VPN drops every hour", "Laptop battery swelling",
          "Cannot open payroll sheet", "Badge reader offline", "Monitor flickers", "Email bounces"]
TASKS_PER_KIND = 100
ALL_DOORS = ["driver", "passenger", "rear_left", "rear_right"]
FOLDERS = ["reports", "drafts", "archive", "notes", "projects"]
WORDS = ["budget", "roadmap", "invoice", "summary", "draft", "metrics"]


def _ticket_task(rng: random.Random, index: int) -> dict:
    user = rng.choice(USERS)
    queue = []
    for ticket_id in range(1, rng.randint(2, 5) + 1):
        queue.append({"id": ticket_id, "title": rng.choice(TOPICS), "description": "Reported by phone.",
                      "status": "Open", "priority": rng.randint(1, 5),
                      "created_by": rng.choice([user] + USERS)})
    config = {"ticket_queue": queue, "ticket_counter": len(queue) + 1, "current_user": None}
    turns, truth = [], []
    title = rng.choice(TOPICS)
    priority = rng.randint(1, 5)
    turns.append(f"Log me into the ticket system as {user} (password 'pw-{index}') and open a ticket "
                 f"titled '{title}', priority {priority}.")
    truth.append([f"ticket_login(username='{user}', password='pw-{index}')",
                  f"create_ticket(title='{title}', priority={priority})"])
    new_id = len(queue) + 1
    target = rng.randint(1, len(queue))
    moves = rng.sample(["get", "close", "resolve", "edit", "none"], k=rng.randint(3, 5))
    for move in moves:
        if move == "get":
            turns.append(f"What does ticket {target} say?")
            truth.append([f"get_ticket(ticket_id={target})"])
        elif move == "close":
            turns.append("Close the ticket I just opened.")
            truth.append([f"close_ticket(ticket_id={new_id})"])
        elif move == "resolve":
            turns.append(f"Mark ticket {target} resolved: 'Replaced the part.'")
            truth.append([f"resolve_ticket(ticket_id={target}, resolution='Replaced the part.')"])
        elif move == "edit":
            level = rng.randint(1, 5)
            turns.append(f"Set the priority of ticket {target} to {level}.")
            truth.append([f"edit_ticket(ticket_id={target}, updates={{'priority': {level}}})"])
        else:
            turns.append(f"Delete ticket {target} from the queue for good.")
            truth.append([])
    return _record(f"builtin_multi_turn_ticket_{index}", TicketAPI, config, turns, truth)


def _vehicle_task(rng: random.Random, index: int) -> dict:
    fuel = float(rng.randint(2, 30))
    config = {"fuelLevel": fuel, "batteryVoltage": 12.6, "random_seed": rng.randint(1, 10**6),
              "doorStatus": {door: rng.choice(["locked", "unlocked"]) for door in ALL_DOORS}}
    doors = ALL_DOORS
    turns = ["Lock every door, press the brake fully and start the engine."]
    truth = [[f"lockDoors(unlock=False, door={doors!r})", "pressBrakePedal(pedalPosition=1.0)",
              "startEngine(ignitionMode='START')"]]
    for move in rng.sample(["fuel", "climate", "navigate", "tyres", "none"], k=rng.randint(3, 5)):
        if move == "fuel":
            gallons = float(rng.randint(1, int(50 - fuel)))
            turns.append(f"Add {gallons:g} gallons of fuel.")
            truth.append([f"fillFuelTank(fuelAmount={gallons})"])
        elif move == "climate":
            degrees, speed = rng.randint(16, 26), rng.choice([20, 40, 60])
            turns.append(f"Set the cabin to {degrees} degrees Celsius with the fan at {speed}.")
            truth.append([f"adjustClimateControl(temperature={degrees}, unit='celsius', fanSpeed={speed})"])
        elif move == "navigate":
            city = rng.choice(sorted(ZIPCODES))
            turns.append(f"Navigate to 12 Elm Street, {city}.")
            truth.append([f"set_navigation(destination='12 Elm Street, {city}')"])
        elif move == "tyres":
            turns.append("How are my tyres doing?")
            truth.append(["check_tire_pressure()"])
        else:
            turns.append("Open the sunroof halfway.")
            truth.append([])
    return _record(f"builtin_multi_turn_vehicle_{index}", VehicleControlAPI, config, turns, truth)


def _file_system_task(rng: random.Random, index: int) -> dict:
    home, target = rng.sample(FOLDERS, k=2)
    word = rng.choice(WORDS)
    lines = [f"{rng.choice(WORDS)} line {n}" for n in range(rng.randint(2, 5))] + [f"{word} total {rng.randint(1, 99)}"]
    name = f"{word}_{index}.txt"
    config = {"root": {"user": {"type": "directory", "contents": {home: {"type": "directory", "contents": {
        name: {"type": "file", "content": "\n".join(lines)},
        "readme.md": {"type": "file", "content": "keep me"}}}}}}}
    turns = [f"Go into {home} and make a folder {target} there.",
             f"Move {name} into {target}.",
             f"In {target}, show me the lines of {name} that mention '{word}'."]
    truth = [[f"cd(folder='{home}')", f"mkdir(dir_name='{target}')"],
             [f"mv(source='{name}', destination='{target}')"],
             [f"cd(folder='{target}')", f"grep(file_name='{name}', pattern='{word}')"]]
    if rng.random() < 0.5:
        turns.append(f"E-mail {name} to my manager.")
        truth.append([])
    turns.append(f"How many lines does {name} have?")
    truth.append([f"wc(file_name='{name}', mode='l')"])
    return _record(f"builtin_multi_turn_files_{index}", GorillaFileSystem, config, turns, truth)


def _record(task_id: str, api: type, config: dict, turns: list[str], truth: list[list[str]]) -> dict:
    return {"id": task_id, "category": "multi_turn_base",
            "turns": [[{"role": "user", "content": text}] for text in turns],
            "involved_classes": [api.class_name], "initial_config": {api.class_name: config},
            "ground_truth": truth, "missed_functions": {},
            "functions": [function_doc(api, name) for name in api.function_names()], "long_context": False}


def generate_tasks(seed: int) -> list[dict]:
    """The built-in tasks for ``seed`` as MultiTurnTask fields; the same seed, the same tasks."""
    rng = random.Random(seed)
    return [make(rng, index) for make in (_ticket_task, _vehicle_task, _file_system_task)
            for index in range(TASKS_PER_KIND)]
