"""Tau2-v0's tool outputs against τ²-bench's own, call by call, on ground-truth calls and perturbed ones.

For each official task of airline and retail (every task) each ground-truth action is made from
the state its earlier actions leave, in perturbed forms: its last argument dropped, an unknown
argument added, each integer as a float and as text, each id with a character added, each list
of objects with an unknown key in every item and with a key missing, each list of ids with its
first id twice. Each side writes the text the agent reads for every call; ``--compare`` counts
the equal ones and shows the first differences::

    PYTHONPATH=. python benchmarks/compare_tau2_tools.py --data ../shared/data --out /tmp/toolgym.json
    TAU2_DATA_DIR=../shared/data/tau2bench PYTHONPATH=/tmp/tau2src/src /tmp/tau2venv/bin/python \\
        benchmarks/compare_tau2_tools.py --side tau2 --data ../shared/data --out /tmp/tau2.json
    python benchmarks/compare_tau2_tools.py --compare /tmp/toolgym.json /tmp/tau2.json

The τ² side runs in a throwaway virtual environment (see benchmarks/tau2_openai_schemas.py).
Measured (tau2-bench a2c0247, 2026-11-28): 2458 of 2458 perturbed calls give the same text
(airline 595, retail 1863); benchmarks/tau2_tool_outputs.py pins the unperturbed ones.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

DOMAINS = ("airline", "retail")


def perturbations(arguments: dict) -> list[tuple[str, dict]]:
    """(name, arguments) of each perturbed form of a call's arguments."""
    out = []
    if arguments:
        last = list(arguments)[-1]
        out.append(("drop", {k: v for k, v in arguments.items() if k != last}))
    out.append(("extra", {**arguments, "note": "x"}))
    for key, value in arguments.items():
        if isinstance(value, int) and not isinstance(value, bool):
            out += [(f"float:{key}", {**arguments, key: float(value)}), (f"str:{key}", {**arguments, key: str(value)})]
        if isinstance(value, str) and key.endswith("_id"):
            out.append((f"badid:{key}", {**arguments, key: value + "X"}))
        if isinstance(value, list) and value and isinstance(value[0], dict):
            first = next(iter(value[0]))
            out += [(f"itemextra:{key}", {**arguments, key: [{**item, "seat": "1A"} for item in value]}),
                    (f"itemmissing:{key}", {**arguments, key: [{k: v for k, v in item.items() if k != first}
                                                               for item in value]})]
        if isinstance(value, list) and value and isinstance(value[0], str):
            out.append((f"listone:{key}", {**arguments, key: value[:1] * 2}))
    return out


def tasks_of(data: Path, domain: str) -> dict[str, dict]:
    path = data / "tau2bench" / "tau2" / "domains" / domain / "tasks.json"
    return {task["id"]: task for task in json.loads(path.read_text())}


def toolgym_side(data: Path) -> dict[str, str]:
    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.envs.common.actions import ToolCall

    out = {}
    for domain in DOMAINS:
        env = gym.make("Tau2-v0", domain=domain, tasks="official", data_dir=str(data)).unwrapped
        for task_id, task in tasks_of(data, domain).items():
            actions = (task.get("evaluation_criteria") or {}).get("actions") or []
            for i, action in enumerate(actions):
                for name, arguments in perturbations(action["arguments"]):
                    env.reset(options={"task_id": task_id})
                    for earlier in actions[:i]:
                        env._call(ToolCall(earlier["name"], earlier["arguments"]))
                    out[f"{domain}/{task_id}/{i}/{name}"] = env._call(ToolCall(action["name"], arguments))
    return out


def tau2_side(data: Path) -> dict[str, str]:
    from tau2.data_model.message import ToolCall
    from tau2.data_model.tasks import Task
    from tau2.registry import registry

    out = {}
    for domain in DOMAINS:
        for task_id, raw in tasks_of(data, domain).items():
            task = Task.model_validate(raw)
            actions = (raw.get("evaluation_criteria") or {}).get("actions") or []
            for i, action in enumerate(actions):
                for name, arguments in perturbations(action["arguments"]):
                    env = registry.get_env_constructor(domain)()
                    state = task.initial_state
                    if state is not None:
                        env.set_state(state.initialization_data, state.initialization_actions,
                                      state.message_history or [])
                    for earlier in actions[:i]:
                        env.get_response(ToolCall(name=earlier["name"], arguments=earlier["arguments"]))
                    out[f"{domain}/{task_id}/{i}/{name}"] = env.get_response(
                        ToolCall(name=action["name"], arguments=arguments)).content
    return out


def compare(ours: Path, theirs: Path) -> None:
    a, b = json.loads(ours.read_text()), json.loads(theirs.read_text())
    total, differ = Counter(), []
    for key, text in b.items():
        total[key.split("/")[0]] += 1
        if a.get(key) != text:
            differ.append(key)
    print(f"{sum(total.values()) - len(differ)} of {sum(total.values())} calls give τ²'s text ({dict(total)})")
    for key in differ[:10]:
        print(f"{key}\n  toolgym: {str(a.get(key))[:300]}\n  tau2:    {b[key][:300]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=("toolgym", "tau2"), default="toolgym")
    parser.add_argument("--data", type=Path, help="the data root holding tau2bench/")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("TOOLGYM", "TAU2"))
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    outputs = (tau2_side if args.side == "tau2" else toolgym_side)(args.data)
    args.out.write_text(json.dumps(outputs), encoding="utf-8")


if __name__ == "__main__":
    main()
