"""τ²-bench's wire protocol (issue 47): the requests toolgym's ``tau2`` profile sends to a
recording OpenAI-compatible server are the ones τ²'s harness sends.

``tests/data/tau2_protocol.json`` holds what τ²-bench's own code (commit a2c0247, the release of
the official data) computes: its system prompts' digests, per-trial seeds and the NL judge's
request, made in a throwaway Python 3.12 venv with τ²-bench installed by
``benchmarks/tau2_protocol_fixture.py``; its tool schemas are ``tests/data/tau2/openai_schemas.json``
(``benchmarks/tau2_openai_schemas.py``). ``benchmarks/compare_wire.py`` runs τ²'s own harness
and toolgym behind one recording server."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("openai")

from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.envs.tau2 import protocol  # noqa: E402
from toolgym.envs.tau2.env import Tau2Env  # noqa: E402
from toolgym.llm import ChatRequest, OpenAICompatibleBackend, SamplingParams  # noqa: E402

FIXTURE = json.loads((Path(__file__).parent / "data" / "tau2_protocol.json").read_text(encoding="utf-8"))


@contextlib.contextmanager
def chat_server(answer):
    """A chat-completions server on 127.0.0.1 that answers each POST with ``answer(body)`` (an
    assistant message dict); yields its base URL and the request bodies it got."""
    bodies = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            message = answer(body)
            bodies.append(body)
            data = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def recording_server(answers):
    """:func:`chat_server` answering with ``answers`` in turn, then ``###STOP###``."""
    pending = list(answers)
    return chat_server(lambda body: pending.pop(0) if pending else {"role": "assistant", "content": "###STOP###"})


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def wire_call(call_id: str, name: str, arguments: dict) -> dict:
    """A tool call as τ²'s ``to_litellm_messages`` sends it back (a top-level ``name`` too)."""
    return {"id": call_id, "name": name, "function": {"name": name, "arguments": json.dumps(arguments)},
            "type": "function"}


TAU2_SCHEMAS = json.loads((Path(__file__).parent / "data" / "tau2" / "openai_schemas.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "mock"])
def test_tools_are_tau2s_own_schemas_in_tau2s_order(domain):
    """Every tool as τ²'s ``Tool.openai_schema`` (tests/data/tau2/openai_schemas.json, from τ²'s
    code): descriptions with their newlines, titles, defaults, ``anyOf`` with null,
    ``$defs``/``$ref``, no empty ``required``; in the toolkit's order."""
    for side, key in (("agent", "assistant"), ("user", "user")):
        ours, theirs = protocol.tools(domain, side), TAU2_SCHEMAS[domain].get(key)
        assert (ours is None) == (theirs is None)
        assert [t["function"]["name"] for t in ours or []] == [t["function"]["name"] for t in theirs or []]
        differing = [a["function"]["name"] for a, b in zip(ours or [], theirs or []) if a != b]
        assert differing == [], (domain, side)
    listed = {t["function"]["name"]: t for t in protocol.tools("retail")}["list_all_product_types"]
    assert listed["function"]["parameters"] == {"properties": {}, "title": "parameters", "type": "object"}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "mock"])
def test_the_agent_system_prompt_is_tau2s(official_data, domain):
    env = Tau2Env(domain=domain, tasks="official", data_dir=str(official_data))
    prompt = protocol.agent_system_prompt(env.task_data.policy)
    assert hashlib.sha256(prompt.encode()).hexdigest() == FIXTURE["prompts"][f"agent:{domain}"]["sha256"]


def test_trial_seeds_are_tau2s():
    assert protocol.trial_seeds(4) == FIXTURE["trial_seeds"] == [protocol.trial_seed(t) for t in range(4)]


def test_a_backend_sends_only_what_it_is_asked_for():
    """No top_p, max_tokens, seed, logprobs or token ids unless asked; logprobs opt-in."""
    request = ChatRequest(messages=[{"role": "user", "content": "Hi"}])
    with recording_server([{"role": "assistant", "content": "a"}] * 3) as (url, bodies):
        OpenAICompatibleBackend(url, model="m").generate([request], SamplingParams())
        OpenAICompatibleBackend(url, model="m", logprobs=True).generate([request], SamplingParams())
        OpenAICompatibleBackend(url, model="m").generate(
            [ChatRequest(messages=request.messages, tools=protocol.tools("mock"), tool_choice="auto",
                         body={"seed": 7, "store": False})], SamplingParams(temperature=None))
    assert bodies[0] == {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "temperature": 0.0}
    assert bodies[1] == {**bodies[0], "logprobs": True, "return_token_ids": True}
    assert bodies[2] == {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "tools": protocol.tools("mock"),
                         "tool_choice": "auto", "seed": 7, "store": False}


