"""``toolgym export``: a toolgym results file written as the original harness writes its results.

toolgym has one results format, the JSONL that ``eval --out`` writes; these are exports of it,
for the originals' own tools and leaderboards:

- ``tau2``: τ²-bench's results JSON (its ``Results`` model: ``info``, ``tasks``,
  ``simulations``), one file per domain, which ``tau2 view`` shows and ``tau2 evaluate-trajs``
  grades. The tasks are the official task records the run played; each simulation holds the
  episode's conversation as the env graded it (the record's ``conversation``: τ²'s messages,
  the user's own tool calls included), its ``termination_reason`` and a ``reward_info`` with
  toolgym's ``reward``, ``reward_basis``, ``reward_breakdown`` and ``db_check`` (τ²'s per-check
  lists are left out: toolgym's metrics keep the components, not each check). An episode that
  ended with an error is a simulation with termination ``infrastructure_error``, which τ²'s
  metrics leave out, as ``rescore`` does.
- ``tau-bench``: τ-bench's (v1) results list, ``{task_id, trial, reward, info, traj}`` per
  episode, ``traj`` the agent's messages (the policy as the system message, then the
  conversation without toolgym's greeting, which v1 does not have) and ``info`` the task,
  ``reward_info`` (``r_outputs`` and each output found for a task with outputs, else ``r_actions``
  with an empty ``gt_data_hash``: v1 hashes its own data, toolgym's hash is another).
  v1's ``task_id`` is the index in the run's split (``rescore --split`` reads other splits).
- ``bfcl``: BFCL's result files, ``result/<model>/<group>/BFCL_v4_<category>_result.json``
  (one line per entry: ``id`` and ``result``), in the form BFCL's handler for ``model``
  decodes: a function-calling model's (a name ending in ``-FC``) ``[{name: "<json arguments>"}]``
  per step, or the text where a step has no call; a prompting model's answer text (native calls
  written as ``[name(key=value)]`` with BFCL's function names: Python literals, Java and
  JavaScript values as their source text). Multi-turn results are a list of
  turns, each the list of its steps (a turn ends with a step that makes no call, as in BFCL's
  inference loop). Next to them, ``score/<model>/BFCL_v4_<category>_score.json`` (BFCL's
  score files: the accuracy line, then each failed entry) and ``score/<model>/data_overall.json``:
  the leaderboard's columns (:mod:`toolgym.envs.bfcl.leaderboard`, computed as ``bfcl evaluate``
  computes them; "N/A" where BFCL shows it).
  Memory categories (``agentic/memory/<backend>/``): each question entry's result is its one turn
  of steps, those of the question's chat (the episode's ``question_steps``; BFCL keeps the
  prerequisite conversations' results apart and grades only the question's last answer); records
  written before ``question_steps`` existed are left out.

Only official tasks are exported: the originals' tools grade against their own task files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from toolgym.envs.bfcl.leaderboard import category_counts, format_sensitivity_stats, leaderboard_columns
from toolgym.eval.rescore import FORMAT_ENVS, FORMATS, TAU2_COMPONENTS, call_arguments
from toolgym.eval.summary import bfcl_summary
from toolgym.eval.runner import read_results
from toolgym.registry import make_env

#: The BFCL model whose handler decodes the exported results when none is named: an OpenAI
#: function-calling entry (BFCL needs a name it knows; the folder may be renamed for a submission).
BFCL_DEFAULT_MODEL = "gpt-4.1-2025-04-14-FC"
BFCL_MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")


class _Function(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    arguments: str | dict[str, Any] = "{}"


class _Call(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = ""
    type: str = "function"
    function: _Function


class _Message(BaseModel):
    """A message of a record's ``conversation``, type-checked (a results file is untrusted input)."""

    model_config = ConfigDict(extra="ignore")
    role: str
    content: str | None = None
    tool_calls: list[_Call] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    requestor: str | None = None


def export_file(path: str | Path, file_format: str, out: str | Path, data_dir: str | None = None,
                bfcl_model: str | None = None) -> str:
    """Export the results file ``path`` as ``file_format`` into ``out``; a line saying what was written.

    Raises:
        ValueError: for a file that is not a toolgym results file, records of an env or task set
            the format does not hold, or an unknown format.
    """
    return export_records(read_results(path), file_format, out, data_dir, bfcl_model, source=str(path))


