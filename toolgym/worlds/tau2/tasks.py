"""Seeded databases of τ²-bench's schemas and built-in tasks over them, in τ²-bench's task format.

The built-in tasks are what the env runs with no data: each one is a user with a reason for
calling, what the user knows and does not know, the ground-truth actions (reads that find the
record, then the writes) and, for questions, the facts the agent must tell the user. Each domain
draws them from seeded templates (``description["template"]``) over its generated database:
writes the policy allows, requests it refuses (the ground truth is the reads alone) and questions.
The env runs each task's ground truth when it builds the set and leaves out any that fails.
"""

from __future__ import annotations

import random

FIRST = ("Mia", "Noah", "Ava", "Liam", "Emma", "Omar", "Yara", "Ivan", "Lena", "Raj", "Sofia", "Chen", "Amara",
         "Lucas", "Fatima", "Ethan", "Aisha", "Mei", "Daniel", "Olivia")
LAST = ("Li", "Brown", "Garcia", "Smith", "Kovacs", "Khan", "Silva", "Ito", "Novak", "Patel", "Rossi", "Moore")
CITIES = (("Austin", "TX", "78750"), ("Denver", "CO", "80279"), ("Seattle", "WA", "98101"),
          ("Boston", "MA", "02108"), ("Chicago", "IL", "60601"), ("Phoenix", "AZ", "85001"))
AIRPORTS = ("SFO", "JFK", "LAX", "ORD", "DFW", "DEN", "SEA", "ATL", "MIA", "BOS")
DATES = tuple(f"2024-05-{d:02d}" for d in range(10, 31))
CABINS = ("basic_economy", "economy", "business")
PRODUCTS = (("T-Shirt", {"color": ("blue", "red", "black"), "size": ("S", "M", "L")}),
            ("Water Bottle", {"capacity": ("500ml", "750ml", "1000ml"), "material": ("glass", "steel")}),
            ("Desk Lamp", {"color": ("white", "black"), "power source": ("battery", "USB", "AC")}),
            ("Backpack", {"color": ("green", "grey"), "size": ("small", "medium", "large")}),
            ("Headphones", {"type": ("over-ear", "in-ear"), "connectivity": ("wired", "wireless")}),
            ("Office Chair", {"material": ("fabric", "leather"), "color": ("black", "blue")}))


def _person(rng: random.Random, taken: set) -> tuple[str, str, str]:
    while True:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        user_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 9999)}"
        if user_id not in taken:
            taken.add(user_id)
            return first, last, user_id


def _address(rng: random.Random) -> dict:
    city, state, zip_code = rng.choice(CITIES)
    return {"address1": f"{rng.randrange(10, 999)} {rng.choice(('Oak', 'Elm', 'Main', 'Lake'))} Street",
            "address2": f"Suite {rng.randrange(100, 999)}", "city": city, "country": "USA", "state": state,
            "zip": zip_code}


# -- airline -------------------------------------------------------------------------------
def airline_database(seed: int, users: int = 20, flights: int = 40, reservations: int = 40) -> dict:
    rng = random.Random(f"tau2-airline-{seed}")
    db = {"flights": {}, "reservations": {}, "users": {}}
    for n in range(flights):
        origin, destination = rng.sample(AIRPORTS, 2)
        hour = rng.randrange(5, 20)
        dates = {}
        for date in DATES:
            if date < "2024-05-15":
                dates[date] = {"status": "landed"}
            elif rng.random() < 0.1:
                dates[date] = {"status": "cancelled"}
            else:
                base = rng.randrange(50, 200)
                dates[date] = {"status": "available",
                               "available_seats": {c: rng.randrange(0, 20) for c in CABINS},
                               "prices": {"basic_economy": base, "economy": base + rng.randrange(20, 120),
                                          "business": base + rng.randrange(200, 800)}}
        number = f"HAT{n + 1:03d}"
        db["flights"][number] = {"flight_number": number, "origin": origin, "destination": destination,
                                 "scheduled_departure_time_est": f"{hour:02d}:00:00",
                                 "scheduled_arrival_time_est": f"{hour + rng.randrange(1, 4):02d}:00:00", "dates": dates}
    taken: set = set()
    for _ in range(users):
        first, last, user_id = _person(rng, taken)
        methods = {}
        for source in ("credit_card", "gift_card", "certificate"):
            if source == "credit_card" or rng.random() < 0.6:
                method_id = f"{source}_{rng.randrange(1000000, 9999999)}"
                methods[method_id] = {"source": source, "id": method_id, **(
                    {"brand": "visa", "last_four": f"{rng.randrange(10000):04d}"} if source == "credit_card"
                    else {"amount": rng.choice((100, 150, 250, 500))})}
        db["users"][user_id] = {"user_id": user_id, "name": {"first_name": first, "last_name": last},
                                "address": _address(rng), "email": f"{first.lower()}.{last.lower()}@example.com",
                                "dob": f"19{rng.randrange(50, 99)}-0{rng.randrange(1, 9)}-1{rng.randrange(9)}",
                                "payment_methods": methods, "saved_passengers": [],
                                "membership": rng.choice(("regular", "silver", "gold")), "reservations": []}
    user_ids = list(db["users"])
    flight_numbers = list(db["flights"])
    for _ in range(reservations):
        reservation_id = "".join(rng.choice("ABCDEFGJKLMNPQRSTUVWXYZ0123456789") for _ in range(6))
        user = db["users"][rng.choice(user_ids)]
        flight = db["flights"][rng.choice(flight_numbers)]
        date = rng.choice([d for d in DATES if d >= "2024-05-16"])
        cabin = rng.choice(CABINS)
        price = rng.randrange(80, 900)
        passengers = [{"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"],
                       "dob": user["dob"]}]
        card = next(m for m in user["payment_methods"] if m.startswith("credit_card"))
        db["reservations"][reservation_id] = {
            "reservation_id": reservation_id, "user_id": user["user_id"], "origin": flight["origin"],
            "destination": flight["destination"], "flight_type": "one_way", "cabin": cabin,
            "flights": [{"origin": flight["origin"], "destination": flight["destination"],
                         "flight_number": flight["flight_number"], "date": date, "price": price}],
            "passengers": passengers, "payment_history": [{"payment_id": card, "amount": price}],
            "created_at": "2024-05-14T10:00:00", "total_baggages": 1, "nonfree_baggages": 0,
            "insurance": rng.choice(("yes", "no")), "status": None}
        user["reservations"].append(reservation_id)
    return db


def _scenario(domain: str, reason: str, known: str, unknown: str = "") -> dict:
    return {"persona": None, "instructions": {"domain": domain, "reason_for_call": reason, "known_info": known,
                                              "unknown_info": unknown or None, "task_instructions": ""}}


