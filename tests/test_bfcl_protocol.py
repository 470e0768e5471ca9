"""BFCL's protocol profiles send what BFCL's own OpenAI handlers send, request body for request body.

``tests/data/bfcl_protocol/requests.json`` holds the bodies that bfcl-eval 2026.3.23's
``OpenAICompletionsHandler`` and ``OpenAIResponsesHandler`` sent to a recording server for
scripted answers (see its README). Here toolgym's agent, with the same profile, plays the same
official task against a recording server giving the same answers: every request must be equal.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)
from tests.test_llm_backend_errors import http_server
from toolgym.agents.llm import LLMAgent
from toolgym.envs.bfcl import protocol
from toolgym.llm import ChatRequest, Completion, OpenAICompatibleBackend, SamplingParams

FIXTURE = Path(__file__).parent / "data" / "bfcl_protocol" / "requests.json"
MODEL = "gpt-4o-2024-11-20"


def _scenarios() -> dict:
    data = json.loads(FIXTURE.read_text())
    shared = data["shared"]

    def resolve(value):
        if isinstance(value, dict):
            return shared[value["$shared"]] if set(value) == {"$shared"} else {k: resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return value

    return resolve(data["scenarios"])


SCENARIOS = _scenarios()


@pytest.fixture
def bfcl_data(official_data):
    if not (official_data / "bfcl" / "BFCL_v4_simple_python.json").exists():
        pytest.skip("no BFCL data under the official data folder")
    return official_data


def play(case: dict, data_dir: Path, **agent_options) -> tuple[list[dict], dict]:
    """The requests toolgym's agent sends on the case's task, and the episode's last info."""
    task_id = case["task_id"]
    answers = iter(case["answers"])
    env = gym.make("BFCL-v0", tasks="official", category=task_id.rsplit("_", 1)[0], data_dir=str(data_dir))
    with http_server(lambda method, path: (200, {}, next(answers))) as (origin, received):
        backend = OpenAICompatibleBackend(f"{origin}/v1", model=MODEL, timeout=30, max_retries=0)
        agent = LLMAgent(backend, env=env, prompt_format=case["profile"], **agent_options)
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(observation, info)
        for _ in range(20):
            observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
            if terminated or truncated:
                break
    return [{"path": r["path"], "body": json.loads(r["body"])} for r in received], info


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_request_is_the_one_bfcl_sends(name, bfcl_data):
    """simple_python (the float hint), parallel (dotted names), Java and JavaScript (parameters as
    source text), multi_turn_base over four steps (tool results with the server's call ids, the
    excluded function offered, the next turn's user message), miss_func (the held-out turn's
    user message, the tools compiled again without hints), in function calling and prompting,
    through chat completions and the Responses API."""
    case = SCENARIOS[name]
    requests, _ = play(case, bfcl_data / "bfcl")
    assert [r["path"] for r in requests] == [r["path"] for r in case["requests"]]
    for step, (got, want) in enumerate(zip(requests, case["requests"])):
        assert got["body"] == want["body"], f"{name}: request {step} differs"


def test_function_calling_request_fields(bfcl_data):
    """What the chat-completions profile sends, named: the fields of BFCL's handler and no other."""
    requests, _ = play(SCENARIOS["fc_multi_turn_base_3"], bfcl_data / "bfcl")
    first, second = requests[0]["body"], requests[1]["body"]
    assert sorted(first) == ["messages", "model", "store", "temperature", "tools"]
    assert (first["temperature"], first["store"]) == (0.001, False)
    assert "mv" in [t["function"]["name"] for t in first["tools"]]  # the entry's excluded_function, offered
    assert [m.get("tool_call_id") for m in second["messages"] if m["role"] == "tool"] == ["call_0_0", "call_0_1"]
    assert second["messages"][1]["tool_calls"][0]["id"] == "call_0_0"  # the server's message, as sent


