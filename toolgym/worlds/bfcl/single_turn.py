"""Generated BFCL single-turn tasks to train on: function families, questions, possible answers.

A *family* is one function doc in BFCL's JSON form (``{"name", "description", "parameters":
{"type": "dict", "properties", "required"}}``) with a drawer that picks the values a user asks
for and phrases the question several ways. The categories compose families as BFCL's do:
``simple_python`` one call of the one function offered; ``multiple`` one call among several
offered; ``parallel`` two or three calls of one function; ``parallel_multiple`` calls of two
functions; ``irrelevance`` a question none of the offered functions serves (another family's
question, or a general one), whose answer is no call.

The written families below read like users; the composed ones (:mod:`toolgym.worlds.bfcl.composed`)
vary the function docs and the values' types. Half of the tasks draw on each. Numbers are
answered as the user says them (``12`` an int even for a float parameter, which BFCL accepts).

Ground truths are BFCL's possible answers (per call ``{name: {param: [acceptable values]}}``,
``""`` marking a parameter that may be left out; a dict's acceptable values per key). The
families are split by name: ``test`` holds every fourth family and ``train`` the rest, so a
model trained on ``train`` meets the ``test`` functions for the first time. Nothing here comes
from BFCL's data: the functions, names and questions are toolgym's own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from faker import Faker

from toolgym.worlds.bfcl import composed
from toolgym.worlds.bfcl.composed import listed, said

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
SPLITS = ("train", "test")


@dataclass(frozen=True)
class Family:
    """A function and how users ask for it: ``draw`` returns the values asked for (parameter ->
    value; an optional parameter left out is absent) and phrasings of the request."""

    name: str
    description: str
    properties: dict
    required: tuple[str, ...]
    draw: Callable[[random.Random, Faker], tuple[dict, list[str]]]
    topic: str = ""  # composed families that act on the same thing share a topic

    def doc(self) -> dict:
        return {"name": self.name, "description": self.description,
                "parameters": {"type": "dict", "properties": self.properties, "required": list(self.required)}}

    def answer(self, values: dict) -> dict:
        """The possible answer of a call asking for ``values``: each optional parameter left out
        may be omitted or given its default."""
        params = {}
        for param, schema in self.properties.items():
            if param in values:
                params[param] = _options(values[param], schema)
            elif param not in self.required:
                params[param] = ["", schema["default"]] if "default" in schema else [""]
        return {self.name: params}


def _options(value: Any, schema: dict) -> list:
    if schema["type"] == "dict":
        return [{key: [item] for key, item in value.items()}]
    if schema["type"] == "float":  # as spoken: "12" is 12 (BFCL takes an int for a float; not a float for an int)
        return [int(value)] if float(value).is_integer() else [float(value)]
    if isinstance(value, DateValue):
        return value.options()
    return [value]


@dataclass(frozen=True)
class DateValue:
    """A date asked for in one of several spellings; the answer accepts each of them."""

    day: date

    def options(self) -> list[str]:
        return [self.day.isoformat(), self.day.strftime("%B %d, %Y").replace(" 0", " "), self.day.strftime("%m/%d/%Y")]

    def spoken(self, rng: random.Random) -> str:
        return rng.choice(self.options())


# -- helpers for drawers ----------------------------------------------------------------------------
def _prop(kind: str, description: str, **extra: Any) -> dict:
    return {"type": kind, "description": description, **extra}


def _optional(kind: str, description: str, default: Any, **extra: Any) -> dict:
    return {"type": kind, "description": f"{description} Default is {default!r}.", "default": default, **extra}


def _day(rng: random.Random) -> DateValue:
    return DateValue(date(2025, 1, 1) + timedelta(days=rng.randrange(700)))


def _decimal(rng: random.Random, low: float, high: float, places: int = 1) -> float:
    return round(rng.uniform(low, high), places)


def _maybe(rng: random.Random, values: dict, param: str, value: Any, chance: float = 0.5) -> bool:
    """Ask for an optional parameter's value in some requests (``value``, not the default)."""
    if rng.random() < chance:
        values[param] = value
        return True
    return False


# -- the families -------------------------------------------------------------------------------------
def _orchard(rng, fake):
    trees, per_tree = rng.randint(20, 900), _decimal(rng, 5, 80)
    values = {"tree_count": trees, "yield_per_tree": per_tree}
    unit = " in pounds" if _maybe(rng, values, "unit", "lb") else ""
    return values, [f"Estimate the harvest of an orchard with {trees} trees giving {said(per_tree)} each{unit}.",
                    f"My orchard has {trees} trees and each yields about {said(per_tree)}. What's the total crop{unit}?",
                    f"How much fruit will {trees} trees produce at {said(per_tree)} per tree{unit}?"]


def _fleet(rng, fake):
    vehicle = f"{fake.bothify('??-####').upper()}"
    when = _day(rng)
    services = rng.sample(["oil_change", "tire_rotation", "brake_check", "battery_test", "wiper_replacement"],
                          rng.randint(1, 3))
    values = {"vehicle_id": vehicle, "service_date": when, "services": services}
    urgency = " It's urgent." if _maybe(rng, values, "priority", "high") else ""
    spoken = when.spoken(rng)
    jobs = listed([s.replace("_", " ") for s in services])
    return values, [f"Book {jobs} for vehicle {vehicle} on {spoken}.{urgency}",
                    f"Schedule service for truck {vehicle} on {spoken}: {jobs}.{urgency}",
                    f"Vehicle {vehicle} needs {jobs}; put it in the workshop on {spoken}.{urgency}"]


