"""τ²-bench's task sets: the official tasks, splits and databases, and the built-in generated ones.

Official data is read in τ²-bench's layout under the data root: ``tau2bench/tau2/domains/<domain>/``
(``tasks.json``, ``split_tasks.json``, ``policy.md``, ``db.json``; telecom's ``db.toml`` and
``user_db.toml``). Two fallbacks for older copies of the data: airline without τ²'s ``db.json``
reads τ-bench v1's ``tau_bench_v1/tau_bench/envs/airline/data/{flights,reservations,users}.json``
(the same tables but for one flight's statuses and one reservation, HAT018 and Z7GOZK), and
telecom without the full ``tasks.json`` reads ``tasks_small.json`` (its 20 tasks, split ``small``).
"""

from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from toolgym.envs.common.official import (OfficialDataError, OfficialLayout, read_json, read_official_text,
                                          require_key)
from toolgym.worlds.base import Snapshot
from toolgym.worlds.tau2 import tasks as builtin_tasks
from toolgym.worlds.tau2.airline import AirlineWorld
from toolgym.worlds.tau2.banking_knowledge import BankWorld, load_bank, read_log_allowlist
from toolgym.worlds.tau2.mock import MockWorld
from toolgym.worlds.tau2.retail import RetailWorld
from toolgym.worlds.tau2.telecom import TelecomWorld
from toolgym.worlds.tools import ToolError, ToolResult

WORLDS = {"airline": AirlineWorld, "retail": RetailWorld, "telecom": TelecomWorld, "mock": MockWorld,
          "banking_knowledge": BankWorld}
DOMAINS = tuple(WORLDS)
AIRLINE_V1 = "tau_bench_v1/tau_bench/envs/airline/data"
BUILTIN_TASKS = {"airline": builtin_tasks.airline_tasks, "retail": builtin_tasks.retail_tasks,
                 "telecom": builtin_tasks.telecom_tasks, "mock": builtin_tasks.mock_tasks}
BUILTIN_DATABASES = {"airline": builtin_tasks.airline_database, "retail": builtin_tasks.retail_database,
                     "telecom": builtin_tasks.telecom_database, "mock": builtin_tasks.mock_database}
TELECOM_FILES = ("db.toml", "user_db.toml", "main_policy.md", "tech_support_manual.md")
BANK = "banking_knowledge"
#: Why τ³ refuses solo mode in a domain (its ``get_environment(solo_mode=True)`` words).
SOLO_REFUSALS = {"airline": "Airline domain does not support solo mode",
                 "retail": "Retail domain does not support solo mode",
                 "banking_knowledge": "banking_knowledge domain does not support solo mode"}
AIRLINE_TABLES = ("flights", "reservations", "users")
#: The split of official runs when none is named: τ²'s ``base`` (the paper's tasks; every task of
#: airline, retail and mock, telecom's 114 of 2,285).
DEFAULT_OFFICIAL_SPLIT = "base"
_ASSETS = Path(__file__).resolve().parents[2] / "assets" / "tau2"


def layouts(domain: str) -> list[OfficialLayout]:
    """The layouts the domain's data may come in, preferred first: τ²'s own files, then (airline,
    telecom) the fallback of an older copy."""
    folder = f"tau2/domains/{domain}"
    if domain == BANK:  # τ³'s knowledge domain: no policy file; the prompts are templates per retrieval config
        return [OfficialLayout(name="τ³-bench banking_knowledge", benchmark="tau2bench",
                               expected=(f"{folder}/tasks.json", f"{folder}/db.json", f"{folder}/documents/*.json"),
                               also_reads=(f"{folder}/prompts/*.md", f"{folder}/prompts/components/*.md"),
                               source=f"sierra-research/tau2-bench on GitHub (MIT), a2c0247: data/{folder}/")]
    if domain == "telecom":
        files = [[f"{folder}/{name}" for name in TELECOM_FILES] + [f"{folder}/{tasks}"]
                 for tasks in ("tasks.json", "tasks_small.json")]
    else:
        files = [[f"{folder}/tasks.json", f"{folder}/split_tasks.json", f"{folder}/db.json"]]
        if domain == "airline":
            files.append(files[0][:2] + [f"{AIRLINE_V1}/{table}.json" for table in AIRLINE_TABLES])
    also_reads = tuple(f"{folder}/{name}" for name in ("split_tasks.json", "policy.md", "main_policy.md",
                                                       "tech_support_manual.md", "user_db.json", "policy_solo.md",
                                                       "main_policy_solo.md"))
    source = f"sierra-research/tau2-bench on GitHub (MIT): data/tau2/domains/{domain}/"
    if domain == "airline":
        source += f"; the fallback's tables from sierra-research/tau-bench's {AIRLINE_V1}/"
    return [OfficialLayout(name=f"τ²-bench {domain}", benchmark="tau2bench", expected=tuple(expected),
                           also_reads=also_reads, source=source)
            for expected in files]


