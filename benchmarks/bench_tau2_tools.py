"""CPU per tool call: Tau2-v0 against τ²-bench's own ``Environment``, on the same calls, side by side.

The calls are the ground-truth actions of the official tasks (base split),
each task's made from its starting state, then ``search_direct_flight`` and
``search_onestop_flight`` on 40 airline routes of five days, in episodes of 15 calls from the
first task's start. Each side makes every agent call as an episode makes it: toolgym through
``env.step`` (reading the action, the call, the sync, the messages and ``info``), τ² as its
orchestrator does (``Environment.get_response``: the call, the sync, the ``ToolMessage``). A call
of the user's (telecom) is made on both sides between the timed calls, untimed.

τ² (Python 3.12, its own virtual environment) and toolgym cannot share a process, so the script
runs each side in a process of its own, started once, and asks them for a round of all the calls
in turn, alternating which goes first; the CPU time of each call (``time.process_time_ns``) is the
least of ``--rounds`` rounds, and the medians and their ratio are printed, per domain and per tool::

    PYTHONPATH=. python benchmarks/bench_tau2_tools.py --data ../shared/data \\
        --tau2-python /tmp/tau2venv/bin/python --tau2-src /tmp/tau2src/src

``--tau2-src`` holds τ²'s ``tau2`` package (a2c0247); its data is read from ``--data``;
``--domains telecom`` times one domain. τ²'s
logging (loguru) is switched off on its side, which makes τ² faster than in its own runs (there,
``get_response`` logs every response at DEBUG). toolgym never imports τ².
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

DOMAINS = ("airline", "retail", "telecom")
EPISODE_CALLS = 15
DAYS = ("2024-05-16", "2024-05-17", "2024-05-18", "2024-05-19", "2024-05-20")


def tasks_of(data: Path, domain: str) -> list[dict]:
    """The domain's tasks of the base split, in file order."""
    folder = data / "tau2bench" / "tau2" / "domains" / domain
    base = set(json.loads((folder / "split_tasks.json").read_text())["base"])
    return [t for t in json.loads((folder / "tasks.json").read_text()) if t["id"] in base]


def plan(data: Path, domain: str) -> list[tuple[dict, list[dict]]]:
    """(task, the calls made from its start): each task's ground truth, then airline's searches in
    episodes of :data:`EPISODE_CALLS` calls from the first task's start."""
    tasks = tasks_of(data, domain)
    episodes = [(task, [{"name": a["name"], "arguments": a["arguments"], "requestor": a.get("requestor", "assistant")}
                        for a in (task.get("evaluation_criteria") or {}).get("actions") or ()]) for task in tasks]
    if domain == "airline":
        flights = json.loads((data / "tau2bench" / "tau2" / "domains" / "airline" / "db.json").read_text())["flights"]
        routes = sorted({(f["origin"], f["destination"]) for f in flights.values()})[:40]
        searches = [{"name": name, "arguments": {"origin": o, "destination": d, "date": day},
                     "requestor": "assistant"}
                    for name, (o, d), day in itertools.product(("search_direct_flight", "search_onestop_flight"),
                                                               routes, DAYS)]
        episodes += [(tasks[0], searches[i:i + EPISODE_CALLS]) for i in range(0, len(searches), EPISODE_CALLS)]
    return episodes


def toolgym_round(data: Path, domains: tuple[str, ...]):
    """A function making one round of ``domains``' calls on toolgym's side: [(domain, tool, ns)]."""
    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.envs.tau2.tasks import call_tool

    envs = {domain: gym.make("Tau2-v0", domain=domain, tasks="official", data_dir=str(data),
                             split="full" if domain == "telecom" else None, max_steps=10**6,
                             max_errors=10**6).unwrapped for domain in domains}
    plans = {domain: plan(data, domain) for domain in domains}

    def one_round():
        out = []
        for domain, env in envs.items():
            for task, calls in plans[domain]:
                env.reset(options={"task_id": task["id"]}, seed=0)
                for call in calls:
                    arguments = copy.deepcopy(call["arguments"])
                    if call["requestor"] == "user":
                        call_tool(env.world, "user", call["name"], arguments, sync=True)
                        continue
                    action = {"name": call["name"], "arguments": arguments}
                    start = time.process_time_ns()
                    env.step(action)
                    out.append((domain, call["name"], time.process_time_ns() - start))
        return out

    return one_round


