"""Tabletop-v0 speed and the oracle's full run: make, reset, one pick-and-place, full episodes.

Run: .venv/bin/python benchmarks/bench_tabletop.py [--task-seed 0] [--setups-per-type 7] [--mode single_step]
Prints timings, the oracle's success per task type and split, and every failed episode.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task-seed", type=int, default=0)
    parser.add_argument("--setups-per-type", type=int, default=7)
    parser.add_argument("--mode", default="single_step", choices=("single_step", "multi_step"))
    args = parser.parse_args()

    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.agents import OracleAgent
    from toolgym.eval.runner import run_episode

    start = time.perf_counter()
    env = gym.make("Tabletop-v0", mode=args.mode, task_seed=args.task_seed,
                   setups_per_type=args.setups_per_type).unwrapped
    print(f"make: {time.perf_counter() - start:.2f} s ({len(env.task_ids())} tasks)")

    # One pick-and-place: the first block of each place_in_bowl task into the task's bowl.
    resets, pick_places = [], []
    for task_id in [t for t in env.task_ids() if t.startswith("place_in_bowl")]:
        start = time.perf_counter()
        env.reset(seed=0, options={"task_id": task_id})
        resets.append(time.perf_counter() - start)
        task = env.tasks[task_id]
        start = time.perf_counter()
        env.world.put_first_on_second(task.param("pick"), task.param("place"))
        pick_places.append(time.perf_counter() - start)
    print(f"reset (rebuild + settle): mean {statistics.mean(resets) * 1000:.0f} ms, max {max(resets) * 1000:.0f} ms")
    print(f"one pick-and-place: mean {statistics.mean(pick_places) * 1000:.0f} ms, "
          f"max {max(pick_places) * 1000:.0f} ms (n={len(pick_places)})")

    agent = OracleAgent(env)
    by_type: dict[str, list[int]] = defaultdict(list)
    by_split: dict[str, list[int]] = defaultdict(list)
    durations, moves, failures = [], [], []
    for task_id in env.task_ids():
        start = time.perf_counter()
        record = run_episode(env, agent, task_id, seed=0)
        durations.append(time.perf_counter() - start)
        metrics = record["metrics"]
        moves.append(metrics["pick_places"])
        by_type[metrics["task_type"]].append(metrics["success"])
        by_split[record["split"]].append(metrics["success"])
        if not metrics["success"] or not metrics["program_ran"]:
            failures.append((task_id, env.task.instruction, record["trajectory"][-1]["observation"]))
    total = sum(durations)
    print(f"full episode (reset + oracle program): mean {statistics.mean(durations) * 1000:.0f} ms, "
          f"max {max(durations) * 1000:.0f} ms, {statistics.mean(moves):.1f} pick-and-places on average")
    print(f"oracle run: {len(durations)} episodes in {total:.1f} s")
    print(f"\n{'task type':<26} success")
    for task_type, values in by_type.items():
        print(f"{task_type:<26} {sum(values)}/{len(values)}")
    for split, values in by_split.items():
        print(f"{split:<26} {sum(values)}/{len(values)} ({100 * sum(values) / len(values):.1f}%)")
    successes = sum(sum(v) for v in by_type.values())
    print(f"{'overall':<26} {successes}/{len(durations)} ({100 * successes / len(durations):.1f}%)")
    for task_id, instruction, observation in failures:
        print(f"\nFAILED {task_id}: {instruction}\n{observation}")
    env.close()


if __name__ == "__main__":
    main()