def _task(task_id: str, scenario: dict, actions: list[tuple[str, dict]], communicate: list[str] = ()) -> dict:
    return {"id": task_id, "description": {"purpose": "built-in"}, "user_scenario": scenario, "initial_state": None,
            "evaluation_criteria": {
                "actions": [{"action_id": f"{task_id}_{i}", "name": name, "arguments": arguments, "info": None}
                            for i, (name, arguments) in enumerate(actions)],
                "communicate_info": list(communicate), "nl_assertions": None,
                "reward_basis": ["DB", "COMMUNICATE"] if communicate else ["DB"]}}


def _money(value: float) -> str:
    """An amount as an agent says it and the COMMUNICATE check reads it (no thousands separator)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _generate(prefix: str, templates: dict, rng: random.Random, count: int) -> list[dict]:
    """``count`` tasks, each from a template drawn in turn (``templates``: name -> ``make(task_id)``);
    a template that finds nothing to ask for draws again, and so does a task equal to an earlier one
    (same instruction and ground truth)."""
    tasks, seen = [], set()
    names = list(templates)
    for _ in range(count * 20):
        if len(tasks) == count:
            break
        name = rng.choice(names)
        task = templates[name](f"{prefix}_{len(tasks)}")
        if task is None:
            continue
        criteria = task["evaluation_criteria"]
        key = repr((task["user_scenario"], [(a["name"], a["arguments"]) for a in criteria["actions"]]))
        if key not in seen:
            seen.add(key)
            task["description"]["template"] = name
            tasks.append(task)
    return tasks


#: Free checked bags per passenger, by membership and cabin (the built-in airline policy's table).
FREE_BAGS = {"regular": {"basic_economy": 0, "economy": 1, "business": 2},
             "silver": {"basic_economy": 1, "economy": 2, "business": 3},
             "gold": {"basic_economy": 2, "economy": 3, "business": 4}}
#: Reasons for cancelling: the ones travel insurance covers, and one it does not.
COVERED_REASONS = ("a health problem", "bad weather at the destination")
UNCOVERED_REASON = "a change of plans"


def airline_tasks(db: dict, seed: int, count: int = 240) -> list[dict]:
    """``count`` airline tasks over ``db`` (``airline_database(seed)``): cancellations the policy
    allows and ones it forbids, flight and cabin changes, bags, passengers, bookings, compensation
    for a cancelled flight, and questions the agent answers from the records."""
    rng = random.Random(f"tau2-airline-tasks-{seed}")
    reservations = list(db["reservations"].values())
    flights = db["flights"]

    def scenario(reason: str, known: str, unknown: str = "") -> dict:
        return _scenario("airline", reason, known, unknown)

    def day(r: dict) -> dict:
        segment = r["flights"][0]
        return flights[segment["flight_number"]]["dates"][segment["date"]]

    def cancellable(r: dict, why: str) -> bool:
        """The built-in policy's rule (assets/tau2/airline_rules.md)."""
        return (day(r)["status"] == "cancelled" or r["cabin"] == "business"
                or (r["insurance"] == "yes" and why in COVERED_REASONS))

    cancelled = [r for r in reservations if day(r)["status"] == "cancelled"]

    def ids(r: dict) -> str:
        return f"Your user id is {r['user_id']}. Your reservation id is {r['reservation_id']}."

    def reads(r: dict) -> list[tuple[str, dict]]:
        return [("get_user_details", {"user_id": r["user_id"]}),
                ("get_reservation_details", {"reservation_id": r["reservation_id"]})]

    def payment(user: dict, amount: int) -> str | None:
        """A card of the user's that can pay ``amount``: the credit card, or a gift card holding enough."""
        options = [m for m, method in user["payment_methods"].items() if method["source"] == "credit_card"
                   or (method["source"] == "gift_card" and method["amount"] >= max(amount, 0))]
        return rng.choice(sorted(options)) if options else None

    def said_card(method_id: str) -> str:
        return f"You pay with {method_id.split('_')[0]} card {method_id}."

    def cancel(task_id):
        r = rng.choice(reservations)
        if day(r)["status"] == "cancelled":
            because = "the airline cancelled your flight"
        else:
            why = rng.choice(COVERED_REASONS + (UNCOVERED_REASON,))
            if not cancellable(r, why):
                return None
            because = f"of {why}"
        return _task(task_id, scenario(f"You want to cancel your reservation {r['reservation_id']} because {because}.",
                                       ids(r)),
                     reads(r) + [("cancel_reservation", {"reservation_id": r["reservation_id"]})])

    def cancel_by_trip(task_id):
        """The user does not know the reservation id: the agent finds it among the user's reservations."""
        r = rng.choice(reservations)
        segment = r["flights"][0]
        why = rng.choice(COVERED_REASONS + (UNCOVERED_REASON,))
        trip = (r["origin"], r["destination"], segment["date"])
        same_trip = [o for o in map(db["reservations"].get, db["users"][r["user_id"]]["reservations"])
                     if (o["origin"], o["destination"], o["flights"][0]["date"]) == trip]
        if len(same_trip) != 1 or day(r)["status"] == "cancelled" or not cancellable(r, why):
            return None
        return _task(task_id, scenario(f"You want to cancel your reservation of the flight from {r['origin']} to "
                                       f"{r['destination']} on {segment['date']} because of {why}.",
                                       f"Your user id is {r['user_id']}.",
                                       "You do not remember the reservation id."),
                     reads(r) + [("cancel_reservation", {"reservation_id": r["reservation_id"]})])

    def cancel_refused(task_id):
        r = rng.choice(reservations)
        why = rng.choice(COVERED_REASONS + (UNCOVERED_REASON,))
        if cancellable(r, why):
            return None
        return _task(task_id, scenario(f"You want to cancel your reservation {r['reservation_id']} because of {why}. "
                                       f"If it cannot be cancelled, you want nothing else changed.", ids(r)), reads(r))

    def bags(task_id):
        r = rng.choice(reservations)
        user = db["users"][r["user_id"]]
        extra = rng.randint(1, 3)
        free = FREE_BAGS[user["membership"]][r["cabin"]] * len(r["passengers"])
        nonfree = r["nonfree_baggages"] + max(0, extra - max(0, free - r["total_baggages"]))
        cost = 50 * (nonfree - r["nonfree_baggages"])
        card = payment(user, cost)
        if card is None:
            return None
        cost_asked = " and to know what they cost" if cost else ""
        return _task(task_id, scenario(f"You want to add {extra} checked bag{'s' * (extra > 1)} to your reservation "
                                       f"{r['reservation_id']}{cost_asked}.",
                                       f"{ids(r)} {said_card(card)}"),
                     reads(r) + [("update_reservation_baggages", {
                         "reservation_id": r["reservation_id"], "total_baggages": r["total_baggages"] + extra,
                         "nonfree_baggages": nonfree, "payment_id": card})], [str(cost)] if cost else [])

    def passenger(task_id):
        r = rng.choice(reservations)
        old = r["passengers"][0]
        first, last = rng.choice(FIRST), rng.choice(LAST)
        dob = f"19{rng.randrange(50, 99)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        if (first, last) == (old["first_name"], old["last_name"]):
            return None
        new = {"first_name": first, "last_name": last, "dob": dob}
        return _task(task_id, scenario(f"You want to change the passenger {old['first_name']} {old['last_name']} of "
                                       f"your reservation {r['reservation_id']} to {first} {last}, born {dob}.",
                                       ids(r)),
                     reads(r) + [("update_reservation_passengers", {"reservation_id": r["reservation_id"],
                                                                    "passengers": [new]})])

    def cabin(task_id):
        r = rng.choice(reservations)
        status = day(r)
        if status["status"] != "available":
            return None
        new_cabin = rng.choice([c for c in CABINS if c != r["cabin"]])
        if status["available_seats"][new_cabin] < len(r["passengers"]):
            return None
        difference = (status["prices"][new_cabin] - r["flights"][0]["price"]) * len(r["passengers"])
        user = db["users"][r["user_id"]]
        card = payment(user, difference)
        if card is None:
            return None
        verb = "upgrade" if CABINS.index(new_cabin) > CABINS.index(r["cabin"]) else "downgrade"
        segment = r["flights"][0]
        return _task(task_id, scenario(f"You want to {verb} your reservation {r['reservation_id']} to "
                                       f"{new_cabin.replace('_', ' ')} and to know the price difference.",
                                       f"{ids(r)} {said_card(card)}"),
                     reads(r) + [("update_reservation_flights", {
                         "reservation_id": r["reservation_id"], "cabin": new_cabin,
                         "flights": [{"flight_number": segment["flight_number"], "date": segment["date"]}],
                         "payment_id": card})], [str(abs(difference))] if difference else [])

    def reschedule(task_id, refused: bool = False):
        r = rng.choice(reservations)
        if (r["cabin"] == "basic_economy") != refused:
            return None
        segment = r["flights"][0]
        flight = flights[segment["flight_number"]]
        dates = [d for d, s in flight["dates"].items() if d >= "2024-05-16" and d != segment["date"]
                 and s["status"] == "available" and s["available_seats"][r["cabin"]] >= len(r["passengers"])]
        if not dates:
            return None
        date = rng.choice(dates)
        user = db["users"][r["user_id"]]
        difference = (flight["dates"][date]["prices"][r["cabin"]] - segment["price"]) * len(r["passengers"])
        card = payment(user, difference)
        if card is None:
            return None
        reason = (f"You want to change your flight {segment['flight_number']} of reservation {r['reservation_id']} "
                  f"from {segment['date']} to {date}, same flight number and cabin, and to know the price "
                  f"difference.")
        if refused:
            return _task(task_id, scenario(reason + " If the flight cannot be changed, you keep the reservation as "
                                                    "it is.", f"{ids(r)} {said_card(card)}"), reads(r))
        return _task(task_id, scenario(reason, f"{ids(r)} {said_card(card)}"), reads(r) + [
            ("search_direct_flight", {"origin": flight["origin"], "destination": flight["destination"], "date": date}),
            ("update_reservation_flights", {"reservation_id": r["reservation_id"], "cabin": r["cabin"],
                                            "flights": [{"flight_number": flight["flight_number"], "date": date}],
                                            "payment_id": card})], [str(abs(difference))] if difference else [])

    def book(task_id):
        user = db["users"][rng.choice(sorted(db["users"]))]
        flight = flights[rng.choice(sorted(flights))]
        date = rng.choice([d for d in DATES if d >= "2024-05-16"])
        cabin_class = rng.choice(CABINS)
        status = flight["dates"][date]
        if status["status"] != "available" or status["available_seats"][cabin_class] < 1:
            return None
        bags_wanted = rng.randint(0, 3)
        nonfree = max(0, bags_wanted - FREE_BAGS[user["membership"]][cabin_class])
        insurance = rng.choice(("yes", "no"))
        total = status["prices"][cabin_class] + 30 * (insurance == "yes") + 50 * nonfree
        card = next(m for m, method in sorted(user["payment_methods"].items()) if method["source"] == "credit_card")
        traveller = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"],
                     "dob": user["dob"]}
        return _task(task_id, scenario(
            f"You want to book a one-way flight {flight['flight_number']} from {flight['origin']} to "
            f"{flight['destination']} on {date} in {cabin_class.replace('_', ' ')} for yourself, with "
            f"{bags_wanted} checked bag{'s' * (bags_wanted != 1)} and {'with' if insurance == 'yes' else 'without'} "
            f"travel insurance, and to know the total price.",
            f"Your user id is {user['user_id']}. {said_card(card)} You were born on {user['dob']}."), [
            ("get_user_details", {"user_id": user["user_id"]}),
            ("search_direct_flight", {"origin": flight["origin"], "destination": flight["destination"], "date": date}),
            ("book_reservation", {"user_id": user["user_id"], "origin": flight["origin"],
                                  "destination": flight["destination"], "flight_type": "one_way",
                                  "cabin": cabin_class, "flights": [{"flight_number": flight["flight_number"],
                                                                     "date": date}],
                                  "passengers": [traveller], "payment_methods": [{"payment_id": card, "amount": total}],
                                  "total_baggages": bags_wanted, "nonfree_baggages": nonfree,
                                  "insurance": insurance})], [str(total)])

    def compensation(task_id, refused: bool = False):
        if not cancelled:
            return None
        r = rng.choice(cancelled)
        user = db["users"][r["user_id"]]
        eligible = user["membership"] != "regular" or r["insurance"] == "yes" or r["cabin"] == "business"
        if eligible == refused:
            return None
        segment = r["flights"][0]
        reason = (f"The airline cancelled your flight {segment['flight_number']} on {segment['date']}, of your "
                  f"reservation {r['reservation_id']}. You complain and want compensation; you keep the reservation.")
        if refused:
            return _task(task_id, scenario(reason, ids(r)), reads(r))
        amount = 100 * len(r["passengers"])
        return _task(task_id, scenario(reason + " You want to know the amount of the certificate.", ids(r)),
                     reads(r) + [("send_certificate", {"user_id": user["user_id"], "amount": amount})], [str(amount)])

    def flight_status(task_id):
        number = rng.choice(sorted(flights))
        date = rng.choice(DATES)
        return _task(task_id, scenario(f"You want to know the status of flight {number} on {date}.",
                                       "You have no reservation to change."),
                     [("get_flight_status", {"flight_number": number, "date": date})],
                     [flights[number]["dates"][date]["status"]])

    def paid(task_id):
        r = rng.choice(reservations)
        total = sum(p["amount"] for p in r["payment_history"])
        return _task(task_id, scenario(f"You want to know how much you paid in total for your reservation "
                                       f"{r['reservation_id']}.", ids(r)),
                     [("get_reservation_details", {"reservation_id": r["reservation_id"]})], [str(total)])

    def allowance(task_id):
        r = rng.choice(reservations)
        free = FREE_BAGS[db["users"][r["user_id"]]["membership"]][r["cabin"]] * len(r["passengers"])
        return _task(task_id, scenario(f"You want to know how many checked bags your reservation "
                                       f"{r['reservation_id']} includes for free.", ids(r)),
                     reads(r), [f"{free} free"])

    return _generate("airline", {
        "cancel": cancel, "cancel_by_trip": cancel_by_trip, "cancel_refused": cancel_refused, "bags": bags,
        "passenger": passenger, "cabin": cabin,
        "change_flight": reschedule, "change_flight_refused": lambda t: reschedule(t, refused=True), "book": book,
        "compensation": compensation, "compensation_refused": lambda t: compensation(t, refused=True),
        "flight_status": flight_status, "total_paid": paid, "bag_allowance": allowance}, rng, count)


