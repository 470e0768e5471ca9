"""Timings of HomeSearch-v0 / TripBooking-v0, their API selection complexity, and the worst step
time and peak memory of the interpreter's budget reproducers (run by hand).

    .venv/bin/python benchmarks/bench_api_program.py [--data-dir ../shared/data] [--reproducers-only]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.agents.fuzz import step_costs
from toolgym.eval.complexity import env_complexity
from toolgym.eval.runner import evaluate
from toolgym.worlds.interpreter import check


def timed(fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


# Multi-step action sequences that once took seconds to hours or raised (see the interpreter's budgets).
_ALIAS = "x = [" + ", ".join(["x"] * 10) + "]"
REPRODUCERS = {
    "aliasing blowup (x = [x, ..., x] x8)": ("HomeSearch-v0", ["x = [1]"] + [_ALIAS] * 8),
    "nested list into Date/Loc/search": ("TripBooking-v0", [
        "x = [[1, 2, 3, 4, 5, 6, 7, 8, 9]]", _ALIAS, _ALIAS, 'API.select_booking_type("trip tickets")',
        'API.select_transportation("bus")', "API.set_origin(Loc(x))", 'API.set_destination(Loc("Reno"))',
        "API.set_departure_date(Date(x, x, 2023))", "API.search()"]),
    "64-bit overflow (set_min_price(10**30 literal))": ("HomeSearch-v0", [
        'API.set_location("Reno")', 'API.set_buy_or_rent("buy")', f"API.set_min_price({10**30})"]),
    "64-bit overflow (Date(10**20 literal, 1, 2023))": ("TripBooking-v0", [f"d = Date({10**20}, 1, 2023)"]),
}


def reproducers() -> None:
    """The worst step time and peak traced memory of each reproducer (multi-step mode)."""
    for name, (env_id, actions) in REPRODUCERS.items():
        env = gym.make(env_id, mode="multi_step")
        env.reset(seed=0, options={"task_id": "0"})
        worst, peak, last = step_costs(env, actions)
        print(f"{name:48s} worst step {1000 * worst:7.1f} ms, peak {peak / 2**20:6.2f} MiB; last: {last[:70]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir")
    parser.add_argument("--reproducers-only", action="store_true")
    args = parser.parse_args()
    print("== budget reproducers")
    reproducers()
    if args.reproducers_only:
        return
    for env_id in ("HomeSearch-v0", "TripBooking-v0"):
        print(f"== {env_id}")
        print(f"make (world + tasks):      {1000 * timed(lambda: gym.make(env_id)):8.1f} ms")
        env = gym.make(env_id)
        base = env.unwrapped
        program = base.tasks["0"].programs[0]
        print(f"check one program:         {1e6 * timed(lambda: check(program, base.profile), 2000):8.1f} us")
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
