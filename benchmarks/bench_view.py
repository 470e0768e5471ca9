"""How long ``toolgym view`` takes to open a 10,000-episode results file, served and as one
static page: reading and checking the records (wall and CPU seconds), a headless chromium
loading the page to its first table, and opening an episode.

    python benchmarks/bench_view.py [--episodes 10000]

Needs the browser extra and Debian's chromium (/usr/bin/chromium). The records are copies of
ToolTalk oracle episodes (about 2 KB each).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

from toolgym.eval.cli import main as toolgym
from toolgym.eval.view import Run, make_server, page

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
    start, cpu = time.perf_counter(), time.process_time()
    html = folder / "view.html"
    html.write_text(page(big))
    written, written_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    server = make_server([Run.read(big)], port=0)
    indexed, indexed_cpu = time.perf_counter() - start, time.process_time() - cpu
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS, headless=True)
        for name, url, python, python_cpu in [("static", f"file://{html}", written, written_cpu),
                                              ("served", f"http://127.0.0.1:{server.server_address[1]}/", indexed,
                                               indexed_cpu)]:
            viewer = browser.new_page()
            loading = time.perf_counter()
            viewer.goto(url)
            viewer.wait_for_selector("#episodes tbody tr")
            loaded = time.perf_counter() - loading
            opening = time.perf_counter()
            viewer.locator("#episodes tbody tr").nth(7).click()
            viewer.wait_for_selector("#detail .run h3")
            opened = time.perf_counter() - opening
            print(f"{name}: {episodes} episodes, {big.stat().st_size / 1e6:.1f} MB: page made in {python:.2f} s "
                  f"({python_cpu:.2f} s CPU), loaded by chromium in {loaded:.2f} s; total {python + loaded:.2f} s; "
                  f"an episode opened in {opened:.2f} s")
            viewer.close()
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    run(parser.parse_args().episodes)
