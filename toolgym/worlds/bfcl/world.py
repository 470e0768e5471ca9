"""The BFCL world: one SQLite database holding the state of a task's stateful APIs.

A task's involved APIs share one :class:`BfclWorld` (the model's and the ground truth's are
two worlds). Each :class:`TableAPI` fills its tables from the task's ``initial_config`` and its
functions read and write rows; a call runs inside :meth:`World.atomic`, so a call that raises
leaves the database and the random streams as they were (or, for BFCL's own behaviour, keeps
what it changed: :meth:`TableAPI._run`). :meth:`TableAPI.state` reads the tables back into
BFCL's attribute shapes, which is what the multi-turn checker compares.
"""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import delete, func, select

from toolgym.worlds.base import World
from toolgym.worlds.bfcl.api import BfclAPI, result_text
from toolgym.worlds.bfcl.models import Base, Setting


class BfclWorld(World):
    """The tables of every BFCL API (:mod:`toolgym.worlds.bfcl.models`), empty until a scenario loads."""

    Base = Base


class TableAPI(BfclAPI):
    """A BFCL API whose state is rows of a :class:`BfclWorld`.

    ``default_state`` names the attributes; those in ``settings`` are :class:`Setting` rows, the
    others are the subclass's tables, written by :meth:`_load_tables` and read by :meth:`_read_tables`.
    """

    #: The scalar attributes, kept as :class:`Setting` rows.
    settings: tuple[str, ...] = ()

    def __init__(self, world: BfclWorld):
        self._world = world
        self._session = world.session

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self._long_context = long_context
        # Held here: the session's identity map holds rows weakly, and a row it forgot costs a query to get.
        self._setting_rows = {name: Setting(api=self.class_name, name=name,
                                            value=scenario.get(name, self.default_state[name]))
                              for name in self.settings}
        self._session.add_all(self._setting_rows.values())
        self._load_tables({name: scenario.get(name, default) for name, default in self.default_state.items()
                           if name not in self.settings})
        self._world.commit()

    def _load_tables(self, values: dict[str, Any]) -> None:
        """Insert the rows of the non-scalar attributes (``values``: the scenario's, else the defaults)."""

    def _read_tables(self) -> dict[str, Any]:
        """The non-scalar attributes, in BFCL's shapes, read from the tables."""
        return {}

    def state(self) -> dict[str, Any]:
        tables = self._read_tables()
        return {name: self._get(name) if name in self.settings else tables[name] for name in self.default_state}

    def _get(self, name: str) -> Any:
        return self._setting_rows[name].value

    def _set(self, name: str, value: Any) -> None:
        self._setting_rows[name].value = value

    def _random(self, stream: str, seed: int) -> random.Random:
        """A random stream of the world (``seed`` the first time): rolled back with a failing call."""
        return self._world.rng(f"{self.class_name}.{stream}", seed)

    def _rows(self, model) -> list:
        """The rows of a table, in ``position`` order."""
        return list(self._session.scalars(select(model).order_by(model.position)))

    def _append(self, model, **columns) -> None:
        """A new last row of a table whose ``position`` gives the order."""
        last = self._session.scalar(select(func.max(model.position)))
        self._session.add(model(position=(last or 0) + 1, **columns))

    def _clear(self, model) -> None:
        self._session.execute(delete(model))

    def _run(self, name: str, arguments: dict, rollback: bool) -> str:
        if rollback:
            with self._world.atomic():
                return result_text(getattr(self, name)(**arguments))
        try:
            return result_text(getattr(self, name)(**arguments))
        finally:  # BFCL keeps what a raising call changed before it raised
            self._world.commit()
