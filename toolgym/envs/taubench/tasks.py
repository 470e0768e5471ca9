"""τ-bench v1's task sets: the official tasks read from its Python task files with ``ast``, and
the built-in generated ones.

Official data is read in τ-bench's own layout under the data root:
``tau2bench/tau_bench_v1/tau_bench/envs/<domain>/`` with ``data/*.json``, ``wiki.md`` and
``tasks_<split>.py`` (airline: ``test``; retail: ``test``, ``train``, ``dev``). A task file is
Python source defining ``Task(...)`` objects; it is parsed, never imported: each keyword of each
``Task(...)`` and ``Action(...)`` call must be a literal (``ast.literal_eval``), and any other
expression is refused with the file and line.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json, read_official_text
from toolgym.untrusted import UntrustedFileError, python_calls, read_text
from toolgym.worlds.base import Snapshot
from toolgym.worlds.taubench import tasks as builtin_tasks
from toolgym.worlds.taubench.airline import TauBenchAirlineWorld
from toolgym.worlds.taubench.retail import TauBenchRetailWorld

WORLDS = {"airline": TauBenchAirlineWorld, "retail": TauBenchRetailWorld}
DOMAINS = tuple(WORLDS)
TABLES = {"airline": ("flights", "reservations", "users"), "retail": ("orders", "products", "users")}
OFFICIAL_SPLITS = {"airline": ("test",), "retail": ("test", "train", "dev")}
FOLDER = "tau_bench_v1/tau_bench/envs"
BUILTIN_TASKS = {"airline": builtin_tasks.airline_tasks, "retail": builtin_tasks.retail_tasks}
_ASSETS = Path(__file__).resolve().parents[2] / "assets" / "tau2"
#: The largest task file read (retail's train file is about 0.5 MB; the scan reads some 1 MB a second).
MAX_TASK_FILE = 4 * 2**20
#: The longest ``Task(...)`` call read (the released ones are at most 3 KB): each is parsed alone, and
#: ``ast`` builds some 300 bytes per character of a dense call.
MAX_TASK_CALL = 16 * 1024


def layout(domain: str) -> OfficialLayout:
    folder = f"{FOLDER}/{domain}"
    return OfficialLayout(name=f"τ-bench {domain}", benchmark="tau2bench",
                          expected=(f"{folder}/wiki.md", *(f"{folder}/data/{t}.json" for t in TABLES[domain])),
                          split_expected={s: (f"{folder}/tasks_{s}.py",) for s in OFFICIAL_SPLITS[domain]},
                          source=f"sierra-research/tau-bench on GitHub (MIT): tau_bench/envs/{domain}/ (wiki.md, "
                                 "data/, tasks_*.py)")


@dataclass(frozen=True)
class TaskSet:
    """Tasks by id (v1's fields: ``user_id``, ``instruction``, ``actions``, ``outputs``; plus ``id``,
    ``split``, ``user_scenario``), the wiki (the agent's system prompt) and the initial world."""

    tasks: dict[str, dict]
    wiki: str
    initial_state: Snapshot


def parse_task_file(path: Path) -> list[dict]:
    """The ``Task(...)`` records of a τ-bench task file, in order, read with ``ast`` (never imported).

    Only the ``Task(...)`` calls are parsed, one at a time (:func:`toolgym.untrusted.python_calls`),
    after a linear scan that bounds how deep the file's expressions nest.

    Raises:
        OfficialDataError: The file is not a regular file, too large, not UTF-8, nested too
            deeply, a ``Task(...)`` call is not Python or too long, or a ``Task``/``Action``
            keyword is not a literal (a call, a name, an f-string: nothing in the file is run).
    """
    try:
        source = read_text(path, MAX_TASK_FILE, "τ-bench task file")
        tasks = []
        for line, node in python_calls(source, frozenset({"Task"}), str(path), MAX_TASK_CALL):
            if not isinstance(node, ast.Call):
                raise OfficialDataError(f"{path}:{line}: Task(...) is not a call")
            task = _keywords(path, node)
            actions = task.get("actions")
            if not isinstance(actions, list):
                raise OfficialDataError(f"{path}:{node.lineno}: Task(...) needs a list of Action(...) as actions")
            for key, kind in (("user_id", str), ("instruction", str), ("outputs", list)):
                if not isinstance(task.get(key, [] if key == "outputs" else None), kind):
                    raise OfficialDataError(f"{path}:{node.lineno}: Task(...) needs {key} as a {kind.__name__}")
            task.setdefault("outputs", [])
            tasks.append(task)
    except UntrustedFileError as error:
        raise OfficialDataError(str(error)) from None
    return tasks


def _keywords(path: Path, call: ast.Call) -> dict:
    if call.args:
        raise OfficialDataError(f"{path}:{call.lineno}: {call.func.id}(...) takes keyword arguments only")
    values = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise OfficialDataError(f"{path}:{call.lineno}: {call.func.id}(**...) is not a literal task")
        value = keyword.value
        if keyword.arg == "actions" and call.func.id == "Task" and isinstance(value, ast.List):
            values["actions"] = [_action(path, item) for item in value.elts]
            continue
        try:
            values[keyword.arg] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise OfficialDataError(f"{path}:{value.lineno}: {call.func.id}({keyword.arg}=...) is not a literal "
                                    f"({ast.unparse(value)[:80]!r}); task files are read, never run") from None
    return values


def _action(path: Path, node: ast.expr) -> dict:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Action"):
        raise OfficialDataError(f"{path}:{node.lineno}: an action must be Action(name=..., kwargs=...), got "
                                f"{ast.unparse(node)[:80]!r}")
    action = _keywords(path, node)
    if not isinstance(action.get("name"), str) or not isinstance(action.get("kwargs"), dict):
        raise OfficialDataError(f"{path}:{node.lineno}: Action(...) needs name (a string) and kwargs (a dict)")
    return {"name": action["name"], "kwargs": action["kwargs"]}


def official_task_set(env_id: str, domain: str, data_dir: str | os.PathLike | None, split: str) -> TaskSet:
    """The official tasks of ``domain``'s ``split``, its wiki and database.

    Raises:
        ValueError: The domain has no such split (airline has only ``test``).
        FileNotFoundError: No folder tried holds the files (the message lists them).
        OfficialDataError: A file is not what τ-bench's format has.
    """
    if split not in OFFICIAL_SPLITS[domain]:
        raise ValueError(f"{env_id}: τ-bench {domain} has the splits {OFFICIAL_SPLITS[domain]}, not {split!r}")
    folder = layout(domain).locate(env_id, data_dir, split)
    task_set = _read_official(domain, str(folder), split)
    layout(domain).check_not_empty(env_id, folder, len(task_set.tasks), split)
    return task_set


@lru_cache(maxsize=4)
def _read_official(domain: str, folder: str, split: str) -> TaskSet:
    domain_folder = Path(folder) / FOLDER / domain
    data = {table: read_json(domain_folder / "data" / f"{table}.json") for table in TABLES[domain]}
    if not all(isinstance(records, dict) for records in data.values()):
        raise OfficialDataError(f"{domain_folder}/data: each table must be a JSON object of records by id")
    world = WORLDS[domain]()
    world.load(data)
    tasks = {}
    for index, task in enumerate(parse_task_file(domain_folder / f"tasks_{split}.py")):
        task_id = f"{split}_{index}"
        tasks[task_id] = {**task, "id": task_id, "split": split,
                          "user_scenario": {"persona": None, "instructions": task["instruction"]}}
    wiki = read_official_text(domain_folder / "wiki.md")
    initial = world.snapshot()
    world.close()
    return TaskSet(tasks, wiki, initial)


@lru_cache(maxsize=4)
def builtin_task_set(domain: str, world_seed: int) -> TaskSet:
    """Tasks generated over the seeded database of ``domain``; a task whose write answers an error on
    the generated database is left out (its ground truth would change nothing)."""
    world = WORLDS[domain](seed=world_seed)
    initial = world.snapshot()
    tasks = {}
    for task in BUILTIN_TASKS[domain](world_seed):
        world.restore(initial)
        results = [world.tools.call(a["name"], a["kwargs"]) for a in task["actions"]]
        if all(r.ok and not str(r.response).startswith("Error") for r in results):
            tasks[task["id"]] = task
    world.close()
    wiki = (_ASSETS / f"{domain}_policy.md").read_text(encoding="utf-8")
    return TaskSet(tasks, wiki, initial)