def test_responses_api_request_shape(bfcl_data):
    requests, _ = play(SCENARIOS["fc_responses_multi_turn_base_3"], bfcl_data / "bfcl")
    assert {r["path"] for r in requests} == {"/v1/responses"}
    body = requests[1]["body"]
    assert sorted(body) == ["input", "model", "store", "temperature", "tools"]
    assert body["tools"][0]["type"] == "function" and "function" not in body["tools"][0]
    assert [item.get("type") for item in body["input"]] == [None, "function_call", "function_call",
                                                            "function_call_output", "function_call_output"]
    assert body["input"][3]["call_id"] == "call_0_0"


def test_prompting_system_prompt_and_results(bfcl_data):
    requests, _ = play(SCENARIOS["prompting_multi_turn_base_3"], bfcl_data / "bfcl")
    system = requests[0]["body"]["messages"][0]["content"]
    assert system.startswith("You are an expert in composing functions.You are given a question")
    assert "func_name2(params)].  You SHOULD NOT" in system
    assert '\n    {\n        "name": "cat",' in system and "Note that the provided function is in Python 3 syntax." \
        in system
    results = requests[1]["body"]["messages"][-1]
    assert results["role"] == "user" and results["content"].startswith(
        "[{'role': 'tool', 'name': \"find(path='.', name='test')\", 'content': ")


def test_a_parallel_answer_scores_with_the_tool_call_parser():
    """``--parser tool_call`` (the chat setting of benchmarks/baselines.py): every call of a parallel
    answer reaches the env in one action, as BFCL grades it, so a correct answer scores 1."""
    env = gym.make("BFCL-v0", category="parallel")
    base = env.unwrapped

    class Scripted:
        name = "scripted"

        def describe(self):
            return {"backend": self.name}

        def generate(self, requests, sampling):
            calls = [{"id": f"call_{i}", "type": "function",
                      "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                     for i, c in enumerate(base.oracle_action())]
            return [Completion(tool_calls=calls, completion_tokens=1) for _ in requests]

    agent = LLMAgent(Scripted(), env=env, prompt_format="chat", parser="tool_call")
    rewards = []
    for task_id in base.task_ids():
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(observation, info)
        assert len(base.oracle_action()) > 1
        _, reward, terminated, _, _ = env.step(agent.act(observation, info))
        rewards.append((reward, terminated))
    assert rewards and rewards == [(1.0, True)] * len(rewards)


def test_tools_as_bfcl_derives_them():
    """convert_to_tool's rules on a made-up doc: dots, types, the float hint on top-level
    parameters only, nested properties, the Responses form; language hints for Java."""
    doc = {"name": "geo.area", "description": "Area.", "parameters": {"type": "dict", "properties": {
        "r": {"type": "float", "description": "Radius."},
        "xs": {"type": "array", "items": {"type": "float"}, "description": "Points."},
        "opts": {"type": "dict", "properties": {"k": {"type": "float", "description": "K."}}, "description": "O."}},
        "required": ["r"]}}
    chat, = protocol.openai_tools(protocol.with_language_hints([doc], "simple_python"))
    function = chat["function"]
    assert chat["type"] == "function" and function["name"] == "geo_area"
    assert function["description"] == "Area. Note that the provided function is in Python 3 syntax."
    assert function["parameters"]["type"] == "object"
    assert function["parameters"]["properties"]["r"] == {"type": "number", "format": "float",
                                                         "description": "Radius. This is a float type value."}
    assert function["parameters"]["properties"]["xs"] == {"type": "array", "items": {"type": "number"},
                                                          "description": "Points."}
    assert function["parameters"]["properties"]["opts"]["properties"]["k"]["description"] == \
        "K. This is a float type value."
    responses, = protocol.openai_tools([doc], api="responses")
    assert responses["type"] == "function" and responses["name"] == "geo_area" and "function" not in responses
    assert doc["parameters"]["type"] == "dict"  # the docs themselves are not changed
    java, = protocol.with_language_hints([{"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {
        "xs": {"type": "ArrayList", "items": {"type": "String"}, "description": "Xs."}}}}], "simple_java")
    assert java["parameters"]["properties"]["xs"] == {"type": "string", "description": (
        "Xs. This is Java ArrayList type parameter in string representation. The list elements are of type "
        "String; they are not in string representation.")}
    # the hints change copies (issue 48: only the changed dicts are copied); the docs stay as given
    js_doc = {"name": "g", "description": "G.", "parameters": {"type": "dict", "properties": {
        "o": {"type": "dict", "properties": {"k": {"type": "String"}}, "description": "O."}}, "required": ["o"]}}
    given = json.loads(json.dumps(js_doc))
    js, = protocol.with_language_hints([js_doc], "simple_javascript")
    assert js_doc == given and js["parameters"]["required"] == ["o"]
    assert js["parameters"]["properties"]["o"] == {"type": "string", "description": (
        "O. This is JavaScript dict type parameter in string representation. The dictionary entries have the "
        'following schema; they are not in string representation. {"k": {"type": "String"}}')}


