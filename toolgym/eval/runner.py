"""Batch evaluation: run an agent over a task set and write one JSON line per episode.

This module also holds what every runner shares: making an env from command-line settings
with clear errors (:func:`make_env`), choosing the tasks (:func:`select_tasks`), the run's
record header (:func:`run_header`), reading results files (:func:`read_results`), the one
rule for an existing results file (:func:`open_results`: resume, overwrite or refuse) and the
paper's table (:func:`table_rows`, printed by :func:`format_table`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any
from collections.abc import Iterable

import gymnasium as gym
from pydantic import BaseModel, ConfigDict, ValidationError
from tqdm import tqdm

import toolgym
from toolgym.agents import MissingReplay, ReplayAgent, make_agent
from toolgym.eval.passk import pass_hat_table, trials_of
from toolgym.eval.provenance import run_provenance
from toolgym.eval.runcard import header_lines, run_card
from toolgym.eval.tables import text_table
from toolgym.eval.watch import request_backends, watching
from toolgym.registry import env_class, make_env, untrusted_env_args
from toolgym.untrusted import MIB, UntrustedFileError, escape, read_json_lines

MAX_STEPS = 500
#: The key of the summary line ``eval --trials`` writes after a run's episodes.
SUMMARY_KEY = "summary"

# Lists and dicts a results line may nest (a DFSDT tree in "search" nests three per step; json
# reads lines some 990 deep but cannot write them back).
MAX_RECORD_DEPTH = 400
#: The largest results file read (report, view, resume, judge).
MAX_RESULTS_FILE = 256 * MIB

# Record fields that must be equal for a results file to be continued with resume=True.
RUN_KEYS = ("env", "task_set", "agent", "seed", "env_kwargs", "scoring", "mode", "backend", "model",
            "prompt_format", "parser", "decoding", "trials")


def select_tasks(env: gym.Env, episodes: int | None = None) -> list[str]:
    """The task ids to run: the env's task set, or its first ``episodes``; never an empty list.

    Raises:
        ValueError: when the task set is empty or ``episodes`` is below 1, saying why nothing
            would be evaluated.
    """
    base = env.unwrapped
    task_ids = base.task_ids()
    if not task_ids:
        where = f", data_dir={base.data_dir!r}" if getattr(base, "data_dir", None) else ""
        raise ValueError(f"nothing to evaluate: {base.env_id} has no tasks for tasks={base.task_set!r}, "
                         f"split={base.split!r}{where}")
    if episodes is not None:
        if episodes < 1:
            raise ValueError(f"nothing to evaluate: episodes={episodes}; give 1 or more, or leave it out to run "
                             f"all {len(task_ids)} tasks")
        task_ids = task_ids[:episodes]
    return task_ids


def run_header(env_id: str, env: gym.Env, agent_spec: str, seed: int, env_kwargs: dict | None, agent) -> dict:
    """The fields every record of a run shares, with the effective scoring and mode, and the
    run's ``provenance`` (:func:`~toolgym.eval.provenance.run_provenance`)."""
    base = env.unwrapped
    header = {"env": env_id, "task_set": base.task_set, "agent": agent_spec, "seed": seed,
              "toolgym_version": toolgym.__version__, "env_kwargs": env_kwargs or {},
              "scoring": base.scoring, "mode": base.mode, "provenance": run_provenance(env)}
    describe = getattr(agent, "describe", None)
    if callable(describe):
        header.update(describe())
    return header


_Scalar = bool | int | float | str | None


