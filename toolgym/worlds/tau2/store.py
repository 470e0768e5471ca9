"""Document tables: τ²-bench's databases hold JSON records keyed by id; each collection is a table.

τ²-bench keeps each domain's database as one pydantic model of dicts of records (users by
id, orders by id, ...). Here each of those dicts is a SQLAlchemy table of ``(pk, key, doc)``
rows: ``pk`` keeps the original insertion order (the order tools iterate in), ``key`` is the
record's id and ``doc`` the record as τ²-bench's JSON has it. Tools read a record, change a
copy and write it back, so a failing call leaves the table untouched (the toolkit rolls back).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from sqlalchemy import JSON, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import World
from toolgym.worlds.jsontext import dumps as json_writer
from toolgym.worlds.tools import ToolError


#: ``json.dumps`` (its text byte for byte) with its encoder made once: a write stores a record's text
_write_json = json_writer()
#: Values a world keeps for its read-only readers (:meth:`DocumentWorld.derived`); cleared past this many.
MAX_SHARED_RECORDS = 20_000


class DocumentRow:
    """Columns of a document table (a mixin of each domain's declarative models)."""

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String, unique=True, index=True)
    doc: Mapped[dict] = mapped_column(JSON)


def _text_key(key) -> bool:
    """Whether ``key`` can name a record, looked up as the originals look a key up in their dicts:
    only text does (SQLite would match the number 123 to the key '123'), and a list or an object
    fails in Python's words, ``unhashable type: 'list'``."""
    if isinstance(key, (list, dict)):
        raise TypeError(f"unhashable type: '{type(key).__name__}'")
    return isinstance(key, str)


def _record_and_text(record: dict) -> tuple[dict, str]:
    return record, _write_json(record)


def _flat_parse(doc: str) -> tuple[Any, bool]:
    """The record stored as ``doc``, and whether it is an object of plain values (no list or object)."""
    record = json.loads(doc)
    return record, isinstance(record, dict) and not any(isinstance(value, (dict, list)) for value in record.values())


