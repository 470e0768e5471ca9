"""Tau2-v0's banking_knowledge against τ³-bench's own environment and evaluator, call by call.

τ³ is not a dependency: it runs in its own virtual environment (``--tau2-python``, default
``/tmp/tau2venv/bin/python``, with tau2-bench a2c0247 installed), in a child process that reads
the episodes toolgym played as JSON and answers with what τ³'s code makes of them; nothing of τ³ is
reimplemented here. For each official task toolgym plays the ground-truth script (each
ground-truth call, the customer's through the scripted user, then one closing message and
``###STOP###``) and perturbations of it:

- ``oracle``: the script as is;
- ``drop_write``: the first call of a write tool left out;
- ``change_arg``: one argument of the first write call changed (inside the JSON ``arguments`` of
  the discoverable-tool calls: numbers +1, booleans flipped, texts suffixed);
- ``extra_write``: that changed call made as well, before the closing message;
- ``no_unlock``: the first ``unlock_discoverable_agent_tool`` left out (the call after it is refused);
- ``extra_read``: a read-only discoverable tool the task does not call, unlocked and called first
  (τ³ logs only the reads its ground truth makes);
- ``early_end``: ``###STOP###`` after the first call;
- ``search``: each of the config's retrieval tools (``KB_search``, ``grep``, ``shell``) called first
  with words of the task's scenario (none under ``no_knowledge``).

τ³'s side builds ``get_environment(retrieval_variant=..., read_log_allowlist=...)`` for the task,
applies its initial state, runs every call of the episode in order through
``Environment.get_response`` (the agent's and the customer's), and grades the episode with
``evaluate_simulation`` (strict replay). Compared: each tool message's text and error flag, the
final database (τ³'s ``TransactionalDB.model_dump()`` against toolgym's ``dump_bank_db()``: equal
dumps are equal hashes), the reward, and the DB, ACTION and COMMUNICATE components; for the oracle
episodes also the system prompt and the agent's and the customer's tools as τ³ offers them. A KB
search's ``[Timing: ...]`` milliseconds are not compared. ``terminal_use`` and ``alltools`` cannot
be compared here: τ³'s shell needs Anthropic's sandbox runtime.

Run:
    PYTHONPATH=$PWD .venv/bin/python benchmarks/compare_banking_knowledge.py \\
        [--data-dir ../shared/data] [--tau2-python /tmp/tau2venv/bin/python] [--config no_knowledge] [--show 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import gymnasium as gym

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.tau2.env import USER_ACTION_PREFIX
from toolgym.envs.tau2.protocol import tools as protocol_tools
from toolgym.envs.users import STOP

PERTURBATIONS = ("oracle", "drop_write", "change_arg", "extra_write", "no_unlock", "extra_read", "early_end",
                 "search")
#: ``search``: each retrieval tool of the config called first, with words of the task's scenario.
SEARCHES = {"KB_search": lambda words: {"query": words}, "KB_search_bm25": lambda words: {"query": words},
            "grep": lambda words: {"pattern": words.split()[0]}, "shell": lambda words: {"command": "ls | head -5"}}
COMPONENTS = ("reward", "db", "action", "communicate")
DOMAIN = "tau2/domains/banking_knowledge"
#: The milliseconds of a KB search's ``[Timing: ...]`` line (τ³ measures them; toolgym says 0).
TIMING = re.compile(r"=[0-9]+ms")
#: A read-only discoverable tool and its arguments for ``extra_read``.
EXTRA_READ = ("get_debit_dispute_status_7483", {"user_id": "01f21c9970"})

TAU2_SIDE = r'''
import json, sys
from loguru import logger
logger.remove()
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task
from tau2.domains.banking_knowledge.environment import get_environment
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.runner.build import _derive_read_log_allowlist

def messages_of(trajectory):
    out = []
    for m in trajectory:
        if m["role"] == "tool":
            out.append(ToolMessage(id=m["tool_call_id"], role="tool", content=m["content"],
                                   requestor=m.get("requestor", "assistant"), error=m["error"]))
            continue
        calls = [ToolCall(id=c["id"], name=c["function"]["name"], arguments=json.loads(c["function"]["arguments"]),
                          requestor=m["role"]) for c in m.get("tool_calls") or []] or None
        cls = AssistantMessage if m["role"] == "assistant" else UserMessage
        out.append(cls(role=m["role"], content=m.get("content"), tool_calls=calls))
    return out

results = []
for episode in json.load(sys.stdin):
    task = Task.model_validate(episode["task"])
    kwargs = {"retrieval_variant": episode["config"], "read_log_allowlist": _derive_read_log_allowlist(task)}
    env = get_environment(**kwargs)
    init = task.initial_state.initialization_data if task.initial_state else None
    env.set_state(initialization_data=init, initialization_actions=None, message_history=[])
    outputs = []
    messages = messages_of(episode["trajectory"])
    for message in messages:
        for call in (message.tool_calls or []) if not isinstance(message, ToolMessage) else []:
            response = env.get_response(call)
            outputs.append([response.content, response.error])
    simulation = SimulationRun(id="compare", task_id=task.id, start_time="", end_time="", duration=0.0,
                               termination_reason=TerminationReason[episode["termination"]], messages=messages)
    try:
        grade = evaluate_simulation(simulation, task, EvaluationType.ALL, solo_mode=False,
                                    domain="banking_knowledge", env_kwargs=kwargs)
        strict = True
    except ValueError:
        grade = evaluate_simulation(simulation, task, EvaluationType.ALL, solo_mode=False,
                                    domain="banking_knowledge", env_kwargs=kwargs, strict_replay=False)
        strict = False
    grades = {"reward": float(grade.reward), "db": None, "action": None, "communicate": None}
    if grade.db_check is not None:
        grades["db"] = float(grade.db_check.db_reward)
    if grade.action_checks is not None:
        grades["action"] = float(all(c.action_match for c in grade.action_checks))
    if grade.communicate_checks is not None:
        grades["communicate"] = float(all(c.met for c in grade.communicate_checks))
    result = {"outputs": outputs, "db": env.tools.db.model_dump(), "grades": grades, "strict": strict}
    if episode["check_prompt"]:  # what the agent is sent: the policy (per task) and the tools
        shown = get_environment(retrieval_variant=episode["config"], task=task)
        result["prompt"] = shown.get_policy()
        result["tools"] = [t.openai_schema for t in shown.get_tools()]
        result["user_tools"] = [t.openai_schema for t in shown.get_user_tools()]
    results.append(result)
json.dump(results, sys.stdout)
'''


def script_of(task: dict) -> list:
    """The ground-truth script: the agent's calls, the customer's as requests to the scripted user, then
    the closing message and ###STOP###."""
    script = []
    for action in (task.get("evaluation_criteria") or {}).get("actions") or ():
        call = {"name": action["name"], "arguments": copy.deepcopy(action.get("arguments") or {})}
        script.append(f"{USER_ACTION_PREFIX} {json.dumps(call)}" if action.get("requestor") == "user" else call)
    return script + ["Done. Is there anything else?", STOP]


