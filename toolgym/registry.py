"""Making an env: the ids toolgym knows and the one function that turns an id and keywords into
an env with clear errors (:func:`make_env`), used by eval, serve, remote, train and the CLI.

The ids are toolgym's own (registered by ``import toolgym``), those that installed packages
declare in the ``toolgym.envs`` entry-point group (``MyEnv-v0 = "mypkg.envs:MyEnv"``, registered
on first use), and gymnasium's ``module:Env-v0`` form, which imports ``module`` so that it
registers ``Env-v0``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator, register

import toolgym
from toolgym.envs.base import TimeLimit

#: The entry-point group in which a package outside toolgym declares its envs.
ENTRY_POINT_GROUP = "toolgym.envs"

# Keywords of gym.make itself, accepted besides the env's own.
_GYM_MAKE_KEYWORDS = ("max_episode_steps", "disable_env_checker")


@functools.cache
def _plugin_ids() -> tuple[str, ...]:
    ids = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in gym.registry:
            register(id=entry.name, entry_point=entry.value, disable_env_checker=True, order_enforce=False)
        ids.append(entry.name)
    return tuple(ids)


def env_ids() -> tuple[str, ...]:
    """toolgym's env ids, then those of installed packages' ``toolgym.envs`` entry points."""
    return toolgym.ENV_IDS + tuple(i for i in _plugin_ids() if i not in toolgym.ENV_IDS)


def env_class(env_id: str) -> type:
    """The class behind an env id (:func:`env_ids`, or ``module:Env-v0``, whose module is
    imported); ValueError listing the known ids for any other id."""
    if env_id not in env_ids() and ":" not in env_id:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(env_ids())}")
    try:
        name = env_id
        if name not in gym.registry and ":" in name:  # as gym.make reads it: import, then the id
            module, _, name = name.partition(":")
            importlib.import_module(module)
        entry_point = gym.spec(name).entry_point
        return entry_point if callable(entry_point) else load_env_creator(entry_point)
    except (ImportError, gym.error.Error) as exc:
        raise ValueError(f"env id {env_id!r}: {exc}") from exc


def env_keywords(cls: type) -> list[str]:
    """The keyword arguments an env class accepts (its own and, through ``**kwargs``, its bases')."""
    names: list[str] = []
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = list(inspect.signature(klass.__init__).parameters.values())[1:]
        names += [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                  and p.name not in names]
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return names


def check_env_args(env_id: str, env_kwargs: dict) -> type:
    """The env's class, once the id and the keywords are known to be valid (nothing is made).

    Raises:
        ValueError: for an unknown env id or a keyword the env does not take, listing the
            known ids or the keywords it takes.
    """
    cls = env_class(env_id)
    accepted = env_keywords(cls)
    unknown = [k for k in env_kwargs if k not in accepted and k not in _GYM_MAKE_KEYWORDS]
    if unknown:
        raise ValueError(f"{env_id} takes no argument {', '.join(map(repr, unknown))} (from --env-kwarg); "
                         f"it accepts: {', '.join(accepted + list(_GYM_MAKE_KEYWORDS))}")
    return cls


def make_env(env_id: str, env_kwargs: dict | None = None) -> gym.Env:
    """``gym.make`` with configuration errors turned into one clear ValueError.

    Raises:
        ValueError: for an unknown env id (listing the known ids), a keyword the env does not
            take (listing those it takes) or any error the env raises for its arguments
            (bad values, missing data, a missing optional dependency).
    """
    env_kwargs = dict(env_kwargs or {})
    check_env_args(env_id, env_kwargs)
    # toolgym's TimeLimit, not gym.make's: an episode it truncates ends with its metrics so far
    max_episode_steps = env_kwargs.pop("max_episode_steps", None)
    try:
        env = gym.make(env_id, **env_kwargs)
        return env if max_episode_steps is None else TimeLimit(env, max_episode_steps)
    except (ValueError, KeyError, TypeError, OSError, ImportError, gym.error.Error) as exc:
        detail = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
        raise ValueError(detail if detail.startswith(env_id) else f"{env_id}: {detail}") from exc


# The gym.make keywords a results file may choose, each for plain values only (numbers, flags and
# short names such as a split or a scoring). A results file may come from anyone: a value it writes
# must never choose code to import (user="x.py:User", judge="hf:...", text_similarity="cls:PATH") nor
# a place to read or write (data_dir, db_url), so every keyword not listed here is refused unless the
# user trusts the file. An allow-list, not a search for separators: "antigravity:User" names a module.
PLAIN_ENV_KWARGS = frozenset({
    "tasks", "split", "scoring", "mode", "render_mode", "domain", "category", "world_seed", "task_seed",
    "split_seed", "max_steps", "max_episode_steps", "disable_env_checker", "max_calls", "max_calls_per_turn",
    "max_errors", "max_requests", "max_pick_places", "reward_metric", "prompting", "observation_mode",
    "demo_variant", "k_shot", "num_demos", "num_hard", "num_test", "num_products", "num_goals",
    "tasks_per_category", "setups_per_type", "table_rows", "preview_rows", "catalogue_size", "fault_rate",
    "solo_mode", "retrieval_config"})
# Keywords whose value picks an implementation, with the values that pick only toolgym's own code.
SAFE_ENV_KWARG_VALUES = {"user": frozenset({"scripted", "replay"}),
                         "text_similarity": frozenset({"auto", "lexical", "minilm"})}
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_+\- ]{0,100}")


def _is_plain(value: Any) -> bool:
    if isinstance(value, str):
        return _PLAIN_TEXT.fullmatch(value) is not None
    return value is None or isinstance(value, bool | int | float)


def untrusted_env_args(env_id: Any, env_kwargs: Any) -> list[str]:
    """What in a results file's ``env`` and ``env_kwargs`` could choose code or a path: the
    keywords (and ``env`` itself) that the allow-list above does not pass; [] when the env can be
    made from them without trusting the file.

    An env id outside :func:`env_ids` that names a module (``module:Env-v0``, which gym.make
    imports) is named too; any other unknown id is left to :func:`make_env` to refuse.
    """
    named = ["env"] if not isinstance(env_id, str) or (":" in env_id and env_id not in env_ids()) else []
    if not isinstance(env_kwargs, dict):
        return named + ["env_kwargs"]
    for key, value in env_kwargs.items():
        if key in SAFE_ENV_KWARG_VALUES:
            plain = isinstance(value, str) and value in SAFE_ENV_KWARG_VALUES[key]
        elif key in PLAIN_ENV_KWARGS:
            plain = _is_plain(value) or (isinstance(value, list) and all(_is_plain(v) for v in value))
        else:
            plain = False
        if not plain:
            named.append(key)
    return named


def load_class(spec: str) -> type:
    """The class named by ``module.path:Class`` or ``path/to/file.py:Class`` (a user's agent,
    simulated user or judge, named by the user on the command line: never by a results file).

    Raises:
        ValueError: when the module or file cannot be found or has no such class.
    """
    target, _, class_name = spec.rpartition(":")
    if not target or not class_name:
        raise ValueError(f"agent {spec!r}: expected module:Class or path/to/file.py:Class")
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"agent {spec!r}: no file {path}")
        module_name = f"toolgym_user_agent_{path.stem}"
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module  # so that dataclasses and pickling inside the file work
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            raise ValueError(f"agent {spec!r}: cannot import {target!r} ({exc}); use module:Class with the "
                             f"module on PYTHONPATH, or path/to/file.py:Class") from exc
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"agent {spec!r}: {target} has no class {class_name!r}")
    return cls