_FLEET_PROPS = {
    "vehicle_id": _prop("string", "Registration of the vehicle, e.g. 'AB-1234'."),
    "service_date": _prop("string", "Day of the visit, YYYY-MM-DD."),
    "services": _prop("array", "Jobs to do.", items={"type": "string", "enum": [
        "oil_change", "tire_rotation", "brake_check", "battery_test", "wiper_replacement"]}),
    "priority": _optional("string", "How soon the workshop must fit it in.", "normal", enum=["low", "normal", "high"]),
}


def _library(rng, fake):
    isbn = fake.isbn13(separator="")
    member = fake.name()
    branch = rng.choice(["Riverside", "Old Town", "Hillcrest", "Harbor", "University", "Westgate"])
    values = {"isbn": isbn, "member_name": member, "pickup_branch": branch}
    loan = f" for {values['loan_days']} days" if _maybe(rng, values, "loan_days", rng.choice([7, 21, 28])) else ""
    return values, [f"Reserve the book with ISBN {isbn} for {member}, to collect at the {branch} branch{loan}.",
                    f"{member} wants ISBN {isbn} held at {branch}{loan}. Can you place the hold?",
                    f"Put a hold on {isbn} for member {member}; pickup at {branch}{loan}."]


def _bakery(rng, fake):
    recipe = rng.choice(["sourdough loaf", "lemon tart", "cinnamon rolls", "focaccia", "carrot cake", "brioche"])
    servings = rng.randint(2, 60)
    values = {"recipe": recipe, "servings": servings}
    cups = " in cups and ounces" if _maybe(rng, values, "metric", False) else ""
    return values, [f"Scale the {recipe} recipe to {servings} servings{cups}.",
                    f"I'm baking {recipe} for {servings} people. Adjust the quantities{cups}.",
                    f"Recalculate ingredients of {recipe} for {servings} servings{cups}, please."]


def _transit(rng, fake):
    origin, destination = fake.street_name(), fake.street_name()
    while destination == origin:
        destination = fake.street_name()
    depart = f"{rng.randint(5, 22):02d}:{rng.choice(['00', '15', '30', '45'])}"
    modes = rng.sample(["bus", "tram", "metro", "ferry"], rng.randint(1, 3))
    values = {"origin": origin, "destination": destination, "depart_time": depart, "modes": modes}
    limit = ""
    if _maybe(rng, values, "max_transfers", rng.choice([0, 1, 3])):
        limit = f" with at most {values['max_transfers']} transfers"
    by = listed(modes)
    return values, [f"Plan a trip from {origin} to {destination} leaving at {depart} by {by}{limit}.",
                    f"How do I get from {origin} to {destination} at {depart}? Only {by}{limit}.",
                    f"Route me {origin} -> {destination}, departure {depart}, using {by}{limit}."]


def _solar(rng, fake):
    area, efficiency, hours = _decimal(rng, 2, 60), _decimal(rng, 0.12, 0.24, 2), _decimal(rng, 2, 9)
    values = {"area_m2": area, "efficiency": efficiency, "sun_hours": hours}
    return values, [f"What does a {said(area)} m² solar array at {said(efficiency)} efficiency make in "
                    f"{said(hours)} hours of sun?",
                    f"Energy output of panels: area {said(area)} square meters, efficiency {said(efficiency)}, "
                    f"{said(hours)} sun hours.",
                    f"Compute the daily yield of {said(area)} m2 of panels ({said(efficiency)} efficient) with "
                    f"{said(hours)} peak sun hours."]


def _payroll(rng, fake):
    gross, rate = float(rng.randrange(2000, 12000, 50)), _decimal(rng, 0.1, 0.45, 2)
    pension, health = float(rng.randrange(50, 600, 10)), float(rng.randrange(20, 300, 5))
    values = {"gross_monthly": gross, "tax_rate": rate, "deductions": {"pension": pension, "health": health}}
    return values, [f"Net pay for a gross of {said(gross)} a month at a {said(rate)} tax rate, with {said(pension)} "
                    f"pension and {said(health)} health deductions?",
                    f"{fake.first_name()} earns {said(gross)} gross monthly, taxed at {said(rate)}; deductions are "
                    f"pension {said(pension)} and health {said(health)}. What's the take-home?",
                    f"Work out take-home salary: gross {said(gross)}, tax rate {said(rate)}, pension {said(pension)}, "
                    f"health insurance {said(health)}."]


def _warehouse(rng, fake):
    pallets = rng.sample(range(100, 999), rng.randint(2, 5))
    zones = rng.sample(["A1", "A2", "B1", "B4", "C3", "D2", "cold-1", "dock"], 2)
    values = {"pallet_ids": pallets, "from_zone": zones[0], "to_zone": zones[1]}
    ids = listed(pallets)
    return values, [f"Move pallets {ids} from zone {zones[0]} to zone {zones[1]}.",
                    f"Shift pallet numbers {ids} out of {zones[0]} and into {zones[1]}.",
                    f"We need pallets {ids} relocated: {zones[0]} to {zones[1]}."]


