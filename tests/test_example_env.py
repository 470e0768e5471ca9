"""Example-v0, the env of docs/adding-an-env.md: its domain (the contract is test_env_contract.py's)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.common.official import OfficialDataError


@pytest.fixture(scope="module")
def env():
    return gym.make("Example-v0").unwrapped


def test_the_tools_have_derived_schemas(env):
    env.reset(seed=0, options={"task_index": 0})
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in env.tools}
    assert set(schemas) == {"search_books", "borrow_book", "return_book"}
    assert schemas["borrow_book"]["properties"]["book_id"]["type"] == "integer"
    assert schemas["borrow_book"]["required"] == ["book_id", "member"]


def test_a_failing_call_changes_nothing_and_the_return_is_the_metric(env):
    env.reset(seed=0, options={"task_index": 0})
    before = env.world.state_hash()
    observation, reward, *_ = env.step({"name": "borrow_book", "arguments": {"book_id": 999, "member": "Maya"}})
    assert json.loads(observation)["exception"] == "No book with id 999."
    assert reward == 0.0 and env.world.state_hash() == before
    rewards = []
    while True:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        rewards.append(reward)
        if terminated or truncated:
            break
    assert rewards[-2:] == [1.0, 0.0] and sum(rewards) == 1.0
    assert info["metrics"] == {"success": 1, "calls": 3, "failed_calls": 1, "invalid_actions": 0}


def test_lending_the_wrong_book_fails_the_task(env):
    task = env.tasks[env.task_ids()[0]]
    env.reset(seed=0, options={"task_id": task.task_id})
    other = next(b for b in env.world.tools.search_books("") if b["title"] != task.title and b["copies"])
    env.step({"name": "borrow_book", "arguments": {"book_id": other["book_id"], "member": task.member}})
    *_, info = env.step("Done.")
    assert info["metrics"]["success"] == 0


def test_official_tasks_load_from_a_folder(tmp_path):
    folder = tmp_path / "example"
    folder.mkdir()
    title = gym.make("Example-v0").unwrapped.tasks["0"].title
    (folder / "tasks.jsonl").write_text(json.dumps({"id": "t1", "member": "Ada", "title": title}) + "\n")
    env = gym.make("Example-v0", tasks="official", data_dir=str(tmp_path)).unwrapped
    assert env.task_ids() == ["t1"]
    env.reset(seed=0)
    while True:
        *_, terminated, truncated, info = env.step(env.oracle_action())
        if terminated or truncated:
            break
    assert info["metrics"]["success"] == 1 and info["task_set"] == "official"


def test_bad_official_data_fails_at_make_naming_the_file(tmp_path):
    (tmp_path / "tasks.jsonl").write_text('{"id": "t1", "member": "Ada"}\n')
    with pytest.raises(OfficialDataError, match=r"tasks.jsonl:1: missing key 'title'"):
        gym.make("Example-v0", tasks="official", data_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no official Example data"):
        gym.make("Example-v0", tasks="official", data_dir=str(tmp_path / "nowhere"))
