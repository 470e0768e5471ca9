"""Tau2-v0's grades against τ²-bench's own evaluator, episode by episode, on the official tasks.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/sierra-research/tau2-bench. Its ``src/`` is put on ``sys.path`` and its
``evaluate_simulation`` (environment, action and communicate evaluators; NL assertions left
out of every task's reward basis, since they need an LLM judge) grades the trajectories toolgym
produced; nothing of it is reimplemented here. Run it in a separate virtual environment holding
τ²-bench's imports (pydantic, loguru, toml, deepdiff, addict, pandas, litellm, ...) and toolgym,
never the project's.

For each official task of airline, retail and telecom (``tasks_small.json``) toolgym plays the
ground-truth script (every ground-truth call, then one message with every fact to communicate,
then ``###STOP###``; telecom's user actions are asked of the scripted user) and perturbations of
it:

- ``oracle``: the script as is;
- ``drop_write``: the first call of a write tool left out;
- ``change_arg``: one argument of the first write call changed (numbers +1, booleans flipped,
  strings suffixed, lists cut to their first item);
- ``silent``: the final message without the facts to communicate;
- ``extra_write``: the first write call made a second time, with an argument changed, before the
  final message;
- ``early_end``: ``###STOP###`` after the first call, the rest of the script not played;
- ``truncated``: ``max_steps`` = 1, so the episode ends by MAX_STEPS.

Each episode's ``info["trajectory"]`` becomes τ²'s messages (``AssistantMessage``,
``UserMessage``, ``ToolMessage`` with the same call ids) in a ``SimulationRun`` whose termination
reason is toolgym's; τ²'s evaluator replays it against its own domain environment, built from the
same data (airline's ``db.json`` is assembled from τ-bench v1's three tables, as toolgym does).
Agreement is counted on the reward (τ²'s without NL assertions against toolgym's
``reward_without_judge``) and on each component: DB, ACTION, COMMUNICATE, ENV_ASSERTION (τ²'s
value whether or not it is in the task's basis). A replay that τ²'s strict mode rejects (a
mutating call whose recorded result differs from what τ²'s tool returns) is counted, then graded
with ``strict_replay=False``.

Measured (tau2-bench a2c0247, 2026-11): 987 episodes (airline 227, retail 688, telecom 72), every
graded item agreeing, 4279 of 4279 (reward and each component, every perturbation). Before the
fixes this script led to, the grades agreed as well, but τ²'s strict replay rejected most write
results (orders, reservations without their null fields; airline users without ``user_id``;
telecom's numbers as text). What is left: 36 airline replays rejected in strict mode, all of
them a call with an invalid enum argument (``cabin="economyx"``), whose error text differs
(toolgym checks arguments against the schema first; τ² fails inside its tool); the state is
unchanged either way.

Run (a separate venv, as above):
    TAU2_SRC=/tmp/tau2-src /tmp/tau2venv/bin/python benchmarks/compare_tau2.py --original /tmp/tau2-src \\
        [--data-dir ../shared/data] [--domains airline retail telecom] [--show 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import gymnasium as gym

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.tau2.env import USER_ACTION_PREFIX
from toolgym.envs.tau2.tasks import AIRLINE_V1
from toolgym.envs.users import STOP

PERTURBATIONS = ("oracle", "drop_write", "change_arg", "silent", "extra_write", "early_end", "truncated")
COMPONENTS = ("reward", "db", "action", "communicate", "env_assertion")
TERMINATIONS = {"user_stop": "USER_STOP", "agent_stop": "AGENT_STOP", "max_steps": "MAX_STEPS",
                "too_many_errors": "TOO_MANY_ERRORS"}


def tau2_data_dir(data_dir: Path, domains) -> Path:
    """A ``TAU2_DATA_DIR`` laid out as τ²-bench reads it; airline's ``db.json`` from v1's tables."""
    root = Path(tempfile.mkdtemp(prefix="tau2data-"))
    for domain in domains:
        source = data_dir / "tau2bench" / "tau2" / "domains" / domain
        target = root / "tau2" / "domains" / domain
        shutil.copytree(source, target)
        if domain == "airline":
            tables = {t: json.loads((data_dir / "tau2bench" / AIRLINE_V1 / f"{t}.json").read_text())
                      for t in ("flights", "users", "reservations")}
            for user_id, user in tables["users"].items():  # τ²'s User record holds its own id
                user.setdefault("user_id", user_id)
            (target / "db.json").write_text(json.dumps(tables))
        if domain == "telecom":  # τ²'s registry reads tasks.json; the comparison uses tasks_small.json
            shutil.copy(target / "tasks_small.json", target / "tasks.json")
    return root


# -- playing toolgym ------------------------------------------------------------------------------
def script_of(task: dict) -> list:
    """The ground-truth script: agent calls as dicts, user calls as requests to the user, then the
    message with the facts and ###STOP###."""
    criteria = task.get("evaluation_criteria") or {}
    script = []
    for action in criteria.get("actions") or ():
        call = {"name": action["name"], "arguments": copy.deepcopy(action.get("arguments") or {})}
        script.append(f"{USER_ACTION_PREFIX} {json.dumps(call)}" if action.get("requestor") == "user" else call)
    infos = criteria.get("communicate_info") or []
    script += [("Done. " + "; ".join(infos)) if infos else "Done. Is there anything else?", STOP]
    return script