def _clinic(rng, fake):
    patient, specialty, when = fake.name(), rng.choice(["cardiology", "dermatology", "pediatrics", "orthopedics",
                                                         "neurology"]), _day(rng)
    values = {"patient_name": patient, "specialty": specialty, "visit_date": when}
    remote = " by video call" if _maybe(rng, values, "telehealth", True) else ""
    spoken = when.spoken(rng)
    return values, [f"Book a {specialty} appointment for {patient} on {spoken}{remote}.",
                    f"{patient} needs to see {specialty} on {spoken}{remote}. Please make the booking.",
                    f"Schedule {patient} with a {specialty} specialist, {spoken}{remote}."]


def _currency(rng, fake):
    amount = float(rng.randrange(5, 50000)) if rng.random() < 0.5 else _decimal(rng, 1, 5000, 2)
    source, target = rng.sample(["USD", "EUR", "JPY", "GBP", "CHF", "INR", "BRL", "ZAR", "KRW"], 2)
    values = {"amount": amount, "from_currency": source, "to_currency": target}
    return values, [f"Convert {said(amount)} {source} to {target}.",
                    f"How much is {said(amount)} {source} in {target}?",
                    f"I have {said(amount)} {source}; what would I get in {target}?"]


def _garden(rng, fake):
    plant = rng.choice(["basil", "tomato", "fern", "lavender", "fig tree", "orchid", "mint"])
    liters = _decimal(rng, 0.5, 40)
    values = {"plant": plant, "pot_liters": liters}
    climate = ""
    if _maybe(rng, values, "climate", rng.choice(["dry", "humid"])):
        climate = f" in a {values['climate']} climate"
    return values, [f"How often should I water a {plant} in a {said(liters)} liter pot{climate}?",
                    f"Make a watering plan for my {plant} ({said(liters)} L pot){climate}.",
                    f"Watering schedule for {plant}, pot volume {said(liters)} liters{climate}?"]


def _hotel(rng, fake):
    city, when, nights = fake.city(), _day(rng), rng.randint(1, 14)
    values = {"city": city, "check_in": when, "nights": nights}
    guests = f" for {values['guests']} guests" if _maybe(rng, values, "guests", rng.choice([1, 3, 4, 5])) else ""
    extras = ""
    if _maybe(rng, values, "amenities", rng.sample(["pool", "parking", "gym", "breakfast", "wifi"], 2)):
        extras = f" with {listed(values['amenities'])}"
    spoken = when.spoken(rng)
    return values, [f"Find hotel rooms in {city} from {spoken} for {nights} nights{guests}{extras}.",
                    f"I need somewhere to stay in {city}, checking in {spoken}, {nights} nights{guests}{extras}.",
                    f"Search rooms{extras} in {city}: arrival {spoken}, {nights} nights{guests}."]


def _prism(rng, fake):
    base, height = _decimal(rng, 1, 200), _decimal(rng, 1, 50)
    values = {"base_area": base, "height": height}
    return values, [f"Volume of a prism with base area {said(base)} and height {said(height)}?",
                    f"A prism has a {said(base)} square-unit base and is {said(height)} tall. How big is it inside?",
                    f"Compute the prism volume for base {said(base)}, height {said(height)}."]


def _weighted(rng, fake):
    count = rng.randint(3, 5)
    points = [float(rng.randint(1, 100)) for _ in range(count)]
    weights = [_decimal(rng, 0.1, 3) for _ in range(count)]
    values = {"values": points, "weights": weights}
    return values, [f"Weighted average of {listed([said(v) for v in points])} with weights "
                    f"{listed([said(w) for w in weights])}.",
                    f"Take the values {[said(v) for v in points]} and weights {[said(w) for w in weights]}; "
                    f"what's the weighted mean?",
                    f"Compute a weighted mean: values {listed([said(v) for v in points])}; weights "
                    f"{listed([said(w) for w in weights])}."]


def _elo(rng, fake):
    rating, opponent = rng.randint(800, 2700), rng.randint(800, 2700)
    result = rng.choice(["win", "draw", "loss"])
    values = {"rating": rating, "opponent_rating": opponent, "result": result}
    k = f" using a K-factor of {values['k_factor']}" if _maybe(rng, values, "k_factor", rng.choice([10, 16, 40])) else ""
    verb = {"win": "beat", "draw": "drew with", "loss": "lost to"}[result]
    return values, [f"I'm rated {rating} and {verb} a {opponent} player. What's my rating change{k}?",
                    f"Elo update for a {rating} player after a {result} against {opponent}{k}.",
                    f"How many points does a {rating} player gain or lose after a {result} vs {opponent}{k}?"]


def _playlist(rng, fake):
    mood, minutes = rng.choice(["calm", "upbeat", "melancholic", "focused", "romantic"]), rng.randint(10, 180)
    values = {"mood": mood, "duration_minutes": minutes}
    explicit = " Explicit tracks are fine." if _maybe(rng, values, "allow_explicit", True) else ""
    return values, [f"Make me a {mood} playlist of {minutes} minutes.{explicit}",
                    f"Put together {minutes} minutes of {mood} music.{explicit}",
                    f"I want a {minutes}-minute playlist that feels {mood}.{explicit}"]


