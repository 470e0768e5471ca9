"""Shared fixtures. Official-data tests skip cleanly when the data is absent."""

from __future__ import annotations

import os
import shutil
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



@pytest.fixture
def serve_app():
    """Run ASGI apps on loopback in a background thread; yields ``start(app) -> "http://127.0.0.1:PORT"``."""
    import threading
    import time

    uvicorn = pytest.importorskip("uvicorn")
    running = []

    def start(app, **config) -> str:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **config))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
            time.sleep(0.01)
        running.append((server, thread))
        return f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"

    yield start
    for server, thread in running:
        server.should_exit = True
        thread.join(10)


# Debian's chromium (playwright's own browser download cannot be had); .ci/run installs it.
# TOOLGYM_CHROMIUM names another binary, else the first chromium on PATH.
CHROMIUM = os.environ.get("TOOLGYM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser") or ""
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """A headless chromium driven by playwright (the browser extra), or skip."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the browser extra)")
    if not os.path.exists(CHROMIUM):
        pytest.skip("no chromium: set TOOLGYM_CHROMIUM or put one on PATH (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()
