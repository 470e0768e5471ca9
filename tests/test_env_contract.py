"""The contract every registered env keeps, the same assertions for every id and mode.

Gymnasium's ``check_env``; the spaces; determinism; the step contract (outside an episode,
over-long actions refused unread with the world's state hash unchanged, reset options); the
oracle scoring 100% on built-in tasks; the metrics of an episode's end (every key of the env's
results table, ``invalid_actions`` and ``success`` in {0, 1}). Per-env test files test their
domain only.

One env per id and mode is made for the whole module (AppBench-v0 takes about 15 s to make).
The test that steps before any reset is the first in the file, so it sees each env fresh.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym
from gymnasium.utils.env_checker import check_env

from toolgym.envs.base import INVALID_ACTIONS, action_size

from toolgym.envs.common.spaces import TextSpace

# A test that hangs fails instead of stalling the suite.
pytestmark = pytest.mark.timeout(120)
_ENVS: dict[tuple[str, str | None], gym.Env] = {}
#: Built-in tasks the oracle plays per id and mode (``make eval`` plays them all).
ORACLE_TASKS = 3


def _make(env_id: str, mode: str | None = None) -> gym.Env:
    """The module's one env of this id and mode (the lexical comparator keeps ToolTalk-v0 light)."""
    if (env_id, mode) not in _ENVS:
        kwargs = {"text_similarity": "lexical"} if env_id == "ToolTalk-v0" else {}
        _ENVS[env_id, mode] = gym.make(env_id, **kwargs, **({"mode": mode} if mode else {}))
    return _ENVS[env_id, mode].unwrapped


@pytest.fixture(params=toolgym.ENV_IDS)
def env(request):
    """The env of one id, in its default mode."""
    return _make(request.param)


@pytest.fixture(params=toolgym.env_modes(), ids=lambda pair: f"{pair[0]}-{pair[1]}" if pair[1] else pair[0])
def env_mode(request):
    """The env of one id and mode."""
    return _make(*request.param)


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


def test_check_env_and_spaces(env_mode):
    check_env(env_mode, skip_render_check=True)
    assert isinstance(env_mode.observation_space, TextSpace) and isinstance(env_mode.action_space, TextSpace)
    observation, info = env_mode.reset(seed=0, options={"task_index": 0})
    assert env_mode.observation_space.contains(observation)
    assert {"task_id", "task_set", "split", "scoring", "mode", "messages", "tools"} <= set(info)


def test_reset_is_deterministic(env_mode):
    first = env_mode.reset(seed=3)
    second = env_mode.reset(seed=3)
    assert first[0] == second[0] and first[1]["task_id"] == second[1]["task_id"]
    assert json.dumps(first[1], default=str, sort_keys=True) == json.dumps(second[1], default=str, sort_keys=True)


def test_oracle_scores_100_percent_with_the_papers_metrics(env_mode):
    keys = {key for column in env_mode.table_columns for key in column.keys}
    for task_id in env_mode.task_ids()[:ORACLE_TASKS]:
        env_mode.reset(seed=0, options={"task_id": task_id})
        rewards = []
        for _ in range(200):
            _, reward, terminated, truncated, info = env_mode.step(env_mode.oracle_action())
            rewards.append(reward)
            if terminated or truncated:
                break
        metrics = info["metrics"]
        where = f"{env_mode.env_id} mode={env_mode.mode} task {task_id}"
        assert metrics["success"] == 1 and metrics[INVALID_ACTIONS] == 0, where
        assert keys <= set(metrics), f"{where}: the results table's keys {sorted(keys - set(metrics))} are missing"
        assert sum(rewards) == pytest.approx(1.0), f"{where}: the return is the paper's metric"


def test_an_unreadable_action_is_counted_and_scores_0(env_mode):
    env_mode.reset(seed=0, options={"task_index": 0})
    unreadable = '{"name": "x", "arguments": '  # JSON cut short: no env's parser reads it
    for step in range(env_mode.max_steps or 50):
        *_, terminated, truncated, info = env_mode.step(unreadable)
        if terminated or truncated:
            break
    assert info["metrics"][INVALID_ACTIONS] == step + 1, f"{env_mode.env_id} mode={env_mode.mode}"
    assert info["metrics"]["success"] in (0, 1) and not info["metrics"]["success"]


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
def test_overlong_action_is_refused_unread(env_mode, shape):
    env = env_mode
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


def test_every_spec_serialises():
    """``env.spec.to_json()`` works for every id (the vector entry point is a string, not a closure),
    and the spec read back is the registered one."""
    for env_id in toolgym.ENV_IDS:
        spec = gym.spec(env_id)
        assert gym.envs.registration.EnvSpec.from_json(spec.to_json()) == spec
        assert spec.vector_entry_point == f"toolgym.envs.common.vector:{env_id}"


@pytest.mark.parametrize("env_id, kwargs", [("ToolTalk-v0", {"text_similarity": "lexical"}),
                                            ("Tau2-v0", {"domain": "mock"}), ("Example-v0", {})])
def test_a_time_limit_truncation_reports_the_metrics_so_far(env_id, kwargs):
    """toolgym's make (the CLI's, the servers') puts a max_episode_steps limit in toolgym's
    TimeLimit, which ends the episode with its metrics so far."""
    from toolgym.registry import make_env

    env = make_env(env_id, {"max_episode_steps": 2, **kwargs})
    assert json.loads(env.spec.to_json())["max_episode_steps"] == 2
    env.reset(seed=0, options={"task_index": 0})
    unreadable = '{"name": "x", "arguments": '
    _, _, terminated, truncated, info = env.step(unreadable)
    assert not (terminated or truncated) and "metrics" not in info
    _, _, terminated, truncated, info = env.step(unreadable)
    assert truncated and not terminated
    assert info["metrics"]["success"] == 0 and info["metrics"][INVALID_ACTIONS] == 2
    assert "the episode is over" in env.step(unreadable)[0]


def test_no_built_in_task_shows_its_own_answer_in_its_demonstrations(env):
    """A demonstration in a task's prompt never has the task's query or its gold action (a model
    could copy the answer): CatAPI-v0 had 10 of 102 tasks with their own query among the demos."""
    shown = 0
    for task_id in env.task_ids():
        _, info = env.reset(seed=0, options={"task_id": task_id})
        query, gold = info.get("query"), env.oracle_action()
        prompt = info.get("prompt")
        for demo in prompt.get("demos") or () if isinstance(prompt, dict) else ():
            shown += 1
            assert demo["query"] != query and demo["action"] != gold, (env.env_id, task_id, demo)
        if isinstance(info.get("demos"), dict):  # WebShop-v0: played demonstration goals, as text
            instruction = f"Instruction: {info['instruction']}\n"
            assert all(instruction not in text for text in info["demos"].values()), (env.env_id, task_id)
    if env.env_id in ("OpenWeather-v0", "CatAPI-v0", "HomeSearch-v0", "TripBooking-v0", "VirtualHome-v0"):
        assert shown >= len(env.task_ids())
