"""Built-in AppBench tasks: seeded templates over the world, in the paper's four categories.

- SS: one app, one API;  SM: one app, several APIs (mostly dependent);
- MS: several apps, one API each;  MM: several apps, several APIs, with dependencies
  across apps (book a restaurant, then a cab to its address).

An instruction states only values the user knows; a value that only an earlier API can
provide (a restaurant's name, a train's departure time, a venue's address) appears in the
ground-truth plan as a reference, and the generator checks, by executing the plan, that every
call succeeds and every reference really resolves.
"""

from __future__ import annotations

import json
import operator
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from toolgym.worlds.appbench import data_model as m
from toolgym.worlds.appbench.plan import Call, Ref, Value
from toolgym.worlds.appbench.tools import TableQuery
from toolgym.worlds.appbench.world import CONTACTS, DAYS, RAIL_CITIES, AppBenchWorld, returned_fields
from toolgym.worlds.cache import cached_json

CATEGORIES = ("ss", "sm", "ms", "mm")


@dataclass
class AppTask:
    """One AppBench task: an instruction and its ground-truth plan."""

    task_id: str
    category: str
    instruction: str
    apps: list[str]
    calls: list[Call]
    user_values: dict[str, str] = field(default_factory=dict)
    plan_lines: list[str] = field(default_factory=list)  # the ground truth as the official script reads it

    def __post_init__(self):
        if not self.plan_lines:
            self.plan_lines = [c.render().split(": [", 1)[1][:-1] for c in self.calls]
        if not self.user_values:
            for call in self.calls:
                self.user_values.update({k: v for k, v in call.arguments.items() if not isinstance(v, Ref)})


def spoken_date(day: str) -> str:
    d = date.fromisoformat(day)
    suffix = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    return f"March {d.day}{suffix}"


def spoken_time(at: str) -> str:
    hour, minute = map(int, at.split(":"))
    half = "am" if hour < 12 else "pm"
    hour = hour % 12 or 12
    return f"{hour}:{minute:02d} {half}" if minute else f"{hour} {half}"


Part = tuple[str, list[Call]]  # an instruction clause and its calls


class _Rows:
    """The world's rows as generation starts, read once as named tuples (plans change the world,
    which is restored after each), and the rows that meet each condition the templates ask for,
    in id order (they ask for the same few conditions over and over)."""

    def __init__(self, world: AppBenchWorld):
        self.world = world
        self._tables: dict[type, list] = {}
        self._matches: dict[tuple, list] = {}

    def matching(self, table: type, where: dict) -> list:
        key = (table, tuple(where.items()))
        if key not in self._matches:
            if table not in self._tables:
                self._tables[table] = TableQuery(table).rows(self.world, "id", limit=None)
            rows = self._tables[table]
            if where:
                value_of = operator.attrgetter(*where)  # one value for one field, else a tuple
                wanted = next(iter(where.values())) if len(where) == 1 else tuple(where.values())
                rows = [r for r in rows if value_of(r) == wanted]
            self._matches[key] = list(rows)
        return self._matches[key]