# -- retail --------------------------------------------------------------------------------
def retail_database(seed: int, users: int = 20, orders: int = 40) -> dict:
    rng = random.Random(f"tau2-retail-{seed}")
    db = {"products": {}, "users": {}, "orders": {}}
    for name, options in PRODUCTS:
        product_id = str(rng.randrange(10**9, 10**10))
        variants = {}
        keys = list(options)
        for _ in range(5):
            item_id = str(rng.randrange(10**9, 10**10))
            variants[item_id] = {"item_id": item_id, "options": {k: rng.choice(options[k]) for k in keys},
                                 "available": rng.random() < 0.8, "price": round(rng.uniform(20, 500), 2)}
        db["products"][product_id] = {"name": name, "product_id": product_id, "variants": variants}
    taken: set = set()
    for _ in range(users):
        first, last, user_id = _person(rng, taken)
        card, gift = f"credit_card_{rng.randrange(10**6, 10**7)}", f"gift_card_{rng.randrange(10**6, 10**7)}"
        db["users"][user_id] = {
            "user_id": user_id, "name": {"first_name": first, "last_name": last}, "address": _address(rng),
            "email": f"{first.lower()}.{last.lower()}{rng.randrange(1000, 9999)}@example.com",
            "payment_methods": {card: {"source": "credit_card", "id": card, "brand": "visa",
                                       "last_four": f"{rng.randrange(10000):04d}"},
                                gift: {"source": "gift_card", "id": gift, "balance": round(rng.uniform(0, 300), 2)}},
            "orders": []}
    user_ids = list(db["users"])
    for _ in range(orders):
        order_id = f"#W{rng.randrange(10**6, 10**7)}"
        user = db["users"][rng.choice(user_ids)]
        items = []
        for product in rng.sample(list(db["products"].values()), 2):
            variant = rng.choice(list(product["variants"].values()))
            items.append({"name": product["name"], "product_id": product["product_id"], "item_id": variant["item_id"],
                          "price": variant["price"], "options": variant["options"]})
        total = round(sum(i["price"] for i in items), 2)
        card = next(m for m in user["payment_methods"] if m.startswith("credit_card"))
        db["orders"][order_id] = {"order_id": order_id, "user_id": user["user_id"], "address": user["address"],
                                  "items": items, "status": rng.choice(("pending", "delivered", "processed")),
                                  "fulfillments": [], "payment_history": [
                                      {"transaction_type": "payment", "amount": total, "payment_method_id": card}]}
        user["orders"].append(order_id)
    # PayPal accounts from a stream of their own, so that every other record stays as it was generated
    # before they were added (TauBench-v0's built-in tasks are drawn from the same records).
    paypal = random.Random(f"tau2-retail-paypal-{seed}")
    for user in db["users"].values():
        if paypal.random() < 0.5:
            method_id = f"paypal_{paypal.randrange(10**6, 10**7)}"
            user["payment_methods"][method_id] = {"source": "paypal", "id": method_id}
    return db