def changed(call: dict) -> dict | None:
    """``call`` with one argument changed, or None when it has none to change."""
    call = copy.deepcopy(call)
    for key, value in sorted(call["arguments"].items()):
        if isinstance(value, bool):
            call["arguments"][key] = not value
        elif isinstance(value, (int, float)):
            call["arguments"][key] = value + 1
        elif isinstance(value, str):
            call["arguments"][key] = value + "x"
        elif isinstance(value, list) and len(value) > 1:
            call["arguments"][key] = value[:1]
        else:
            continue
        return call
    return None


def perturb(script: list, kind: str, is_write) -> list | None:
    """The script under perturbation ``kind``, or None when the task has nothing it applies to."""
    writes = [i for i, item in enumerate(script) if isinstance(item, dict) and is_write(item["name"])]
    if kind == "oracle" or kind == "truncated":
        return script
    if kind == "drop_write":
        return script[:writes[0]] + script[writes[0] + 1:] if writes else None
    if kind == "change_arg":
        new = changed(script[writes[0]]) if writes else None
        return script[:writes[0]] + [new] + script[writes[0] + 1:] if new else None
    if kind == "silent":
        return script[:-2] + ["Done.", STOP] if script[-2] != "Done. Is there anything else?" else None
    if kind == "extra_write":
        new = changed(script[writes[0]]) if writes else None
        return script[:-2] + [new] + script[-2:] if new else None
    if kind == "early_end":
        return script[:1] + [STOP] if len(script) > 2 else None
    raise ValueError(kind)


def play(env, task_id: str, script: list) -> dict:
    env.reset(options={"task_id": task_id})
    for action in script:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info
    raise RuntimeError(f"task {task_id}: the episode did not end")


# -- τ²'s side ------------------------------------------------------------------------------------
def to_tau2_messages(trajectory: list[dict], tau2):
    """toolgym's ``info["trajectory"]`` as τ²-bench's message objects."""
    messages = []
    for m in trajectory:
        if m["role"] == "tool":
            content = m.get("content")
            messages.append(tau2.ToolMessage(id=m["tool_call_id"], role="tool", content=content,
                                             requestor=m.get("requestor", "assistant"),
                                             error=isinstance(content, str) and content.startswith("Error:")))
            continue
        calls = None
        if m.get("tool_calls"):
            calls = [tau2.ToolCall(id=c["id"], name=c["function"]["name"],
                                   arguments=_arguments(c["function"]["arguments"]), requestor=m["role"])
                     for c in m["tool_calls"]]
        cls = tau2.AssistantMessage if m["role"] == "assistant" else tau2.UserMessage
        messages.append(cls(role=m["role"], content=m.get("content"), tool_calls=calls))
    return messages


def _arguments(arguments):
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    return arguments if isinstance(arguments, dict) else {}


def tau2_grade(tau2, domain: str, task: dict, info: dict) -> tuple[dict, bool]:
    """τ²'s reward (NL assertions out of the basis) and components; whether strict replay held."""
    task = copy.deepcopy(task)
    criteria = task.get("evaluation_criteria")
    if criteria is not None:
        basis = [b for b in (criteria.get("reward_basis") or ["DB", "COMMUNICATE"]) if b != "NL_ASSERTION"]
        criteria["reward_basis"] = basis
        criteria["nl_assertions"] = None
    tau2_task = tau2.Task.model_validate(task)
    simulation = tau2.SimulationRun(
        id="compare", task_id=str(task["id"]), start_time="", end_time="", duration=0.0,
        termination_reason=tau2.TerminationReason[TERMINATIONS[info["metrics"]["termination"]]],
        messages=to_tau2_messages(info["trajectory"], tau2))
    strict = True
    try:
        result = tau2.evaluate_simulation(simulation, tau2_task, tau2.EvaluationType.ALL, solo_mode=False,
                                          domain=tau2.DOMAIN_NAMES[domain])
    except ValueError as error:
        if os.environ.get("COMPARE_TAU2_DEBUG"):
            print("STRICT", domain, task["id"], str(error))
        strict = False
        result = tau2.evaluate_simulation(simulation, tau2_task, tau2.EvaluationType.ALL, solo_mode=False,
                                          domain=tau2.DOMAIN_NAMES[domain], strict_replay=False)
    grades = {"reward": float(result.reward), "db": None, "action": None, "communicate": None,
              "env_assertion": None}
    if result.db_check is not None:
        grades["db"] = float(result.db_check.db_reward)
    if result.env_assertions is not None:
        grades["env_assertion"] = float(all(c.met for c in result.env_assertions))
    if result.action_checks is not None:
        grades["action"] = float(all(c.action_match for c in result.action_checks))
    elif result.reward_basis is not None:
        grades["action"] = 1.0  # no gold action: τ² notes it and scores 1
    if result.communicate_checks is not None:
        grades["communicate"] = float(all(c.met for c in result.communicate_checks))
    elif result.reward_basis is not None:
        grades["communicate"] = 1.0
    return grades, strict


