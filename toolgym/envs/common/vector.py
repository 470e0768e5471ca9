"""An async vector env whose workers send each step only what changed in ``info``.

``gym.make_vec(env_id, num_envs=N)`` (every env's ``vector_entry_point``) runs each env in its
own process, as gymnasium's ``AsyncVectorEnv`` does, and hands back the same observations and
the same ``info`` dicts. What differs is what crosses the process boundary: gymnasium's worker
pickles the whole ``info`` at every step, and a tool env's ``info`` is mostly what is fixed for
the episode (the tool schemas, 7 KB for ToolTalk) or grows by a message a step (the
conversation). Here the worker sends, per key, nothing when the value is the one it sent last
time, for a list the items after those it shares with the last one sent, and the value
otherwise; the main process keeps each
env's last ``info`` and puts the full one back together before gymnasium batches it.

A value is "the one sent last time" when it is the same object and not a list or dict, or a
list whose items are those sent last time (compared with ``==``, which checks identity
first): envs build a fresh value when it changes (the base env's contract), so nothing is
missed, and a list the env appends to in place is still caught because its length changed.

Worker processes pay off only when a step costs more than the trip to the worker and back (about
a millisecond a step, with the oracle's ``call`` too): most tool envs step in a fraction of that,
where one process stepping every env is faster. So ``make_vec``'s default (``vectorization="auto"``)
times a few oracle steps of one env in this process (CPU time, the median) and takes
:class:`ToolSyncVectorEnv` below :data:`CHEAP_STEP_SECONDS` a step, with one env or one CPU, else
:class:`ToolAsyncVectorEnv`; ``vectorization="sync"`` or ``"async"`` picks one. The vector env says
which ran and why (``envs.vectorization``, ``envs.vectorization_reason``).
"""

from __future__ import annotations

import functools
import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from gymnasium.vector.async_vector_env import _async_worker

DELTA = "_toolgym_info_delta"  # the one key of a sent info
#: Below this much CPU per step (the median of the probe's), one process steps every env.
CHEAP_STEP_SECONDS = 0.002
#: Oracle steps the probe times (fewer when its episodes end first, then it resets).
PROBE_STEPS = 12
VECTORIZATIONS = ("auto", "sync", "async")
_MUTABLE = (dict, list, set, bytearray)
_MISSING = object()


def _same(value: Any, last: Any) -> bool:
    return value is last and not isinstance(value, _MUTABLE)


def _common_prefix(value: list, last: list) -> int:
    """How many items ``value`` starts with that ``last`` starts with too."""
    if len(value) >= len(last) and value[:len(last)] == last:  # the common case, in C
        return len(last)
    kept = 0
    for new_item, last_item in zip(value, last):
        if new_item != last_item:
            break
        kept += 1
    return kept


class InfoDeltas(gym.Wrapper):
    """Worker side: each ``info`` becomes ``{DELTA: (same keys, lists as (kept, tail), new values)}``."""

    DELTA = DELTA

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self._last: dict[str, Any] = {}

    def _delta(self, info: dict) -> dict:
        same, extend, new = [], {}, {}
        for key, value in info.items():
            last = self._last.get(key, _MISSING)
            if _same(value, last):
                same.append(key)
            elif isinstance(value, list) and isinstance(last, list):
                kept = _common_prefix(value, last)
                if kept == len(value) == len(last):
                    same.append(key)
                else:
                    extend[key] = (kept, value[kept:])
            else:
                new[key] = value
        # A list is kept as a copy of its items: an env that appends to the same list object
        # must still have its new items sent.
        self._last = {key: list(value) if isinstance(value, list) else value for key, value in info.items()}
        return {DELTA: (same, extend, new)}

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return observation, self._delta(info)

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, reward, terminated, truncated, self._delta(info)



def _delta_worker(index: int, env_fn: Callable[[], gym.Env], *args) -> None:
    _async_worker(index, lambda: InfoDeltas(env_fn()), *args)