def tau2_round(data: Path, domains: tuple[str, ...]):
    """A function making one round of ``domains``' calls on τ²'s side: [(domain, tool, ns)]."""
    from loguru import logger
    logger.remove()
    from tau2.data_model.message import ToolCall
    from tau2.data_model.tasks import Task
    from tau2.registry import registry

    plans = {domain: [(Task.model_validate(task), calls) for task, calls in plan(data, domain)]
             for domain in domains}

    def one_round():
        out = []
        for domain in domains:
            make_environment = registry.get_env_constructor(domain)
            for task, calls in plans[domain]:
                env = make_environment()  # τ²'s start of a simulation: a new environment, the task's state
                state = task.initial_state
                if state is not None:
                    env.set_state(state.initialization_data, state.initialization_actions,
                                  state.message_history or [])
                for i, call in enumerate(calls):
                    tool_call = ToolCall(id=f"call_{i}", name=call["name"], arguments=copy.deepcopy(call["arguments"]),
                                         requestor=call["requestor"])
                    if call["requestor"] == "user":
                        env.get_response(tool_call)
                        continue
                    start = time.process_time_ns()
                    env.get_response(tool_call)
                    out.append((domain, call["name"], time.process_time_ns() - start))
        return out

    return one_round


def worker(side: str, data: Path, domains: tuple[str, ...]) -> None:
    """Answer each line on stdin with one round's times, as one JSON line."""
    one_round = (tau2_round if side == "tau2" else toolgym_round)(data, domains)
    for _ in sys.stdin:
        print(json.dumps(one_round()), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the data root holding tau2bench/")
    parser.add_argument("--tau2-python", default="/tmp/tau2venv/bin/python", help="a Python that has τ²'s dependencies")
    parser.add_argument("--tau2-src", type=Path, default=Path("/tmp/tau2src/src"), help="the folder holding τ²'s tau2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--domains", nargs="+", choices=DOMAINS, default=list(DOMAINS), help="the domains timed")
    parser.add_argument("--side", choices=("toolgym", "tau2"), help=argparse.SUPPRESS)  # a worker's side
    args = parser.parse_args()
    if args.side:
        return worker(args.side, args.data, tuple(args.domains))
    script, data = str(Path(__file__).resolve()), str(args.data.resolve())
    domains = ["--domains", *args.domains]
    tau2_env = {**os.environ, "PYTHONPATH": str(args.tau2_src), "TAU2_DATA_DIR": str(Path(data) / "tau2bench")}
    workers = {"toolgym": subprocess.Popen([sys.executable, script, "--side", "toolgym", "--data", data, *domains],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
               "tau2": subprocess.Popen([args.tau2_python, script, "--side", "tau2", "--data", data, *domains], env=tau2_env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)}
    best: dict[str, list] = {}
    try:
        for round_number in range(args.rounds):
            for side in (("toolgym", "tau2") if round_number % 2 == 0 else ("tau2", "toolgym")):
                workers[side].stdin.write("go\n")
                workers[side].stdin.flush()
                times = json.loads(workers[side].stdout.readline())
                best[side] = times if side not in best else [
                    min(kept, new, key=lambda t: t[2]) for kept, new in zip(best[side], times)]
    finally:
        for process in workers.values():
            process.stdin.close()
            process.wait()
    calls = defaultdict(lambda: defaultdict(list))
    for side, times in best.items():
        for domain, name, ns in times:
            calls[domain][side].append(ns / 1e6)
            calls[f"{domain}/{name}"][side].append(ns / 1e6)
    for key, sides in calls.items():
        ours, theirs = statistics.median(sides["toolgym"]), statistics.median(sides["tau2"])
        label = f"{key}: {len(sides['tau2'])} calls, median CPU ms per call:" if "/" not in key \
            else f"  {key.split('/')[1]:32s} {len(sides['tau2']):5d} calls "
        print(f"{label} τ² {theirs:.4f}  toolgym {ours:.4f}  ratio {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
