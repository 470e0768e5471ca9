"""WebShop's reward (``web_agent_site/engine/goal.py``), term for term.

    r = r_type * (attribute matches + option matches + [price <= price_upper])
              / (|goal attributes| + |goal options| + 1)

- an attribute of the goal matches when one of the product's ``Attributes`` has a fuzzy
  token-set ratio above 85 with it, or when it is a substring of the product's title, bullet
  points or description (lower-cased);
- an option of the goal matches when one of the purchased options has a token-set ratio above
  85 with it, after colour normalisation (the first of WebShop's ``COLOR_SET`` contained in the
  text);
- ``r_type`` is 1, 0.5, 0.1 or 0 from the query match, the category-path overlap (at least 2
  shared levels) and the title score (shared title nouns / goal title nouns) with the
  original's thresholds.

Fuzzy ratios are ``thefuzz``'s: strings are processed (lower-cased, every character that is
not a letter or digit made a space, trimmed), an empty string scores 0 and the score is
rounded to an integer before the ``> 85`` test. ``rapidfuzz`` computes them.

The two scorings differ in the fuzzy matching of text that is not ASCII and in the options
(see ``WebShopEnv``'s docstring):

- ``paper`` keeps every letter; ``paper_compat`` first drops each character that is not
  ASCII, as ``thefuzz``'s ``force_ascii=True`` default does in the released code, so a goal
  attribute written with ``’`` never matches the product's ``'`` ("women’s" against "women's"
  scores 77) and one in another script is empty and never matches at all.

- ``paper``: a goal option named ``size`` (or, for goals without option names, a purchased
  option named ``size``) matches only the same text (exact matching, so "large" does not buy
  "x-large"); the goal's option values are compared.
- ``paper_compat``: the released code. Sizes are matched fuzzily (for a human goal's option
  list, "large" matches "x-large" and "size 7" matches "size 7.5"), and a synthetic goal's
  options, a dict, are passed as ``(name, value)`` pairs, which the original's normalisation
  and ``thefuzz`` read as the text ``"('size', 'large')"`` (83 against "x-large": no match;
  100 against "large").
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

COLOR_SET = [
    'alabaster', 'apricot', 'aqua', 'ash', 'asphalt', 'azure',
    'banana', 'beige', 'black', 'blue', 'blush', 'bordeaux', 'bronze',
    'brown', 'burgundy', 'camel', 'camo', 'caramel', 'champagne',
    'charcoal', 'cheetah', 'chestnut', 'chocolate', 'christmas', 'coffee',
    'cognac', 'copper', 'coral', 'cranberry', 'cream', 'crystal', 'dark',
    'denim', 'eggplant', 'elephant', 'espresso', 'fuchsia', 'gold', 'granite',
    'grape', 'graphite', 'grass', 'gray', 'green', 'grey', 'heather', 'indigo',
    'ivory', 'ivy', 'khaki', 'lavender', 'lemon', 'leopard', 'light', 'lilac',
    'lime', 'magenta', 'maroon', 'mauve', 'merlot', 'midnight', 'mint', 'mocha',
    'multicolor', 'mushroom', 'mustard', 'natural', 'navy', 'nude', 'olive',
    'orange', 'peach', 'pewter', 'pink', 'plum', 'purple', 'rainbow', 'red',
    'rose', 'royal', 'rust', 'sand', 'sapphire', 'seashell', 'silver', 'skull',
    'slate', 'steel', 'stone', 'stonewash', 'sunflower', 'tan', 'taupe', 'teal',
    'tiger', 'turquoise', 'violet', 'walnut', 'wheat', 'white', 'wine', 'yellow',
]
FUZZY_THRESHOLD = 85
SCORINGS = ("paper", "paper_compat")


def normalize_color(color: Any) -> Any:
    """The first colour of ``COLOR_SET`` in ``color`` (``in``: a substring of text, an item of a tuple)."""
    for norm_color in COLOR_SET:
        if norm_color in color:
            return norm_color
    return color


def _process(value: Any, force_ascii: bool = True) -> str:
    """``thefuzz``'s ``full_process``; non-strings are read as their ``str``."""
    text = value if isinstance(value, str) else str(value)
    if force_ascii:
        text = text.encode("ascii", "ignore").decode("ascii")
    return default_process(text)


def token_set_ratio(a: Any, b: Any, force_ascii: bool = True) -> int:
    """``thefuzz.fuzz.token_set_ratio``: 0 to 100, an integer; 0 when either side is empty after
    processing. ``force_ascii`` (the released code's default) drops characters that are not ASCII first."""
    a, b = _process(a, force_ascii), _process(b, force_ascii)
    if not a or not b:
        return 0
    return int(round(fuzz.token_set_ratio(a, b)))


