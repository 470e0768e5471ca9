"""Composed function families: many small functions built from a lexicon of parameter kinds.

The hand-written families of :mod:`toolgym.worlds.bfcl.single_turn` are rich but few (32); a
model trained on them learns their shapes, not the skill BFCL measures: reading a function doc
and copying each value the user gives into the parameter of the right name and JSON type. These
families vary exactly that. Each is a function ``<area>.<verb>_<thing>`` over one to four
required parameters and up to two optional ones (with defaults), drawn with a fixed seed from
:data:`SLOTS`: integers, floats (whole or not), free strings, enums, booleans and arrays, each
with the phrases users ask with. The question joins one phrase per parameter asked for to one
of several request forms. Values are answered as spoken: ``12`` is an integer in the answer
even for a float parameter (BFCL accepts an integer there, and a model that writes ``12.0``
for an integer parameter fails).

The names are toolgym's own; ``tests/test_bfcl_generated.py`` checks that none is an official
BFCL function name.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from faker import Faker

#: How many composed families there are (``test`` holds every fourth by name, as for the others).
COUNT = 240


@dataclass(frozen=True)
class Slot:
    """A kind of parameter: its name, JSON-schema type and description, a drawer of values, and
    the phrases a user asks for a value with (``{v}``: the value as spoken). A boolean's phrases
    are for ``True``; ``negated`` for ``False``."""

    name: str
    kind: str
    description: str
    draw: Callable[[random.Random, Faker], Any]
    phrases: tuple[str, ...]
    negated: tuple[str, ...] = ()
    enum: tuple[str, ...] = ()
    items: str = ""

    def schema(self) -> dict:
        schema: dict[str, Any] = {"type": self.kind, "description": self.description}
        if self.enum:
            schema["enum"] = list(self.enum)
        if self.items:
            schema["items"] = {"type": self.items}
        return schema

    def spoken(self, value: Any, rng: random.Random) -> str:
        if self.kind == "boolean":
            return rng.choice(self.phrases if value else self.negated)
        text = listed(value) if isinstance(value, list) else said(value)
        return rng.choice(self.phrases).format(v=text)


def said(value: Any) -> str:
    """A value as a user writes it: a number exactly, the shortest text that reads back as it
    (``12`` for 12.0, ``37093.59``; never ``3.7e+04``), anything else as ``str`` does."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def listed(items: list) -> str:
    """``a``, ``a and b``, ``a, b and c``: the items as :func:`said` writes them."""
    words = [said(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _whole_or_decimal(low: int, high: int, places: int = 1) -> Callable[[random.Random, Faker], float | int]:
    """A float parameter's value: half the time a whole number (then an int, as the user says it)."""
    def draw(rng: random.Random, fake: Faker) -> float | int:
        return rng.randint(low, high) if rng.random() < 0.5 else round(rng.uniform(low, high), places)
    return draw


def _ints(low: int, high: int) -> Callable[[random.Random, Faker], int]:
    return lambda rng, fake: rng.randint(low, high)


def _pick(*options: str) -> Callable[[random.Random, Faker], str]:
    return lambda rng, fake: rng.choice(options)


def _some(*options: str) -> Callable[[random.Random, Faker], list[str]]:
    return lambda rng, fake: rng.sample(options, rng.randint(2, min(4, len(options))))


SLOTS: tuple[Slot, ...] = (
    # integers
    Slot("quantity", "integer", "Number of units.", _ints(1, 500), ("{v} units", "a quantity of {v}", "{v} pieces")),
    Slot("year", "integer", "Calendar year.", _ints(1950, 2030), ("in {v}", "for the year {v}", "during {v}")),
    Slot("age", "integer", "Age in years.", _ints(1, 95), ("aged {v}", "{v} years old", "at the age of {v}")),
    Slot("days", "integer", "Length in days.", _ints(1, 90), ("for {v} days", "over {v} days", "lasting {v} days")),
    Slot("num_people", "integer", "How many people.", _ints(1, 40), ("for {v} people", "with {v} persons",
                                                                       "a group of {v}")),
    Slot("floors", "integer", "Number of floors.", _ints(1, 120), ("with {v} floors", "{v} storeys high")),
    Slot("limit", "integer", "Most results to return.", _ints(1, 50), ("the top {v}", "at most {v} results",
                                                                         "no more than {v} results")),
    Slot("record_id", "integer", "Numeric identifier of the record.", _ints(100, 99999),
         ("with ID {v}", "record number {v}", "ID {v}")),
    Slot("minutes", "integer", "Duration in minutes.", _ints(1, 600), ("for {v} minutes", "lasting {v} min")),
    Slot("sides", "integer", "Number of sides.", _ints(3, 12), ("with {v} sides", "{v}-sided")),
    Slot("level", "integer", "Level, a whole number from 1 to 10.", _ints(1, 10), ("at level {v}", "level {v}")),
    Slot("page_count", "integer", "Number of pages.", _ints(10, 1200), ("of {v} pages", "{v} pages long")),
    # floats
    Slot("weight_kg", "float", "Weight in kilograms.", _whole_or_decimal(1, 400), ("weighing {v} kg", "of {v} kilograms",
                                                                                    "a weight of {v} kg")),
    Slot("price", "float", "Price in dollars.", _whole_or_decimal(1, 5000, 2), ("priced at ${v}", "costing {v} dollars",
                                                                                 "at a price of ${v}")),
    Slot("rate_percent", "float", "Rate in percent.", _whole_or_decimal(1, 20, 2), ("at {v}%", "with a rate of {v} percent",
                                                                                     "a {v}% rate")),
    Slot("temperature_c", "float", "Temperature in degrees Celsius.", _whole_or_decimal(-30, 45),
         ("at {v} degrees Celsius", "with a temperature of {v}°C")),
    Slot("distance_km", "float", "Distance in kilometers.", _whole_or_decimal(1, 2000), ("over {v} km",
                                                                                          "a distance of {v} kilometers")),
    Slot("length_m", "float", "Length in meters.", _whole_or_decimal(1, 300), ("{v} meters long", "a length of {v} m")),
    Slot("width_m", "float", "Width in meters.", _whole_or_decimal(1, 100), ("{v} meters wide", "a width of {v} m")),
    Slot("speed", "float", "Speed in meters per second.", _whole_or_decimal(1, 300), ("at {v} m/s",
                                                                                       "moving at {v} meters per second")),
    Slot("volume_l", "float", "Volume in liters.", _whole_or_decimal(1, 1000), ("holding {v} liters",
                                                                                 "a volume of {v} L")),
    Slot("ratio", "float", "A fraction between 0 and 1.", lambda rng, fake: round(rng.uniform(0.01, 0.99), 2),
         ("with a ratio of {v}", "a fraction of {v}")),
    Slot("budget", "float", "Budget in dollars.", _whole_or_decimal(50, 100000, 2), ("with a budget of ${v}",
                                                                                     "spending at most {v} dollars")),
    # strings
    Slot("city", "string", "City name.", lambda rng, fake: fake.city(), ("in {v}", "near {v}", "around {v}")),
    Slot("country", "string", "Country name.", lambda rng, fake: fake.country(), ("in {v}", "for {v}")),
    Slot("person_name", "string", "Full name of the person.", lambda rng, fake: fake.name(), ("for {v}", "of {v}",
                                                                                             "belonging to {v}")),
    Slot("company", "string", "Company name.", lambda rng, fake: fake.company(), ("at {v}", "for the company {v}")),
    Slot("title", "string", "Title, exactly as given.", lambda rng, fake: fake.catch_phrase(),
         ("titled '{v}'", "called '{v}'", "named \"{v}\"")),
    Slot("email", "string", "E-mail address.", lambda rng, fake: fake.email(), ("to {v}", "at {v}")),
    Slot("keyword", "string", "Word to search for.", lambda rng, fake: fake.word(), ("about '{v}'", "matching '{v}'",
                                                                                      "with the keyword {v}")),
    Slot("street", "string", "Street address.", lambda rng, fake: fake.street_address(), ("at {v}", "located at {v}")),
    Slot("product", "string", "Product name.", _pick("standing desk", "espresso machine", "trail shoes", "drone",
                                                     "air purifier", "e-reader", "cast iron pan", "yoga mat"),
         ("for a {v}", "of the {v}")),
    Slot("code", "string", "Identifier code, e.g. 'AB-123'.", lambda rng, fake: fake.bothify("??-###").upper(),
         ("with code {v}", "coded {v}", "reference {v}")),
    # enums (with defaults when optional)
    Slot("unit_system", "string", "Unit system.", _pick("metric", "imperial"), ("in {v} units", "using {v} units"),
         enum=("metric", "imperial")),
    Slot("sort_by", "string", "Order of the results.", _pick("price", "rating", "distance", "date"),
         ("sorted by {v}", "ordered by {v}"), enum=("price", "rating", "distance", "date")),
    Slot("language", "string", "Language of the output.", _pick("English", "Spanish", "French", "German", "Japanese"),
         ("in {v}", "written in {v}"), enum=("English", "Spanish", "French", "German", "Japanese")),
    Slot("priority", "string", "Priority.", _pick("low", "medium", "high"), ("with {v} priority", "as {v} priority"),
         enum=("low", "medium", "high")),
    Slot("format", "string", "Output format.", _pick("json", "csv", "pdf"), ("as {v}", "in {v} format"),
         enum=("json", "csv", "pdf")),
    Slot("period", "string", "Reporting period.", _pick("daily", "weekly", "monthly", "yearly"),
         ("on a {v} basis", "{v}"), enum=("daily", "weekly", "monthly", "yearly")),
    # booleans
    Slot("include_tax", "boolean", "Whether tax is included.", lambda rng, fake: rng.random() < 0.5,
         ("including tax", "with tax included"), ("excluding tax", "without tax")),
    Slot("detailed", "boolean", "Whether to return full details.", lambda rng, fake: rng.random() < 0.5,
         ("with full details", "in detail"), ("as a summary only", "without details")),
    Slot("refundable", "boolean", "Whether it must be refundable.", lambda rng, fake: rng.random() < 0.5,
         ("refundable only", "that can be refunded"), ("non-refundable", "that need not be refundable")),
    Slot("notify", "boolean", "Whether to send a notification.", lambda rng, fake: rng.random() < 0.5,
         ("and notify me", "with a notification"), ("without notifying anyone", "silently")),
    # arrays
    Slot("tags", "array", "Tags to attach.", _some("urgent", "family", "work", "travel", "health", "finance", "school"),
         ("tagged {v}", "with the tags {v}"), items="string"),
    Slot("ingredients", "array", "Ingredients to use.", _some("rice", "garlic", "tomato", "basil", "tofu", "lentils",
                                                              "spinach", "ginger"),
         ("with {v}", "using {v}"), items="string"),
    Slot("scores", "array", "Scores, whole numbers.", lambda rng, fake: [rng.randint(1, 100) for _ in
                                                                         range(rng.randint(2, 5))],
         ("for the scores {v}", "with scores {v}"), items="integer"),
    Slot("weekdays", "array", "Days of the week.", _some("Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                                         "Saturday", "Sunday"),
         ("on {v}", "every {v}"), items="string"),
)

_AREAS = ("atlas", "ledger", "orbit", "harbor", "canopy", "quarry", "prairie", "beacon", "meadow", "lantern",
          "summit", "delta", "glacier", "tundra", "cove", "mesa")
_VERBS = (("estimate", "Estimate"), ("fetch", "Fetch"), ("plan", "Plan"), ("compute", "Compute"),
          ("register", "Register"), ("lookup", "Look up"), ("book", "Book"), ("rank", "Rank"),
          ("schedule", "Schedule"), ("audit", "Audit"), ("forecast", "Forecast"), ("tally", "Tally"))
_THINGS = ("kiln_load", "ferry_slot", "hive_census", "mural_quote", "vault_audit", "canoe_rental", "choir_roster",
           "grain_silo", "comet_sighting", "pottery_class", "tram_pass", "orchid_show", "bunker_lease", "yarn_order",
           "relay_team", "lighthouse_tour", "fossil_dig", "sauna_booking", "cider_batch", "kite_festival",
           "barge_cargo", "tea_tasting", "quilt_fair", "drone_survey", "moss_garden", "falcon_show", "ice_rink_slot",
           "violin_repair", "dune_buggy_trip", "stamp_catalog")
_REQUESTS = ("{Verb} the {thing} {args}.", "Please {verb} the {thing} {args}.", "Can you {verb} a {thing} {args}?",
             "I need to {verb} the {thing} {args}.", "{Verb} {thing} {args}, please.", "Help me {verb} the {thing} {args}.")


@dataclass(frozen=True)
class ComposedFunction:
    """One composed function: its name and description, its required and optional slots (an
    optional slot has a default), and how its request reads."""

    name: str
    spoken_verb: str
    thing: str
    required: tuple[Slot, ...]
    optional: tuple[tuple[Slot, Any], ...]

    @property
    def description(self) -> str:
        return f"{self.spoken_verb} the {self.thing.replace('_', ' ')}."

    def properties(self) -> dict:
        properties = {slot.name: slot.schema() for slot in self.required}
        for slot, default in self.optional:
            properties[slot.name] = dict(slot.schema(), description=f"{slot.description} Default is {default!r}.",
                                         default=default)
        return properties

    def draw(self, rng: random.Random, fake: Faker) -> tuple[dict, list[str]]:
        values = {slot.name: slot.draw(rng, fake) for slot in self.required}
        asked = list(self.required)
        for slot, default in self.optional:
            if rng.random() < 0.5:
                value = slot.draw(rng, fake)
                while value == default:
                    value = slot.draw(rng, fake)
                values[slot.name] = value
                asked.append(slot)
        thing = self.thing.replace("_", " ")
        phrasings = []
        for form in rng.sample(_REQUESTS, 3):
            order = list(asked)
            rng.shuffle(order)
            args = " ".join(slot.spoken(values[slot.name], rng) for slot in order)
            phrasings.append(form.format(Verb=self.spoken_verb, verb=self.spoken_verb.lower(), thing=thing, args=args))
        return values, phrasings


def composed_functions(seed: int = 0) -> tuple[ComposedFunction, ...]:
    """The :data:`COUNT` composed functions (the same ones for every caller)."""
    rng = random.Random(f"bfcl-composed/{seed}")
    actions: set[tuple[str, str]] = set()  # one function per verb and thing, whatever its area
    made = []
    while len(made) < COUNT:
        area, (verb, spoken), thing = rng.choice(_AREAS), rng.choice(_VERBS), rng.choice(_THINGS)
        if (verb, thing) in actions:
            continue
        actions.add((verb, thing))
        name = f"{area}.{verb}_{thing}"
        required = rng.sample(SLOTS, rng.randint(1, 4))
        if all(slot.kind == "boolean" or slot.enum for slot in required):  # parallel calls need distinct values
            continue
        optional_slots = [slot for slot in SLOTS if slot not in required and _may_be_optional(slot)]
        optional = tuple((slot, _default(slot, rng)) for slot in rng.sample(optional_slots, rng.randint(0, 2)))
        made.append(ComposedFunction(name, spoken, thing, tuple(required), optional))
    return tuple(made)


def _may_be_optional(slot: Slot) -> bool:
    """Numbers, booleans and enums have defaults; free strings and lists are always asked for."""
    return slot.kind in ("integer", "float", "boolean") or bool(slot.enum)


def _default(slot: Slot, rng: random.Random) -> Any:
    """An optional slot's default: the enum's first value, False, or a drawn number."""
    if slot.enum:
        return slot.enum[0]
    if slot.kind == "boolean":
        return False
    return slot.draw(rng, None)  # number drawers use only rng
