"""BFCL v4's agent memory as a world: the key-value, vector and recursive-summary backends.

BFCL's memory category gives a model one memory backend (``MemoryAPI_kv``, ``MemoryAPI_vector``
or ``MemoryAPI_rec_sum``), lets it write memories during earlier conversations and asks a
question in a later one. :class:`MemoryWorld` holds one backend's memory in its database:

- ``kv``: ``kv_entries``, a core tier (at most 7 entries of 300 characters, shown to the model
  at the start of every conversation) and an archival tier (50 entries of 2,000 characters),
  each a snake_case key and a value, searched by key with BM25+ (``rank_bm25``, as BFCL);
- ``vector``: ``vector_entries`` with the same two tiers and limits, each a text under an id
  that counts up per tier (``vector_counters``; clearing a tier restarts it at 0), retrieved
  by cosine similarity of sentence embeddings (the encoder the world is given; the env gives
  the packaged all-MiniLM-L6-v2, the model BFCL uses);
- ``rec_sum``: ``summaries``, one text of at most 10,000 characters the model appends to,
  edits or rewrites.

The tools' outputs and error texts are BFCL's, word for word, and :meth:`MemoryWorld.execute`
writes them as BFCL's executor does (a dict as JSON, anything else through ``str``, a failure
as ``Error during execution: ...``). :meth:`MemoryWorld.context` is the text BFCL puts in the
system prompt of each conversation and :meth:`MemoryWorld.export` its snapshot file's content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np
from sqlalchemy import ForeignKey, Integer, String, UniqueConstraint, delete, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import World
from toolgym.worlds.tools import ACTION, READ, ToolError, ToolResult, Toolkit, tool

BACKENDS = ("kv", "vector", "rec_sum")
TIERS = ("core", "archival")
#: Entries and characters per entry of each tier (BFCL's MAX_CORE_MEMORY_SIZE and friends).
MAX_ENTRIES = {"core": 7, "archival": 50}
MAX_ENTRY_CHARS = {"core": 300, "archival": 2000}
#: The recursive summary's limit in characters.
MAX_SUMMARY_CHARS = 10_000
#: The most characters ``memory_replace`` may leave in the summary. BFCL checks only the
#: replacement's length, so replacing ``''`` (found between every two characters) multiplies the
#: memory: one call on a full memory would make 100 million characters. toolgym refuses a
#: replacement past this many instead (BFCL's results stay the same below it).
MAX_REPLACED_SUMMARY_CHARS = 100_000
#: Work units of a call (:meth:`MemoryWorld.work`): one per this many characters it reads, and
#: what embedding a query costs (a MiniLM forward pass, about 10 ms).
CHARACTERS_PER_WORK_UNIT = 100
EMBEDDING_WORK = 1_000
#: Embeddings :meth:`MemoryWorld.similarities` keeps (a cache: every query text would stay otherwise).
MAX_CACHED_EMBEDDINGS = 256
_FIRST_WORD = re.compile(r"[a-z]+")
_LATER_WORD = re.compile(r"[a-z0-9]+")


def is_snake_case(key: str) -> bool:
    """BFCL's ``^[a-z]+(_[a-z0-9]+)*$`` (its ``$`` also before a final newline), read word by word."""
    words = key.removesuffix("\n").split("_")
    return bool(_FIRST_WORD.fullmatch(words[0])) and all(_LATER_WORD.fullmatch(word) for word in words[1:])


class Base(DeclarativeBase):
    pass


class KeyValueEntry(Base):
    __tablename__ = "kv_entries"
    __table_args__ = (UniqueConstraint("tier", "key"),)
    row: Mapped[int] = mapped_column(Integer, primary_key=True)  # insertion order: keys list in it
    tier: Mapped[str] = mapped_column(String)
    key: Mapped[str] = mapped_column(String)
    value: Mapped[str] = mapped_column(String)


class VectorCounter(Base):
    __tablename__ = "vector_counters"
    tier: Mapped[str] = mapped_column(String, primary_key=True)
    next_id: Mapped[int] = mapped_column(Integer)


class VectorEntry(Base):
    __tablename__ = "vector_entries"
    __table_args__ = (UniqueConstraint("tier", "vec_id"),)
    row: Mapped[int] = mapped_column(Integer, primary_key=True)
    tier: Mapped[str] = mapped_column(ForeignKey("vector_counters.tier"))
    vec_id: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String)
    # Where the entry sits in BFCL's FAISS index: an update re-adds it at the end. Of entries of
    # equal similarity the index keeps the one it scans first, so this breaks ties.
    index_position: Mapped[int] = mapped_column(Integer)


