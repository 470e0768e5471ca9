"""AppBench's official test files, and statistics of any AppBench task set.

The built-in tasks are generated with the world (``worlds/appbench/tasks.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

from toolgym.envs.appbench.scoring import dependency_structure
from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json_list, require_key
from toolgym.worlds.appbench.plan import Call, Ref, parse_plan_text
from toolgym.worlds.appbench.tasks import CATEGORIES, AppTask
from toolgym.worlds.appbench.tools import AppBenchTools

OFFICIAL_LAYOUT = OfficialLayout(name="AppBench", benchmark="appbench",
                                 split_expected={split: (f"test_{split}.json",) for split in CATEGORIES},
                                 source="ruleGreen/AppBench on GitHub: data/test/test_{ss,sm,ms,mm}.json")


def load_official(env_id: str, data_dir: str | os.PathLike | None, split: str | None = None) -> list[AppTask]:
    """The official tasks of ``split`` (all four when None).

    Args:
        env_id: The env, for messages.
        data_dir: The data root or AppBench's own folder (``$TOOLGYM_DATA`` when None).
        split: "ss", "sm", "ms" or "mm", or None for all of them.

    Raises:
        FileNotFoundError: No folder tried holds the split's ``test_<split>.json``.
        OfficialDataError: A file is not JSON or a sample lacks a key (the message names the
            file, the sample and the key), or the files hold no sample.
    """
    folder = OFFICIAL_LAYOUT.locate(env_id, data_dir, split)
    tasks = official_tasks(folder, (split,) if split else CATEGORIES)
    OFFICIAL_LAYOUT.check_not_empty(env_id, folder, len(tasks), split)
    return tasks


def official_tasks(folder: Path, splits: tuple[str, ...] = CATEGORIES) -> list[AppTask]:
    """``test_<split>.json`` as tasks ``<split>-<index>``. The ground truth is the samples'
    ``api_results`` (what the official script scores against) with the apps of ``used_app``;
    where the two lists differ in length (a data defect) each call gets the app that owns its API."""
    tasks = []
    for split in splits:
        path = folder / f"test_{split}.json"
        if not path.exists():
            raise FileNotFoundError(f"official AppBench file not found: {path}")
        samples = read_json_list(path, "samples")
        for index, sample in enumerate(samples):
            where = f"{path}: sample {index}"
            instruction = require_key(sample, "input", where)
            output = require_key(sample, "output", where)
            lines = list(require_key(output, "api_results", f"{where}: output"))
            apps = list(require_key(output, "used_app", f"{where}: output"))
            calls = []
            for i, line in enumerate(lines):
                parsed = parse_plan_text(line).calls
                if len(parsed) != 1:
                    raise OfficialDataError(f"{where}: cannot read api_results line {line!r}")
                call = parsed[0]
                app = apps[i] if len(apps) == len(lines) else _owner(call.api)
                calls.append(Call(app, call.api, call.arguments, call.returns))
            tasks.append(AppTask(task_id=f"{split}-{index}", category=split, instruction=instruction, apps=apps,
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
