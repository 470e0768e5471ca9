"""The step contract every env keeps: outside an episode, over-long actions, reset options.

One env per id is made for the whole module (AppBench-v0 takes about 15 s to make). The
test that steps before any reset is the first in the file, so it sees each env fresh.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym
from toolgym.envs.base import action_size

# A test that hangs fails instead of stalling the suite.
pytestmark = pytest.mark.timeout(120)
_ENVS: dict[str, gym.Env] = {}


@pytest.fixture(params=toolgym.ENV_IDS)
def env(request):
    """The module's one env of this id (the lexical comparator keeps ToolTalk-v0 light)."""
    if request.param not in _ENVS:
        kwargs = {"text_similarity": "lexical"} if request.param == "ToolTalk-v0" else {}
        _ENVS[request.param] = gym.make(request.param, **kwargs)
    return _ENVS[request.param].unwrapped


def _state(env) -> str | None:
    world = env.world
    return world.state_hash() if hasattr(world, "state_hash") else None


def _play_oracle(env, task_id: str) -> dict:
    """Run the oracle through one episode; the last info."""
    env.reset(seed=0, options={"task_id": task_id})
    for _ in range(200):
        _, _, terminated, truncated, info = env.step(env.oracle_action())
        if terminated or truncated:
            return info
    raise AssertionError("the oracle's episode did not end")


def test_step_before_any_reset_says_so(env):
    obs, reward, terminated, truncated, info = env.step("anything")
    assert "reset()" in obs and "no episode has started" in obs
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["task_id"] is None and info["error"] == "step before reset"
    assert env.oracle_action() is None


def test_step_after_the_episode_ended_says_so(env):
    task_id = env.task_ids()[0]
    assert "metrics" in _play_oracle(env, task_id)
    before = _state(env)
    obs, reward, terminated, truncated, info = env.step("another action")
    assert "the episode is over" in obs and "reset()" in obs
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["task_id"] == task_id and "metrics" not in info
    assert _state(env) == before
    assert env.oracle_action() is None
    env.reset(seed=0, options={"task_id": task_id})
    assert env.oracle_action() is not None  # the env is usable again


@pytest.mark.parametrize("shape", ["text", "dict"])
def test_overlong_action_is_refused_unread(env, shape):
    limit = min(env.max_action_chars, env.action_space.max_length)
    assert limit <= 100_000  # far below TextSpace's 1 MB
    payload = "x" * (limit + 1)
    action = payload if shape == "text" else {"name": "AddAlarm", "arguments": {"time": payload}}
    task_id = env.task_ids()[0]
    env.reset(seed=0, options={"task_id": task_id})
    before = _state(env)
    obs, reward, terminated, truncated, info = env.step(action)
    assert f"limit of {limit} characters" in obs
    assert reward == 0.0 and info["task_id"] == task_id
    assert _state(env) == before
    if terminated or truncated:
        assert "metrics" in info
        assert not info["metrics"].get("success", info["metrics"].get("succ"))
    assert payload[:1000] not in json.dumps(info, default=str)  # nothing stored beyond a preview
    rendered = env.render()
    assert rendered is None or payload[:1000] not in rendered
    assert "metrics" in _play_oracle(env, task_id)  # a normal episode runs afterwards


def test_action_size_is_linear_and_stops_early():
    nested: dict = {}
    inner = nested
    for _ in range(10_000):  # deeper than any parser's recursion limit
        inner["a"] = {}
        inner = inner["a"]
    assert action_size(nested, 100_000) == 100_001
    assert action_size(list(range(10**6)), 1000) == 1001
    assert 400 < action_size({"name": "A", "arguments": {"k": 10**400}}, 1000) < 500  # ~digits, not printed
    assert action_size("é" * 5, 10) == 5


@pytest.mark.parametrize("options, error, match", [
    ("task-0", ValueError, "options must be a dict"),
    ({"task": "0"}, ValueError, "unknown reset option.*'task'"),
    ({"task_index": "0"}, ValueError, "'task_index' must be an int"),
    ({"task_index": True}, ValueError, "'task_index' must be an int"),
    ({"task_index": 10**9}, ValueError, "'task_index' must be in"),
    ({"task_index": -1}, ValueError, "'task_index' must be in"),
    ({"task_id": 1.5}, ValueError, "'task_id' must be a string"),
    ({"task_id": "no such task"}, KeyError, "unknown task_id 'no such task'"),
    ({"task_id": "x", "task_index": 0}, ValueError, "give one"),
])
def test_reset_validates_its_options(env, options, error, match):
    with pytest.raises(error, match=match):
        env.reset(seed=0, options=options)


def test_reset_by_index_and_by_id(env):
    ids = env.task_ids()
    assert env.reset(seed=0, options={"task_index": len(ids) - 1})[1]["task_id"] == ids[-1]
    assert env.reset(seed=0, options={"task_id": ids[0]})[1]["task_id"] == ids[0]
