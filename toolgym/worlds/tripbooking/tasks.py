"""Built-in Trip Booking tasks: queries from templates with their programs.

Every task is built around one round trip of the tickets table and one hotel room in the
destination, so its ground-truth search finds them. A third of the tasks book trip tickets,
a third hotels, a third both. The demonstration pool is drawn from its own random stream.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import date

from toolgym.worlds.cache import cached_json
from toolgym.worlds.tripbooking.data_model import _rows

# The modules whose source decides the generated pairs (the key of their cache entries).
_GENERATOR_MODULES = ("toolgym.worlds.tripbooking.tasks", "toolgym.worlds.tripbooking.data_model",
                      "toolgym.worlds.api_programs.places")
NUM_TEST_TASKS = 120
NUM_DEMOS = 11
BOOKING_TYPES = ("trip tickets", "hotels", "both")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def _say_date(day: date, rng: random.Random) -> str:
    return rng.choice((f"{MONTHS[day.month - 1]} {day.day:02d}, {day.year}",
                       f"{MONTHS[day.month - 1][:3]} {day.day} {day.year}",
                       f"{day.year}/{day.month:02d}/{day.day:02d}", day.isoformat()))


def _date_call(var: str, setter: str, day: date) -> list[str]:
    return [f"{var} = Date({day.month}, {day.day}, {day.year})", f"API.{setter}({var})"]


def _ticket_part(outbound: dict, back: dict, rng: random.Random, with_dates: bool) -> tuple[list[str], list[str], dict]:
    """Program lines and query phrases for the trip: transportation, route, people, prices, dates."""
    lines = [f'API.select_transportation("{outbound["transportation"]}")',
             f'location_from = Loc("{outbound["origin"]}")', "API.set_origin(location_from)",
             f'location_to = Loc("{outbound["destination"]}")', "API.set_destination(location_to)"]
    facts = {"transportation": outbound["transportation"], "from": outbound["origin"],
             "to": outbound["destination"], "people": ""}
    seats = min(outbound["seats_available"], back["seats_available"])
    adults = rng.randint(1, seats) if rng.random() < 0.7 else 0
    children = rng.randint(1, max(1, seats - adults)) if rng.random() < 0.35 and seats > adults else 0
    people = []
    if adults:
        lines.append(f"API.set_num_adults({adults})")
        people.append(f"{adults} adult{'s' if adults > 1 else ''}")
    if children:
        lines.append(f"API.set_num_children({children})")
        people.append(f"{children} child{'ren' if children > 1 else ''}")
    facts["people"] = " and ".join(people)
    phrases = []
    fare_low = min(outbound["adult_price"], back["adult_price"])
    fare_high = max(outbound["adult_price"], back["adult_price"])
    if rng.random() < 0.3:
        low = int(fare_low * rng.uniform(0.5, 0.95))
        lines.append(f"API.set_min_ticket_price({low})")
        phrases.append(f"tickets priced at least ${low}")
    if rng.random() < 0.4:
        high = math.ceil(fare_high * rng.uniform(1.05, 1.5))
        lines.append(f"API.set_max_ticket_price({high})")
        phrases.append(f"tickets no more than ${high}")
    if with_dates:
        lines += _date_call("departure_date", "set_departure_date", date.fromisoformat(outbound["date"]))
    return lines, phrases, facts


def _hotel_part(room: dict, checkin: date, checkout: date, rng: random.Random) -> tuple[list[str], list[str]]:
    lines = [f'hotel_location = Loc("{room["city"]}")', "API.set_hotel_location(hotel_location)"]
    lines += _date_call("checkin_date", "set_checkin_date", checkin)
    lines += _date_call("checkout_date", "set_checkout_date", checkout)
    phrases = []
    if rng.random() < 0.5:
        rooms = rng.randint(1, room["rooms_available"])
        lines.append(f"API.set_num_rooms({rooms})")
        phrases.append(f"{rooms} room{'s' if rooms > 1 else ''}")
    if rng.random() < 0.5:
        lines.append(f'API.select_room_type("{room["room_type"]}")')
        phrases.append(f"a {room['room_type']} room type")
    if rng.random() < 0.3:
        low = int(room["price"] * rng.uniform(0.5, 0.95))
        lines.append(f"API.set_min_room_price({low})")
        phrases.append(f"a room price of at least ${low} per night")
    if rng.random() < 0.5:
        high = math.ceil(room["price"] * rng.uniform(1.05, 1.6))
        lines.append(f"API.set_max_room_price({high})")
        phrases.append(f"rooms below {high} USD per night")
    return lines, phrases


def make_example(booking_type: str, outbound: dict, back: dict, room: dict, rng: random.Random) -> tuple[str, str]:
    """One (query, program) pair for a booking of ``booking_type`` around a round trip and a room."""
    leave, come_back = date.fromisoformat(outbound["date"]), date.fromisoformat(back["date"])
    lines = [f'API.select_booking_type("{booking_type}")']
    if booking_type == "hotels":
        hotel_lines, phrases = _hotel_part(room, leave, come_back, rng)
        nights = (come_back - leave).days
        query = (f"Book a hotel in {room['city']} for {nights} night{'s' if nights > 1 else ''}, checking in on "
                 f"{_say_date(leave, rng)} and checking out on {_say_date(come_back, rng)}")
        lines += hotel_lines
    else:
        round_trip = booking_type == "both" or rng.random() < 0.5
        ticket_lines, phrases, facts = _ticket_part(outbound, back, rng, with_dates=booking_type == "trip tickets")
        lines += ticket_lines
        kind = "round trip" if round_trip else "one-way"
        who = f" for {facts['people']}" if facts["people"] else ""
        query = (f"Find {kind} {facts['transportation']} tickets{who} from {facts['from']} to {facts['to']}, "
                 f"leaving on {_say_date(leave, rng)}")
        if booking_type == "trip tickets" and round_trip:
            lines += _date_call("return_date", "set_return_date", come_back)
        if round_trip:
            query += f" and returning on {_say_date(come_back, rng)}"
        if booking_type == "both":
            hotel_lines, hotel_phrases = _hotel_part(room, leave, come_back, rng)
            lines += hotel_lines
            query += f", and a hotel in {room['city']} for the stay"
            phrases += hotel_phrases
    lines.append("API.search()")
    if phrases:
        query += ", with " + (phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1])
    return query + ".", "\n".join(lines)


def _examples(seed: int, count: int, stream: str) -> list[tuple[str, str]]:
    rng = random.Random(f"tripbooking-{stream}-{seed}")
    tickets, rooms = _rows(seed)
    rooms_by_city: dict[str, list[dict]] = {}
    for room in rooms:
        rooms_by_city.setdefault(room["city"], []).append(room)
    examples = []
    for i in range(count):
        trip = rng.randrange(len(tickets) // 2)
        outbound, back = tickets[2 * trip], tickets[2 * trip + 1]
        room = rng.choice(rooms_by_city[outbound["destination"]])
        examples.append(make_example(BOOKING_TYPES[i % 3], outbound, back, room, rng))
    return examples


def builtin_tasks(seed: int = 0) -> list[tuple[str, str]]:
    """The built-in test tasks: ``NUM_TEST_TASKS`` (query, program) pairs."""
    return _cached("tripbooking-tasks", seed, lambda: _examples(seed, NUM_TEST_TASKS, "test"))


def demo_pool(seed: int = 0) -> list[tuple[str, str]]:
    """The demonstration pool: ``NUM_DEMOS`` (query, program) pairs."""
    return _cached("tripbooking-demos", seed, lambda: _examples(seed, NUM_DEMOS, "demo"))


def _cached(kind: str, seed: int, generate: Callable[[], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """(query, program) pairs from the cache folder, generated once per generator source and seed:
    generating draws every listing with faker, which is most of the env's make time."""
    return cached_json(kind, seed, _GENERATOR_MODULES, generate, list, lambda pairs: [(q, p) for q, p in pairs])
