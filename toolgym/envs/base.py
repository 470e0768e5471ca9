"""The base of every toolgym env: the step loop (a template method), task choice, the episode's
conversation. Text spaces are in :mod:`toolgym.envs.common.spaces`, official-data readers in
:mod:`toolgym.envs.common.official`."""

from __future__ import annotations

import functools
import itertools
import json
import operator
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar
from collections.abc import Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

from toolgym.envs.common.metrics import Column
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.common.provenance import json_digest
from toolgym.envs.common.spaces import TextSpace

TASK_SETS = ("built-in", "official")
#: The keys ``reset(options=...)`` understands.
RESET_OPTIONS = ("task_id", "task_index", "trial")
_RESET_OPTION_KEYS = frozenset(RESET_OPTIONS)
#: ``info["metrics"][INVALID_ACTIONS]`` at every episode's end, in every env: the steps whose action
#: the env could not read in its action format (a call the shared action parser rejects, a program
#: that does not parse or passes no check, a plan with unreadable lines, an action refused for its
#: size). Actions that were read but failed when run (a tool's error) are not counted.
INVALID_ACTIONS = "invalid_actions"
#: The assistant turn that stands for an action refused unread (longer than the env's limit).
REFUSED_TURN = "(an action too long to read)"
#: Nesting beyond this makes a dict or list action too large, whatever its length.
MAX_ACTION_DEPTH = 100


_SCALARS = frozenset((str, int, float, bool, type(None)))


def action_size(action: Any, limit: int) -> int:
    """The length of an action in characters: a string's length, a dict's or list's JSON size.

    Linear and stops early: once the size passes ``limit`` the walk ends and ``limit + 1`` is
    returned, so a huge or deeply nested action (deeper than :data:`MAX_ACTION_DEPTH`) costs
    no more than ``limit`` characters' work. Other values count as their ``repr``'s length
    (up to ``limit + 1``); envs refuse them by type.
    """
    if isinstance(action, str):
        return len(action)
    try:
        return _container_size(action, 0, limit, 0)
    except (_TooLong, RecursionError):  # RecursionError: a caller already near the limit; refused, not a crash
        return limit + 1


class _TooLong(Exception):
    """An action's size passed the limit (or its nesting :data:`MAX_ACTION_DEPTH`): the walk ends."""


def _container_size(value: Any, depth: int, limit: int, size: int) -> int:
    """``size`` plus ``value``'s (at ``depth``); a recursion at most :data:`MAX_ACTION_DEPTH` deep,
    which cost less than a stack of pairs on the usual actions of a few containers."""
    if depth > MAX_ACTION_DEPTH:
        raise _TooLong
    kind = type(value)
    # dict and list by their type first: an ABC's isinstance costs ten times a type's
    if kind is dict or kind is list or kind is tuple:
        mapping = kind is dict
    elif isinstance(value, str):
        size += len(value) + 2  # quotes
        mapping = None
    elif isinstance(value, int) and not isinstance(value, bool):
        size += value.bit_length() // 3 + 1  # about the number of decimal digits, without printing it
        mapping = None
    elif isinstance(value, Mapping):
        mapping = True
    elif isinstance(value, (list, tuple)):
        mapping = False
    else:
        size += len(repr(value)[:limit + 1])
        mapping = None
    if mapping is None:
        if size > limit:
            raise _TooLong
        return size
    size += 2 + (4 if mapping else 1) * len(value)  # brackets; separators per item
    if size > limit:  # checked before the items are walked: a huge container costs nothing more
        raise _TooLong
    # scalars, the usual items, are counted here as above: a call for each cost more than its count;
    # a mapping's pairs are walked as they are (a chain over them cost a third of a small action's walk)
    for key, item in value.items() if mapping else zip(itertools.repeat(""), value):
        if type(key) is str:
            size += len(key) + 2 if mapping else 0
        else:
            size = _container_size(key, depth + 1, limit, size)
        kind = type(item)
        if kind is str:
            size += len(item) + 2
        elif kind is int:
            size += item.bit_length() // 3 + 1
        elif kind not in _SCALARS or depth >= MAX_ACTION_DEPTH:
            size = _container_size(item, depth + 1, limit, size)
        else:
            size += len(repr(item))
    if size > limit:
        raise _TooLong
    return size


