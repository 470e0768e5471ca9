"""``toolgym rescore``: score the result files that τ-bench, τ²-bench and BFCL write, with toolgym's envs.

Researchers check published numbers by scoring the recorded conversations again (τ²-bench ships
``tau2 evaluate-trajs`` for this). ``rescore`` reads a file in the original harness's own format,
replays every run through the env (each tool call and message of the agent as recorded, the
user's turns as recorded, through :class:`~toolgym.envs.users.ReplayUser`) and compares the
reward toolgym gives with the recorded one.

Without a judge (``--judge``) Tau2-v0 does not score NL assertions; where a run's recorded
``reward_info`` has the judge's verdict, toolgym's reward for the comparison and pass^k is its
reward without the judge times that verdict (marked "NL as recorded"), else the run is
``unscored`` (and left out of pass^k, not counted as a failure).

Formats:

- ``tau2``: τ²-bench's results JSON (``Results``: ``info``, ``tasks``, ``simulations``), each
  simulation with ``task_id``, ``trial``, ``messages`` (``assistant`` / ``user`` / ``tool``;
  tool calls as ``{id, name, arguments, requestor}``, tool results with the call's ``id``),
  ``reward_info`` (``reward``, ``reward_breakdown``, ``db_check``, ``action_checks``,
  ``communicate_checks``, ``env_assertions``, ``nl_assertions``) and ``termination_reason``.
  Env ``Tau2-v0``, official tasks; the domain is ``info.environment_info.domain_name``
  (``telecom-workflow``, telecom with another agent policy, replays in telecom). Each run is graded
  as ``tau2 evaluate-trajs`` grades it: against the task the file holds, played whole whatever its
  split (``fresh_tasks``: today's task of the run's id), unless its ``reward_info`` checked
  another task's actions (the task was renumbered; :func:`grading_task`). Each run's file task is
  compared with today's of its id by :func:`task_digest` (τ³'s task fixes change rewards): the
  table says how many runs were graded on older versions. τ³'s banking_knowledge runs replay under
  the file's retrieval config (:func:`replay_retrieval_config`).
- ``tau-bench``: τ-bench's (v1) results, a JSON list of ``{task_id, trial, reward, info, traj}``
  with ``traj`` the agent's messages: OpenAI tool calls (the tool-calling agent; v1 runs the
  first call of a message, and keeps only it) or ReAct text (``Action: {"name", "arguments"}``,
  the result in the next user message after ``API output:``). Env ``TauBench-v0``, official
  tasks of ``split``, v1's ``task_id`` the task's index; the domain is read from the policy
  (the system message) unless given.
- ``bfcl``: a folder of BFCL's result files (``result/<model>/<group>/BFCL_v4_<category>_result.json``,
  ``{id, result}`` a line, as BFCL's generation and ``toolgym export`` write them) and score files
  (``score/<model>/...``, ``bfcl evaluate``'s: the accuracy line, then the failed entries). Env
  ``BFCL-v0`` with ``scoring="paper_compat"`` (BFCL's released checker), official tasks; each
  step of a result is one action (a function-calling model's ``[{name: "<json arguments>"}]``
  as tool calls, a prompting model's text as it is), and BFCL's verdict is the recorded reward.
  Memory results are read and reported unscored (:data:`BFCL_MEMORY_UNREPLAYED`).

How a run is replayed: the messages before the user's first turn (τ²'s greeting, or the task's
message history, counted from the file's ``tasks``) are the env's own start. Each tool call of
the agent is one step and its output is compared with the recorded one (equal text, or equal
JSON); each text message is one step, which the replay user answers with the user's next
recorded turns (its own tool calls included, dual control). The env is given as many steps
as the run has, so a run that ended without a stop (τ²'s ``max_steps``, ``too_many_errors``)
ends by truncation there and scores 0, as in the original; a run whose user stopped before the
agent acted ends with one stop of the agent's (:data:`AGENT_STOP`) and is scored. A message with
both text and tool calls is replayed as its tool calls: τ-bench ignores such text; τ²'s COMMUNICATE
check reads it, and Tau2-v0 takes text or calls in one step, so such a τ² run may differ there
(the table names the component).

A results file is data: it chooses no code (the env id comes from ``--format``, the domain
must be one the env has, the user is always the replay user), its size is bounded
(:data:`MAX_FILE_BYTES`), its fields are type-checked, and each run's replay is bounded by its
own length. A file that cannot be read is one ``ValueError`` naming the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, FailFast, Field, ValidationError

import toolgym
from toolgym.envs.tau2.tasks import DOMAINS as TAU2_DOMAINS
from toolgym.envs.users import ReplayUser
from toolgym.eval.passk import pass_hat_k
from toolgym.eval.runner import MAX_RECORD_DEPTH, run_header
from toolgym.eval.tables import text_table
from toolgym.registry import make_env
from toolgym.untrusted import escape, load_json, read_json_lines
from toolgym.worlds.tau2.banking_knowledge.knowledge import (DEFAULT_RETRIEVAL_CONFIG, OFFLINE_ALTERNATIVE,
                                                              RETRIEVAL_CONFIGS)
from toolgym.worlds.tau2.banking_knowledge.knowledge.configs import ALIASES as RETRIEVAL_ALIASES

FORMATS = ("tau-bench", "tau2", "bfcl")
#: The env each format's runs are replayed in.
FORMAT_ENVS = {"tau-bench": "TauBench-v0", "tau2": "Tau2-v0", "bfcl": "BFCL-v0"}
#: The domains each env has (a results file may name only these).
DOMAINS = {"TauBench-v0": ("airline", "retail"), "Tau2-v0": tuple(TAU2_DOMAINS)}
#: τ² domains that are another's with a different agent policy: tools, tasks and grading are the other's,
#: and the policy is what the recorded agent read, so the run replays there.
TAU2_DOMAIN_ALIASES = {"telecom-workflow": "telecom"}
#: The largest file read (τ²'s leaderboard files of four trials are tens of MB).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: The fewest bytes a recorded run takes in a file (a τ² simulation or τ-bench run holds its conversation:
#: kilobytes).
MIN_RUN_BYTES = 256
#: τ-bench's and τ²-bench's success: a reward within 1e-6 of 1.
SUCCESS_TOLERANCE = 1e-6
#: How a run's toolgym reward compares with the recorded one ("unscored": toolgym needs a judge for a
#: component of it; "error": the run could not be replayed).
VERDICTS = ("agree", "differ", "unscored", "error")
#: How an episode ends, in τ²'s words and Tau2-v0's (``info["metrics"]["termination"]``).
TERMINATIONS = ("user_stop", "agent_stop", "max_steps", "too_many_errors")
#: τ²'s terminations left out of pass^k (its metrics drop infrastructure failures).
EXCLUDED_TERMINATIONS = ("infrastructure_error",)
#: τ²'s reward types and toolgym's metric names for them (Tau2-v0's ``info["metrics"]``).
TAU2_COMPONENTS = {"DB": "db", "ACTION": "action", "COMMUNICATE": "communicate", "ENV_ASSERTION": "env_assertion",
                   "NL_ASSERTION": "nl_assertion"}
#: τ-bench's reward parts, under the same names in TauBench-v0's metrics.
TAU_BENCH_COMPONENTS = ("r_actions", "r_outputs")
#: The first line of each domain's τ-bench policy (the system message of a run).
TAU_BENCH_POLICIES = {"airline": re.compile(r"#\s*airline agent policy", re.I),
                      "retail": re.compile(r"#\s*retail agent policy", re.I)}


@dataclass
class ToolStep:
    """A tool call of the agent and the output recorded for it (None: no output was recorded)."""

    name: str
    arguments: Any
    output: str | None
    message: int  # index of the call's message in the recorded conversation


@dataclass
class AnswerStep:
    """A model's answer as the env takes it (BFCL: a step's calls, or its text)."""

    action: Any
    message: int  # BFCL: the step's number in the entry's result


@dataclass
class TextStep:
    """A message of the agent to the user."""

    text: str
    message: int


@dataclass
class RecordedRun:
    """One run of a results file, as toolgym replays it."""

    env_id: str
    domain: str
    task_id: str
    trial: int
    reset_options: dict
    steps: list[ToolStep | TextStep | AnswerStep]
    user_turns: list[str | dict]
    user_call_outputs: list[str | None]
    reward: float
    components: dict[str, float]  # toolgym's metric names -> the recorded values
    termination: str | None = None
    env_kwargs: dict = field(default_factory=dict)
    file_task: dict | None = None  # τ²: the task record the file holds for the run's id
    recorded_actions: list | None = None  # τ²: the ground-truth actions its reward_info checked, (name, arguments)
    replay_note: str | None = None  # how the replay's setting differs from the run's, said once per file


class _Fields(BaseModel):
    """The fields of the original's records that rescore reads, type-checked (the others are left out)."""

    model_config = ConfigDict(extra="ignore")