class ToolAsyncVectorEnv(AsyncVectorEnv):
    """gymnasium's ``AsyncVectorEnv`` with workers that send ``info`` as deltas (see the module)."""

    vectorization = "async"
    vectorization_reason = "asked for"

    def __init__(self, env_fns, **kwargs):
        if "worker" in kwargs:
            raise TypeError("ToolAsyncVectorEnv brings its own worker")
        super().__init__(env_fns, worker=_delta_worker, **kwargs)
        self._last_infos: list[dict] = [{} for _ in range(self.num_envs)]

    def _assemble(self, delta: tuple, env_num: int) -> dict:
        same, extend, new = delta
        last = self._last_infos[env_num]
        info = {}
        for key in same:
            info[key] = last[key]
        for key, (kept, tail) in extend.items():
            info[key] = last[key][:kept] + tail
        info.update(new)
        self._last_infos[env_num] = info
        # Users may change the dict they get; the copy of the lists keeps ours as sent.
        return {key: list(value) if isinstance(value, list) else value for key, value in info.items()}

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        if "final_info" in env_info and DELTA in env_info["final_info"]:  # same-step autoreset
            env_info = {**env_info, "final_info": self._assemble(env_info["final_info"][DELTA], env_num)}
        if DELTA in env_info:
            rest = {key: value for key, value in env_info.items() if key != DELTA}
            env_info = {**self._assemble(env_info[DELTA], env_num), **rest}
        return super()._add_info(vector_infos, env_info, env_num)



class ToolSyncVectorEnv(SyncVectorEnv):
    """gymnasium's ``SyncVectorEnv``, saying why it was chosen (:attr:`vectorization_reason`)."""

    vectorization = "sync"

    def __init__(self, env_fns, reason: str = "asked for", **kwargs):
        super().__init__(env_fns, **kwargs)
        self.vectorization_reason = reason


def probe_step_seconds(env: gym.Env, steps: int = PROBE_STEPS) -> float | None:
    """The median CPU seconds of ``steps`` oracle steps of ``env`` (resetting when an episode ends),
    or None for an env without an oracle."""
    base = env.unwrapped
    if not callable(getattr(base, "oracle_action", None)):
        return None
    env.reset(seed=0)
    costs = []
    for _ in range(steps):
        action = base.oracle_action()
        start = time.process_time()
        _, _, terminated, truncated, _ = env.step(action if action is not None else "")
        costs.append(time.process_time() - start)
        if terminated or truncated:
            env.reset()
    return statistics.median(costs)


def choose_vectorization(step_seconds: float | None, num_envs: int, cpus: int) -> tuple[str, str]:
    """``("sync" | "async", why)`` for envs whose step costs ``step_seconds`` of CPU (None: unknown)."""
    if num_envs == 1:
        return "sync", "one env"
    if cpus <= 1:
        return "sync", "one CPU"
    if step_seconds is None:
        return "async", "step cost unknown (no oracle to time)"
    if step_seconds < CHEAP_STEP_SECONDS:
        return "sync", f"a step costs {step_seconds * 1000:.2f} ms of CPU, under {CHEAP_STEP_SECONDS * 1000:g} ms"
    return "async", f"a step costs {step_seconds * 1000:.2f} ms of CPU, at least {CHEAP_STEP_SECONDS * 1000:g} ms"


def vector_env_from_fns(env_fns: Sequence[Callable[[], gym.Env]], vectorization: str = "auto") -> gym.vector.VectorEnv:
    """A :class:`ToolSyncVectorEnv` or :class:`ToolAsyncVectorEnv` of ``env_fns`` (see the module)."""
    if vectorization not in VECTORIZATIONS:
        raise ValueError(f"vectorization must be one of {VECTORIZATIONS}, got {vectorization!r}")
    env_fns = list(env_fns)
    if vectorization == "async":
        envs = ToolAsyncVectorEnv(env_fns)
        envs.vectorization_reason = "asked for"
        return envs
    if vectorization == "sync":
        return ToolSyncVectorEnv(env_fns)
    probe = env_fns[0]()
    mode, reason = choose_vectorization(probe_step_seconds(probe), len(env_fns), os.cpu_count() or 1)
    if mode == "sync":  # the probe is the first env: the vector env resets it
        return ToolSyncVectorEnv([lambda: probe] + env_fns[1:], reason=reason)
    probe.close()
    envs = ToolAsyncVectorEnv(env_fns)
    envs.vectorization_reason = reason
    return envs


def make_vector_env(env_id: str, num_envs: int = 1, vectorization: str = "auto",
                    **env_kwargs) -> gym.vector.VectorEnv:
    """``num_envs`` copies of ``gym.make(env_id, **env_kwargs)``, in one process or one each (see the module)."""
    return vector_env_from_fns([lambda: gym.make(env_id, **env_kwargs) for _ in range(num_envs)], vectorization)


def __getattr__(name: str):
    # Each registered id's vector entry point, ``toolgym.envs.common.vector:<env id>``: a string in
    # the registry (a callable would keep the spec from serialising), resolved here.
    import toolgym

    if name in toolgym.ENV_IDS:
        return functools.partial(make_vector_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
