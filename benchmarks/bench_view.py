"""How long ``toolgym view`` takes to open a 10,000-episode results file: writing the page
(reading and checking the records) and a headless chromium loading it to its first table.

    python benchmarks/bench_view.py [--episodes 10000]

Needs the browser extra and Debian's chromium (/usr/bin/chromium). The records are copies of
ToolTalk oracle episodes (about 2 KB each).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from toolgym.eval.cli import main as toolgym
from toolgym.eval.view import page

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def run(episodes: int) -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    seed_file = folder / "seed.jsonl"
    toolgym(["eval", "ToolTalk-v0", "--env-kwarg", "text_similarity=lexical", "--agent", "oracle", "--no-progress",
             "--out", str(seed_file)])
    lines = seed_file.read_text().splitlines()
    big = folder / "big.jsonl"
    with big.open("w") as file:
        for i in range(episodes):
            record = json.loads(lines[i % len(lines)])
            record["task_id"] = f"{record['task_id']}#{i}"
            file.write(json.dumps(record) + "\n")
    start = time.perf_counter()
    cpu = time.process_time()
    html = folder / "view.html"
    html.write_text(page(big))
    written, written_cpu = time.perf_counter() - start, time.process_time() - cpu
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS, headless=True)
        viewer = browser.new_page()
        loading = time.perf_counter()
        viewer.goto(f"file://{html}")
        viewer.wait_for_selector("#episodes tbody tr")
        loaded = time.perf_counter() - loading
        browser.close()
    print(f"{episodes} episodes, {big.stat().st_size / 1e6:.1f} MB: page written in {written:.2f} s "
          f"({written_cpu:.2f} s CPU), loaded by chromium in {loaded:.2f} s; total {written + loaded:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    run(parser.parse_args().episodes)
