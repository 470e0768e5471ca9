"""Digests that name the task data a run used: :func:`json_digest` of the built-in tasks (official
files are digested by :meth:`~toolgym.envs.common.official.OfficialLayout.digest`)."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from typing import Any
from collections.abc import Mapping


def canonical(value: Any) -> Any:
    """``value`` as plain JSON values, the same for equal tasks in every process: dataclasses and
    pydantic models by their fields, mappings with string keys, sets sorted, enums by value.

    Raises:
        TypeError: A value that has no such form (a function, an open resource).
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, enum.Enum):
        return canonical(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__class__": type(value).__qualname__,
                **{f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump) and not isinstance(value, type):  # a pydantic model
        return {"__class__": type(value).__qualname__, **canonical(model_dump(mode="json"))}
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda item: str(item[0]))}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    raise TypeError(f"no canonical JSON form for {type(value).__name__}")


def json_digest(value: Any) -> str:
    """``sha256:<hex>`` of ``value``'s canonical JSON (:func:`canonical`)."""
    text = json.dumps(canonical(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