def fuzzy_match(a: Any, b: Any, force_ascii: bool = True) -> bool:
    return token_set_ratio(a, b, force_ascii) > FUZZY_THRESHOLD


def category_levels(path: str) -> set[str]:
    return {level.strip() for level in path.split("›")}


def type_reward(purchased: Mapping, goal: Mapping) -> dict:
    """``get_type_reward``: r_type from query match, category overlap and title-noun score.

    ``purchased["title_nouns"]`` and ``goal["title_nouns"]`` are the nouns of the two names
    (spaCy's NOUN / PROPN tokens in the original).
    """
    query_match = purchased["query"] == goal["query"]
    category_match = len(category_levels(purchased["product_category"]) & category_levels(goal["product_category"])) >= 2
    purchased_nouns, desired_nouns = list(purchased["title_nouns"]), list(goal["title_nouns"])
    shared = len(set(purchased_nouns) & set(desired_nouns))
    title_score = 0.2 if not desired_nouns else shared / len(desired_nouns)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {"r_type": r_type, "query_match": query_match, "category_match": category_match,
            "title_score": title_score}


def attribute_matches(purchased: Mapping, goal_attributes: Sequence[str], scoring: str = "paper") -> int:
    """``get_attribute_reward``'s count: goal attributes found in the product."""
    force_ascii = scoring == "paper_compat"
    title = purchased["Title"].lower()
    bullets = " ".join(purchased["BulletPoints"]).lower()
    description = purchased["Description"].lower()
    count = 0
    for g_attr in goal_attributes:
        if any(fuzzy_match(p_attr, g_attr, force_ascii) for p_attr in purchased["Attributes"]):
            count += 1
        elif g_attr in title or g_attr in bullets or g_attr in description:
            count += 1
    return count


def _is_size(name: Any) -> bool:
    return isinstance(name, str) and name.strip().lower() == "size"


def option_matches(purchased_options: Mapping[str, str], goal_options: Mapping[str, str] | Sequence[str],
                   scoring: str = "paper") -> int:
    """``get_option_reward``'s count: goal options among the purchased options."""
    if scoring == "paper_compat":
        goal_items: Iterable = goal_options.items() if isinstance(goal_options, Mapping) else goal_options
        purchased = [normalize_color(o) for o in purchased_options.values()]
        count = 0
        for g_option in (normalize_color(o) for o in goal_items):
            if any(fuzzy_match(p_option, g_option) for p_option in purchased):
                count += 1
        return count
    named = isinstance(goal_options, Mapping)
    goals = list(goal_options.items()) if named else [(None, value) for value in goal_options]
    count = 0
    for g_name, g_value in goals:
        for p_name, p_value in purchased_options.items():
            exact = _is_size(g_name) if named else _is_size(p_name)
            if exact:
                hit = str(p_value).strip().lower() == str(g_value).strip().lower()
            else:
                hit = fuzzy_match(normalize_color(p_value), normalize_color(g_value), force_ascii=False)
            if hit:
                count += 1
                break
    return count


def get_reward(purchased: Mapping, goal: Mapping, price: float, options: Mapping[str, str],
               scoring: str = "paper") -> tuple[float, dict]:
    """``get_reward(..., verbose=True)``: the score and its components.

    Args:
        purchased: The bought product in WebShop's dict form (``query``, ``product_category``,
            ``Title``, ``BulletPoints``, ``Description``, ``Attributes``) plus ``title_nouns``.
        goal: ``query``, ``product_category``, ``title_nouns``, ``attributes``,
            ``goal_options`` (dict or list) and ``price_upper``.
        price: What the purchase cost.
        options: The chosen options ``{name: value}``.
        scoring: ``"paper"`` or ``"paper_compat"`` (the module docstring says how they differ).

    Returns:
        ``(r, info)``; info has ``r_type``, ``r_att``, ``r_option`` (None for a goal without
        options), ``r_price``, ``w_att``, ``w_option``, ``w_price``, ``query_match``,
        ``category_match``, ``title_score``, ``attribute_matches``, ``option_matches``.
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
    type_info = type_reward(purchased, goal)
    r_price = price <= goal["price_upper"]
    n_attributes, n_options = len(goal["attributes"]), len(goal["goal_options"])
    attr_hits = attribute_matches(purchased, goal["attributes"], scoring)
    option_hits = option_matches(options, goal["goal_options"], scoring)
    denominator = n_attributes + n_options + 1
    total = (attr_hits + option_hits + r_price) / denominator * type_info["r_type"]
    info = {**type_info,
            "r_att": attr_hits / n_attributes if n_attributes else None,
            "r_option": option_hits / n_options if n_options else None,
            "r_price": float(r_price),
            "w_att": n_attributes / denominator, "w_option": n_options / denominator, "w_price": 1 / denominator,
            "attribute_matches": attr_hits, "option_matches": option_hits}
    return total, info
