"""WebShop's own data: products, attributes and human goals, read as WebShop reads them.

Files (WebShop's ``data/`` folder, as ``setup.sh`` downloads it):

- ``items_shuffle.json`` (or ``items_shuffle_1000.json``): the products, a JSON list of scraped
  items (``asin``, ``name``, ``full_description``, ``small_description``, ``pricing``,
  ``customization_options``, ``images``, ``category``, ``query``, ``product_category``);
- ``items_ins_v2.json`` (or ``items_ins_v2_1000.json``): ``{asin: {"attributes": [...], ...}}``;
- ``items_human_ins.json``: ``{asin: [{"instruction", "instruction_attributes",
  "instruction_options"}, ...]}``, the human instructions.

Products are cleaned as ``load_products`` does (asins "nan" or longer than 10 characters and
repeated asins skipped, price tags "$x" / "$x to $y", option values lower-cased with "/" as
" | ", ``DUMMY_ATTR`` for products without attributes; reviews are empty and the rating
"N.A.", as in WebShop's text env). Goals are ``get_human_goals``: one per human instruction with
attributes, in product order, then shuffled with seed 233 as WebShop's server does; WebShop's
baselines test on goals 0-499, validate on 500-1499 and train on the rest, and the SambaNova
ToolBench evaluates sessions 0-99. The first 2 goals of the train split are the few-shot
demonstrations. Price bounds use a generator seeded with the asin and the instruction's place
(WebShop uses the unseeded global ``random``).

Title nouns come from spaCy when it and ``en_core_web_lg`` (or ``en_core_web_sm``) are
installed, else from :func:`fallback_nouns`.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json, read_json_list
from toolgym.worlds.webshop.tasks import price_upper_for

SPLITS = {"test": (0, 500), "dev": (500, 1500), "train": (1500, None), "toolbench": (0, 100)}
LAYOUT = OfficialLayout(name="WebShop", benchmark="webshop",
                        expected=("items_shuffle*.json", "items_ins_v2*.json", "items_human_ins.json"),
                        source="princeton-nlp/WebShop on GitHub (MIT): setup.sh downloads the product catalogue "
                               "(items_shuffle*.json, items_ins_v2*.json) and items_human_ins.json")
STOP_WORDS = frozenset("""a about above after again against all am an and any are as at be because been before being
below between both but by can did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where which while who whom
why will with you your yours yourself yourselves pack count""".split())


@dataclass(frozen=True)
class OfficialData:
    products: list[dict]  # rows of the products table
    goals: dict[str, dict]  # the split's goals by task id
    demos: tuple[dict, ...]
    source: dict  # what the fingerprint records


def fallback_nouns(name: str) -> list[str]:
    """Offline stand-in for spaCy's NOUN / PROPN tokens: alphabetic words that are not stop words."""
    return [w for w in re.findall(r"[a-z][a-z'\-]*", name.lower()) if w not in STOP_WORDS and len(w) > 1]


@functools.cache
def _spacy():
    try:
        import spacy
    except ImportError:
        return None
    for model in ("en_core_web_lg", "en_core_web_sm"):
        try:
            return spacy.load(model)
        except OSError:
            continue
    return None


def title_nouns(name: str) -> list[str]:
    nlp = _spacy()
    if nlp is None:
        return fallback_nouns(name)
    return [t.text.lower() for t in nlp(name) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]


def _pick(folder: Path, stem: str) -> Path:
    """``<stem>.json`` if present, else ``<stem>_1000.json``, else the first ``<stem>*.json``."""
    for name in (f"{stem}.json", f"{stem}_1000.json"):
        if (folder / name).is_file():
            return folder / name
    return sorted(folder.glob(f"{stem}*.json"))[0]


def _price(pricing_text, where: str) -> tuple[list[float], str]:
    if not pricing_text:
        return [100.0], "$100.0"
    try:
        pricing = [float(Decimal(re.sub(r"[^\d.]", "", p))) for p in str(pricing_text).split("$")[1:]]
    except InvalidOperation:
        raise OfficialDataError(f"{where}: unreadable pricing {str(pricing_text)[:80]!r}") from None
    if not pricing:
        raise OfficialDataError(f"{where}: pricing {str(pricing_text)[:80]!r} has no '$' amount")
    if len(pricing) == 1:
        return pricing, f"${pricing[0]}"
    return pricing[:2], f"${pricing[0]} to ${pricing[1]}"


#: The largest product or attribute file read: WebShop's full catalogue is some GB.
MAX_CATALOGUE_FILE = 8 * 2**30