def test_the_agent_sends_tau2s_requests_over_a_multi_turn_episode():
    """System prompt, message layout with the server's call ids, tools, tool_choice and the
    trial's seed, over a turn with one call, a turn with two and a final message."""
    env = Tau2Env(domain="airline")
    task_id = env.task_ids()[0]
    answers = [{"role": "assistant", "content": None, "tool_calls": [call("srv_1", "list_all_airports", {})]},
               {"role": "assistant", "content": "Let me check.",
                "tool_calls": [call("srv_2", "calculate", {"expression": "1 + 1"}),
                               call("srv_3", "get_user_details", {"user_id": "nobody"})]},
               {"role": "assistant", "content": "Goodbye. ###STOP###"}]
    with recording_server(answers) as (url, bodies):
        agent = LLMAgent(OpenAICompatibleBackend(url, model="m"), env=env, prompt_format="tau2")
        observation, info = env.reset(seed=0, options={"task_id": task_id, "trial": 1})
        state = agent.start(observation, info, trial=1)
        observations = []
        for _ in range(3):
            step = agent.step_batch([state], [observation], [info])[0]
            observation, _, terminated, truncated, info = env.step(step.action)
            observations.append(observation)
            if terminated or truncated:
                break
    assert len(bodies) == 3 and info["metrics"]["termination"] == "agent_stop"
    policy = env.task_data.policy
    system = {"role": "system", "content": f"<instructions>\n{protocol.AGENT_INSTRUCTION}\n</instructions>\n"
                                           f"<policy>\n{policy}\n</policy>"}
    assert system["content"].startswith("<instructions>\nYou are a customer service agent that helps the user")
    opening = [system, {"role": "assistant", "content": "Hi! How can I help you today?"},
               {"role": "user", "content": env._messages[2]["content"]}]
    for body in bodies:
        assert set(body) == {"model", "messages", "tools", "tool_choice", "temperature", "seed"}
        assert body["tool_choice"] == "auto" and body["temperature"] == 0.0
        assert body["seed"] == FIXTURE["trial_seeds"][1]
        assert body["tools"] == protocol.tools("airline")
    assert bodies[0]["messages"] == opening
    first_turn = [{"role": "assistant", "tool_calls": [wire_call("srv_1", "list_all_airports", {})]},
                  {"role": "tool", "content": observations[0], "tool_call_id": "srv_1"}]
    assert bodies[1]["messages"] == opening + first_turn
    results = observations[1].split("\n")
    assert results[0] == "2.0" and results[1] == "Error: User nobody not found"
    assert bodies[2]["messages"] == opening + first_turn + [
        {"role": "assistant", "content": "Let me check.",
         "tool_calls": [wire_call("srv_2", "calculate", {"expression": "1 + 1"}),
                        wire_call("srv_3", "get_user_details", {"user_id": "nobody"})]},
        {"role": "tool", "content": "2.0", "tool_call_id": "srv_2"},
        {"role": "tool", "content": "Error: User nobody not found", "tool_call_id": "srv_3"}]


def test_the_profile_is_the_default_on_official_tasks_only(official_data):
    from toolgym.eval.cli import build_parser, _llm_agent

    with recording_server([]) as (url, bodies):
        for tasks, expected in (("official", "tau2"), ("built-in", "chat")):
            args = build_parser().parse_args(["eval", "Tau2-v0", "--agent", f"openai:{url}#m", "--tasks", tasks,
                                              "--data-dir", str(official_data), "--no-progress"])
            agent = _llm_agent(args)
            assert agent.format.name == expected
            assert agent.sampling.max_new_tokens is None and agent.sampling.seed is None and \
                agent.sampling.top_p is None  # nothing of toolgym's own goes to the server
    assert bodies == []  # sizing nothing costs no request


