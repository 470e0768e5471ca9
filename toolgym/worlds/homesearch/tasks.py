"""Built-in Home Search tasks: queries from templates (like the paper's Table 10) with programs.

Every task is built around one listing of the seeded table, so its ground-truth search
finds at least that home. The demonstration pool never uses the functions in
``HELD_OUT_FUNCTIONS``, so a test program that needs them asks for unseen functions, as in
the paper.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from toolgym.worlds.cache import cached_json
from toolgym.worlds.homesearch.data_model import BUY_HOME_TYPES, RENT_HOME_TYPES, _listing_rows

# The modules whose source decides the generated pairs (the key of their cache entries).
_GENERATOR_MODULES = ("toolgym.worlds.homesearch.tasks", "toolgym.worlds.homesearch.data_model",
                      "toolgym.worlds.api_programs.places")
NUM_TEST_TASKS = 100
NUM_DEMOS = 10
HELD_OUT_FUNCTIONS = ("set_floor_number", "set_max_commute_time", "set_num_balconies")
# criterion setters in the order the programs call them
CRITERIA = ("select_home_type", "set_num_beds", "set_num_baths", "set_num_garages", "set_num_swimming_pools",
            "set_min_price", "set_max_price", "set_min_square_feet", "set_max_square_feet", "set_floor_number",
            "set_max_commute_time", "set_num_balconies")
DISPLAY_TYPES = {"house": "House", "townhouse": "Townhouse", "condo": "Condo", "land": "Land",
                 "multi-family": "Multi-family", "mobile": "Mobile", "co-op": "Co-op", "apartment": "Apartment"}
OPENERS = {
    "buy": ("Find a {noun} for sale in {city}", "Buy a {noun} in {city}", "I want to buy a {noun} in {city}",
            "Search for a {noun} to purchase in {city}"),
    "rent": ("Find a {noun} for rent in {city}", "Rent a {noun} in {city}", "I'd like to rent a {noun} in {city}",
             "Search for a {noun} to rent in {city}"),
}


def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _number(x: float):
    return int(x) if float(x).is_integer() else x


def _applicable(listing: dict) -> list[str]:
    """The criteria the listing can be described by (counts that are zero say nothing)."""
    names = ["select_home_type", "set_min_price", "set_max_price", "set_min_square_feet", "set_max_square_feet",
             "set_max_commute_time"]
    for name, column in (("set_num_beds", "num_beds"), ("set_num_baths", "num_baths"),
                         ("set_num_garages", "num_garages"), ("set_num_swimming_pools", "num_swimming_pools"),
                         ("set_num_balconies", "num_balconies")):
        if listing[column]:
            names.append(name)
    if listing["home_type"] in ("condo", "apartment", "co-op"):
        names.append("set_floor_number")
    return names


def _criterion(name: str, listing: dict, rng: random.Random) -> tuple[object, str]:
    """A value the listing satisfies and the phrase that asks for it."""
    price, sqft = listing["price"], listing["square_feet"]
    step = 1000 if listing["buy_or_rent"] == "buy" else 50
    if name == "set_min_price":
        v = int(price * rng.uniform(0.6, 0.95)) // step * step
        return v, rng.choice((f"a price above ${v}", f"a minimum price of ${v}", f"a price of at least ${v}"))
    if name == "set_max_price":
        v = math.ceil(price * rng.uniform(1.05, 1.5) / step) * step
        return v, rng.choice((f"a price under ${v}", f"a budget of at most ${v}", f"a maximum price of ${v}"))
    if name == "set_min_square_feet":
        v = int(sqft * rng.uniform(0.7, 0.98)) // 50 * 50
        return v, rng.choice((f"at least {v} square feet", f"a minimum square footage of {v}"))
    if name == "set_max_square_feet":
        v = math.ceil(sqft * rng.uniform(1.02, 1.4) / 50) * 50
        return v, rng.choice((f"no more than {v} square feet", f"a maximum square footage of {v}"))
    if name == "set_num_beds":
        v = listing["num_beds"]
        return v, rng.choice((f"{v} bedrooms", f"{v} bed", f"room for {v} people, one bedroom each"))
    if name == "set_num_baths":
        v = _number(listing["num_baths"])
        return v, rng.choice((f"{v} bathrooms", f"at least {v} bathrooms"))
    if name == "set_num_garages":
        v = listing["num_garages"]
        return v, rng.choice((f"{v} garage(s)", f"parking for {v} cars in garages"))
    if name == "set_num_swimming_pools":
        v = listing["num_swimming_pools"]
        return v, rng.choice((f"{v} swimming pool(s)", f"{v} pool(s)"))
    if name == "set_floor_number":
        v = listing["floor_number"]
        return v, rng.choice((f"a location on floor {v}", f"floor number {v}"))
    if name == "set_max_commute_time":
        v = math.ceil(listing["commute_time"] / 5) * 5 + rng.choice((0, 5, 10))
        return v, rng.choice((f"a commute of at most {v} minutes", f"no more than {v} minutes of commute"))
    if name == "set_num_balconies":
        v = listing["num_balconies"]
        return v, rng.choice((f"{v} balconies", f"{v} balcony(ies)"))
    raise KeyError(name)


def _home_types(listing: dict, rng: random.Random) -> list[str]:
    others = [t for t in (BUY_HOME_TYPES if listing["buy_or_rent"] == "buy" else RENT_HOME_TYPES)
              if t != listing["home_type"]]
    chosen = [listing["home_type"]] + rng.sample(others, rng.randint(0, 2))
    rng.shuffle(chosen)
    return [DISPLAY_TYPES[t] for t in chosen]


def make_example(listing: dict, criteria: list[str], rng: random.Random) -> tuple[str, str]:
    """One (query, program) pair asking for ``criteria`` (in program order) around ``listing``."""
    lines = [f'API.set_location("{listing["city"]}")', f'API.set_buy_or_rent("{listing["buy_or_rent"]}")']
    noun, phrases = "home", []
    for name in criteria:
        if name == "select_home_type":
            types = _home_types(listing, rng)
            noun = _and([t.lower() for t in types], "or")
            lines.append(f"API.select_home_type({types!r})".replace("'", '"'))
            continue
        value, phrase = _criterion(name, listing, rng)
        phrases.append(phrase)
        lines.append(f"API.{name}({value})")
    lines.append("API.search()")
    query = rng.choice(OPENERS[listing["buy_or_rent"]]).format(noun=noun, city=listing["city"])
    if phrases:
        query += " with " + _and(phrases)
    return query + ".", "\n".join(lines)


def _examples(seed: int, count: int, stream: str, allowed: tuple[str, ...], cover: bool) -> list[tuple[str, str]]:
    rng = random.Random(f"homesearch-{stream}-{seed}")
    listings = _listing_rows(seed)
    examples = []
    for i in range(count):
        while True:
            listing = rng.choice(listings)
            usable = [c for c in _applicable(listing) if c in allowed]
            if cover:  # the demos between them use every allowed function
                first = allowed[i % len(allowed)]
                if first not in usable:
                    continue
                picked = {first, *rng.sample(usable, min(len(usable), rng.randint(1, 2)))}
            else:
                picked = set(rng.sample(usable, min(len(usable), rng.randint(1, 4))))
            break
        examples.append(make_example(listing, [c for c in CRITERIA if c in picked], rng))
    return examples


def builtin_tasks(seed: int = 0) -> list[tuple[str, str]]:
    """The built-in test tasks: ``NUM_TEST_TASKS`` (query, program) pairs."""
    return _cached("homesearch-tasks", seed, lambda: _examples(seed, NUM_TEST_TASKS, "test", CRITERIA, cover=False))


def demo_pool(seed: int = 0) -> list[tuple[str, str]]:
    """The demonstration pool: ``NUM_DEMOS`` pairs that never call ``HELD_OUT_FUNCTIONS``."""
    allowed = tuple(c for c in CRITERIA if c not in HELD_OUT_FUNCTIONS)
    return _cached("homesearch-demos", seed, lambda: _examples(seed, NUM_DEMOS, "demo", allowed, cover=True))


def _cached(kind: str, seed: int, generate: Callable[[], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """(query, program) pairs from the cache folder, generated once per generator source and seed:
    generating draws every listing with faker, which is most of the env's make time."""
    return cached_json(kind, seed, _GENERATOR_MODULES, generate, list, lambda pairs: [(q, p) for q, p in pairs])
