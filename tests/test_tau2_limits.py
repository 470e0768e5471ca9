"""Tau2-v0's limits as τ²'s orchestrator counts them (issue 47): ``max_messages`` steps (a message
of the agent or the user, or one message's tool results) and ``max_errors`` failed calls, checked
after every step but a message of calls, overriding a stop made in the same step."""

from __future__ import annotations

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.envs.users import STOP

GET_USERS = {"name": "get_users", "arguments": {}}
BAD_UPDATE = {"name": "update_task_status", "arguments": {"task_id": "nope", "status": "completed"}}


def make(**kwargs):
    env = gym.make("Tau2-v0", domain="mock", **kwargs).unwrapped
    env.reset(options={"task_id": "mock_complete"})  # the user's opening: step 1
    return env


def roles(env) -> list[str]:
    return [m["role"] for m in env._messages[env._episode_start - 1:]]


def test_the_default_is_tau2s_200_and_none_switches_it_off():
    assert make().max_messages == 200
    env = make(max_messages=None, max_steps=50)
    for _ in range(49):
        assert env.step(GET_USERS)[3] is False  # 98 messages more: no τ² limit
    assert env.step(GET_USERS)[4]["metrics"]["termination"] == "max_steps"  # toolgym's 50 agent actions


def test_a_message_that_reaches_the_limit_ends_before_the_user_answers():
    env = make(max_messages=4)
    _, _, terminated, truncated, _ = env.step(GET_USERS)  # the call's message (2) and its result (3)
    assert not terminated and not truncated
    _, reward, terminated, truncated, info = env.step("Which task do you mean?")  # 4
    assert truncated and not terminated and reward == 0.0
    assert info["metrics"]["termination"] == "max_steps" and info["metrics"]["failed"] == ["TERMINATION"]
    assert roles(env) == ["user", "assistant", "tool", "assistant"]  # the user was not asked


def test_one_message_of_several_calls_is_two_steps():
    env = make(max_messages=4)
    _, _, terminated, truncated, _ = env.step({"content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "get_users", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "get_users", "arguments": "{}"}}]})
    assert not terminated and not truncated and env._sent == 3
    assert env.step("Anything else?")[4]["metrics"]["termination"] == "max_steps"


def test_the_users_answer_is_a_step_and_the_limit_overrides_its_stop():
    env = make(max_messages=3)
    _, _, terminated, truncated, info = env.step("Which task?")  # 2; the user's answer is 3
    assert truncated and info["metrics"]["termination"] == "max_steps"
    assert roles(env) == ["user", "assistant", "user"]


def test_the_limit_overrides_the_agents_own_stop():
    env = make(max_messages=2)
    _, _, terminated, truncated, info = env.step(STOP)
    assert truncated and info["metrics"]["termination"] == "max_steps"
    env = make(max_messages=3)
    _, _, terminated, truncated, info = env.step(STOP)
    assert terminated and info["metrics"]["termination"] == "agent_stop"


def test_too_many_errors_wins_over_max_steps_in_the_same_step():
    env = make(max_messages=3, max_errors=1)
    _, reward, terminated, truncated, info = env.step(BAD_UPDATE)  # 2, 3: both limits hold
    assert terminated and not truncated and reward == 0.0
    assert info["metrics"]["termination"] == "too_many_errors"


def test_an_unreadable_action_is_one_step():
    env = make(max_messages=2)
    _, _, _, truncated, info = env.step({"name": 3})
    assert truncated and info["metrics"]["termination"] == "max_steps" and info["metrics"]["invalid_actions"] == 1


@pytest.mark.parametrize("bad", [0, -1])
def test_a_limit_below_one_is_refused(bad):
    with pytest.raises(ValueError, match="max_steps, max_messages and max_errors must be at least 1"):
        gym.make("Tau2-v0", domain="mock", max_messages=bad)


def test_a_limit_the_users_opening_reaches_ends_at_the_first_step_unread():
    env = make(max_messages=1)  # the opening is step 1
    _, reward, terminated, truncated, info = env.step(GET_USERS)
    assert truncated and reward == 0.0 and info["metrics"]["termination"] == "max_steps"
    assert roles(env) == ["user"]  # the call was not run
