"""The BFCL world: one SQLite database holding the state of a task's stateful APIs.

A task's involved APIs share one :class:`BfclWorld` (the model's and the ground truth's are
two worlds). Each :class:`TableAPI` fills its tables from the task's ``initial_config`` and its
functions read and write rows; a call runs inside :meth:`World.atomic`, so a call that raises
leaves the database and the random streams as they were (or, for BFCL's own behaviour, keeps
what it changed: :meth:`TableAPI._run`). :meth:`TableAPI.state` reads the tables back into
BFCL's attribute shapes, which is what the multi-turn checker compares.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from toolgym.worlds.base import Snapshot, World
from toolgym.worlds.bfcl.api import BfclAPI, result_text
from toolgym.worlds.bfcl.models import Base, dump, load


#: The most bytes a BFCL world's database may hold after a call (file contents, messages, posts...);
#: the largest official scenario holds 147 KB (measured over the 800). A call that would pass it is undone.
MAX_WORLD_BYTES = 16 * 1024 * 1024


class BfclWorld(World):
    """The tables of every BFCL API (:mod:`toolgym.worlds.bfcl.models`), empty until a scenario loads.

    Keeps the texts of the settings rows read or written since the last rollback or restore
    (:meth:`TableAPI._get`), and the database's page size, for the size check after a write.
    """

    Base = Base
    #: A kept world runs any task's APIs (about 80 statements over the official tasks) and
    #: restores any scenario (a delete and an insert per table): more than sqlite3's 128, which
    #: made an episode's first calls prepare statements again.
    cached_statements = 256

    def __init__(self, *args, **kwargs):
        self.settings_read: dict[tuple[str, str], str] = {}
        self._page_size: int | None = None
        super().__init__(*args, **kwargs)

    def rollback(self) -> None:
        super().rollback()
        self.settings_read.clear()

    def restore(self, snap) -> None:
        super().restore(snap)
        self.settings_read.clear()
        self._page_size = None  # an image holds its own page size

    def scenario(self) -> tuple[Snapshot, dict[str, list[tuple]]]:
        """What :meth:`restore_rows` takes to return here: the state outside the database (a
        :meth:`volatile_state`: no image is serialized) and the rows of each table that has
        any, ``(rowid, *columns)`` in rowid order."""
        self.commit()
        raw = self._sqlite
        rows = {name: raw.execute(f'SELECT rowid, * FROM "{name}" ORDER BY rowid').fetchall()
                for name in _filled_tables(raw)}
        snap = self.volatile_state()
        self._database_image = (snap, raw.total_changes)
        self.settings_read = _settings_texts(rows)
        return snap, rows

    def restore_rows(self, snap: Snapshot, rows: dict[str, list[tuple]]) -> None:
        """Return to ``snap``, whose tables held ``rows`` (both from :meth:`scenario`, or a
        :meth:`snapshot` and no rows for an empty world), by
        emptying the tables that hold rows and inserting ``rows`` on the same connection; nothing
        when the database still holds ``snap``'s rows unchanged.

        :meth:`restore` replaces the database with the snapshot's image, after which SQLite reads
        the schema again at the next statement it prepares (the size check's ``PRAGMA page_count``
        after a write): 70 µs, more than this whole restore of an official scenario (about 30 µs).
        Same rows, rowids and values as the image; only free pages may differ. The settings'
        texts are then known without a query (:meth:`TableAPI._get`)."""
        self.rollback()
        self.session.expunge_all()
        raw = self._sqlite
        image, changes = self._database_image
        if image is not snap or changes != raw.total_changes:
            for name in _filled_tables(raw):
                raw.execute(f'DELETE FROM "{name}"')
            for name, table_rows in rows.items():
                raw.executemany(_insert_query(name), table_rows)
            raw.commit()
            self._database_image = (snap, raw.total_changes)
        self._restore_outside_database(snap)
        self.settings_read = _settings_texts(rows)

    def bytes_over(self, limit: int) -> int | None:
        """:meth:`stored_bytes` when it is more than ``limit``, else None: one statement (the pages
        held, free ones too) while those fit, where the exact size takes three."""
        if self._page_size is None:
            (self._page_size,) = self._sqlite.execute("PRAGMA page_size").fetchone()
        (pages,) = self._sqlite.execute("PRAGMA page_count").fetchone()
        if pages * self._page_size <= limit:
            return None
        size = self.stored_bytes()
        return size if size > limit else None


class TableAPI(BfclAPI):
    """A BFCL API whose state is rows of a :class:`BfclWorld`.

    ``default_state`` names the attributes; those in ``settings`` are :class:`Setting` rows, the
    others are the subclass's tables, written by :meth:`_load_tables` and read by :meth:`_read_tables`.
    Rows are read and written with SQL on the world's connection (:meth:`World.sql`), a query
    per step of a call: ORM objects cost more than the calls themselves here.
    """

    #: BFCL's attributes and the values a scenario starts from where it says nothing.
    default_state: dict[str, Any] = {}
    #: The scalar attributes, kept as :class:`Setting` rows.
    settings: tuple[str, ...] = ()

    def __init__(self, world: BfclWorld):
        self._world = world
        self._sql = world.sql()

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Fill the tables from the scenario (the task's ``initial_config`` for this API), as BFCL's
        ``_load_scenario`` sets its attributes."""
        self._long_context = long_context
        self._sql.executemany("INSERT INTO settings (api, name, value) VALUES (?, ?, ?)",
                              [(self.class_name, name, dump(scenario.get(name, self.default_state[name])))
                               for name in self.settings])
        self._load_tables({name: scenario.get(name, default) for name, default in self.default_state.items()
                           if name not in self.settings})
        self._world.commit()

    def _take_up(self, long_context: bool) -> None:
        """Work on a scenario already in the world's tables (a restored snapshot of a loaded one)."""
        self._long_context = long_context

    def _load_tables(self, values: dict[str, Any]) -> None:
        """Insert the rows of the non-scalar attributes (``values``: the scenario's, else the defaults)."""

    def _read_tables(self) -> dict[str, Any]:
        """The non-scalar attributes, in BFCL's shapes, read from the tables."""
        return {}

    def state(self) -> dict[str, Any]:
        tables = self._read_tables()
        return {name: self._get(name) if name in self.settings else tables[name] for name in self.default_state}

    def _get(self, name: str) -> Any:
        # the stored text, read once until a rollback or restore (a fresh value at each read:
        # a caller may change what it gets); every settings write goes through _set
        key = (self.class_name, name)
        text = self._world.settings_read.get(key)
        if text is None:
            (text,) = self._sql.execute("SELECT value FROM settings WHERE api = ? AND name = ?", key).fetchone()
            self._world.settings_read[key] = text
        return load(text)

    def _set(self, name: str, value: Any) -> None:
        text = dump(value)
        self._sql.execute("UPDATE settings SET value = ? WHERE api = ? AND name = ?", (text, self.class_name, name))
        self._world.settings_read[(self.class_name, name)] = text

    def _stream(self, name: str, seed: int | None = None) -> random.Random:
        """A random stream of the world, made from ``seed`` at its first use; a failing call rolls it back."""
        return self._world.rng(f"{self.class_name}.{name}", seed)

    def _rows(self, model, where: str = "", parameters: tuple = ()) -> list[tuple]:
        """``(position, *values)`` of a table's rows in ``position`` order (``where``: an SQL filter)."""
        return [(row[0], *map(load, row[1:])) for row in self._sql.execute(_rows_query(model, where), parameters)]

    def _find(self, model, column: str, key) -> tuple | None:
        """The first row whose ``column`` equals ``key`` by Python's ``==``, as a dict or list finds it.

        A string key is looked up by SQL: equal strings are equal texts, and a string equals no
        other type. Any other key is compared in Python, row by row (``1 == 1.0 == True``).
        """
        hash(key)  # an unhashable key fails as a dict lookup fails
        if type(key) is str:
            rows = self._rows(model, f"WHERE {column} = ?", (dump(key),))
            return rows[0] if rows else None
        index = columns_of(model).index(column)
        return next((row for row in self._rows(model) if row[index] == key), None)

    def _insert_all(self, model, rows) -> None:
        """Rows (tuples of the columns after ``position``) as the table's rows, numbered from 1."""
        columns = [column for column in columns_of(model) if column != "position"]
        self._sql.executemany(
            f"INSERT INTO {model.__table__.name} (position, {', '.join(columns)}) VALUES (?{', ?' * len(columns)})",
            [(position, *map(dump, row)) for position, row in enumerate(rows, 1)])

    def _append(self, model, **values) -> int:
        """A new last row of a table; its position."""
        name = model.__table__.name
        return self._sql.execute(
            f"INSERT INTO {name} (position, {', '.join(values)}) "
            f"VALUES ((SELECT COALESCE(MAX(position), 0) + 1 FROM {name}){', ?' * len(values)})",
            tuple(map(dump, values.values()))).lastrowid  # position is the table's rowid

    def _grouped(self, groups, members) -> dict:
        """A dict of lists kept in two tables: ``groups`` ``(position, key)`` in the dict's order,
        ``members`` ``(position, group, value)`` with ``group`` a position in ``groups``."""
        lists = {position: [] for position, _ in self._rows(groups)}
        for _, group, value in self._rows(members):
            lists[group].append(value)
        return {key: lists[position] for position, key in self._rows(groups)}

    def _load_grouped(self, groups, members, values: dict) -> None:
        self._insert_all(groups, [(key,) for key in values])
        self._insert_all(members, [(group, value) for group, items in enumerate(values.values(), 1) for value in items])

    def _group(self, groups, key) -> int | None:
        """The position of ``key``'s group, found as a Python dict finds a key (``1 == 1.0``)."""
        return {group_key: position for position, group_key in self._rows(groups)}.get(key)

    def _update(self, model, position: int, **values) -> None:
        assignments = ", ".join(f"{column} = ?" for column in values)
        self._sql.execute(f"UPDATE {model.__table__.name} SET {assignments} WHERE position = ?",
                          (*map(dump, values.values()), position))

    def _delete(self, model, position: int) -> None:
        self._sql.execute(f"DELETE FROM {model.__table__.name} WHERE position = ?", (position,))

    def _run(self, name: str, arguments: dict, rollback: bool) -> str:
        failure = None
        with self._world.atomic():  # a call that leaves the world too large is undone under both scorings
            try:
                value = getattr(self, name)(**arguments)
            except Exception as exc:
                if rollback:
                    raise
                failure = exc  # BFCL keeps what a raising call changed before it raised
            # a call that wrote nothing (no transaction open) left the world's size as the last call did
            size = self._world.bytes_over(MAX_WORLD_BYTES) if self._sql.in_transaction else None
            if size is not None:
                raise ValueError(f"the call was undone: it would make the world {size} bytes, "
                                 f"more than toolgym's limit of {MAX_WORLD_BYTES} bytes")
        if failure is not None:
            raise failure
        return result_text(value)


