"""The scripted user's speech (first person, answers, confirmations) and the replay user."""

from __future__ import annotations

import json
import re
import time

import gymnasium as gym
import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import play_oracle
from toolgym.envs.users import STOP, TRANSFER, ReplayUser, ScriptedUser, first_person, make_user, proposal_wanted

AIRLINE_SCENARIO = {"instructions": {
    "reason_for_call": "You want to cancel your reservation ABC123 because your plans changed.",
    "known_info": "Your user id is mia_li_3668. Your reservation id is ABC123. You are Mia Li.",
    "unknown_info": "You do not remember your email address.",
    "task_instructions": "If the agent asks you for a reason, say that your plans changed."}}


def test_first_person_rewrites_the_scenarios_second_person():
    assert first_person("You want to add two checked bags, paid with your card.") == \
        "I want to add two checked bags, paid with my card."
    assert first_person("Your user id is mia_li_3668. You're reactive; if you are asked, tell the agent you want "
                        "it.") == "My user id is mia_li_3668. I'm reactive; if I am asked, tell the agent I want it."
    assert first_person("The agent will ask you for yours. Thank you.") == "The agent will ask me for mine. Thank you."


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_the_scripted_user_speaks_as_the_customer_on_every_builtin_task(domain):
    env = gym.make("Tau2-v0", domain=domain).unwrapped
    for task_id in env.task_ids():
        total, info, _ = play_oracle(env, task_id)
        said = [m["content"] for m in info["messages"] if m["role"] == "user" and m.get("content")]
        criteria = env.task_data.tasks[task_id].get("evaluation_criteria") or {}
        gold = [action["name"] for action in criteria.get("actions") or ()]
        # a case for a human agent (telecom's locked SIM, an ended contract) ends in a transfer
        assert total == 1.0 and said[-1] == (TRANSFER if "transfer_to_human_agents" in gold else STOP), task_id
        own = [text for text in said if not text.startswith("I did that. The phone says:")]  # the phone's words
        assert not [text for text in own if re.search(r"\b(you|your|yours)\b", text, re.I)], task_id


def test_the_scripted_user_reveals_what_it_is_asked_for():
    user = ScriptedUser(goal_reached=lambda trajectory: False)
    assert user.reset(AIRLINE_SCENARIO) == "I want to cancel my reservation ABC123 because my plans changed."
    assert user.respond("Could you tell me your user ID?", []) == "My user id is mia_li_3668."
    assert user.respond("What is the reservation id?", []) == "My reservation id is ABC123."
    assert user.respond("What is your email address?", []) == "I don't know that."
    assert user.respond("How many passengers are there?", []) == \
        "My user id is mia_li_3668. My reservation id is ABC123. I am Mia Li."  # nothing matches: all it knows


def test_the_scripted_user_confirms_only_what_its_scenario_wants():
    user = ScriptedUser(goal_reached=lambda trajectory: False)
    user.reset(AIRLINE_SCENARIO)
    assert user.respond("I will cancel reservation ABC123 and refund $250 to your card. Shall I proceed?", []) \
        == "Yes, please."
    assert user.respond("Please confirm: cancel reservation XYZ789?", []).startswith("No, that is not what I want.")
    assert user.respond("Would you like me to upgrade reservation ABC123 to business?", []).startswith("No")
    assert user.respond("Can you confirm your user id?", []) == "My user id is mia_li_3668."
    assert user.respond("I have looked it up.", []) == \
        "Okay. I want to cancel my reservation ABC123 because my plans changed."
    assert proposal_wanted("Shall I book HAT136 on 2024-05-20 for $120?", "You want to book a flight to Seattle.")
    assert not proposal_wanted("Shall I change task_2?", "You want task_1 changed.")
    assert proposal_wanted("Shall I update reservation ABC123 to 3 bags, 0 paid, on 2024-05-02?",
                           "You want to add 1 bag to reservation ABC123 (flight on 2024-05-01).")  # counts, dates
    assert proposal_wanted("Shall I update the address of order #W123?", "You want to update your order #W123.")
    assert not proposal_wanted("Shall I cancel reservation ABC123?", "You want to book a flight; ABC123 is yours.")


