"""The base of every toolgym env: text in, text out, tasks from two sources."""

from __future__ import annotations

import functools
import json
import multiprocessing
import operator
import os
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from collections.abc import Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

from toolgym.envs.metrics import Column

TASK_SETS = ("built-in", "official")
MAX_TEXT = 1_000_000
#: The keys ``reset(options=...)`` understands.
RESET_OPTIONS = ("task_id", "task_index")
#: ``info["metrics"][INVALID_ACTIONS]`` at every episode's end, in every env: the steps whose action
#: the env could not read in its action format (a call the shared action parser rejects, a program
#: that does not parse or passes no check, a plan with unreadable lines, an action refused for its
#: size). Actions that were read but failed when run (a tool's error) are not counted.
INVALID_ACTIONS = "invalid_actions"
#: The assistant turn that stands for an action refused unread (longer than the env's limit).
REFUSED_TURN = "(an action too long to read)"
#: Nesting beyond this makes a dict or list action too large, whatever its length.
MAX_ACTION_DEPTH = 100


def action_size(action: Any, limit: int) -> int:
    """The length of an action in characters: a string's length, a dict's or list's JSON size.

    Linear and stops early: once the size passes ``limit`` the walk ends and ``limit + 1`` is
    returned, so a huge or deeply nested action (deeper than :data:`MAX_ACTION_DEPTH`) costs
    no more than ``limit`` characters' work. Other values count as their ``repr``'s length
    (up to ``limit + 1``); envs refuse them by type.
    """
    if isinstance(action, str):
        return len(action)
    size = 0
    stack: list[tuple[Any, int]] = [(action, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ACTION_DEPTH:
            return limit + 1
        if isinstance(value, str):
            size += len(value) + 2  # quotes
        elif isinstance(value, (Mapping, list, tuple)):
            size += 2 + (4 if isinstance(value, Mapping) else 1) * len(value)  # brackets; separators per item
        elif isinstance(value, int) and not isinstance(value, bool):
            size += value.bit_length() // 3 + 1  # about the number of decimal digits, without printing it
        else:
            size += len(repr(value)[:limit + 1])
        if size > limit:  # checked before the items are queued: a huge container costs nothing more
            return limit + 1
        if isinstance(value, Mapping):
            stack += [(item, depth + 1) for pair in value.items() for item in pair]
        elif isinstance(value, (list, tuple)):
            stack += [(item, depth + 1) for item in value]
    return size


def _none_outside_an_episode(oracle_action):
    """Wrap an env's ``oracle_action`` to answer None before any reset and after the episode ends."""
    @functools.wraps(oracle_action)
    def guarded(self, *args, **kwargs):
        if getattr(self, "task_id", None) is None or getattr(self, "_done", True):
            return None
        return oracle_action(self, *args, **kwargs)
    return guarded


class TextSpace(spaces.Text):
    """Any string up to ``max_length`` characters (gymnasium's Text limits the alphabet)."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | None = None):
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


# Async vector envs pass observations through shared memory. gymnasium's Text stores indices
# into its (printable) character set, dropping every other character, and AsyncVectorEnv reads
# the buffer once, at construction, expecting a view that later writes show through; a tuple
# of str is a frozen copy. TextSpace stores each slot as [length, code point, ...] and reads
# it as a live view, decoded on access.
class SharedTextBatch(Sequence):
    """The texts of a vector env's shared-memory slots, decoded when read.

    ``copy.deepcopy`` (what AsyncVectorEnv returns by default) gives a plain tuple of str.
    """

    def __init__(self, slots: np.ndarray):
        self._slots = slots

    def __len__(self) -> int:
        return len(self._slots)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._slots[index]
        # 'surrogatepass' keeps lone surrogates, which are valid Python strings.
        return row[1:1 + row[0]].tobytes().decode("utf-32-le", "surrogatepass")

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, SharedTextBatch) else other)

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __deepcopy__(self, memo) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self):
        return tuple, (tuple(self),)


@create_shared_memory.register(TextSpace)
def _create_text_shared_memory(space: TextSpace, n: int = 1, ctx=multiprocessing):
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@write_to_shared_memory.register(TextSpace)
def _write_text_to_shared_memory(space: TextSpace, index: int, value: str, shared_memory) -> None:
    if len(value) > space.max_length:
        raise ValueError(f"observation of {len(value)} characters exceeds {space!r}")
    slot = space.max_length + 1
    destination = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)[index * slot:(index + 1) * slot]
    destination[0] = len(value)
    destination[1:1 + len(value)] = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.int32)


@read_from_shared_memory.register(TextSpace)
def _read_text_from_shared_memory(space: TextSpace, shared_memory, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(n, space.max_length + 1))


class OfficialDataError(ValueError):
    """An official data file that does not hold what the benchmark's format has."""


@dataclass(frozen=True)
class OfficialLayout:
    """Which official files an env reads, and where they may sit under ``data_dir``.

    The task-loading rule of every env: ``data_dir`` (or ``$TOOLGYM_DATA``) names the data
    root (the folder that holds ``<benchmark>/``), the benchmark's own folder or, for a
    benchmark with a folder per task, that task's folder. The env reads the first of
    ``data_dir``, ``data_dir/<task>``, ``data_dir/<benchmark>`` and
    ``data_dir/<benchmark>/<task>`` that holds every expected file. The expected files decide,
    not folder names: ToolTalk's hard split is ``tooltalk/tooltalk/``, a folder named like the
    benchmark that is not the benchmark's folder.

    Attributes:
        name: The benchmark's name, for messages ("ToolTalk").
        benchmark: The benchmark's folder under the data root ("tooltalk", "sambanova").
        expected: Glob patterns relative to the data folder; each must match a file.
        split_expected: More patterns per official split: a run of one split needs its own,
            a run of every split needs them all.
        task: The task's folder inside the benchmark's folder ("open_weather"), if any.
    """

    name: str
    benchmark: str
    expected: tuple[str, ...] = ()
    split_expected: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    task: str | None = None

    def expected_files(self, split: str | None = None) -> tuple[str, ...]:
        """The patterns a folder must match to serve ``split`` (every split when None)."""
        splits = [split] if split is not None else list(self.split_expected)
        return self.expected + tuple(p for s in splits for p in self.split_expected.get(s, ()))

    def candidates(self, root: Path) -> list[Path]:
        """The folders tried for the data root or benchmark folder ``root``, in order."""
        task = [root / self.task] if self.task else []
        benchmark_task = [root / self.benchmark / self.task] if self.task else []
        return [root, *task, root / self.benchmark, *benchmark_task]

    def locate(self, env_id: str, data_dir: str | os.PathLike | None, split: str | None = None) -> Path:
        """The folder that holds the official files ``split`` needs.

        Args:
            env_id: The env, for messages.
            data_dir: The ``data_dir`` argument; ``$TOOLGYM_DATA`` when None.
            split: The requested official split, or None for all of them.

        Raises:
            ValueError: Neither ``data_dir`` nor ``$TOOLGYM_DATA`` is given.
            FileNotFoundError: No candidate folder holds every expected file; the message lists
                each folder tried and what it lacks.
        """
        source, root = "data_dir", data_dir
        if root is None:
            source, root = "$TOOLGYM_DATA", os.environ.get("TOOLGYM_DATA")
        if not root:
            raise ValueError(
                f"{env_id}: tasks='official' needs the official data: pass data_dir=... or set TOOLGYM_DATA "
                f"to the folder that holds '{self.benchmark}/'.")
        root = Path(root).expanduser()
        expected = self.expected_files(split)
        tried = []
        for folder in self.candidates(root):
            if not folder.is_dir():
                tried.append(f"  {folder}: no such folder")
                continue
            missing = [pattern for pattern in expected if next(folder.glob(pattern), None) is None]
            if not missing:
                return folder
            tried.append(f"  {folder}: no {', '.join(missing)}")
        own_folder = f"{self.benchmark}/{self.task}" if self.task else self.benchmark
        raise FileNotFoundError(
            f"{env_id}: no official {self.name} data in {source}={str(root)!r}. Tried:\n" + "\n".join(tried) +
            f"\nExpected one folder with {', '.join(expected)}. Pass the data root (the folder that holds "
            f"'{self.benchmark}/') or the '{own_folder}/' folder itself.")

    def check_not_empty(self, env_id: str, folder: Path, count: int, split: str | None = None) -> None:
        """Raise when the files read from ``folder`` held no task of ``split``.

        Raises:
            OfficialDataError: ``count`` is 0.
        """
        if count == 0:
            of_split = f" of split {split!r}" if split is not None else ""
            raise OfficialDataError(
                f"{env_id}: the official {self.name} data in {folder} has no tasks{of_split} "
                f"(read {', '.join(self.expected_files(split))}); the files are empty or truncated: "
                f"download them again.")


def read_json(path: Path) -> Any:
    """A JSON file's content.

    Raises:
        OfficialDataError: The file is not UTF-8 JSON; the message names the file and line.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise OfficialDataError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise OfficialDataError(f"{path}:{error.lineno}: invalid JSON: {error.msg} (column {error.colno})") from None


def read_json_list(path: Path, items: str) -> list:
    """A JSON file that holds a list of ``items`` (e.g. "samples").

    Raises:
        OfficialDataError: The file is not JSON, or not a list; the message names the file.
    """
    value = read_json(path)
    if not isinstance(value, list):
        raise OfficialDataError(f"{path}: expected a JSON list of {items}, got {type(value).__name__}")
    return value


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """The records of a JSON Lines file as ``(line number from 1, record)``, blank lines skipped.

    Raises:
        OfficialDataError: A line is not JSON; the message names the file and line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise OfficialDataError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            raise OfficialDataError(f"{path}:{number}: invalid JSON: {error.msg} (column {error.colno})") from None
    return records


def require_key(record: Any, key: str, where: str) -> Any:
    """``record[key]`` of an official record.

    Args:
        record: A record read from an official file.
        key: The key the format requires.
        where: The record's place, for the message ("path/test.jsonl:12", "path: sample 3").

    Raises:
        OfficialDataError: ``record`` is not an object or lacks ``key``.
    """
    if not isinstance(record, dict):
        raise OfficialDataError(f"{where}: expected a JSON object with key {key!r}, got {type(record).__name__}")
    if key not in record:
        raise OfficialDataError(f"{where}: missing key {key!r}")
    return record[key]


@dataclass
class Outcome:
    """What one action did: an env's answer to :meth:`ToolEnv._act` (or :meth:`ToolEnv._refuse`).

    Attributes:
        observation: The text the agent sees next.
        terminated: The action ended the episode (a submitted program, Buy Now, Finish).
        truncated: None: the base class truncates after ``max_steps`` steps; True or False: the
            env decided (a step limit of its own).
        progress: The paper's metric so far, after this action, or None when unchanged. The
            step's reward is its change, so the episode's return equals the metric.
        info: Keys this step adds to ``info`` (``error``, ``final_answer`` ...).
        turn: What the conversation shows as the agent's turn (``_with_history``); None: the action.
    """

    observation: str
    terminated: bool = False
    truncated: bool | None = None
    progress: float | None = None
    info: dict = field(default_factory=dict)
    turn: Any = None


class ToolEnv(gym.Env):
    """Base class of toolgym's envs.

    Subclasses declare their splits, scorings and modes; the constructor checks the common
    arguments against them so that every env understands or clearly rejects each of
    ``tasks``, ``split``, ``data_dir``, ``scoring`` and ``mode``.

    ``reset(options={"task_id": ...})`` (or ``{"task_index": i}``) picks a task; without it the
    task is drawn with the env's seeded random generator. ``info`` always has ``task_id``,
    ``task_set``, ``split``, ``tools`` (OpenAI-style schemas) and ``messages`` (role/content
    dicts); at episode end it also has ``metrics``, with ``invalid_actions`` (``INVALID_ACTIONS``)
    in every env.

    The step contract, the same in every env, is :meth:`step`'s (a template method): an env
    implements its domain in the hooks :meth:`_act`, :meth:`_refuse`, :meth:`_info` and
    :meth:`_metrics`, and the base owns the loop. Before any ``reset`` and after the episode
    has ended, ``step`` answers with an observation saying so, reward 0, ``terminated=True`` and an ``info`` with
    ``task_id`` (None before any reset), and ``oracle_action()`` returns None. An action longer
    than ``max_action_chars`` characters (a dict or list action: its JSON size), or than the
    action space's ``max_length``, is refused before anything parses it: the env answers with
    its usual error observation (single-step envs end the episode with the metrics of an
    attempt that did not run) and keeps none of it. Each env's ``max_action_chars`` is
    listed in the README (one place).
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"]}
    env_id: ClassVar[str] = ""
    splits: ClassVar[dict[str, Sequence[str]]] = {"built-in": (), "official": ()}
    scorings: ClassVar[Sequence[str]] = ("paper",)
    modes: ClassVar[Sequence[str]] = ()
    table_columns: ClassVar[Sequence[Column]] = ()
    #: The longest action ``step`` reads, in characters; far below any parser's cost cliff and
    #: far above any real action. Envs whose actions are short (a curl command, a program) set less.
    max_action_chars: ClassVar[int] = 100_000
    #: The step limit: the episode is truncated after this many steps (None: no limit).
    max_steps: int | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Every env's oracle answers None outside an episode, whatever its own code assumes.
        if "oracle_action" in vars(cls):
            cls.oracle_action = _none_outside_an_episode(vars(cls)["oracle_action"])

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
        if data_dir is not None and tasks != "official":
            # Only the explicit argument: $TOOLGYM_DATA set for other runs leaves built-in runs alone.
            raise ValueError(f"{self.env_id}: data_dir is only read with tasks='official' (got tasks={tasks!r}): "
                             f"pass tasks='official' (--tasks official) to run the official tasks, or drop data_dir")
        self.task_set = tasks
        self.split = split
        self.data_dir = data_dir
        self.scoring = scoring
        self.mode = mode if mode is not None else (self.modes[0] if self.modes else None)
        self.render_mode = render_mode
        self.observation_space = TextSpace()
        self.action_space = TextSpace()

    # -- seeding ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Seed the env's random generator as gymnasium does and zero the episode's counters;
        subclasses then start the episode and return ``(observation, info)``.

        The generator is made on first use, from the last seed given: seeding numpy costs
        more than a ToolTalk step, and episodes that pick their task by id never draw from it.
        """
        self._invalid_actions = 0
        self._steps = 0
        self._progress = 0.0
        if seed is not None:
            if not (isinstance(seed, int) and seed >= 0):
                seeding.np_random(seed)  # raises gymnasium's error for a seed it refuses, as reset always did
            self._np_random, self._np_random_seed = None, seed

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator, seeded by the last ``reset(seed=...)`` (from entropy if none was given)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(self._np_random_seed)
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random, self._np_random_seed = value, -1  # gymnasium's convention: the seed is unknown

    def close(self) -> None:
        """Free the env's world (its database, or Tabletop's simulator)."""
        world = getattr(self, "world", None)  # None when the constructor raised before making it
        if world is not None:
            world.close()

    # -- tasks -----------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        """Ids of the tasks of this env's task set and split, in a fixed order."""
        raise NotImplementedError

    def task_split(self, task_id: str) -> str:
        """The split (subset) a task belongs to, for per-subset tables."""
        return self.split or "all"

    def _choose_task(self, options: Mapping | None) -> str:
        """The task ``reset(options=...)`` asks for; also records it as ``self.task_id``.

        Raises:
            ValueError: ``options`` is not a dict, has a key other than ``task_id`` and
                ``task_index``, has both, or ``task_index`` is not an int within range.
            KeyError: ``task_id`` is not a task of this env's task set and split.
        """
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ValueError(f"{self.env_id}: reset options must be a dict such as {{'task_id': ...}}, "
                             f"got {type(options).__name__}")
        unknown = [key for key in options if key not in RESET_OPTIONS]
        if unknown:
            raise ValueError(f"{self.env_id}: unknown reset option(s) {', '.join(map(repr, unknown))}; "
                             f"the options are {', '.join(RESET_OPTIONS)}")
        if "task_id" in options and "task_index" in options:
            raise ValueError(f"{self.env_id}: reset options 'task_id' and 'task_index' both pick the task; give one")
        ids = self.task_ids()
        if "task_id" in options:
            task_id = options["task_id"]
            if isinstance(task_id, int) and not isinstance(task_id, bool):
                task_id = str(task_id)  # the ToolBench envs' ids are numbers written as text
            if not isinstance(task_id, str):
                raise ValueError(f"{self.env_id}: reset option 'task_id' must be a string, "
                                 f"got {type(task_id).__name__}")
            if task_id not in ids:
                shown = task_id if len(task_id) <= 100 else task_id[:100] + "..."
                raise KeyError(f"{self.env_id}: unknown task_id {shown!r} (reset option 'task_id'; "
                               f"task_ids() lists the {len(ids)} tasks)")
        elif "task_index" in options:
            index = options["task_index"]
            try:
                index = operator.index(index) if not isinstance(index, bool) else None
            except TypeError:
                index = None
            if index is None:
                raise ValueError(f"{self.env_id}: reset option 'task_index' must be an int, "
                                 f"got {type(options['task_index']).__name__}")
            if not 0 <= index < len(ids):
                raise ValueError(f"{self.env_id}: reset option 'task_index' must be in [0, {len(ids)}), got {index}")
            task_id = ids[index]
        else:
            task_id = ids[int(self.np_random.integers(len(ids)))]
        self.task_id = task_id
        return task_id

    # -- the step loop (a template method: the env's hooks hold its domain) -------------------
    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        """Run one action: the loop every env shares.

        Before any reset and after the end the answer says so (:meth:`_outside_episode`). An
        action longer than the limit is refused unread (the env's :meth:`_refuse`), any other
        is the env's to run (:meth:`_act`). The base counts steps and unreadable actions,
        truncates after ``max_steps``, turns the metric's progress into the reward, assembles
        ``info`` (:meth:`_step_info` plus the outcome's keys) and, at the episode's end, adds
        ``metrics`` (:meth:`_metrics` with ``invalid_actions``).
        """
        if (answer := self._outside_episode()) is not None:
            return answer
        self._steps += 1
        limit = min(self.max_action_chars, self.action_space.max_length)
        if action_size(action, limit) > limit:
            self._note_invalid_action()
            outcome = self._refuse(f"the action is longer than this env's limit of {limit} characters; "
                                   f"it was not read")
            turn = REFUSED_TURN if outcome.turn is None else outcome.turn
        else:
            outcome = self._act(action)
            turn = action if outcome.turn is None else outcome.turn
        terminated = outcome.terminated
        truncated = outcome.truncated
        if truncated is None:
            truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        reward = 0.0
        if outcome.progress is not None:
            reward, self._progress = outcome.progress - self._progress, outcome.progress
        info = self._step_info(turn, outcome.observation)
        info.update(outcome.info)
        if terminated or truncated:
            self._done = True
            info["metrics"] = {**self._metrics(), INVALID_ACTIONS: self._invalid_actions}
            info.update(self._end_info())
        return outcome.observation, float(reward), terminated, truncated, info

    def _outside_episode(self) -> tuple | None:
        """What ``step`` answers before any reset and after the episode's end, else None."""
        task_id = getattr(self, "task_id", None)
        if task_id is None:
            info = {"task_id": None, "task_set": self.task_set, "split": self.split, "scoring": self.scoring,
                    "mode": self.mode, "error": "step before reset"}
            return f"{self.env_id}: no episode has started; call reset() before step().", 0.0, True, False, info
        if getattr(self, "_done", True):
            info = {**self.base_info(task_id), "error": "step after the end of the episode"}
            return f"{self.env_id}: the episode is over; call reset().", 0.0, True, False, info
        return None

    def _act(self, action: Any) -> Outcome:
        """Run a read-sized action in the world (the env's domain): parse, call the tools, judge."""
        raise NotImplementedError

    def _refuse(self, error: str) -> Outcome:
        """The answer to an action refused unread, in the env's error shape; nothing changes.

        A single-step env ends the episode with the metrics of an attempt that did not run.
        """
        raise NotImplementedError

    def _metrics(self) -> dict:
        """The paper's metrics of the episode, with ``success`` (0/1); read at its end."""
        raise NotImplementedError

    def _info(self) -> dict:
        """The ``info`` of the current state (without the episode's turns)."""
        raise NotImplementedError

    def _step_info(self, turn: Any, observation: str) -> dict:
        """A step's ``info``: the state's, with the agent's turn and the observation appended to
        the conversation. Envs that keep the conversation themselves return ``self._info()``."""
        return self._with_history(self._info(), turn, observation)

    def _end_info(self) -> dict:
        """Keys ``info`` has at the episode's end besides ``metrics`` (for error analysis)."""
        return {}

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """The ground-truth next action in the current state (used by OracleAgent)."""
        raise NotImplementedError

    def _note_invalid_action(self) -> None:
        """Count a step whose action could not be read (see ``INVALID_ACTIONS``)."""
        self._invalid_actions += 1

    # -- the conversation an agent sees ------------------------------------------------------
    def _with_history(self, info: dict, action: Any = None, observation: str | None = None) -> dict:
        """``info`` with the episode's turns appended to its fixed prompt's messages.

        For envs whose ``info["messages"]`` is the task's prompt, the same at every step: at
        reset (no ``action``) the history starts empty; at each step the action (``REFUSED_TURN``
        for one refused unread) becomes an
        assistant turn and the observation a user turn, appended to ``info["messages"]`` and to
        ``info["prompt"]["messages"]`` (the ToolBench format's), so a model sees what it did.
        """
        if action is None:
            self._turns: list[dict] = []
        else:
            text = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False, default=str)
            self._turns += [{"role": "assistant", "content": text}, {"role": "user", "content": str(observation)}]
        for holder in (info, info.get("prompt")):
            if isinstance(holder, dict) and isinstance(holder.get("messages"), list):
                holder["messages"] = [*holder["messages"], *(dict(turn) for turn in self._turns)]
        return info

    def base_info(self, task_id: str) -> dict:
        return {"task_id": task_id, "task_set": self.task_set, "split": self.task_split(task_id),
                "scoring": self.scoring, "mode": self.mode}