def as_call(item) -> dict:
    return json.loads(item[len(USER_ACTION_PREFIX):]) if isinstance(item, str) else item


def changed_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return None


def changed(call: dict) -> dict | None:
    """``call`` with one argument changed (inside the JSON ``arguments`` of a discoverable call)."""
    call = copy.deepcopy(call)
    arguments = call["arguments"]
    if isinstance(arguments.get("arguments"), str):
        inner = json.loads(arguments["arguments"])
        for key in sorted(inner):
            new = changed_value(inner[key])
            if new is not None:
                inner[key] = new
                arguments["arguments"] = json.dumps(inner)
                return call
        return None
    for key in sorted(arguments):
        new = changed_value(arguments[key])
        if new is not None:
            arguments[key] = new
            return call
    return None


def searches(task: dict, tools: set[str]) -> list[dict]:
    """Calls of the config's retrieval tools with the first words of the task's scenario."""
    instructions = (task.get("user_scenario") or {}).get("instructions")
    text = instructions if isinstance(instructions, str) else json.dumps(instructions)
    words = " ".join(w for w in text.split() if w.isalpha() and len(w) > 3)[:80] or "account"
    return [{"name": name, "arguments": make(words)} for name, make in SEARCHES.items() if name in tools]


def perturb(script: list, kind: str, is_write) -> list | None:
    calls = [i for i, item in enumerate(script) if item not in ("Done. Is there anything else?", STOP)]
    writes = [i for i in calls if is_write(as_call(script[i]))]
    if kind == "oracle":
        return script
    if kind == "drop_write":
        return script[:writes[0]] + script[writes[0] + 1:] if writes else None
    if kind in ("change_arg", "extra_write"):
        new = changed(as_call(script[writes[0]])) if writes else None
        if new is None:
            return None
        if isinstance(script[writes[0]], str):
            new = f"{USER_ACTION_PREFIX} {json.dumps(new)}"
        if kind == "change_arg":
            return script[:writes[0]] + [new] + script[writes[0] + 1:]
        return script[:-2] + [new] + script[-2:]
    if kind == "no_unlock":
        unlocks = [i for i in calls if as_call(script[i])["name"] == "unlock_discoverable_agent_tool"]
        return script[:unlocks[0]] + script[unlocks[0] + 1:] if unlocks else None
    if kind == "extra_read":
        name, arguments = EXTRA_READ
        if any(name in json.dumps(as_call(script[i])) for i in calls):
            return None
        return [{"name": "unlock_discoverable_agent_tool", "arguments": {"agent_tool_name": name}},
                {"name": "call_discoverable_agent_tool",
                 "arguments": {"agent_tool_name": name, "arguments": json.dumps(arguments)}}] + script
    if kind == "early_end":
        return script[:1] + [STOP] if len(calls) > 1 else None
    raise ValueError(kind)