#: The reasons ``cancel_pending_order`` accepts (``retail.CANCEL_REASONS``, which imports this module).
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
#: How a user names a kind of payment method.
METHOD_NAMES = {"credit_card": "credit card", "gift_card": "gift card", "paypal": "PayPal account"}


def retail_tasks(db: dict, seed: int, count: int = 240) -> list[dict]:
    """``count`` retail tasks over ``db`` (``retail_database(seed)``): cancelling, changing items,
    address or payment of a pending order, returns and exchanges of a delivered one, a new
    default address, lookups (an order, an item's price, a gift card's balance), and requests the
    policy refuses (cancelling a delivered order, returning a pending one)."""
    rng = random.Random(f"tau2-retail-tasks-{seed}")
    orders = list(db["orders"].values())
    pending = [o for o in orders if o["status"] == "pending"]
    delivered = [o for o in orders if o["status"] == "delivered"]

    by_email: dict[str, bool] = {}  # user id -> whether the task's user knows their email, drawn by who()

    def who(user_id: str) -> str:
        """What the user knows to be authenticated: the email, or (one time in four) name and zip code only."""
        user = db["users"][user_id]
        namesakes = sum((u["name"], u["address"]["zip"]) == (user["name"], user["address"]["zip"])
                        for u in db["users"].values())
        by_email[user_id] = rng.random() >= 0.25 or namesakes > 1
        if by_email[user_id]:
            return f"You are {user['name']['first_name']} {user['name']['last_name']}, email {user['email']}."
        return f"You are {user['name']['first_name']} {user['name']['last_name']}, zip code {user['address']['zip']}."

    def find(user_id: str) -> tuple[str, dict]:
        """The authentication of the user whose scenario ``who`` wrote last."""
        user = db["users"][user_id]
        if by_email[user_id]:
            return ("find_user_id_by_email", {"email": user["email"]})
        return ("find_user_id_by_name_zip", {"first_name": user["name"]["first_name"],
                                             "last_name": user["name"]["last_name"], "zip": user["address"]["zip"]})

    def scenario(reason: str, known: str, unknown: str = "") -> dict:
        if "zip code" in known:
            unknown = f"You do not remember your email. {unknown}".strip()
        return _scenario("retail", reason, known, unknown)


    def address() -> dict:
        city, state, zip_code = rng.choice(CITIES)
        return {"address1": f"{rng.randrange(10, 999)} {rng.choice(('Pine', 'Cedar', 'Birch', 'Maple'))} Road",
                "address2": rng.choice(("", f"Apt {rng.randrange(1, 99)}")), "city": city, "state": state,
                "country": "USA", "zip": zip_code}

    def spoken(new: dict) -> str:
        return (f"{new['address1']}{', ' + new['address2'] if new['address2'] else ''}, {new['city']}, "
                f"{new['state']} {new['zip']}, USA")

    def other_variant(item: dict) -> dict | None:
        variants = [v for v in db["products"][item["product_id"]]["variants"].values()
                    if v["available"] and v["item_id"] != item["item_id"] and v["options"] != item["options"]]
        return rng.choice(variants) if variants else None

    def payer(order: dict, amount: float) -> str | None:
        """The order's card, or the user's gift card when it holds ``amount``."""
        user = db["users"][order["user_id"]]
        options = [order["payment_history"][0]["payment_method_id"]]
        options += [m for m, method in user["payment_methods"].items()
                    if method["source"] == "gift_card" and method["balance"] >= max(amount, 0)]
        return rng.choice(sorted(set(options)))

    def described(options: dict) -> str:
        return ", ".join(f"{k} {v}" for k, v in options.items())

    def paid_with(method_id: str) -> str:
        return f"You want to use your {METHOD_NAMES[method_id.rsplit('_', 1)[0]]} {method_id}."

    def cancel(task_id):
        o = rng.choice(pending)
        reason = rng.choice(CANCEL_REASONS)
        return _task(task_id, scenario(f"You want to cancel your pending order {o['order_id']} because it was "
                                       f"{reason}." if reason == "ordered by mistake" else
                                       f"You want to cancel your pending order {o['order_id']} because you no "
                                       f"longer need it.", who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("cancel_pending_order", {"order_id": o["order_id"], "reason": reason})])

    def cancel_by_items(task_id):
        """The user does not know the order id: the agent finds it among the user's orders."""
        o = rng.choice(pending)
        names = sorted(i["name"] for i in o["items"])
        mine = db["users"][o["user_id"]]["orders"]
        if sum(sorted(i["name"] for i in db["orders"][other]["items"]) == names for other in mine) != 1:
            return None
        return _task(task_id, scenario(f"You want to cancel your pending order of the {' and the '.join(names)} "
                                       f"because you no longer need it.", who(o["user_id"]),
                                       "You do not remember the order id."),
                     [find(o["user_id"]), ("get_user_details", {"user_id": o["user_id"]}),
                      ("get_order_details", {"order_id": o["order_id"]}),
                      ("cancel_pending_order", {"order_id": o["order_id"], "reason": "no longer needed"})])

    def cancel_refused(task_id):
        o = rng.choice(delivered)
        return _task(task_id, scenario(f"You want to cancel your order {o['order_id']} because you no longer need "
                                       f"it. If it cannot be cancelled, you want nothing else done.",
                                       who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]})], [o["status"]])

    def return_refused(task_id):
        o = rng.choice(pending)
        item = rng.choice(o["items"])
        return _task(task_id, scenario(f"You want to return the {item['name']} of your order {o['order_id']}. If "
                                       f"it cannot be returned, you want nothing else done.", who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]})], [o["status"]])

    def swap_item(task_id, source, wording, tool):
        """Swap one item of an order from ``source`` for another variant of its product."""
        o = rng.choice(source)
        item = rng.choice(o["items"])
        new = other_variant(item)
        if new is None:
            return None
        difference = round(new["price"] - item["price"], 2)
        method = payer(o, difference)
        return _task(task_id, scenario(wording.format(item=f"{item['name']} ({described(item['options'])})",
                                                      order=o["order_id"], new=described(new["options"])),
                                       f"{who(o['user_id'])} {paid_with(method)}"),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("get_product_details", {"product_id": item["product_id"]}),
                      (tool, {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                              "new_item_ids": [new["item_id"]], "payment_method_id": method})],
                     [_money(abs(difference))])

    def change_items(task_id):
        return swap_item(task_id, pending, "You want to change the {item} of your pending order {order} to the one "
                                           "with {new}, and to know the price difference.",
                         "modify_pending_order_items")

    def ship_to(task_id):
        o = rng.choice(pending)
        new = address()
        return _task(task_id, scenario(f"You want to change the shipping address of your pending order "
                                       f"{o['order_id']} to {spoken(new)}.", who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("modify_pending_order_address", {"order_id": o["order_id"], **new})])

    def pay_with(task_id):
        o = rng.choice(pending)
        methods = db["users"][o["user_id"]]["payment_methods"]
        others = sorted(m for m, method in methods.items() if m != o["payment_history"][0]["payment_method_id"] and (
            method["source"] != "gift_card" or method["balance"] >= o["payment_history"][0]["amount"]))
        if not others:
            return None
        method = rng.choice(others)
        return _task(task_id, scenario(f"You want to change the payment method of your pending order "
                                       f"{o['order_id']} to your {METHOD_NAMES[methods[method]['source']]} "
                                       f"{method}.", who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("modify_pending_order_payment", {"order_id": o["order_id"], "payment_method_id": method})])

    def move(task_id):
        user_id = rng.choice(orders)["user_id"]
        new = address()
        return _task(task_id, scenario(f"You moved and want to update your default address to {spoken(new)}.",
                                       who(user_id)),
                     [find(user_id), ("modify_user_address", {"user_id": user_id, **new})])

    def give_back(task_id):
        o = rng.choice(delivered)
        items = rng.sample(o["items"], rng.randint(1, len(o["items"])))
        refund = round(sum(item["price"] for item in items), 2)
        method = payer(o, 0)
        return _task(task_id, scenario(f"You want to return the {' and the '.join(i['name'] for i in items)} of "
                                       f"your order {o['order_id']} and to know the refund.",
                                       f"{who(o['user_id'])} {paid_with(method)}"),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]}),
                      ("return_delivered_order_items", {"order_id": o["order_id"],
                                                        "item_ids": [i["item_id"] for i in items],
                                                        "payment_method_id": method})], [_money(refund)])

    def exchange(task_id):
        return swap_item(task_id, delivered, "You want to exchange the {item} of your order {order} for the one "
                                             "with {new}, and to know the price difference.",
                         "exchange_delivered_order_items")

    def order_status(task_id):
        o = rng.choice(orders)
        return _task(task_id, scenario(f"You want to know the status of your order {o['order_id']} and what you "
                                       f"paid for it.", who(o["user_id"])),
                     [find(o["user_id"]), ("get_order_details", {"order_id": o["order_id"]})],
                     [o["status"], _money(o["payment_history"][0]["amount"])])

    def price(task_id):
        product = db["products"][rng.choice(sorted(db["products"]))]
        variant = rng.choice(list(product["variants"].values()))
        if sum(v["options"] == variant["options"] for v in product["variants"].values()) > 1:
            return None
        user_id = rng.choice(orders)["user_id"]
        return _task(task_id, scenario(f"You want to know the price of the {product['name']} with "
                                       f"{described(variant['options'])}.", who(user_id)),
                     [find(user_id), ("list_all_product_types", {}),
                      ("get_product_details", {"product_id": product["product_id"]})], [_money(variant["price"])])

    def balance(task_id):
        user_id = rng.choice(orders)["user_id"]
        user = db["users"][user_id]
        gift = next(m for m, method in user["payment_methods"].items() if method["source"] == "gift_card")
        return _task(task_id, scenario("You want to know the balance of your gift card.", who(user_id)),
                     [find(user_id), ("get_user_details", {"user_id": user_id})],
                     [_money(user["payment_methods"][gift]["balance"])])

    return _generate("retail", {
        "cancel": cancel, "cancel_by_items": cancel_by_items, "cancel_refused": cancel_refused,
        "return_refused": return_refused,
        "change_items": change_items, "change_address": ship_to, "change_payment": pay_with, "move": move,
        "return": give_back, "exchange": exchange, "order_status": order_status, "item_price": price,
        "gift_card_balance": balance}, rng, count)


