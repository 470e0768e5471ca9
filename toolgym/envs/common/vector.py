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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv
from gymnasium.vector.async_vector_env import _async_worker

DELTA = "_toolgym_info_delta"  # the one key of a sent info
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



def make_vector_env(env_id: str, num_envs: int = 1, **env_kwargs) -> ToolAsyncVectorEnv:
    """``num_envs`` copies of ``gym.make(env_id, **env_kwargs)`` in a :class:`ToolAsyncVectorEnv`."""
    return ToolAsyncVectorEnv([lambda: gym.make(env_id, **env_kwargs) for _ in range(num_envs)])


def __getattr__(name: str):
    # Each registered id's vector entry point, ``toolgym.envs.common.vector:<env id>``: a string in
    # the registry (a callable would keep the spec from serialising), resolved here.
    import toolgym

    if name in toolgym.ENV_IDS:
        return functools.partial(make_vector_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