def test_the_scripted_users_text_handling_is_linear_in_the_message():
    user = ScriptedUser(goal_reached=lambda trajectory: False)
    user.reset(AIRLINE_SCENARIO)
    hostile = ["a" * 200_000 + "?", "you " * 50_000 + "?", "1" * 200_000 + " confirm", "#" * 200_000 + "?"]
    start = time.process_time()
    for message in hostile:
        user.respond(message, [])
        first_person(message)
    assert time.process_time() - start < 20  # a quadratic pass over 200k characters would take hours


def test_the_replay_user_says_the_recorded_turns_in_order():
    user = make_user({"replay": ["Hi, I finished task_1.", {"name": "check_notifications"}, "All done. ###STOP###"]})
    assert isinstance(user, ReplayUser) and user.reset({}) == "Hi, I finished task_1."
    assert user.respond("Anything else?", []) == {"name": "check_notifications", "arguments": {}}
    assert user.respond('[{"id": "notif_1"}]', []) == "All done. ###STOP###"
    assert user.call_results == ['[{"id": "notif_1"}]'] and user.respond("Bye", []) == STOP
    with pytest.raises(ValueError, match="a replayed user turn is a text or a tool call"):
        make_user("replay", turns=["Hi", 3])


def test_a_conversational_env_plays_with_the_replay_user():
    turns = ["task_1 is finished; please mark it completed.", "Thanks! ###STOP###"]
    env = gym.make("Tau2-v0", domain="mock", user="replay", user_options={"turns": turns}).unwrapped
    observation, _ = env.reset(options={"task_id": "mock_complete"})
    assert observation == turns[0]
    env.step({"name": "update_task_status", "arguments": {"task_id": "task_1", "status": "completed"}})
    _, reward, terminated, _, info = env.step("Done: task_1 is completed.")
    assert terminated and reward == 1.0 and info["metrics"]["termination"] == "user_stop"
    assert [m["content"] for m in info["messages"] if m["role"] == "user"] == turns


class ConfirmingOracle:
    """The oracle, but following the policies' rule: before each write it describes the call and
    asks "Shall I proceed?", and acts once the user says yes; ``propose`` may change what it
    describes (the call it makes stays the oracle's)."""

    WRITES = ("cancel", "update", "book", "return", "exchange", "modify")

    def __init__(self, env, propose=lambda call: call):
        self.env, self.propose = env.unwrapped, propose

    def reset(self, observation, info):
        self.asked = None
        self.replies = []
        self.told = False

    def act(self, observation, info):
        if self.asked is not None:
            self.replies.append(observation)
            call, self.asked = self.asked, None
            return call
        action = self.env.oracle_action()
        infos = self.env.task["evaluation_criteria"].get("communicate_info")
        if action == STOP and infos and not self.told:  # the oracle took the question for its message of facts
            self.told = True
            return "Done. " + "; ".join(infos)
        if isinstance(action, dict) and action["name"].startswith(self.WRITES):
            self.asked = action
            shown = self.propose(action)
            return f"I will call {shown['name']} with {json.dumps(shown['arguments'])}. Shall I proceed?"
        return action


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_the_scripted_user_confirms_the_writes_its_task_wants(domain):
    env = gym.make("Tau2-v0", domain=domain).unwrapped
    agent = ConfirmingOracle(env)
    for task_id in env.task_ids():
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(observation, info)
        for _ in range(30):
            observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
            if terminated or truncated:
                break
        asked = any(a["name"].startswith(ConfirmingOracle.WRITES) for a in env.task["evaluation_criteria"]["actions"])
        # a task the policy refuses, or a question, has no write to confirm
        assert reward == 1.0 and bool(agent.replies) == asked and set(agent.replies) <= {"Yes, please."}, task_id


def test_the_scripted_user_refuses_a_write_on_another_record():
    env = gym.make("Tau2-v0", domain="retail").unwrapped
    # a task whose scenario names its order (the user of a task that does not cannot tell one order id from another)
    task_id = next(t for t in env.task_ids() if env.task_data.tasks[t]["description"]["template"] == "cancel")
    agent = ConfirmingOracle(env, propose=lambda call: {**call, "arguments": {**call["arguments"],
                                                                               "order_id": "#W0000000"}})
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(observation, info)
    while not agent.replies:
        observation, *_ = env.step(agent.act(observation, info))
    assert agent.replies[0].startswith("No, that is not what I want. I want to cancel my pending order")
