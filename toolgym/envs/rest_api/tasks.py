"""The official task files of the ToolBench REST tasks (``sambanova/<task>/test.jsonl``).

The built-in tasks are generated with their worlds (``worlds/openweather/tasks.py``,
``worlds/catapi/tasks.py``).
"""

from __future__ import annotations

import os

from toolgym.envs.common.official import OfficialDataError, read_jsonl, require_key, toolbench_layout
from toolgym.worlds.catapi.tasks import cat_setup
from toolgym.worlds.rest.tasks import RestTask


def load_official(env_id: str, data_dir: str | os.PathLike | None, task: str) -> list[RestTask]:
    """The tasks of ``sambanova/<task>/test.jsonl``; a task's id is its 0-based line number.

    Args:
        env_id: The env, for messages.
        data_dir: The data root, its ``sambanova/`` folder or the task's folder
            (``$TOOLGYM_DATA`` when None).
        task: The task's folder, "open_weather" or "the_cat_api".

    Raises:
        FileNotFoundError: No folder tried holds ``test.jsonl``.
        OfficialDataError: A line is not JSON or lacks ``prompt`` or a ``completion`` command
            (the message names the file and line), or the file holds no task.
    """
    layout = toolbench_layout(task)
    folder = layout.locate(env_id, data_dir)
    file = folder / "test.jsonl"
    tasks = []
    for number, record in read_jsonl(file):
        where = f"{file}:{number}"
        query = require_key(record, "prompt", where)
        completion = require_key(record, "completion", where)
        if not (isinstance(completion, list) and completion and isinstance(completion[0], str)):
            raise OfficialDataError(f"{where}: 'completion' must be a list whose first item is the curl command")
        action = completion[0]
        tasks.append(RestTask(task_id=str(number - 1), query=str(query).strip(), action=action,
                              compare_string_only=bool(record.get("compare_string_only", False)),
                              setup=cat_setup(action)))
    layout.check_not_empty(env_id, folder, len(tasks))
    return tasks
