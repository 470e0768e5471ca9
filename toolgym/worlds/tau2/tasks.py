"""Seeded databases of τ²-bench's schemas and built-in tasks over them, in τ²-bench's task format.

The built-in tasks are what the env runs with no data: each one is a user with a reason for
calling, what the user knows, the ground-truth actions (reads that find the record, then the
write) and, for some, a fact the agent must tell the user. Their ground truth is checked by
running it: a task whose write fails on the generated database is not emitted.
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


def airline_tasks(db: dict, seed: int, count: int = 12) -> list[dict]:
    rng = random.Random(f"tau2-airline-tasks-{seed}")
    tasks = []
    reservations = list(db["reservations"].values())
    rng.shuffle(reservations)
    for n, reservation in enumerate(reservations[:count]):
        user = db["users"][reservation["user_id"]]
        rid, uid = reservation["reservation_id"], user["user_id"]
        known = f"Your user id is {uid}. Your reservation id is {rid}."
        reads = [("get_user_details", {"user_id": uid}), ("get_reservation_details", {"reservation_id": rid})]
        kind = n % 3
        if kind == 0:
            scenario = _scenario("airline", f"You want to cancel your reservation {rid}.", known)
            tasks.append(_task(f"airline_{n}", scenario, reads + [("cancel_reservation", {"reservation_id": rid})]))
        elif kind == 1:
            card = next(m for m in user["payment_methods"] if m.startswith("credit_card"))
            scenario = _scenario("airline", f"You want to add two checked bags to reservation {rid}, paid with "
                                            f"your credit card {card}.", known + f" Your card is {card}.")
            tasks.append(_task(f"airline_{n}", scenario, reads + [("update_reservation_baggages", {
                "reservation_id": rid, "total_baggages": 3, "nonfree_baggages": 2, "payment_id": card})]))
        else:
            flight = reservation["flights"][0]
            status = db["flights"][flight["flight_number"]]["dates"][flight["date"]]["status"]
            scenario = _scenario("airline", f"You want to know the status of flight {flight['flight_number']} on "
                                            f"{flight['date']}, then change the passenger on reservation {rid} to "
                                            f"Kim Park, born 1990-01-01.", known)
            tasks.append(_task(f"airline_{n}", scenario, reads + [
                ("get_flight_status", {"flight_number": flight["flight_number"], "date": flight["date"]}),
                ("update_reservation_passengers", {"reservation_id": rid, "passengers": [
                    {"first_name": "Kim", "last_name": "Park", "dob": "1990-01-01"}]})], [status]))
    return tasks


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
    return db


def retail_tasks(db: dict, seed: int, count: int = 12) -> list[dict]:
    rng = random.Random(f"tau2-retail-tasks-{seed}")
    tasks = []
    orders = [o for o in db["orders"].values() if o["status"] in ("pending", "delivered")]
    rng.shuffle(orders)
    for n, order in enumerate(orders[:count]):
        user = db["users"][order["user_id"]]
        oid, uid = order["order_id"], user["user_id"]
        known = (f"You are {user['name']['first_name']} {user['name']['last_name']}, email {user['email']}. "
                 f"Your order is {oid}.")
        reads = [("find_user_id_by_email", {"email": user["email"]}), ("get_order_details", {"order_id": oid})]
        card = order["payment_history"][0]["payment_method_id"]
        if order["status"] == "pending":
            scenario = _scenario("retail", f"You want to cancel your pending order {oid} because you no longer "
                                           f"need it.", known)
            tasks.append(_task(f"retail_{n}", scenario, reads + [
                ("cancel_pending_order", {"order_id": oid, "reason": "no longer needed"})]))
        else:
            item = order["items"][0]
            scenario = _scenario("retail", f"You want to return the {item['name']} of order {oid}, refunded to "
                                           f"the original payment method, and to know its price.", known)
            tasks.append(_task(f"retail_{n}", scenario, reads + [
                ("return_delivered_order_items", {"order_id": oid, "item_ids": [item["item_id"]],
                                                  "payment_method_id": card})], [str(item["price"])]))
    return tasks


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
    inbox = _task("mock_inbox", _scenario("mock", "An unread notification keeps showing on your screen.",
                                          "You are user_1. You can check and dismiss your notifications."), [])
    inbox["evaluation_criteria"]["actions"] = [{"action_id": "mock_inbox_0", "requestor": "user",
                                                "name": "dismiss_notification",
                                                "arguments": {"notification_id": "notif_1"}, "info": None}]
    inbox["evaluation_criteria"]["env_assertions"] = [{"env_type": "user", "func_name": "assert_notification_status",
                                                       "arguments": {"notification_id": "notif_1",
                                                                     "expected_status": "read"}, "assert_value": True}]
    inbox["evaluation_criteria"]["reward_basis"] = ["DB", "ENV_ASSERTION"]
    return [create, complete, inbox]


# -- telecom -------------------------------------------------------------------------------
def telecom_database(seed: int, customers: int = 4) -> tuple[dict[str, list[dict]], dict]:
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


# Built-in telecom problems: (name, reason, the phone's setup, the fix as (requestor, tool, arguments),
# the assertions that hold once fixed).
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


def telecom_tasks(database: tuple[dict, dict], seed: int) -> list[dict]:
    carrier = database[0]
    tasks = []
    for n, customer in enumerate(carrier["customers"]):
        line = next(l for l in carrier["lines"] if l["phone_number"] == customer["phone_number"])
        ids = {"customer_id": customer["customer_id"], "line_id": line["line_id"]}
        name, reason, setup, fix, checks = _TELECOM_PROBLEMS[n % len(_TELECOM_PROBLEMS)]
        task_id = f"telecom_{n}_{name}"
        setup = [("user", "set_user_info", {"name": customer["full_name"], "phone_number": customer["phone_number"]}),
                 *setup]
        tasks.append({
            "id": task_id, "description": {"purpose": "built-in"}, "ticket": reason,
            "user_scenario": _scenario("telecom", reason, f"You are {customer['full_name']} with phone number "
                                                          f"{customer['phone_number']}."),
            "initial_state": {"initialization_data": None, "message_history": None, "initialization_actions": [
                {"env_type": env, "func_name": func, "arguments": args} for env, func, args in setup]},
            "evaluation_criteria": {
                "actions": [{"action_id": f"{task_id}_{i}", "requestor": requestor, "name": tool_name,
                             "arguments": {**(ids if requestor == "assistant" else {}), **args}, "info": None}
                            for i, (requestor, tool_name, args) in enumerate(fix)],
                "env_assertions": [{"env_type": env, "func_name": func, "arguments": args, "assert_value": True}
                                   for env, func, args in checks],
                "communicate_info": [], "nl_assertions": None, "reward_basis": ["ENV_ASSERTION", "ACTION"]}})
    return tasks
