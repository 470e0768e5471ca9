"""ToolTalk's built-in task set: generated conversations over a generated world, cached.

The conversations are in ToolTalk's own format (``name``, ``metadata``, ``user``,
``conversation`` turns with ``apis``), the format of the official files, so one code path
simulates and scores both; ``scenarios`` writes them.

Generating the set takes about a second, so it is kept in a cache folder (``$TOOLGYM_CACHE``,
default ``~/.cache/toolgym``; set it to an empty string to turn the cache off). The cache key
holds the source of every module the generation depends on, so a changed generator never
reads an old set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from toolgym.worlds.base import Snapshot
from toolgym.worlds.cache import entry_path, write_atomically

# The modules whose source decides the generated set (and this one: the cache's format).
_GENERATOR_MODULES = ("toolgym.worlds.base", "toolgym.worlds.tooltalk.data_model", "toolgym.worlds.tooltalk.tools",
                      "toolgym.worlds.tooltalk.world", "toolgym.worlds.tooltalk.scenarios", __name__)


@dataclass(frozen=True)
class TaskSet:
    """Conversations by id, the split of each, and the initial world they run in."""

    conversations: dict[str, dict]
    splits: dict[str, str]
    initial_state: Snapshot


@lru_cache(maxsize=8)
def builtin_task_set(world_seed: int, num_hard: int) -> TaskSet:
    """The generated easy and ``num_hard`` hard conversations over the world of ``world_seed``."""
    cache = _cache_entry(world_seed, num_hard)
    if cache is not None and (cache / "tasks.json").exists():
        return _read(cache)
    from toolgym.worlds.tooltalk import scenarios  # faker is needed only to generate

    world, easy, hard = scenarios.generate_task_set(world_seed, num_hard)
    conversations = {c["name"]: c for c in easy + hard}
    splits = {c["name"]: "easy" for c in easy} | {c["name"]: "hard" for c in hard}
    task_set = TaskSet(conversations, splits, world.snapshot())
    if cache is not None:
        _write(cache, task_set)
    return task_set


def _cache_entry(world_seed: int, num_hard: int) -> Path | None:
    """The cache folder of a generated set: a database image and ``tasks.json``."""
    return entry_path(f"tooltalk-{world_seed}-{num_hard}", [world_seed, num_hard], _GENERATOR_MODULES, suffix="")


def _write(path: Path, task_set: TaskSet) -> None:
    state = task_set.initial_state
    if not isinstance(state.database, bytes) or state.rng_states:
        return  # only an in-memory database image with fresh random streams is cached
    # Each file appears all at once, so racing processes (which write the same set) never
    # read a partial one; tasks.json comes last: its presence marks a complete entry.
    write_atomically(path / "world.sqlite", state.database)
    meta = {"conversations": task_set.conversations, "splits": task_set.splits,
            "aux": state.aux, "now": state.now.isoformat(), "world": state.world}
    write_atomically(path / "tasks.json", json.dumps(meta).encode())


def _read(path: Path) -> TaskSet:
    meta = json.loads((path / "tasks.json").read_text(encoding="utf-8"))
    state = Snapshot(database=(path / "world.sqlite").read_bytes(), aux=meta["aux"], rng_states={},
                     now=datetime.fromisoformat(meta["now"]), world=meta["world"])
    return TaskSet(meta["conversations"], meta["splits"], state)
