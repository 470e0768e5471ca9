"""Example-v0's official data: a folder with ``example/tasks.jsonl``."""

from __future__ import annotations

import os

from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_jsonl, require_key
from toolgym.worlds.example import LibraryTask

LAYOUT = OfficialLayout(name="Example", benchmark="example", expected=("tasks.jsonl",),
                        source="toolgym's docs/adding-an-env.md (the example format: one JSON request a line)")


def load_official(env_id: str, data_dir: str | os.PathLike | None) -> list[LibraryTask]:
    """The tasks of ``tasks.jsonl``: one ``{"id", "member", "title"}`` record a line.

    Raises:
        FileNotFoundError: No folder under ``data_dir`` holds ``tasks.jsonl``.
        OfficialDataError: A line is not such a record, or the file holds none.
    """
    folder = LAYOUT.locate(env_id, data_dir)
    path = folder / "tasks.jsonl"
    tasks = []
    for number, record in read_jsonl(path):
        where = f"{path}:{number}"
        fields = [require_key(record, key, where) for key in ("id", "member", "title")]
        if not all(isinstance(value, str) and value for value in fields):
            raise OfficialDataError(f"{where}: 'id', 'member' and 'title' must be non-empty strings")
        task_id, member, title = fields
        tasks.append(LibraryTask(task_id, f"{member} would like to borrow '{title}'.", title, member))
    LAYOUT.check_not_empty(env_id, folder, len(tasks))
    return tasks
