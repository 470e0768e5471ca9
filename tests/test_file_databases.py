"""World database files: built once with a fingerprint, reused without writing, never shared.

A world given ``db_url="sqlite:///path.db"`` generates its rows into the file the first time
only; later worlds with the same fingerprint copy the file into a private in-memory working
copy, so their rows, ``state_hash`` and tasks equal an in-memory world's, episodes never
touch the file, and no env (in this process or another) sees another's writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest
from sqlalchemy import func, select

import toolgym  # noqa: F401  (registers the envs)
from toolgym.worlds.catapi.world import CatWorld
from toolgym.worlds.homesearch.world import HomeSearchWorld
from toolgym.worlds.tooltalk.data_model import Account

REPO = Path(__file__).resolve().parents[1]
REGISTER = json.dumps({"name": "RegisterUser", "arguments": {
    "username": "zed", "password": "pw123456", "email": "zed@example.com", "name": "Zed", "phone": "555-555-5555"}})


def row_counts(world) -> dict[str, int]:
    return {table.name: world.session.scalar(select(func.count()).select_from(table))
            for table in world.Base.metadata.sorted_tables}


def file_signature(path: Path) -> tuple[int, str]:
    """The file's mtime and content digest: what an episode must never change."""
    return path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest()


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, capture_output=True,
                            text=True, timeout=120, env=os.environ.copy())
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("env_id", ["HomeSearch-v0", "TripBooking-v0", "ToolTalk-v0"])
def test_a_file_world_is_built_once_and_reused_like_an_in_memory_one(env_id, tmp_path):
    path = tmp_path / "world.db"
    memory = gym.make(env_id).unwrapped
    first = gym.make(env_id, db_url=f"sqlite:///{path}").unwrapped
    built = file_signature(path)
    second = gym.make(env_id, db_url=f"sqlite:///{path}").unwrapped
    assert file_signature(path) == built  # reusing the file writes nothing
    counts = row_counts(memory.world)
    assert row_counts(first.world) == row_counts(second.world) == counts  # no rows inserted twice
    assert first.world.state_hash() == second.world.state_hash() == memory.world.state_hash()
    assert first.task_ids() == second.task_ids() == memory.task_ids()
    for env in (memory, first, second):
        env.reset(seed=3)
    assert first.task_id == second.task_id == memory.task_id
    assert first.world.state_hash() == second.world.state_hash() == memory.world.state_hash()
    assert file_signature(path) == built
    assert [p.name for p in tmp_path.iterdir()] == ["world.db"]  # no journal or half-built file left


@pytest.mark.parametrize("env_id", ["HomeSearch-v0", "ToolTalk-v0"])
def test_a_file_built_for_another_world_seed_is_refused(env_id, tmp_path):
    path = tmp_path / "world.db"
    gym.make(env_id, db_url=f"sqlite:///{path}", world_seed=0)
    built = file_signature(path)
    with pytest.raises(ValueError) as refused:
        gym.make(env_id, db_url=f"sqlite:///{path}", world_seed=1)
    assert f"{path} was built for another world (seed 0, not 1)" in str(refused.value)
    assert f"delete {path} to build it again, or pass another db_url" in str(refused.value)
    assert file_signature(path) == built


def test_a_file_built_by_another_world_class_or_with_other_parameters_is_refused(tmp_path):
    path = tmp_path / "world.db"
    HomeSearchWorld(url=f"sqlite:///{path}")
    with pytest.raises(ValueError, match="it holds a toolgym.worlds.homesearch.world.HomeSearchWorld, not a "
                                         "toolgym.worlds.catapi.world.CatWorld"):
        CatWorld(url=f"sqlite:///{path}")
    cats = tmp_path / "cats.db"
    CatWorld(url=f"sqlite:///{cats}")
    with pytest.raises(ValueError, match=r"parameters \{'favourites': 8, 'unbred_images': 250, 'votes': 5\}, "
                                         r"not \{'unbred_images': 250, 'favourites': 2, 'votes': 5\}"):
        CatWorld(url=f"sqlite:///{cats}", favourites=2)


