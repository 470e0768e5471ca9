"""Tau2-v0's solo mode (τ³-bench's ``llm_agent_solo``): no user, the agent works the ticket alone."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import play_oracle
from toolgym.envs.tau2.env import SOLO_SYSTEM_PROMPT
from toolgym.envs.tau2.tasks import solo_ready
from toolgym.registry import make_env


@pytest.mark.parametrize("domain, words", [("airline", "Airline domain does not support solo mode"),
                                           ("retail", "Retail domain does not support solo mode")])
def test_solo_mode_is_refused_with_tau3s_reason(domain, words):
    with pytest.raises(ValueError, match=words):
        make_env("Tau2-v0", {"domain": domain, "solo_mode": True})


def test_solo_mode_has_no_user():
    with pytest.raises(ValueError, match="solo mode has no user"):
        gym.make("Tau2-v0", domain="telecom", solo_mode=True, user="replay")


def test_solo_start_is_tau3s_system_prompt_with_the_ticket_and_the_tools_of_both_sides():
    env = gym.make("Tau2-v0", domain="telecom", solo_mode=True).unwrapped
    task_id = env.task_ids()[0]
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    ticket = env.task["ticket"]
    assert observation == ticket and "Customer name:" in ticket and info["ticket"] == ticket
    [system] = info["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("<instructions>\nYou are a customer service agent")
    assert "send a message containing a single tool call to the `done` tool" in system["content"]
    assert system["content"].endswith(f"<ticket>\n{ticket}\n</ticket>")
    assert "You work a ticket alone" in system["content"]  # the built-in solo policy
    names = [tool["function"]["name"] for tool in info["tools"]]
    agent_names = [tool["function"]["name"] for tool in gym.make("Tau2-v0", domain="telecom").unwrapped.tools]
    user_names = [tool["function"]["name"] for tool in env.user_tools]
    assert names == agent_names + user_names + ["done"]  # τ³'s order: agent's, user's, then the stop tool


def test_the_agent_runs_the_phones_tools_itself_and_done_ends_the_ticket():
    env = gym.make("Tau2-v0", domain="telecom", solo_mode=True).unwrapped
    env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    observation, reward, terminated, _, _ = env.step({"name": "check_status_bar", "arguments": {}})
    assert not terminated and "Error" not in observation
    tool_message = env._messages[-1]
    assert tool_message["role"] == "tool" and tool_message["requestor"] == "assistant"
    # a turn holding done runs none of its calls (τ³'s _check_if_stop_toolcall)
    before = env.world.state_hash()
    _, reward, terminated, _, info = env.step({"content": None, "tool_calls": [
        {"name": "toggle_airplane_mode", "arguments": {}}, {"name": "done", "arguments": {}}]})
    assert terminated and env.world.state_hash() == before
    assert env._messages[-1] == {"role": "assistant", "content": "###STOP###"}
    assert info["metrics"]["termination"] == "agent_stop"


def test_a_solo_agents_text_ends_the_episode_as_an_agent_error():
    env = gym.make("Tau2-v0", domain="mock", solo_mode=True).unwrapped
    env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    observation, reward, terminated, _, info = env.step("Could you tell me which task?")
    assert terminated and reward == 0.0
    assert info["metrics"]["termination"] == "agent_error"
    assert observation == "Error: in solo mode the agent can only make tool calls"


def test_solo_ready_is_tau3s_check_valid_task():
    assert solo_ready({"ticket": "t", "initial_state": None, "evaluation_criteria": {"actions": [{"name": "x"}]}})
    assert not solo_ready({"ticket": "t", "initial_state": None, "evaluation_criteria": {"actions": []}})
    assert not solo_ready({"ticket": None, "initial_state": None, "evaluation_criteria": {"actions": [{"name": "x"}]}})
    # a history of tool calls only is enough, ticket or not; a user's word in it is not
    calls = {"role": "assistant", "content": None, "tool_calls": [{"name": "x", "arguments": {}}]}
    assert solo_ready({"ticket": None, "initial_state": {"message_history": [calls]}})
    assert not solo_ready({"initial_state": {"message_history": [calls, {"role": "user", "content": "hi"}]}})
    assert solo_ready({"initial_state": {"initialization_actions": []}})


@pytest.mark.parametrize("domain, count", [("telecom", 240), ("mock", 2)])
def test_solo_oracle_solves_every_builtin_task(domain, count):
    env = gym.make("Tau2-v0", domain=domain, solo_mode=True)
    task_ids = env.unwrapped.task_ids()
    assert len(task_ids) == count
    for task_id in task_ids:
        total, info, terminated = play_oracle(env, task_id)
        assert (total, terminated, info["metrics"]["termination"]) == (1.0, True, "agent_stop"), task_id


def test_solo_perturbations_fail_the_reward():
    env = gym.make("Tau2-v0", domain="telecom", solo_mode=True).unwrapped
    task_id = env.task_ids()[5]
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, terminated, _, info = env.step({"name": "done", "arguments": {}})  # nothing fixed
    assert terminated and reward == 0.0 and "ENV_ASSERTION" in info["metrics"]["failed"]


def test_solo_passes_check_env():
    check_env(gym.make("Tau2-v0", domain="telecom", solo_mode=True).unwrapped, skip_render_check=True)


def test_solo_official_telecom_and_mock(official_data):
    telecom = gym.make("Tau2-v0", domain="telecom", tasks="official", data_dir=str(official_data), solo_mode=True)
    task_ids = telecom.unwrapped.task_ids()
    assert len(task_ids) == 114  # the base split: every telecom task has a ticket
    observation, info = telecom.reset(seed=0, options={"task_id": task_ids[0]})
    assert "<policy>\n<main_policy>\n# Telecom Agent Policy\n" in info["messages"][0]["content"]
    assert "You should only make one tool call at a time.\n" in info["messages"][0]["content"]  # the solo policy
    for task_id in task_ids:
        total, info, _ = play_oracle(telecom, task_id)
        assert total == 1.0, task_id
    mock = gym.make("Tau2-v0", domain="mock", tasks="official", data_dir=str(official_data), solo_mode=True)
    rewards = {task_id: play_oracle(mock, task_id)[0] for task_id in mock.unwrapped.task_ids()}
    # Unsolvable alone, in τ³ as here: a fact to tell the user, and an assertion the ground truth never makes true.
    unsolvable = {"update_task_with_initialization_data", "update_task_with_user_tools"}
    assert len(rewards) == 7 and {t for t, r in rewards.items() if r != 1.0} == unsolvable
    assert SOLO_SYSTEM_PROMPT.count("{") == 3


def test_the_tau2_profile_sends_tau3s_solo_request():
    from toolgym.agents.llm.prompts import EpisodeState, make_prompt_format

    env = gym.make("Tau2-v0", domain="telecom", solo_mode=True).unwrapped
    _, info = env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    profile = make_prompt_format("tau2")
    state = EpisodeState(task_id=env.task_id, info=info)
    messages, tools = profile.build(state, info)
    assert messages == [{"role": "system", "content": info["messages"][0]["content"]}]  # τ³'s solo prompt, as is
    names = [tool["function"]["name"] for tool in tools]
    assert names[-1] == "done" and "toggle_airplane_mode" in names and "get_customer_by_phone" in names
    assert profile.request_fields(state, info)["tool_choice"] == "required"
