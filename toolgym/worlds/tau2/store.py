"""Document tables: τ²-bench's databases hold JSON records keyed by id; each collection is a table.

τ²-bench keeps each domain's database as one pydantic model of dicts of records (users by
id, orders by id, ...). Here each of those dicts is a SQLAlchemy table of ``(pk, key, doc)``
rows: ``pk`` keeps the original insertion order (the order tools iterate in), ``key`` is the
record's id and ``doc`` the record as τ²-bench's JSON has it. Tools read a record, change a
copy and write it back, so a failing call leaves the table untouched (the toolkit rolls back).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

from sqlalchemy import JSON, Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import World
from toolgym.worlds.tools import ToolError


class DocumentRow:
    """Columns of a document table (a mixin of each domain's declarative models)."""

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String, unique=True, index=True)
    doc: Mapped[dict] = mapped_column(JSON)


class DocumentWorld(World):
    """A world whose tables are document tables; ``tables`` maps τ²'s collection names to models.

    Subclasses set ``Base`` and ``tables``; :meth:`load` fills the tables from τ²-bench's
    database layout (``{"users": {id: record}, ...}``) and :meth:`dump` gives it back.
    """

    Base: type[DeclarativeBase]
    tables: dict[str, type] = {}

    def clear(self) -> None:
        for model in self.tables.values():
            self.session.query(model).delete()
        self.session.commit()

    def load(self, data: dict[str, dict]) -> None:
        """Replace every table's rows with the collections of ``data`` (τ²'s ``db.json`` layout)."""
        self.clear()
        for name, model in self.tables.items():
            for key, record in (data.get(name) or {}).items():
                self.session.add(model(key=str(key), doc=record))
        self.session.commit()

    def dump(self) -> dict[str, dict]:
        return {name: {row.key: row.doc for row in self.session.scalars(select(model).order_by(model.pk))}
                for name, model in self.tables.items()}

    # -- record access for tools ------------------------------------------------------------
    def get(self, table: str, key: str, missing: str) -> dict:
        """A copy of record ``key`` of ``table``; raises ToolError(``missing``) when absent."""
        model = self.tables[table]
        row = self.session.scalars(select(model).where(model.key == key)).first() if isinstance(key, str) else None
        if row is None:
            raise ToolError(missing)
        return copy.deepcopy(row.doc)

    def has(self, table: str, key: str) -> bool:
        model = self.tables[table]
        return self.session.scalars(select(model.pk).where(model.key == key)).first() is not None

    def put(self, table: str, key: str, record: dict) -> None:
        """Write record ``key`` (insert or replace, keeping its place in the table's order)."""
        model = self.tables[table]
        row = self.session.scalars(select(model).where(model.key == key)).first()
        if row is None:
            self.session.add(model(key=key, doc=json.loads(json.dumps(record))))
        else:
            row.doc = json.loads(json.dumps(record))
        self.session.flush()

    def records(self, table: str) -> Iterator[dict]:
        """Every record of ``table`` in insertion order (copies)."""
        model = self.tables[table]
        for row in self.session.scalars(select(model).order_by(model.pk)):
            yield copy.deepcopy(row.doc)
