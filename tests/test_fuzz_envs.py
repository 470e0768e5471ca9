"""Every env and mode against a few thousand adversarial actions: no exception, bounded time
and memory, and an env that still works afterwards.

The actions are the oracle's, mutated by :class:`toolgym.agents.fuzz.FuzzAgent` (integers
beyond 64 bits, NaN, lone surrogates, 3,000-deep nesting, long strings, exponential lists,
catastrophic-regex bait, unknown tools). ``benchmarks/bench_fuzz.py`` runs 10,000 per env.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.envs.registration import load_env_creator

import toolgym
from toolgym.agents.fuzz import fuzz_run, retime
from toolgym.agents import play_oracle

# Each env in each of its modes; AppBench with a smaller built-in set so that it makes quickly.
SMALL = {"AppBench-v0": {"tasks_per_category": 10}}
CASES = [(env_id, {**SMALL.get(env_id, {}), **({"mode": mode} if mode else {})})
         for env_id in toolgym.ENV_IDS
         for mode in (load_env_creator(gym.spec(env_id).entry_point).modes or (None,))]
ACTIONS = {"AppBench-v0": 800, "Tabletop-v0": 400, "GoogleSheets-v0": 400}  # the slowest envs get fewer; the rest 1,500
MAX_STEP_SECONDS = 1.0
MAX_STEP_PEAK_BYTES = 200 * 2**20


@pytest.mark.slow
@pytest.mark.parametrize("env_id,kwargs", CASES, ids=[f"{e}-{k.get('mode', 'default')}" for e, k in CASES])
def test_fuzzed_actions_never_raise_and_stay_bounded(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    stats = fuzz_run(env, ACTIONS.get(env_id, 1_500), seed=11, slow_step_s=MAX_STEP_SECONDS)
    assert stats["exceptions"] == []
    # A step over the bound under tracemalloc (or on a busy machine) must also be over it when
    # its action is replayed alone: only then is the action itself slow.
    retimed = [(retime(env, slow), slow.action) for slow in stats["slow_steps"]]
    assert [(s, a) for s, a in retimed if s >= MAX_STEP_SECONDS] == []
    assert stats["peak_bytes"] < MAX_STEP_PEAK_BYTES
    # The env is still usable: the oracle solves a task after the fuzzing.
    total, info, _ = play_oracle(env, env.unwrapped.task_ids()[0])
    assert info["metrics"]["success"] == 1 and total == pytest.approx(1)