def _mail(rng, fake):
    recipient, subject = fake.email(), fake.catch_phrase()
    values = {"recipient": recipient, "subject": subject}
    urgent = " Mark it urgent." if _maybe(rng, values, "urgent", True) else ""
    return values, [f"Draft an email to {recipient} with the subject '{subject}'.{urgent}",
                    f"Start a message for {recipient}, subject line \"{subject}\".{urgent}",
                    f"Write a draft to {recipient} titled '{subject}'.{urgent}"]


def _parcel(rng, fake):
    weight = _decimal(rng, 0.2, 30)
    length, width, height = (float(rng.randint(5, 120)) for _ in range(3))
    country = fake.country()
    values = {"weight_kg": weight, "dimensions_cm": {"length": length, "width": width, "height": height},
              "destination_country": country}
    express = " by express" if _maybe(rng, values, "express", True) else ""
    size = f"{said(length)} x {said(width)} x {said(height)} cm"
    return values, [f"Quote shipping a {said(weight)} kg parcel of {size} to {country}{express}.",
                    f"What does it cost to send a {size} box weighing {said(weight)} kg to {country}{express}?",
                    f"Price a parcel{express}: {said(weight)} kg, length {said(length)}, width {said(width)}, "
                    f"height {said(height)} cm, going to {country}."]


def _satellite(rng, fake):
    satellite = rng.choice(["ISS", "Hubble", "Tiangong", "NOAA-19", "Landsat 9", "Terra"])
    latitude, longitude = _decimal(rng, -60, 70, 2), _decimal(rng, -179, 179, 2)
    values = {"satellite": satellite, "latitude": latitude, "longitude": longitude}
    return values, [f"When does {satellite} next pass over {said(latitude)}, {said(longitude)}?",
                    f"Next visible pass of {satellite} at latitude {said(latitude)}, longitude {said(longitude)}.",
                    f"I'm at ({said(latitude)}, {said(longitude)}). When can I see {satellite}?"]


def _calories(rng, fake):
    age, weight, height = rng.randint(16, 85), _decimal(rng, 45, 130), float(rng.randint(150, 200))
    activity = rng.choice(["sedentary", "moderate", "active"])
    values = {"age": age, "weight_kg": weight, "height_cm": height, "activity_level": activity}
    return values, [f"Daily calorie needs for a {age}-year-old, {said(weight)} kg, {said(height)} cm, {activity} "
                    f"lifestyle?",
                    f"How many calories should I eat? I'm {age}, weigh {said(weight)} kg, am {said(height)} cm tall "
                    f"and {activity}.",
                    f"Estimate energy needs: age {age}, weight {said(weight)} kg, height {said(height)} cm, "
                    f"activity {activity}."]


def _loan(rng, fake):
    principal, rate, years = float(rng.randrange(1000, 900000, 500)), _decimal(rng, 0.5, 12, 2), rng.randint(1, 30)
    values = {"principal": principal, "annual_rate_percent": rate, "years": years}
    return values, [f"Monthly payment on a {said(principal)} loan at {said(rate)}% over {years} years?",
                    f"I borrow {said(principal)} for {years} years at {said(rate)} percent a year. What's the "
                    f"installment?",
                    f"Loan installment: principal {said(principal)}, rate {said(rate)}%, term {years} years."]


def _meeting(rng, fake):
    title = fake.bs().capitalize()
    attendees = [fake.first_name() for _ in range(rng.randint(2, 4))]
    start = f"{_day(rng).day.isoformat()} {rng.randint(8, 17):02d}:{rng.choice(['00', '30'])}"
    values = {"title": title, "attendees": attendees, "start": start}
    length = ""
    if _maybe(rng, values, "duration_minutes", rng.choice([15, 45, 60, 90])):
        length = f" for {values['duration_minutes']} minutes"
    people = listed(attendees)
    return values, [f"Set up a meeting '{title}' with {people} at {start}{length}.",
                    f"Invite {people} to \"{title}\" starting {start}{length}.",
                    f"Create a calendar meeting called {title} on {start}{length}; attendees: {people}."]


def _translate(rng, fake):
    text = fake.sentence(nb_words=rng.randint(4, 8))
    language = rng.choice(["French", "German", "Japanese", "Swahili", "Portuguese", "Korean"])
    values = {"text": text, "target_language": language}
    formal = " Use the formal register." if _maybe(rng, values, "formal", True) else ""
    return values, [f"Translate \"{text}\" into {language}.{formal}",
                    f"How do you say '{text}' in {language}?{formal}",
                    f"Put this in {language}: {text}{formal}"]


def _stock_count(rng, fake):
    sku = fake.bothify("SKU-###-??").upper()
    warehouse = rng.choice(["Rotterdam", "Memphis", "Leipzig", "Osaka", "Santos", "Durban"])
    values = {"sku": sku, "warehouse": warehouse}
    return values, [f"How many units of {sku} are in the {warehouse} warehouse?",
                    f"Count stock for {sku} at {warehouse}.",
                    f"Check the on-hand quantity of item {sku} in {warehouse}."]


