"""The API selection complexity score (appendix D): worked example, closed form, CLI."""

from __future__ import annotations

import itertools
import random

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.eval.cli import main
from toolgym.eval.complexity import (
    WORKED_EXAMPLE, complexity_score, edit_distance, env_complexity, expected_min_distance, reversed_f1,
)


def test_worked_example_is_reproduced():
    ex = WORKED_EXAMPLE
    assert complexity_score(ex["tests"], ex["demos"], ex["k"], "edit") == pytest.approx(4 / 3)
    assert complexity_score(ex["tests"], ex["demos"], ex["k"], "reversed_f1") == pytest.approx(11 / 45)
    assert (ex["edit"], ex["reversed_f1"]) == (pytest.approx(4 / 3), pytest.approx(11 / 45))


def test_distances():
    assert edit_distance(["a", "b", "d"], ["a", "b"]) == 1
    assert edit_distance(["a", "b", "d"], ["b", "c", "d"]) == 2
    assert edit_distance([], ["a", "b"]) == 2
    assert reversed_f1(["a", "b"], ["b", "a"]) == 0.0  # order does not matter
    assert reversed_f1(["a", "a"], ["a"]) == pytest.approx(1 - 2 * 1 / 3)  # multisets
    assert reversed_f1([], []) == 0.0


def test_closed_form_equals_the_average_over_all_k_subsets():
    rng = random.Random(7)
    for _ in range(30):
        distances = [rng.randint(0, 6) for _ in range(rng.randint(1, 7))]
        for k in range(1, len(distances) + 2):
            subsets = list(itertools.combinations(distances, min(k, len(distances))))
            brute = sum(min(s) for s in subsets) / len(subsets)
            assert expected_min_distance(distances, k) == pytest.approx(brute)


def test_demonstrations_that_contain_the_test_calls_give_zero():
    assert complexity_score([["a", "b"]], [["a", "b"], ["a", "b"]], k=1) == 0.0
    with pytest.raises(ValueError):
        complexity_score([["a"]], [], k=3)


def test_builtin_sets_and_cli(capsys):
    home = env_complexity(gym.make("HomeSearch-v0"))
    trip = env_complexity(gym.make("TripBooking-v0"))
    assert (home["tests"], home["demos"], trip["tests"], trip["demos"]) == (100, 10, 120, 11)
    assert home["edit"] == pytest.approx(1.907, abs=1e-3)
    assert trip["edit"] == pytest.approx(3.341, abs=1e-3)
    assert main(["complexity", "HomeSearch-v0", "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert "100 test tasks, 10 demonstrations, k=3" in out
    assert "(edit distance, eq. 1-3): 1.907" in out


def test_rest_envs_expose_their_api_calls():
    import gymnasium as gym

    from toolgym.eval.complexity import env_complexity

    env = gym.make("OpenWeather-v0")
    sequences = env.unwrapped.api_call_sequences()
    assert len(sequences["tests"]) == len(env.unwrapped.task_ids())
    assert all(len(calls) == 1 for calls in sequences["tests"] + sequences["demos"])
    assert sequences["tests"][:2] == [["current_weather(q)"], ["current_weather(lang,zip)"]]
    scores = env_complexity(env, k=3)
    assert 0.0 <= scores["edit"] <= 1.0 and scores["edit"] == scores["reversed_f1"]  # one call per task
