"""CPU per tool call: TauBench-v0 against τ-bench v1's own tools, side by side in one process.

The calls are the ground-truth actions of each domain's official test tasks, each made from its
task's starting state, then ``search_direct_flight`` and ``search_onestop_flight`` on every airline
route of five days, and retail's ``find_user_id_by_name_zip`` for every fifth user (15 calls an
episode). Each side makes
every call as an episode makes it: v1 as its ``Env.step`` does (``invoke(data=data, **kwargs)``,
an exception answered ``Error: ...``, the step's ``EnvInfo`` and ``EnvResponse``), toolgym through
``env.step`` (reading the action, the call, the messages and ``info``). The CPU time of each call
(``time.process_time_ns``) is the least of ``--rounds`` rounds; the medians and their ratio are
printed, per domain and per tool::

    PYTHONPATH=. python benchmarks/bench_taubench_tools.py --data ../shared/data --taubench /tmp/taubench_v1

``/tmp/taubench_v1`` holds v1's ``tau_bench`` package (see benchmarks/compare_taubench_args.py).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
import types
from collections import defaultdict
from pathlib import Path

DAYS = ("2024-05-16", "2024-05-17", "2024-05-18", "2024-05-19", "2024-05-20")
EPISODE_CALLS = 15
TABLES = {"airline": ("flights", "reservations", "users"), "retail": ("orders", "products", "users")}


def episodes(env, domain: str, data: Path) -> list[tuple[str, list[dict]]]:
    """(task id, the calls made from its start): the ground truth of each task, then the searches."""
    out = []
    for task_id in env.task_ids():
        actions = [{"name": a["name"], "kwargs": a["kwargs"]} for a in env.task_data.tasks[task_id]["actions"]
                   if a["name"] not in ("respond", "transfer_to_human_agents")]
        out.append((task_id, actions))
    folder = data / "tau2bench" / "tau_bench_v1" / "tau_bench" / "envs" / domain / "data"
    if domain == "airline":
        flights = json.loads((folder / "flights.json").read_text()).values()
        routes = sorted({(f["origin"], f["destination"]) for f in flights})
        extra = [{"name": name, "kwargs": {"origin": o, "destination": d, "date": day}}
                 for (o, d), day in itertools.product(routes, DAYS)
                 for name in ("search_direct_flight", "search_onestop_flight")]
    else:
        users = list(json.loads((folder / "users.json").read_text()).values())[::5]
        extra = [{"name": "find_user_id_by_name_zip", "kwargs": {
            "first_name": u["name"]["first_name"], "last_name": u["name"]["last_name"], "zip": u["address"]["zip"]}}
            for u in users]
    # in episodes of an episode's length (v1's 30 steps at most), each from the first task's start
    return out + [(env.task_ids()[0], extra[i:i + EPISODE_CALLS]) for i in range(0, len(extra), EPISODE_CALLS)]


def v1_times(domain: str, data: Path, plan: list[tuple[str, list[dict]]], task) -> list[tuple[str, int]]:
    """(tool, CPU ns) of each call on v1's side, made as v1's ``Env.step`` makes it."""
    import importlib

    from tau_bench.types import Action, EnvInfo, EnvResponse
    tools = {tool.get_info()["function"]["name"]: tool
             for tool in importlib.import_module(f"tau_bench.envs.{domain}.tools").ALL_TOOLS}
    folder = data / "tau2bench" / "tau_bench_v1" / "tau_bench" / "envs" / domain / "data"
    texts = {table: (folder / f"{table}.json").read_text() for table in TABLES[domain]}
    out = []
    for _, calls in plan:
        database = {table: json.loads(text) for table, text in texts.items()}  # v1's reset: load_data()
        actions = []
        for call in calls:
            action = Action(name=call["name"], kwargs=json.loads(json.dumps(call["kwargs"])))
            start = time.process_time_ns()
            actions.append(action)
            info = EnvInfo(task=task)
            try:
                observation = tools[action.name].invoke(data=database, **action.kwargs)
            except Exception as error:  # noqa: BLE001 - v1's Env.step answers any exception so
                observation = f"Error: {error}"
            info.source = action.name
            EnvResponse(observation=observation, reward=0, done=False, info=info)
            out.append((call["name"], time.process_time_ns() - start))
    return out


def toolgym_times(env, plan: list[tuple[str, list[dict]]]) -> list[tuple[str, int]]:
    """(tool, CPU ns) of each call on toolgym's side, made through ``env.step``."""
    out = []
    for task_id, calls in plan:
        env.reset(options={"task_id": task_id}, seed=0)
        env.max_steps = len(calls) + 1
        for call in calls:
            action = {"name": call["name"], "arguments": json.loads(json.dumps(call["kwargs"]))}
            start = time.process_time_ns()
            env.step(action)
            out.append((call["name"], time.process_time_ns() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the folder holding tau2bench/tau_bench_v1")
    parser.add_argument("--taubench", type=Path, required=True, help="the folder holding v1's tau_bench package")
    parser.add_argument("--domains", nargs="+", default=["airline", "retail"])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(args.taubench))
    try:
        import litellm  # noqa: F401
    except ImportError:  # v1's user module imports it; no user is made here
        sys.modules["litellm"] = types.ModuleType("litellm")
        sys.modules["litellm"].completion = None
    import gymnasium as gym

    import toolgym  # noqa: F401
    from tau_bench.types import Task
    task = Task(user_id="u", actions=[], instruction="", outputs=[])
    for domain in args.domains:
        env = gym.make("TauBench-v0", domain=domain, tasks="official", split="test", data_dir=str(args.data)).unwrapped
        plan = episodes(env, domain, args.data)
        best: dict[str, list] = {}
        for _ in range(args.rounds):
            for side, times in (("v1", v1_times(domain, args.data, plan, task)), ("toolgym", toolgym_times(env, plan))):
                best[side] = [min(pair, key=lambda t: t[1]) for pair in zip(best[side], times)] if side in best \
                    else times
        per_tool = defaultdict(lambda: defaultdict(list))
        for side, times in best.items():
            for name, ns in times:
                per_tool[name][side].append(ns / 1e6)
        v1 = statistics.median(ns / 1e6 for _, ns in best["v1"])
        ours = statistics.median(ns / 1e6 for _, ns in best["toolgym"])
        print(f"{domain}: {len(best['v1'])} calls, median CPU ms per call: v1 {v1:.4f}, toolgym {ours:.4f}, "
              f"ratio {ours / v1:.2f}")
        for name, sides in sorted(per_tool.items()):
            a, b = statistics.median(sides["v1"]), statistics.median(sides["toolgym"])
            print(f"  {name:32s} {len(sides['v1']):5d} calls  v1 {a:.4f}  toolgym {b:.4f}  ratio {b / a:.2f}")


if __name__ == "__main__":
    main()
