"""Milliseconds per tool call: Tau2-v0 against τ²-bench's own ``Environment``, on the same calls.

The calls are the ground-truth actions of the official tasks (base split; telecom's first 20),
each made from its task's starting state, then ``search_direct_flight`` and
``search_onestop_flight`` on every route of five days (the searches agents make most). Each call
is timed as an episode makes it: the tool, then the sync of the two sides. Run it twice, once per
side, with the same data::

    PYTHONPATH=. python benchmarks/bench_tau2_tools.py --data ../shared/data
    TAU2_DATA_DIR=../shared/data/tau2bench PYTHONPATH=/tmp/tau2src/src \\
        /tmp/tau2venv/bin/python benchmarks/bench_tau2_tools.py --side tau2 --data ../shared/data

The τ² side runs in a throwaway virtual environment holding τ²'s source and imports (see
benchmarks/tau2_openai_schemas.py); toolgym never imports τ².
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

DOMAINS = ("airline", "retail", "telecom")
TELECOM_TASKS = 20
DAYS = ("2024-05-16", "2024-05-17", "2024-05-18", "2024-05-19", "2024-05-20")


def calls_of(data: Path, domain: str) -> list[tuple[dict, list[dict]]]:
    """(task, its ground-truth actions) of the domain's base split, in file order."""
    folder = data / "tau2bench" / "tau2" / "domains" / domain
    base = set(json.loads((folder / "split_tasks.json").read_text())["base"])
    tasks = [t for t in json.loads((folder / "tasks.json").read_text()) if t["id"] in base]
    tasks = tasks[:TELECOM_TASKS] if domain == "telecom" else tasks
    return [(t, (t.get("evaluation_criteria") or {}).get("actions") or []) for t in tasks]


def searches(data: Path) -> list[dict]:
    """Direct and one-stop searches on every route of the airline database, on five days."""
    flights = json.loads((data / "tau2bench" / "tau2" / "domains" / "airline" / "db.json").read_text())["flights"]
    routes = sorted({(f["origin"], f["destination"]) for f in flights.values()})
    return [{"name": name, "arguments": {"origin": o, "destination": d, "date": day}}
            for name, (o, d), day in itertools.product(("search_direct_flight", "search_onestop_flight"),
                                                       routes[:40], DAYS)]


def toolgym_side(data: Path) -> dict[str, list[float]]:
    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.envs.tau2.tasks import call_tool, start_task

    times = defaultdict(list)
    for domain in DOMAINS:
        env = gym.make("Tau2-v0", domain=domain, tasks="official", data_dir=str(data), split="full"
                       if domain == "telecom" else None).unwrapped
        for task, actions in calls_of(data, domain):
            start_task(env.world, env.task_data.initial_state, env.task_data.tasks[task["id"]])
            for action in actions:
                start = time.perf_counter()
                call_tool(env.world, action.get("requestor", "assistant"), action["name"], action["arguments"], True)
                times[f"{domain}/all"].append(time.perf_counter() - start)
        if domain == "airline":
            start_task(env.world, env.task_data.initial_state, env.task_data.tasks[env.task_ids()[0]])
            for call in searches(data):
                start = time.perf_counter()
                call_tool(env.world, "assistant", call["name"], call["arguments"], True)
                times[f"airline/{call['name']}"].append(time.perf_counter() - start)
    return times


def tau2_side(data: Path) -> dict[str, list[float]]:
    from tau2.data_model.message import ToolCall
    from tau2.data_model.tasks import Task
    from tau2.registry import registry

    times = defaultdict(list)
    for domain in DOMAINS:
        make_environment = registry.get_env_constructor(domain)
        for task, actions in calls_of(data, domain):
            env = make_environment()
            state = Task.model_validate(task).initial_state
            if state is not None:
                env.set_state(state.initialization_data, state.initialization_actions, state.message_history or [])
            for action in actions:
                call = ToolCall(name=action["name"], arguments=action["arguments"],
                                requestor=action.get("requestor", "assistant"))
                start = time.perf_counter()
                env.get_response(call)
                times[f"{domain}/all"].append(time.perf_counter() - start)
        if domain == "airline":
            env = make_environment()
            for call in searches(data):
                start = time.perf_counter()
                env.get_response(ToolCall(name=call["name"], arguments=call["arguments"]))
                times[f"airline/{call['name']}"].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=("toolgym", "tau2"), default="toolgym")
    parser.add_argument("--data", type=Path, required=True, help="the data root holding tau2bench/")
    args = parser.parse_args()
    times = (tau2_side if args.side == "tau2" else toolgym_side)(args.data)
    for name, values in times.items():
        print(f"{args.side:8} {name:36} calls {len(values):5}  mean {1000 * statistics.mean(values):7.3f} ms  "
              f"median {1000 * statistics.median(values):7.3f} ms")


if __name__ == "__main__":
    main()
