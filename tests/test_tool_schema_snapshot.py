"""Every registered env's tool schemas, pinned: ``info["tools"]`` at reset over every built-in task
of every mode (Tau2-v0: every domain, and telecom's user tools), byte for byte as JSON, against
tests/data/tool_schemas/all_envs.json. A change of how schemas are derived must leave them equal,
or change the pinned file in the same commit for the tools it means to change.

``TOOLGYM_UPDATE_SCHEMAS=1`` rewrites the pinned file from the current code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

from toolgym import env_modes

PINNED = Path(__file__).parent / "data" / "tool_schemas" / "all_envs.json"
TAU2_DOMAINS = ("airline", "retail", "telecom", "mock")


def _configurations() -> list[tuple[str, dict]]:
    out = []
    for env_id, mode in env_modes():
        kwargs = {"mode": mode} if mode else {}
        for domain in TAU2_DOMAINS if env_id == "Tau2-v0" else (None,):
            label = "|".join(part for part in (env_id, mode, domain) if part)
            out.append((label, {**kwargs, **({"domain": domain} if domain else {})}))
    return out


def _schemas(env_id: str, kwargs: dict) -> dict[str, list[str]]:
    """The distinct schemas (as JSON text) the env shows over its built-in tasks, in first-seen order."""
    env = gym.make(env_id, **kwargs).unwrapped
    seen: dict[str, None] = {}
    for task_id in env.task_ids():
        _, info = env.reset(seed=0, options={"task_id": task_id})
        seen.update((json.dumps(schema, ensure_ascii=False), None) for schema in info.get("tools") or ())
    out = {"tools": list(seen)}
    if getattr(env, "user_tools", None):
        out["user_tools"] = [json.dumps(schema, ensure_ascii=False) for schema in env.user_tools]
    return out


def test_every_env_shows_the_pinned_schemas():
    if os.environ.get("TOOLGYM_UPDATE_SCHEMAS") == "1":
        current = {label: _schemas(label.split("|")[0], kwargs) for label, kwargs in _configurations()}
        PINNED.write_text(json.dumps(current, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    assert sorted(pinned) == sorted(label for label, _ in _configurations())
    for label, kwargs in _configurations():
        if label.startswith("GoogleSheets"):
            pytest.importorskip("gspread")
        current = _schemas(label.split("|")[0], kwargs)
        for key in ("tools", "user_tools"):
            assert current.get(key, []) == pinned[label].get(key, []), (label, key)