# -- mock ----------------------------------------------------------------------------------
def mock_database(seed: int) -> dict:
    return {"tasks": {"task_1": {"task_id": "task_1", "title": "Test task", "description": "A test task",
                                 "status": "pending"}},
            "users": {"user_1": {"user_id": "user_1", "name": "Test User", "tasks": ["task_1"]}},
            "notifications": {"notif_1": {"notification_id": "notif_1", "status": "unread", "task_id": "task_1",
                                          "message": "Task 'Test task' has been assigned to you."}}}


def mock_tasks(db: dict, seed: int) -> list[dict]:
    create = _task("mock_create", _scenario("mock", "You want a new task called 'Weekly review' for user_1.",
                                            "You are user_1."),
                   [("create_task", {"user_id": "user_1", "title": "Weekly review"})], ["task_2"])
    create["evaluation_criteria"]["env_assertions"] = [{"env_type": "assistant", "func_name": "assert_number_of_tasks",
                                                        "arguments": {"user_id": "user_1", "expected_number": 2},
                                                        "assert_value": True}]
    create["evaluation_criteria"]["reward_basis"] = ["DB", "ENV_ASSERTION", "COMMUNICATE"]
    complete = _task("mock_complete", _scenario("mock", "You finished task_1 and want it marked completed.",
                                                "You are user_1; your task is task_1."),
                     [("update_task_status", {"task_id": "task_1", "status": "completed"})])
    complete["evaluation_criteria"]["reward_basis"] = ["DB", "ACTION"]
    complete["ticket"] = "User user_1 finished task_1 and wants it marked completed."
    inbox = _task("mock_inbox", _scenario("mock", "An unread notification keeps showing on your screen.",
                                          "You are user_1. You can check and dismiss your notifications."), [])
    inbox["evaluation_criteria"]["actions"] = [{"action_id": "mock_inbox_0", "requestor": "user",
                                                "name": "dismiss_notification",
                                                "arguments": {"notification_id": "notif_1"}, "info": None}]
    inbox["evaluation_criteria"]["env_assertions"] = [{"env_type": "user", "func_name": "assert_notification_status",
                                                       "arguments": {"notification_id": "notif_1",
                                                                     "expected_status": "read"}, "assert_value": True}]
    inbox["evaluation_criteria"]["reward_basis"] = ["DB", "ENV_ASSERTION"]
    inbox["ticket"] = "User user_1 has an unread notification (notif_1) in their inbox and wants it dismissed."
    return [create, complete, inbox]