class _Tau2Call(_Fields):
    id: str = ""
    name: str
    arguments: dict[str, Any] = {}
    requestor: str = "assistant"


class _Tau2Message(_Fields):
    role: str
    content: str | None = None
    tool_calls: list[_Tau2Call] | None = Field(None, fail_fast=True)
    id: str | None = None
    requestor: str | None = None


class _Tau2Simulation(_Fields):
    task_id: str | int
    trial: int = 0
    messages: Annotated[list[_Tau2Message], FailFast()]
    reward_info: dict[str, Any] | None = None
    termination_reason: str | None = None


class _Tau2InitialState(_Fields):
    message_history: list[Any] | None = None


class _Tau2Task(_Fields):
    id: str | int
    user_scenario: dict[str, Any] | None = None
    evaluation_criteria: dict[str, Any] | None = None
    initial_state: _Tau2InitialState | None = None


class _Tau2Results(_Fields):
    info: dict[str, Any] | None = None
    tasks: Annotated[list[_Tau2Task], FailFast()] = []
    simulations: Annotated[list[_Tau2Simulation], FailFast()]  # the first wrong one: not an error per item


class _OpenAIFunction(_Fields):
    name: str
    arguments: str | dict[str, Any] = "{}"


class _OpenAICall(_Fields):
    id: str = ""
    function: _OpenAIFunction


class _TauBenchMessage(_Fields):
    role: str
    content: str | None = None
    tool_calls: list[_OpenAICall] | None = Field(None, fail_fast=True)
    tool_call_id: str | None = None


class _TauBenchRun(_Fields):
    task_id: int
    trial: int = 0
    reward: float
    info: dict[str, Any] = {}
    traj: Annotated[list[_TauBenchMessage], FailFast()]


def read_runs(path: str | Path, file_format: str, domain: str | None = None,
              split: str | None = None) -> list[RecordedRun]:
    """The runs of a τ-bench or τ²-bench results file.

    Args:
        path: The file.
        file_format: ``"tau-bench"`` or ``"tau2"``.
        domain: The domain, when the file does not say it (or to override what it says).
        split: τ-bench: the task split the run used (default ``"test"``).

    Raises:
        ValueError: ``PATH: what is wrong`` for a file that is too large, not JSON, not in the
            format, or names a domain the env does not have.
    """
    if file_format not in FORMATS:
        raise ValueError(f"{path}: unknown format {file_format!r}; use one of {', '.join(FORMATS)}")
    if file_format == "bfcl":
        return _bfcl_runs(Path(path))
    data = _load_json(Path(path))
    size = Path(path).stat().st_size
    if file_format == "tau2":
        if not isinstance(data, dict):
            raise ValueError(f"{path}: not τ²-bench results: a JSON object with 'simulations', got a JSON "
                             f"{_json_kind(data)}")
        _check_run_count(path, data.get("simulations"), size)
        return _tau2_runs(path, _validated(path, _Tau2Results, data, "τ²-bench results", ""), domain,
                          data.get("tasks") or [])
    if not isinstance(data, list):
        raise ValueError(f"{path}: not τ-bench results: a JSON list of runs, got a JSON {_json_kind(data)}")
    _check_run_count(path, data, size)
    return [_tau_bench_run(path, n, _validated(path, _TauBenchRun, run, "τ-bench results", f"{n}."), domain,
                           split or "test") for n, run in enumerate(data)]