def test_a_database_toolgym_did_not_build_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "mine.db"
    run_python(f"import sqlite3; c = sqlite3.connect({str(path)!r}); c.execute('CREATE TABLE listings (x)'); "
               "c.commit()")
    before = file_signature(path)
    with pytest.raises(ValueError, match=f"HomeSearchWorld: {path} is not a world database built by this toolgym"):
        gym.make("HomeSearch-v0", db_url=f"sqlite:///{path}")
    assert file_signature(path) == before


def test_non_sqlite_urls_and_missing_folders_are_refused_at_make(tmp_path):
    with pytest.raises(ValueError, match="world databases are SQLite only"):
        gym.make("TripBooking-v0", db_url="postgresql://user@localhost/toolgym")
    with pytest.raises(ValueError, match=f"the folder {tmp_path / 'missing'} of the database file does not exist"):
        gym.make("TripBooking-v0", db_url=f"sqlite:///{tmp_path / 'missing' / 'world.db'}")


def test_writes_stay_in_the_env_that_made_them_in_this_process_and_others(tmp_path):
    path = tmp_path / "tooltalk.db"
    url = f"sqlite:///{path}"
    writer = gym.make("ToolTalk-v0", db_url=url).unwrapped
    writer.reset(seed=0)
    accounts = row_counts(writer.world)["accounts"]
    fresh = writer.world.state_hash()
    built = file_signature(path)
    writer.step(REGISTER)
    assert row_counts(writer.world)["accounts"] == accounts + 1
    reader = gym.make("ToolTalk-v0", db_url=url).unwrapped
    reader.reset(seed=0)
    assert row_counts(reader.world)["accounts"] == accounts and reader.world.state_hash() == fresh
    # another process writes too, then both look: each sees only its own account
    other = json.loads(run_python(f"""
        import json, gymnasium as gym, toolgym
        from sqlalchemy import func, select
        from toolgym.worlds.tooltalk.data_model import Account
        env = gym.make("ToolTalk-v0", db_url={url!r}).unwrapped
        env.reset(seed=0)
        fresh = env.world.state_hash()
        env.step({REGISTER!r})
        accounts = env.world.session.scalar(select(func.count(Account.username)))
        print(json.dumps({{"fresh": fresh, "accounts": accounts}}))
    """))
    assert other == {"fresh": fresh, "accounts": accounts + 1}
    assert reader.world.session.scalar(select(func.count(Account.username))) == accounts
    assert row_counts(writer.world)["accounts"] == accounts + 1
    assert file_signature(path) == built


def test_processes_racing_to_build_one_file_all_get_the_same_world(tmp_path):
    path = tmp_path / "homes.db"
    code = ("from toolgym.worlds.homesearch.world import HomeSearchWorld; "
            f"print(HomeSearchWorld(url={f'sqlite:///{path}'!r}).state_hash())")
    racers = [subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
              for _ in range(3)]
    hashes = {racer.communicate(timeout=120)[0].strip() for racer in racers}
    assert all(racer.returncode == 0 for racer in racers)
    assert hashes == {HomeSearchWorld().state_hash()}
    assert [p.name for p in tmp_path.iterdir()] == ["homes.db"]
    assert HomeSearchWorld(url=f"sqlite:///{path}").state_hash() in hashes


def test_appbench_reuses_its_file_world_and_keeps_plan_effects_private(tmp_path):
    from toolgym.worlds.appbench.world import AppBenchWorld

    path = tmp_path / "appbench.db"
    memory = AppBenchWorld(seed=0)
    first = gym.make("AppBench-v0", db_url=f"sqlite:///{path}").unwrapped
    built = file_signature(path)
    for task_id in first.task_ids():  # the first task whose plan books, buys or pays for something
        first.reset(seed=0, options={"task_id": task_id})
        first.step(first.oracle_action())
        if first.world.effects():
            break
    effects = first.world.effects()
    assert effects
    second = gym.make("AppBench-v0", db_url=f"sqlite:///{path}").unwrapped
    assert file_signature(path) == built
    assert row_counts(second.world) == row_counts(memory)  # no doubled rows, none of first's effects
    assert not second.world.effects() and first.world.effects() == effects
    assert second.world.state_hash() == memory.state_hash()
    assert second.task_ids() == first.task_ids()
    assert ([(t.instruction, t.plan_lines) for t in second.tasks.values()]
            == [(t.instruction, t.plan_lines) for t in first.tasks.values()])