@dataclass(frozen=True)
class TaskSet:
    """Tasks by id (τ²-bench's task records), each task's splits, the policy and the initial world."""

    tasks: dict[str, dict]
    splits: dict[str, tuple[str, ...]]
    policy: str
    initial_state: Snapshot
    #: The split run when none is named (None: every task).
    default_split: str | None = None
    #: The policy of solo mode (τ³: the agent works a ticket without a user); None where the domain has none.
    solo_policy: str | None = None
    #: banking_knowledge: the knowledge base (the world's ``knowledge``) and τ³'s prompt templates' folder
    #: (None for a built-in bank, whose prompt is toolgym's own wording).
    knowledge: Any = None
    prompts_dir: str | None = None


def official_task_set(env_id: str, domain: str, data_dir: str | os.PathLike | None) -> TaskSet:
    """The official tasks of ``domain``, its splits, policy and database.

    Raises:
        FileNotFoundError: No folder tried holds the domain's files (the message lists them).
        OfficialDataError: A file is not JSON or a task lacks a key τ²-bench's format has.
    """
    first_error = None
    for layout in layouts(domain):
        try:
            folder = layout.locate(env_id, data_dir)
        except FileNotFoundError as error:  # the message of the preferred layout says what to place where
            first_error = first_error or error
            continue
        task_set = _read_official(domain, str(folder))
        layout.check_not_empty(env_id, folder, len(task_set.tasks))
        return task_set
    raise first_error


@lru_cache(maxsize=4)
def _read_official(domain: str, folder: str) -> TaskSet:
    root = Path(folder)
    domain_folder = root / "tau2" / "domains" / domain
    if domain == BANK:
        return _read_official_bank(domain_folder)
    world = WORLDS[domain]()
    if domain == "telecom":
        try:
            carrier = tomllib.loads(read_official_text(domain_folder / "db.toml"))
            phone = tomllib.loads(read_official_text(domain_folder / "user_db.toml"))
        except tomllib.TOMLDecodeError as error:
            raise OfficialDataError(f"{domain_folder}: db.toml or user_db.toml is not TOML: {error}") from None
        world.load_telecom(carrier, phone.get("device"))
    else:
        if domain == "airline" and not (domain_folder / "db.json").is_file():
            data = {table: read_json(root / AIRLINE_V1 / f"{table}.json") for table in AIRLINE_TABLES}
        else:
            data = read_json(domain_folder / "db.json")
            if domain == "mock" and (domain_folder / "user_db.json").is_file():  # the user's inbox
                data = {**data, **(read_json(domain_folder / "user_db.json") or {})}
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise OfficialDataError(f"{domain_folder}: the database is not τ²-bench's layout of tables of records")
        world.load(data)
    task_file = domain_folder / "tasks.json"
    if domain == "telecom" and not task_file.is_file():
        task_file = domain_folder / "tasks_small.json"
    tasks = read_json(task_file)
    if not isinstance(tasks, list):
        raise OfficialDataError(f"{task_file}: expected a JSON list of tasks")
    by_id = {}
    for i, task in enumerate(tasks):
        where = f"{task_file}: task {i}"
        by_id[str(require_key(task, "id", where))] = task
        require_key(task, "user_scenario", where)
    split_path = domain_folder / "split_tasks.json"
    split_file = read_json(split_path) if split_path.is_file() else {}
    splits: dict[str, tuple[str, ...]] = {task_id: () for task_id in by_id}
    for split, ids in (split_file or {}).items():
        for task_id in ids:
            if str(task_id) in splits:
                splits[str(task_id)] += (split,)
    if domain == "telecom":  # τ²-bench's telecom policy: the main policy and the tech-support manual
        policy = _telecom_policy(domain_folder / "main_policy.md", domain_folder / "tech_support_manual.md")
        # τ³'s solo policy keeps the manual ("manual" policy type, the default) with the solo main policy
        solo = domain_folder / "main_policy_solo.md"
        solo_policy = _telecom_policy(solo, domain_folder / "tech_support_manual.md") if solo.is_file() else None
    else:
        policy = read_official_text(domain_folder / "policy.md")
        solo = domain_folder / "policy_solo.md"
        solo_policy = read_official_text(solo) if domain not in SOLO_REFUSALS and solo.is_file() else None
    default_split = "small" if task_file.name == "tasks_small.json" else DEFAULT_OFFICIAL_SPLIT
    return TaskSet(by_id, splits, policy, world.snapshot(), default_split, solo_policy)


