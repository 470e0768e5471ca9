"""The WebShop world: a seeded product catalogue in SQLite, in WebShop's product schema.

The catalogue is generated (WebShop's own is an Amazon scrape on a file host): ``num_products``
products spread over WebShop's five categories, each of a :class:`ProductType` with a made-up
brand, a title, a description, bullet points, attribute phrases, customization options, a
price or price range, reviews and a rating, and a synthetic instruction (WebShop's
``items_ins_v2`` entry) from which :mod:`toolgym.worlds.webshop.tasks` makes the goals.

Official products (WebShop's ``items_shuffle*.json``) can be loaded instead (``products=``):
the env's official loader turns them into rows first.

The shop itself never changes during an episode: the browsing session (the page, the search
keywords, the product and the options chosen) lives in ``aux["session"]``, moved by the
tools of :class:`~toolgym.worlds.webshop.session.WebShopSession`. So the catalogue is
not part of the world's private working copy, as other worlds' rows are: it is a SQLite file,
built once (in the cache folder, or at ``db_url`` when that names a file) and attached
read-only, its pages memory-mapped, so every process with the same catalogue shares one copy
through the page cache and a snapshot holds only the (empty) working copy.
"""

from __future__ import annotations

import functools
import json
import os
import random
import sqlite3
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, select
from sqlalchemy.schema import CreateIndex, CreateTable

from toolgym.worlds import cache
from toolgym.worlds.base import World
from toolgym.worlds.build import BUILD_TABLE
from toolgym.worlds.webshop.catalogue import (
    ACRONYMS, BRAND_SYLLABLES, BULLET_SENTENCES, CATEGORIES, DESCRIPTION_SENTENCES, OPENERS, PRODUCT_TYPES, REVIEW_BODIES,
    REVIEW_TITLES, WHAT_YOU_GET, ProductType,
)
from toolgym.worlds.webshop.data_model import Product, WebShopBase
from toolgym.worlds.webshop.reward import fuzzy_match, normalize_color

MAX_PRODUCTS = 1_000_000
ASIN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
PRICE_RANGES = {"beauty": (6, 60), "food": (4, 45), "fashion": (12, 90), "furniture": (18, 380),
                "electronics": (7, 250)}
_NOT_NOUNS = {"for", "with", "and", "of", "the", "a", "in", "to"}
CATALOGUE_SCHEMA = "catalogue"
# SQLite maps at most this much of a file (its default compile-time ceiling is 2 GB); reads
# past it go through SQLite's own page cache.
MMAP_BYTES = 1 << 31