class Summary(Base):
    __tablename__ = "summaries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String)


# -- key-value ------------------------------------------------------------------------------------
class KeyValueMemoryTools(Toolkit):
    """Core and archival memory as snake_case keys and their values."""

    def _entries(self, tier: str) -> list[KeyValueEntry]:
        return list(self.world.session.scalars(
            select(KeyValueEntry).where(KeyValueEntry.tier == tier).order_by(KeyValueEntry.row)))

    def _entry(self, tier: str, key: str) -> KeyValueEntry | None:
        return self.world.session.scalars(
            select(KeyValueEntry).where(KeyValueEntry.tier == tier, KeyValueEntry.key == key)).first()

    def _add(self, tier: str, key: str, value: str, added: str) -> dict:
        full = "Core memory is full" if tier == "core" else "Long term memory is full"
        if len(self._entries(tier)) >= MAX_ENTRIES[tier]:
            return {"error": f"{full}. Please clear some entries."}
        if len(value) > MAX_ENTRY_CHARS[tier]:
            return {"error": f"Entry is too long. Please shorten the entry to less than "
                             f"{MAX_ENTRY_CHARS[tier]} characters."}
        if not is_snake_case(key):
            return {"error": "Key must be in snake_case format and cannot contain spaces."}
        if self._entry(tier, key) is not None:
            return {"error": "Key name must be unique."}
        self.world.session.add(KeyValueEntry(tier=tier, key=key, value=value))
        return {"status": added}

    def _remove(self, tier: str, key: str) -> dict:
        entry = self._entry(tier, key)
        if entry is None:
            return {"error": "Key not found."}
        self.world.session.delete(entry)
        return {"status": "Key removed."}

    def _replace(self, tier: str, key: str, value: str) -> dict:
        entry = self._entry(tier, key)
        if entry is None:
            return {"error": "Key not found."}
        if len(value) > MAX_ENTRY_CHARS[tier]:
            return {"error": f"Entry is too long. Please shorten the entry to less than "
                             f"{MAX_ENTRY_CHARS[tier]} characters."}
        entry.value = value  # the key keeps its place in the listing
        return {"status": "Key replaced."}

    def _clear(self, tier: str, done: str) -> dict:
        self.world.session.execute(delete(KeyValueEntry).where(KeyValueEntry.tier == tier))
        return {"status": done}

    def _retrieve(self, tier: str, key: str) -> dict:
        entry = self._entry(tier, key)
        return {"error": "Key not found."} if entry is None else {"value": entry.value}

    def _search(self, tier: str, query: str, k: int) -> dict:
        keys = [e.key for e in self._entries(tier)]
        if not keys:
            # BFCL's BM25Plus over an empty corpus divides by zero; the model reads that error.
            raise ToolError("division by zero")
        from rank_bm25 import BM25Plus  # the library BFCL ranks keys with

        def tokens(text: str) -> list[str]:
            return text.replace("_", " ").lower().split()

        scores = BM25Plus([tokens(key) for key in keys]).get_scores(tokens(query))
        ranked = sorted(zip((float(s) for s in scores), keys), key=lambda pair: pair[0], reverse=True)
        return {"ranked_results": ranked[:k]}

    @tool(kind=ACTION, app="Memory")
    def core_memory_add(self, key: str, value: str) -> dict:
        """Store a value under a new key in core memory, which is small but shown at the start of every conversation.

        Args:
            key: A new snake_case key without spaces (case-sensitive, unique in core memory).
            value: The text to remember, at most 300 characters.
        """
        return self._add("core", key, value, "Key-value pair added.")

    @tool(kind=ACTION, app="Memory")
    def core_memory_remove(self, key: str) -> dict:
        """Delete a key and its value from core memory.

        Args:
            key: The exact key (case-sensitive).
        """
        return self._remove("core", key)

    @tool(kind=ACTION, app="Memory")
    def core_memory_replace(self, key: str, value: str) -> dict:
        """Overwrite the value of an existing core-memory key.

        Args:
            key: The exact key (case-sensitive).
            value: The new text, at most 300 characters.
        """
        return self._replace("core", key, value)

    @tool(kind=ACTION, app="Memory")
    def core_memory_clear(self) -> dict:
        """Delete every entry of core memory, including those of earlier conversations; it cannot be undone."""
        return self._clear("core", "Short term memory cleared.")

    @tool(kind=READ, app="Memory")
    def core_memory_retrieve(self, key: str) -> dict:
        """The value stored under a core-memory key; the key must match exactly.

        Args:
            key: The exact key (case-sensitive).
        """
        return self._retrieve("core", key)

    @tool(kind=READ, app="Memory")
    def core_memory_list_keys(self) -> dict:
        """Every key in core memory, oldest first."""
        return {"keys": [e.key for e in self._entries("core")]}

    @tool(kind=READ, app="Memory")
    def core_memory_key_search(self, query: str, k: int = 5) -> dict:
        """Core-memory keys ranked by BM25+ relevance to a query, with their scores.

        Args:
            query: Words to look for in the keys.
            k: How many keys to return at most.
        """
        return self._search("core", query, k)

    @tool(kind=READ, app="Memory")
    def core_memory_retrieve_all(self) -> dict:
        """Every key of core memory with its value."""
        return {e.key: e.value for e in self._entries("core")}

    @tool(kind=ACTION, app="Memory")
    def archival_memory_add(self, key: str, value: str) -> dict:
        """Store a value under a new key in archival memory, which is large but kept out of the conversation.

        Args:
            key: A new snake_case key without spaces (case-sensitive, unique in archival memory).
            value: The text to remember, at most 2,000 characters.
        """
        return self._add("archival", key, value, "Key added.")

    @tool(kind=ACTION, app="Memory")
    def archival_memory_remove(self, key: str) -> dict:
        """Delete a key and its value from archival memory.

        Args:
            key: The exact key (case-sensitive).
        """
        return self._remove("archival", key)

    @tool(kind=ACTION, app="Memory")
    def archival_memory_replace(self, key: str, value: str) -> dict:
        """Overwrite the value of an existing archival-memory key.

        Args:
            key: The exact key (case-sensitive).
            value: The new text, at most 2,000 characters.
        """
        return self._replace("archival", key, value)

    @tool(kind=ACTION, app="Memory")
    def archival_memory_clear(self) -> dict:
        """Delete every entry of archival memory, including those of earlier conversations; it cannot be undone."""
        return self._clear("archival", "Long term memory cleared.")

    @tool(kind=READ, app="Memory")
    def archival_memory_retrieve(self, key: str) -> dict:
        """The value stored under an archival-memory key; the key must match exactly.

        Args:
            key: The exact key (case-sensitive).
        """
        return self._retrieve("archival", key)

    @tool(kind=READ, app="Memory")
    def archival_memory_list_keys(self) -> dict:
        """Every key in archival memory, oldest first."""
        return {"keys": [e.key for e in self._entries("archival")]}

    @tool(kind=READ, app="Memory")
    def archival_memory_key_search(self, query: str, k: int = 5) -> dict:
        """Archival-memory keys ranked by BM25+ relevance to a query, with their scores.

        Args:
            query: Words to look for in the keys.
            k: How many keys to return at most.
        """
        return self._search("archival", query, k)


