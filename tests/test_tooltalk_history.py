"""ToolTalk's ``info["messages"]``: the conversation an LLM sees, checked after every step."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)


def expected_history(conversation: dict, finished_turns: int, current_turn: int | None) -> tuple[list, list]:
    """User texts shown so far, and the ground truth (tool calls, reply) of the finished turns."""
    turns = conversation["conversation"]
    assistant = [i for i, t in enumerate(turns) if t["role"] == "assistant"]
    # User turns after the last assistant turn ("Thanks!") are never shown: nothing answers them.
    shown_until = assistant[current_turn] if current_turn is not None else assistant[-1]
    users = [t["text"] for t in turns[:shown_until] if t["role"] == "user"]
    truth = []
    for i in assistant[:finished_turns]:
        for api in turns[i].get("apis", []):
            request = api["request"]
            arguments = {k: v for k, v in request["parameters"].items() if k != "session_token"}
            truth.append(("call", request["api_name"], arguments))
        truth.append(("reply", turns[i]["text"]))
    return users, truth


def observed_history(messages: list[dict]) -> tuple[list, list]:
    users = [m["content"] for m in messages if m["role"] == "user"]
    assistant = []
    for m in messages:
        if m["role"] != "assistant":
            continue
        for call in m.get("tool_calls") or []:
            assistant.append(("call", call["function"]["name"], json.loads(call["function"]["arguments"])))
        if m.get("content") is not None:
            assistant.append(("reply", m["content"]))
    return users, assistant


def check_every_step(env, task_id: str, wrong_first: bool) -> int:
    """Play a conversation (optionally with a wrong call and reply before each ground-truth
    turn is revealed) and compare the history with the conversation after every step."""
    base = env.unwrapped
    obs, info = env.reset(options={"task_id": task_id})
    conversation = base.task_data.conversations[task_id]
    steps = 0
    while True:
        turn = info["turn"]
        users, truth = expected_history(conversation, turn, turn)
        seen_users, seen_assistant = observed_history(info["messages"])
        assert seen_users == users, f"{task_id} turn {turn}: user messages differ"
        assert seen_assistant[:len(truth)] == truth, f"{task_id} turn {turn}: ground truth missing"
        if wrong_first and base._calls_this_turn == 0:
            action = {"name": "GetReminders", "arguments": {}}
        else:
            action = base.oracle_action()
        obs, _, terminated, _, info = env.step(action)
        steps += 1
        if terminated:
            users, truth = expected_history(conversation, info["num_turns"], None)
            seen_users, seen_assistant = observed_history(info["messages"])
            assert seen_users == users
            assert seen_assistant == truth  # the agent's own calls are replaced by the ground truth
            return steps


def test_history_keeps_every_user_message_builtin():
    env = gym.make("ToolTalk-v0")
    for task_id in env.unwrapped.task_ids()[::5]:
        check_every_step(env, task_id, wrong_first=False)
        check_every_step(env, task_id, wrong_first=True)


@pytest.mark.official
def test_history_keeps_every_user_message_official(official_data):
    env = gym.make("ToolTalk-v0", tasks="official", data_dir=str(official_data))
    steps = sum(check_every_step(env, t, wrong_first=w) for t in env.unwrapped.task_ids() for w in (False, True))
    assert steps > 78 * 2


def test_second_turn_still_shows_the_first_request():
    env = gym.make("ToolTalk-v0")
    base = env.unwrapped
    task_id = next(t for t in base.task_ids() if len([x for x in base.task_data.conversations[t]["conversation"]
                                                       if x["role"] == "assistant"]) >= 2)
    obs, info = env.reset(options={"task_id": task_id})
    first_request = obs
    while info["turn"] == 0:
        obs, _, terminated, _, info = env.step(base.oracle_action())
    roles = [m["role"] for m in info["messages"]]
    assert roles[1] == "user" and info["messages"][1]["content"] == first_request.split("\n")[0]
    assert roles.count("user") >= 2