class WebShopWorld(World):
    """A WebShop catalogue.

    Args:
        url: SQLAlchemy URL of the database (in-memory SQLite by default, or a SQLite file).
        seed: Seed of the generated catalogue.
        now: Start of the simulated clock (unused by the shop; kept for the World contract).
        num_products: How many products to generate (1 to 1,000,000).
        products: Rows (dicts of :class:`Product` columns) to load instead of generating, with
            ``source``: a JSON-able description of where they come from, for the fingerprint.
    """

    Base = WebShopBase
    generator_modules = ("toolgym.worlds.webshop.catalogue", "toolgym.worlds.webshop.reward")

    def __init__(self, url: str = "sqlite://", seed: int = 0, now: datetime = datetime(2023, 9, 11, 9),
                 num_products: int = 1000, products: list[dict] | None = None, source: Any = None):
        if products is None and not (isinstance(num_products, int) and 1 <= num_products <= MAX_PRODUCTS):
            raise ValueError(f"WebShopWorld: num_products must be an int from 1 to {MAX_PRODUCTS:,}, "
                             f"got {num_products!r}")
        self.num_products = len(products) if products is not None else num_products
        self._given_products = products
        self._source = source
        super().__init__(url=url, seed=seed, now=now)
        self._given_products = None  # only populate needs them

    def generator_parameters(self) -> dict:
        if self._source is not None:
            return {"source": self._source, "num_products": self.num_products}
        return {"num_products": self.num_products}

    # -- the catalogue file ---------------------------------------------------------------
    def _build(self) -> None:
        """Attach the catalogue file of this world's fingerprint, building it first when missing."""
        path = cache.entry_path(f"world-{type(self).__name__}", self.fingerprint(), (), suffix=".sqlite")
        if path is not None and path.exists():
            try:
                self._load_file(path)
                return
            except ValueError:  # unreadable (a disk error, a foreign file): build it again
                path.unlink(missing_ok=True)
        if path is None:  # no cache folder: a file of this world's own, gone when it closes
            folder = tempfile.mkdtemp(prefix="toolgym-webshop-")
            path = Path(folder) / "catalogue.sqlite"
            self._write_file(path)
            self._attach(path)
            path.unlink()
            os.rmdir(folder)
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        self._write_file(path)
        self._attach(path)

    def _load_file(self, path: Path) -> None:
        self._read_build(path)[0].close()  # refuses another world's file
        self._attach(path)

    def _write_file(self, path: Path) -> None:
        """Generate the catalogue into a new file at ``path``, all at once or not at all."""
        if path.exists():  # World.__init__ writes the file a db_url names after _build made it
            return
        fd, building = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".building", dir=path.parent)
        os.close(fd)
        try:
            target = sqlite3.connect(building)
            try:
                target.execute("PRAGMA journal_mode = OFF")  # a failed build is deleted, never repaired
                target.execute("PRAGMA synchronous = OFF")
                table = Product.__table__
                target.execute(str(CreateTable(table).compile(self.engine)))
                self._insert_products(target)
                for index in table.indexes:
                    target.execute(str(CreateIndex(index).compile(self.engine)))
                target.execute(f"CREATE TABLE {BUILD_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                target.executemany(f"INSERT INTO {BUILD_TABLE} VALUES (?, ?)", [
                    ("fingerprint", json.dumps(self.fingerprint(), sort_keys=True)),
                    ("state", json.dumps({}))])
                target.commit()
            finally:
                target.close()
            try:
                os.link(building, path)  # never replaces a file another process built
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links
                os.replace(building, path)
        finally:
            Path(building).unlink(missing_ok=True)

    def _attach(self, path: Path) -> None:
        """Attach the catalogue read-only: queries of ``products`` read it (the working copy has no such table)."""
        raw = self.sql()
        raw.execute(f"ATTACH DATABASE ? AS {CATALOGUE_SCHEMA}", (f"{path.resolve().as_uri()}?mode=ro",))
        raw.execute(f"PRAGMA {CATALOGUE_SCHEMA}.mmap_size = {MMAP_BYTES}")
        # The working copy names its catalogue; SQLite cannot serialize (snapshot) an empty database.
        raw.execute("CREATE TABLE webshop_catalogue (file TEXT NOT NULL)")
        raw.execute("INSERT INTO webshop_catalogue VALUES (?)", (str(path),))
        raw.commit()
        self.catalogue_file = path

    def _insert_products(self, raw: sqlite3.Connection) -> None:
        rows = self._given_products if self._given_products is not None else iter_products(
            self.seed, self.num_products)
        columns = [c.name for c in Product.__table__.columns]
        json_columns = {c.name for c in Product.__table__.columns if isinstance(c.type, JSON)}
        statement = f"INSERT INTO products ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"

        def encoded(row: dict) -> tuple:
            return tuple(json.dumps(row[c]) if c in json_columns and row[c] is not None else row[c] for c in columns)
        batch = []
        for row in rows:  # in batches: 100,000 generated products are never all in memory as dicts
            batch.append(encoded(row))
            if len(batch) == 10_000:
                raw.executemany(statement, batch)
                batch = []
        raw.executemany(statement, batch)

    # -- reads ------------------------------------------------------------------------------
    def products(self, asins: list[str]) -> dict[str, Product]:
        """The products with these asins (absent ones left out)."""
        found = self.session.scalars(select(Product).where(Product.asin.in_(asins))).all()
        return {p.asin: p for p in found}

    def product(self, asin: str) -> Product | None:
        return self.session.get(Product, asin)

    def all_rows(self, *columns: str) -> list[tuple]:
        """The given columns of every product in catalogue order."""
        cols = ", ".join(f'"{c}"' for c in columns)
        return self.sql().execute(f'SELECT {cols} FROM products ORDER BY seq').fetchall()


def webshop_dict(product: Product) -> dict:
    """The product as WebShop's ``load_products`` gives it (the keys the pages and reward read)."""
    return {"asin": product.asin, "name": product.name, "Title": product.name, "Description": product.description,
            "BulletPoints": list(product.bullet_points), "category": product.category,
            "product_category": product.product_category, "query": product.query, "pricing": list(product.pricing),
            "Price": product.price_tag, "options": {k: list(v) for k, v in product.options.items()},
            "Attributes": list(product.attributes), "Reviews": list(product.reviews), "Rating": product.rating,
            "MainImage": product.main_image, "title_nouns": list(product.title_nouns)}