def test_call_text_is_how_bfcl_names_a_call():
    assert protocol.call_text("cd", {"folder": "document"}) == "cd(folder='document')"
    assert protocol.call_text("f", {"a": [1, "x"], "b": {"k": 2}, "c": None}) == "f(a=[1, 'x'], b={'k': 2}, c=None)"
    assert protocol.call_text("g", {}) == "g()"


def test_the_backend_sends_the_request_fields_and_nothing_of_its_own():
    """``tool_choice`` (with tools: the API refuses it alone) and ``body`` as given, no None decoding
    field, no log-probabilities unless asked."""
    answer = {"choices": [{"message": {"role": "assistant", "content": "hi", "refusal": None}}]}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
    with http_server(lambda method, path: (200, {}, answer)) as (origin, received):
        backend = OpenAICompatibleBackend(f"{origin}/v1", model="m", timeout=10, max_retries=0)
        request = ChatRequest(messages=[{"role": "user", "content": "Hi"}], tools=tools, tool_choice="auto",
                              body={"store": False, "seed": 7})
        [completion] = backend.generate([request], SamplingParams(temperature=0.5, top_p=None, max_new_tokens=None))
        backend.generate([ChatRequest(messages=[{"role": "user", "content": "Hi"}], tool_choice="auto")],
                         SamplingParams(temperature=0.5, top_p=None, max_new_tokens=None))
    assert json.loads(received[0]["body"]) == {"model": "m", "messages": [{"role": "user", "content": "Hi"}],
                                               "tools": tools, "temperature": 0.5, "tool_choice": "auto",
                                               "store": False, "seed": 7}
    assert "tool_choice" not in json.loads(received[1]["body"])
    assert completion.message == {"role": "assistant", "content": "hi", "refusal": None}


