"""Timings and oracle scores of OpenWeather-v0 and CatAPI-v0.

Run by hand: ``.venv/bin/python benchmarks/bench_rest_api.py [--data-dir ../shared/data]``.
Prints env construction time, per-episode latency (reset + one oracle step), curl parsing
throughput, the size of each task set and demo pool, and the oracle's scores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.worlds.rest import parse_curl

ENV_IDS = ("OpenWeather-v0", "CatAPI-v0")


def call_type(action: str) -> str:
    request = parse_curl(action, {"API_KEY": "k"})
    path = request.path.rsplit("/", 1)[0] + "/{id}" if request.method == "DELETE" else request.path
    return f"{request.method} {path}"


def run(env_id: str, tasks: str, data_dir: str | None, scoring: str = "paper") -> None:
    start = time.perf_counter()
    env = gym.make(env_id, tasks=tasks, data_dir=data_dir, scoring=scoring).unwrapped
    built = time.perf_counter() - start
    latencies, totals = [], Counter()
    for task_id in env.task_ids():
        t = time.perf_counter()
        env.reset(options={"task_id": task_id})
        info = env.step(env.oracle_action())[4]
        latencies.append(time.perf_counter() - t)
        totals.update(info["metrics"])
    n = len(latencies)
    types = Counter(call_type(t.action) for t in env.task_data.tasks.values())
    print(f"{env_id:15s} {tasks:9s} {scoring:12s} n={n:3d} demos={len(env.task_data.demos):2d} "
          f"build={built:.2f}s episode median={statistics.median(latencies) * 1e3:.1f}ms "
          f"max={max(latencies) * 1e3:.1f}ms | executable={totals['executable'] / n:.1%} "
          f"success={totals['success'] / n:.1%} key_f1={totals['key_f1'] / n:.3f}")
    print("    call types: " + ", ".join(f"{k} x{v}" for k, v in sorted(types.items())))


def bench_parse(repeats: int = 20000) -> None:
    command = ("curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=port+st.+lucie"
               "&appid={API_KEY}&units=metric&mode=json&lang=de'")
    start = time.perf_counter()
    for _ in range(repeats):
        parse_curl(command, {"API_KEY": "k"})
    elapsed = time.perf_counter() - start
    print(f"parse_curl: {repeats / elapsed:,.0f} commands/s ({elapsed / repeats * 1e6:.1f} us each)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA"))
    args = parser.parse_args()
    bench_parse()
    for env_id in ENV_IDS:
        run(env_id, "built-in", None)
        if args.data_dir:
            for scoring in ("paper", "paper_compat"):
                run(env_id, "official", args.data_dir, scoring)


if __name__ == "__main__":
    main()
