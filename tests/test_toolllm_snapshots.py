"""ToolLLM-v0's snapshot() / restore(): a snapshot carries its world's identity and restore
refuses one from another world; snapshots are independent of the envs that take and restore them."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from toolgym.worlds.rapidapi.world import RapidAPIWorld

pytestmark = pytest.mark.timeout(300)


def make(**kwargs):
    return gym.make("ToolLLM-v0", **kwargs).unwrapped


@pytest.fixture(scope="module")
def envs():
    return make(), make(), make()


def write_task(env):
    return next(t for t in env.tasks.values() if t.group.startswith("G1") and t.query.startswith("Add a new"))


def response(env, action) -> dict:
    return json.loads(json.loads(env.step(action)[0])["response"])


def create_and_search(env, task, name: str) -> tuple[dict, dict]:
    """The create call's plan with another name, and the search call for that name."""
    world = env.world
    create = world.api(task.plan[0]["api_id"])
    search = next(world.api(a) for a in task.api_ids if world.api(a).kind == "search")
    return ({"name": create.function, "arguments": {**task.plan[0]["arguments"], "name": name}},
            {"name": search.function, "arguments": {"query": name}})


def test_a_snapshot_of_another_world_seed_is_refused_and_nothing_changes():
    here, there = make(world_seed=0), make(world_seed=1)
    shared = next(t for t in here.task_ids() if t in there.tasks)
    here.reset(seed=0, options={"task_id": shared})
    there.reset(seed=0, options={"task_id": shared})
    foreign = there.snapshot()
    before, messages = here.world.state_hash(), json.dumps(here.episode.messages)
    with pytest.raises(ValueError) as refused:
        here.restore(foreign)
    assert str(refused.value) == ("ToolLLM-v0: RapidAPIWorld: this snapshot was taken in another world (seed 1 there, "
                                  "0 here); restore() takes snapshots of this world only")
    assert here.world.state_hash() == before and json.dumps(here.episode.messages) == messages
    here.restore(here.snapshot())  # its own snapshots still restore, and the episode goes on
    assert here.step({"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}})[2]


def test_a_snapshot_of_another_catalogue_is_refused_by_the_world():
    small, tiny = RapidAPIWorld(seed=0), RapidAPIWorld(seed=0, catalogue_size="medium")
    before = small.state_hash()
    with pytest.raises(ValueError, match=r"^RapidAPIWorld: this snapshot was taken in another world \(parameters "):
        small.restore(tiny.snapshot())
    assert small.state_hash() == before
    with pytest.raises(ValueError, match="restore\\(\\) takes a snapshot\\(\\) of the world, not Snapshot"):
        small.restore(small.volatile_state())  # no database: not a snapshot to restore


def test_snapshots_are_independent_of_the_envs_that_take_and_restore_them(envs):
    taker, first, second = envs
    task = write_task(taker)
    for env in envs:
        env.reset(seed=0, options={"task_id": task.query_id})
    snap = taker.snapshot()
    clean = taker.world.state_hash()
    first.restore(snap)
    create, search = create_and_search(first, task, "Alpha Widget")
    created = response(first, create)
    assert response(first, search)["results"] == [{"id": created["id"], "name": "Alpha Widget"}]

    second.restore(snap)  # what the first env did after its restore is not in the snapshot
    assert second.world.state_hash() == clean and second.episode.steps == 0
    assert response(second, search)["count"] == 0
    other_create, other_search = create_and_search(second, task, "Beta Widget")
    response(second, other_create)
    assert response(first, other_search)["count"] == 0  # nor in the other restored env
    assert response(taker, search)["count"] == 0 and response(taker, other_search)["count"] == 0
    assert taker.episode.steps == 2 and first.episode.steps == 3  # episodes are the envs' own

    first.restore(snap)  # and the snapshot still holds the state it was taken in
    assert first.world.state_hash() == clean and first.episode.steps == 0
    assert [m["role"] for m in first.episode.messages] == [m["role"] for m in snap.episode.messages]
    first.episode.messages.append({"role": "user", "content": "changed after restore"})
    assert snap.episode.messages[-1]["content"] != "changed after restore"


def test_journal_snapshots_restore_exactly_the_rows_of_their_time():
    """Random creates, updates and deletes, snapshots between them, restores in random order:
    each restore gives the rows hashed when its snapshot was taken, in this world and in another
    one of the same identity; a snapshot holds only the rows changed since the build."""
    import random

    from toolgym.worlds.rapidapi.world import JournalSnapshot

    world, other = RapidAPIWorld(seed=3), RapidAPIWorld(seed=3)
    world._load_apis()
    by_kind: dict[str, list] = {}
    for api in world._apis.values():
        by_kind.setdefault(api.kind, []).append(api)
    tool = next(a.tool_id for a in by_kind["delete"] if any(c.tool_id == a.tool_id for c in by_kind["create"]))
    apis = {kind: next(a for a in by_kind[kind] if a.tool_id == tool) for kind in ("create", "update", "delete", "list_by")
            if any(a.tool_id == tool for a in by_kind.get(kind, []))}
    rng = random.Random(0)
    start = world.snapshot()
    taken = [(start, world.state_hash())]
    assert isinstance(start, JournalSnapshot) and start.entities == {}
    keys = [k for (k,) in world.sql().execute("SELECT key FROM entities WHERE tool_id = ?", (tool,))]
    for step in range(60):
        kind = rng.choice(sorted(apis))
        api = apis[kind]
        arguments = {p["arg"]: f"v{step}" for p in api.required}
        id_arg = next((p["arg"] for p in api.required if p["arg"] in ("id",) or p["arg"].endswith("_id")), None)
        if id_arg is not None and keys:
            arguments[id_arg] = rng.choice(keys)
        result = world.call(api.id, arguments)
        if kind == "create" and result.ok:
            keys.append(json.loads(json.dumps(result.response))["id"])
        if rng.random() < 0.3:
            taken.append((world.snapshot(), world.state_hash()))
        if rng.random() < 0.2:
            snap, expected = rng.choice(taken)
            world.restore(snap)
            assert world.state_hash() == expected
            other.restore(snap)
            assert other.state_hash() == expected
    assert world.writes > 10
    assert all(len(snap.entities) < 70 for snap, _ in taken)
    changed = [row for snap, _ in taken for row in snap.entities.values()]
    assert None in changed and len(changed) > 10  # deletions and rows written
    world.restore(start)
    assert world.state_hash() == taken[0][1]