class _Templates:
    """Each template samples real rows and returns (clause, calls), or None to resample."""

    def __init__(self, rows: _Rows, rng: random.Random):
        self.rows, self.rng = rows, rng

    def pick(self, table: type, **where) -> object:
        rows = self.rows.matching(table, where)
        return self.rng.choice(rows) if rows else None

    def day(self, first: int = 1, last: int = 13) -> str:
        return DAYS[self.rng.randint(first, last)]

    # -- single-API templates (SS, MS) ---------------------------------------------------------
    def find_restaurant(self) -> Part:
        r = self.pick(m.Restaurant)
        args = {"category": r.category, "location": r.location}
        text = f"find a {r.category} restaurant in {r.location}"
        if self.rng.random() < 0.4:
            args["price_range"] = r.price_range
            text = f"find a {r.price_range} {r.category} restaurant in {r.location}"
        if r.has_vegetarian_options == "True" and self.rng.random() < 0.3:
            args["has_vegetarian_options"] = "True"
            text += " with vegetarian options"
        elif r.has_seating_outdoors == "True" and self.rng.random() < 0.3:
            args["has_seating_outdoors"] = "True"
            text += " with outdoor seating"
        return text, [Call("Restaurants", "findrestaurants", args)]

    def find_cars(self) -> Part:
        car = self.pick(m.RentalCar)
        start = self.day(1, 10)
        end = DAYS[DAYS.index(start) + self.rng.randint(1, 5)]
        at = self.rng.choice(["09:00", "10:30", "13:30", "16:00"])
        args = {"city": car.city, "start_date": start, "pickup_time": at, "end_date": end}
        kind = ""
        if self.rng.random() < 0.5:
            args["car_type"] = car.car_type
            kind = f"{car.car_type} "
        return (f"look for a {kind}rental car in {car.city} from {spoken_date(start)} at {spoken_time(at)} "
                f"until {spoken_date(end)}", [Call("Rents", "getcarsavailable", args)])

    def ride_to(self, destination: str | Ref, what: str) -> Part:
        seats, kind = str(self.rng.randint(1, 4)), self.rng.choice(["Pool", "Regular", "Luxury"])
        return (f"book a {kind} cab for {seats} to {what}",
                [Call("Rents", "getride", {"destination": destination, "number_of_seats": seats, "ride_type": kind})])

    def ride(self) -> Part:
        a = self.pick(m.Attraction)
        return self.ride_to(a.attraction_name, a.attraction_name)

    def search_house(self) -> Part:
        h = self.pick(m.House)
        adults = str(self.rng.randint(1, h.max_adults))
        args = {"where_to": h.where_to, "number_of_adults": adults}
        text = f"search for a house in {h.where_to} for {adults} adult(s)"
        if self.rng.random() < 0.4:
            args["rating"] = str(int(h.rating))
            text += f" rated {args['rating']} or more"
        if h.has_laundry_service == "True" and self.rng.random() < 0.3:
            args["has_laundry_service"] = "True"
            text += " with laundry service"
        return text, [Call("Hotels", "searchhouse", args)]

    def find_trains(self) -> Part:
        t = self.pick(m.Train, date_of_journey=self.day(1, 13))
        args = {"from": t.from_city, "to": t.to_city, "date_of_journey": t.date_of_journey}
        extra = ""
        if self.rng.random() < 0.4:
            args["class"] = self.rng.choice(["Value", "Flexible", "Business"])
            extra = f" in {args['class']} class"
        if self.rng.random() < 0.4:
            args["number_of_adults"] = str(self.rng.randint(2, 4))
            extra += f" for {args['number_of_adults']} adults"
        return (f"find trains from {t.from_city} to {t.to_city} on {spoken_date(t.date_of_journey)}{extra}",
                [Call("Trains", "findtrains", args)])

    def find_bus(self) -> Part:
        b = self.pick(m.Bus, departure_date=self.day(1, 13), category="direct")
        args = {"from_city": b.from_city, "to_city": b.to_city, "departure_date": b.departure_date}
        extra = ""
        if self.rng.random() < 0.4:
            args["num_passengers"] = str(self.rng.randint(2, 4))
            extra = f" for {args['num_passengers']} people"
        return (f"find a bus from {b.from_city} to {b.to_city} on {spoken_date(b.departure_date)}{extra}",
                [Call("Buses", "findbus", args)])

    def find_flight(self) -> Part:
        f = self.pick(m.Flight, departure_date=self.day(1, 12))
        args = {"origin_airport": f.origin_airport, "destination_airport": f.destination_airport,
                "departure_date": f.departure_date}
        extra = ""
        if self.rng.random() < 0.4:
            args["seating_class"] = self.rng.choice(["Economy", "Premium Economy", "Business"])
            extra += f" in {args['seating_class']}"
        if self.rng.random() < 0.4:
            args["number_of_tickets"] = str(self.rng.randint(2, 4))
            extra += f" for {args['number_of_tickets']} people"
        if self.rng.random() < 0.3:
            args["airlines"] = f.airlines
            extra += f" with {f.airlines}"
        if self.rng.random() < 0.5:
            back = DAYS[DAYS.index(f.departure_date) + self.rng.randint(2, 6)]
            args["return_date"] = back
            return (f"search round-trip flights from {f.origin_airport} to {f.destination_airport} leaving "
                    f"{spoken_date(f.departure_date)} and returning {spoken_date(back)}{extra}",
                    [Call("Flights", "searchroundtripflights", args)])
        return (f"search a one-way flight from {f.origin_airport} to {f.destination_airport} on "
                f"{spoken_date(f.departure_date)}{extra}", [Call("Flights", "searchonewayflight", args)])

    def find_events(self) -> Part:
        e = self.pick(m.Event)
        args = {"event_type": e.event_type, "city": e.city}
        text = f"find {e.event_type.lower()} events in {e.city}"
        if self.rng.random() < 0.5:
            args["date"] = e.date
            text += f" on {spoken_date(e.date)}"
        return text, [Call("Events", "findevents", args)]

    def find_attractions(self) -> Part:
        a = self.pick(m.Attraction)
        args = {"location": a.location}
        text = f"find attractions in {a.location}"
        if self.rng.random() < 0.4:
            args["category"] = a.category
            text = f"find a {a.category.lower()} in {a.location}"
        if self.rng.random() < 0.4:
            args["free_entry"] = a.free_entry
            text += " with free entry" if a.free_entry == "True" else " that charges entry"
        if a.good_for_kids == "True" and self.rng.random() < 0.4:
            args["good_for_kids"] = "True"
            text += " that is good for kids"
        return text, [Call("Travel", "findattractions", args)]

    def weather(self) -> Part:
        city, day = self.rng.choice(RAIL_CITIES), self.day(1, 13)
        return (f"check the weather in {city} on {spoken_date(day)}",
                [Call("Weather", "getweather", {"city": city, "date": day})])

    def lookup_music(self) -> Part:
        s = self.pick(m.Song)
        if self.rng.random() < 0.5:
            return f"look up songs by {s.artist}", [Call("Music", "lookupmusic", {"artist": s.artist})]
        return f"look up {s.genre} songs from {s.year}", [Call("Music", "lookupmusic", {"genre": s.genre, "year": s.year})]

    def payment(self) -> Part:
        who, amount = self.rng.choice(CONTACTS), str(self.rng.randint(5, 200))
        if self.rng.random() < 0.5:
            method = self.rng.choice(["app balance", "debit card", "credit card"])
            return (f"send ${amount} to {who} from my {method}",
                    [Call("Payment", "makepayment", {"payment_method": method, "amount": amount, "receiver": who})])
        return f"request ${amount} from {who}", [Call("Payment", "requestpayment", {"receiver": who, "amount": amount})]

    def find_movies(self) -> Part:
        s = self.pick(m.Showing, show_date=DAYS[1])
        args = {"location": s.location}
        text = f"find movies playing in {s.location}"
        if self.rng.random() < 0.5:
            args["genre"] = s.genre
            text = f"find {s.genre.lower()} movies playing in {s.location}"
        return text, [Call("Movies", "findmovies", args)]

    def review_movies(self) -> Part:
        r = self.pick(m.MovieReview)
        return f"find reviews of movies directed by {r.directed_by}", [Call("Movies", "reviewmovies", {"directed_by": r.directed_by})]

    def find_stylist(self) -> Part:
        s = self.pick(m.Stylist)
        return f"find a hair stylist in {s.city}", [Call("Services", "find_stylist_provider", {"city": s.city})]

    def find_therapist(self) -> Part:
        t = self.pick(m.Therapist)
        return (f"find a {t.type.lower()} in {t.city}",
                [Call("Services", "find_therapist_provider", {"city": t.city, "type": t.type})])

    # -- multi-API templates of one app (SM, MM) -----------------------------------------------
    def reserve_restaurant(self) -> Part:
        text, calls = self.find_restaurant()
        day, at, seats = self.day(1, 13), self.rng.choice(["12:00", "13:30", "18:30", "19:00", "20:00"]), str(self.rng.randint(1, 6))
        calls.append(Call("Restaurants", "reserverestaurant", {
            "restaurant_name": Ref("restaurant_name"), "location": calls[0].arguments["location"], "time": at,
            "number_of_seats": seats, "date": day}))
        return f"{text} and reserve a table for {seats} there at {spoken_time(at)} on {spoken_date(day)}", calls

    def reserve_car(self) -> Part:
        text, calls = self.find_cars()
        args = dict(calls[0].arguments)
        if "car_type" not in args:
            return None  # reservecar needs the type; the user must say it
        insurance = self.rng.choice(["True", "False"])
        calls.append(Call("Rents", "reservecar", {
            "pickup_location": Ref("pickup_location"), "start_date": args["start_date"], "pickup_time": args["pickup_time"],
            "end_date": args["end_date"], "car_type": args["car_type"], "add_insurance": insurance}))
        return f"{text}, then reserve it {'with' if insurance == 'True' else 'without'} insurance", calls

    def book_house(self) -> Part:
        text, calls = self.search_house()
        start = self.day(1, 10)
        end = DAYS[DAYS.index(start) + self.rng.randint(1, 4)]
        args = calls[0].arguments
        calls.append(Call("Hotels", "bookhouse", {"where_to": args["where_to"], "number_of_adults": args["number_of_adults"],
                                                  "check_in_date": start, "check_out_date": end}))
        return f"{text} and book one from {spoken_date(start)} to {spoken_date(end)}", calls

    def buy_train(self) -> Part:
        text, calls = self.find_trains()
        args = calls[0].arguments
        adults, protection = str(self.rng.randint(1, 3)), self.rng.choice(["True", "False"])
        ticket = {"from": args["from"], "to": args["to"], "date_of_journey": args["date_of_journey"],
                  "journey_start_time": Ref("journey_start_time"), "number_of_adults": adults,
                  "trip_protection": protection}
        if "class" in args:
            ticket["class"] = args["class"]
        calls.append(Call("Trains", "gettraintickets", ticket))
        return (f"{text}, and book {adults} ticket(s) on the first one {'with' if protection == 'True' else 'without'} "
                f"trip protection"), calls

    def buy_bus(self) -> Part:
        text, calls = self.find_bus()
        args = calls[0].arguments
        n = args.get("num_passengers", str(self.rng.randint(1, 3)))
        calls.append(Call("Buses", "buybusticket", {"from_city": args["from_city"], "to_city": args["to_city"],
                                                    "departure_date": args["departure_date"],
                                                    "departure_time": Ref("departure_time"), "num_passengers": n}))
        return f"{text}, and buy {n} ticket(s) on the earliest one", calls

    def buy_event(self) -> Part:
        text, calls = self.find_events()
        n = str(self.rng.randint(1, 4))
        args = calls[0].arguments
        calls.append(Call("Events", "buyeventtickets", {"event_name": Ref("event_name"), "number_of_tickets": n,
                                                        "date": args.get("date", Ref("date")), "city": args["city"]}))
        return f"{text} and buy {n} ticket(s) for the first one", calls

    def buy_movie(self) -> Part:
        text, calls = self.find_movies()
        day, n = self.day(1, 12), str(self.rng.randint(1, 4))
        location = calls[0].arguments["location"]
        calls.append(Call("Movies", "gettimesformovie", {"movie_name": Ref("movie_name"), "location": location,
                                                         "show_date": day, "theater_name": Ref("theater_name")}))
        calls.append(Call("Movies", "buymovietickets", {
            "movie_name": Ref("movie_name"), "number_of_tickets": n, "show_date": day, "location": location,
            "show_time": Ref("show_time"), "show_type": Ref("show_type")}))
        return f"{text}, check the first one's show times on {spoken_date(day)} and buy {n} ticket(s) for the earliest show", calls

    def book_stylist(self) -> Part:
        text, calls = self.find_stylist()
        day, at = self.day(1, 13), self.rng.choice(["10:00", "11:30", "14:00", "16:30"])
        calls.append(Call("Services", "book_stylist_appointment", {"stylist_name": Ref("stylist_name"),
                                                                   "appointment_time": at, "appointment_date": day}))
        return f"{text} and book an appointment there at {spoken_time(at)} on {spoken_date(day)}", calls

    def book_therapist(self) -> Part:
        text, calls = self.find_therapist()
        day, at = self.day(1, 13), self.rng.choice(["09:00", "10:30", "15:00", "17:00"])
        calls.append(Call("Services", "book_therapist_appointment", {"therapist_name": Ref("therapist_name"),
                                                                     "appointment_time": at, "appointment_date": day}))
        return f"{text} and book an appointment at {spoken_time(at)} on {spoken_date(day)}", calls

    def play_music(self) -> Part:
        s = self.pick(m.Song)
        device = self.rng.choice(["Living room", "Kitchen", "Patio"])
        return (f"look up songs by {s.artist} and play the first one in the {device.lower()}",
                [Call("Music", "lookupmusic", {"artist": s.artist}),
                 Call("Music", "playmedia", {"track": Ref("track"), "device": device})])

    def payments(self) -> Part:
        first, second = self.rng.sample(CONTACTS, 2)
        a, b = str(self.rng.randint(5, 200)), str(self.rng.randint(5, 200))
        return (f"request ${a} from {first} and send ${b} to {second} from my debit card",
                [Call("Payment", "requestpayment", {"receiver": first, "amount": a}),
                 Call("Payment", "makepayment", {"payment_method": "debit card", "amount": b, "receiver": second})])

    # -- one search, then a cab to what it found (MS with a dependency) ------------------------
    def attraction_and_ride(self) -> Part:
        text, calls = self.find_attractions()
        more, ride = self.ride_to(Ref("attraction_name"), "the first one")
        return f"{text}, then {more}", calls + ride

    def restaurant_and_ride(self) -> Part:
        text, calls = self.find_restaurant()
        more, ride = self.ride_to(Ref("address"), "the best rated one")
        return f"{text}, then {more}", calls + ride

    def events_and_ride(self) -> Part:
        text, calls = self.find_events()
        more, ride = self.ride_to(Ref("venue_address"), "the venue of the first one")
        return f"{text}, then {more}", calls + ride

    # -- cross-app follow-ups (MM) -------------------------------------------------------------
    def dinner_and_ride(self) -> Part:
        text, calls = self.reserve_restaurant()
        more, ride = self.ride_to(Ref("address"), "the restaurant")
        return f"{text}, then {more}", calls + ride

    def event_and_ride(self) -> Part:
        text, calls = self.buy_event()
        more, ride = self.ride_to(Ref("venue_address"), "the venue")
        return f"{text}, then {more}", calls + ride

    def stay_and_ride(self) -> Part:
        text, calls = self.book_house()
        more, ride = self.ride_to(Ref("address"), "the house")
        return f"{text}, then {more}", calls + ride

    def movie_and_ride(self) -> Part:
        text, calls = self.buy_movie()
        more, ride = self.ride_to(Ref("street_address"), "the theater")
        return f"{text}, then {more}", calls + ride

    def stylist_and_ride(self) -> Part:
        text, calls = self.book_stylist()
        more, ride = self.ride_to(Ref("street_address"), "the salon")
        return f"{text}, then {more}", calls + ride

    def event_and_pay(self) -> Part:
        text, calls = self.buy_event()
        who = self.rng.choice(CONTACTS)
        calls.append(Call("Payment", "requestpayment", {"receiver": who, "amount": Ref("price_per_ticket")}))
        return f"{text}, and request the price of one ticket from {who}", calls

    def train_and_weather(self) -> Part:
        text, calls = self.buy_train()
        args = calls[0].arguments
        calls.append(Call("Weather", "getweather", {"city": args["to"], "date": args["date_of_journey"]}))
        return f"{text}; also check the weather in {args['to']} that day", calls