def export_records(records: Sequence[dict], file_format: str, out: str | Path, data_dir: str | None = None,
                   bfcl_model: str | None = None, source: str = "the run") -> str:
    """Export ``records`` (a run's episode records) as ``file_format`` into ``out`` (see the module)."""
    if file_format not in FORMATS:
        raise ValueError(f"unknown export format {file_format!r}; use one of {', '.join(FORMATS)}")
    env_id = FORMAT_ENVS[file_format]
    wrong = [r for r in records if r.get("env") != env_id]
    if wrong or not records:
        raise ValueError(f"{source}: the {file_format} format holds {env_id} runs"
                         + (f", not {wrong[0].get('env')}" if wrong else ", and the file has none"))
    if any((r.get("env_kwargs") or {}).get("tasks") != "official" for r in records):
        raise ValueError(f"{source}: only runs of official tasks (--tasks official) can be exported: the "
                         f"original's tools grade against its own task files")
    out = Path(out)
    if file_format == "tau2":
        return _write_tau2(records, out, data_dir, source)
    if file_format == "tau-bench":
        return _write_tau_bench(records, out, data_dir, source)
    return _write_bfcl(records, out, bfcl_model or BFCL_DEFAULT_MODEL, data_dir)


def parse_save_as(text: str) -> tuple[str, str]:
    """``FORMAT:PATH`` (``eval --save-as``) as ``(format, path)``; ValueError naming the formats."""
    file_format, _, path = text.partition(":")
    if file_format not in FORMATS or not path:
        raise ValueError(f"--save-as {text!r}: give FORMAT:PATH with FORMAT one of {', '.join(FORMATS)}")
    return file_format, path


def _env_for(records: Sequence[dict], data_dir: str | None, source: str):
    """The env the records ran in (one domain and split), made from their settings."""
    settings = {json.dumps(r.get("env_kwargs") or {}, sort_keys=True) for r in records}
    if len(settings) > 1:
        raise ValueError(f"{source}: its runs have different env settings ({len(settings)}); export one run "
                         f"(one domain) at a time")
    kwargs = dict(records[0].get("env_kwargs") or {})
    if data_dir:
        kwargs["data_dir"] = data_dir
    kwargs.pop("user", None)  # the tasks and grading are the env's; no user is needed to read them
    kwargs.pop("judge", None)
    return make_env(records[0]["env"], kwargs).unwrapped


def _conversation(record: dict, source: str) -> list[dict]:
    conversation = record.get("conversation")
    if conversation is None:
        if record.get("error"):
            return []
        raise ValueError(f"{source}: task {record['task_id']}'s record has no 'conversation' (written by eval since "
                         f"this toolgym); run it again to export it")
    try:
        return [_Message.model_validate(m).model_dump(exclude_none=True) for m in conversation]
    except (ValidationError, TypeError) as exc:
        raise ValueError(f"{source}: task {record['task_id']}: conversation is not a list of chat messages "
                         f"({str(exc).splitlines()[0]})") from None


def _system(record: dict) -> str:
    messages = (record.get("prompt") or {}).get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], dict) else {}
    return first.get("content") or "" if first.get("role") == "system" else ""


def _write_json(out: Path, value: Any) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# -- τ²-bench --------------------------------------------------------------------------------
def tau2_messages(conversation: Iterable[dict]) -> list[dict]:
    """A conversation (toolgym's chat messages) as τ²'s messages: calls with their arguments as
    objects and their requestor, tool results with the call's id, requestor and error flag."""
    messages = []
    for n, message in enumerate(conversation):
        role = message["role"]
        if role == "tool":
            content = message.get("content") or ""
            messages.append({"id": message.get("tool_call_id") or "", "role": "tool", "content": content,
                             "requestor": message.get("requestor") or "assistant",
                             "error": content.startswith("Error"), "turn_idx": n})
        else:
            calls = [{"id": c["id"], "name": c["function"]["name"],
                      "arguments": call_arguments(c["function"]["arguments"]), "requestor": role}
                     for c in message.get("tool_calls") or ()]
            messages.append({"role": role, "content": message.get("content"), "tool_calls": calls or None,
                             "turn_idx": n})
    return messages


