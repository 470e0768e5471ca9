"""The World: a SQLAlchemy database, a simulated clock and named random streams.

Every domain subclasses :class:`World` with its own declarative models and fills its tables
in :meth:`World.populate`. State that is not in the database (the clock, the logged-in
session, random streams) lives in ``self.aux`` so that :meth:`snapshot` / :meth:`restore`
capture the whole world.

A world always runs on its own in-memory SQLite database, its working copy: an episode never
writes anywhere else, so two envs (in one process or in several) never see each other's
state. The ``url`` a world is given only says where the working copy comes from; see
:class:`World`. How its rows are generated, copied and kept in database files is
:mod:`toolgym.worlds.build`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import create_engine
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import StaticPool

from toolgym.worlds.build import WorldBuilding, _random_in_state

DIFF_ROWS = 20  # rows of each kind that World.diff lists per table (it counts them all)


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
    """An opaque copy of a world's full state, and which world it is of."""

    database: bytes | None  # the serialized SQLite working copy; None from volatile_state
    aux: dict
    rng_states: dict  # stream -> random.Random, never drawn from: the world draws from a copy
    now: datetime
    world: str  # the world's identity (its fingerprint as JSON): restore refuses another world's


@dataclass
class WorkBudget:
    """The calls and work units one span of an episode (a step, a turn) may spend in total.

    A per-call limit bounds one call; this bounds their sum, which an action of thousands of
    calls would otherwise multiply. A call is charged before it runs (:func:`charge`); one
    over any of its budgets is refused and counts nothing, so the world never sees it.

    Attributes:
        span: What the budget is of (``"step"``, ``"turn"``), for the refusal's text.
        max_calls: Calls in the span.
        max_work: Work units in the span (a call's work: 1, or what its domain counts, such
            as the digits of a precision).
    """

    span: str
    max_calls: int
    max_work: int
    calls: int = 0
    work: int = 0

    def refusal(self, work: int) -> str | None:
        """Why one more call of ``work`` units is over this budget, or None."""
        if self.calls + 1 > self.max_calls:
            return f"more than {self.max_calls} calls in one {self.span}"
        if self.work + work > self.max_work:
            return f"more than {self.max_work} work units in one {self.span}"
        return None

    def start(self) -> None:
        """A new span: nothing spent."""
        self.calls = self.work = 0

    def spend(self, work: int) -> None:
        """Count work known only once a call has run (the size of its result): later calls pay for it."""
        self.work += work


def charge(budgets: tuple[WorkBudget, ...], work: int = 1) -> str | None:
    """Count one call of ``work`` units against every budget, or none and say why it is refused."""
    for budget in budgets:
        refused = budget.refusal(work)
        if refused is not None:
            return refused
    for budget in budgets:
        budget.calls += 1
        budget.work += work
    return None