def load_tau2(original: Path, data_root: Path):
    os.environ["TAU2_DATA_DIR"] = str(data_root)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm fetches a price list at import
    sys.path.insert(0, str(original / "src"))
    from loguru import logger
    logger.remove()  # τ² logs every replayed call and every failed gold action
    from tau2.data_model.message import (
        AssistantMessage,
        ToolCall,
        ToolMessage,
        UserMessage,
    )
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import Task
    from tau2.environment.db import DB
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    DB.load = classmethod(_cached_load(DB.load.__func__))
    namespace = dict(AssistantMessage=AssistantMessage, ToolCall=ToolCall, ToolMessage=ToolMessage,
                     UserMessage=UserMessage, SimulationRun=SimulationRun, TerminationReason=TerminationReason,
                     Task=Task, EvaluationType=EvaluationType, evaluate_simulation=evaluate_simulation,
                     DOMAIN_NAMES={"airline": "airline", "retail": "retail", "telecom": "telecom"})
    return type("Tau2", (), namespace)


def _cached_load(load):
    """τ²'s ``DB.load``, reading each database file once: the evaluator builds three environments
    per episode, each from the file; the database parsed again from its JSON is the same start."""
    texts = {}

    def cached(cls, path):
        if (cls, str(path)) not in texts:
            texts[cls, str(path)] = load(cls, path).model_dump_json()
        return cls.model_validate_json(texts[cls, str(path)])
    return cached


def toolgym_grade(metrics: dict) -> dict:
    basis = metrics.get("basis") or []
    grades = {"reward": float(metrics["reward_without_judge"])}
    for name in COMPONENTS[1:]:
        grades[name] = metrics.get(name)
    if metrics["termination"] not in ("user_stop", "agent_stop") or not basis:
        grades.update({name: None for name in COMPONENTS[1:]})
    return grades


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--original", type=Path, required=True, help="a tau2-bench checkout (holding src/tau2)")
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--domains", nargs="+", default=["airline", "retail", "telecom"])
    parser.add_argument("--perturbations", nargs="+", default=list(PERTURBATIONS))
    parser.add_argument("--show", type=int, default=5, help="disagreements printed per domain")
    args = parser.parse_args(argv)
    tau2 = load_tau2(args.original.resolve(), tau2_data_dir(args.data_dir, args.domains))
    total_ok = total = 0
    for domain in args.domains:
        agree: dict[str, Counter] = defaultdict(Counter)
        shown = 0
        non_strict = episodes = 0
        for kind in args.perturbations:
            env = gym.make("Tau2-v0", domain=domain, tasks="official", data_dir=str(args.data_dir),
                           **({"max_steps": 1} if kind == "truncated" else {})).unwrapped
            is_write = lambda name, env=env: name in env.toolkit.specs and env.toolkit.specs[name].is_action
            for task_id in env.task_ids():
                task = env.task_data.tasks[task_id]
                script = perturb(script_of(task), kind, is_write)
                if script is None:
                    continue
                info = play(env, task_id, script)
                ours = toolgym_grade(info["metrics"])
                theirs, strict = tau2_grade(tau2, domain, task, info)
                episodes += 1
                non_strict += not strict
                differs = []
                for name in COMPONENTS:
                    if ours[name] is None or theirs[name] is None:
                        if name == "reward":
                            raise AssertionError("reward is always graded")
                        continue
                    same = ours[name] == theirs[name]
                    agree[kind][name, same] += 1
                    if not same:
                        differs.append(name)
                if differs and shown < args.show:
                    shown += 1
                    print(f"  {domain} {kind} task {task_id}: {differs} toolgym={ours} tau2={theirs}")
        print(f"{domain}: {episodes} episodes, {non_strict} replays rejected by τ²'s strict mode")
        print(f"  {'perturbation':<12} " + " ".join(f"{c:>14}" for c in COMPONENTS))
        for kind in args.perturbations:
            cells = []
            for name in COMPONENTS:
                ok, bad = agree[kind][name, True], agree[kind][name, False]
                cells.append(f"{ok:>5}/{ok + bad:<5}" if ok + bad else f"{'-':>11}")
                total_ok += ok
                total += ok + bad
            print(f"  {kind:<12} " + " ".join(f"{c:>14}" for c in cells), flush=True)
    print(f"agreement: {total_ok}/{total} graded items", flush=True)
    return 0 if total_ok == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
