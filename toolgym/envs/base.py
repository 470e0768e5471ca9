"""The base of every toolgym env: text in, text out, tasks from two sources."""

from __future__ import annotations

import os
import string
from pathlib import Path
from typing import Any, ClassVar
from collections.abc import Sequence

import gymnasium as gym
from gymnasium import spaces

from toolgym.envs.metrics import Column

TASK_SETS = ("built-in", "official")
MAX_TEXT = 1_000_000


class TextSpace(spaces.Text):
    """Any string up to ``max_length`` characters (gymnasium's Text limits the alphabet)."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | None = None):
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


def resolve_data_dir(data_dir: str | os.PathLike | None, subdir: str) -> Path:
    """Where an official data set lives: ``data_dir`` or ``$TOOLGYM_DATA``, then ``subdir``."""
    root = data_dir if data_dir is not None else os.environ.get("TOOLGYM_DATA")
    if root is None:
        raise ValueError(
            f"tasks='official' needs the official data: pass data_dir=... or set TOOLGYM_DATA "
            f"to the folder that holds '{subdir}/'.")
    root = Path(root)
    path = root / subdir if (root / subdir).exists() else root
    if not path.exists():
        raise FileNotFoundError(f"official data not found at {path}")
    return path


class ToolEnv(gym.Env):
    """Base class of toolgym's envs.

    Subclasses declare their splits, scorings and modes; the constructor checks the common
    arguments against them so that every env understands or clearly rejects each of
    ``tasks``, ``split``, ``data_dir``, ``scoring`` and ``mode``.

    ``reset(options={"task_id": ...})`` picks a task; without it the task is drawn with the
    env's seeded random generator. ``info`` always has ``task_id``, ``task_set``, ``split``,
    ``tools`` (OpenAI-style schemas) and ``messages`` (role/content dicts); at episode end it
    also has ``metrics``.
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"]}
    env_id: ClassVar[str] = ""
    splits: ClassVar[dict[str, Sequence[str]]] = {"built-in": (), "official": ()}
    scorings: ClassVar[Sequence[str]] = ("paper",)
    modes: ClassVar[Sequence[str]] = ()
    table_columns: ClassVar[Sequence[Column]] = ()

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None):
        if tasks not in TASK_SETS:
            raise ValueError(f"{self.env_id}: tasks must be one of {TASK_SETS}, got {tasks!r}")
        if split is not None and split not in self.splits.get(tasks, ()):
            raise ValueError(f"{self.env_id}: split {split!r} is not one of {tuple(self.splits.get(tasks, ()))} "
                             f"for tasks={tasks!r}")
        if scoring not in self.scorings:
            raise ValueError(f"{self.env_id}: scoring must be one of {tuple(self.scorings)}, got {scoring!r}")
        if mode is not None and mode not in self.modes:
            raise ValueError(f"{self.env_id}: " + (f"mode must be one of {tuple(self.modes)}, got {mode!r}"
                                                   if self.modes else "this env has no modes"))
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{self.env_id}: render_mode must be one of {self.metadata['render_modes']}")
        self.task_set = tasks
        self.split = split
        self.data_dir = data_dir
        self.scoring = scoring
        self.mode = mode if mode is not None else (self.modes[0] if self.modes else None)
        self.render_mode = render_mode
        self.observation_space = TextSpace()
        self.action_space = TextSpace()

    # -- tasks -----------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        """Ids of the tasks of this env's task set and split, in a fixed order."""
        raise NotImplementedError

    def task_split(self, task_id: str) -> str:
        """The split (subset) a task belongs to, for per-subset tables."""
        return self.split or "all"

    def _choose_task(self, options: dict | None) -> str:
        options = options or {}
        ids = self.task_ids()
        if "task_id" in options:
            task_id = str(options["task_id"])
            if task_id not in ids:
                raise KeyError(f"{self.env_id}: unknown task_id {task_id!r}")
            return task_id
        if "task_index" in options:
            return ids[int(options["task_index"]) % len(ids)]
        return ids[int(self.np_random.integers(len(ids)))]

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """The ground-truth next action in the current state (used by OracleAgent)."""
        raise NotImplementedError

    def base_info(self, task_id: str) -> dict:
        return {"task_id": task_id, "task_set": self.task_set, "split": self.task_split(task_id),
                "scoring": self.scoring, "mode": self.mode}