def _rainfall(rng, fake):
    station = fake.bothify("WS-####")
    month, year = rng.randint(1, 12), rng.randint(1990, 2024)
    values = {"station_id": station, "month": month, "year": year}
    name = date(2000, month, 1).strftime("%B")
    return values, [f"Total rainfall at station {station} in {name} {year}?",
                    f"How much rain fell at {station} during {name} {year}?",
                    f"Get the precipitation sum for weather station {station}, month {month} of {year}."]


def _gc(rng, fake):
    sequence = "".join(rng.choice("ACGT") for _ in range(rng.randint(12, 40)))
    values = {"sequence": sequence}
    return values, [f"What is the GC content of {sequence}?",
                    f"Compute the G+C fraction of the DNA sequence {sequence}.",
                    f"Here's a read: {sequence}. How GC-rich is it?"]


def _projectile(rng, fake):
    speed, angle = _decimal(rng, 5, 120), float(rng.randint(5, 85))
    values = {"launch_speed": speed, "angle_degrees": angle}
    moon = " on the Moon (g = 1.62)" if _maybe(rng, values, "gravity", 1.62, chance=0.3) else ""
    return values, [f"How far does a projectile go at {said(speed)} m/s and {said(angle)} degrees{moon}?",
                    f"Range of a launch at {said(angle)}° with speed {said(speed)} m/s{moon}?",
                    f"Compute the horizontal range: speed {said(speed)} m/s, angle {said(angle)} degrees{moon}."]


def _sqm(rng, fake):
    price, area = float(rng.randrange(50000, 3000000, 1000)), float(rng.randint(25, 400))
    values = {"price": price, "area_sqm": area}
    return values, [f"Price per square meter of a {said(area)} m² flat selling for {said(price)}?",
                    f"A house costs {said(price)} and has {said(area)} square meters. What's that per m²?",
                    f"Divide {said(price)} over {said(area)} sqm: price per square meter, please."]


def _standing(rng, fake):
    team = f"{fake.city()} {rng.choice(['Rovers', 'Falcons', 'United', 'Comets', 'Wolves'])}"
    season, league = rng.randint(2000, 2025), rng.choice(["Premier", "Coastal", "Northern", "Metro"])
    values = {"team": team, "season": season, "league": league}
    return values, [f"Where did {team} finish in the {league} league in {season}?",
                    f"League position of {team}, {league} league, season {season}.",
                    f"Show the {season} {league} league standing for {team}."]


def _substitute(rng, fake):
    ingredient = rng.choice(["butter", "eggs", "wheat flour", "milk", "honey", "cream cheese", "gelatin"])
    diet = rng.choice(["vegan", "gluten_free", "dairy_free"])
    values = {"ingredient": ingredient, "diet": diet}
    spoken = diet.replace("_", "-")
    return values, [f"What can replace {ingredient} in a {spoken} recipe?",
                    f"Suggest a {spoken} substitute for {ingredient}.",
                    f"I'm cooking {spoken}. What do I use instead of {ingredient}?"]


def _showtimes(rng, fake):
    movie = fake.catch_phrase()
    city, when = fake.city(), _day(rng)
    values = {"movie": movie, "city": city, "show_date": when}
    spoken = when.spoken(rng)
    return values, [f"When is '{movie}' playing in {city} on {spoken}?",
                    f"Showtimes for \"{movie}\" in {city}, {spoken}.",
                    f"Find screenings of {movie} in {city} on {spoken}."]


def _pace(rng, fake):
    distance, minutes = _decimal(rng, 1, 42.2), rng.randint(5, 240)
    values = {"distance_km": distance, "minutes": minutes}
    seconds = ""
    if _maybe(rng, values, "seconds", rng.randint(1, 59)):
        seconds = f" and {values['seconds']} seconds"
    return values, [f"I ran {said(distance)} km in {minutes} minutes{seconds}. What's my pace?",
                    f"Pace per kilometer for {said(distance)} km done in {minutes} min{seconds}?",
                    f"Compute running pace: distance {said(distance)} km, time {minutes} minutes{seconds}."]