def _none_outside_an_episode(oracle_action):
    """Wrap an env's ``oracle_action`` to answer None before any reset and after the episode ends."""
    @functools.wraps(oracle_action)
    def guarded(self, *args, **kwargs):
        if getattr(self, "task_id", None) is None or getattr(self, "_done", True):
            return None
        return oracle_action(self, *args, **kwargs)
    return guarded


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
    """

    observation: str
    terminated: bool = False
    truncated: bool | None = None
    progress: float | None = None
    info: dict = field(default_factory=dict)


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
    #: Aggregate rows of the results table, after the subsets' rows: ``(title, how, members)``,
    #: ``how`` "unweighted" (the mean of the members' values) or "weighted" (by their episode
    #: counts), members being subsets or earlier groups' titles (BFCL's leaderboard columns).
    table_groups: ClassVar[Sequence[tuple[str, str, tuple[str, ...]]]] = ()
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

    def _has_task(self, task_id: str) -> bool:
        """Whether ``task_id`` is one of :meth:`task_ids` (an env with many tasks answers from its index)."""
        return task_id in self.task_ids()

    def task_split(self, task_id: str) -> str:
        """The split (subset) a task belongs to, for per-subset tables."""
        return self.split or "all"

    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        """The layouts of the env's official data, by part ("" for an env with one; a domain's
        name), each part's alternatives preferred first; empty for an env without official data.
        ``toolgym data check`` checks every part."""
        return {}

    def read_layouts(self) -> tuple[OfficialLayout, ...]:
        """The layouts this env's official tasks were read from, preferred first (the env's one
        part by default; envs with several say which their arguments chose)."""
        parts = list(self.official_layouts().values())
        return parts[0] if len(parts) == 1 else ()

    def task_records(self) -> Any:
        """The built-in tasks of this env's task set (``tasks`` by default), in a form that
        :func:`~toolgym.envs.common.provenance.canonical` reads: what :meth:`tasks_provenance` digests."""
        return self.tasks

    def tasks_provenance(self) -> dict:
        """Which task data this env holds: ``tasks_source`` ("official" or "built-in"),
        ``tasks_digest`` (``sha256:<hex>``: of the official files read, their names and bytes; of
        the built-in tasks' canonical JSON with the world's identity, which names its generator,
        seed and parameters) and, for official data, ``data_dir`` (the folder read).

        Worked out on the first call (a run's header; up to 0.1 s for thousands of tasks) and
        kept: the env's tasks do not change after it is made.
        """
        if getattr(self, "_tasks_provenance", None) is None:
            self._tasks_provenance = self._describe_tasks()
        return dict(self._tasks_provenance)

    def _describe_tasks(self) -> dict:
        if self.task_set != "official":
            world = getattr(self, "world", None)
            try:
                identity = {"env": f"{type(self).__module__}.{type(self).__qualname__}", "split": self.split,
                            "mode": self.mode, "world": getattr(world, "identity", None), "tasks": self.task_records()}
                digest = json_digest(identity)
            except (AttributeError, TypeError) as error:  # an env outside toolgym: its run goes on, undigested
                warnings.warn(f"{self.env_id or type(self).__name__}: no digest of its built-in tasks ({error}); "
                              f"override task_records() to return them as JSON-like values", stacklevel=2)
                digest = None
            return {"tasks_source": "built-in", "tasks_digest": digest}
        root = self.data_dir if self.data_dir is not None else os.environ.get("TOOLGYM_DATA")
        for layout in self.read_layouts():
            try:
                folder = layout.locate(self.env_id, root, self.split)
                return {"tasks_source": "official", "tasks_digest": layout.digest(folder, self.split),
                        "data_dir": str(folder)}
            except (ValueError, OSError):  # the next alternative; none: the data went away since it was read
                continue
        return {"tasks_source": "official", "tasks_digest": None, "data_dir": None if root is None else str(root)}

    def _choose_task(self, options: Mapping | None) -> str:
        """The task ``reset(options=...)`` asks for; also records it as ``self.task_id``.

        Raises:
            ValueError: ``options`` is not a dict, has a key other than ``task_id`` and
                ``task_index``, has both, or ``task_index`` is not an int within range.
            KeyError: ``task_id`` is not a task of this env's task set and split.
        """
        if options is None:
            options = {}
        # dict by its type first: an ABC's isinstance costs ten times a type's (reset is a hot path)
        if type(options) is not dict and not isinstance(options, Mapping):
            raise ValueError(f"{self.env_id}: reset options must be a dict such as {{'task_id': ...}}, "
                             f"got {type(options).__name__}")
        if not options.keys() <= _RESET_OPTION_KEYS:
            unknown = [key for key in options if key not in RESET_OPTIONS]
            raise ValueError(f"{self.env_id}: unknown reset option(s) {', '.join(map(repr, unknown))}; "
                             f"the options are {', '.join(RESET_OPTIONS)}")
        if "task_id" in options and "task_index" in options:
            raise ValueError(f"{self.env_id}: reset options 'task_id' and 'task_index' both pick the task; give one")
        if "task_id" in options:
            task_id = options["task_id"]
            if isinstance(task_id, int) and not isinstance(task_id, bool):
                task_id = str(task_id)  # the ToolBench envs' ids are numbers written as text
            if not isinstance(task_id, str):
                raise ValueError(f"{self.env_id}: reset option 'task_id' must be a string, "
                                 f"got {type(task_id).__name__}")
            if not self._has_task(task_id):
                shown = task_id if len(task_id) <= 100 else task_id[:100] + "..."
                raise KeyError(f"{self.env_id}: unknown task_id {shown!r} (reset option 'task_id'; "
                               f"task_ids() lists the {len(self.task_ids())} tasks)")
        elif "task_index" in options:
            ids = self.task_ids()
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
            ids = self.task_ids()
            task_id = ids[int(self.np_random.integers(len(ids)))]
        trial = options.get("trial", 0)
        if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
            raise ValueError(f"{self.env_id}: reset option 'trial' must be an int >= 0, got {trial!r:.40}")
        self.task_id = task_id
        #: Which trial of the task this episode is (``reset(options={"trial": t})``, 0 by default):
        #: a benchmark's protocol draws its per-trial seeds from it.
        self.trial = trial
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
            turn = REFUSED_TURN
        else:
            outcome = self._act(action)
            turn = action
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
            self._end_episode(info)
        return outcome.observation, float(reward), terminated, truncated, info

    def _end_episode(self, info: dict) -> None:
        self._done = True
        info["metrics"] = {**self._metrics(), INVALID_ACTIONS: self._invalid_actions}
        info.update(self._end_info())

    def truncate(self, info: dict) -> None:
        """End the episode from outside (a time limit above the env, :class:`TimeLimit`):
        ``info`` gets the metrics so far and the end's keys; later steps say the episode is over.
        Nothing happens to an episode that already ended."""
        if not getattr(self, "_done", True):
            self._end_episode(info)

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


class TimeLimit(gym.wrappers.TimeLimit):
    """gymnasium's TimeLimit that ends the env's episode where it truncates it, so the last
    ``info`` has the metrics so far (gymnasium's only sets ``truncated``). toolgym's
    ``make_env`` uses it for ``max_episode_steps``; wrap a ``gym.make`` env in it the same way."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        if truncated and "metrics" not in info and isinstance(self.env.unwrapped, ToolEnv):
            self.env.unwrapped.truncate(info)
        return observation, reward, terminated, truncated, info