# -- vector store ---------------------------------------------------------------------------------
class VectorMemoryTools(Toolkit):
    """Core and archival memory as texts under numeric ids, found by meaning."""

    def _entries(self, tier: str) -> list[VectorEntry]:
        return list(self.world.session.scalars(
            select(VectorEntry).where(VectorEntry.tier == tier).order_by(VectorEntry.row)))

    def _entry(self, tier: str, vec_id: int) -> VectorEntry | None:
        return self.world.session.scalars(
            select(VectorEntry).where(VectorEntry.tier == tier, VectorEntry.vec_id == vec_id)).first()

    def _add(self, tier: str, text: str) -> dict:
        if len(text) > MAX_ENTRY_CHARS[tier]:
            return {"error": f"Entry length exceeds maximum length of {MAX_ENTRY_CHARS[tier]} characters."}
        if len(self._entries(tier)) >= MAX_ENTRIES[tier]:
            return {"error": f"Memory size exceeds maximum size of {MAX_ENTRIES[tier]} entries."}
        counter = self.world.session.get(VectorCounter, tier)
        vec_id = counter.next_id
        counter.next_id += 1
        self.world.session.add(VectorEntry(tier=tier, vec_id=vec_id, text=text,
                                           index_position=self._next_position(tier)))
        return {"id": vec_id}

    def _next_position(self, tier: str) -> int:
        last = self.world.session.scalar(select(func.max(VectorEntry.index_position)).where(VectorEntry.tier == tier))
        return 0 if last is None else last + 1

    def _remove(self, tier: str, vec_id: int) -> dict:
        entry = self._entry(tier, vec_id)
        if entry is None:
            return {"error": f"ID {vec_id} not present in store."}
        self.world.session.delete(entry)
        return {"status": f"ID {vec_id} removed from store."}

    def _update(self, tier: str, vec_id: int, text: str) -> dict:
        entry = self._entry(tier, vec_id)
        if entry is None:
            return {"error": f"ID {vec_id} not present in store."}
        if len(text) > MAX_ENTRY_CHARS[tier]:
            return {"error": f"Entry length exceeds maximum length of {MAX_ENTRY_CHARS[tier]} characters."}
        entry.text = text
        entry.index_position = self._next_position(tier)
        return {"status": f"ID {vec_id} updated."}

    def _clear(self, tier: str) -> dict:
        self.world.session.execute(delete(VectorEntry).where(VectorEntry.tier == tier))
        self.world.session.get(VectorCounter, tier).next_id = 0
        return {"status": "Memory cleared."}

    def _retrieve(self, tier: str, query: str, top_k: int) -> dict:
        entries = self._entries(tier)
        if not entries:
            return {"result": []}
        if top_k < 1:
            raise ToolError(f"top_k must be at least 1, got {top_k}")
        scores = self.world.similarities(query, [e.text for e in entries])
        # Exact inner product on unit vectors (BFCL's FAISS IndexFlatIP); of equal scores the one
        # earlier in the index comes first.
        order = sorted(range(len(entries)), key=lambda i: (-scores[i], entries[i].index_position))[:top_k]
        return {"result": [{"id": entries[i].vec_id, "similarity_score": float(scores[i]),
                            "text": entries[i].text} for i in order]}

    def _all(self, tier: str) -> dict:
        return {"result": [{"id": e.vec_id, "text": e.text} for e in self._entries(tier)]}

    @tool(kind=ACTION, app="Memory")
    def core_memory_add(self, text: str) -> dict:
        """Store a text in core memory, which is small but shown at the start of every conversation; returns its id.

        Args:
            text: The text to remember, at most 300 characters.
        """
        return self._add("core", text)

    @tool(kind=ACTION, app="Memory")
    def core_memory_remove(self, vec_id: int) -> dict:
        """Delete the core-memory entry with this id.

        Args:
            vec_id: The entry's id, as core_memory_add returned it.
        """
        return self._remove("core", vec_id)

    @tool(kind=ACTION, app="Memory")
    def core_memory_update(self, vec_id: int, new_text: str) -> dict:
        """Replace the text of a core-memory entry.

        Args:
            vec_id: The entry's id.
            new_text: The text that replaces it, at most 300 characters.
        """
        return self._update("core", vec_id, new_text)

    @tool(kind=ACTION, app="Memory")
    def core_memory_clear(self) -> dict:
        """Delete every core-memory entry; ids start again from 0."""
        return self._clear("core")

    @tool(kind=READ, app="Memory")
    def core_memory_retrieve(self, query: str, top_k: Optional[int] = 5) -> dict:
        """The core-memory entries closest in meaning to a query, best first, with their cosine similarity.

        Args:
            query: What to look for.
            top_k: How many entries to return at most.
        """
        return self._retrieve("core", query, 5 if top_k is None else top_k)

    @tool(kind=READ, app="Memory")
    def core_memory_retrieve_all(self) -> dict:
        """Every core-memory entry with its id."""
        return self._all("core")

    @tool(kind=ACTION, app="Memory")
    def archival_memory_add(self, text: str) -> dict:
        """Store a text in archival memory, which is large but kept out of the conversation; returns its id.

        Args:
            text: The text to remember, at most 2,000 characters.
        """
        return self._add("archival", text)

    @tool(kind=ACTION, app="Memory")
    def archival_memory_remove(self, vec_id: int) -> dict:
        """Delete the archival-memory entry with this id.

        Args:
            vec_id: The entry's id, as archival_memory_add returned it.
        """
        return self._remove("archival", vec_id)

    @tool(kind=ACTION, app="Memory")
    def archival_memory_update(self, vec_id: int, new_text: str) -> dict:
        """Replace the text of an archival-memory entry.

        Args:
            vec_id: The entry's id.
            new_text: The text that replaces it, at most 2,000 characters.
        """
        return self._update("archival", vec_id, new_text)

    @tool(kind=ACTION, app="Memory")
    def archival_memory_clear(self) -> dict:
        """Delete every archival-memory entry; ids start again from 0."""
        return self._clear("archival")

    @tool(kind=READ, app="Memory")
    def archival_memory_retrieve(self, query: str, top_k: Optional[int] = 5) -> dict:
        """The archival-memory entries closest in meaning to a query, best first, with their cosine similarity.

        Args:
            query: What to look for.
            top_k: How many entries to return at most.
        """
        return self._retrieve("archival", query, 5 if top_k is None else top_k)

    @tool(kind=READ, app="Memory")
    def archival_memory_retrieve_all(self) -> dict:
        """Every archival-memory entry with its id."""
        return self._all("archival")


