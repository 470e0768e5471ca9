"""World.diff (rows added, deleted and changed against a reset image) and the world_diff that
every results record of an env with a world carries."""

from __future__ import annotations

import json

import pytest

from toolgym.agents import make_agent
from toolgym.eval.runner import read_results, run_episode
from toolgym.registry import make_env
from toolgym.eval.cli import main

pytestmark = pytest.mark.timeout(300)


def test_diff_lists_added_changed_and_deleted_rows_and_reads_the_world_only():
    env = make_env("AppBench-v0")
    base, agent = env.unwrapped, make_agent("oracle", env)
    for task_id in base.task_ids():  # the first task whose oracle episode writes
        env.reset(seed=0, options={"task_id": task_id})
        world = base.world
        start = world.database_image()
        assert world.diff(start) == {}
        hash_before = world.state_hash()
        record = run_episode(env, agent, task_id, 0)
        if record["world_diff"]:
            break
    assert record["metrics"]["success"] == 1
    diff = record["world_diff"]
    assert diff and all(set(t) == {"added", "deleted", "changed", "counts"} for t in diff.values())
    assert world.diff(start) == diff and world.state_hash() != hash_before
    changed = [c for t in diff.values() for c in t["changed"]]
    assert all(set(c) == {"key", "before", "after"} and set(c["before"]) == set(c["after"]) for c in changed)
    env.reset(seed=0, options={"task_id": task_id})  # back to the image: nothing differs
    assert world.diff(start) == {} and world.state_hash() == hash_before


def test_diff_of_deleted_rows_and_the_listing_limit():
    env = make_env("ToolTalk-v0", {"text_similarity": "lexical"})
    env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    world = env.unwrapped.world
    start = world.snapshot()
    table = next(t for t in world.Base.metadata.sorted_tables if world.sql().execute(
        f'SELECT COUNT(*) FROM "{t.name}"').fetchone()[0] >= 3)
    count = world.sql().execute(f'SELECT COUNT(*) FROM "{table.name}"').fetchone()[0]
    world.sql().execute(f'DELETE FROM "{table.name}"')
    world.commit()
    diff = world.diff(start, limit=2)
    assert list(diff) == [table.name] and diff[table.name]["counts"] == {"added": 0, "deleted": count, "changed": 0}
    assert len(diff[table.name]["deleted"]) == 2
    assert set(diff[table.name]["deleted"][0]) == {c.name for c in table.columns}


@pytest.mark.parametrize("env_id, kwarg, table", [
    ("ToolTalk-v0", ["--env-kwarg", "text_similarity=lexical"], "alarms"),
    ("GoogleSheets-v0", [], None),
])
def test_results_records_carry_the_world_diff(tmp_path, capsys, env_id, kwarg, table):
    out = tmp_path / "r.jsonl"
    assert main(["eval", env_id, *kwarg, "--agent", "oracle", "--episodes", "3", "--no-progress", "--out", str(out)]) == 0
    records = read_results(out)
    assert all("world_diff" in r for r in records) and any(r["world_diff"] for r in records)
    if table:
        assert table in next(r["world_diff"] for r in records if r["world_diff"])
    json.dumps(records)  # plain JSON all the way down