# -- telecom -------------------------------------------------------------------------------
def telecom_database(seed: int, customers: int = 12) -> tuple[dict[str, list[dict]], dict]:
    """A carrier (plans, customers with lines, devices and bills) and the user's phone's settings."""
    rng = random.Random(f"tau2-telecom-{seed}")
    plans = [{"plan_id": f"P100{n}", "name": name, "data_limit_gb": limit, "price_per_month": price,
              "data_refueling_price_per_gb": refuel}
             for n, (name, limit, price, refuel) in enumerate((("Basic Plan", 5.0, 40.0, 5.0),
                                                               ("Premium Plan", 15.0, 65.0, 2.0),
                                                               ("Unlimited Plus", 999.0, 85.0, 0.1)), start=1)]
    carrier = {"plans": plans, "devices": [], "lines": [], "customers": [], "bills": []}
    taken: set = set()
    for c in range(customers):
        first, last, _ = _person(rng, taken)
        customer_id = f"C{2001 + c}"
        customer = {"customer_id": customer_id, "full_name": f"{first} {last}",
                    "date_of_birth": f"19{rng.randrange(50, 99)}-0{rng.randrange(1, 9)}-1{rng.randrange(9)}",
                    "email": f"{first.lower()}.{last.lower()}@example.com", "phone_number": None,
                    "account_status": "Active", "line_ids": [], "bill_ids": [], "payment_methods": [],
                    "address": {"street": "1 Main St", "city": "Anytown", "state": "CA", "zip_code": "90210"}}
        for n in range(2):
            line_id, device_id = f"L{2001 + 2 * c + n}", f"D{2001 + 2 * c + n}"
            phone = f"555-200-{2 * c + n:04d}"
            plan = rng.choice(plans)
            carrier["devices"].append({"device_id": device_id, "device_type": "phone", "model": "Smartphone X",
                                       "imei": str(rng.randrange(10**14, 10**15)), "is_esim_capable": True,
                                       "activated": True})
            carrier["lines"].append({"line_id": line_id, "phone_number": phone, "status": "Active",
                                     "plan_id": plan["plan_id"], "device_id": device_id,
                                     "data_used_gb": round(rng.uniform(0, plan["data_limit_gb"] * 0.8), 1),
                                     "data_refueling_gb": 0.0, "roaming_enabled": False,
                                     "contract_end_date": "2026-12-31"})
            customer["line_ids"].append(line_id)
        customer["phone_number"] = carrier["lines"][-1]["phone_number"]
        bill_id = f"B{2001 + c}"
        carrier["bills"].append({"bill_id": bill_id, "customer_id": customer_id, "period_start": "2025-01-01",
                                 "period_end": "2025-01-31", "issue_date": "2025-01-05", "total_due": 80.0,
                                 "due_date": "2025-01-19", "status": "Paid", "line_items": []})
        customer["bill_ids"].append(bill_id)
        carrier["customers"].append(customer)
    return carrier, {}