WRITTEN_FAMILIES: tuple[Family, ...] = (
    Family("orchard.estimate_yield", "Estimate the fruit harvest of an orchard.",
           {"tree_count": _prop("integer", "Number of fruit-bearing trees."),
            "yield_per_tree": _prop("float", "Expected yield of one tree."),
            "unit": _optional("string", "Unit of the yield.", "kg", enum=["kg", "lb"])},
           ("tree_count", "yield_per_tree"), _orchard),
    Family("fleet.schedule_service", "Book a maintenance visit for a fleet vehicle.", _FLEET_PROPS,
           ("vehicle_id", "service_date", "services"), _fleet),
    Family("library_reserve_title", "Place a hold on a library book for a member.",
           {"isbn": _prop("string", "ISBN-13 of the book, digits only."),
            "member_name": _prop("string", "Full name of the library member."),
            "pickup_branch": _prop("string", "Branch where the member collects the book."),
            "loan_days": _optional("integer", "Length of the loan in days.", 14)},
           ("isbn", "member_name", "pickup_branch"), _library),
    Family("bakery.scale_recipe", "Rescale a recipe's ingredient quantities to a number of servings.",
           {"recipe": _prop("string", "Name of the recipe."),
            "servings": _prop("integer", "Servings wanted."),
            "metric": _optional("boolean", "Metric units (false: cups and ounces).", True)},
           ("recipe", "servings"), _bakery),
    Family("transit_route_planner", "Plan a public transport journey between two stops.",
           {"origin": _prop("string", "Start stop or street."),
            "destination": _prop("string", "End stop or street."),
            "depart_time": _prop("string", "Departure time, HH:MM (24h)."),
            "modes": _prop("array", "Transport modes allowed.", items={"type": "string",
                                                                        "enum": ["bus", "tram", "metro", "ferry"]}),
            "max_transfers": _optional("integer", "Most changes allowed.", 2)},
           ("origin", "destination", "depart_time", "modes"), _transit),
    Family("energy.solar_array_output", "Energy a solar array produces, in kWh.",
           {"area_m2": _prop("float", "Panel area in square meters."),
            "efficiency": _prop("float", "Panel efficiency as a fraction (0-1)."),
            "sun_hours": _prop("float", "Peak sun hours.")},
           ("area_m2", "efficiency", "sun_hours"), _solar),
    Family("payroll.compute_net_pay", "Monthly net pay after tax and deductions.",
           {"gross_monthly": _prop("float", "Gross monthly salary."),
            "tax_rate": _prop("float", "Income tax rate as a fraction."),
            "deductions": _prop("dict", "Monthly deductions.", properties={
                "pension": _prop("float", "Pension contribution."),
                "health": _prop("float", "Health insurance premium.")})},
           ("gross_monthly", "tax_rate", "deductions"), _payroll),
    Family("warehouse.relocate_pallets", "Move pallets between warehouse zones.",
           {"pallet_ids": _prop("array", "Numbers of the pallets.", items={"type": "integer"}),
            "from_zone": _prop("string", "Zone the pallets are in."),
            "to_zone": _prop("string", "Zone to move them to.")},
           ("pallet_ids", "from_zone", "to_zone"), _warehouse),
    Family("clinic_book_visit", "Book a specialist appointment at the clinic.",
           {"patient_name": _prop("string", "Patient's full name."),
            "specialty": _prop("string", "Medical specialty.", enum=["cardiology", "dermatology", "pediatrics",
                                                                     "orthopedics", "neurology"]),
            "visit_date": _prop("string", "Day of the visit, YYYY-MM-DD."),
            "telehealth": _optional("boolean", "Hold the visit by video call.", False)},
           ("patient_name", "specialty", "visit_date"), _clinic),
    Family("fx.convert_amount", "Convert money between currencies at today's rate.",
           {"amount": _prop("float", "Amount to convert."),
            "from_currency": _prop("string", "ISO 4217 code of the source currency."),
            "to_currency": _prop("string", "ISO 4217 code of the target currency.")},
           ("amount", "from_currency", "to_currency"), _currency),
    Family("garden.watering_schedule", "Recommend how often and how much to water a potted plant.",
           {"plant": _prop("string", "Common name of the plant."),
            "pot_liters": _prop("float", "Pot volume in liters."),
            "climate": _optional("string", "Local climate.", "temperate", enum=["dry", "temperate", "humid"])},
           ("plant", "pot_liters"), _garden),
    Family("lodging.search_rooms", "Search available hotel rooms in a city.",
           {"city": _prop("string", "City to stay in."),
            "check_in": _prop("string", "Arrival day, YYYY-MM-DD."),
            "nights": _prop("integer", "Number of nights."),
            "guests": _optional("integer", "Number of guests.", 2),
            "amenities": _prop("array", "Amenities the room must have. Optional.", items={"type": "string"})},
           ("city", "check_in", "nights"), _hotel),
    Family("solid.prism_volume", "Volume of a right prism.",
           {"base_area": _prop("float", "Area of the base."),
            "height": _prop("float", "Height of the prism.")},
           ("base_area", "height"), _prism),
    Family("statistics.weighted_average", "Weighted arithmetic mean of a list of values.",
           {"values": _prop("array", "The values.", items={"type": "float"}),
            "weights": _prop("array", "One weight per value.", items={"type": "float"})},
           ("values", "weights"), _weighted),
    Family("chess.elo_rating_change", "Rating points won or lost in one rated chess game.",
           {"rating": _prop("integer", "The player's rating."),
            "opponent_rating": _prop("integer", "The opponent's rating."),
            "result": _prop("string", "Outcome for the player.", enum=["win", "draw", "loss"]),
            "k_factor": _optional("integer", "Development coefficient.", 32)},
           ("rating", "opponent_rating", "result"), _elo),
    Family("music.mood_playlist", "Build a playlist for a mood and a length.",
           {"mood": _prop("string", "The mood.", enum=["calm", "upbeat", "melancholic", "focused", "romantic"]),
            "duration_minutes": _prop("integer", "Total length in minutes."),
            "allow_explicit": _optional("boolean", "Include explicit tracks.", False)},
           ("mood", "duration_minutes"), _playlist),
    Family("mailbox.create_draft", "Create an email draft.",
           {"recipient": _prop("string", "Email address of the recipient."),
            "subject": _prop("string", "Subject line."),
            "urgent": _optional("boolean", "Flag the message as urgent.", False)},
           ("recipient", "subject"), _mail),
    Family("parcel.shipping_quote", "Quote the price of shipping a parcel abroad.",
           {"weight_kg": _prop("float", "Weight in kilograms."),
            "dimensions_cm": _prop("dict", "Box size in centimeters.", properties={
                "length": _prop("float", "Length."), "width": _prop("float", "Width."),
                "height": _prop("float", "Height.")}),
            "destination_country": _prop("string", "Country the parcel goes to."),
            "express": _optional("boolean", "Express delivery.", False)},
           ("weight_kg", "dimensions_cm", "destination_country"), _parcel),
    Family("orbit.next_visible_pass", "Next time a satellite is visible from a place.",
           {"satellite": _prop("string", "Satellite name."),
            "latitude": _prop("float", "Observer latitude in degrees."),
            "longitude": _prop("float", "Observer longitude in degrees.")},
           ("satellite", "latitude", "longitude"), _satellite),
    Family("diet.daily_energy_need", "Daily calorie requirement of a person.",
           {"age": _prop("integer", "Age in years."),
            "weight_kg": _prop("float", "Body weight in kilograms."),
            "height_cm": _prop("float", "Height in centimeters."),
            "activity_level": _prop("string", "How active the person is.",
                                    enum=["sedentary", "moderate", "active"])},
           ("age", "weight_kg", "height_cm", "activity_level"), _calories),
    Family("lending.monthly_installment", "Fixed monthly payment of an amortizing loan.",
           {"principal": _prop("float", "Amount borrowed."),
            "annual_rate_percent": _prop("float", "Yearly interest rate in percent."),
            "years": _prop("integer", "Term in years.")},
           ("principal", "annual_rate_percent", "years"), _loan),
    Family("calendar.schedule_meeting", "Create a meeting and invite people.",
           {"title": _prop("string", "Meeting title."),
            "attendees": _prop("array", "First names of the people invited.", items={"type": "string"}),
            "start": _prop("string", "Start, 'YYYY-MM-DD HH:MM'."),
            "duration_minutes": _optional("integer", "Length of the meeting.", 30)},
           ("title", "attendees", "start"), _meeting),
    Family("linguist.translate_text", "Translate a sentence into another language.",
           {"text": _prop("string", "Text to translate."),
            "target_language": _prop("string", "Language to translate into (English name)."),
            "formal": _optional("boolean", "Use the formal register.", False)},
           ("text", "target_language"), _translate),
    Family("stockroom.units_on_hand", "Units of an item held in a warehouse.",
           {"sku": _prop("string", "Stock keeping unit."),
            "warehouse": _prop("string", "Warehouse city.")},
           ("sku", "warehouse"), _stock_count),
    Family("meteo.station_rainfall", "Total rainfall a weather station recorded in a month.",
           {"station_id": _prop("string", "Station identifier."),
            "month": _prop("integer", "Month number, 1-12."),
            "year": _prop("integer", "Year.")},
           ("station_id", "month", "year"), _rainfall),
    Family("dna.gc_fraction", "Fraction of G and C bases in a DNA sequence.",
           {"sequence": _prop("string", "The sequence, letters A, C, G, T.")},
           ("sequence",), _gc),
    Family("ballistics.launch_range", "Horizontal range of a projectile on flat ground.",
           {"launch_speed": _prop("float", "Launch speed in m/s."),
            "angle_degrees": _prop("float", "Launch angle in degrees."),
            "gravity": _optional("float", "Gravitational acceleration in m/s^2.", 9.81)},
           ("launch_speed", "angle_degrees"), _projectile),
    Family("property.price_per_area", "Price per square meter of a property.",
           {"price": _prop("float", "Sale price."),
            "area_sqm": _prop("float", "Floor area in square meters.")},
           ("price", "area_sqm"), _sqm),
    Family("league.team_finish", "Final league position of a team in a season.",
           {"team": _prop("string", "Team name."),
            "season": _prop("integer", "Season year."),
            "league": _prop("string", "League name.")},
           ("team", "season", "league"), _standing),
    Family("kitchen.ingredient_swap", "Suggest a substitute for an ingredient under a diet.",
           {"ingredient": _prop("string", "Ingredient to replace."),
            "diet": _prop("string", "Dietary restriction.", enum=["vegan", "gluten_free", "dairy_free"])},
           ("ingredient", "diet"), _substitute),
    Family("cinema.find_screenings", "Screenings of a film in a city on a day.",
           {"movie": _prop("string", "Film title."),
            "city": _prop("string", "City."),
            "show_date": _prop("string", "Day, YYYY-MM-DD.")},
           ("movie", "city", "show_date"), _showtimes),
    Family("running.pace_per_km", "Running pace in minutes per kilometer.",
           {"distance_km": _prop("float", "Distance run in kilometers."),
            "minutes": _prop("integer", "Whole minutes of the time."),
            "seconds": _optional("integer", "Extra seconds of the time.", 0)},
           ("distance_km", "minutes"), _pace),
)

