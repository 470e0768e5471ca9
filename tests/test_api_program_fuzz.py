"""Fuzzed programs never raise out of step, and a rejected program never changes the world."""

from __future__ import annotations

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolgym  # noqa: F401

ENVS = {env_id: gym.make(env_id) for env_id in ("HomeSearch-v0", "TripBooking-v0")}
MULTI = {env_id: gym.make(env_id, mode="multi_step") for env_id in ENVS}
FUNCTIONS = sorted({*ENVS["HomeSearch-v0"].unwrapped.functions, *ENVS["TripBooking-v0"].unwrapped.functions,
                    "fly", "__init__", "_private"})

literals = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True), st.text(max_size=8),
                     st.booleans(), st.none())
atoms = st.one_of(literals.map(repr), st.sampled_from(["x", "API", "Loc", "os", "__import__", "d"]))
arguments = st.recursive(
    atoms, lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(st.sampled_from(["Loc", "Date", "print", "API.search"]), st.lists(inner, max_size=3))
        .map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        inner.map(lambda a: f"{a}.__class__"),
        inner.map(lambda a: f"-{a}"),
    ), max_leaves=6)
statements = st.one_of(
    st.tuples(st.sampled_from(FUNCTIONS), st.lists(arguments, max_size=3))
    .map(lambda t: f"API.{t[0]}({', '.join(t[1])})"),
    st.tuples(st.sampled_from(["x", "d", "API", "_y"]), arguments).map(lambda t: f"{t[0]} = {t[1]}"),
    st.sampled_from(["import os", "API.search()", "del x", "for i in []: pass", "x += 1", "", "  bad indent",
                     "API.__dict__['search']()", "exec('1')"]),
)
programs = st.one_of(st.lists(statements, max_size=6).map("\n".join), st.text(max_size=60))


def _check(env, program: str) -> None:
    base = env.unwrapped
    env.reset(seed=0, options={"task_id": "0"})
    before = base.world.snapshot()
    obs, reward, terminated, truncated, info = env.step(program)
    assert isinstance(obs, str) and reward in (0.0, 1.0)
    if terminated:
        metrics = info["metrics"]
        assert set(metrics) >= {"executable", "success", "f1"}
        assert 0.0 <= metrics["f1"] <= 1.0
        if not metrics["executable"] and obs.startswith("Error:"):
            assert base.world.snapshot() == before, program


@pytest.mark.parametrize("env_id", sorted(ENVS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs)
def test_fuzzed_programs_single_step(env_id, program):
    _check(ENVS[env_id], program)


@pytest.mark.parametrize("env_id", sorted(MULTI))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=statements)
def test_fuzzed_statements_multi_step(env_id, program):
    _check(MULTI[env_id], program)
