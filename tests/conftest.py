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