def is_write_of(env):
    def is_write(call: dict) -> bool:
        if call["name"] == "call_discoverable_agent_tool":
            spec = env.toolkit.discoverable_specs.get(call["arguments"].get("agent_tool_name"))
            return spec is not None and spec.is_action
        if call["name"] == "call_discoverable_user_tool":
            spec = env.world.user_tools.discoverable_specs.get(call["arguments"].get("discoverable_tool_name"))
            return spec is not None and spec.is_action
        specs = {**env.toolkit.specs, **env.world.user_tools.specs}
        return call["name"] in specs and specs[call["name"]].is_action and not call["name"].startswith(
            ("unlock_", "give_"))
    return is_write


def play(env, task_id: str, script: list) -> dict:
    env.reset(options={"task_id": task_id})
    for action in script:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info
    raise RuntimeError(f"task {task_id}: the episode did not end")


def episode_record(env, task: dict, info: dict, config: str) -> dict:
    trajectory = []
    for m in info["trajectory"]:
        m = dict(m)
        if m["role"] == "tool":
            m["error"] = False  # a tool that raised shows as an error text: τ³ flags those
        trajectory.append(m)
    termination = {"user_stop": "USER_STOP", "agent_stop": "AGENT_STOP"}.get(info["metrics"]["termination"],
                                                                            "MAX_STEPS")
    return {"task": task, "trajectory": trajectory, "termination": termination, "config": config,
            "check_prompt": False}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--tau2-python", default="/tmp/tau2venv/bin/python")
    parser.add_argument("--config", default="no_knowledge", help="the retrieval config of both sides")
    parser.add_argument("--perturbations", nargs="+", default=list(PERTURBATIONS))
    parser.add_argument("--show", type=int, default=5, help="disagreements printed")
    args = parser.parse_args(argv)
    env = gym.make("Tau2-v0", domain="banking_knowledge", tasks="official", data_dir=str(args.data_dir),
                   retrieval_config=args.config).unwrapped
    is_write = is_write_of(env)
    episodes, ours, prompts = [], [], []
    for kind in args.perturbations:
        for task_id in env.task_ids():
            task = env.task_data.tasks[task_id]
            script = perturb(script_of(task), kind, is_write) if kind != "search" else (
                searches(task, set(env.toolkit.specs)) + script_of(task))
            if kind == "search" and script == script_of(task):
                continue
            if script is None:
                continue
            info = play(env, task_id, script)
            episodes.append(episode_record(env, task, info, args.config))
            if kind == "oracle":
                episodes[-1]["check_prompt"] = True
                prompts.append((len(episodes) - 1, info["messages"][0]["content"], info.get("wire_tools")))
            ours.append((kind, task_id, info, env.world.dump_bank_db()))
    with tempfile.TemporaryDirectory() as root:  # τ³ reads its data from a folder laid out as its data/
        domain = Path(root) / DOMAIN
        domain.parent.mkdir(parents=True)
        domain.symlink_to((args.data_dir / "tau2bench" / DOMAIN).resolve())
        side = Path(root) / "tau2_side.py"
        side.write_text(TAU2_SIDE)
        answer = subprocess.run([args.tau2_python, str(side)], input=json.dumps(episodes), capture_output=True,
                                text=True, env={"TAU2_DATA_DIR": root, "PATH": "/usr/bin:/bin",
                                                "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    if answer.returncode != 0:  # e.g. terminal_use: τ³'s shell needs Anthropic's sandbox runtime
        print(f"τ³'s side failed under {args.config}:\n{answer.stderr[-2000:]}")
        return 2
    theirs = json.loads(answer.stdout)
    counts: dict[str, Counter] = {kind: Counter() for kind in args.perturbations}
    shown = 0
    for (kind, task_id, info, dump), episode, tau in zip(ours, episodes, theirs):
        tools = [m for m in episode["trajectory"] if m["role"] == "tool"]
        for m, output in zip(tools, tau["outputs"]):  # the KB search's measured time is not compared
            m["content"], output[0] = TIMING.sub("=0ms", m["content"]), TIMING.sub("=0ms", output[0])
        differs = [f"output {i}" for i, (m, (text, error)) in enumerate(zip(tools, tau["outputs"]))
                   if m["content"] != text or m["content"].startswith("Error:") and not error and
                   not text.startswith("Error:")]
        counts[kind]["outputs"] += len(tools)
        counts[kind]["outputs_same"] += len(tools) - len(differs)
        same_db = dump == tau["db"]
        counts[kind]["db_state", same_db] += 1
        if not same_db:
            differs.append("database")
        metrics = info["metrics"]
        mine = {"reward": float(metrics["reward_without_judge"]), "db": metrics.get("db"),
                "action": metrics.get("action"), "communicate": metrics.get("communicate")}
        for name in COMPONENTS:
            if name != "reward" and (name.upper() not in (metrics.get("basis") or []) or tau["grades"][name] is None):
                continue
            same = mine[name] == tau["grades"][name]
            counts[kind][name, same] += 1
            if not same:
                differs.append(name)
        counts[kind]["strict", tau["strict"]] += 1
        counts[kind]["failed"] += tau["grades"]["reward"] == 0.0
        if differs and shown < args.show:
            shown += 1
            print(f"  {kind} {task_id}: {differs} toolgym={mine} tau3={tau['grades']}")
            for i, (m, (text, _)) in enumerate(zip(tools, tau["outputs"])):
                if m["content"] != text:
                    at = next((j for j, (a, b) in enumerate(zip(m["content"], text)) if a != b),
                              min(len(m["content"]), len(text)))
                    print(f"    from character {at}: toolgym {m['content'][max(0, at - 40):at + 200]!r}\n"
                          f"    tau3    {text[max(0, at - 40):at + 200]!r}")
                    break
    total_ok = total = 0
    user_tools = protocol_tools("banking_knowledge", "user")
    for index, prompt, tools in prompts:
        checks = {"prompt": prompt == theirs[index]["prompt"], "tools": tools == theirs[index]["tools"],
                  "user tools": user_tools == theirs[index]["user_tools"]}
        for name, same in checks.items():
            counts.setdefault(name, Counter())[same] += 1
            total_ok += same
            total += 1
            if not same and shown < args.show:
                shown += 1
                print(f"  the {name} of {episodes[index]['task']['id']} differ")
    for name in ("prompt", "tools", "user tools"):
        if name in counts:
            print(f"{name} sent to the model: {counts.pop(name)[True]}/{len(prompts)} tasks the same")
    print(f"config {args.config}: {len(episodes)} episodes")
    print(f"  {'perturbation':<12} {'outputs':>11} {'database':>11} " + " ".join(f"{c:>11}" for c in COMPONENTS)
          + f" {'strict':>9} {'reward 0':>9}")
    for kind, c in counts.items():
        cells = [f"{c['outputs_same']}/{c['outputs']}", f"{c['db_state', True]}/{c['db_state', True] + c['db_state', False]}"]
        total_ok += c["outputs_same"] + c["db_state", True]
        total += c["outputs"] + c["db_state", True] + c["db_state", False]
        for name in COMPONENTS:
            ok, bad = c[name, True], c[name, False]
            cells.append(f"{ok}/{ok + bad}")
            total_ok += ok
            total += ok + bad
        cells.append(f"{c['strict', True]}/{c['strict', True] + c['strict', False]}")
        cells.append(str(c["failed"]))
        print(f"  {kind:<12} " + " ".join(f"{cell:>11}" for cell in cells))
    print(f"agreement: {total_ok}/{total} compared items")
    return 0 if total_ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