class _RecordFields(BaseModel):
    """The fields of an episode record that the runners, ``report`` and ``judge`` read, with
    their types (a results file is untrusted input: a wrong type is refused, never used)."""

    model_config = ConfigDict(strict=True, extra="allow")
    env: str
    task_id: str
    env_kwargs: dict[str, _Scalar | list[_Scalar]] | None = None  # gym.make keywords: JSON values, flat
    agent: str | None = None
    seed: int | None = None
    split: str | None = None
    error: str | None = None
    # A list: Tau2-v0's failed components; a flat object: VirtualHome-v0's first_failure (line, text, reason).
    metrics: dict[str, _Scalar | list[_Scalar] | dict[str, _Scalar]] | None = None
    trajectory: list[Any] | None = None
    world_diff: dict[str, dict[str, Any]] | None = None
    prompt: dict[str, list[Any]] | None = None
    usage: dict[str, int] | None = None  # the model's tokens over the episode (episode_usage)
    provenance: dict[str, _Scalar] | None = None  # run_provenance: flat


_CHECKED_FIELDS = tuple(name for name in _RecordFields.model_fields if name != "trajectory")


def read_results(path: str | Path, torn_tail_ok: bool = False) -> list[dict]:
    """The records of a results file, each checked (:class:`_RecordFields`, :func:`check_metrics`).

    Args:
        path: A results JSONL file.
        torn_tail_ok: Drop an unreadable last line (the one being written when a run was
            interrupted) instead of failing.

    Raises:
        ValueError: ``FILE:LINE: what is wrong`` for a line that is not a well-formed record,
            or saying the file holds none.
    """
    return [record for _, record in read_numbered_results(path, torn_tail_ok)]


def read_numbered_results(path: str | Path, torn_tail_ok: bool = False) -> list[tuple[int, dict]]:
    """:func:`read_results` with each record's line number. The file is read as untrusted
    (:mod:`toolgym.untrusted`: a regular file of at most :data:`MAX_RESULTS_FILE` bytes, lines
    nested at most :data:`MAX_RECORD_DEPTH` deep, lists and objects bounded per byte)."""
    try:
        lines = [line for _, line in read_json_lines(path, MAX_RESULTS_FILE, "results file", MAX_RECORD_DEPTH)]
    except UntrustedFileError as error:
        # judged on the text: how deep json.loads can go depends on the caller's stack, and json
        # reads a little deeper than it writes (such a line would fail when the file is rewritten)
        raise ValueError(str(error).replace("not a results file", "not an episode record")) from None
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:  # ValueError: also an integer past Python's 4300 digits
            if torn_tail_ok and n == len(lines):
                break
            why = (exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
                   if isinstance(exc, RecursionError) else str(exc).split(";")[0])
            raise ValueError(f"{path}:{n}: not a JSON line ({why}); is this a toolgym results file?") from None
        if isinstance(record, dict) and SUMMARY_KEY in record:
            continue  # a run's pass^k line (eval --trials), recomputed from the episodes when needed
        if not isinstance(record, dict) or not {"env", "task_id"} <= set(record):
            raise ValueError(f"{path}:{n}: not an episode record (no 'env' and 'task_id'); "
                             f"is this a toolgym results file?")
        try:  # the checked fields only: copying a long trajectory into the model would cost more than reading it
            _RecordFields.model_validate({k: record[k] for k in _CHECKED_FIELDS if k in record})
            if not isinstance(record.get("trajectory", []), list | None):
                _RecordFields.model_validate({"env": "", "task_id": "", "trajectory": record["trajectory"]})
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in error["loc"][:2])
            raise ValueError(f"{path}:{n}: {field}: {error['msg']} (got {_short(error['input'])})") from None
        if record.get("metrics") is not None:
            check_metrics(record["env"], record["metrics"], f"{path}:{n}")
        records.append((n, record))
    if not records:
        raise ValueError(f"{path} holds no episode records")
    return records