# -- recursive summary ----------------------------------------------------------------------------
class SummaryMemoryTools(Toolkit):
    """One running text the model keeps summarised."""

    def _summary(self) -> Summary:
        return self.world.session.get(Summary, 1)

    @tool(kind=ACTION, app="Memory")
    def memory_append(self, text: str) -> dict:
        """Add text at the end of the memory.

        Args:
            text: The text to add; the whole memory may hold at most 10,000 characters.
        """
        summary = self._summary()
        if len(summary.text + text) > MAX_SUMMARY_CHARS:
            return {"error": f"Entry will be too long after appending. Please shorten the entry to less than "
                             f"{MAX_SUMMARY_CHARS} characters."}
        summary.text += text
        return {"status": "Memory appended."}

    @tool(kind=ACTION, app="Memory")
    def memory_update(self, text: str) -> dict:
        """Replace the whole memory with a new text.

        Args:
            text: The new memory, at most 10,000 characters.
        """
        if len(text) > MAX_SUMMARY_CHARS:
            return {"error": f"Entry will be too long after updating. Please shorten the entry to less than "
                             f"{MAX_SUMMARY_CHARS} characters."}
        self._summary().text = text
        return {"status": "Memory updated."}

    @tool(kind=ACTION, app="Memory")
    def memory_clear(self) -> dict:
        """Empty the memory, including what earlier conversations wrote; it cannot be undone."""
        self._summary().text = ""
        return {"status": "Short term memory cleared."}

    @tool(kind=ACTION, app="Memory")
    def memory_replace(self, old_text: str, new_text: str) -> dict:
        """Replace every occurrence of a passage of the memory.

        Args:
            old_text: The passage, exactly as the memory holds it.
            new_text: What replaces it.
        """
        summary = self._summary()
        if old_text not in summary.text:
            return {"error": f"Text '{old_text}' not found in memory."}
        # BFCL checks only the replacement's own length here, not the memory's length after it.
        if len(new_text) > MAX_SUMMARY_CHARS:
            return {"error": f"Entry will be too long after replacing. Please shorten the entry to less than "
                             f"{MAX_SUMMARY_CHARS} characters."}
        length = len(summary.text) + summary.text.count(old_text) * (len(new_text) - len(old_text))
        if length > MAX_REPLACED_SUMMARY_CHARS:
            return {"error": f"Memory will be too long after replacing ({length} characters). toolgym keeps "
                             f"the memory under {MAX_REPLACED_SUMMARY_CHARS} characters."}
        summary.text = summary.text.replace(old_text, new_text)
        return {"status": "Memory updated."}

    @tool(kind=READ, app="Memory")
    def memory_retrieve(self) -> dict:
        """The whole memory."""
        text = self._summary().text
        return {"memory_content": text} if text else {"error": "Memory is empty."}