# -- generation --------------------------------------------------------------------------------
# The text of a product is drawn by index from pools of these sizes (the faker pools the first
# generator drew from), so the random stream, and with it every product's options, price and
# goals, is what it was.
SENTENCE_POOL, REVIEW_TITLE_POOL, REVIEW_BODY_POOL = 600, 300, 600


def _brand(rng: random.Random) -> str:
    return "".join(rng.choice(BRAND_SYLLABLES) for _ in range(rng.choice((2, 2, 3)))).capitalize()


def _asin(rng: random.Random, taken: set[str]) -> str:
    while True:
        asin = "B0" + "".join(rng.choice(ASIN_CHARS) for _ in range(8))
        if asin not in taken:
            taken.add(asin)
            return asin


@functools.lru_cache(maxsize=50_000)
def _distinct(values: tuple[str, ...], name: str) -> list[str]:
    """Values no two of which the reward would take for one another (so option choices discriminate)."""
    kept: list[str] = []
    for value in values:
        if name == "size":
            clash = value in kept
        else:
            clash = any(fuzzy_match(normalize_color(value), normalize_color(k)) for k in kept)
        if not clash:
            kept.append(value)
    return kept


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def instruction_for(rng: random.Random, ptype: ProductType, attributes: list[str]) -> str:
    """A synthetic instruction in one of several templates, lower-case as WebShop's are."""
    noun, attrs = ptype.noun, _join(attributes)
    first, rest = attributes[0], attributes[1:]
    opener = rng.choice(OPENERS)
    template = rng.randrange(5)
    if template == 0:
        text = f"{opener} {_article(noun)} {noun} that is {attrs}"
    elif template == 1:
        text = f"{opener} {_article(first)} {first} {noun}" + (f" with {_join(rest)}" if rest else "")
    elif template == 2:
        text = f"{opener} {ptype.query} which are {attrs}"
    elif template == 3:
        text = f"{opener} {_article(noun)} {noun}, {attrs}"
    else:
        text = f"{opener} some {ptype.query}. they should be {attrs}"
    return text.lower()


def iter_products(seed: int, count: int):
    """``count`` product rows, one at a time, a function of ``seed`` and ``count`` only."""
    rng = random.Random(f"webshop-catalogue-{seed}")
    taken: set[str] = set()
    types = [(category, ptype) for category in CATEGORIES for ptype in PRODUCT_TYPES[category]]
    for seq in range(count):
        category, ptype = types[rng.randrange(len(types))]
        yield _product(rng, seq, category, ptype, _asin(rng, taken))


def generate_products(seed: int, count: int) -> list[dict]:
    """``count`` product rows, a function of ``seed`` and ``count`` only."""
    return list(iter_products(seed, count))


def _title(brand: str, featured: str, adjectives: list[str], noun: str, detail: str) -> str:
    return f"{brand} {_title_after_brand(featured, tuple(adjectives), noun, detail)}"


@functools.lru_cache(maxsize=50_000)  # few combinations: a 100,000-product catalogue composes each once
def _title_after_brand(featured: str, adjectives: tuple[str, ...], noun: str, detail: str) -> str:
    """``[featured] [adjectives] noun [detail]`` (after the brand) without a word said twice: an adjective
    with a word said already, or a detail whose words all are, is left out; an adjective that
    ends with the noun's first word leaves it to the noun (``True Wireless Earbud``); a detail
    that ends with the noun's last word takes its place (``Herbal Tea Bags``); a featured
    attribute that shares a word with the noun follows it (``Storage Ottoman Bench with Storage
    Space``). The words left out are phrases of the title's own type, so the attribute phrases
    the title holds are the same."""
    nouns = noun.split()
    said = {_singular(w) for w in nouns}
    front, back = [], []
    if featured:
        sharing = bool({_singular(w) for w in featured.split()} & said)
        (back if sharing else front).append(featured)
        said |= {_singular(w) for w in featured.split()}
    for phrase in adjectives:
        words = phrase.split()
        if words[-1] == nouns[0] and len(words) > 1:
            words = words[:-1]
        if not {_singular(w) for w in words} & said:  # "Dark Roast" after "Medium Roast" would contradict it
            front.append(" ".join(words))
            said |= {_singular(w) for w in words}
    details = detail.split()
    if details and _singular(details[-1]) == _singular(nouns[-1]):
        nouns = nouns[:-1] + [w for w in details[:-1] if _singular(w) not in said] + details[-1:]
    elif details and not {_singular(w) for w in details if w not in _NOT_NOUNS} <= said:
        nouns = nouns + details
    words = [*front, *nouns]
    if back:
        words.append(("and " if details[:1] == ["with"] and details[-1] in nouns else "with ") + back[0])
    return " ".join(_title_word(w) for w in " ".join(words).split())


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _title_word(word: str) -> str:
    if word in ACRONYMS:
        return word.upper()
    return word if word in _NOT_NOUNS else word.title()