def check_metrics(env_id: str, metrics: dict, where: str, columns=None) -> None:
    """ValueError (``where: ...``) unless each key of the env class's table that ``metrics``
    holds is a number or None; with ``columns`` (an env's ``table_columns``, the table that will
    be printed) a number, and each key a mean column averages must be there.
    """
    if columns is None:
        if untrusted_env_args(env_id, {}):
            return  # a module the file names is not imported to read it (report checks what it trusts)
        try:
            cls = env_class(env_id)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        columns, required = cls.table_columns, False
    else:
        required = True
    for column in columns:
        for key in column.keys:
            if key not in metrics:
                if required and column.kind == "mean":
                    raise ValueError(f"{where}: metrics has no {key!r}, which {env_id}'s table averages")
                continue  # ratio, f1 and sum columns count a missing key as 0
            value = metrics[key]
            if value is None and not required:  # a column the env may leave out (ToolLLM's pass, official)
                continue
            if not isinstance(value, (int, float)):  # bool is an int
                raise ValueError(f"{where}: metrics.{key} must be a number for {env_id}'s table "
                                 f"(got {_short(value)})")


def is_scored(record: dict) -> bool:
    """Whether an episode ended with metrics and no error (an episode worth keeping)."""
    return record.get("metrics") is not None and not record.get("error")


def check_out_options(out: str | Path | None, resume: bool, overwrite: bool) -> None:
    """Reject ``resume`` / ``overwrite`` without ``out``, and both at once (ValueError)."""
    if resume and overwrite:
        raise ValueError("--resume keeps the records of --out and --overwrite deletes them: pass one of them")
    if out is None and resume:
        raise ValueError("--resume needs --out (the results file to continue)")
    if out is None and overwrite:
        raise ValueError("--overwrite needs --out (the results file to replace)")


