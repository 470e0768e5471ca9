"""Timings of HomeSearch-v0 / TripBooking-v0 and their API selection complexity (run by hand).

    .venv/bin/python benchmarks/bench_api_program.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.eval.complexity import env_complexity
from toolgym.eval.runner import evaluate
from toolgym.worlds.api_programs import parse_program


def timed(fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    for env_id in ("HomeSearch-v0", "TripBooking-v0"):
        print(f"== {env_id}")
        print(f"make (world + tasks):      {1000 * timed(lambda: gym.make(env_id)):8.1f} ms")
        env = gym.make(env_id)
        base = env.unwrapped
        program = base.tasks["0"].programs[0]
        print(f"parse one program:         {1e6 * timed(lambda: parse_program(program, base.functions), 2000):8.1f} us")
        print(f"reset:                     {1000 * timed(lambda: env.reset(options={'task_id': '0'}), 200):8.2f} ms")

        def episode():
            env.reset(options={"task_id": "0"})
            env.step(program)
        print(f"reset + program step:      {1000 * timed(episode, 200):8.2f} ms")
        task_sets = [("built-in", {})]
        if args.data_dir:
            task_sets.append(("official", {"tasks": "official", "data_dir": args.data_dir}))
        for name, kwargs in task_sets:
            for mode in ("single_step", "multi_step"):
                start = time.perf_counter()
                records, _ = evaluate(env_id, "oracle", {**kwargs, "mode": mode}, progress=False)
                seconds = time.perf_counter() - start
                success = sum(r["metrics"]["success"] for r in records) / len(records)
                print(f"oracle {name:8s} {mode:11s} {len(records)} tasks: success {100 * success:5.1f}%, "
                      f"{len(records) / seconds:7.1f} episodes/s")
            c = env_complexity(gym.make(env_id, **kwargs))
            print(f"complexity {name:8s} ({c['tests']} tests, {c['demos']} demos, k=3): "
                  f"edit {c['edit']:.3f}, reversed F1 {c['reversed_f1']:.3f}")


if __name__ == "__main__":
    main()