def _json_kind(value: Any) -> str:
    kinds = ((dict, "object"), (list, "list"), (str, "string"), (bool, "boolean"), (int | float, "number"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _validated(path, model: type[BaseModel], value: Any, what: str, prefix: str):
    """``value`` checked against ``model``; ValueError naming the first wrong field (``0.traj.3.role``)."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = prefix + ".".join(str(p) for p in error["loc"])
        message = error["msg"].split(" or instance of ")[0]
        raise ValueError(f"{path}: not {what}: {where.rstrip('.') or 'the file'}: {message}") from None


def _load_json(path: Path) -> Any:
    """The file's JSON, read as untrusted (:mod:`toolgym.untrusted`): a regular file of at most
    :data:`MAX_FILE_BYTES`, nested at most ``MAX_RECORD_DEPTH`` deep (the records rescore writes
    must stay readable by report), lists and objects bounded per byte."""
    return load_json(path, MAX_FILE_BYTES, "results file", MAX_RECORD_DEPTH)


def _check_run_count(path, runs: Sequence, size: int) -> None:
    """Refuse more runs than one per :data:`MIN_RUN_BYTES` of the file: each becomes a replay
    and a record of its own, so many empty runs would cost memory out of proportion to the file."""
    if isinstance(runs, list) and len(runs) > max(1, size // MIN_RUN_BYTES):
        raise ValueError(f"{path}: {len(runs):,} runs in {size:,} bytes; a recorded run takes more than "
                         f"{MIN_RUN_BYTES} bytes, so this is not a results file")


def _checked_domain(path, env_id: str, domain: Any, how: str) -> str:
    if not isinstance(domain, str) or domain not in DOMAINS[env_id]:
        shown = json.dumps(domain, default=str)[:60]
        raise ValueError(f"{path}: {how} {shown}, not one of {env_id}'s domains ({', '.join(DOMAINS[env_id])}); "
                         f"pass --domain")
    return domain


# -- τ²-bench --------------------------------------------------------------------------------
def _tau2_runs(path, results: _Tau2Results, domain: str | None, raw_tasks: list) -> list[RecordedRun]:
    if domain is None:
        environment = (results.info or {}).get("environment_info")
        named = environment.get("domain_name") if isinstance(environment, Mapping) else None
        named = TAU2_DOMAIN_ALIASES.get(named, named) if isinstance(named, str) else named
        domain = _checked_domain(path, "Tau2-v0", named, "the file's domain (info.environment_info.domain_name) is")
    else:
        domain = _checked_domain(path, "Tau2-v0", domain, "--domain is")
    histories = {str(task.id): len(task.initial_state.message_history or ()) if task.initial_state else 0
                 for task in results.tasks}
    file_tasks = {str(task.id): raw for task, raw in zip(results.tasks, raw_tasks) if task.user_scenario is not None}
    env_kwargs: dict = {"domain": domain, "tasks": "official"}
    note = None
    if domain == "banking_knowledge":
        env_kwargs["retrieval_config"], note = replay_retrieval_config((results.info or {}).get("retrieval_config"))
    runs = []
    for simulation in results.simulations:
        task_id = str(simulation.task_id)
        messages = simulation.messages
        start = histories.get(task_id, 0)
        if start == 0 and messages and messages[0].role == "assistant" and not messages[0].tool_calls:
            start = 1  # τ²'s greeting, which the env says itself
        steps: list[ToolStep | TextStep] = []
        turns: list[str | dict] = []
        user_outputs: list[str | None] = []
        paired: set[int] = set()  # tool messages already paired with a call
        for n, message in enumerate(messages[start:], start):
            if message.role == "assistant":
                if message.tool_calls:
                    steps += [ToolStep(c.name, c.arguments, _tau2_output(messages, n, c.id, paired), n)
                              for c in message.tool_calls]
                else:
                    steps.append(TextStep(message.content or "", n))
            elif message.role == "user":
                if message.tool_calls:
                    for call in message.tool_calls:
                        turns.append({"name": call.name, "arguments": call.arguments})
                        user_outputs.append(_tau2_output(messages, n, call.id, paired))
                else:
                    turns.append(message.content or "")
        reward_info = simulation.reward_info or {}
        runs.append(RecordedRun(
            env_id=FORMAT_ENVS["tau2"], domain=domain, task_id=task_id, trial=simulation.trial,
            reset_options={"task_id": task_id}, steps=steps, user_turns=turns, user_call_outputs=user_outputs,
            reward=_number(reward_info.get("reward"), 0.0), components=_tau2_components(reward_info),
            termination=simulation.termination_reason,
            env_kwargs=env_kwargs, file_task=file_tasks.get(task_id),
            recorded_actions=_recorded_actions(reward_info), replay_note=note))
    return runs


#: τ³'s run config gives banking_knowledge this retrieval config when none is named.
TAU3_DEFAULT_RETRIEVAL = "alltools"


def replay_retrieval_config(named: Any) -> tuple[str, str | None]:
    """The retrieval config a τ³ banking_knowledge run replays under, and a note when its search
    answers cannot equal the recorded ones. A file that names none ran τ³'s default, ``alltools``."""
    config = named if isinstance(named, str) and named else TAU3_DEFAULT_RETRIEVAL
    config = RETRIEVAL_ALIASES.get(config, config)
    if config in OFFLINE_ALTERNATIVE:
        replayed = OFFLINE_ALTERNATIVE[config]
        return replayed, (f"retrieval: the runs used {escape(config)}, which toolgym does not run; replayed under "
                          f"{replayed} (the same tools offline): their search answers may differ from the recorded "
                          f"ones; rewards do not read them")
    if config not in RETRIEVAL_CONFIGS:
        return DEFAULT_RETRIEVAL_CONFIG, (f"retrieval: the runs name an unknown config {escape(config)}; replayed "
                                          f"under {DEFAULT_RETRIEVAL_CONFIG}")
    if config == "alltools" or config.startswith("minilm"):
        return config, (f"retrieval: {config} replayed with toolgym's dense search (the packaged MiniLM, not "
                        f"τ³'s embedding API): its dense search answers may differ from the recorded ones; rewards "
                        f"do not read them")
    return config, None


#: Why a BFCL memory result is read but not replayed.
BFCL_MEMORY_UNREPLAYED = ("a memory question is answered from what its prerequisite conversations wrote, which the "
                          "result file does not hold: the recorded verdict is not checked again")


#: The parts of a τ² task that its replay and grading read (what a task fix changes).
TASK_DIGEST_FIELDS = ("user_scenario", "initial_state", "evaluation_criteria")
#: Values τ²'s task models fill in when a task file leaves them out (a results file holds its tasks
#: dumped whole): left out of the digest, so a dump and its source file agree.
_TASK_DEFAULTS = {"requestor": "assistant", "assert_value": True, "reward_basis": ["DB", "COMMUNICATE"],
                  "error": False}
#: The fields τ²'s models keep of a history message and of the initialization data (a dump adds
#: timestamps, audio fields and costs to each message; the model drops other initialization keys).
_KEPT = {"message_history": ("role", "content", "tool_calls", "id", "name", "arguments", "requestor", "error"),
         "initialization_data": ("agent_data", "user_data")}


def task_digest(task: Mapping) -> str:
    """A τ² task's version: the SHA-256 of what its replay and grading read
    (:data:`TASK_DIGEST_FIELDS`) as τ²'s task model keeps it, nulls, defaults and emptied objects left
    out, keys sorted."""
    def canonical(value: Any, kept: tuple[str, ...] | None = None) -> Any:
        if isinstance(value, Mapping):  # an object left empty is as good as none
            items = ((k, canonical(v, _KEPT.get(k))) for k, v in value.items()
                     if v is not None and _TASK_DEFAULTS.get(k, ...) != v and (kept is None or k in kept))
            return {k: v for k, v in items if v != {}}
        if isinstance(value, list):
            return [canonical(v, kept) for v in value]
        return value

    core = canonical({key: task.get(key) for key in TASK_DIGEST_FIELDS})
    return "sha256:" + hashlib.sha256(json.dumps(core, sort_keys=True, default=str).encode()).hexdigest()


def _tau2_output(messages: Sequence[_Tau2Message], at: int, call_id: str, paired: set[int]) -> str | None:
    """The recorded output of a call made in message ``at``: the first tool message with its id
    among the tool messages that follow, not yet paired with an earlier call. Agents reuse call
    ids (within a run, and within one message), so an id alone can name several outputs."""
    for n in range(at + 1, len(messages)):
        message = messages[n]
        if message.role != "tool":
            return None
        if message.id == call_id and n not in paired:
            paired.add(n)
            return message.content
    return None


def _recorded_actions(reward_info: Mapping) -> list | None:
    """The ground-truth actions a τ² run's ``reward_info`` checked, as ``(name, arguments)``; None
    when it checked none (nothing then tells which task the run was graded against)."""
    checks = reward_info.get("action_checks")
    if not isinstance(checks, list) or not checks:
        return None
    actions = [check.get("action") for check in checks if isinstance(check, Mapping)]
    if not actions or not all(isinstance(a, Mapping) and isinstance(a.get("name"), str) for a in actions):
        return None
    return [(a["name"], a.get("arguments") or {}) for a in actions]


def task_actions(task: Mapping | None) -> list:
    """A τ² task's ground-truth actions as ``(name, arguments)``."""
    criteria = (task or {}).get("evaluation_criteria") if isinstance(task, Mapping) else None
    actions = (criteria or {}).get("actions") if isinstance(criteria, Mapping) else None
    if not isinstance(actions, list):
        return []
    return [(a.get("name"), a.get("arguments") or {}) for a in actions if isinstance(a, Mapping)]


def grading_task(run: RecordedRun, today: Mapping[str, dict], fresh_tasks: bool = False) -> tuple[dict | None, str]:
    """The task a τ² run is graded against, and where it comes from.

    τ²'s ``evaluate-trajs`` grades against the task the file holds (``fresh_tasks``: today's task
    of the run's id). Where the file's ``reward_info`` checked ground-truth actions that are not
    that task's, the run's id was renumbered since: the task whose actions it checked is used, the
    file's when it has it, else today's one task with those actions.
    """
    own, held = today.get(run.task_id), run.file_task
    order = ((own, "today's"), (held, "the file's")) if fresh_tasks else ((held, "the file's"), (own, "today's"))
    candidates = [(task, source) for task, source in order if task is not None]
    if run.recorded_actions is None or (candidates and task_actions(candidates[0][0]) == run.recorded_actions):
        return candidates[0] if candidates else (None, "none")
    for task, source in candidates[1:]:
        if task_actions(task) == run.recorded_actions:
            return task, f"{source} (renumbered: its reward_info checked that task's actions)"
    matches = [task for task in today.values() if task_actions(task) == run.recorded_actions]
    if len(matches) == 1:
        return matches[0], f"today's {matches[0].get('id')} (renumbered: its reward_info checked that task's actions)"
    return candidates[0] if candidates else (None, "none")


def _tau2_components(reward_info: Mapping) -> dict[str, float]:
    """The recorded value of each τ² reward component: ``reward_breakdown`` where it has one,
    else from the checks (every check met)."""
    components: dict[str, float] = {}
    checks = {"ACTION": ("action_checks", "action_match"), "COMMUNICATE": ("communicate_checks", "met"),
              "ENV_ASSERTION": ("env_assertions", "met"), "NL_ASSERTION": ("nl_assertions", "met")}
    for kind, (key, flag) in checks.items():
        items = reward_info.get(key)
        if isinstance(items, list) and items and all(isinstance(i, Mapping) for i in items):
            components[TAU2_COMPONENTS[kind]] = float(all(i.get(flag) is True for i in items))
    db_check = reward_info.get("db_check")
    if isinstance(db_check, Mapping) and isinstance(db_check.get("db_match"), bool):
        components["db"] = float(db_check["db_match"])
    breakdown = reward_info.get("reward_breakdown")
    if isinstance(breakdown, Mapping):
        for kind, value in breakdown.items():
            if kind in TAU2_COMPONENTS and _number(value) is not None:
                components[TAU2_COMPONENTS[kind]] = float(value)
    return components


def _number(value: Any, default: float | None = None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return float(value)


# -- τ-bench (v1) ----------------------------------------------------------------------------
def _tau_bench_run(path, index: int, run: _TauBenchRun, domain: str | None, split: str) -> RecordedRun:
    if domain is None:
        policy = run.traj[0].content if run.traj and run.traj[0].role == "system" else None
        named = next((d for d, pattern in TAU_BENCH_POLICIES.items() if policy and pattern.search(policy[:200])), None)
        domain = _checked_domain(path, "TauBench-v0", named,
                                 f"run {index}: the domain read from its policy (system message) is")
    else:
        domain = _checked_domain(path, "TauBench-v0", domain, "--domain is")
    traj = run.traj
    react = not any(m.tool_calls for m in traj) and any(
        m.role == "assistant" and "Action:" in (m.content or "") for m in traj)
    steps, turns = (_react_steps if react else _tool_calling_steps)(traj)
    reward_info = run.info.get("reward_info")
    parts = reward_info.get("info") if isinstance(reward_info, Mapping) else None
    components = {key: float(parts[key]) for key in TAU_BENCH_COMPONENTS
                  if isinstance(parts, Mapping) and isinstance(parts.get(key), bool | int | float)}
    return RecordedRun(env_id=FORMAT_ENVS["tau-bench"], domain=domain, task_id=str(run.task_id), trial=run.trial,
                       reset_options={"task_index": run.task_id}, steps=steps, user_turns=turns, user_call_outputs=[],
                       reward=_number(run.reward, 0.0), components=components,
                       env_kwargs={"domain": domain, "tasks": "official", "split": split})


def _tool_calling_steps(traj: Sequence[_TauBenchMessage]) -> tuple[list, list]:
    """The tool-calling agent's steps: each message's first call whose output was recorded
    (v1 runs one call a message), or its text. A call's output is the tool message with its id
    among those that follow it before the next assistant message: v1's published files reuse
    call ids within a run (49 of the 200 gpt-4o airline runs), so an id alone names two outputs."""
    steps: list[ToolStep | TextStep] = []
    turns = [m.content or "" for m in traj if m.role == "user"]
    for n, message in enumerate(traj):
        if message.role != "assistant":
            continue
        if message.tool_calls:
            call = message.tool_calls[0]
            steps.append(ToolStep(call.function.name, call_arguments(call.function.arguments),
                                  _output_of(traj, n, call.id), n))
        else:
            steps.append(TextStep(message.content or "", n))
    return steps, turns


def _output_of(traj: Sequence[_TauBenchMessage], at: int, call_id: str | None) -> str | None:
    """The recorded output of the call made in message ``at``, or None when none was recorded."""
    for message in traj[at + 1:]:
        if message.role == "assistant":
            return None
        if message.role == "tool" and message.tool_call_id == call_id:
            return message.content
    return None


API_OUTPUT = "API output: "
#: What the agent says to replay a run whose user stopped before the agent acted: the env grades a
#: conversation when it ends, and a reset cannot end one, so the run ends with one stop of the
#: agent's, which adds no fact, call or database change to grade (τ² grades such a run as it stands).
AGENT_STOP = "###STOP###"


def _react_steps(traj: Sequence[_TauBenchMessage]) -> tuple[list, list]:
    """The ReAct / Act agent's steps: the JSON after the last ``Action:`` of each message (v1's
    parse: a ``respond`` action or text that is not an action is a message to the user). The
    user message after a tool action is its output (after ``API output:``); every other user
    message is a turn of the user."""
    steps: list[ToolStep | TextStep] = []
    for n, message in enumerate(traj):
        if message.role != "assistant":
            continue
        text = (message.content or "").rsplit("Action:", 1)[-1].strip()
        try:
            action = json.loads(text)
        except (ValueError, RecursionError):
            action = None
        if isinstance(action, dict) and isinstance(action.get("name"), str) and action["name"] != "respond":
            following = traj[n + 1].content or "" if n + 1 < len(traj) and traj[n + 1].role == "user" else ""
            output = following[len(API_OUTPUT):] if following.startswith(API_OUTPUT) else None
            steps.append(ToolStep(action["name"], action.get("arguments") or {}, output, n))
        else:
            arguments = action.get("arguments") if isinstance(action, dict) else None
            reply = arguments.get("content") if isinstance(arguments, dict) else None
            steps.append(TextStep(reply if isinstance(reply, str) else text, n))
    outputs_at = {step.message + 1 for step in steps if isinstance(step, ToolStep)}
    turns = [m.content or "" for n, m in enumerate(traj) if m.role == "user" and n not in outputs_at]
    return steps, turns


def call_arguments(arguments: str | dict) -> Any:
    """A call's arguments as recorded: an object, or JSON text read (text that is no JSON stays as it is)."""
    if isinstance(arguments, dict):
        return arguments
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return arguments  # replayed as recorded: the env reports arguments it cannot read


# -- BFCL ------------------------------------------------------------------------------------
BFCL_RESULT_FILE = re.compile(r"BFCL_v4_(\w+)_result\.json")


class _BFCLEntry(_Fields):
    id: str
    result: Any = None


def _bfcl_runs(folder: Path) -> list[RecordedRun]:
    """The entries of BFCL's result files under ``folder`` (``result/<model>/...``, as ``toolgym
    export`` and BFCL's generation write them), each with BFCL's verdict from the score file
    ``bfcl evaluate`` (or ``export``) wrote next to them (``score/<model>/...``): an entry listed
    there failed, every other entry of a scored category passed."""
    from toolgym.envs.bfcl.env import CATEGORIES, FORMAT_SENSITIVITY, MULTI_TURN

    models = sorted(p.name for p in (folder / "result").glob("*") if p.is_dir())
    if len(models) != 1:
        raise ValueError(f"{folder}: expected BFCL's result/<model>/ with one model, found "
                         f"{', '.join(models) or 'none'}")
    runs = []
    for result_file in sorted((folder / "result" / models[0]).rglob("BFCL_v4_*_result.json")):
        category = BFCL_RESULT_FILE.fullmatch(result_file.name).group(1)
        if category not in CATEGORIES and category != FORMAT_SENSITIVITY:
            raise ValueError(f"{result_file}: {category!r} is not a BFCL category toolgym runs")
        score_file = folder / "score" / models[0] / result_file.parent.relative_to(folder / "result" / models[0]) / (
            f"BFCL_v4_{category}_score.json")
        if not score_file.is_file():
            raise ValueError(f"{result_file}: no score file {score_file} (bfcl evaluate writes it) to compare with")
        failed = {line.get("id") for line in _json_lines(score_file)[1:] if isinstance(line, dict)}
        for n, line in enumerate(_json_lines(result_file)):
            entry = _validated(result_file, _BFCLEntry, line, "a BFCL result file", f"line {n + 1}: ")
            answers = entry.result if category in MULTI_TURN else [[entry.result]]
            if not isinstance(answers, list) or not all(isinstance(turn, list) for turn in answers):
                raise ValueError(f"{result_file}: line {n + 1}: a multi-turn result is a list of turns, each a list "
                                 f"of steps")
            steps = [AnswerStep(_bfcl_action(answer), i) for i, answer in enumerate(a for t in answers for a in t)]
            runs.append(RecordedRun(env_id=FORMAT_ENVS["bfcl"], domain=category, task_id=entry.id, trial=0,
                                    reset_options={"task_id": entry.id}, steps=steps, user_turns=[],
                                    user_call_outputs=[], reward=float(entry.id not in failed), components={},
                                    env_kwargs={"tasks": "official", "category": category,
                                                "scoring": "paper_compat"}))  # BFCL's checker, as released
    if not runs:
        raise ValueError(f"{folder}: holds no BFCL_v4_<category>_result.json under result/{models[0]}/")
    return runs


def _bfcl_action(answer: Any) -> Any:
    """A step's stored answer as the env's action: a function-calling model's ``[{name: "<json
    arguments>"}]`` as tool calls, anything else (a prompting model's text) as it is."""
    if isinstance(answer, list) and answer and all(isinstance(c, dict) and len(c) == 1 for c in answer):
        return [{"name": name, "arguments": call_arguments(arguments) if isinstance(arguments, str) else arguments}
                for call in answer for name, arguments in call.items()]
    return answer


def _json_lines(path: Path) -> list[Any]:
    """The JSON values of a JSONL file, one a line (blank lines left out), read as untrusted."""
    values = []
    for n, line in read_json_lines(path, MAX_FILE_BYTES, "BFCL result file", MAX_RECORD_DEPTH):
        if line.strip():
            try:
                values.append(json.loads(line))
            except (ValueError, RecursionError):
                raise ValueError(f"{path}: line {n} is not JSON") from None
    return values


# -- replay ----------------------------------------------------------------------------------
def same_output(recorded: str | None, replayed: str) -> bool:
    """Whether a replayed tool output says what the recorded one does: equal text, or equal JSON."""
    if recorded is None or recorded.strip() == replayed.strip():  # None: no output was recorded to compare
        return True
    try:
        return json.loads(recorded) == json.loads(replayed)
    except (ValueError, RecursionError):
        return False


def replay_run(env, user, run: RecordedRun) -> dict:
    """Replay ``run`` in ``env`` (made with ``user``, a ReplayUser); the episode's record fields
    and ``rescore``: the recorded reward and components, the verdict, the differing components
    and the first step whose tool output differs from the recorded one."""
    base = env.unwrapped
    user.play(run.user_turns)
    steps = run.steps or [TextStep(AGENT_STOP, -1)]  # a user that stopped at once: see AGENT_STOP
    base.max_steps = len(steps)  # the run's own length: a run that did not stop ends here
    if hasattr(base, "max_messages"):  # Tau2-v0: a step here is one call, not τ²'s message of calls
        base.max_messages = None
    observation, info = env.reset(seed=0, options=run.reset_options)  # the replay draws nothing at random
    record: dict[str, Any] = {"task_id": info.get("task_id", run.task_id), "split": info.get("split"),
                              "trial": run.trial, "metrics": None, "trajectory": [], "return": 0.0}
    first_difference = None
    user_calls_seen = 0
    outputs = {"compared": 0, "equal": 0}  # recorded tool outputs compared with the replayed ones
    user_calls = [turn for turn in run.user_turns if isinstance(turn, dict)]
    for number, step in enumerate(steps, 1):
        action = ({"name": step.name, "arguments": step.arguments} if isinstance(step, ToolStep)
                  else step.action if isinstance(step, AnswerStep) else step.text)
        observation, reward, terminated, truncated, info = env.step(action)
        record["trajectory"].append({"action": action, "observation": observation, "reward": reward})
        record["return"] += reward
        compared = []  # (requestor, tool, recorded, replayed) of this step's calls, the agent's then the user's
        if isinstance(step, ToolStep):
            compared.append(("assistant", step.name, step.output, observation))
        for i in range(user_calls_seen, len(user.call_results)):
            recorded = run.user_call_outputs[i] if i < len(run.user_call_outputs) else None
            compared.append(("user", user_calls[i]["name"] if i < len(user_calls) else "?", recorded,
                             user.call_results[i]))
        user_calls_seen = len(user.call_results)
        compared = [c for c in compared if c[2] is not None]
        differences = [c for c in compared if not same_output(c[2], c[3])]
        outputs["compared"] += len(compared)
        outputs["equal"] += len(compared) - len(differences)
        if first_difference is None and differences:
            requestor, name, recorded, replayed = differences[0]
            first_difference = {"step": number, "message": step.message, "tool": name, "requestor": requestor,
                                "recorded": recorded, "toolgym": replayed}
        if terminated or truncated:
            break
    record["metrics"] = info.get("metrics")
    replayed_steps = len(record["trajectory"])
    record["rescore"] = _comparison(run, record["metrics"], first_difference, len(steps) - replayed_steps)
    record["rescore"]["tool_outputs"] = outputs
    return record


def _comparison(run: RecordedRun, metrics: Mapping | None, first_difference: dict | None, unreplayed: int) -> dict:
    metrics = metrics or {}
    reward = _number(metrics.get("reward"), _number(metrics.get("success"), 0.0))  # BFCL-v0's is its success
    differing = [f"{key} (toolgym {float(metrics[key]):g}, recorded {value:g})"
                 for key, value in run.components.items()
                 if _number(metrics.get(key)) is not None and float(metrics[key]) != value]
    termination = metrics.get("termination")
    if not run.steps and termination == "agent_stop":
        termination = run.termination  # the user stopped at once (AGENT_STOP): its stop
    if run.termination in TERMINATIONS and termination in TERMINATIONS and termination != run.termination:
        differing.append(f"termination (toolgym {termination}, recorded {run.termination})")
    unscored = [c for c in metrics.get("unscored") or () if isinstance(c, str)]
    nl_as_recorded = unscored == ["NL_ASSERTION"] and "nl_assertion" in run.components
    if nl_as_recorded:  # no judge here: the recorded judge's verdict stands in for toolgym's
        reward = _number(metrics.get("reward_without_judge"), 0.0) * run.components["nl_assertion"]
        unscored = []
    if abs(reward - run.reward) <= SUCCESS_TOLERANCE:
        verdict = "agree"
    elif unscored:
        verdict = "unscored"  # a component toolgym cannot score here (NL assertions without a judge)
    else:
        verdict = "differ"
    return {"recorded_reward": run.reward, "recorded": run.components, "reward": reward, "verdict": verdict,
            "nl_assertion_as_recorded": nl_as_recorded,
            "differing": differing, "unscored": unscored, "first_tool_difference": first_difference,
            "recorded_termination": run.termination, "termination": termination,
            "unreplayed_steps": unreplayed}


def is_success(reward: float) -> bool:
    return reward >= 1 - SUCCESS_TOLERANCE


def pass_hat_by_domain(rows: Sequence[tuple[str, str, float]]) -> dict[str, dict[str, float]]:
    """pass^1..pass^k per domain from ``(domain, task_id, reward)`` rows, k up to the fewest
    trials any task of the domain has (τ²-bench's rule)."""
    domains: dict[str, dict[str, list[bool]]] = {}
    for domain, task_id, reward in rows:
        domains.setdefault(domain, {}).setdefault(task_id, []).append(is_success(reward))
    return {domain: {f"pass^{k}": pass_hat_k(tasks, k) for k in range(1, min(map(len, tasks.values())) + 1)}
            for domain, tasks in domains.items()}


def rescore(path: str | Path, file_format: str, domain: str | None = None, split: str | None = None,
            data_dir: str | None = None, judge: str | None = None,
            fresh_tasks: bool = False) -> tuple[list[dict], list[RecordedRun]]:
    """Replay every run of a results file; the toolgym records (one per run, in the file's order,
    with ``rescore`` fields; a run that could not be replayed has ``error``) and the runs.
    ``judge`` (``hf:MODEL`` or ``openai:URL#MODEL``, from the command line, never the file)
    scores Tau2-v0's NL assertions. τ² runs are graded against the task the file holds, or with
    ``fresh_tasks`` today's (:func:`grading_task`).

    Raises:
        ValueError: for a file that cannot be read (``PATH: ...``) or an env that cannot be made.
    """
    runs = read_runs(path, file_format, domain, split)
    if not runs:
        raise ValueError(f"{path}: holds no runs")
    return rescore_runs(runs, str(path), data_dir, judge, fresh_tasks), runs


def rescore_runs(runs: Sequence[RecordedRun], source: str, data_dir: str | None = None,
                 judge: str | None = None, fresh_tasks: bool = False) -> list[dict]:
    """The toolgym records of ``runs`` (see :func:`rescore`), read from the file ``source``."""
    envs: dict[tuple, tuple[Any, ReplayUser, dict]] = {}
    records = []
    trials: dict[tuple[str, str], int] = {}
    for run in runs:
        trials[run.domain, run.task_id] = trials.get((run.domain, run.task_id), 0) + 1
    for run in runs:
        if run.env_id == FORMAT_ENVS["bfcl"] and run.domain.startswith("memory_"):
            records.append(_unreplayed(run, source, 1, BFCL_MEMORY_UNREPLAYED))
            continue
        key = (run.env_id, json.dumps(run.env_kwargs, sort_keys=True))
        if key not in envs:
            if run.env_id not in toolgym.ENV_IDS:
                raise ValueError(f"{source}: its runs are replayed in {run.env_id}, which this toolgym does not have")
            user = ReplayUser()
            kwargs = {**run.env_kwargs, **({"data_dir": data_dir} if data_dir else {}),
                      **({"judge": judge} if judge else {})}
            env = make_env(run.env_id, kwargs if run.env_id == FORMAT_ENVS["bfcl"] else {**kwargs, "user": user})
            header = run_header(run.env_id, env, f"recorded:{Path(source).name}", 0,
                                run.env_kwargs if run.env_id == FORMAT_ENVS["bfcl"] else
                                {**run.env_kwargs, "user": "replay"}, None)
            envs[key] = (env, user, header)
        env, user, header = envs[key]
        record = {**header, "task_id": run.task_id, "trial": run.trial,
                  "trials": trials[run.domain, run.task_id], "domain": run.domain}
        if run.env_id == FORMAT_ENVS["tau2"]:
            today = env.unwrapped.task_data.tasks
            task, graded_against = grading_task(run, today, fresh_tasks)
            if task is not None:
                run.reset_options = {"task_record": task}
            record["graded_against"] = graded_against
            if run.file_task is not None and run.task_id in today:  # τ³'s task fixes change rewards
                record["task_changed"] = task_digest(run.file_task) != task_digest(today[run.task_id])
        if not run.steps and run.env_id != FORMAT_ENVS["tau2"]:
            record.update(metrics=None, error="the run has no action of the agent to replay")
        else:
            try:
                record.update(replay_run(env, user, run))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:  # an unknown task, a turn refused
                record.update(metrics=None, error=str(exc.args[0] if exc.args else exc))
        records.append(record)
    return records


def _unreplayed(run: RecordedRun, source: str, trials: int, reason: str) -> dict:
    """The record of a run that is read but not replayed: unscored, ``reason`` saying why."""
    return {"env": run.env_id, "task_set": "official", "agent": f"recorded:{Path(source).name}", "seed": 0,
            "toolgym_version": toolgym.__version__, "env_kwargs": {**run.env_kwargs, "user": "replay"},
            "task_id": run.task_id, "trial": run.trial, "trials": trials, "domain": run.domain, "metrics": None,
            "rescore": {"recorded_reward": run.reward, "recorded": run.components, "reward": None,
                        "verdict": "unscored", "nl_assertion_as_recorded": False, "differing": [reason],
                        "unscored": [reason], "first_tool_difference": None, "recorded_termination": run.termination,
                        "termination": None, "unreplayed_steps": len(run.steps),
                        "tool_outputs": {"compared": 0, "equal": 0}}}


def task_versions_line(records: Sequence[dict]) -> str | None:
    """How many τ² runs ran on another version of their task than today's (by :func:`task_digest`),
    and which version graded them; None when no run's task could be compared."""
    compared = [r for r in records if isinstance(r.get("task_changed"), bool)]
    if not compared:
        return None
    changed = [r for r in compared if r["task_changed"]]
    if not changed:
        return f"task versions: all {len(compared)} compared run(s) ran on today's version of their task"
    fresh = [r for r in changed if str(r.get("graded_against", "")).startswith("today's")]
    held = len(changed) - len(fresh)
    parts = []
    if held:
        parts.append(f"{held} run(s) graded on older task versions, the ones the file holds (as τ²'s evaluate-trajs "
                     f"grades; --fresh-tasks grades against today's)")
    if fresh:
        parts.append(f"{len(fresh)} run(s) graded against today's task versions (--fresh-tasks), not the older ones "
                     f"they ran on")
    return (f"task versions: {len(changed)} of {len(compared)} compared run(s) differ from today's task of their id "
            f"by digest: " + "; ".join(parts))


def format_rescore_table(path: str | Path, file_format: str, records: Sequence[dict],
                         runs: Sequence[RecordedRun]) -> str:
    """Per run: toolgym's reward against the recorded one; then pass^k per domain from both."""
    head = ["run", "domain", "task", "trial", "recorded", "toolgym", "verdict", "differing",
            "first differing tool output"]
    body = []
    counts: dict[str, int] = {}
    for n, (record, run) in enumerate(zip(records, runs), 1):
        comparison = record.get("rescore")
        if comparison is None:
            verdict, toolgym_reward, differing, first = "error", "-", record.get("error", ""), "-"
        else:
            verdict = comparison["verdict"]
            toolgym_reward = "-" if comparison["reward"] is None else f"{comparison['reward']:g}" + (
                " (NL as recorded)" if comparison.get("nl_assertion_as_recorded") else "")
            differing = "; ".join(comparison["differing"]) or "-"
            if "renumbered" in record.get("graded_against", ""):
                differing = f"graded against {record['graded_against']}; {differing}"
            found = comparison["first_tool_difference"]
            first = (f"step {found['step']} ({found['tool']}, called in message {found['message']})" if found else "-")
        counts[verdict] = counts.get(verdict, 0) + 1
        body.append([str(n), run.domain, run.task_id, str(run.trial), f"{run.reward:g}", toolgym_reward, verdict,
                     differing, first])
    summary = ", ".join(f"{counts[verdict]} {verdict}" for verdict in VERDICTS if verdict in counts)
    compared = [r["rescore"]["tool_outputs"] for r in records if r.get("rescore")]
    equal = f"{sum(c['equal'] for c in compared)} of {sum(c['compared'] for c in compared)}"
    lines = [f"{escape(path)}: {len(runs)} run(s) in {file_format} format, replayed in {runs[0].env_id}: {summary}; "
             f"{equal} recorded tool outputs equal"]
    versions = task_versions_line(records)
    lines += [versions] if versions else []
    lines += sorted({run.replay_note for run in runs if run.replay_note})
    lines += text_table(head, body)
    lines += ["", *format_pass_hat(records, runs)]
    return "\n".join(lines)


def pass_hat_rows(records: Sequence[dict], runs: Sequence[RecordedRun]) -> tuple[list, list]:
    """``(domain, task_id, reward)`` rows of toolgym and of the recording, over the runs toolgym
    scored (τ²'s infrastructure failures left out, as its metrics do; so are runs toolgym cannot
    score without a judge: they are no failures)."""
    toolgym_rows, recorded_rows = [], []
    for record, run in zip(records, runs):
        comparison = record.get("rescore")
        if comparison is None or comparison["verdict"] == "unscored" or run.termination in EXCLUDED_TERMINATIONS:
            continue
        toolgym_rows.append((run.domain, run.task_id, record["rescore"]["reward"]))
        recorded_rows.append((run.domain, run.task_id, run.reward))
    return toolgym_rows, recorded_rows


def format_pass_hat(records: Sequence[dict], runs: Sequence[RecordedRun]) -> list[str]:
    toolgym_rows, recorded_rows = pass_hat_rows(records, runs)
    ours, theirs = pass_hat_by_domain(toolgym_rows), pass_hat_by_domain(recorded_rows)
    if not ours:
        return ["pass^k: no run was scored"]
    k = max(len(values) for values in ours.values())
    head = ["domain", "from", *(f"pass^{i}" for i in range(1, k + 1))]
    body = []
    for domain in ours:
        for source, table in (("recorded", theirs), ("toolgym", ours)):
            body.append([domain, source, *(f"{100 * table[domain][f'pass^{i}']:.1f}" if f"pass^{i}" in table[domain]
                                           else "-" for i in range(1, k + 1))])
    return text_table(head, body)