#: Every family: the written ones above, then the composed ones (:mod:`toolgym.worlds.bfcl.composed`),
#: which vary the function docs and the values' types far more than 32 written families can.
FAMILIES: tuple[Family, ...] = WRITTEN_FAMILIES + tuple(
    Family(f.name, f.description, f.properties(), tuple(s.name for s in f.required), f.draw, topic=f.thing)
    for f in composed.composed_functions())


def families(split: str) -> tuple[Family, ...]:
    """The families of a split: ``test`` every fourth family by name, ``train`` the others."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    ordered = sorted(FAMILIES, key=lambda f: f.name)
    return tuple(f for i, f in enumerate(ordered) if (i % 4 == 3) == (split == "test"))


# Questions no function here serves (irrelevance), filled from Faker.
_GENERAL = (
    lambda rng, fake: f"Who was the first mayor of {fake.city()}?",
    lambda rng, fake: f"Write a short poem about {fake.word()}.",
    lambda rng, fake: f"What does the word '{fake.word()}' mean?",
    lambda rng, fake: f"Tell me a fun fact about {fake.country()}.",
    lambda rng, fake: f"Why is the sky blue over {fake.city()} in the evening?",
    lambda rng, fake: f"Summarize the history of {fake.company()}.",
    lambda rng, fake: f"What is {rng.randint(2, 99)} times {rng.randint(2, 99)}?",
    lambda rng, fake: f"Recommend a novel for someone who likes {fake.word()}s.",
)
_JOIN = ("{a} {b}", "{a} Also, {b}", "Two things. {a} And {b}", "{a} After that: {b}", "First, {a} Then {b}")
_POLITE = ("{q}", "{q}", "Please help: {q}", "{q} Thanks!", "Quick question. {q}", "Hi! {q}", "{q} Thank you.")


def _ask(rng: random.Random, parts: list[str]) -> str:
    text = parts[0]
    for part in parts[1:]:
        text = rng.choice(_JOIN).format(a=text, b=part)
    return rng.choice(_POLITE).format(q=text)


def _draw(family: Family, rng: random.Random, fake: Faker, avoid: list[dict]) -> tuple[dict, str]:
    """A request to ``family`` whose values differ from those in ``avoid`` (parallel calls differ)."""
    for _ in range(20):
        values, phrasings = family.draw(rng, fake)
        if values not in avoid:
            return values, rng.choice(phrasings)
    raise RuntimeError(f"{family.name}: no distinct values in 20 draws")


def _calls(family: Family, count: int, rng: random.Random, fake: Faker) -> tuple[list[dict], list[str]]:
    drawn, answers, texts = [], [], []
    for _ in range(count):
        values, text = _draw(family, rng, fake, drawn)
        drawn.append(values)
        answers.append(family.answer(values))
        texts.append(text)
    return answers, texts


def _task(category: str, split: str, index: int, rng: random.Random, fake: Faker,
          pools: tuple[tuple[Family, ...], tuple[Family, ...]]) -> dict:
    # Half the tasks draw on the written families, half on the composed ones: the written read
    # like users, the composed vary the docs; by count alone the composed would be 7 in 8.
    written, composed_pool = pools
    pool = written if rng.random() < 0.5 else composed_pool
    if category == "simple_python":
        family = rng.choice(pool)
        answers, texts = _calls(family, 1, rng, fake)
        offered = [family]
    elif category == "multiple":
        offered = rng.sample(pool, rng.randint(2, 4))
        answers, texts = _calls(offered[0], 1, rng, fake)
    elif category == "parallel":
        family = rng.choice(pool)
        answers, texts = _calls(family, rng.randint(2, 3), rng, fake)
        offered = [family]
    elif category == "parallel_multiple":
        offered = rng.sample(pool, rng.randint(2, 3))
        answers, texts = [], []
        for family in offered[:2]:
            more_answers, more_texts = _calls(family, rng.randint(1, 2), rng, fake)
            answers += more_answers
            texts += more_texts
        order = list(range(len(texts)))
        rng.shuffle(order)
        texts = [texts[i] for i in order]
    elif category == "irrelevance":
        asked = rng.choice(pool)
        # not offered: another function acting on the thing asked about (it would serve the question)
        others = [f for f in pool if f is not asked and not (asked.topic and f.topic == asked.topic)]
        offered = rng.sample(others, rng.randint(1, 3))
        texts = [rng.choice(asked.draw(rng, fake)[1])] if rng.random() < 0.5 else [rng.choice(_GENERAL)(rng, fake)]
        answers = None
    else:
        raise ValueError(f"no generator for category {category!r}; the categories are {CATEGORIES}")
    rng.shuffle(offered)
    return {"id": f"{category}_{split}-{index}", "category": category,
            "question": [[{"role": "user", "content": _ask(rng, texts)}]],
            "function": [family.doc() for family in offered], "ground_truth": answers}


def generate(seed: int, split: str, category: str, count: int) -> list[dict]:
    """``count`` tasks of ``category`` over the families of ``split``: records with BFCL's fields
    (``id``, ``question``, ``function``, ``ground_truth``; None for irrelevance). The same
    arguments give the same tasks."""
    pool = families(split)
    pools = tuple(f for f in pool if not f.topic), tuple(f for f in pool if f.topic)
    rng = random.Random(f"bfcl-single-turn/{seed}/{split}/{category}")
    fake = Faker("en_US")
    fake.seed_instance(rng.randrange(2**32))
    return [_task(category, split, index, rng, fake, pools) for index in range(count)]