def tau2_reward_info(metrics: dict | None) -> dict:
    """τ²'s ``reward_info`` from Tau2-v0's metrics."""
    if not metrics:
        return {"reward": 0.0, "reward_basis": None}
    basis = [kind for kind in metrics.get("basis") or () if kind in TAU2_COMPONENTS]
    breakdown = {kind: float(metrics[TAU2_COMPONENTS[kind]]) for kind in basis
                 if isinstance(metrics.get(TAU2_COMPONENTS[kind]), int | float)}
    info: dict[str, Any] = {"reward": float(metrics.get("reward") or 0.0), "reward_basis": basis,
                            "reward_breakdown": breakdown or None}
    if "DB" in basis and isinstance(metrics.get("db"), int | float):
        info["db_check"] = {"db_match": metrics["db"] == 1, "db_reward": float(metrics["db"])}
    return info


def _write_tau2(records: Sequence[dict], out: Path, data_dir: str | None, source: str) -> str:
    env = _env_for(records, data_dir, source)
    task_ids = list(dict.fromkeys(r["task_id"] for r in records))
    unknown = [t for t in task_ids if t not in env.task_data.tasks]
    if unknown:
        raise ValueError(f"{source}: task {unknown[0]} is not one of {env.domain}'s official tasks")
    kwargs = records[0].get("env_kwargs") or {}
    user = kwargs.get("user") or "scripted"
    simulations = []
    for n, record in enumerate(records):
        metrics = record.get("metrics")
        termination = (metrics or {}).get("termination") if not record.get("error") else None
        simulations.append({
            "id": f"toolgym-{n}", "task_id": record["task_id"], "start_time": "", "end_time": "", "duration": 0.0,
            "termination_reason": termination or "infrastructure_error",
            "reward_info": tau2_reward_info(metrics if termination else None),
            "messages": tau2_messages(_conversation(record, source)),
            "trial": int(record.get("trial") or 0), "seed": record.get("episode_seed", record.get("seed"))})
    results = {
        "timestamp": "",
        "info": {"git_commit": str((records[0].get("provenance") or {}).get("commit") or ""),
                 "num_trials": max(int(r.get("trials") or 1) for r in records),
                 # τ²'s max_steps is Tau2-v0's max_messages (τ²'s count); without it, the agent's actions
                 "max_steps": env.max_messages if env.max_messages is not None else env.max_steps,
                 "max_errors": env.max_errors,
                 "user_info": {"implementation": f"toolgym:{user}",
                               "llm": user.split(":", 1)[1] if str(user).startswith("llm:") else None},
                 "agent_info": {"implementation": f"toolgym:{records[0].get('agent')}",
                                "llm": records[0].get("model")},
                 "environment_info": {"domain_name": env.domain, "policy": env.task_data.policy},
                 "seed": records[0].get("seed"),
                 # τ³'s Info names the knowledge domain's retrieval config (None elsewhere)
                 "retrieval_config": getattr(env, "retrieval_config", None) if env.domain == "banking_knowledge"
                 else None},
        "tasks": [env.task_data.tasks[t] for t in task_ids],
        "simulations": simulations,
    }
    _write_json(out, results)
    return f"{out}: τ²-bench results, {len(simulations)} simulation(s) of {len(task_ids)} {env.domain} task(s)"


# -- τ-bench (v1) ----------------------------------------------------------------------------
V1_TASK_FIELDS = ("user_id", "actions", "instruction", "outputs")


