"""The task record of the REST worlds: a user query and the ground-truth curl command."""

from __future__ import annotations

from dataclasses import dataclass

from toolgym.worlds.demos import Demo


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
    """Tasks by id and the pool demonstrations are retrieved from."""

    tasks: dict[str, RestTask]
    demos: list[Demo]