def load_products(items_path: Path, attributes_path: Path, seed: int) -> list[dict]:
    """Product rows from WebShop's item and attribute files (``load_products``)."""
    items = read_json_list(items_path, "products", MAX_CATALOGUE_FILE)
    attributes = read_json(attributes_path, MAX_CATALOGUE_FILE)
    if not isinstance(attributes, dict):
        raise OfficialDataError(f"{attributes_path}: expected a JSON object keyed by asin")
    rows, seen = [], set()
    for number, item in enumerate(items):
        where = f"{items_path}: product {number}"
        if not isinstance(item, dict):
            raise OfficialDataError(f"{where}: expected an object, got {type(item).__name__}")
        missing = [k for k in ("asin", "name", "query", "category", "product_category") if k not in item]
        if missing:
            raise OfficialDataError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")
        asin = str(item["asin"])
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        pricing, price_tag = _price(item.get("pricing"), where)
        rng = random.Random(f"webshop-official-price-{seed}-{asin}")
        price = pricing[0] if len(pricing) == 1 else rng.uniform(*pricing[:2])
        options = {}
        for option_name, contents in (item.get("customization_options") or {}).items():
            if contents is None:
                continue
            options[option_name.lower()] = [str(c["value"]).strip().replace("/", " | ").lower() for c in contents]
        small = item.get("small_description") or ""
        bullets = small if isinstance(small, list) else [small]
        entry = attributes.get(asin) or {}
        images = item.get("images") or [""]
        rows.append({
            "asin": asin, "seq": len(rows), "name": item["name"], "description": item.get("full_description") or "",
            "bullet_points": [str(b) for b in bullets], "category": item["category"],
            "product_category": item["product_category"] or "", "query": str(item["query"]).lower().strip(),
            "pricing": pricing, "price_tag": price_tag, "price": price, "options": options,
            "attributes": entry.get("attributes") or ["DUMMY_ATTR"], "reviews": [], "rating": "N.A.",
            "main_image": images[0] or "", "title_nouns": title_nouns(item["name"]),
            "instruction": entry.get("instruction"), "instruction_attributes": entry.get("instruction_attributes")})
    return rows


def human_goals(products: list[dict], human_path: Path, seed: int) -> list[dict]:
    """``get_human_goals``, then WebShop's seed-233 shuffle."""
    human = read_json(human_path)
    if not isinstance(human, dict):
        raise OfficialDataError(f"{human_path}: expected a JSON object keyed by asin")
    goals = []
    for product in products:
        for k, instruction in enumerate(human.get(product["asin"]) or []):
            where = f"{human_path}: {product['asin']} instruction {k}"
            if not isinstance(instruction, dict) or "instruction" not in instruction:
                raise OfficialDataError(f"{where}: expected an object with 'instruction'")
            attributes = instruction.get("instruction_attributes") or []
            if not attributes:
                continue  # WebShop skips (and counts) instructions without attributes
            rng = random.Random(f"webshop-official-goal-{seed}-{product['asin']}-{k}")
            price_upper, price_text = price_upper_for(product["price"], rng)
            goals.append({
                "asin": product["asin"], "category": product["category"], "query": product["query"],
                "name": product["name"], "product_category": product["product_category"],
                "instruction_text": str(instruction["instruction"]).strip(".") + price_text,
                "attributes": list(attributes), "price_upper": price_upper,
                "goal_options": instruction.get("instruction_options") or [], "weight": 1,
                "title_nouns": product["title_nouns"]})
    random.Random(233).shuffle(goals)
    for index, goal in enumerate(goals):
        goal["task_id"] = str(index)  # WebShop's session index
    return goals


def load_official(env_id: str, data_dir, split: str | None, seed: int) -> OfficialData:
    """The official products and the goals of ``split`` (every goal when None)."""
    folder = LAYOUT.locate(env_id, data_dir)
    items_path, attributes_path = _pick(folder, "items_shuffle"), _pick(folder, "items_ins_v2")
    human_path = folder / "items_human_ins.json"
    products = load_products(items_path, attributes_path, seed)
    goals = human_goals(products, human_path, seed)
    low, high = SPLITS[split] if split is not None else (0, None)
    chosen = goals[low:high]
    LAYOUT.check_not_empty(env_id, folder, len(chosen), split)
    demos = tuple(goals[1500:1502]) if split != "train" else ()
    source = {path.name: path.stat().st_size for path in (items_path, attributes_path, human_path)}
    source["folder"] = str(folder.resolve())
    return OfficialData(products, {g["task_id"]: g for g in chosen}, demos, source)
