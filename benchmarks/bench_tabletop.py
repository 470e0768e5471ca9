"""Tabletop-v0 speed and the oracle's full run: make, reset, one pick-and-place, full episodes.

Run: .venv/bin/python benchmarks/bench_tabletop.py [--task-seed 0] [--setups-per-type 7] [--mode single_step]
                                                  [--reproducers-only]
Prints the worst step time and peak memory of the interpreter's budget reproducers, timings,
the oracle's success per task type and split, and every failed episode.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

# Programs (single step) and statement sequences (multi step) that once ran for hours, allocated
# hundreds of megabytes or raised (see the interpreter's budgets).
REPRODUCERS = {
    "nested [x] * 10000 and comparisons": ("single_step", ["\n".join([
        "x = [0] * 10000", "y = [x] * 10000", "z = [y] * 10000", "w = [z] * 10000", "r1 = y == z", "r2 = x in y",
        "r3 = sorted(z)", "r4 = min(w)", "r5 = max(w)"])]),
    "comparisons within the size limit, in a loop": ("single_step", [
        "a = [[0] * 99] * 999\nfor i in range(10000):\n    r = sorted(a) == a"]),
    "zip of 3000 10,000-item lists": ("single_step", ["a = [0] * 10000\nb = zip(" + ", ".join(["a"] * 3000) + ")"]),
    "str / f-string / say of a large value": ("single_step", [
        "a = [[0] * 999] * 99\nsay(a)\nx = f'{a}'\ny = str(a)"]),
    "list doubling past its limit": ("multi_step", ["x = [0] * 6000", "x[0:0] = x", "x = x + x", "len(x)"]),
    "3,000-deep nested list": ("multi_step", ["x = []"] + ["x = [x]"] * 3000 + ["x"]),
}


def reproducers() -> None:
    """The worst step time and peak traced memory of each reproducer."""
    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.agents.fuzz import step_costs

    for name, (mode, actions) in REPRODUCERS.items():
        env = gym.make("Tabletop-v0", mode=mode, max_steps=len(actions) + 1).unwrapped
        env.reset(seed=0, options={"task_id": "stack_all-0"})
        worst, peak, last = step_costs(env, actions)
        error = next((line for line in last.splitlines() if line.startswith("Error")), last.splitlines()[-1])
        print(f"{name:46s} worst step {1000 * worst:7.1f} ms, peak {peak / 2**20:6.2f} MiB; {error[:60]}")
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task-seed", type=int, default=0)
    parser.add_argument("--setups-per-type", type=int, default=7)
    parser.add_argument("--mode", default="single_step", choices=("single_step", "multi_step"))
    parser.add_argument("--reproducers-only", action="store_true")
    args = parser.parse_args()
    reproducers()
    if args.reproducers_only:
        return

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