def test_a_responses_answer_is_read_and_a_bad_one_is_an_error():
    good = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "a"},
                                                       {"type": "output_text", "text": "b"}]},
                       {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}],
            "usage": {"input_tokens": 3, "output_tokens": 2}, "status": "completed"}
    bad = {"output": "nothing"}
    answers = iter([good, bad])
    with http_server(lambda method, path: (200, {}, next(answers))) as (origin, received):
        backend = OpenAICompatibleBackend(f"{origin}/v1", model="m", timeout=10, max_retries=0, max_concurrency=1)
        request = ChatRequest(messages=[{"role": "user", "content": "Hi"}], api="responses")
        first, second = backend.generate([request, request], SamplingParams(temperature=None, top_p=None,
                                                                           max_new_tokens=None))
    assert received[0]["path"] == "/v1/responses"
    assert json.loads(received[0]["body"]) == {"model": "m", "input": [{"role": "user", "content": "Hi"}]}
    assert (first.text, first.prompt_tokens, first.completion_tokens) == ("ab", 3, 2)
    assert first.tool_calls == [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    assert first.message == good["output"]
    assert second.error.startswith("BackendError: ") and "not a Responses API response (output:" in second.error


def test_a_local_backends_calls_get_ids_that_pair_them_with_their_results():
    """A backend that returns no server message (hf:): the profile writes the calls back with ids
    of its own, and each result carries its call's id; the oracle's answers still pass."""
    env = gym.make("BFCL-v0", category="multi_turn_base")
    base = env.unwrapped
    requests = []

    class Oracle:
        name = "oracle-backend"

        def describe(self):
            return {"backend": self.name}

        def generate(self, batch, sampling):
            requests.extend(batch)
            calls = [{"id": "ignored", "type": "function",
                      "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                     for c in base.oracle_action()]
            return [Completion(tool_calls=calls, text="" if calls else "Done.", completion_tokens=1) for _ in batch]

    agent = LLMAgent(Oracle(), env=env, prompt_format="bfcl-fc")
    observation, info = env.reset(options={"task_id": base.task_ids()[0]})
    agent.reset(observation, info)
    for _ in range(100):
        observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
        if terminated or truncated:
            break
    assert info["metrics"]["success"] == 1
    messages = requests[-1].messages
    called = [call["id"] for m in messages if m["role"] == "assistant" for call in m.get("tool_calls") or ()]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert called and answered == called and len(set(called)) == len(called)
    assert requests[-1].api == "chat" and requests[-1].body == {"temperature": 0.001, "store": False}
    # the run's own decoding settings are not sent (a local backend decodes greedily)
    assert (agent.sampling.temperature, agent.sampling.top_p, agent.sampling.max_new_tokens, agent.sampling.seed) \
        == (None, None, None, None)


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


DIGESTS = json.loads((FIXTURE.parent / "digests.json").read_text())["categories"]


@pytest.mark.parametrize("category", sorted(DIGESTS))
def test_every_official_entry_gets_bfcls_tools_and_prompt(category, bfcl_data):
    """Over every official entry of the category: the chat tools, the Responses tools and the
    prompting first request equal what BFCL derives (digests made with BFCL's own functions)."""
    env = gym.make("BFCL-v0", tasks="official", category=category, data_dir=str(bfcl_data / "bfcl")).unwrapped
    items = {}
    for task_id in env.task_ids():
        _, info = env.reset(options={"task_id": task_id})
        chat = protocol.Conversation(True, "chat").tools(info) or []
        responses = protocol.Conversation(True, "responses").tools(info) or []
        prompting = protocol.Conversation(False, "chat").messages(info, [])
        items[task_id] = _digest([chat, responses, prompting])
    assert len(items) == DIGESTS[category]["items"]
    assert _digest(sorted(items.items())) == DIGESTS[category]["digest"]


def test_eval_with_the_tool_call_parser_scores_correct_parallel_answers(tmp_path, capsys):
    """``toolgym eval ... --prompt-format chat --parser tool_call`` against a server answering
    each parallel question with its correct calls: every episode scores 1 (was 0: first call only)."""
    from toolgym.eval.cli import main

    base = gym.make("BFCL-v0", category="parallel").unwrapped
    answers = {}
    for task_id in base.task_ids():
        observation, _ = base.reset(options={"task_id": task_id})
        calls = base.oracle_action()
        assert len(calls) > 1
        answers[observation] = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": c["name"], "arguments":
                                                                 json.dumps(c["arguments"])}}
            for i, c in enumerate(calls)]}, "finish_reason": "tool_calls"}]}
    seen: list = []

    def respond(method, path):
        question = json.loads(seen[-1]["body"])["messages"][-1]["content"]
        return 200, {}, answers[question]

    out = tmp_path / "r.jsonl"
    with http_server(respond) as (origin, received):
        seen = received
        code = main(["eval", "BFCL-v0", "--env-kwarg", "category=parallel", "--agent", f"openai:{origin}/v1#m",
                     "--prompt-format", "chat", "--parser", "tool_call", "--max-concurrency", "1",
                     "--no-progress", "--out", str(out)])
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == len(answers) and [r["return"] for r in records] == [1.0] * len(records)


