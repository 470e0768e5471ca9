"""Shared fixtures. Official-data tests skip cleanly when the data is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def official_data_root() -> Path | None:
    root = os.environ.get("TOOLGYM_DATA")
    path = Path(root) if root else SHARED_DATA
    return path if path.exists() else None


@pytest.fixture
def official_data() -> Path:
    """The official benchmark data folder (``../shared/data`` or ``$TOOLGYM_DATA``), or skip."""
    root = official_data_root()
    if root is None:
        pytest.skip("official data not found: set TOOLGYM_DATA or place it at ../shared/data")
    return root


def play_oracle(env, task_id: str, seed: int = 0) -> tuple[float, dict, bool]:
    """Play one task with the env's oracle: (return, last info, terminated)."""
    base = env.unwrapped
    env.reset(seed=seed, options={"task_id": task_id})
    total, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(base.oracle_action())
        total += reward
    return total, info, terminated