SINGLE = ("find_restaurant", "find_cars", "ride", "search_house", "find_trains", "find_bus", "find_flight",
          "find_events", "find_attractions", "weather", "lookup_music", "payment", "find_movies", "review_movies",
          "find_stylist", "find_therapist")
MULTI = ("reserve_restaurant", "reserve_car", "book_house", "buy_train", "buy_bus", "buy_event", "buy_movie",
         "book_stylist", "book_therapist", "play_music", "payments")
CROSS_SINGLE = ("attraction_and_ride", "restaurant_and_ride", "events_and_ride")
CROSS = ("dinner_and_ride", "event_and_ride", "stay_and_ride", "movie_and_ride", "stylist_and_ride", "event_and_pay",
         "train_and_weather")


def _apps(calls: list[Call]) -> set[str]:
    return {c.app for c in calls}


def _compose(t: _Templates, category: str) -> Part | None:
    rng = t.rng
    if category == "ss":
        return getattr(t, rng.choice(SINGLE))()
    if category == "sm":
        return getattr(t, rng.choice(MULTI))()
    parts: list[Part] = []
    if category == "ms":
        if rng.random() < 0.3:
            parts.append(getattr(t, rng.choice(CROSS_SINGLE))())
        for name in rng.sample(SINGLE, 3 - len(parts) if rng.random() < 0.5 else 2 - len(parts)):
            parts.append(getattr(t, name)())
    else:
        first = getattr(t, rng.choice(CROSS if rng.random() < 0.6 else MULTI))()
        if first is None:
            return None
        parts.append(first)
        if len(_apps(first[1])) == 1 or rng.random() < 0.3:
            parts.append(getattr(t, rng.choice(SINGLE + MULTI))())
    if any(p is None for p in parts):
        return None
    seen: set[str] = set()
    for _, calls in parts:  # apps of independent parts differ, so no reference crosses parts
        if _apps(calls) & seen:
            return None
        seen |= _apps(calls)
    return "; ".join(text for text, _ in parts), [c for _, calls in parts for c in calls]


