"""AppBench-v0 measurements (run by hand):

- the time to score all 801 official plans with the oracle, in both scorings;
- the oracle on the built-in set, in both modes;
- Table 2-style statistics of the built-in and the official task sets.

Usage: python benchmarks/bench_appbench.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import time

from toolgym.agents import OracleAgent
from toolgym.envs.appbench import AppBenchEnv
from toolgym.envs.appbench.tasks import load_official, task_statistics
from toolgym.eval.runner import format_table, run_episode


def run_all(env: AppBenchEnv) -> tuple[list[dict], float]:
    agent = OracleAgent(env)
    start = time.perf_counter()
    records = [run_episode(env, agent, task_id, seed=0) for task_id in env.task_ids()]
    return records, time.perf_counter() - start


def print_statistics(title: str, tasks) -> None:
    print(f"\n{title}")
    stats = task_statistics(tasks)
    keys = list(next(iter(stats.values())))
    print("category  " + "  ".join(k for k in keys))
    for category, row in stats.items():
        print(f"{category:<8}  " + "  ".join(f"{row[k]:>{len(k)}.2f}" for k in keys))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA", "../shared/data"))
    args = parser.parse_args()

    start = time.perf_counter()
    builtin = AppBenchEnv()
    print(f"built-in world + 800 verified tasks: {time.perf_counter() - start:.1f} s")
    for mode in ("plan", "interactive"):
        env = AppBenchEnv(mode=mode)
        records, seconds = run_all(env)
        print(f"\noracle, built-in, mode={mode}: {seconds:.1f} s for {len(records)} episodes")
        print(format_table(env, records))
    print_statistics("Built-in task set (Table 2 style)", list(builtin.tasks.values()))

    try:
        official = load_official("AppBench-v0", args.data_dir)
    except (ValueError, FileNotFoundError) as exc:
        print(f"\nofficial data skipped: {exc}")
        return
    for scoring in ("paper", "paper_compat"):
        env = AppBenchEnv(tasks="official", data_dir=args.data_dir, scoring=scoring)
        records, seconds = run_all(env)
        print(f"\noracle, official, scoring={scoring}: scored {len(records)} plans in {seconds:.2f} s "
              f"({1000 * seconds / len(records):.2f} ms per plan)")
        print(format_table(env, records))
        failed = [r["task_id"] for r in records if r["metrics"]["succ"] < 1]
        print(f"not solved: {failed}")
    print_statistics("Official task set (Table 2 style)", official)


if __name__ == "__main__":
    main()
