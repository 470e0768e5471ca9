"""ToolTalk's official task set: the conversations and databases of ToolTalk's ``data/``.

The built-in set is generated with the world (``worlds/tooltalk/tasks.py``) in the same
conversation format, so one code path simulates and scores both.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_json, require_key
from toolgym.worlds.tooltalk.tasks import TaskSet
from toolgym.worlds.tooltalk.world import ToolTalkWorld

OFFICIAL_SPLITS = {"easy": "easy", "hard": "tooltalk"}  # split -> folder of its conversations
OFFICIAL_LAYOUT = OfficialLayout(
    name="ToolTalk", benchmark="tooltalk", expected=("databases/*.json",),
    split_expected={split: (f"{folder}/*.json",) for split, folder in OFFICIAL_SPLITS.items()},
    source="microsoft/ToolTalk on GitHub (MIT), its data/ folder: databases/, easy/, tooltalk/")


def official_task_set(env_id: str, data_dir: str | os.PathLike | None, split: str | None = None) -> TaskSet:
    """The official conversations (all splits) and databases; ``split`` must have some.

    Args:
        env_id: The env, for messages.
        data_dir: The data root or ToolTalk's own ``data/`` folder (``$TOOLGYM_DATA`` when None).
        split: The split the env runs ("easy", "hard"), or None for both.

    Raises:
        FileNotFoundError: No folder tried holds ``databases/`` and the split's conversations.
        OfficialDataError: A file is not JSON or lacks a key of the format (the message names
            the file, its line or record and the key), or ``split`` has no conversation.
    """
    folder = OFFICIAL_LAYOUT.locate(env_id, data_dir, split)
    task_set = _read_official(str(folder))
    count = sum(split is None or s == split for s in task_set.splits.values())
    OFFICIAL_LAYOUT.check_not_empty(env_id, folder, count, split)
    return task_set


@lru_cache(maxsize=8)
def _read_official(folder: str) -> TaskSet:
    path = Path(folder)
    world = ToolTalkWorld()
    for file in sorted((path / "databases").glob("*.json")):
        try:
            world.load_databases({file.stem: read_json(file)})
        except KeyError as error:
            raise OfficialDataError(f"{file}: a record lacks key {error.args[0]!r}") from None
        except (TypeError, AttributeError) as error:
            raise OfficialDataError(f"{file}: not ToolTalk's database format ({error})") from None
    conversations, splits = {}, {}
    for split, split_folder in OFFICIAL_SPLITS.items():
        for file in sorted((path / split_folder).glob("*.json")):
            conversation = read_json(file)
            _check_conversation(conversation, str(file))
            conversations[conversation["name"]] = conversation
            splits[conversation["name"]] = split
    return TaskSet(conversations, splits, world.snapshot())


def _check_conversation(conversation: dict, where: str) -> None:
    """Check the keys the env reads, so a defective file fails at load, naming the key."""
    for key in ("name", "metadata", "conversation"):
        require_key(conversation, key, where)
    if not isinstance(conversation["conversation"], list):
        raise OfficialDataError(f"{where}: 'conversation' must be a list of turns")
    for i, turn in enumerate(conversation["conversation"]):
        turn_where = f"{where}: conversation[{i}]"
        require_key(turn, "role", turn_where)
        require_key(turn, "text", turn_where)
        for j, api in enumerate(turn.get("apis") or []):
            api_where = f"{turn_where}.apis[{j}]"
            for key in ("request", "response", "exception"):
                require_key(api, key, api_where)
            for key in ("api_name", "parameters"):
                require_key(api["request"], key, f"{api_where}.request")