def _category_ok(category: str, calls: list[Call]) -> bool:
    apps = Counter(c.app for c in calls)
    multi_app = len(apps) > 1
    multi_api = any(n > 1 for n in apps.values())
    return {"ss": not multi_app and len(calls) == 1, "sm": not multi_app and len(calls) > 1,
            "ms": multi_app and not multi_api, "mm": multi_app and multi_api}[category]


def _with_returns(calls: list[Call]) -> list[Call]:
    return [Call(c.app, c.api, c.arguments, returned_fields(c)) for c in calls]


def plan_effects(world: AppBenchWorld, calls: list[Call], base, reads: dict) -> Counter | None:
    """The rows the plan writes (``world.effects()``) when every call of it succeeds on the world,
    each reference resolving and each search finding something; else None. The world is put
    back to ``base`` if the plan changed it. ``reads``: results of read-only calls on ``base``."""
    history = world.execute_plan(calls, reads)
    runs = all(done.result.ok and done.result.response not in ([], None) for done in history)
    effects = world.effects() if runs else None
    if any(done.result.is_action and done.result.ok for done in history):
        world.restore(base)
    return effects


def generate_tasks(world: AppBenchWorld, seed: int,
                   per_category: int = 200) -> tuple[list[AppTask], dict[str, Counter]]:
    """``per_category`` verified tasks of each category, identical for identical seeds, and by
    task id the rows each one's ground-truth plan writes on the world as it is now (it is put back)."""
    tasks: list[AppTask] = []
    effects: dict[str, Counter] = {}
    base = world.snapshot()
    rows = _Rows(world)
    reads: dict = {}  # plans start from base, and many start with the same search
    for category in CATEGORIES:
        rng = random.Random(f"appbench-{seed}-{category}")
        templates = _Templates(rows, rng)
        made, seen = 0, set()
        while made < per_category:
            part = _compose(templates, category)
            if part is None:
                continue
            text, calls = part
            calls = _with_returns(calls)
            if not _category_ok(category, calls) or text in seen:
                continue
            written = plan_effects(world, calls, base, reads)
            if written is None:
                continue
            seen.add(text)
            instruction = text[0].upper() + text[1:] + "."
            task_id = f"{category}-{made}"
            tasks.append(AppTask(task_id=task_id, category=category, instruction=instruction,
                                 apps=[c.app for c in calls], calls=calls))
            effects[task_id] = written
            made += 1
    return tasks, effects