def _write_tau_bench(records: Sequence[dict], out: Path, data_dir: str | None, source: str) -> str:
    env = _env_for(records, data_dir, source)
    runs = []
    for record in records:
        task_id = record["task_id"]
        if task_id not in env.task_data.tasks:
            raise ValueError(f"{source}: task {task_id} is not one of {env.domain}'s official tasks")
        task = env.task_data.tasks[task_id]
        metrics = record.get("metrics") or {}
        conversation = _conversation(record, source)
        if conversation and conversation[0]["role"] == "assistant" and not conversation[0].get("tool_calls"):
            conversation = conversation[1:]  # toolgym's greeting: v1's agent starts with the user's message
        traj = [{"role": "system", "content": _system(record)}]
        for message in conversation:
            message = {k: v for k, v in message.items() if k != "requestor"}
            if message["role"] == "assistant":
                message.setdefault("content", None)
            traj.append(message)
        outputs = task.get("outputs") or []
        if outputs:  # v1's RewardOutputInfo: each output said (in lower case, commas removed) in a reply
            replies = [m["content"].lower().replace(",", "") for m in conversation
                       if m["role"] == "assistant" and m.get("content") and not m.get("tool_calls")]
            part = {"r_outputs": float(metrics.get("r_outputs") or 0.0),
                    "outputs": {o: any(o.lower() in reply for reply in replies) for o in outputs}}
        else:  # v1's RewardActionInfo; v1's data hash is its own, toolgym's database hash is not it
            part = {"r_actions": float(metrics.get("r_actions") or 0.0), "gt_data_hash": ""}
        reward = float(metrics.get("reward") or 0.0)
        runs.append({"task_id": int(task_id.rsplit("_", 1)[1]), "reward": reward,
                     "info": {"task": {k: task.get(k) for k in V1_TASK_FIELDS}, "source": "user",
                              "reward_info": {"reward": reward, "info": part, "actions": task.get("actions") or []}},
                     "traj": traj, "trial": int(record.get("trial") or 0)})
    _write_json(out, runs)
    split = (records[0].get("env_kwargs") or {}).get("split") or "test"
    return f"{out}: τ-bench results, {len(runs)} run(s) of {env.domain}'s {split} split"


# -- BFCL --------------------------------------------------------------------------------------
def bfcl_group(category: str) -> str:
    """BFCL's folder of a category's result and score files (utils.get_directory_structure_by_category)."""
    if category == "format_sensitivity":
        return "format_sensitivity"
    if category.startswith("multi_turn"):
        return "multi_turn"
    if category.startswith("memory"):
        return f"agentic/memory/{category.removeprefix('memory_')}"
    return "live" if category.startswith("live") else "non_live"


def _source_call(name: str, arguments: dict, language: str, function: dict | None) -> str:
    """A call as a prompting model writes it: Python literals, or for Java and JavaScript each
    value's source text (toolgym's native Java / JavaScript values are source text, a string
    parameter's without its quotes, which are put back)."""
    types = {k: str(v.get("type", "")).lower() for k, v in
             ((function or {}).get("parameters") or {}).get("properties", {}).items() if isinstance(v, dict)}

    def text(key: str, value: Any) -> str:
        if language == "python" or not isinstance(value, str):
            return repr(value)
        return json.dumps(value, ensure_ascii=False) if types.get(key) == "string" else value
    return f"{name}({', '.join(f'{k}={text(k, v)}' for k, v in arguments.items())})"


def bfcl_step(action: Any, function_calling: bool, task: Any = None) -> Any:
    """One step's answer as BFCL's handler stores it: a function-calling model's calls as
    ``[{name: "<json arguments>"}]`` (names as the tools offer them, dots as underscores), else
    the text; a prompting model's text, native calls written as ``[name(key=value)]`` with the
    entry's function names (``task``: BFCL-v0's task, its ``functions`` and ``language``)."""
    from toolgym.envs.bfcl.actions import DecodeError, read_calls
    from toolgym.envs.bfcl.tasks import openai_name

    try:
        calls = read_calls(action) if isinstance(action, dict | list) or function_calling else None
    except DecodeError:
        calls = None
    if function_calling:
        if calls:
            return [{openai_name(name): json.dumps(arguments, ensure_ascii=False)} for name, arguments in calls]
        return action if isinstance(action, str) else ""
    if calls is not None:
        functions = {openai_name(f["name"]): f for f in getattr(task, "functions", None) or ()}
        language = getattr(task, "language", "python")
        return "[" + ", ".join(_source_call(functions[name]["name"] if name in functions else name, arguments,
                                            language, functions.get(name)) for name, arguments in calls) + "]"
    return action if isinstance(action, str) else json.dumps(action)


def _ends_turn(action: Any) -> bool:
    """Whether a multi-turn step ends its turn: it makes no call (BFCL's loop stops on an empty
    or undecodable answer)."""
    from toolgym.envs.bfcl.actions import DecodeError, read_calls

    try:
        return not read_calls(action)
    except DecodeError:
        return True


