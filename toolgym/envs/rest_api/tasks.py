"""Task sets of the REST tasks: the official ``test.jsonl`` files and built-in generated ones."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from toolgym.envs.toolbench_prompt import Demo


@dataclass(frozen=True)
class RestTask:
    """One task: a user query and the ground-truth curl command.

    ``compare_string_only`` marks tasks judged by comparing the command with the ground
    truth verbatim (the paper's DELETE requests). ``setup`` lists what the task presupposes
    of the account, as ``(operation, image_id)`` with operation ``"image"`` (the image
    exists), ``"favourite"`` (it is a favourite) or ``"not_favourite"``; the env applies it
    to the world before the episode.
    """

    task_id: str
    query: str
    action: str
    compare_string_only: bool = False
    setup: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TaskSet:
    tasks: dict[str, RestTask]
    demos: list[Demo]


def load_official(path: Path) -> list[RestTask]:
    """``test.jsonl`` of a ToolBench REST task; a task's id is its 0-based line number."""
    tasks = []
    with open(path / "test.jsonl", encoding="utf-8") as f:
        for n, line in enumerate(f):
            if not line.strip():
                continue
            record = json.loads(line)
            action = record["completion"][0]
            tasks.append(RestTask(task_id=str(n), query=record["prompt"].strip(), action=action,
                                  compare_string_only=bool(record.get("compare_string_only", False)),
                                  setup=cat_setup(action)))
    return tasks


_FAVOURITE_PATH = re.compile(r"/v1/favourites/([^/'\s]+)")
_IMAGE_ID = re.compile(r'"image_id"\s*:\s*"([^"]+)"')


def cat_setup(action: str) -> tuple[tuple[str, str], ...]:
    """What a Cat API ground truth presupposes: the image it deletes is a favourite, the
    image it adds is not one yet, the image it votes on exists. Empty for other APIs."""
    if "thecatapi.com" not in action:
        return ()
    if (m := _FAVOURITE_PATH.search(action)) and "DELETE" in action:
        return (("favourite", m.group(1)),)
    if (m := _IMAGE_ID.search(action)):
        return (("not_favourite" if "/v1/favourites" in action else "image", m.group(1)),)
    return ()
