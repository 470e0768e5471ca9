"""The on-disk cache of generated worlds and task sets (issue 9): ``$TOOLGYM_CACHE``, empty to
turn it off, entries that appear all at once, shared safely by racing processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.worlds import build, cache
from toolgym.worlds.homesearch import HomeSearchWorld
from toolgym.worlds.homesearch import tasks as homesearch_tasks

# A fresh process that makes HomeSearch-v0 and prints what the cache must not change.
MAKE = """
import json, gymnasium as gym, toolgym
env = gym.make("HomeSearch-v0", world_seed=7)
print(json.dumps([env.unwrapped.world.state_hash(), env.unwrapped.task_ids()[:3],
                  [t.query for t in list(env.unwrapped.tasks.values())[:3]]]))
"""


def _make_in_processes(folder, count: int) -> list[str]:
    """Start ``count`` processes at once, each making the env with ``folder`` as its cache."""
    env = {**os.environ, "TOOLGYM_CACHE": str(folder)}
    processes = [subprocess.Popen([sys.executable, "-c", MAKE], env=env, stdout=subprocess.PIPE, text=True)
                 for _ in range(count)]
    outputs = [p.communicate(timeout=300)[0] for p in processes]
    assert all(p.returncode == 0 for p in processes)
    return outputs


def test_racing_processes_fill_the_cache_once_and_agree(tmp_path):
    first = _make_in_processes(tmp_path, 3)
    assert len(set(first)) == 1  # same world and tasks in every process
    entries = sorted(p.name for p in tmp_path.iterdir())
    assert not [name for name in entries if name.startswith(".")]  # no temporary file left behind
    assert any(name.startswith("world-HomeSearchWorld-") for name in entries)
    assert any(name.startswith("homesearch-tasks-") for name in entries)
    assert _make_in_processes(tmp_path, 1) == first[:1]  # read back: the same as generated
    assert sorted(p.name for p in tmp_path.iterdir()) == entries


def test_an_empty_cache_variable_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", "")
    monkeypatch.setenv("HOME", str(tmp_path))  # where the default folder would be
    assert cache.cache_folder() is None and cache.entry_path("x", 1, ()) is None
    monkeypatch.setattr(build, "_BUILT", {})
    HomeSearchWorld(seed=11)
    assert homesearch_tasks.builtin_tasks(11)
    assert list(tmp_path.iterdir()) == []


def test_a_cached_world_is_the_generated_one(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    monkeypatch.setattr(build, "_BUILT", {})  # no earlier build in this process
    generated = HomeSearchWorld(seed=12)
    (entry,) = tmp_path.glob("world-HomeSearchWorld-*.sqlite")
    monkeypatch.setattr(build, "_BUILT", {})
    monkeypatch.setattr(HomeSearchWorld, "populate", lambda self: pytest.fail("the cached world was built again"))
    loaded = HomeSearchWorld(seed=12)
    assert loaded.state_hash() == generated.state_hash()
    assert entry.exists()


def test_an_unreadable_entry_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return [("query", "program")]

    def cached():
        return cache.cached_json("pairs", 1, (), compute, list, lambda pairs: [tuple(p) for p in pairs])

    assert cached() == [("query", "program")] and len(calls) == 1
    assert cached() == [("query", "program")] and len(calls) == 1  # read from disk
    (entry,) = tmp_path.iterdir()
    entry.write_text("{not json")
    assert cached() == [("query", "program")] and len(calls) == 2
    assert json.loads(entry.read_text()) == [["query", "program"]]  # written again


def test_appbench_reads_its_tasks_and_effects_from_the_cache(tmp_path, monkeypatch):
    from toolgym.worlds.appbench import tasks as appbench_tasks

    monkeypatch.setenv("TOOLGYM_CACHE", str(tmp_path))
    monkeypatch.setattr(appbench_tasks, "_BUILTIN", {})
    built = gym.make("AppBench-v0", tasks_per_category=3).unwrapped
    assert list(tmp_path.glob("appbench-tasks-*.json"))
    monkeypatch.setattr(appbench_tasks, "_BUILTIN", {})
    monkeypatch.setattr(appbench_tasks, "generate_tasks", lambda *a: pytest.fail("generated again"))
    read = gym.make("AppBench-v0", tasks_per_category=3).unwrapped
    assert read.task_ids() == built.task_ids()
    for task_id in built.task_ids():
        assert read.tasks[task_id] == built.tasks[task_id]
        assert read._effects[task_id] == built._effects[task_id]
        _, info = read.reset(seed=0, options={"task_id": task_id})
        *_, info = read.step(read.oracle_action())
        assert info["metrics"]["db_match"] == 1.0 and info["metrics"]["succ"] == 1.0