#: Modules whose source decides the built-in tasks and their effects (the world's are in its fingerprint).
_GENERATOR_MODULES = ("toolgym.worlds.appbench.tasks", "toolgym.worlds.appbench.plan",
                      "toolgym.worlds.appbench.tools", "toolgym.worlds.appbench.world")


@dataclass(frozen=True)
class BuiltinTaskSet:
    """The generated tasks and, by task id, the rows their ground-truth plan writes (``world.effects()``)."""

    tasks: list[AppTask]
    effects: dict[str, Counter]


def builtin_task_set(world: AppBenchWorld, seed: int, per_category: int) -> BuiltinTaskSet:
    """The generated tasks of ``world`` and their effects, generated once per process and cache folder.

    Generating executes every candidate plan (seconds), so the set is kept in memory and in
    the cache folder (:mod:`toolgym.worlds.cache`), keyed by the world's fingerprint, the
    generator's source, ``seed`` and ``per_category``.

    Args:
        world: The freshly built world the tasks run on.
        seed: Seed of the task generator.
        per_category: Tasks per category.
    """
    fingerprint = world.fingerprint()
    key = json.dumps([fingerprint, seed, per_category], sort_keys=True)
    if key not in _BUILTIN:
        def generate() -> BuiltinTaskSet:
            initial = world.snapshot()
            task_set = BuiltinTaskSet(*generate_tasks(world, seed, per_category))
            world.restore(initial)
            return task_set

        _BUILTIN[key] = cached_json("appbench-tasks", [fingerprint, seed, per_category], _GENERATOR_MODULES,
                                    generate, _encode_task_set, _decode_task_set)
    return _BUILTIN[key]


