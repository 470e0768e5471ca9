"""ToolTalk task sets: the official conversations and the project's generated ones.

Both come in ToolTalk's conversation format (``name``, ``metadata``, ``user``,
``conversation`` turns with ``apis``), so one code path simulates and scores them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolgym.worlds.base import Snapshot
from toolgym.worlds.tooltalk.scenarios import generate_task_set
from toolgym.worlds.tooltalk.world import ToolTalkWorld

OFFICIAL_SPLITS = {"easy": "easy", "hard": "tooltalk"}


@dataclass(frozen=True)
class TaskSet:
    """Conversations by id, the split of each, and the initial world they run in."""

    conversations: dict[str, dict]
    splits: dict[str, str]
    initial_state: Snapshot


@lru_cache(maxsize=8)
def official_task_set(root: str) -> TaskSet:
    path = Path(root)
    world = ToolTalkWorld.from_official(path / "databases")
    conversations, splits = {}, {}
    for split, folder in OFFICIAL_SPLITS.items():
        for file in sorted((path / folder).glob("*.json")):
            conversation = json.loads(file.read_text(encoding="utf-8"))
            conversations[conversation["name"]] = conversation
            splits[conversation["name"]] = split
    return TaskSet(conversations, splits, world.snapshot())


@lru_cache(maxsize=8)
def builtin_task_set(world_seed: int, num_hard: int) -> TaskSet:
    world, easy, hard = generate_task_set(world_seed, num_hard)
    conversations = {c["name"]: c for c in easy + hard}
    splits = {c["name"]: "easy" for c in easy} | {c["name"]: "hard" for c in hard}
    return TaskSet(conversations, splits, world.snapshot())
