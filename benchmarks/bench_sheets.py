"""GoogleSheets-v0: the cost of one simulated Sheets API request and of a typical episode.

Prints the mean time of a request answered through gspread and the transport adapter
(values.get of a cell, values.update of a cell, a batchUpdate), of the service alone, and of
an episode (reset plus one oracle program, judged) over the built-in tasks, once the expected
sheets are computed. With ``--fuzz N``, instead runs N fuzzed programs (the ground truths and
demonstrations mutated by toolgym's FuzzAgent and by swapping names for allowed, forbidden and
dunder ones) through the env's check-and-run, and counts any exception that escapes. With
``--chain N``, times make, the first reset (which imports the formula engine) and N rounds of
the steps of a chain of 2,000 formulas each referring to the next (writing it, reading its
head, changing its end), printing each step's median.
Usage: python benchmarks/bench_sheets.py [episodes] | --fuzz N | --chain N
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym

import toolgym  # noqa: F401


def timed(function, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - start) / repeat


NAMES = ("__class__", "__globals__", "__import__", "client", "session", "to_csv", "read_csv", "query", "eval",
         "open", "sheet1", "loc", "iloc", "sort_values", "update", "get_all_values", "format", "merge_cells",
         "delete_rows", "insert_row", "pivot_table", "agg", "worksheet", "sheet", "df", "pd", "np", "10**9",
         "'x' * 10**8", "[0] * 10**8", "range(10**9)", "None", "-1", "''", "{}", "[]")


def fuzz_programs(count: int) -> None:
    import random

    from toolgym.agents.fuzz import FuzzAgent

    env = gym.make("GoogleSheets-v0").unwrapped
    rng = random.Random(0)
    agent = FuzzAgent(env, seed=0, rate=1.0)
    sources = [p for t in env.tasks.values() for p in t.programs] + [d.action for d in env.demo_pool]
    escaped, ran, worst = [], 0, 0.0
    start = time.perf_counter()
    for number in range(count):
        if number % 50 == 0:
            env.reset(options={"task_id": env.task_ids()[number // 50 % len(env.task_ids())]})
        program = rng.choice(sources)
        if rng.random() < 0.5:
            words = program.replace("(", " ( ").replace(".", " . ").split(" ")
            for _ in range(rng.randint(1, 3)):
                words[rng.randrange(len(words))] = rng.choice(NAMES)
            program = " ".join(words).replace(" ( ", "(").replace(" . ", ".")
        else:
            program = agent.mutate(program)
        step_start = time.perf_counter()
        try:
            if isinstance(program, str):
                ran += env._run_checked(program) is None
        except Exception as exc:  # noqa: BLE001 - what the fuzzing looks for
            escaped.append(f"{type(exc).__name__}: {exc} <- {str(program)[:200]!r}")
        worst = max(worst, time.perf_counter() - step_start)
    print(f"{count} fuzzed programs: {len(escaped)} escaped exceptions, {ran} ran, worst {worst * 1e3:.0f} ms, "
          f"{time.perf_counter() - start:.0f} s")
    for line in escaped[:10]:
        print("   ", line)


def chain_steps(rounds: int) -> None:
    import statistics

    start = time.perf_counter()
    env = gym.make("GoogleSheets-v0", mode="multi_step").unwrapped
    print(f"make: {time.perf_counter() - start:.2f} s")
    steps = {"write the chain": "worksheet.resize(rows=2100)\n"
                                "worksheet.update([[f'=F{i + 1}+1'] for i in range(1, 2000)] + [[1]], 'F1:F2000', "
                                "raw=False)",
             "read its head": "x = worksheet.acell('F1').value",
             "change its end": "worksheet.update_acell('F2000', 5)"}
    times: dict[str, list[float]] = {name: [] for name in steps}
    for number in range(rounds):
        start = time.perf_counter()
        env.reset(options={"task_id": env.task_ids()[0]})
        if number == 0:
            print(f"first reset: {time.perf_counter() - start:.2f} s")
        for name, program in steps.items():
            start = time.perf_counter()
            observation = env.step(program)[0]
            times[name].append(time.perf_counter() - start)
            assert observation.startswith("The program ran."), observation
    for name, values in times.items():
        print(f"step, {name}: median {statistics.median(values):.2f} s, max {max(values):.2f} s ({rounds} rounds)")


def main() -> None:
    if sys.argv[1:2] == ["--chain"]:
        chain_steps(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
        return
    if sys.argv[1:2] == ["--fuzz"]:
        fuzz_programs(int(sys.argv[2]) if len(sys.argv) > 2 else 10_000)
        return
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 111
    start = time.perf_counter()
    env = gym.make("GoogleSheets-v0").unwrapped
    print(f"make: {time.perf_counter() - start:.2f} s")
    ids = env.task_ids()[:episodes]
    start = time.perf_counter()
    for task_id in ids:
        env.expected_states(task_id)
    print(f"expected sheets of {len(ids)} tasks (run once per env): {time.perf_counter() - start:.2f} s")
    env.reset(options={"task_id": ids[0]})
    worksheet, service = env.interpreter.variables["worksheet"], env.world.service
    n = 200
    print(f"request through gspread, values.get of one cell: {timed(lambda: worksheet.acell('B2'), n) * 1e3:.2f} ms")
    print(f"request through gspread, values.update of one cell: "
          f"{timed(lambda: worksheet.update_acell('B2', 'x'), n) * 1e3:.2f} ms")
    print(f"request through gspread, batchUpdate (repeatCell): "
          f"{timed(lambda: worksheet.format('A1:D1', {'textFormat': {'bold': True}}), n) * 1e3:.2f} ms")
    key = env.tasks[ids[0]].spreadsheet
    print(f"service alone, values.get of the sheet: "
          f"{timed(lambda: service.handle('GET', f'/v4/spreadsheets/{key}/values/Sheet1', {}, None), n) * 1e3:.2f} ms")
    start = time.perf_counter()
    solved = 0
    for task_id in ids:
        env.reset(options={"task_id": task_id})
        solved += env.step(env.oracle_action() + "\npass")[1]  # not identical: the sheets are compared
    elapsed = time.perf_counter() - start
    print(f"episode (reset + typical program + judging): {elapsed / len(ids) * 1e3:.0f} ms "
          f"({len(ids)} episodes, oracle success {solved / len(ids):.2f})")


if __name__ == "__main__":
    main()