def builtin_tasks(world: AppBenchWorld, seed: int, per_category: int) -> list[AppTask]:
    """The generated tasks of ``world`` (see :func:`builtin_task_set`)."""
    return builtin_task_set(world, seed, per_category).tasks


_BUILTIN: dict[str, BuiltinTaskSet] = {}


def _encode_value(value: Value) -> dict:
    return {"ref": value.field} if isinstance(value, Ref) else {"value": value}


def _decode_value(value: dict) -> Value:
    return Ref(value["ref"]) if "ref" in value else value["value"]


def _encode_task_set(task_set: BuiltinTaskSet) -> dict:
    tasks = [{"task_id": t.task_id, "category": t.category, "instruction": t.instruction, "apps": t.apps,
              "calls": [{"app": c.app, "api": c.api, "returns": list(c.returns),
                         "arguments": [[k, _encode_value(v)] for k, v in c.arguments.items()]} for c in t.calls],
              "user_values": [[k, _encode_value(v)] for k, v in t.user_values.items()],
              "plan_lines": t.plan_lines} for t in task_set.tasks]
    effects = {task_id: [[table, list(row), count] for (table, row), count in counter.items()]
               for task_id, counter in task_set.effects.items()}
    return {"tasks": tasks, "effects": effects}


def _decode_task_set(stored: dict) -> BuiltinTaskSet:
    tasks = [AppTask(task_id=t["task_id"], category=t["category"], instruction=t["instruction"], apps=t["apps"],
                     calls=[Call(c["app"], c["api"], {k: _decode_value(v) for k, v in c["arguments"]},
                                 tuple(c["returns"])) for c in t["calls"]],
                     user_values={k: _decode_value(v) for k, v in t["user_values"]}, plan_lines=t["plan_lines"])
             for t in stored["tasks"]]
    effects = {task_id: Counter({(table, tuple(row)): count for table, row, count in rows})
               for task_id, rows in stored["effects"].items()}
    return BuiltinTaskSet(tasks, effects)