def _read_official_bank(folder: Path) -> TaskSet:
    """τ³'s banking_knowledge files through :func:`load_bank`: the documents in file-name order (τ³
    globs them in its file system's order), every task in ``base`` (τ³ has no splits for it), the
    prompt templates of ``prompts/``."""
    tasks = read_json(folder / "tasks.json")
    if not isinstance(tasks, list):
        raise OfficialDataError(f"{folder / 'tasks.json'}: expected a JSON list of tasks")
    for i, task in enumerate(tasks):
        require_key(task, "user_scenario", f"{folder / 'tasks.json'}: task {i}")
    documents = [read_json(path) for path in sorted((folder / "documents").glob("*.json"))]
    try:
        bank = load_bank(read_json(folder / "db.json"), documents, tasks)
    except ValueError as error:
        raise OfficialDataError(f"{folder}: {error}") from None
    prompts = folder / "prompts"  # without τ³'s templates the prompt is toolgym's own wording
    return bank_task_set(bank, {task_id: () for task_id in bank.tasks}, str(prompts) if prompts.is_dir() else None,
                         DEFAULT_OFFICIAL_SPLIT)


def bank_task_set(bank, splits: dict[str, tuple[str, ...]], prompts_dir: str | None,
                  default_split: str | None = None) -> TaskSet:
    """A loaded bank (:func:`toolgym.worlds.tau2.banking_knowledge.load_bank`) as a task set; its
    prompt is the retrieval config's (no policy text of its own)."""
    return TaskSet(bank.tasks, splits, "", bank.initial_state, default_split, None, bank.knowledge, prompts_dir)


def _telecom_policy(main: Path, tech_support: Path) -> str:
    return (f"<main_policy>\n{read_official_text(main)}\n</main_policy>\n"
            f"<tech_support_policy>\n{read_official_text(tech_support)}\n</tech_support_policy>")


def solo_ready(task: dict) -> bool:
    """Whether τ³'s solo agent takes ``task`` (its ``LLMSoloAgent.check_valid_task``): a task whose
    history holds only tool calls and their results, or one with a ticket and ground-truth actions."""
    state = task.get("initial_state")
    if state is not None:
        return all(message.get("role") != "user" and (message.get("role") != "assistant" or message.get("tool_calls"))
                   for message in state.get("message_history") or ())
    criteria = task.get("evaluation_criteria")
    return bool(task.get("ticket")) and criteria is not None and bool(criteria.get("actions"))


#: Of each template's built-in tasks, in the order generated, the 2nd, 7th, 12th, ... are held out in the
#: ``test`` split (a fifth); the rest are ``train``.
TEST_EVERY = 5
#: The built-in splits: ``base`` (every task, the default), ``train`` and ``test`` (disjoint).
BUILTIN_SPLITS = ("base", "train", "test")


@lru_cache(maxsize=8)
def builtin_task_set(domain: str, world_seed: int) -> TaskSet:
    """Tasks generated over the seeded database of ``domain``, each in ``base`` and in ``train`` or
    (one of each template's every ``TEST_EVERY``) ``test``. Each task's ground truth is run once here, as
    an episode runs it; a task whose calls fail on the generated database, or after which one of its
    assertions does not hold, is left out."""
    if domain == BANK:
        return builtin_bank_task_set(world_seed)
    world = WORLDS[domain](seed=world_seed)
    initial = world.snapshot()
    database = BUILTIN_DATABASES[domain](world_seed)
    tasks, splits = {}, {}
    per_template: dict[str, int] = {}
    for task in BUILTIN_TASKS[domain](database, world_seed):
        if _solved_by_ground_truth(world, initial, task):
            template = (task.get("description") or {}).get("template", "")
            n = per_template[template] = per_template.get(template, -1) + 1
            tasks[task["id"]] = task
            # held out per template, so that the test split has every kind of task the train split has
            splits[task["id"]] = ("base", "test" if n % TEST_EVERY == 1 else "train")
    policy = (_ASSETS / f"{domain}_policy.md").read_text(encoding="utf-8")
    rules = _ASSETS / f"{domain}_rules.md"  # what the built-in tasks' refusals rest on (not TauBench-v0's wiki)
    if rules.is_file():
        policy += rules.read_text(encoding="utf-8")
    solo = _ASSETS / f"{domain}_policy_solo.md"
    return TaskSet(tasks, splits, policy, initial, solo_policy=solo.read_text(encoding="utf-8") if solo.is_file() else None)