TOOLKITS: dict[str, type[Toolkit]] = {"kv": KeyValueMemoryTools, "vector": VectorMemoryTools,
                                      "rec_sum": SummaryMemoryTools}
#: Parameters BFCL turns into text with ``str()`` before using them (a number is a valid value).
_TEXT_PARAMETERS = {"kv": ("key", "value"), "rec_sum": ("text", "old_text", "new_text"), "vector": ()}
#: What one call may carry: a memory holds at most 10,000 characters, so longer texts are refused
#: by the tools themselves; this bounds the work before any tool runs.
MAX_ARGUMENT_CHARS = 100_000

Encoder = Callable[[Sequence[str]], Any]


class MemoryWorld(World):
    """One memory backend, empty at the start, with BFCL's memory tools.

    Args:
        backend: ``"kv"``, ``"vector"`` or ``"rec_sum"``.
        encoder: For ``vector``: texts -> unit-length embeddings (rows), called only when the
            model retrieves by similarity; without one such a retrieval is an error.
        url: The world database (in-memory SQLite by default).
        seed: Unused by the empty memory; part of the world's identity.
    """

    Base = Base

    def __init__(self, backend: str = "kv", encoder: Encoder | None = None, url: str = "sqlite://", seed: int = 0):
        if backend not in BACKENDS:
            raise ValueError(f"unknown memory backend {backend!r}; the backends are {', '.join(BACKENDS)}")
        self.backend = backend
        super().__init__(url=url, seed=seed)
        self.tools = TOOLKITS[backend](self)
        self._encoder = encoder
        self._embeddings: dict[str, np.ndarray] = {}  # text -> embedding; a cache, not state

    def generator_parameters(self) -> dict:
        return {"backend": self.backend}

    def populate(self) -> None:
        with self.atomic():
            self.session.add_all([VectorCounter(tier=tier, next_id=0) for tier in TIERS])
            self.session.add(Summary(id=1, text=""))

    # -- calls ------------------------------------------------------------------------------
    def execute(self, name: str, arguments: Any) -> str:
        """Run one call; BFCL's result text. A failing call leaves the memory unchanged."""
        if isinstance(arguments, dict):
            if sum(len(v) for v in arguments.values() if isinstance(v, str)) > MAX_ARGUMENT_CHARS:
                return f"Error during execution: the arguments hold more than {MAX_ARGUMENT_CHARS} characters"
            arguments = {k: str(v) if k in _TEXT_PARAMETERS[self.backend] and isinstance(v, (int, float)) else v
                         for k, v in arguments.items()}
        result: ToolResult = self.tools.call(name, arguments)
        if not result.known:
            return f"Error during execution: name '{name}' is not defined"
        if result.error is not None:
            return f"Error during execution: {result.error}"
        value = result.response
        if type(value) is dict:
            try:
                return json.dumps(value)
            except (TypeError, ValueError):
                return str(value)
        return value if type(value) is str else str(value)

    def work(self, name: str, arguments: Any) -> int:
        """The work units of a call, for the budgets of a step and a turn: one per
        :data:`CHARACTERS_PER_WORK_UNIT` characters it reads (its texts; a key search also every
        key of its tier, which BM25 reads again at each search: 57 keys of 87,000 characters take
        0.2 s), and :data:`EMBEDDING_WORK` for a similarity search."""
        characters = sum(len(v) for v in arguments.values() if isinstance(v, str)) if isinstance(arguments, dict) else 0
        name = name if isinstance(name, str) else ""
        tier = name.split("_")[0]
        if self.backend == "kv" and name.endswith("_key_search") and tier in TIERS:
            characters += self.session.scalar(select(func.coalesce(func.sum(func.length(KeyValueEntry.key)), 0))
                                              .where(KeyValueEntry.tier == tier))
        units = 1 + characters // CHARACTERS_PER_WORK_UNIT
        return units + EMBEDDING_WORK if self.backend == "vector" and name.endswith("_memory_retrieve") else units

    def similarities(self, query: str, texts: list[str]) -> np.ndarray:
        """Cosine similarity of ``query`` to each text (inner products of unit embeddings, float32)."""
        if self._encoder is None:
            raise ToolError("this world has no sentence encoder; similarity search is unavailable")
        wanted = dict.fromkeys([query, *texts])
        for text in wanted:
            if text in self._embeddings:  # recently used: kept longest
                self._embeddings[text] = self._embeddings.pop(text)
            else:
                # one text per call, as BFCL embeds each entry when it is added: a batch pads its
                # texts to one length, which moves the embeddings in the 7th decimal
                self._embeddings[text] = np.asarray(self._encoder([text]), dtype=np.float32)[0]
        # In float64, so that equal texts score exactly alike (a float32 product's last bits depend
        # on the row's place in the matrix) and ties fall to the index order.
        matrix = np.stack([self._embeddings[t] for t in texts]).astype(np.float64)
        scores = (matrix @ self._embeddings[query].astype(np.float64)).astype(np.float32)
        for text in list(self._embeddings)[:max(0, len(self._embeddings) - MAX_CACHED_EMBEDDINGS)]:
            if text not in wanted:
                del self._embeddings[text]
        return scores

    # -- what BFCL shows and saves ----------------------------------------------------------
    def context(self) -> str:
        """The memory text of BFCL's system prompt (``_dump_core_memory_to_context``)."""
        if self.backend == "rec_sum":
            text = self.session.get(Summary, 1).text
            return text if text else "There is no content in the memory at this point."
        if self.backend == "kv":
            core = self.tools.core_memory_retrieve_all()
            return json.dumps(core, indent=4) if core else "There is no content in the core memory at this point."
        # BFCL tests the store object itself, which is always true, so an empty core memory shows as {}.
        entries = self.session.execute(select(VectorEntry.vec_id, VectorEntry.text).where(
            VectorEntry.tier == "core").order_by(VectorEntry.row)).all()
        return json.dumps({str(vec_id): text for vec_id, text in entries}, indent=4)

    def export(self) -> dict:
        """The memory as BFCL's snapshot file holds it."""
        if self.backend == "rec_sum":
            return {"memory": self.session.get(Summary, 1).text}
        if self.backend == "kv":
            rows = self.session.execute(select(KeyValueEntry.tier, KeyValueEntry.key, KeyValueEntry.value)
                                        .order_by(KeyValueEntry.row)).all()
            return {f"{tier}_memory": {key: value for t, key, value in rows if t == tier} for tier in TIERS}
        snapshot = {}
        for tier in TIERS:
            entries = self.session.execute(select(VectorEntry.vec_id, VectorEntry.text).where(
                VectorEntry.tier == tier).order_by(VectorEntry.row)).all()
            snapshot[f"{tier}_memory"] = {"next_id": self.session.get(VectorCounter, tier).next_id,
                                          "store": {str(vec_id): text for vec_id, text in entries}}
        return snapshot

    def load(self, snapshot: dict) -> None:
        """Replace the memory with a snapshot of :meth:`export`'s shape (BFCL's ``_load_scenario``)."""
        with self.atomic():
            self.session.execute(delete(KeyValueEntry))
            self.session.execute(delete(VectorEntry))
            if self.backend == "rec_sum":
                self.session.get(Summary, 1).text = str(snapshot["memory"])
            elif self.backend == "kv":
                for tier in TIERS:
                    self.session.add_all([KeyValueEntry(tier=tier, key=str(key), value=str(value))
                                          for key, value in snapshot[f"{tier}_memory"].items()])
            else:
                for tier in TIERS:
                    store = snapshot[f"{tier}_memory"]
                    self.session.get(VectorCounter, tier).next_id = int(store["next_id"])
                    # BFCL's load_from_snapshot re-adds the entries to its index in id order
                    by_id = sorted((int(vec_id), str(text)) for vec_id, text in store["store"].items())
                    positions = {vec_id: position for position, (vec_id, _) in enumerate(by_id)}
                    self.session.add_all([VectorEntry(tier=tier, vec_id=int(vec_id), text=str(text),
                                                      index_position=positions[int(vec_id)])
                                          for vec_id, text in store["store"].items()])

    def entry_count(self) -> int:
        """How many memories the backend holds (the summary counts as one when not empty)."""
        if self.backend == "rec_sum":
            return int(bool(self.session.get(Summary, 1).text))
        model = KeyValueEntry if self.backend == "kv" else VectorEntry
        return int(self.session.scalar(select(func.count()).select_from(model)))


def bfcl_doc(spec_schema: dict) -> dict:
    """A derived tool schema (``Toolkit.schemas``) in BFCL's function-doc shape."""
    function = spec_schema.get("function", spec_schema)
    parameters = dict(function.get("parameters") or {})
    parameters["type"] = "dict"
    parameters.setdefault("properties", {})
    parameters.setdefault("required", [])
    return {"name": function["name"], "description": function.get("description", ""), "parameters": parameters}


def function_docs(backend: str) -> list[dict]:
    """BFCL-style function docs of a backend's tools, derived from their signatures."""
    return [bfcl_doc(schema) for schema in TOOLKITS[backend].schemas()]