# The one-fault telecom tasks of earlier versions, kept first with their ids: (name, reason, the phone's
# setup, the fix as (requestor, tool, arguments), the assertions that hold once fixed).
_TELECOM_PROBLEMS = (
    ("data_off", "Your mobile data does not work.", [("user", "turn_data_off", {})],
     [("user", "toggle_data", {})], [("user", "assert_mobile_data_status", {"expected_status": True})]),
    ("airplane_mode_on", "Your phone has no service.", [("user", "turn_airplane_mode_on", {})],
     [("user", "toggle_airplane_mode", {})], [("user", "assert_service_status", {"expected_status": "connected"})]),
    ("data_saver_on", "Your mobile data is very slow; you want excellent speed.",
     [("user", "turn_data_saver_mode_on", {})], [("user", "toggle_data_saver_mode", {})],
     [("user", "assert_internet_speed", {"expected_speed": 100, "expected_desc": "excellent"})]),
    ("abroad_roaming_off", "You are abroad and your mobile data does not work.",
     [("user", "set_user_location", {"abroad": True})],
     [("assistant", "enable_roaming", {}), ("user", "toggle_roaming", {})],
     [("user", "assert_mobile_data_status", {"expected_status": True})]),
)


#: The faults a built-in telecom task combines, τ²-bench's telecom task families: each fault's setup
#: (``env_type``, function, arguments) and its fix (requestor, tool, arguments), where ``{c}``,
#: ``{l}``, ``{b}`` and ``{used}`` stand for the customer, the line, the overdue bill's id and
#: just over the plan's data limit.
_ROAMING_SETUP = [("user", "set_user_location", {"abroad": True})]
TELECOM_FAULTS = {
    "airplane_mode_on": ([("user", "turn_airplane_mode_on", {})], [("user", "toggle_airplane_mode", {})]),
    "bad_network_preference": ([("user", "set_network_mode_preference", {"mode": "2g_only"})],
                               [("user", "set_network_mode_preference", {"mode": "4g_5g_preferred"})]),
    "bad_vpn": ([("user", "break_vpn", {})], [("user", "disconnect_vpn", {})]),
    "data_mode_off": ([("user", "turn_data_off", {})], [("user", "toggle_data", {})]),
    "data_saver_mode_on": ([("user", "turn_data_saver_mode_on", {})], [("user", "toggle_data_saver_mode", {})]),
    "data_usage_exceeded": ([("assistant", "set_data_usage", {"customer_id": "{c}", "line_id": "{l}",
                                                              "data_used_gb": "{used}"})],
                            [("assistant", "refuel_data", {"customer_id": "{c}", "line_id": "{l}", "gb_amount": 2.0})]),
    "user_abroad_roaming_enabled_off": (
        _ROAMING_SETUP + [("user", "turn_roaming_off", {}),
                          ("assistant", "enable_roaming", {"customer_id": "{c}", "line_id": "{l}"})],
        [("user", "toggle_roaming", {})]),
    "user_abroad_roaming_disabled_on": (
        _ROAMING_SETUP + [("user", "turn_roaming_on", {}),
                          ("assistant", "disable_roaming", {"customer_id": "{c}", "line_id": "{l}"}),
                          ("user", "simulate_network_search", {})],
        [("assistant", "enable_roaming", {"customer_id": "{c}", "line_id": "{l}"})]),
    "user_abroad_roaming_disabled_off": (
        _ROAMING_SETUP + [("user", "turn_roaming_off", {}),
                          ("assistant", "disable_roaming", {"customer_id": "{c}", "line_id": "{l}"}),
                          ("user", "simulate_network_search", {})],
        [("assistant", "enable_roaming", {"customer_id": "{c}", "line_id": "{l}"}), ("user", "toggle_roaming", {})]),
    "unseat_sim_card": ([("user", "unseat_sim_card", {})], [("user", "reseat_sim_card", {})]),
    "break_apn_settings": ([("user", "break_apn_settings", {})],
                           [("user", "reset_apn_settings", {}), ("user", "reboot_device", {})]),
    "overdue_bill_suspension": (
        [("assistant", "suspend_line_for_overdue_bill", {"customer_id": "{c}", "line_id": "{l}", "new_bill_id": "{b}",
                                                         "contract_ended": False}),
         ("user", "simulate_network_search", {})],
        [("assistant", "send_payment_request", {"customer_id": "{c}", "bill_id": "{b}"}), ("user", "make_payment", {}),
         ("assistant", "resume_line", {"customer_id": "{c}", "line_id": "{l}"}), ("user", "reboot_device", {})]),
    "contract_end_suspension": (
        [("assistant", "suspend_line_for_overdue_bill", {"customer_id": "{c}", "line_id": "{l}", "new_bill_id": "{b}",
                                                         "contract_ended": True}),
         ("user", "simulate_network_search", {})],
        [("assistant", "transfer_to_human_agents", {"summary": "I cannot fix the issue."})]),
    "lock_sim_card_pin": ([("user", "lock_sim_card", {"mode": "pin"})],
                          [("assistant", "transfer_to_human_agents", {"summary": "I cannot fix the issue."})]),
    "bad_wifi_calling": ([("user", "set_wifi_calling", {"enabled": True, "mms_over_wifi": True})],
                         [("user", "toggle_wifi_calling", {})]),
    "break_apn_mms_setting": ([("user", "break_apn_mms_setting", {})],
                              [("user", "reset_apn_settings", {}), ("user", "reboot_device", {})]),
    "break_app_sms_permission": ([("user", "remove_app_permission", {"app_name": "messaging", "permission": "sms"})],
                                 [("user", "grant_app_permission", {"app_name": "messaging", "permission": "sms"})]),
    "break_app_storage_permission": (
        [("user", "remove_app_permission", {"app_name": "messaging", "permission": "storage"})],
        [("user", "grant_app_permission", {"app_name": "messaging", "permission": "storage"})]),
}
_ROAMING = ("user_abroad_roaming_enabled_off", "user_abroad_roaming_disabled_on", "user_abroad_roaming_disabled_off")
_DATA = ("airplane_mode_on", "bad_network_preference", "data_mode_off", "data_usage_exceeded") + _ROAMING
#: Each problem a customer calls about: the reason, the faults that cause it (combined up to three,
#: none two of one exclusive group), the faults that only a human agent can fix (always alone),
#: and what holds once it is fixed.
TELECOM_ISSUES = {
    "mobile_data_issue": (
        "Your mobile data does not work or is very slow. You want it fixed, with excellent internet speed on "
        "your phone, and you do not accept a slower speed. There is no wifi where you are.",
        _DATA + ("bad_vpn", "data_saver_mode_on"), (),
        [("user", "assert_mobile_data_status", {"expected_status": True}),
         ("user", "assert_internet_speed", {"expected_speed": 200, "expected_desc": "excellent"})]),
    "service_issue": (
        "Your phone shows no service: you cannot call, text or use data. You want it working again.",
        ("airplane_mode_on", "break_apn_settings", "overdue_bill_suspension", "unseat_sim_card"),
        ("contract_end_suspension", "lock_sim_card_pin"),
        [("user", "assert_service_status", {"expected_status": "connected"})]),
    "mms_issue": (
        "You cannot send picture messages (MMS) from your phone. You want to be able to send them.",
        _DATA + ("unseat_sim_card", "bad_wifi_calling", "break_apn_mms_setting", "break_app_sms_permission",
                 "break_app_storage_permission"), (),
        [("user", "assert_can_send_mms", {"expected_status": True})]),
}
_EXCLUSIVE = (set(_ROAMING),)