def builtin_bank_task_set(world_seed: int) -> TaskSet:
    """banking_knowledge's built-in tasks: the bank, knowledge base and tasks of
    :func:`toolgym.worlds.tau2.banking_knowledge.generate.generate_bank` for ``world_seed``, its
    ``train`` and ``test`` tasks (disjoint templates) both in ``base``; loaded through ``load_bank``."""
    try:
        from toolgym.worlds.tau2.banking_knowledge.generate import generate_bank
    except ImportError:
        raise ValueError("banking_knowledge has no built-in tasks in this build (its generator, "
                         "toolgym.worlds.tau2.banking_knowledge.generate, is missing): use tasks='official'") from None
    parts = {split: generate_bank(world_seed, split) for split in ("train", "test")}
    bank = load_bank(parts["train"]["db"], parts["train"]["documents"],
                     parts["train"]["tasks"] + parts["test"]["tasks"])
    world = BankWorld(seed=world_seed)
    splits = {}
    for split, part in parts.items():
        for task in part["tasks"]:
            if _solved_by_ground_truth(world, bank.initial_state, task):
                splits[task["id"]] = ("base", split)
    world.close()
    tasks = {task_id: bank.tasks[task_id] for task_id in splits}
    return bank_task_set(type(bank)(bank.initial_state, bank.knowledge, tasks), splits, None)


def _solved_by_ground_truth(world, initial, task: dict) -> bool:
    start_task(world, initial, task)
    criteria = task["evaluation_criteria"]
    for action in criteria["actions"]:
        result = call_tool(world, action.get("requestor", "assistant"), action["name"], action["arguments"], sync=True)
        # a banking_knowledge tool refuses with a result text (τ³'s), not a failed call
        if not result.ok or (isinstance(world, BankWorld) and str(result.response).startswith(("Error", "Failed"))):
            return False
    for assertion in criteria.get("env_assertions") or ():
        try:
            value = run_function(world, assertion.get("env_type", "assistant"), assertion["func_name"],
                                 assertion.get("arguments"))
        except ToolError:
            return False
        if value != assertion.get("assert_value", True):
            return False
    return True


def toolkit(world, requestor: str):
    """The agent's tools (``"assistant"``) or the user's (``"user"``; None in a domain without them)."""
    return world.tools if requestor == "assistant" else getattr(world, "user_tools", None)


def call_tool(world, requestor: str, name: str, arguments, sync: bool) -> ToolResult:
    """A tool call of the agent or the user; ``sync`` then carries the change to the other side
    (τ²-bench syncs after every call of an episode, not between its ground-truth actions)."""
    tools = toolkit(world, requestor)
    if tools is None:
        # τ²'s environment's words
        return ToolResult(name=str(name), arguments={}, known=False,
                          error="User tools not available" if requestor == "user" else "Tools not available")
    if sync and hasattr(world, "sync"):
        return world.call_synced(tools, name, arguments)
    return tools.call(name, arguments)


def run_function(world, env_type: str, name: str, arguments: dict):
    """An environment function of a task (setup or assertion) on the agent's or the user's side,
    then a sync, as τ²-bench's ``run_env_function_call``; only names the toolkit lists run."""
    tools = toolkit(world, env_type)
    allowed = set(getattr(tools, "functions", ())) | set(getattr(tools, "assertions", ())) | set(
        getattr(tools, "specs", {}))
    if tools is None or name not in allowed:
        raise ToolError(f"no function {name!r} on the {env_type} side")
    value = getattr(tools, getattr(tools.specs.get(name), "method_name", name))(**(arguments or {}))
    if hasattr(world, "sync"):
        world.sync()
    world.commit()
    return value


def start_task(world, initial, task: dict) -> None:
    """Put ``world`` in the task's starting state: the domain's database, the task's
    initialization data merged in, its initialization functions run, and the tool calls of
    its message history replayed."""
    world.restore(initial)
    state = task.get("initial_state") or {}
    initialization = state.get("initialization_data") or {}
    if isinstance(world, BankWorld):  # τ³'s layout of tables ({"data": ..., "notes": ...}), both sides' data
        for side in ("agent_data", "user_data"):
            world.merge_initialization(initialization.get(side) or {})
        world.set_read_log_allowlist(read_log_allowlist(task))
    agent_data = {} if isinstance(world, BankWorld) else initialization.get("agent_data") or {}
    for table, records in agent_data.items():
        for key, update in (records or {}).items():
            record = world.get(table, key, "") if world.has(table, key) else {}
            world.put(table, key, _merged(record, update))
    for function in state.get("initialization_actions") or ():
        run_function(world, function.get("env_type", "assistant"), function["func_name"], function.get("arguments"))
    for message in state.get("message_history") or ():
        for call in message.get("tool_calls") or ():
            call_tool(world, "user" if message["role"] == "user" else "assistant", call["name"],
                      call.get("arguments") or {}, sync=True)
    if hasattr(world, "sync"):
        world.sync()
    world.commit()


def _merged(record, update):
    """``update`` merged into ``record``: dicts key by key, anything else replaced (τ²'s update_db)."""
    if isinstance(record, dict) and isinstance(update, dict):
        out = dict(record)
        for key, value in update.items():
            out[key] = _merged(record.get(key), value)
        return out
    return copy.deepcopy(update)