def open_results(out: str | Path | None, header: dict, task_ids: list[str], resume: bool = False,
                 overwrite: bool = False, columns=None, trials: int | None = None) -> tuple[dict, IO[str] | None]:
    """Apply the results-file rule of every runner and open ``out`` for the run's new records.

    An existing non-empty ``out`` is continued (``resume``: its scored episodes of this run are
    kept and skipped, episodes that ended with an error are run again and replaced, records of
    other tasks stay), replaced (``overwrite``) or refused. Resuming a file written with other
    settings (:data:`RUN_KEYS`; a run of ``trials`` and one without are other settings) is
    refused, and so is a kept record whose metrics do not fill ``columns`` (the env's
    ``table_columns``), which the run's table will average. With ``trials`` K an episode is a
    (task, trial) pair, trial 0 to K-1.

    Returns:
        The kept records of this run's episodes by task id (with ``trials``: by ``(task_id,
        trial)``), and the file to append new records to (None without ``out``).

    Raises:
        ValueError: for a refused file or contradictory options, with the fix.
    """
    check_out_options(out, resume, overwrite)
    if out is None:
        return {}, None
    path = Path(out)
    if path.is_file() and path.stat().st_size > 0 and not resume:
        if not overwrite:
            raise ValueError(f"{path} already holds results: pass --resume to continue that run, "
                             f"--overwrite to replace the file, or another --out")
        path.write_text("", encoding="utf-8")
    finished: dict[str, dict] = {}
    if resume and path.is_file() and path.stat().st_size > 0:
        numbered = read_numbered_results(path, torn_tail_ok=True)
        records = [record for _, record in numbered]
        for line, record in numbered:
            if columns is not None and record.get("metrics") is not None and record["env"] == header["env"]:
                check_metrics(record["env"], record["metrics"], f"{path}:{line}", columns)
        for n, record in enumerate(records, 1):
            differing = [k for k in RUN_KEYS if (k in header and k in record or k == "trials")
                         and record.get(k) != header.get(k)]
            if differing:
                k = differing[0]
                raise ValueError(f"{path}: record {n} ({record['task_id']}) is from a run with other settings "
                                 f"({', '.join(differing)}; {k}: {_short(record.get(k))} there, "
                                 f"{_short(header.get(k))} now): run with those settings, pass --overwrite to "
                                 f"replace the file, or use another --out")
        wanted = {(t, trial) for t in task_ids for trial in range(trials)} if trials else set(task_ids)
        kept = []
        for record in records:
            key = (record["task_id"], record.get("trial")) if trials else record["task_id"]
            if key in wanted and (not is_scored(record) or key in finished):
                continue  # run again (an error) or a duplicate of a kept episode
            kept.append(record)
            if key in wanted:
                finished[key] = record
        rewrite_results(path, kept)  # also drops a torn last line, so appended records start on a line of their own
    sink = open(path, "a", encoding="utf-8")
    return finished, sink


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def rewrite_results(path: str | Path, records: list[dict]) -> None:
    """Replace the file with ``records`` atomically (an interrupted rewrite loses nothing)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, default=str) + "\n" for r in records), encoding="utf-8")
    os.replace(tmp, path)


def episode_usage(trajectory: list[dict]) -> dict | None:
    """The model's tokens over an episode, ``{"prompt_tokens", "completion_tokens", "calls"}``
    from its steps' ``llm`` entries; None for an episode no model played."""
    calls = [step["llm"] for step in trajectory if isinstance(step.get("llm"), dict) and not step["llm"].get("queued")]
    if not calls:
        return None
    return {"prompt_tokens": sum(int(c.get("prompt_tokens") or 0) for c in calls),
            "completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in calls), "calls": len(calls)}


def write_record(sink: IO[str] | None, record: dict) -> None:
    """Append one record and flush, so that an interrupted run keeps every finished episode."""
    if sink is not None:
        sink.write(json.dumps(record, default=str) + "\n")
        sink.flush()


def world_image(env: gym.Env) -> bytes | None:
    """The env's world database at this point (after reset), for :func:`record_world_diff`;
    None for an env without a :class:`~toolgym.worlds.base.World`."""
    from toolgym.worlds.base import World

    world = getattr(env.unwrapped, "world", None)
    return world.database_image() if isinstance(world, World) else None


def record_world_diff(env: gym.Env, record: dict, start: bytes | None) -> None:
    """Put in ``record["world_diff"]`` what the episode changed in the world's rows since
    ``start`` (:meth:`World.diff`: per table, rows added, deleted and changed)."""
    if start is not None:
        record["world_diff"] = env.unwrapped.world.diff(start)


def record_conversation(record: dict, info: dict) -> None:
    """Put in ``record["conversation"]`` the episode's conversation as the env graded it, both
    sides (``info["trajectory"]`` at the end: τ-bench's and τ²'s messages, the user's own tool
    calls included), which the originals' result files hold (``toolgym export``)."""
    conversation = info.get("trajectory")
    if isinstance(conversation, list):
        record["conversation"] = conversation


def reset_prompt(observation: Any, info: dict) -> dict[str, list]:
    """The record's ``prompt``: what the env gave at reset. ``messages`` are its
    ``info["messages"]`` (system prompt, instructions, first user turn) or, for an env without
    them, the reset observation as one user message; ``tools`` the names of the tools offered
    (``info["tools"]``; their schemas are the env's and would repeat in every record)."""
    messages = info.get("messages")
    if not isinstance(messages, list) or not messages:
        messages = [{"role": "user", "content": observation}]
    tools = [t.get("function", t).get("name") for t in info.get("tools") or () if isinstance(t, dict)]
    return {"messages": list(messages), "tools": tools}


def exception_error(exc: BaseException, where: str) -> str:
    """An episode's ``error`` for an exception of its env or agent: where, the exception's class
    and its message on one line (shortened, control characters escaped)."""
    return f"{where}: {type(exc).__name__}: {escape(' '.join(str(exc).split())[:300])}"


def run_episode(env: gym.Env, agent, task_id: str, seed: int, max_steps: int = MAX_STEPS) -> dict:
    """Play one task; the record has the metrics, the trajectory, the return and the world diff.
    An exception of the env or the agent ends only this episode: the record's ``error`` says it."""
    record: dict[str, Any] = {"task_id": task_id, "split": None, "metrics": None, "trajectory": [], "return": 0.0}
    try:
        obs, info = env.reset(seed=seed, options={"task_id": task_id})
    except Exception as exc:  # noqa: BLE001 - an env that fails on one task fails that episode, not the run
        record["error"] = exception_error(exc, f"{task_id}, reset")
        return record
    start = world_image(env)
    record.update(split=info.get("split"), prompt=reset_prompt(obs, info))
    try:
        agent.reset(obs, info)
    except MissingReplay as exc:
        record["error"] = str(exc.args[0])
        return record
    try:
        _play(env, agent, record, obs, info, max_steps)
    except Exception as exc:  # noqa: BLE001
        record.update(metrics=None, error=exception_error(exc, f"{task_id}, step {len(record['trajectory']) + 1}"))
    if (usage := episode_usage(record["trajectory"])) is not None:
        record["usage"] = usage
    try:
        record_world_diff(env, record, start)
    except Exception as exc:  # noqa: BLE001
        record.setdefault("error", exception_error(exc, f"{task_id}, world diff"))
    return record


def _play(env: gym.Env, agent, record: dict, obs, info: dict, max_steps: int) -> None:
    """The steps of :func:`run_episode`, into ``record``."""
    for _ in range(max_steps):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        entry = {"action": action, "observation": obs, "reward": reward}
        llm = getattr(agent, "last_llm", None)  # token ids and logprobs of an LLM agent's step
        if llm is not None:
            entry["llm"] = llm
        record["trajectory"].append(entry)
        record["return"] += reward
        if terminated or truncated:
            break
    record["metrics"] = info.get("metrics")
    record_conversation(record, info)
    if record["metrics"] is None:
        record["error"] = f"episode did not end within {max_steps} steps"


def evaluate(env_id: str, agent_spec: str, env_kwargs: dict | None = None, seed: int = 0,
             episodes: int | None = None, out: str | Path | None = None, progress: bool = True,
             agent_options: dict | None = None, resume: bool = False,
             overwrite: bool = False, env: gym.Env | None = None,
             trials: int | None = None) -> tuple[list[dict], gym.Env]:
    """Evaluate ``agent_spec`` on every task of the env's task set (or the first ``episodes``).

    ``out``, ``resume`` and ``overwrite`` follow :func:`open_results`. ``env``, when given, is
    used instead of making ``env_id`` (a :mod:`toolgym.remote` env). Returns the records of the
    run's tasks in task order (kept and new) and the env.

    With ``trials`` K every task is played K times, trial t with the agent and the resets seeded
    ``seed`` + t (each record has ``trial``, ``trials`` and ``episode_seed``); the records come
    trial by trial, each in task order, and a resumed run plays only the (task, trial) pairs the
    file lacks.
    """
    env = make_env(env_id, env_kwargs) if env is None else env
    task_ids = select_tasks(env, episodes)
    agent = make_agent(agent_spec, env, seed=seed, **(agent_options or {}))
    header = run_header(env_id, env, agent_spec, seed, env_kwargs, agent)
    if trials:
        header["trials"] = trials
    finished, sink = open_results(out, header, task_ids, resume=resume, overwrite=overwrite,
                                  columns=env.unwrapped.table_columns, trials=trials)
    keys = [(t, trial) for trial in range(trials) for t in task_ids] if trials else task_ids
    todo = [k for k in keys if k not in finished]
    bar = tqdm(todo, desc=env_id, disable=not progress, file=sys.stderr, unit="ep", initial=len(finished),
               total=len(keys))
    # the requests of the agent's servers (and the env's user's and judge's), on the bar
    watcher = watching(request_backends(agent, [env]), bar)
    try:
        playing = 0  # the trial the agent is seeded for
        for key in bar:
            task_id, trial = key if trials else (key, 0)
            if trial != playing:
                agent, playing = make_agent(agent_spec, env, seed=seed + trial, **(agent_options or {})), trial
                watcher.stop()
                watcher = watching(request_backends(agent, [env]), bar)
            record = {**header, **run_episode(env, agent, task_id, seed + trial)}
            if trials:
                record.update(episode_seed=seed + trial, trial=trial)
            finished[key] = record
            write_record(sink, record)
    finally:
        watcher.stop()
        bar.close()
        if sink:
            sink.close()
    if isinstance(agent, ReplayAgent):
        missing = [k for k in todo if "no replay actions" in str(finished[k].get("error"))]
        if missing:
            print(f"warning: {len(missing)} task(s) had no replay line: {', '.join(map(str, missing[:10]))}",
                  file=sys.stderr)
    return [finished[k] for k in keys], env


def _group_rows(groups, splits: dict[str, list[dict]], columns, width: int) -> list[list[str]]:
    """The rows of an env's ``table_groups``: each column's value over the members run (a title
    ends in " (partial)" when some member was not run)."""
    known = {name: ([c.value(ms) for c in columns], len(ms)) for name, ms in splits.items()}
    rows = []
    for title, how, members in groups:
        present = [known[m] for m in members if m in known]
        if not present:
            continue
        n = sum(count for _, count in present)
        if how == "weighted":
            values = [sum(v[i] * count for v, count in present) / n if n else 0.0 for i in range(len(columns))]
        else:
            values = [sum(v[i] for v, _ in present) / len(present) for i in range(len(columns))]
        known[title] = (values, n)
        name = title if len(present) == len(members) else f"{title} (partial)"
        cells = [name, str(n)] + [f"{100 * v:.1f}" if c.percent else f"{v:.3f}" for v, c in zip(values, columns)]
        rows.append(cells + [""] * (width - len(cells)))
    return rows


def table_rows(columns, groups, records: Iterable[dict]) -> tuple[list[str], list[list[str]]]:
    """The paper table's heading and rows (as printed) for ``records`` under ``columns`` (an env's
    ``table_columns``) and ``groups`` (its ``table_groups``): one row per split, an overall row,
    the group rows, and pass^1..pass^K columns for a run of K trials per task (``eval --trials``).
    ``report``, ``eval`` and ``view`` all build their tables here."""
    scored = [r for r in records if r.get("metrics")]
    splits: dict[str, list[dict]] = {}
    for r in scored:
        splits.setdefault(r.get("split") or "all", []).append(r["metrics"])
    rows = list(splits.items())
    if len(rows) > 1:
        rows.append(("all", [m for _, ms in rows for m in ms]))
    columns = list(columns)
    passes = pass_hat_table(scored) if trials_of(scored) > 1 else {}  # eval --trials K: pass^1..pass^K
    pass_titles = list(next(iter(passes.values()), {}))
    head = ["subset", "n"] + [c.title for c in columns] + pass_titles
    body = []
    for name, ms in rows:
        cells = [name, str(len(ms))]
        for c in columns:
            v = c.value(ms)
            cells.append(f"{100 * v:.1f}" if c.percent else f"{v:.3f}")
        cells += [f"{100 * passes.get(name, {}).get(title, 0.0):.1f}" for title in pass_titles]
        body.append(cells)
    body += _group_rows(groups, splits, columns, len(head))
    return head, body


def format_table(env: gym.Env, records: Iterable[dict]) -> str:
    """The paper's table: the title, the run's settings and whether it is leaderboard-comparable
    (:func:`~toolgym.eval.runcard.header_lines`), one row per split plus an overall row, columns
    from the env."""
    base = env.unwrapped
    records = list(records)
    groups = getattr(base, "table_groups", ())  # a remote env has none
    head, body = table_rows(base.table_columns, groups, records)
    task_ids = getattr(base, "task_ids", None)
    card = run_card(records, base.env_id) if records else None
    lines = [f"{base.env_id} ({base.task_set} tasks, scoring={base.scoring})",
             *(header_lines(card, len(task_ids()) if callable(task_ids) else None) if card else ()),
             *text_table(head, body)]
    errors = sum(1 for r in records if r.get("error"))
    if errors:
        lines.append(f"({errors} episode(s) ended with an error and are not in the table)")
    return "\n".join(lines)
