"""Tau2User-v0: τ²'s worlds with the policy playing the customer (τ³-bench's UserGymEnv)."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import play_oracle
from toolgym.envs.users import FIRST_AGENT_MESSAGE


@pytest.mark.parametrize("domain, count", [("airline", 240), ("retail", 240), ("telecom", 240), ("mock", 3)])
def test_the_scripted_user_with_the_oracle_agent_scores_every_builtin_task(domain, count):
    env = gym.make("Tau2User-v0", domain=domain)
    task_ids = env.unwrapped.task_ids()
    assert len(task_ids) == count
    for task_id in task_ids:
        total, info, terminated = play_oracle(env, task_id)
        assert (total, terminated) == (1.0, True), (task_id, info["metrics"])


def test_the_user_sees_the_greeting_its_scenario_and_the_conversation_with_roles_flipped():
    env = gym.make("Tau2User-v0", domain="airline").unwrapped
    observation, info = env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    assert observation == FIRST_AGENT_MESSAGE
    assert info["tools"] == []  # airline's user has no tools
    assert info["scenario"] and info["scenario"] in info["messages"][0]["content"]
    assert info["messages"][1:] == [{"role": "user", "content": FIRST_AGENT_MESSAGE}]
    opening = env.oracle_action()
    observation, reward, terminated, _, info = env.step(opening)
    assert not terminated and reward == 0.0
    # the agent looked something up (its calls stay on its side) and wrote back
    assert info["messages"][2] == {"role": "assistant", "content": opening}
    assert info["messages"][-1] == {"role": "user", "content": observation}
    assert not any(m.get("tool_calls") for m in info["messages"])
    assert any(m.get("tool_calls") for m in env._messages)


def test_a_user_who_stops_at_once_gets_taus_reward_of_an_unsolved_task():
    env = gym.make("Tau2User-v0", domain="retail").unwrapped
    env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    _, reward, terminated, _, info = env.step("Never mind. ###STOP###")
    assert terminated and reward == 0.0
    assert info["metrics"]["termination"] == "user_stop" and info["metrics"]["failed"]


def test_the_phones_tools_are_the_users_actions_in_telecom():
    env = gym.make("Tau2User-v0", domain="telecom").unwrapped
    _, info = env.reset(seed=0, options={"task_id": env.task_ids()[0]})
    assert "check_status_bar" in [tool["function"]["name"] for tool in info["tools"]]
    observation, _, terminated, _, info = env.step({"name": "check_status_bar", "arguments": {}})
    assert not terminated and not observation.startswith("Error")
    assert info["messages"][-2]["role"] == "assistant" and info["messages"][-2]["tool_calls"]
    assert info["messages"][-1] == {**info["messages"][-1], "role": "tool", "content": observation}
    observation, _, _, _, _ = env.step({"name": "no_such_tool", "arguments": {}})
    assert observation == "Error: Tool 'no_such_tool' not found."


def test_a_model_agent_needs_a_known_backend():
    with pytest.raises(ValueError, match="agent must be 'oracle'"):
        gym.make("Tau2User-v0", domain="mock", agent="scripted")


def test_user_env_passes_check_env():
    check_env(gym.make("Tau2User-v0", domain="mock").unwrapped, skip_render_check=True)


@pytest.mark.parametrize("task_id", ["task_062", "task_083", "task_080", "task_001"])
def test_a_scenario_that_scripts_the_stop_signal_is_played_to_its_end(official_data, task_id):
    """banking_knowledge's scenarios spell out ``###STOP###`` ("... ###STOP### after summary."): the
    scripted user's opening must not carry it, or the customer hangs up before the agent speaks;
    task_080's agent makes 34 calls in one turn."""
    env = gym.make("Tau2User-v0", domain="banking_knowledge", tasks="official", data_dir=str(official_data),
                   retrieval_config="no_knowledge")
    env.reset(seed=0, options={"task_id": task_id})
    opening = env.unwrapped.oracle_action()
    assert isinstance(opening, str) and "###STOP###" not in opening
    total, info, terminated = play_oracle(env, task_id)
    assert (total, terminated) == (1.0, True), info["metrics"]