def test_the_user_simulator_sends_tau2s_requests_with_native_tools(official_data):
    """Telecom: τ²'s guidelines and scenario as the system prompt (its sha256 as τ²'s code
    computes it), roles flipped, the user's phone tools native with the server's call ids."""
    key = next(k for k in FIXTURE["prompts"] if k.startswith("user:telecom:"))
    task_id = key.split(":", 2)[2]
    answers = [{"role": "assistant", "content": None, "tool_calls": [call("u_1", "check_status_bar", {})]},
               {"role": "assistant", "content": "My phone shows no signal."},
               {"role": "assistant", "content": "Done. ###STOP###"}]
    with recording_server(answers) as (url, bodies):
        env = Tau2Env(domain="telecom", tasks="official", split="full", data_dir=str(official_data),
                      user=f"llm:openai:{url}#u")
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        _, _, terminated, _, _ = env.step("Please turn airplane mode off.")
    assert observation == "My phone shows no signal." and terminated
    system = bodies[0]["messages"][0]
    assert hashlib.sha256(system["content"].encode()).hexdigest() == FIXTURE["prompts"][key]["sha256"]
    for body in bodies:
        assert set(body) == {"model", "messages", "tools", "tool_choice", "temperature", "seed"}
        assert body["tools"] == protocol.tools("telecom", "user") and body["tool_choice"] == "auto"
        assert body["seed"] == FIXTURE["trial_seeds"][0] and body["temperature"] == 0.0
    greeting = {"role": "user", "content": "Hi! How can I help you today?"}
    user_call = [{"role": "assistant", "tool_calls": [wire_call("u_1", "check_status_bar", {})]},
                 {"role": "tool", "content": env._messages[3]["content"], "tool_call_id": "u_1"}]
    assert bodies[0]["messages"] == [system, greeting]
    assert bodies[1]["messages"] == [system, greeting, *user_call]
    assert bodies[2]["messages"] == [system, greeting, *user_call,
                                     {"role": "assistant", "content": "My phone shows no signal."},
                                     {"role": "user", "content": "Please turn airplane mode off."}]
    assert not any(m.get("tool_calls") for m in info["messages"] if m["role"] == "user")  # the agent sees no user call


class RecordingJudge:
    """A judge backend that records its requests and finds every assertion met."""

    def __init__(self):
        self.requests = []

    def generate(self, requests, sampling):
        from toolgym.llm import Completion

        self.requests += [(request, sampling) for request in requests]
        return [Completion(text=json.dumps({"results": [{"expectedOutcome": "", "reasoning": "",
                                                         "metExpectation": True}] * 2}))]


def test_the_judge_request_is_tau2s():
    """τ²'s evaluator with its generate() recorded (the fixture) and toolgym's judge, on the same
    episode: the same two messages, temperature 0 and nothing else."""
    expected = FIXTURE["judge"]
    request = protocol.judge_request(expected["assertions"], expected["trajectory"])
    assert request.messages == expected["messages"] and request.tools is None
    assert request.tool_choice is None and request.body is None
    judge = RecordingJudge()
    from toolgym.envs.tau2 import grading

    assert grading.judge_assertions(judge, expected["assertions"], expected["trajectory"]) == [True, True]
    (sent, sampling), = judge.requests
    with recording_server([{"role": "assistant", "content": "{}"}]) as (url, bodies):
        OpenAICompatibleBackend(url, model="m").generate([sent], sampling)
    assert bodies == [{"model": "m", "messages": expected["messages"], **expected["kwargs"]}]


@pytest.mark.parametrize("basis, asked", [(["DB"], 0), (["DB", "NL_ASSERTION"], 1)])
def test_the_judge_is_asked_only_where_the_reward_basis_has_nl_assertions(basis, asked):
    from toolgym.envs.tau2 import grading

    task = {"evaluation_criteria": {"actions": [], "reward_basis": basis, "nl_assertions": ["The agent is polite."]}}
    judge = RecordingJudge()
    metrics = grading.grade(task, [{"role": "assistant", "content": "Hi"}], True, True, lambda a: True, judge)
    assert len(judge.requests) == asked and metrics["reward"] == 1.0
    assert metrics["nl_assertion"] == (1.0 if asked else None)


def test_max_tokens_sizing_plays_the_scripted_user_without_a_judge():
    """``eval`` sizes an hf: model's max_new_tokens on this env: no LLM user, no judge, no request."""
    from toolgym.envs.users import ScriptedUser
    from toolgym.eval.cli import longest_oracle_action, scripted_env

    env = scripted_env("Tau2-v0", {"domain": "mock", "user": "llm:openai:http://127.0.0.1:9/v1#u",
                                   "judge": "openai:http://127.0.0.1:9/v1#j"})
    assert isinstance(env.unwrapped.user, ScriptedUser) and env.unwrapped.judge is None
    assert longest_oracle_action(env, tasks=3) > 0
    assert scripted_env("CatAPI-v0", {}).unwrapped.env_id == "CatAPI-v0"  # an env without a user