def _settings_texts(rows: dict[str, list[tuple]]) -> dict[tuple[str, str], str]:
    """The settings' stored texts by (api, name), from :meth:`BfclWorld.scenario`'s rows (rowid,
    api, name, value): what :meth:`TableAPI._get` would read, known without a query."""
    return {(api, name): value for _, api, name, value in rows.get("settings", ())}


def _filled_tables(connection) -> list[str]:
    """The tables holding a row, in one statement (prepared once per connection)."""
    return [name for (name,) in connection.execute(_FILLED_QUERY)]


_FILLED_QUERY = " UNION ALL ".join(f"""SELECT '{table.name}' WHERE EXISTS (SELECT 1 FROM "{table.name}")"""
                                   for table in Base.metadata.sorted_tables)


@functools.cache
def _insert_query(table: str) -> str:
    """:meth:`BfclWorld.restore_rows`'s insert of ``(rowid, *columns)`` rows."""
    columns = [f'"{column.name}"' for column in Base.metadata.tables[table].columns]
    return f'INSERT INTO "{table}" (rowid, {", ".join(columns)}) VALUES (?{", ?" * len(columns)})'


@functools.cache
def columns_of(model) -> tuple[str, ...]:
    """A table's column names in order (asked once per model: SQLAlchemy's column collection costs
    more to walk than a BFCL read)."""
    return tuple(column.name for column in model.__table__.columns)


@functools.cache
def _rows_query(model, where: str) -> str:
    """:meth:`TableAPI._rows`'s query (``where`` is always the APIs' own text, so the cache stays small)."""
    columns = [column for column in columns_of(model) if column != "position"]
    return f"SELECT position, {', '.join(columns)} FROM {model.__table__.name} {where} ORDER BY position"
