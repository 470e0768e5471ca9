"""Built-in τ-bench tasks: seeded templates over the generated airline and retail databases.

Each task has τ-bench v1's fields (``user_id``, ``instruction``, ``actions`` as
``{"name", "kwargs"}``, ``outputs``) plus ``id``, ``split`` and a ``user_scenario`` in the
first person for the scripted user. A template picks a record of the generated database
(a reservation, an order, a user) and a change to ask for; the ground-truth actions are the
reads an agent needs and the write, and ``outputs`` the numbers the agent must say. Every
fifth task is held out in ``test``; the rest are ``train``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolgym.worlds.tau2.tasks import CITIES, FIRST, airline_database, retail_database

#: Every ``TEST_EVERY``-th generated task is in the held-out ``test`` split.
TEST_EVERY = 5
CANCEL_REASONS = ("no longer needed", "ordered by mistake")


def _task(index: int, user_id: str, reason: str, known: str, actions: list[tuple[str, dict]],
          outputs: list[str] = ()) -> dict:
    instruction = f"{reason} {known}".strip()
    return {"id": f"builtin_{index}", "split": "test" if index % TEST_EVERY == 0 else "train", "user_id": user_id,
            "instruction": instruction, "actions": [{"name": n, "kwargs": k} for n, k in actions],
            "outputs": list(outputs),
            "user_scenario": {"persona": None, "instructions": {"domain": None, "reason_for_call": reason,
                                                                "known_info": known, "unknown_info": None,
                                                                "task_instructions": ""}}}


def _money(value: float) -> str:
    """A number as an agent would say it and v1's check reads it (no thousands separator)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def airline_tasks(seed: int, count: int = 240) -> list[dict]:
    """``count`` airline tasks over ``airline_database(seed)`` (one template chosen per task)."""
    db = airline_database(seed)
    rng = random.Random(f"taubench-airline-tasks-{seed}")
    reservations = [r for r in db["reservations"].values() if r.get("status") != "cancelled"]

    def card(user: dict) -> str:
        return next(p for p, m in user["payment_methods"].items() if m["source"] == "credit_card")

    def cancel(i):
        r = rng.choice(reservations)
        return _task(i, r["user_id"], f"I want to cancel my reservation {r['reservation_id']}.",
                     f"My user id is {r['user_id']}.",
                     [("get_reservation_details", {"reservation_id": r["reservation_id"]}),
                      ("cancel_reservation", {"reservation_id": r["reservation_id"]})])

    def bags(i):
        r = rng.choice(reservations)
        extra = rng.randint(1, 3)
        user = db["users"][r["user_id"]]
        return _task(i, r["user_id"], f"I want to add {extra} checked bag{'s' * (extra > 1)} to reservation "
                     f"{r['reservation_id']}, paid with my credit card.",
                     f"My user id is {r['user_id']}. The bags are not free.",
                     [("get_reservation_details", {"reservation_id": r["reservation_id"]}),
                      ("update_reservation_baggages", {"reservation_id": r["reservation_id"],
                                                       "total_baggages": r["total_baggages"] + extra,
                                                       "nonfree_baggages": r["nonfree_baggages"] + extra,
                                                       "payment_id": card(user)})],
                     [str(50 * extra)])

    def rename(i):
        r = rng.choice(reservations)
        new_first = rng.choice([f for f in FIRST if f != r["passengers"][0]["first_name"]])
        passengers = [dict(p) for p in r["passengers"]]
        passengers[0]["first_name"] = new_first
        old = r["passengers"][0]
        return _task(i, r["user_id"], f"I want to change the first name of passenger {old['first_name']} "
                     f"{old['last_name']} on reservation {r['reservation_id']} to {new_first}.",
                     f"My user id is {r['user_id']}. The date of birth stays {old['dob']}.",
                     [("get_reservation_details", {"reservation_id": r["reservation_id"]}),
                      ("update_reservation_passengers", {"reservation_id": r["reservation_id"],
                                                         "passengers": passengers})])

    def certificate(i):
        user = rng.choice(list(db["users"].values()))
        amount = rng.choice((50, 100, 150, 200))
        return _task(i, user["user_id"], f"My flight was delayed and I was promised a ${amount} certificate.",
                     f"My user id is {user['user_id']}.",
                     [("get_user_details", {"user_id": user["user_id"]}),
                      ("send_certificate", {"user_id": user["user_id"], "amount": amount})], [str(amount)])

    def paid(i):
        r = rng.choice(reservations)
        total = sum(p["amount"] for p in r["payment_history"])
        return _task(i, r["user_id"], f"How much did I pay in total for reservation {r['reservation_id']}?",
                     f"My user id is {r['user_id']}.",
                     [("get_reservation_details", {"reservation_id": r["reservation_id"]})], [_money(total)])

    return _generate((cancel, bags, rename, certificate, paid), rng, count)


