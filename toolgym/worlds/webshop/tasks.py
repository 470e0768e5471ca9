"""Built-in WebShop goals, by WebShop's synthetic-goal procedure (``get_synthetic_goals``).

For each product with an instruction, one goal per combination of its options (option names
in sorted order): the product's instruction attributes, the options of the combination and a
price upper bound (of the first 4 multiples of 10 above the price, 2 are sampled and the larger
kept; none when fewer than 2 exist), with the instruction text
``"<instruction> with color: black, and size: large, and price lower than 40.00 dollars"``.
A goal's weight is the mean of 1 / (number of goals with the attribute) over its attributes.

WebShop samples the price bounds with Python's unseeded global ``random``; here each product's
bound comes from a generator seeded with the world seed and the asin, so goals are the same in
every process. Goals are shuffled with seed 233 as WebShop's server does; the built-in task set
is ``num_goals`` of them drawn without replacement in proportion to their weights (WebShop's
``limit_goals``), and ``num_demos`` other goals are the few-shot demonstrations.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

PRICE_RANGE = [10.0 * i for i in range(1, 100)]
NO_PRICE_LIMIT = 1_000_000


def price_upper_for(price: float, rng: random.Random) -> tuple[float, str]:
    """WebShop's price bound and the instruction's price text."""
    price_range = [p for p in PRICE_RANGE if p > price][:4]
    if len(price_range) >= 2:
        _, upper = sorted(rng.sample(price_range, 2))
        return upper, f", and price lower than {upper:.2f} dollars"
    return NO_PRICE_LIMIT, ""


def _combination(options: dict, names: list[str], k: int) -> dict:
    """The ``k``-th combination of ``itertools.product`` over the options (the last name varies fastest)."""
    values = []
    for name in reversed(names):
        k, r = divmod(k, len(options[name]))
        values.append(options[name][r])
    return dict(zip(names, reversed(values)))


def _combinations(product: dict) -> int:
    count = 1
    for values in product["options"].values():
        count *= len(values)
    return count


def _has_goals(product: dict) -> bool:
    return bool(product.get("instruction")) and bool(product.get("instruction_attributes"))


def make_goal(product: dict, k: int, seed: int, weight: float) -> dict:
    """Goal ``k`` (its option combination) of ``product``."""
    rng = random.Random(f"webshop-price-{seed}-{product['asin']}")
    price_upper, price_text = price_upper_for(product["price"], rng)
    names = sorted(product["options"])
    goal_options = _combination(product["options"], names, k)
    option_text = ", and ".join(f"{name}: {value}" for name, value in goal_options.items())
    option_text = " with " + option_text if option_text else ""
    return {"task_id": f"{product['asin']}-{k}", "asin": product["asin"], "category": product["category"],
            "query": product["query"], "name": product["name"], "product_category": product["product_category"],
            "instruction_text": f"{product['instruction']}{option_text}{price_text}",
            "attributes": list(product["instruction_attributes"]), "price_upper": price_upper,
            "goal_options": goal_options, "title_nouns": list(product["title_nouns"]), "weight": weight}


def _goal_index(products: Iterable[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every goal (catalogue order): its product, its combination and its weight, without building it.

    ``products`` is read once, one at a time (only ``options``, ``instruction`` and
    ``instruction_attributes``): a million products' goals are three arrays of about ten million numbers.
    """
    counts: dict[str, int] = defaultdict(int)
    with_goals: list[tuple[int, int, list[str]]] = []  # (product, combinations, attributes)
    for index, product in enumerate(products):
        if _has_goals(product):
            n = _combinations(product)
            for attribute in product["instruction_attributes"]:
                counts[attribute] += n
            with_goals.append((index, n, product["instruction_attributes"]))
    sizes = np.array([n for _, n, _ in with_goals], dtype=np.int64)
    owners = np.repeat(np.array([index for index, _, _ in with_goals], dtype=np.int64), sizes)
    weights = np.repeat(np.array([sum(1.0 / counts[a] for a in attributes) / len(attributes)
                                  for _, _, attributes in with_goals], dtype=np.float64), sizes)
    combos = np.arange(len(owners)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return owners, combos, weights


def synthetic_goals(products: list[dict], seed: int) -> list[dict]:
    """Every synthetic goal of ``products`` (dicts with asin, name, query, category,
    product_category, options, price, title_nouns, instruction, instruction_attributes), in
    catalogue order, with weights."""
    owners, combos, weights = _goal_index(products)
    return [make_goal(products[o], k, seed, w) for o, k, w in zip(owners.tolist(), combos.tolist(), weights.tolist())]


def weighted_sample(weights: np.ndarray, count: int, rng: random.Random) -> list[int]:
    """``count`` distinct indices drawn in proportion to ``weights`` (WebShop's ``random_idx`` loop).

    The running sums are ``itertools.accumulate``'s: ``np.cumsum`` adds in order, as it does.
    """
    if count >= len(weights):
        return list(range(len(weights)))
    cumulative = np.concatenate(([0.0], np.cumsum(weights, dtype=np.float64)))
    total = float(cumulative[-1])
    chosen: list[int] = []
    seen: set[int] = set()
    while len(chosen) < count:
        index = min(int(np.searchsorted(cumulative, rng.uniform(0, total), side="right")), len(cumulative) - 2)
        if index not in seen:
            seen.add(index)
            chosen.append(index)
    return chosen


@dataclass(frozen=True)
class GoalSet:
    """The goals of a run, by task id, and the demonstration goals (not among them)."""

    goals: dict[str, dict]
    demos: tuple[dict, ...]


def builtin_goals(products: Iterable[dict], seed: int, num_goals: int, num_demos: int = 3,
                  product: Callable[[int], dict] | None = None) -> GoalSet:
    """The built-in task set: ``num_goals`` weighted draws after WebShop's seed-233 shuffle.

    Only the drawn goals are built: a 100,000-product catalogue has about a million goals.

    Args:
        products: The catalogue in order, read once (see :func:`_goal_index`).
        product: The ``i``-th product in full, for the drawn goals; by default ``products[i]``.
    """
    owners, combos, weights = _goal_index(products)
    product = product or products.__getitem__
    order = list(range(len(owners)))
    random.Random(233).shuffle(order)  # the goal list's shuffle, done on positions
    order = np.array(order, dtype=np.int64)
    drawn = weighted_sample(weights[order], num_goals + num_demos, random.Random(f"webshop-goals-{seed}"))
    goals = [make_goal(product(int(owners[p])), int(combos[p]), seed, float(weights[p])) for p in order[drawn].tolist()]
    tests, demos = goals[:len(goals) - num_demos], goals[len(goals) - num_demos:]
    if not tests:
        tests, demos = goals, []
    return GoalSet({g["task_id"]: g for g in tests}, tuple(demos))
