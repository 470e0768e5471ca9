"""Speed of every env, as one table: make time, per-step time, episodes per second.

- make: ``import toolgym`` + ``gym.make(env_id)`` in a fresh process, once the env's cache
  (``$TOOLGYM_CACHE``) is warm: one run fills it, then the median of ``--repeats`` runs.
- step / episode: the oracle over the env's tasks in this process (medians of ``--repeats``
  passes after a warm-up pass); ms/step counts every ``env.step`` and its share of ``reset``, and
  steps/s is its inverse: oracle steps per second on one core.

Run: .venv/bin/python benchmarks/bench_speed.py [--data-dir ../shared/data] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

# (label, env id, make kwargs, how many tasks an oracle pass runs; None = all)
CONFIGS = [
    ("ToolTalk built-in", "ToolTalk-v0", {}, None),
    ("ToolTalk official", "ToolTalk-v0", {"tasks": "official"}, None),
    ("AppBench plan", "AppBench-v0", {}, 200),
    ("AppBench interactive", "AppBench-v0", {"mode": "interactive"}, 200),
    ("HomeSearch", "HomeSearch-v0", {}, None),
    ("TripBooking", "TripBooking-v0", {}, None),
    ("OpenWeather", "OpenWeather-v0", {}, None),
    ("CatAPI", "CatAPI-v0", {}, None),
    ("Tabletop", "Tabletop-v0", {}, 20),
    ("ToolLLM", "ToolLLM-v0", {}, 200),
    ("WebShop", "WebShop-v0", {}, 200),
    ("VirtualHome program", "VirtualHome-v0", {}, None),
    ("VirtualHome step", "VirtualHome-v0", {"mode": "step"}, None),
    ("GoogleSheets", "GoogleSheets-v0", {}, None),
    ("Tau2 airline", "Tau2-v0", {"domain": "airline"}, None),
    ("Tau2 retail", "Tau2-v0", {"domain": "retail"}, None),
    ("Tau2 telecom", "Tau2-v0", {"domain": "telecom"}, None),
    ("Tau2 airline official", "Tau2-v0", {"domain": "airline", "tasks": "official"}, None),
    ("Tau2 retail official", "Tau2-v0", {"domain": "retail", "tasks": "official"}, None),
    ("Tau2User telecom", "Tau2User-v0", {"domain": "telecom"}, None),
    ("TauBench airline", "TauBench-v0", {"domain": "airline"}, None),
    ("TauBench retail", "TauBench-v0", {"domain": "retail"}, None),
    ("TauBench airline official", "TauBench-v0", {"domain": "airline", "tasks": "official"}, None),
    ("TauBench retail official", "TauBench-v0", {"domain": "retail", "tasks": "official"}, None),
    ("BFCL single-turn", "BFCL-v0", {"split": "train", "tasks_per_category": 200}, None),
    ("BFCL official single", "BFCL-v0", {"tasks": "official", "category": "simple_python"}, None),
    ("BFCL official multi", "BFCL-v0", {"tasks": "official", "category": "multi_turn_base"}, 50),
]


def make_seconds(env_id: str, kwargs: dict) -> float:
    """Seconds to import toolgym and make the env in a fresh process."""
    code = ("import time; t = time.perf_counter(); import gymnasium as gym, toolgym; "
            f"gym.make({env_id!r}, **{kwargs!r}); print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def oracle_pass(env, task_ids: list[str]) -> tuple[float, int]:
    """Seconds and steps of one oracle pass over ``task_ids``."""
    unwrapped = env.unwrapped
    steps = 0
    start = time.perf_counter()
    for task_id in task_ids:
        env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(unwrapped.oracle_action())
            done = terminated or truncated
            steps += 1
    return time.perf_counter() - start, steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA", "../shared/data"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="run only the configurations whose label contains this text")
    args = parser.parse_args()

    import gymnasium as gym
    import toolgym  # noqa: F401

    rows = []
    for label, env_id, kwargs, limit in CONFIGS:
        if args.only and args.only.lower() not in label.lower():
            continue
        if kwargs.get("tasks") == "official":
            if not os.path.isdir(args.data_dir):
                continue
            kwargs = {**kwargs, "data_dir": os.path.abspath(args.data_dir)}
        make_seconds(env_id, kwargs)  # fills the cache
        make = statistics.median(make_seconds(env_id, kwargs) for _ in range(args.repeats))
        env = gym.make(env_id, **kwargs)
        task_ids = env.unwrapped.task_ids()[:limit]
        oracle_pass(env, task_ids)  # warm-up
        passes = [oracle_pass(env, task_ids) for _ in range(args.repeats)]
        seconds = statistics.median(s for s, _ in passes)
        steps = passes[0][1]
        rows.append((label, make * 1e3, seconds / steps * 1e3, seconds / len(task_ids) * 1e3,
                     len(task_ids) / seconds, len(task_ids)))
    print(f"{'env':<26} {'make ms':>8} {'ms/step':>8} {'steps/s':>8} {'ms/episode':>10} {'episodes/s':>10} "
          f"{'episodes':>8}")
    for label, make_ms, step_ms, episode_ms, per_second, n in rows:
        print(f"{label:<26} {make_ms:>8.0f} {step_ms:>8.2f} {1e3 / step_ms:>8.0f} {episode_ms:>10.2f} "
              f"{per_second:>10.1f} {n:>8}")


if __name__ == "__main__":
    main()
