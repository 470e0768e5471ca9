"""τ³-bench's banking_knowledge domain: Rho-Bank's database, its tools and its knowledge base.

τ³ keeps the bank as one pydantic model (``TransactionalDB``) of tables, each ``{"data": {id:
record}, "notes": text}``; here each table is a document table (:mod:`toolgym.worlds.tau2.store`)
and the notes are kept beside them. :func:`load_bank` is the one way in for every task source
(τ³'s official files, toolgym's generated banks): the database in τ³'s ``db.json`` shape, the
documents in the shape of τ³'s ``documents/*.json`` and the tasks in ``tasks.json``'s.

The world's state is what τ³ hashes for its DB check (``get_db_hash``: every table's records and
notes, keys sorted); the discoverable tools the agent has unlocked are τ³'s in-memory state of the
toolkit, kept in ``aux`` and left out of the hash as τ³ leaves them out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import DeclarativeBase

from toolgym.worlds.base import Snapshot
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld

#: τ³'s ``TransactionalDB`` tables, in its field order (the order of its dump).
TABLES = ("users", "accounts", "debit_cards", "referrals", "credit_card_applications", "user_discoverable_tools",
          "user_discoverable_tool_calls", "verification_history", "credit_card_transaction_history",
          "cash_back_disputes", "bank_account_transaction_history", "credit_card_accounts", "agent_discoverable_tools",
          "task_config", "human_transfer_requests", "transaction_disputes", "credit_card_orders", "debit_card_orders",
          "credit_card_closure_reasons", "credit_card_account_flags", "credit_limit_increase_requests",
          "payment_history", "debit_card_disputes")
#: aux keys: τ³'s toolkit state outside its database (not hashed), and the tables' notes (hashed).
UNLOCKED = "unlocked_agent_tools"
READ_LOG_ALLOWLIST = "read_log_allowlist"
NOTES = "notes"


class Base(DeclarativeBase):
    pass


def _table(name: str) -> type:
    return type(f"BankTable_{name}", (DocumentRow, Base), {"__tablename__": name})


_MODELS = {name: _table(name) for name in TABLES}


class BankWorld(DocumentWorld):
    """Rho-Bank: τ³'s banking_knowledge database as document tables, and the knowledge base
    (``knowledge``: the documents the retrieval tools read; set by the env from the task source)."""

    Base = Base
    tables = _MODELS
    generator_modules = ("toolgym.worlds.tau2.banking_knowledge",)
    hash_order = "key"  # τ³ hashes its dump with the keys sorted

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        from toolgym.worlds.tau2.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools
        self.knowledge = None
        self.tools = KnowledgeTools(self)
        self.user_tools = KnowledgeUserTools(self)

    def populate(self) -> None:
        """An empty bank: the env loads a task source's database (:func:`load_bank`) over it."""
        self.load_bank_db({})

    def use_toolkit(self, toolkit_class: type) -> None:
        """Make the agent's tools ``toolkit_class`` (the base tools with a retrieval config's, composed)."""
        self.tools = toolkit_class(self)

    # -- τ³'s database layout -------------------------------------------------------------
    def load_bank_db(self, db: dict) -> None:
        """Replace the database with ``db`` in τ³'s ``db.json`` layout (``{table: {"data": ..., "notes": ...}}``)."""
        self.load({name: (db.get(name) or {}).get("data") or {} for name in TABLES})
        self.aux.clear()
        self.aux[NOTES] = {name: (db.get(name) or {}).get("notes", "") for name in TABLES}
        self.commit()

    def dump_bank_db(self) -> dict:
        """The database as τ³ dumps it (``TransactionalDB.model_dump()``)."""
        data = self.dump()
        notes = self.aux.get(NOTES) or {}
        return {name: {"data": data[name], "notes": notes.get(name, "")} for name in TABLES}

    def merge_initialization(self, update: dict) -> None:
        """τ³'s ``update_db``: ``update`` (a task's ``agent_data`` or ``user_data``, in the database's
        layout) deep-merged into the database, records key by key."""
        for name, table in update.items():
            if name not in self.tables or not isinstance(table, dict):
                continue  # τ³'s model drops fields it does not have
            for key, change in (table.get("data") or {}).items():
                current = self.find(name, key) if self.has(name, str(key)) else None
                self.put(name, str(key), _merged(current, change))
            if "notes" in table:
                self.aux.setdefault(NOTES, {})[name] = table["notes"]
        self.commit()

    def set_read_log_allowlist(self, names: set[str] | frozenset[str]) -> None:
        """τ³'s ``read_log_allowlist``: the read-only discoverable tools whose calls are still logged."""
        self.aux[READ_LOG_ALLOWLIST] = sorted(names)

    def hashed_aux(self) -> dict:
        """τ³'s DB hash holds the tables' notes, not the unlocked tools (toolkit state)."""
        return self.aux.get(NOTES) or {}


def _merged(record: Any, update: Any) -> Any:
    """``update`` merged into ``record``: dicts key by key, anything else replaced (addict's update)."""
    if isinstance(record, dict) and isinstance(update, dict):
        out = dict(record)
        for key, value in update.items():
            out[key] = _merged(record.get(key), value)
        return out
    return json.loads(json.dumps(update))


@dataclass(frozen=True)
class Bank:
    """A task source loaded: the initial world (database), the knowledge base and the tasks by id."""

    initial_state: Snapshot
    knowledge: Any
    tasks: dict[str, dict]


def load_bank(db: dict, documents: list[dict], tasks: list[dict]) -> Bank:
    """A bank from τ³'s file formats: ``db`` (``db.json``), ``documents`` (each ``{"id", "title",
    "content"}``, as ``documents/*.json``) and ``tasks`` (``tasks.json``'s records).

    Raises:
        ValueError: ``db`` is not τ³'s layout of tables, or a task has no text ``id``.
    """
    from toolgym.worlds.tau2.banking_knowledge.knowledge import KnowledgeBase

    if not isinstance(db, dict) or not all(isinstance(t, dict) and isinstance(t.get("data", {}), dict)
                                           for t in db.values()):
        raise ValueError("the bank database is not τ³'s layout ({table: {'data': {id: record}, 'notes': text}})")
    world = BankWorld()
    world.load_bank_db(db)
    by_id = {}
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("id"), str):
            raise ValueError(f"task {i} has no text 'id'")
        by_id[task["id"]] = task
    snapshot = world.snapshot()
    world.close()
    return Bank(snapshot, KnowledgeBase.from_documents(list(documents)), by_id)


def read_log_allowlist(task: dict) -> frozenset[str]:
    """τ³'s ``_derive_read_log_allowlist``: the discoverable tools the task's ground truth calls
    through ``call_discoverable_agent_tool``."""
    names = set()
    for action in ((task.get("evaluation_criteria") or {}).get("actions") or ()):
        if action.get("name") == "call_discoverable_agent_tool":
            name = (action.get("arguments") or {}).get("agent_tool_name")
            if name:
                names.add(name)
    return frozenset(names)
