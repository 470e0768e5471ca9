"""VirtualHome-v0: oracle episodes per second in both modes, the built-in set's statistics, the
official set's (with --data-dir), and fuzzed programs (run by hand).

    .venv/bin/python benchmarks/bench_virtualhome.py [--data-dir ../shared/data] [--fuzz 10000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.agents.fuzz import fuzz_run
from toolgym.worlds.virtualhome.tasks import builtin_tasks


def oracle_rate(env_kwargs: dict, rounds: int = 2) -> tuple[float, dict]:
    """Oracle episodes per second over every task (the last of ``rounds`` timed passes after a
    warm-up pass), and the mean metrics of the warm-up pass."""
    env = gym.make("VirtualHome-v0", **env_kwargs).unwrapped
    ids = env.task_ids()
    totals: dict[str, float] = {}
    for round_ in range(rounds + 1):
        start = time.perf_counter()
        for task_id in ids:
            env.reset(seed=0, options={"task_id": task_id})
            while True:
                *_, terminated, truncated, info = env.step(env.oracle_action())
                if terminated or truncated:
                    break
            if round_ == 0:
                for key in ("executable", "lcs", "preconditions_ok", "has_goal", "goal_success"):
                    totals[key] = totals.get(key, 0) + info["metrics"][key]
        elapsed = time.perf_counter() - start if round_ else None
    return len(ids) / elapsed, {k: v / len(ids) for k, v in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir")
    parser.add_argument("--fuzz", type=int, default=0, help="fuzzed actions per mode (the issue asks for 10,000)")
    args = parser.parse_args()

    start = time.perf_counter()
    builtin_tasks.cache_clear()
    tasks = builtin_tasks(0)
    print(f"built-in set (world_seed 0) generated and verified in {time.perf_counter() - start:.2f} s")
    every = tasks.test + tasks.demos
    solutions = [s for a in every for s in a.solutions]
    print(f"  activities: {len(every)} ({len(tasks.test)} test, {len(tasks.demos)} demonstration activities with "
          f"{len(tasks.demo_pool())} solutions)")
    print(f"  solutions per activity: mean {statistics.mean(len(a.solutions) for a in every):.2f}, "
          f"min {min(len(a.solutions) for a in every)}, max {max(len(a.solutions) for a in every)}")
    lengths = [len(s.split("\n")) for s in solutions]
    print(f"  actions per program: mean {statistics.mean(lengths):.2f}, min {min(lengths)}, max {max(lengths)}")
    print(f"  goal predicates per activity: mean {statistics.mean(len(a.goal) for a in every):.2f}")

    for mode in ("program", "step"):
        for scoring in ("paper", "goal"):
            rate, means = oracle_rate({"mode": mode, "scoring": scoring})
            print(f"built-in oracle, mode={mode:7s} scoring={scoring:5s}: {rate:7.1f} episodes/s; "
                  + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))

    if args.data_dir:
        env = gym.make("VirtualHome-v0", tasks="official", data_dir=args.data_dir).unwrapped
        goals = sum(env.official_goal(t) is not None for t in env.task_ids())
        print(f"official: {len(env.task_ids())} test activities, {len(env.demo_pool)} demonstration solutions, "
              f"{goals} test activities with a goal check")
        for mode in ("program", "step"):
            rate, means = oracle_rate({"tasks": "official", "data_dir": args.data_dir, "mode": mode})
            print(f"official oracle, mode={mode:7s}: {rate:7.1f} episodes/s; "
                  + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))

    if args.fuzz:
        for mode in ("program", "step"):
            start = time.perf_counter()
            stats = fuzz_run(gym.make("VirtualHome-v0", mode=mode), args.fuzz, seed=3)
            print(f"fuzz, mode={mode}: {stats['steps']} actions in {time.perf_counter() - start:.1f} s, "
                  f"{len(stats['exceptions'])} exceptions, worst step {1000 * stats['worst_step_s']:.1f} ms, "
                  f"peak {stats['peak_bytes'] / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
