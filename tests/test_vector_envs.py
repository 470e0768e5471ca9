"""Vector envs: async (shared memory) must give exactly what sync gives, for every env.

``gym.make_vec(id, num_envs=N)`` with no mode is toolgym's vector env: one process when a step is
cheap, else toolgym's async vector env, whose workers send ``info`` as deltas
(``toolgym.envs.common.vector``); "async" is gymnasium's own.
"""

from __future__ import annotations

import copy
import multiprocessing
import pickle

import gymnasium as gym
import pytest

import toolgym
from toolgym.envs.common.spaces import SharedTextBatch, TextSpace
from toolgym.envs.common.vector import (CHEAP_STEP_SECONDS, InfoDeltas, ToolAsyncVectorEnv, ToolSyncVectorEnv,
                                        choose_vectorization, probe_step_seconds)
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

# Small task sets where the env has a size knob, so that four makes stay quick.
ENV_KWARGS = {"AppBench-v0": {"tasks_per_category": 5}}
STEPS = 3


def _plain(infos: dict) -> dict:
    """A vector env's infos with its arrays as lists, for ``==``."""
    return {key: _plain(value) if isinstance(value, dict) else value.tolist() for key, value in infos.items()}


def _rollout(env_id: str, mode: str | None) -> list:
    """Observations, rewards, terminations and infos of a few oracle steps of two envs (``mode`` None:
    toolgym's async vector env)."""
    kwargs = {"vectorization": "async"} if mode is None else {}
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **kwargs, **ENV_KWARGS.get(env_id, {}))
    try:
        obs, infos = envs.reset(seed=7)
        trace = [(tuple(obs), _plain(infos))]
        for _ in range(STEPS):
            actions = tuple(a if a is not None else "" for a in envs.call("oracle_action"))
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            trace.append((tuple(obs), tuple(rewards.tolist()), tuple(terminated.tolist()), _plain(infos)))
        return trace
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", toolgym.ENV_IDS)
def test_async_vector_env_equals_sync(env_id):
    sync, asynchronous = _rollout(env_id, "sync"), _rollout(env_id, None)
    assert asynchronous == sync
    assert all(isinstance(o, str) and o for o in sync[0][0])  # every env starts with a task text
    assert "messages" in sync[0][1] and "tools" in sync[0][1]


def test_default_vector_env_is_toolgyms_and_gymnasiums_async_still_works():
    envs = gym.make_vec("HomeSearch-v0", num_envs=2, vectorization="async")
    try:
        assert type(envs) is ToolAsyncVectorEnv and envs.vectorization == "async"
    finally:
        envs.close()
    envs = gym.make_vec("HomeSearch-v0", num_envs=2)  # auto: which ran, and why, is on the vector env
    try:
        assert isinstance(envs, (ToolSyncVectorEnv, ToolAsyncVectorEnv))
        assert envs.vectorization in ("sync", "async") and "a step costs" in envs.vectorization_reason
    finally:
        envs.close()
    assert _rollout("HomeSearch-v0", "async") == _rollout("HomeSearch-v0", "sync")


def test_the_default_picks_one_process_for_cheap_steps_and_workers_for_dear_ones():
    assert choose_vectorization(CHEAP_STEP_SECONDS / 10, 4, 2)[0] == "sync"
    assert choose_vectorization(CHEAP_STEP_SECONDS * 3, 4, 2) == ("async", "a step costs 6.00 ms of CPU, at least 2 ms")
    assert choose_vectorization(1.0, 1, 2) == ("sync", "one env")
    assert choose_vectorization(1.0, 4, 1) == ("sync", "one CPU")
    assert choose_vectorization(None, 4, 2)[0] == "async"
    with pytest.raises(ValueError, match="vectorization must be one of"):
        gym.make_vec("ToolTalk-v0", num_envs=2, vectorization="threads")


def test_the_probe_times_oracle_steps_and_the_sync_env_keeps_the_probe():
    env = gym.make("ToolTalk-v0")
    cost = probe_step_seconds(env, steps=5)
    assert isinstance(cost, float) and cost >= 0.0
    envs = gym.make_vec("ToolTalk-v0", num_envs=2, vectorization="sync")
    try:
        assert type(envs) is ToolSyncVectorEnv and envs.vectorization_reason == "asked for"
        observations, _ = envs.reset(seed=7)
        assert all(isinstance(o, str) and o for o in observations)
    finally:
        envs.close()


def test_tooltalk_steps_send_under_a_kilobyte_and_tools_only_at_the_start():
    env = InfoDeltas(gym.make("ToolTalk-v0"))
    _, reset_delta = env.reset(seed=3)
    first_reset = pickle.dumps(reset_delta)
    same, extend, new = reset_delta[InfoDeltas.DELTA]
    assert "tools" in new and len(first_reset) > 5000  # the schemas cross once
    sizes = []
    terminated = False
    while not terminated:
        *_, terminated, _, delta = env.step(env.unwrapped.oracle_action())
        same, extend, new = delta[InfoDeltas.DELTA]
        assert "tools" in same and "tools" not in new
        # What the episode's end reports once (its metrics and predictions) aside.
        episode_end = {key: new.pop(key) for key in ("metrics", "predictions") if key in new}
        assert bool(episode_end) == terminated
        sizes.append(len(pickle.dumps(delta)))
    assert len(sizes) > 3 and max(sizes) < 1024, sizes
    _, delta = env.reset(seed=4)  # another conversation: its own messages, the same tools
    same, extend, new = delta[InfoDeltas.DELTA]
    assert "tools" in same and extend["messages"][0] < len(env.unwrapped._messages)


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