class DocumentWorld(World):
    """A world whose tables are document tables; ``tables`` maps τ²'s collection names to models.

    Subclasses set ``Base`` and ``tables``; :meth:`load` fills the tables from τ²-bench's
    database layout (``{"users": {id: record}, ...}``) and :meth:`dump` gives it back.
    """

    Base: type[DeclarativeBase]
    tables: dict[str, type] = {}
    #: The built-in databases are generated there: a changed generator never reads an old cached world.
    generator_modules = ("toolgym.worlds.tau2.tasks",)
    #: The order :meth:`state_hash` reads a table's records in: insertion (τ²'s dicts), or by key.
    hash_order = "pk"

    def state_hash(self) -> str:
        """The digest of every table's records (in order) and the aux state: the world's own
        digest reads each row's ``repr``, which for retail's 2.7 MB costs ten times this.

        A record is hashed with its keys sorted, as τ²-bench hashes its database: the same
        record written with its keys in another order is the same state.
        """
        self.commit()
        digest = hashlib.sha256()
        # Sorting a record's keys means parsing it; the texts of the last hash are kept, since an
        # episode changes few records between its final hash and its ground truth's.
        previous, self._sorted_texts = getattr(self, "_sorted_texts", {}), {}
        for name, model in self.tables.items():
            digest.update(f"{name}\0".encode())
            for key, doc in self.sql().execute(
                    f'SELECT key, doc FROM "{model.__tablename__}" ORDER BY {self.hash_order}'):
                text = previous.get(doc)
                if text is None:
                    text = json.dumps(json.loads(doc), sort_keys=True)
                self._sorted_texts[doc] = text
                digest.update(f"{key}\0{text}\1".encode())
        digest.update(json.dumps(self.hashed_aux(), sort_keys=True, default=str).encode())
        return digest.hexdigest()

    def hashed_aux(self) -> dict:
        """The part of the aux state that is the database's (all of it, unless a domain keeps toolkit
        state there)."""
        return self.aux

    def clear(self) -> None:
        for model in self.tables.values():
            self.sql().execute(f'DELETE FROM "{model.__tablename__}"')
        self.commit()

    def load(self, data: dict[str, dict]) -> None:
        """Replace every table's rows with the collections of ``data`` (τ²'s ``db.json`` layout)."""
        self.clear()
        for name, model in self.tables.items():
            self.sql().executemany(f'INSERT INTO "{model.__tablename__}" (key, doc) VALUES (?, ?)',
                                   [(str(key), json.dumps(record)) for key, record in (data.get(name) or {}).items()])
        self.commit()

    def dump(self) -> dict[str, dict]:
        return {name: {key: json.loads(doc) for key, doc in self.sql().execute(
            f'SELECT key, doc FROM "{model.__tablename__}" ORDER BY pk')} for name, model in self.tables.items()}

    # -- record access for tools ------------------------------------------------------------
    # Plain SQL on the world's connection (see World.sql): a tool reads a few records of
    # thousands, and the ORM's JSON type costs more than the tool.
    def get(self, table: str, key: str, missing: str) -> dict:
        """Record ``key`` of ``table`` (a fresh copy); raises ToolError(``missing``) when absent."""
        record = self.find(table, key)
        if record is None:
            raise ToolError(missing)
        return record

    def find(self, table: str, key: str) -> dict | None:
        """Record ``key`` of ``table`` (a fresh copy), or None when absent: one statement."""
        text = self.text(table, key)
        return None if text is None else json.loads(text)

    def text(self, table: str, key: str) -> str | None:
        """Record ``key`` of ``table`` as stored: ``json.dumps`` of the record (what an original
        that prints a record with ``json.dumps`` answers, without parsing it), or None when absent."""
        row = self.sql().execute(f'SELECT doc FROM "{table}" WHERE key = ?', (key,)).fetchone() \
            if _text_key(key) else None
        return None if row is None else row[0]

    def shared(self, doc: str):
        """The record stored as ``doc`` (a text read from a table), parsed once per world and shared
        by every reader: for a reader that only reads it (a search); change a copy, never this.

        Keyed by the text itself, so a record that was written again is parsed again; parsing a
        flight's 30 dates on every search cost more than the original's whole search.
        """
        return self.derived(doc, lambda: json.loads(doc))

    def copy_of(self, doc: str) -> dict:
        """A fresh copy of the record stored as ``doc``, to change: for a record of plain values
        (a τ² line) a copy of the shared parse, which costs a tenth of parsing it again."""
        record, flat = self.derived(("flat", doc), lambda: _flat_parse(doc))
        return dict(record) if flat else json.loads(doc)

    def derived(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, made once per world and shared by ``key``, which must hold every stored text
        the value is made from (a record written again makes it anew): read it, never change it."""
        memo = self.__dict__.setdefault("_derived", {})
        value = memo.get(key)
        if value is None:
            if len(memo) >= MAX_SHARED_RECORDS:
                memo.clear()
            value = memo[key] = make()
        return value

    def has(self, table: str, key: str) -> bool:
        return _text_key(key) and self.sql().execute(
            f'SELECT 1 FROM "{table}" WHERE key = ?', (key,)).fetchone() is not None

    def put(self, table: str, key: str, record: dict) -> str:
        """Write record ``key`` (insert or replace, keeping its place in the table's order): one
        changed row. Returns the text stored."""
        doc = _write_json(record)
        self._store(table, key, doc, record)
        return doc

    def put_changed(self, table: str, key: str, doc: str, changes: tuple[tuple[str, Any], ...]) -> str:
        """:meth:`put` of the record stored as ``doc`` with the fields of ``changes`` set (a copy's
        ``update``, keys in the same order); the new text is made once per ``doc`` and ``changes``,
        as the same change recurs in every episode of a task. ``changes`` are the caller's constants,
        hashable and told apart by ``==`` (True and 1 would be the same change). Returns the text stored."""
        record, text = self.derived(("changed", doc, changes), lambda: _record_and_text({**json.loads(doc),
                                                                                          **dict(changes)}))
        self._store(table, key, text, record)
        return text

    def _store(self, table: str, key: str, doc: str, record: Any) -> None:
        """Write ``doc``, the text of ``record`` (read only), as record ``key`` of ``table``."""
        if self.sql().execute(f'UPDATE "{table}" SET doc = ? WHERE key = ?', (doc, key)).rowcount == 0:
            self.sql().execute(f'INSERT INTO "{table}" (key, doc) VALUES (?, ?)', (key, doc))

    def records(self, table: str) -> Iterator[dict]:
        """Every record of ``table`` in insertion order (fresh copies)."""
        for (doc,) in self.sql().execute(f'SELECT doc FROM "{table}" ORDER BY pk').fetchall():
            yield json.loads(doc)

    def fields(self, table: str, *paths: str) -> list[tuple]:
        """``(key, value at each JSON path)`` of every record, in insertion order, read by SQLite."""
        columns = ", ".join(f"json_extract(doc, '{path}')" for path in paths)
        return self.sql().execute(f'SELECT key, {columns} FROM "{table}" ORDER BY pk').fetchall()