def test_a_function_calling_text_answer_is_never_read_as_calls():
    """BFCL's FC decoder reads native calls only: text that looks like a call is an answer."""
    from toolgym.agents.llm.parsers import get_parser

    env = gym.make("BFCL-v0", category=["parallel", "irrelevance"])
    base = env.unwrapped
    parse = get_parser("bfcl-fc")
    parallel = next(t for t in base.task_ids() if base.task_split(t) == "parallel")
    env.reset(options={"task_id": parallel})
    oracle = base.oracle_action()
    names = {d["name"].replace(".", "_"): d["name"] for d in base.task.functions}
    text = "[" + ", ".join(f"{names[c['name']]}(" + ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items())
                           + ")" for c in oracle) + "]"
    [action] = parse(text, (), ())
    assert action == {"role": "assistant", "content": text}
    *_, info = env.step(action)
    assert info["metrics"]["success"] == 0 and info["metrics"]["error_type"] == "ast_decoder:decoder_failed"
    env.reset(options={"task_id": parallel})
    [action] = parse("", [{"id": "c", "type": "function", "function": {"name": c["name"], "arguments":
                                                                      json.dumps(c["arguments"])}} for c in oracle], ())
    assert env.step(action)[1] == 1.0  # the same calls, native: one action, passed
    irrelevance = next(t for t in base.task_ids() if base.task_split(t) == "irrelevance")
    env.reset(options={"task_id": irrelevance})
    *_, info = env.step({"role": "assistant", "content": "None of the functions can do that."})
    assert info["metrics"]["success"] == 1 and info["metrics"]["invalid_actions"] == 0


def test_eval_with_a_responses_profile_sends_bfcls_fields_only(tmp_path):
    """``toolgym eval ... --prompt-format bfcl-fc-responses``: requests go to /responses with BFCL's
    fields (no max_tokens sized from the oracle, no top_p, seed or log-probabilities), and the
    results file names the profile."""
    from toolgym.eval.cli import main

    answer = {"output": [{"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": "I cannot help.", "annotations": []}]}],
              "usage": {"input_tokens": 5, "output_tokens": 3}, "status": "completed"}
    out = tmp_path / "r.jsonl"
    with http_server(lambda method, path: (200, {}, answer)) as (origin, received):
        code = main(["eval", "BFCL-v0", "--env-kwarg", "category=irrelevance", "--agent", f"openai:{origin}/v1#m",
                     "--prompt-format", "bfcl-fc-responses", "--episodes", "2", "--no-progress", "--out", str(out)])
    assert code == 0
    bodies = [json.loads(r["body"]) for r in received]
    assert {r["path"] for r in received} == {"/v1/responses"} and len(bodies) == 2
    assert all(sorted(b) == ["input", "model", "store", "temperature", "tools"] for b in bodies)
    assert all(b["temperature"] == 0.001 and b["store"] is False for b in bodies)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["return"] for r in records] == [1.0, 1.0]  # irrelevance: a text answer is no call
    assert "bfcl-fc-responses" in json.dumps(records[0])


def test_a_responses_profile_needs_a_backend_that_speaks_it():
    class Local:
        name = "hf"

        def describe(self):
            return {"backend": self.name}

    env = gym.make("BFCL-v0")
    with pytest.raises(ValueError, match="'bfcl-fc-responses' sends 'responses' API requests, which the hf backend "
                                         "does not speak"):
        LLMAgent(Local(), env=env, prompt_format="bfcl-fc-responses")
    assert LLMAgent(Local(), env=env, prompt_format="bfcl-fc").format.name == "bfcl-fc"