def bfcl_result(record: dict, function_calling: bool, task: Any = None) -> Any:
    """An entry's ``result``: the single step's answer, the multi-turn list of turns of steps, or a
    memory question's one turn of steps (those of the question's chat: BFCL stores the
    prerequisite conversations apart, and its checker reads the question's last answer)."""
    actions = [step.get("action") for step in record.get("trajectory") or () if isinstance(step, dict)]
    if (record.get("split") or "") in BFCL_MEMORY:
        asked = (record.get("metrics") or {}).get("question_steps")
        asked = asked if isinstance(asked, int) and not isinstance(asked, bool) and 0 <= asked else 0
        return [[bfcl_step(action, function_calling, task) for action in actions[len(actions) - asked:]]]
    if not (record.get("split") or "").startswith("multi_turn"):
        return bfcl_step(actions[0] if actions else "", function_calling, task)
    turns: list[list] = [[]]
    for action in actions:
        turns[-1].append(bfcl_step(action, function_calling, task))
        if _ends_turn(action):
            turns.append([])
    if not turns[-1]:
        turns.pop()
    return turns


def _write_bfcl(records: Sequence[dict], out: Path, model: str, data_dir: str | None) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,127}", model):
        raise ValueError(f"--bfcl-model {model!r}: not a BFCL model name")
    function_calling = model.endswith("-FC")
    folder = model.replace("/", "_")
    by_category: dict[str, list[dict]] = {}
    for record in records:
        by_category.setdefault(record.get("split") or "", []).append(record)
    left_out = sorted(c for c in by_category if not c or (c in BFCL_MEMORY and not all(
        isinstance((r.get("metrics") or {}).get("question_steps"), int) or r.get("error") for r in by_category[c]))
        or (c == "format_sensitivity" and function_calling))  # BFCL runs it for prompting models only
    tasks: dict[str, Any] = {}
    if not function_calling:  # a prompting model writes BFCL's own function names (with their dots)
        exported = sorted(c for c in by_category if c not in left_out)
        env = make_env("BFCL-v0", {"tasks": "official", "category": exported, **({"data_dir": data_dir} if data_dir
                                                                                   else {})})
        tasks = env.unwrapped.task_records()
    counts = category_counts(records)
    written = []
    for category, entries in by_category.items():
        if category in left_out:
            continue
        group = bfcl_group(category)
        lines = [json.dumps({"id": r["task_id"], "result": bfcl_result(r, function_calling, tasks.get(r["task_id"]))},
                            ensure_ascii=False) for r in entries]
        result_file = out / "result" / folder / group / f"BFCL_v4_{category}_result.json"
        result_file.parent.mkdir(parents=True, exist_ok=True)
        result_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        correct, total = counts[category]
        failed = [{"id": r["task_id"], "model_name": folder, "test_category": category, "valid": False,
                   "error_type": (r.get("metrics") or {}).get("error_type") or (r.get("metrics") or {}).get("check")
                   or r.get("error")} for r in entries if not (r.get("metrics") or {}).get("success") or r.get("error")]
        score_file = out / "score" / folder / group / f"BFCL_v4_{category}_score.json"
        score_file.parent.mkdir(parents=True, exist_ok=True)
        summary = {"accuracy": correct / total, "correct_count": correct, "total_count": total,
                   **((format_sensitivity_stats(entries) or {}) if category == "format_sensitivity" else {})}
        score_file.write_text("".join(json.dumps(line) + "\n" for line in [summary, *failed]), encoding="utf-8")
        written.append(category)
    board = leaderboard_columns({c: counts[c] for c in written})
    _write_json(out / "score" / folder / "data_overall.json", {
        "model": model, "categories": {c: {"accuracy": counts[c][0] / counts[c][1], "correct_count": counts[c][0],
                                         "total_count": counts[c][1]} for c in written},
        "leaderboard": {name: "N/A" if score.shown is None else score.accuracy for name, score in board.items()}})
    note = f"; not exported: {', '.join(left_out)}" if left_out else ""
    score_with = (f"BFCL_PROJECT_ROOT={out} bfcl evaluate --model {model} --test-category {','.join(written)}; "
                  f"then toolgym rescore {out} --format bfcl compares")
    return "\n".join([f"{out}: BFCL result files of {len(written)} categor{'y' if len(written) == 1 else 'ies'} for "
                      f"model {model} (score with: {score_with}){note}",
                      *bfcl_summary([r for r in records if r.get("split") in written])])
