"""The World: a SQLAlchemy database, a simulated clock and named random streams.

Every domain subclasses :class:`World` with its own declarative models. State that is not
in the database (the clock, the logged-in session, random streams) lives in ``self.aux``
so that :meth:`snapshot` / :meth:`restore` capture the whole world.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from collections.abc import Iterator

from sqlalchemy import create_engine, delete, insert, select
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import StaticPool


class Record:
    """Mixin for models whose dict form is simply their columns."""

    def to_dict(self) -> dict:
        return {c.name: getattr(self, c.name) for c in self.__table__.columns}


class SimClock:
    """Simulated time: only ever moves when the world says so, never from the wall clock."""

    def __init__(self, now: datetime):
        self._now = now

    def now(self) -> datetime:
        return self._now

    def set(self, now: datetime) -> None:
        self._now = now

    def advance(self, delta: timedelta) -> None:
        self._now += delta


@dataclass(frozen=True)
class Snapshot:
    """An opaque copy of a world's full state."""

    database: Any
    aux: dict
    rng_states: dict  # stream -> random.Random state (immutable tuples, shared safely)
    now: datetime


class _Transaction:
    def __init__(self):
        self.failed = False

    def fail(self) -> None:
        self.failed = True


class World:
    """Base class of every simulated world.

    Args:
        url: SQLAlchemy URL of the database; in-memory SQLite by default.
        seed: Seed of the world's random streams and data generators.
        now: Start of the simulated clock.
    """

    Base: type[DeclarativeBase]

    def __init__(self, url: str = "sqlite://", seed: int = 0, now: datetime = datetime(2023, 9, 11, 9)):
        self.url = url
        self.seed = seed
        memory = url in ("sqlite://", "sqlite:///:memory:")
        self.engine = create_engine(
            url,
            poolclass=StaticPool if memory else None,
            connect_args={"check_same_thread": False} if url.startswith("sqlite") else {},
        )
        self._in_memory_sqlite = memory
        self.Base.metadata.create_all(self.engine)
        # One connection for the world's lifetime: transactions then cost no pool round trip.
        self.connection = self.engine.connect()
        self.session = Session(bind=self.connection, expire_on_commit=False, autoflush=True)
        self.clock = SimClock(now)
        self.aux: dict = {}
        self._rngs: dict[str, random.Random] = {}

    # -- random streams -------------------------------------------------------------------
    def rng(self, stream: str, seed: int | None = None) -> random.Random:
        """A named random stream, created on first use and part of the snapshot."""
        if stream not in self._rngs:
            self._rngs[stream] = random.Random(self.seed if seed is None else seed)
        return self._rngs[stream]

    def reset_rngs(self) -> None:
        self._rngs.clear()

    # -- transactions ---------------------------------------------------------------------
    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[_Transaction]:
        """Commit what the body did, or roll all of it back if the body called ``fail``.

        With ``write=False`` the body only reads: nothing is committed, and a failure still
        rolls back whatever the body may have changed.
        """
        tx = _Transaction()
        try:
            yield tx
        except BaseException:
            self.session.rollback()
            raise
        if tx.failed or (not write and self.session.dirty | self.session.new | self.session.deleted):
            self.session.rollback()
        elif write:
            self.session.commit()

    # -- snapshots ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        self.session.commit()
        if self._in_memory_sqlite:
            database = self._raw_sqlite().serialize()
        else:
            database = {t.name: [dict(r._mapping) for r in self.session.execute(select(t))]
                        for t in self.Base.metadata.sorted_tables}
            self.session.commit()
        return Snapshot(database=database, aux=copy.deepcopy(self.aux),
                        rng_states={k: r.getstate() for k, r in self._rngs.items()}, now=self.clock.now())

    def restore(self, snap: Snapshot) -> None:
        self.session.rollback()
        self.session.expunge_all()
        if self._in_memory_sqlite and isinstance(snap.database, bytes):
            self._raw_sqlite().deserialize(snap.database)
        else:
            rows = snap.database if isinstance(snap.database, dict) else _rows_of_image(snap.database, self.Base.metadata.sorted_tables)
            for table in reversed(self.Base.metadata.sorted_tables):
                self.session.execute(delete(table))
            for table in self.Base.metadata.sorted_tables:
                if rows.get(table.name):
                    self.session.execute(insert(table), rows[table.name])
            self.session.commit()
        self.aux = copy.deepcopy(snap.aux)
        self._rngs = {}
        for key, state in snap.rng_states.items():
            r = random.Random()
            r.setstate(state)
            self._rngs[key] = r
        self.clock.set(snap.now)

    def state_hash(self) -> str:
        """A digest of the logical state (rows, aux state, clock), for determinism checks."""
        self.session.commit()
        h = hashlib.sha256()
        for table in self.Base.metadata.sorted_tables:
            h.update(f"{table.name}:{self._table_rows(table)!r}".encode())
        h.update(json.dumps(self.aux, sort_keys=True, default=str).encode())
        h.update(repr(sorted((k, r.getstate()) for k, r in self._rngs.items())).encode())
        h.update(self.clock.now().isoformat().encode())
        return h.hexdigest()

    def _table_rows(self, table) -> list[tuple]:
        """All rows of a table in primary-key order (read straight from SQLite when in memory)."""
        order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
        if self._in_memory_sqlite:
            return self._raw_sqlite().execute(f'SELECT * FROM "{table.name}" ORDER BY {order}').fetchall()
        rows = [tuple(r) for r in self.session.execute(select(table).order_by(*table.primary_key.columns))]
        self.session.commit()
        return rows

    def _raw_sqlite(self):
        return self.connection.connection.driver_connection


def _rows_of_image(image: bytes, tables) -> dict[str, list[dict]]:
    """Rows per table of a serialized SQLite database (to restore it into another database)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.deserialize(image)
    engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
    try:
        with engine.connect() as c:
            return {t.name: [dict(r._mapping) for r in c.execute(select(t))] for t in tables}
    finally:
        engine.dispose()
        conn.close()
