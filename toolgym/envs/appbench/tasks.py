"""AppBench task sets: the built-in generated set and the official test files."""

from __future__ import annotations

import json
from pathlib import Path

from toolgym.envs.appbench.scoring import dependency_structure
from toolgym.worlds.appbench.generator import CATEGORIES, AppTask, generate_tasks
from toolgym.worlds.appbench.plan import Call, Ref, parse_plan_text
from toolgym.worlds.appbench.tools import AppBenchTools
from toolgym.worlds.appbench.world import AppBenchWorld

_BUILTIN: dict[tuple[int, int], list[AppTask]] = {}


def builtin_tasks(world: AppBenchWorld, seed: int, per_category: int) -> list[AppTask]:
    """The generated tasks of ``world`` (cached per process: generation executes every plan)."""
    key = (seed, per_category)
    if key not in _BUILTIN:
        _BUILTIN[key] = generate_tasks(world, seed, per_category)
    return _BUILTIN[key]


def official_tasks(folder: Path, splits: tuple[str, ...] = CATEGORIES) -> list[AppTask]:
    """``test_<split>.json`` as tasks ``<split>-<index>``. The ground truth is the samples'
    ``api_results`` (what the official script scores against) with the apps of ``used_app``;
    where the two lists differ in length (a data defect) each call gets the app that owns its API."""
    tasks = []
    for split in splits:
        path = folder / f"test_{split}.json"
        if not path.exists():
            raise FileNotFoundError(f"official AppBench file not found: {path}")
        for index, sample in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            output = sample["output"]
            lines = list(output["api_results"])
            apps = list(output["used_app"])
            calls = []
            for i, line in enumerate(lines):
                parsed = parse_plan_text(line).calls
                if len(parsed) != 1:
                    raise ValueError(f"{path}: sample {index}: cannot read api_results line {line!r}")
                call = parsed[0]
                app = apps[i] if len(apps) == len(lines) else _owner(call.api)
                calls.append(Call(app, call.api, call.arguments, call.returns))
            tasks.append(AppTask(task_id=f"{split}-{index}", category=split, instruction=sample["input"], apps=apps,
                                 calls=calls, user_values=dict(output.get("user_aware_arguments") or {}),
                                 plan_lines=lines))
    return tasks


def _owner(api: str) -> str:
    return next((s.app for s in AppBenchTools.specs.values() if s.name.split("_", 1)[1] == api), "")


def task_statistics(tasks: list[AppTask]) -> dict[str, dict[str, float]]:
    """Table 2-style statistics per category: samples, apps and API calls per sample,
    arguments per call, share of dependent arguments, sequential and parallel scale."""
    stats = {}
    for category in CATEGORIES:
        group = [t for t in tasks if t.category == category]
        if not group:
            continue
        calls = [c for t in group for c in t.calls]
        args = [v for c in calls for v in c.arguments.values()]
        shapes = [dependency_structure(t.calls) for t in group]
        n = len(group)
        stats[category] = {
            "samples": n,
            "apps_per_sample": sum(len(set(t.apps)) for t in group) / n,
            "calls_per_sample": len(calls) / n,
            "args_per_call": len(args) / max(len(calls), 1),
            "dependent_arg_share": sum(isinstance(v, Ref) for v in args) / max(len(args), 1),
            "sequential_scale": sum(s["sequential_scale"] for s in shapes) / n,
            "parallel_scale": sum(s["parallel_scale"] for s in shapes) / n,
            "instruction_words": sum(len(t.instruction.split()) for t in group) / n,
        }
    return stats
