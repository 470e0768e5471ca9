"""τ-bench v1's wire protocol (issue 47): the requests of toolgym's ``tau-bench`` profile to a
recording OpenAI-compatible server are the ones v1's ``run.py`` sends (``--agent-strategy
tool-calling --user-strategy llm``). The expected bodies below are the ones v1 (commit of the
official data, litellm 1.82.6) sent to such a server for task 0 of retail's test split."""

from __future__ import annotations

import contextlib
import json

import pytest

pytest.importorskip("openai")

from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.envs.taubench import protocol  # noqa: E402
from toolgym.envs.taubench.env import TauBenchEnv  # noqa: E402
from toolgym.llm import OpenAICompatibleBackend  # noqa: E402
from tests.test_tau2_protocol import chat_server  # noqa: E402

EMAIL = "yusuf.rossi7301@example.com"
OPENING = f"Hi, I need help with my order. My email is {EMAIL}"
LOOKUP = {"id": "srv_1", "type": "function",
          "function": {"name": "find_user_id_by_email", "arguments": json.dumps({"email": EMAIL})}}


@contextlib.contextmanager
def recording_server():
    """Answers the user simulator (its system prompt is v1's) with an opening, then a stop; the
    agent with a lookup call, then a message. Yields the base URL and the (who, body) pairs."""
    received = []

    def answer(body):
        user = body["messages"][0]["content"].startswith("You are a user interacting with an agent.")
        agent_turns = sum(who == "agent" for who, _ in received)
        received.append(("user" if user else "agent", body))
        if user:
            return {"role": "assistant", "content": OPENING if len(body["messages"]) == 2 else "###STOP###"}
        if agent_turns == 0:
            return {"role": "assistant", "content": None, "tool_calls": [LOOKUP]}
        return {"role": "assistant", "content": "I found your account."}

    with chat_server(answer) as (url, _):
        yield url, received


def test_the_user_prompt_is_v1s():
    assert protocol.user_system_prompt("Be Ann.") == (
        "You are a user interacting with an agent.\n\nInstruction: Be Ann.\n\nRules:\n"
        "- Just generate one line at a time to simulate the user's message.\n"
        "- Do not give away all the instruction at once. Only provide the information that is necessary for the "
        "current step.\n"
        "- Do not hallucinate information that is not provided in the instruction. For example, if the agent asks "
        "for the order id but it is not mentioned in the instruction, do not make up an order id, just say you do "
        "not remember or have it.\n"
        "- If the instruction goal is satisified, generate '###STOP###' as a standalone message without anything "
        "else to end the conversation.\n"
        "- Do not repeat the exact instruction in the conversation. Instead, use your own words to convey the same "
        "information.\n"
        "- Try to make the conversation as natural as possible, and stick to the personalities in the instruction.")


def test_agent_and_user_send_v1s_requests(official_data):
    with recording_server() as (url, received):  # v1's user is the default LLM user on official tasks
        env = TauBenchEnv(domain="retail", tasks="official", data_dir=str(official_data), user=f"llm:openai:{url}#m")
        agent = LLMAgent(OpenAICompatibleBackend(url, model="m"), env=env, prompt_format="tau-bench")
        observation, info = env.reset(seed=0, options={"task_id": "test_0"})
        state = agent.start(observation, info)
        for _ in range(2):
            step = agent.step_batch([state], [observation], [info])[0]
            observation, _, terminated, _, info = env.step(step.action)
    assert terminated and [who for who, _ in received] == ["user", "user", "user", "agent", "agent", "user"]
    user_system = protocol.user_system_prompt(env.task["user_scenario"]["instructions"])
    wiki = env.task_data.wiki
    built_1, built_2, user_1, agent_1, agent_2, user_2 = (body for _, body in received)
    greeting = [{"role": "system", "content": user_system},
                {"role": "user", "content": "Hi! How can I help you today?"}]
    # v1's user asks for an opening with no instruction when run.py builds its env, and again when it
    # builds the episode's own env; both answers are discarded
    assert built_1 == built_2 == {"model": "m", "messages": [
        {"role": "system", "content": protocol.user_system_prompt(None)},
        {"role": "user", "content": "Hi! How can I help you today?"}]}
    assert "Instruction:" not in built_1["messages"][0]["content"]
    assert user_1 == {"model": "m", "messages": greeting}  # no temperature: the server's default
    opening = [{"role": "system", "content": wiki}, {"role": "user", "content": OPENING}]
    assert agent_1 == {"model": "m", "messages": opening, "tools": env.tools, "temperature": 0.0}
    assert agent_2 == {"model": "m", "tools": env.tools, "temperature": 0.0, "messages": opening + [
        {"role": "assistant", "tool_calls": [{"function": {"arguments": json.dumps({"email": EMAIL}),
                                                           "name": "find_user_id_by_email"},
                                              "id": "srv_1", "type": "function"}],
         "provider_specific_fields": {"refusal": None}},
        {"role": "tool", "tool_call_id": "srv_1", "name": "find_user_id_by_email", "content": "yusuf_rossi_9620"}]}
    assert user_2 == {"model": "m", "messages": greeting + [
        {"content": OPENING, "role": "assistant", "provider_specific_fields": {"refusal": None}},
        {"role": "user", "content": "I found your account."}]}
    assert [t["function"]["name"] for t in env.tools][-2:] == ["think", "transfer_to_human_agents"]  # v1's order


def test_each_later_episode_asks_for_one_discarded_opening(official_data):
    with recording_server() as (url, received):
        env = TauBenchEnv(domain="retail", tasks="official", data_dir=str(official_data), user=f"llm:openai:{url}#m")
        first, _ = env.reset(seed=0, options={"task_id": "test_0"})
        second, _ = env.reset(seed=0, options={"task_id": "test_1"})
    assert first == second == OPENING  # the discarded answers are not the episode's
    systems = [body["messages"][0]["content"] for _, body in received]
    discarded = protocol.user_system_prompt(None)
    instruction = [s for s in systems if s != discarded]
    assert [s == discarded for s in systems] == [True, True, False, True, False] and len(set(instruction)) == 2


def test_the_agent_sends_v1s_own_tool_schemas(official_data):
    """v1's get_info() schemas (``assets/taubench/v1_tools.json``), where toolgym's airline
    toolkit, built on τ²'s item models, words three tools otherwise."""
    with recording_server() as (url, received):
        env = TauBenchEnv(domain="airline", tasks="official", data_dir=str(official_data))
        agent = LLMAgent(OpenAICompatibleBackend(url, model="m"), env=env, prompt_format="tau-bench")
        observation, info = env.reset(seed=0, options={"task_id": "test_0"})
        agent.step_batch([agent.start(observation, info)], [observation], [info])
    (_, body), = received
    assert body["tools"] == protocol.tools("airline")
    assert [t["function"]["name"] for t in body["tools"]] == [t["function"]["name"] for t in env.tools]
    book = body["tools"][0]["function"]["parameters"]["properties"]
    assert book["cabin"]["enum"] == ["basic_economy", "economy", "business"]
    assert book["passengers"]["items"]["properties"]["first_name"]["description"] == \
        "The first name of the passenger, such as 'Noah'."
    assert list(book["flights"]) == ["type", "description", "items"]  # v1's key order
    differing = [t["function"]["name"] for t, ours in zip(protocol.tools("airline"), env.tools) if t != ours]
    assert differing == ["book_reservation", "update_reservation_flights", "update_reservation_passengers"]
    assert protocol.tools("retail") == TauBenchEnv(domain="retail", tasks="official",
                                                   data_dir=str(official_data)).tools