def retail_tasks(seed: int, count: int = 240) -> list[dict]:
    """``count`` retail tasks over ``retail_database(seed)`` (one template chosen per task)."""
    db = retail_database(seed)
    rng = random.Random(f"taubench-retail-tasks-{seed}")
    orders = list(db["orders"].values())
    pending = [o for o in orders if o["status"] == "pending"]
    delivered = [o for o in orders if o["status"] == "delivered"]

    def known(user_id: str) -> str:
        return f"My email is {db['users'][user_id]['email']}."

    def find(user_id: str) -> tuple[str, dict]:
        return ("find_user_id_by_email", {"email": db["users"][user_id]["email"]})

    def address():
        city, state, zip_code = rng.choice(CITIES)
        return {"address1": f"{rng.randrange(10, 999)} {rng.choice(('Pine', 'Cedar', 'Birch'))} Road",
                "address2": rng.choice(("", f"Apt {rng.randrange(1, 99)}")), "city": city, "state": state,
                "country": "USA", "zip": zip_code}

    def other_variant(item: dict) -> str | None:
        variants = [v["item_id"] for v in db["products"][item["product_id"]]["variants"].values()
                    if v["available"] and v["item_id"] != item["item_id"]]
        return rng.choice(variants) if variants else None

    def cancel(i):
        o = rng.choice(pending)
        reason = rng.choice(CANCEL_REASONS)
        return _task(i, o["user_id"], f"I want to cancel my order {o['order_id']}: it was {reason}.",
                     known(o["user_id"]), [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                                           ("cancel_pending_order", {"order_id": o["order_id"], "reason": reason})])

    def ship_to(i):
        o = rng.choice(pending)
        new = address()
        return _task(i, o["user_id"], f"I want order {o['order_id']} shipped to {new['address1']}"
                     f"{', ' + new['address2'] if new['address2'] else ''}, {new['city']}, {new['state']} "
                     f"{new['zip']}, USA.", known(o["user_id"]),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("modify_pending_order_address", {"order_id": o["order_id"], **new})])

    def move(i):
        user = db["users"][rng.choice(orders)["user_id"]]
        new = address()
        return _task(i, user["user_id"], f"I moved: my default address is now {new['address1']}"
                     f"{', ' + new['address2'] if new['address2'] else ''}, {new['city']}, {new['state']} "
                     f"{new['zip']}, USA.", known(user["user_id"]),
                     [find(user["user_id"]), ("modify_user_address", {"user_id": user["user_id"], **new})])

    def swap(i):
        o = rng.choice(pending)
        item = rng.choice(o["items"])
        new_item = other_variant(item)
        if new_item is None:
            return None
        payment = o["payment_history"][0]["payment_method_id"]
        options = db["products"][item["product_id"]]["variants"][new_item]["options"]
        wanted = ", ".join(f"{k} {v}" for k, v in options.items())
        return _task(i, o["user_id"], f"In my pending order {o['order_id']} I want the {item['name']} changed to "
                     f"the one with {wanted}.", known(o["user_id"]) + " Use the order's payment method.",
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("get_product_details", {"product_id": item["product_id"]}),
                      ("modify_pending_order_items", {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                                                      "new_item_ids": [new_item], "payment_method_id": payment})])

    def give_back(i):
        o = rng.choice(delivered)
        items = rng.sample(o["items"], rng.randint(1, len(o["items"])))
        payment = o["payment_history"][0]["payment_method_id"]
        refund = round(sum(item["price"] for item in items), 2)
        return _task(i, o["user_id"], f"I want to return the {' and the '.join(x['name'] for x in items)} from "
                     f"order {o['order_id']}, refunded to the original payment method, and to know the refund.",
                     known(o["user_id"]),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("return_delivered_order_items", {"order_id": o["order_id"],
                                                        "item_ids": [x["item_id"] for x in items],
                                                        "payment_method_id": payment})], [_money(refund)])

    def exchange(i):
        o = rng.choice(delivered)
        item = rng.choice(o["items"])
        new_item = other_variant(item)
        if new_item is None:
            return None
        options = db["products"][item["product_id"]]["variants"][new_item]["options"]
        wanted = ", ".join(f"{k} {v}" for k, v in options.items())
        return _task(i, o["user_id"], f"I want to exchange the {item['name']} of order {o['order_id']} for the one "
                     f"with {wanted}.", known(o["user_id"]) + " Use the order's payment method.",
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("get_product_details", {"product_id": item["product_id"]}),
                      ("exchange_delivered_order_items", {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                                                          "new_item_ids": [new_item],
                                                          "payment_method_id": o["payment_history"][0][
                                                              "payment_method_id"]})])

    def status(i):
        o = rng.choice(orders)
        return _task(i, o["user_id"], f"What is the status of my order {o['order_id']}, and what did I pay for it?",
                     known(o["user_id"]), [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]})],
                     [o["status"], _money(o["payment_history"][0]["amount"])])

    return _generate((cancel, ship_to, move, swap, give_back, exchange, status), rng, count)


def _generate(templates: tuple[Callable[[int], dict | None], ...], rng: random.Random, count: int) -> list[dict]:
    """``count`` tasks, each from a template drawn in turn; a template that finds nothing to change draws again,
    and a task equal to an earlier one (same ground truth) is drawn again."""
    tasks, seen = [], set()
    for _ in range(count * 20):
        if len(tasks) == count:
            break
        task = rng.choice(templates)(len(tasks))
        key = repr((task["actions"], task["outputs"])) if task else None
        if task is not None and key not in seen:
            seen.add(key)
            tasks.append(task)
    return tasks
