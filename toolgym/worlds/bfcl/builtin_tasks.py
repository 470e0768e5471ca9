"""Seeded multi-turn tasks over the implemented BFCL APIs, each with its ground-truth calls.

Each task is a support-desk conversation on :class:`~toolgym.worlds.bfcl.ticket_api.TicketAPI`:
a queue of tickets from a seeded set of users, then four to six user turns drawn from
logging in, opening a ticket, looking one up, closing, resolving and editing one, and a turn
the API cannot serve (deleting a ticket), whose ground truth is empty. The ground truth is
written as BFCL writes it, call strings in BFCL's syntax; every call in it succeeds.
"""

from __future__ import annotations

import random

from toolgym.worlds.bfcl.api import function_doc
from toolgym.worlds.bfcl.ticket_api import TicketAPI

USERS = ["alice", "bob", "carol", "dmitri", "eun", "farah"]
TOPICS = ["Printer jam on floor 3", "VPN drops every hour", "Laptop battery swelling",
          "Cannot open payroll sheet", "Badge reader offline", "Monitor flickers", "Email bounces"]
TICKET_TASKS_PER_SEED = 200


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
    functions = [function_doc(TicketAPI, name) for name in TicketAPI.function_names()]
    return {"id": f"builtin_multi_turn_ticket_{index}", "category": "multi_turn_base",
            "turns": [[{"role": "user", "content": text}] for text in turns],
            "involved_classes": ["TicketAPI"], "initial_config": {"TicketAPI": config},
            "ground_truth": truth, "missed_functions": {}, "functions": functions, "long_context": False}


def generate_tasks(seed: int) -> list[dict]:
    """The built-in tasks for ``seed`` as MultiTurnTask fields; the same seed, the same tasks."""
    rng = random.Random(seed)
    return [_ticket_task(rng, index) for index in range(TICKET_TASKS_PER_SEED)]