class World(WorldBuilding):
    """Base class of every simulated world.

    The world works on a private in-memory SQLite database. ``url`` says where its generated
    rows come from:

    - ``"sqlite://"`` (the default) or ``"sqlite:///:memory:"``: :meth:`populate` generates
      them (once per process for each :meth:`fingerprint`; later worlds copy that image).
    - ``"sqlite:///path.db"``: the file is a built artifact. The first world to use the path
      generates its rows and writes them, with its :meth:`fingerprint` (world class, digest
      of the generator's source, seed, generator parameters, toolgym version), to a
      temporary file that is then linked into place, so processes racing to build it never
      leave a partial file. Later worlds with the same fingerprint copy the file into memory
      without inserting or writing anything: same rows, same :meth:`state_hash`. A file
      with another fingerprint, or one toolgym did not build, is refused with a
      ``ValueError`` that names the file.
    - any other database (PostgreSQL, MySQL, ...) is refused: episodes need a private working
      copy per env, which a shared server database cannot give.

    Subclasses set the attributes :meth:`populate` reads before calling ``World.__init__``.

    Args:
        url: SQLAlchemy URL of the world database: in-memory SQLite or a SQLite file.
        seed: Seed of the world's random streams and data generators.
        now: Start of the simulated clock.

    Raises:
        ValueError: ``url`` is not SQLite, or names a file that holds another world.
    """

    Base: type[DeclarativeBase]
    #: Modules (besides the world's own classes, its models and this one) whose source
    #: determines the generated rows; their digest is part of the fingerprint.
    generator_modules: tuple[str, ...] = ()
    #: Prepared statements the world's sqlite3 connection keeps (sqlite3's default): a statement
    #: pushed out is prepared again at its next use.
    cached_statements: int = 128

    def __init__(self, url: str = "sqlite://", seed: int = 0, now: datetime = datetime(2023, 9, 11, 9)):
        self.url = url
        self.seed = seed
        self.clock_start = now
        database_file = self._database_file(url)
        self.engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={
            "check_same_thread": False, "cached_statements": self.cached_statements})
        # One connection for the world's lifetime: transactions then cost no pool round trip.
        self.connection = self.engine.connect()
        self.session = Session(bind=self.connection, expire_on_commit=False, autoflush=True)
        self._sqlite: sqlite3.Connection = self.connection.connection.driver_connection
        self.clock = SimClock(now)
        #: What the world is (its :meth:`fingerprint` as JSON), carried by each snapshot.
        self.identity = json.dumps(self.fingerprint(), sort_keys=True)
        self.aux: dict = {}
        self._rngs: dict[str, random.Random] = {}
        # Streams whose generator a snapshot also holds: copied before the next draw. Copying a
        # Mersenne Twister's state costs more than a ToolTalk tool, and most calls draw nothing.
        self._shared_rngs: set[str] = set()
        # (snapshot, SQLite's total_changes) when the database last held that snapshot's image
        self._database_image: tuple[Snapshot | None, int] = (None, -1)
        if database_file is not None and database_file.exists():
            self._load_file(database_file)
        else:
            self._build()
            if database_file is not None:
                self._write_file(database_file)

    def close(self) -> None:
        """Free the world's database (session, connection, engine); the world is unusable after.

        Closing twice is harmless.
        """
        self.session.close()
        self.connection.close()
        self.engine.dispose()

    # -- random streams -------------------------------------------------------------------
    def rng(self, stream: str, seed: int | None = None) -> random.Random:
        """A named random stream, created on first use and part of the snapshot.

        Take it from here at each use, not once: a restore replaces it.
        """
        rng = self._rngs.get(stream)
        if rng is None:
            rng = self._rngs[stream] = random.Random(self.seed if seed is None else seed)
        elif stream in self._shared_rngs:
            rng = self._rngs[stream] = _random_in_state(rng.getstate())
            self._shared_rngs.discard(stream)
        return rng

    def reset_rngs(self) -> None:
        self._rngs.clear()
        self._shared_rngs.clear()

    def _share_rngs(self) -> dict[str, random.Random]:
        """The streams, for a snapshot to hold: from now on each is copied before it draws."""
        self._shared_rngs = set(self._rngs)
        return dict(self._rngs)

    def volatile_state(self) -> Snapshot:
        """The state outside the database (aux, random streams, clock): cheap, for undoing one call."""
        aux, rng_states, now = self._volatile()
        return Snapshot(database=None, aux=aux, rng_states=rng_states, now=now, world=self.identity)

    def restore_volatile_state(self, state: Snapshot) -> None:
        """Put back what :meth:`volatile_state` took; the database is left as it is."""
        self._restore_volatile((state.aux, state.rng_states, state.now))

    def _volatile(self) -> tuple[dict, dict, datetime]:
        """(aux, random streams, clock) as :meth:`volatile_state` holds them, without the Snapshot
        (:class:`Atomic` takes them at every call, and a frozen dataclass costs more than they do).
        Empty ones, the usual (a world with no aux state and no stream drawn), are not copied."""
        aux = self.aux
        return _copy_state(aux) if aux else {}, self._share_rngs() if self._rngs else {}, self.clock.now()

    def _restore_volatile(self, state: tuple[dict, dict, datetime]) -> None:
        aux, rng_states, now = state
        self.aux.clear()
        self.aux.update(aux)  # in place: holders of ``aux`` keep seeing the world's state
        self._rngs, self._shared_rngs = dict(rng_states), set(rng_states)
        self.clock.set(now)

    # -- transactions ---------------------------------------------------------------------
    def atomic(self, write: bool = True) -> Atomic:
        """One call on the world, all or nothing: the rule of every tool, API request and REST call.

        When the body returns, its database writes commit (``write=False``: the body only reads,
        and a write it made anyway is rolled back). When it raises, the database is rolled back
        and the state outside it (aux, random streams, clock) is put back as it was, then the
        exception goes on: the caller turns it into its own error shape (a tool's error text,
        an HTTP status). A budget is the caller's to check before the call, so a refused call
        never starts. A program of several calls is atomic as a whole with :meth:`snapshot`
        and :meth:`restore` around it.
        """
        return Atomic(self, write)

    def commit(self) -> None:
        """Commit the session's ORM work and the statements run on :meth:`sql`."""
        if self.session.in_transaction():
            self.session.commit()
        if self._sqlite.in_transaction:  # statements on sql() outside the session's transaction
            self._sqlite.commit()

    def rollback(self) -> None:
        """Undo the session's ORM work and the statements run on :meth:`sql` since the last commit."""
        if self.session.in_transaction():
            self.session.rollback()
        if self._sqlite.in_transaction:
            self._sqlite.rollback()

    def has_pending_writes(self) -> bool:
        """Whether anything was written since the last commit (ORM objects or statements on :meth:`sql`)."""
        # SQLite's flag first, then the session's own test of its objects (what its flush asks):
        # building its dirty, new and deleted sets cost more than a read tool
        return self._sqlite.in_transaction or not self.session._is_clean()

    # -- snapshots ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        self.commit()
        raw = self._sqlite
        snap = Snapshot(database=raw.serialize(), aux=_copy_state(self.aux), rng_states=self._share_rngs(),
                        now=self.clock.now(), world=self.identity)
        self._database_image = (snap, raw.total_changes)
        return snap

    def restore(self, snap: Snapshot) -> None:
        """Return to ``snap``. It may come from another world of this class: ToolTalk's task sets
        hold a state built once and restored into worlds of any seed. A world whose state is
        not all in the snapshot (a catalogue read into memory) calls :meth:`check_snapshot` first."""
        self.rollback()
        self.session.expunge_all()
        raw = self._sqlite
        # The database is not replaced when it already holds this snapshot's image: SQLite's
        # count of changed rows (which only grows, rolled-back changes included) has not
        # moved since that image was taken or restored. Copying the image in costs more than
        # a read-only episode.
        image, changes = self._database_image
        if image is not snap or changes != raw.total_changes:
            raw.deserialize(snap.database)
            self._database_image = (snap, raw.total_changes)
        self._restore_outside_database(snap)

    def _restore_outside_database(self, snap: Snapshot) -> None:
        """:meth:`restore`'s part outside the database: aux, random streams, clock."""
        self.aux = _copy_state(snap.aux)
        self._rngs, self._shared_rngs = dict(snap.rng_states), set(snap.rng_states)
        self.clock.set(snap.now)

    def check_snapshot(self, snap: Snapshot) -> None:
        """ValueError, saying how the worlds differ, unless ``snap`` was taken in a world like this one."""
        if not isinstance(snap, Snapshot) or snap.database is None:
            raise ValueError(f"{type(self).__name__}: restore() takes a snapshot() of the world, "
                             f"not {type(snap).__name__}")
        if snap.world == self.identity:
            return
        ours, theirs = json.loads(self.identity), json.loads(snap.world)
        differences = "; ".join(f"{key} {theirs.get(key)!r} there, {ours[key]!r} here"
                                for key in ours if key != "generator" and theirs.get(key) != ours[key])
        raise ValueError(f"{type(self).__name__}: this snapshot was taken in another world "
                         f"({differences or 'another generator'}); restore() takes snapshots of this world only")

    def database_image(self) -> bytes:
        """The working copy's rows as one SQLite image, for :meth:`diff` (the world is not changed)."""
        self.commit()
        return self._sqlite.serialize()

    def diff(self, before: bytes | Snapshot, limit: int = DIFF_ROWS) -> dict[str, dict]:
        """What the rows of each table are now against ``before`` (a :meth:`database_image` or a
        :meth:`snapshot`): ``{table: {"added": [row], "deleted": [row], "changed": [{"key", "before",
        "after"}], "counts": {"added", "deleted", "changed"}}}`` for tables that differ, rows as
        ``{column: value}`` (a changed row keeps its key columns and those that changed), at most
        ``limit`` listed of each kind. SQLite compares the two images (``EXCEPT``) on a scratch
        connection; the world's own is only read."""
        image = before.database if isinstance(before, Snapshot) else before
        scratch = sqlite3.connect(":memory:")
        try:
            scratch.deserialize(self.database_image())
            scratch.execute("ATTACH DATABASE ':memory:' AS before")
            scratch.deserialize(image, name="before")
            return {table.name: changes for table in self.Base.metadata.sorted_tables
                    if (changes := _table_diff(scratch, table, limit))}
        finally:
            scratch.close()

    def stored_bytes(self) -> int:
        """Bytes the database holds now, written but uncommitted rows included (its pages in use):
        the size of the world, for a budget on how much the tools may make it grow."""
        (pages,), = self._sqlite.execute("PRAGMA page_count").fetchall()
        (free,), = self._sqlite.execute("PRAGMA freelist_count").fetchall()
        (page_size,), = self._sqlite.execute("PRAGMA page_size").fetchall()
        return (pages - free) * page_size

    def state_hash(self) -> str:
        """A digest of the logical state (rows, aux state, clock), for determinism checks."""
        self.commit()
        h = hashlib.sha256()
        for table in self.Base.metadata.sorted_tables:
            h.update(f"{table.name}:{self._table_rows(table)!r}".encode())
        h.update(json.dumps(self.aux, sort_keys=True, default=str).encode())
        h.update(repr(sorted((k, r.getstate()) for k, r in self._rngs.items())).encode())
        h.update(self.clock.now().isoformat().encode())
        return h.hexdigest()

    def _table_rows(self, table) -> list[tuple]:
        """All rows of a table in primary-key order, read straight from SQLite."""
        order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
        return self._sqlite.execute(f'SELECT * FROM "{table.name}" ORDER BY {order}').fetchall()

    def sql(self) -> sqlite3.Connection:
        """The working copy's sqlite3 connection, for hot paths that need no ORM objects.

        Its writes open SQLite's own transaction (Python's sqlite3 begins one before the first
        write), which :meth:`commit` and :meth:`rollback` end together with the session's, so
        a toolkit's commit of an action and its rollback of a failing call cover them. The
        session is not involved: joining its transaction on every statement cost more than
        the statement. ORM objects already loaded do not see these writes; load them again
        (``populate_existing``) after writing here.
        """
        return self._sqlite


