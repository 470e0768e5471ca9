"""What both servers (and :mod:`toolgym.remote`) share: the JSON-safe part of ``info``, how deep a message
nests, the limits, the env's description."""

from __future__ import annotations

import array
import itertools
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym


def round_trips(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` comes back equal from JSON: no tuples, no NaN, no objects, string keys.

    A walk over the types, not an encoding: it runs on every step's ``info``.
    """
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if depth > 100:
        return False
    if type(value) is list:
        return all(round_trips(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(type(key) is str and round_trips(item, depth + 1) for key, item in value.items())
    return False


#: The deepest nesting of arrays and objects a message may have (a tool call needs a few levels).
MAX_JSON_DEPTH = 100
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_DEPTH_STEP = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def json_depth(text: str | bytes) -> int:
    """How deep the arrays and objects of a JSON text nest, in linear time and without parsing it
    (a parser recurses once per level). Brackets inside strings do not count."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    brackets = _JSON_STRING.sub(b"", data).translate(_DEPTH_STEP, _NOT_BRACKETS)
    return max(itertools.accumulate(array.array("b", brackets), initial=0))  # +1 per opening, -1 per closing


def json_safe_info(info: dict) -> dict:
    """The entries of ``info`` that JSON carries unchanged (tools, messages, metrics, ...).

    An entry that would come back different (a tuple, a NaN, an object) is left out rather
    than altered, so a remote ``info`` equals the local one on every key it has.
    """
    return {key: value for key, value in info.items() if isinstance(key, str) and round_trips(value)}


def json_safe_float(value: float) -> float | None:
    """A reward as JSON carries it; a non-finite one (never produced by toolgym's envs) as None."""
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class ServeLimits:
    """What one server allows, checked before the work; overload is answered, never dropped.

    Attributes:
        max_sessions: Sessions (connections) open at once; one more is told the server is full.
        max_message_bytes: The largest client message read; a longer one is answered with an
            error and skipped, and the session goes on.
        step_timeout_s: A reset or step running longer is answered with an error; its session's
            episode is abandoned (the next reset starts another on a fresh env).
        idle_timeout_s: A session with no message for this long is closed and its env freed.
        workers: Threads that run env code, shared by every session (Python runs one at a time;
            more than the cores only adds contention).
    """

    max_sessions: int = 1024
    max_message_bytes: int = 1 << 20
    step_timeout_s: float = 10.0
    idle_timeout_s: float = 600.0
    workers: int = 2

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"serve limit {name} must be positive, got {value!r}")


def describe_env(env_id: str, env_kwargs: dict, env: gym.Env) -> dict:
    """The served env's configuration, as a client checks it against what it asked for, and
    which task data it holds (``tasks_provenance``, for the provenance of a client's results)."""
    base = env.unwrapped
    describe_tasks = getattr(base, "tasks_provenance", None)
    return {"env_id": env_id, "env_kwargs": env_kwargs, "task_ids": list(base.task_ids()),
            "task_set": base.task_set, "split": base.split, "scoring": base.scoring, "mode": base.mode,
            "tasks_provenance": describe_tasks() if callable(describe_tasks) else None}


def warm_up(env: gym.Env) -> None:
    """Load now what the env loads on first use and shares process-wide (ToolTalk's sentence
    model), so that no session pays for it inside its time limit."""
    similarity = getattr(env.unwrapped, "text_similarity", None)
    if similarity is not None:
        similarity.score("warm up", "warm-up")
