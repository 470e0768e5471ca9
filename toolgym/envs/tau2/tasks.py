"""τ²-bench's task sets: the official tasks, splits and databases, and the built-in generated ones.

Official data is read in τ²-bench's layout under the data root: ``tau2bench/tau2/domains/<domain>/``
(``tasks.json``, ``split_tasks.json``, ``policy.md``, retail's and mock's ``db.json``). τ²'s airline
``db.json`` is not released with the data, so airline's database is τ-bench v1's
``tau_bench_v1/tau_bench/envs/airline/data/{flights,reservations,users}.json``, the same tables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolgym.envs.base import OfficialDataError, OfficialLayout, read_json, require_key
from toolgym.worlds.base import Snapshot
from toolgym.worlds.tau2 import generate
from toolgym.worlds.tau2.airline import AirlineWorld
from toolgym.worlds.tau2.mock import MockWorld
from toolgym.worlds.tau2.retail import RetailWorld

WORLDS = {"airline": AirlineWorld, "retail": RetailWorld, "mock": MockWorld}
DOMAINS = tuple(WORLDS)
AIRLINE_V1 = "tau_bench_v1/tau_bench/envs/airline/data"
BUILTIN_TASKS = {"airline": generate.airline_tasks, "retail": generate.retail_tasks, "mock": generate.mock_tasks}
BUILTIN_DATABASES = {"airline": generate.airline_database, "retail": generate.retail_database,
                     "mock": generate.mock_database}
_ASSETS = Path(__file__).resolve().parents[2] / "assets" / "tau2"


def layout(domain: str) -> OfficialLayout:
    folder = f"tau2/domains/{domain}"
    expected = [f"{folder}/tasks.json", f"{folder}/split_tasks.json"]
    expected += ([f"{AIRLINE_V1}/{t}.json" for t in ("flights", "reservations", "users")] if domain == "airline"
                 else [f"{folder}/db.json"])
    return OfficialLayout(name=f"τ²-bench {domain}", benchmark="tau2bench", expected=tuple(expected))


@dataclass(frozen=True)
class TaskSet:
    """Tasks by id (τ²-bench's task records), each task's splits, the policy and the initial world."""

    tasks: dict[str, dict]
    splits: dict[str, tuple[str, ...]]
    policy: str
    initial_state: Snapshot


def official_task_set(env_id: str, domain: str, data_dir: str | os.PathLike | None) -> TaskSet:
    """The official tasks of ``domain``, its splits, policy and database.

    Raises:
        FileNotFoundError: No folder tried holds the domain's files (the message lists them).
        OfficialDataError: A file is not JSON or a task lacks a key τ²-bench's format has.
    """
    folder = layout(domain).locate(env_id, data_dir)
    task_set = _read_official(domain, str(folder))
    layout(domain).check_not_empty(env_id, folder, len(task_set.tasks))
    return task_set


@lru_cache(maxsize=4)
def _read_official(domain: str, folder: str) -> TaskSet:
    root = Path(folder)
    domain_folder = root / "tau2" / "domains" / domain
    if domain == "airline":
        data = {table: read_json(root / AIRLINE_V1 / f"{table}.json") for table in ("flights", "reservations", "users")}
    else:
        data = read_json(domain_folder / "db.json")
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise OfficialDataError(f"{domain_folder}: the database is not τ²-bench's layout of tables of records")
    world = WORLDS[domain]()
    world.load(data)
    tasks = read_json(domain_folder / "tasks.json")
    if not isinstance(tasks, list):
        raise OfficialDataError(f"{domain_folder / 'tasks.json'}: expected a JSON list of tasks")
    by_id = {}
    for i, task in enumerate(tasks):
        where = f"{domain_folder / 'tasks.json'}: task {i}"
        by_id[str(require_key(task, "id", where))] = task
        require_key(task, "user_scenario", where)
    split_file = read_json(domain_folder / "split_tasks.json")
    splits: dict[str, tuple[str, ...]] = {task_id: () for task_id in by_id}
    for split, ids in (split_file or {}).items():
        for task_id in ids:
            if str(task_id) in splits:
                splits[str(task_id)] += (split,)
    return TaskSet(by_id, splits, (domain_folder / "policy.md").read_text(encoding="utf-8"), world.snapshot())


@lru_cache(maxsize=8)
def builtin_task_set(domain: str, world_seed: int) -> TaskSet:
    """Tasks generated over the seeded database of ``domain``; each task's ground truth is run
    once here and a task whose write fails on the generated database is left out."""
    world = WORLDS[domain](seed=world_seed)
    initial = world.snapshot()
    database = BUILTIN_DATABASES[domain](world_seed)
    tasks = {}
    for task in BUILTIN_TASKS[domain](database, world_seed):
        world.restore(initial)
        if all(world.tools.call(a["name"], a["arguments"]).ok for a in task["evaluation_criteria"]["actions"]):
            tasks[task["id"]] = task
    policy = (_ASSETS / f"{domain}_policy.md").read_text(encoding="utf-8")
    return TaskSet(tasks, {task_id: ("base",) for task_id in tasks}, policy, initial)