def telecom_tasks(database: tuple[dict, dict], seed: int, count: int = 240) -> list[dict]:
    """The four one-fault tasks of earlier versions (their ids kept), then combinations of up to three
    faults of one problem (τ²-bench's telecom families) on the generated customers' phones, drawn
    with a seeded generator: ``count`` tasks in all. The ground truth holds the user's actions on the
    phone (requestor ``user``) and the agent's on the account."""
    carrier = database[0]
    tasks = []
    for n, customer in enumerate(carrier["customers"][:len(_TELECOM_PROBLEMS)]):
        name, reason, setup, fix, checks = _TELECOM_PROBLEMS[n]
        tasks.append(_telecom_task(f"telecom_{n}_{name}", customer, carrier, reason, "", setup, fix, checks, name))
    rng = random.Random(f"tau2-telecom-tasks-{seed}")
    plans = {plan["plan_id"]: plan for plan in carrier["plans"]}
    seen = set()
    for _ in range(count * 20):
        if len(tasks) >= count:
            break
        issue = rng.choice(sorted(TELECOM_ISSUES))
        reason, faults, alone, checks = TELECOM_ISSUES[issue]
        if alone and rng.random() < 0.1:
            combination = (rng.choice(alone),)
        else:
            combination = tuple(sorted(rng.sample(faults, rng.randint(1, 3))))
            if any(len(group & set(combination)) > 1 for group in _EXCLUSIVE):
                continue
        customer = rng.choice(carrier["customers"])
        if (customer["customer_id"], combination) in seen:
            continue
        seen.add((customer["customer_id"], combination))
        line = next(l for l in carrier["lines"] if l["phone_number"] == customer["phone_number"])
        values = {"{c}": customer["customer_id"], "{l}": line["line_id"], "{b}": f"B9{customer['customer_id'][1:]}",
                  "{used}": round(plans[line["plan_id"]]["data_limit_gb"] + 0.1, 1)}
        setup = [(env, func, _filled(args, values)) for fault in combination for env, func, args in
                 TELECOM_FAULTS[fault][0]]
        fix = [(requestor, tool_name, _filled(args, values)) for fault in combination
               for requestor, tool_name, args in TELECOM_FAULTS[fault][1]]
        if set(combination) & {"contract_end_suspension", "lock_sim_card_pin"}:  # only a human agent can help
            checks = [("user", "assert_service_status", {"expected_status": "no_service"})]
        if "data_usage_exceeded" in combination:
            checks = checks + [("assistant", "assert_data_refueling_amount",
                                {"customer_id": values["{c}"], "line_id": values["{l}"], "expected_amount": 2.0})]
        if "overdue_bill_suspension" in combination:
            checks = checks + [("assistant", "assert_no_overdue_bill", {"overdue_bill_id": values["{b}"]})]
        notes = []
        if set(combination) & set(_ROAMING):
            notes.append("You are abroad.")
        if "data_usage_exceeded" in combination:
            notes.append("If the agent offers, you are willing to refuel 2.0 GB of data, but you do not want to "
                         "change your plan.")
        if set(combination) & {"overdue_bill_suspension", "contract_end_suspension"}:
            notes.append("If the agent asks for it, you are willing to pay an overdue bill.")
        tasks.append(_telecom_task(f"telecom_{len(tasks)}_{issue}_{'+'.join(combination)}", customer, carrier,
                                   reason, " ".join(notes), setup, fix, checks, issue))
    return tasks


def _filled(arguments: dict, values: dict) -> dict:
    return {key: values.get(value, value) if isinstance(value, str) else value for key, value in arguments.items()}


def _telecom_task(task_id: str, customer: dict, carrier: dict, reason: str, notes: str, setup: list, fix: list,
                  checks: list, template: str) -> dict:
    line = next(l for l in carrier["lines"] if l["phone_number"] == customer["phone_number"])
    ids = {"customer_id": customer["customer_id"], "line_id": line["line_id"]}
    setup = [("user", "set_user_info", {"name": customer["full_name"], "phone_number": customer["phone_number"]}),
             *setup]
    known = f"You are {customer['full_name']} with phone number {customer['phone_number']}. {notes}".strip()
    # τ³'s tickets are the scenario for an agent working alone (solo mode): the issue, who and what is allowed
    ticket = f"{reason} Customer name: {customer['full_name']}, phone number: {customer['phone_number']}. {notes}"
    return {
        "id": task_id, "description": {"purpose": "built-in", "template": template}, "ticket": ticket.strip(),
        "user_scenario": _scenario("telecom", reason, known),
        "initial_state": {"initialization_data": None, "message_history": None, "initialization_actions": [
            {"env_type": env, "func_name": func, "arguments": args} for env, func, args in setup]},
        "evaluation_criteria": {
            "actions": [{"action_id": f"{task_id}_{i}", "requestor": requestor, "name": tool_name,
                         "arguments": {**(ids if requestor == "assistant" and tool_name in _LINE_TOOLS else {}),
                                       **args}, "info": None}
                        for i, (requestor, tool_name, args) in enumerate(fix)],
            "env_assertions": [{"env_type": env, "func_name": func, "arguments": args, "assert_value": True}
                               for env, func, args in checks],
            "communicate_info": [], "nl_assertions": None, "reward_basis": ["ENV_ASSERTION", "ACTION"]}}


#: The agent's tools that act on the customer's line (the legacy tasks leave their ids to be filled).
_LINE_TOOLS = ("enable_roaming", "disable_roaming", "refuel_data", "resume_line")
