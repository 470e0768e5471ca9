"""Vector envs: async (shared memory) must give exactly what sync gives, for every env."""

from __future__ import annotations

import copy
import multiprocessing

import gymnasium as gym
import pytest

import toolgym
from toolgym.envs.common.spaces import SharedTextBatch, TextSpace
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

# Small task sets where the env has a size knob, so that four makes stay quick.
ENV_KWARGS = {"AppBench-v0": {"tasks_per_category": 5}}
STEPS = 3


def _rollout(env_id: str, mode: str) -> list:
    """Observations, rewards and terminations of a few oracle steps of two envs."""
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **ENV_KWARGS.get(env_id, {}))
    try:
        obs, _ = envs.reset(seed=7)
        trace = [tuple(obs)]
        for _ in range(STEPS):
            actions = tuple(a if a is not None else "" for a in envs.call("oracle_action"))
            obs, rewards, terminated, truncated, _ = envs.step(actions)
            trace.append((tuple(obs), tuple(rewards.tolist()), tuple(terminated.tolist())))
        return trace
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", toolgym.ENV_IDS)
def test_async_vector_env_equals_sync(env_id):
    sync, asynchronous = _rollout(env_id, "sync"), _rollout(env_id, "async")
    assert asynchronous == sync
    assert all(isinstance(o, str) and o for o in sync[0])  # every env starts with a task text


def test_shared_memory_round_trips_any_unicode_and_stays_live():
    space = TextSpace(max_length=32)
    memory = create_shared_memory(space, n=2, ctx=multiprocessing)
    view = read_from_shared_memory(space, memory, n=2)
    write_to_shared_memory(space, 1, "héllo ☃ \ud800 日本", memory)
    assert tuple(view) == ("", "héllo ☃ \ud800 日本")  # read before the write, still sees it
    snapshot = copy.deepcopy(view)
    assert type(snapshot) is tuple
    write_to_shared_memory(space, 1, "x", memory)
    assert snapshot[1] == "héllo ☃ \ud800 日本" and view[1] == "x"
    assert isinstance(view, SharedTextBatch) and view == ("", "x")


def test_shared_memory_refuses_text_longer_than_the_space():
    space = TextSpace(max_length=4)
    memory = create_shared_memory(space, n=1, ctx=multiprocessing)
    with pytest.raises(ValueError, match="5 characters exceeds TextSpace"):
        write_to_shared_memory(space, 0, "hello", memory)