def _different(draws: list[int], n: int) -> list[int]:
    """Each draw as a position below ``n``, the next free one where two would say the same."""
    taken: list[int] = []
    for draw in draws:
        position = draw % n
        while position in taken:
            position = (position + 1) % n
        taken.append(position)
    return taken


def _fill(template: str, brand: str, ptype: ProductType) -> str:
    return template.format(brand=brand, noun=ptype.noun, query=ptype.query)


def _product(rng: random.Random, seq: int, category: str, ptype: ProductType, asin: str) -> dict:
    brand = _brand(rng)
    adjectives = rng.sample(ptype.adjectives, rng.choice((1, 1, 2))) if ptype.adjectives else []
    attributes = sorted(rng.sample(ptype.attributes, min(len(ptype.attributes), rng.randint(3, 5))),
                        key=ptype.attributes.index)
    detail = rng.choice(ptype.details) if ptype.details and rng.random() < 0.7 else ""
    featured = attributes[0] if rng.random() < 0.4 else ""
    title = _title(brand, featured, adjectives, ptype.noun, detail)
    detail_nouns = [w for w in detail.split() if w.isalpha() and w not in _NOT_NOUNS][-1:]
    title_nouns = [brand.lower(), *ptype.noun.split(), *detail_nouns]
    options = {}
    for name, pool in sorted(ptype.options.items()):
        chosen = sorted(rng.sample(pool, min(len(pool), rng.randint(2, 5))), key=pool.index)
        options[name] = list(_distinct(tuple(chosen), name))
    low, high = PRICE_RANGES[category]
    first = round(round(rng.uniform(low, high)) - 0.01, 2)
    if rng.random() < 0.3:
        second = round(round(first * rng.uniform(1.1, 1.6)) + 0.99, 2)
        pricing, price_tag = [first, second], f"${first} to ${second}"
        price = round(rng.uniform(first, second), 2)
    else:
        pricing, price_tag, price = [first], f"${first}", first
    sentences, bullet_sentences = DESCRIPTION_SENTENCES[category], BULLET_SENTENCES[category]
    opening, middle, closing = (_fill(sentences[i], brand, ptype)
                                for i in _different(rng.sample(range(SENTENCE_POOL), 3), len(sentences)))
    highlights = ", ".join(rng.sample(attributes, min(2, len(attributes))))
    description = f"{title}. {opening} {middle} Highlights: {highlights}. {closing}"
    headed = attributes[:rng.randint(2, 4)]
    picks = _different([rng.randrange(SENTENCE_POOL) for _ in headed], len(bullet_sentences))
    bullets = [f"{a.upper()} - {bullet_sentences[i]}" for a, i in zip(headed, picks)]
    bullets.append(f"WHAT YOU GET - {ptype.noun} {WHAT_YOU_GET[rng.randrange(SENTENCE_POOL) % len(WHAT_YOU_GET)]}")
    reviews = []
    for _ in range(rng.choice((0, 1, 2, 3, 4))):
        title_pick = rng.randrange(REVIEW_TITLE_POOL)
        score = rng.choices((1, 2, 3, 4, 5), cum_weights=(1, 2, 4, 8, 14))[0]
        body_pick = rng.randrange(REVIEW_BODY_POOL)
        reviews.append({"title": REVIEW_TITLES[score][title_pick % len(REVIEW_TITLES[score])], "score": score,
                        "body": _fill(REVIEW_BODIES[score][body_pick % len(REVIEW_BODIES[score])], brand, ptype)})
    rating = f"{sum(r['score'] for r in reviews) / len(reviews):.1f}" if reviews else "N.A."
    goal_attributes = sorted(rng.sample(attributes, min(len(attributes), rng.randint(1, 3))), key=attributes.index)
    return {"asin": asin, "seq": seq, "name": title, "description": description, "bullet_points": bullets,
            "category": category, "product_category": ptype.path, "query": ptype.query, "pricing": pricing,
            "price_tag": price_tag, "price": price, "options": options, "attributes": attributes,
            "reviews": reviews, "rating": rating, "main_image": f"https://images.toolgym.invalid/{asin}.jpg",
            "title_nouns": title_nouns, "instruction": instruction_for(rng, ptype, goal_attributes),
            "instruction_attributes": goal_attributes}