class Atomic:
    """The context of :meth:`World.atomic` (a class: a generator's context manager cost more than a read tool)."""

    __slots__ = ("world", "write", "before")

    def __init__(self, world: World, write: bool):
        self.world, self.write = world, write

    def __enter__(self) -> None:
        self.before = self.world._volatile()  # cheap (no database image); used only on failure

    def __exit__(self, kind, error, traceback) -> bool:
        world = self.world
        if kind is None:
            try:
                if self.write:
                    world.commit()
                elif world.has_pending_writes():
                    world.rollback()
                return False
            except BaseException:
                self._undo()
                raise
        self._undo()  # also clears a failed flush, so no later call sees PendingRollbackError
        return False  # the exception goes on

    def _undo(self) -> None:
        self.world.rollback()
        self.world._restore_volatile(self.before)


def _table_diff(connection: sqlite3.Connection, table, limit: int) -> dict:
    """One table's rows added, deleted and changed between the ``before`` and ``main`` schemas."""
    name = table.name.replace('"', '""')
    columns = [c.name for c in table.columns]
    keys = [columns.index(c.name) for c in table.primary_key.columns]
    try:
        newer = connection.execute(f'SELECT * FROM main."{name}" EXCEPT SELECT * FROM before."{name}"').fetchall()
        older = connection.execute(f'SELECT * FROM before."{name}" EXCEPT SELECT * FROM main."{name}"').fetchall()
    except sqlite3.OperationalError:  # a table one of the images does not have
        return {}
    if not newer and not older:
        return {}
    key_of = (lambda row: tuple(row[k] for k in keys)) if keys else tuple
    old_by_key = {key_of(row): row for row in older}
    added, changed = [], []
    for row in newer:
        old = old_by_key.pop(key_of(row), None)
        if old is None:
            added.append(dict(zip(columns, row)))
        else:
            moved = [i for i, (a, b) in enumerate(zip(old, row)) if a != b]
            changed.append({"key": {columns[k]: row[k] for k in keys},
                            "before": {columns[i]: old[i] for i in moved},
                            "after": {columns[i]: row[i] for i in moved}})
    deleted = [dict(zip(columns, row)) for row in old_by_key.values()]
    return {"added": added[:limit], "deleted": deleted[:limit], "changed": changed[:limit],
            "counts": {"added": len(added), "deleted": len(deleted), "changed": len(changed)}}


_ATOMS = (str, int, float, bool, type(None), datetime)


def _copy_state(value):
    """A deep copy of aux state: JSON-shaped values (the usual) copied directly, anything else
    with ``copy.deepcopy``, which costs several times more and runs at every tool call."""
    kind = type(value)
    if kind is dict:
        return {key: _copy_state(item) for key, item in value.items()}
    if kind is list:
        return [_copy_state(item) for item in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)
