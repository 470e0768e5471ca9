"""OpenAICompatibleBackend against a real server process on 127.0.0.1 (the project's own server
over the tiny model; ``transformers serve`` needs FastAPI, which is not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.llm import (BackendError, ChatRequest, OpenAICompatibleBackend, SamplingParams,  # noqa: E402
                         TransformersBackend)
from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.eval.batch import BackendUnavailable, evaluate_batched  # noqa: E402
from toolgym.eval.cli import main  # noqa: E402

# The served model's name picks a fault: "flaky" answers 500 to the first attempt of each prompt,
# "slow" waits 3 s, "no-tools" answers 400 to requests with tools, "keyed" wants the test key.
SERVER = r'''
import json, sys, threading, time
from toolgym.llm.backends import TransformersBackend
from toolgym.agents.llm.server import ApiError, ChatHandler, make_server

seen, lock, in_flight = set(), threading.Lock(), [0, 0]

class FaultyHandler(ChatHandler):
    def do_GET(self):
        if self.path == "/stats":
            self._reply(200, {"batch_sizes": self.server.generator.batch_sizes, "max_in_flight": in_flight[1]})
        else:
            super().do_GET()

    def serves(self, model):
        return True

    def complete(self, request):
        model = request.model
        key = json.dumps([model, [m.model_dump() for m in request.messages]])
        with lock:
            first = key not in seen
            seen.add(key)
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        try:
            if model == "flaky" and first:
                raise ApiError(500, "injected failure")
            if model == "slow":
                time.sleep(3)
            if model == "no-tools" and request.tools:
                raise ApiError(400, "tools are not supported")
            if model == "keyed" and self.headers.get("Authorization") != "Bearer sk-test-123":
                raise ApiError(401, "bad key")
            return super().complete(request)
        finally:
            with lock:
                in_flight[0] -= 1

server = make_server(TransformersBackend(sys.argv[1]), port=0, max_batch=8, model_name="tiny", handler=FaultyHandler)
print(server.server_address[1], flush=True)
server.serve_forever()
'''


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=3)


@pytest.fixture(scope="module")
def server_url(tiny_model, tmp_path_factory):
    script = tmp_path_factory.mktemp("server") / "server.py"
    script.write_text(SERVER)
    proc = subprocess.Popen([sys.executable, str(script), str(tiny_model)], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _stats(url):
    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=10) as resp:
        return json.loads(resp.read())


REQUESTS = [ChatRequest(messages=[{"role": "system", "content": "You are a helpful assistant."},
                                  {"role": "user", "content": text}])
            for text in ["Set an alarm for 8:30.", "Send an email to Bob.", "What is on my calendar?",
                         "Log me out.", "Delete my 7am alarm please", "Hi", "Find the weather in London today",
                         "Book a table"]]


def test_concurrent_requests_match_local_generation(server_url, tiny_model):
    backend = OpenAICompatibleBackend(server_url, max_concurrency=8, logprobs=True)  # asked: not sent by default
    assert backend.model == "tiny"  # from /models
    sampling = SamplingParams(max_new_tokens=10)
    remote = backend.generate(REQUESTS, sampling)
    local = TransformersBackend(str(tiny_model)).generate(REQUESTS, sampling)
    assert [r.error for r in remote] == [None] * len(REQUESTS)
    assert [r.text for r in remote] == [c.text for c in local]
    assert [r.completion_token_ids for r in remote] == [c.completion_token_ids for c in local]
    assert [r.prompt_token_ids for r in remote] == [c.prompt_token_ids for c in local]
    for r, c in zip(remote, local):
        assert r.logprobs == pytest.approx(c.logprobs, abs=1e-4)
    assert all(r.completion_tokens == len(r.completion_token_ids) for r in remote)
    stats = _stats(server_url)
    assert stats["max_in_flight"] > 1 and max(stats["batch_sizes"]) > 1  # requests overlapped and were batched


def test_a_500_is_retried(server_url):
    backend = OpenAICompatibleBackend(server_url, model="flaky", max_concurrency=4)
    results = backend.generate(REQUESTS[:3], SamplingParams(max_new_tokens=4))
    assert [r.error for r in results] == [None] * 3 and all(r.completion_token_ids for r in results)
    assert backend.retries == 3


def test_a_timeout_is_retried_then_reported(server_url):
    backend = OpenAICompatibleBackend(server_url, model="slow", timeout=0.5, max_retries=1)
    [result] = backend.generate(REQUESTS[:1], SamplingParams(max_new_tokens=4))
    # each attempt gave up at its 0.5 s timeout: waiting for the 3 s answer would have returned it
    assert "timed out after 0.5s" in result.error and "after 2 attempts" in result.error
    assert backend.retries == 1


def test_unreachable_server_is_an_error_not_a_crash(capsys):
    backend = OpenAICompatibleBackend("http://127.0.0.1:9/v1", model="m", max_retries=1)
    [result] = backend.generate(REQUESTS[:1], SamplingParams(max_new_tokens=4))
    assert result.error == ("BackendError: http://127.0.0.1:9/v1: connection failed: connection refused; "
                            "is the server running? (after 2 attempts)")
    assert main(["eval", "CatAPI-v0", "--agent", "openai:http://127.0.0.1:9/v1", "--no-progress"]) == 2
    assert capsys.readouterr().err == ("toolgym: error: http://127.0.0.1:9/v1/models: connection failed: "
                                       "connection refused; is the server running?\n")


def test_tools_fall_back_to_text_when_the_server_rejects_them(server_url):
    tools = [{"type": "function", "function": {"name": "AddAlarm", "description": "Add an alarm.",
                                               "parameters": {"type": "object", "properties": {}}}}]
    backend = OpenAICompatibleBackend(server_url, model="no-tools")
    [result] = backend.generate([ChatRequest(REQUESTS[0].messages, tools=tools)], SamplingParams(max_new_tokens=4))
    assert result.error is None and backend.native_tools is False
    params = backend._params(ChatRequest(REQUESTS[0].messages, tools=tools), SamplingParams(), native=False)
    assert "tools" not in params and '"name": "AddAlarm"' in params["messages"][0]["content"]


def test_the_key_comes_from_the_environment_and_is_never_recorded(server_url, monkeypatch):
    monkeypatch.setenv("TOOLGYM_TEST_KEY", "sk-test-123")
    backend = OpenAICompatibleBackend(server_url, model="keyed", api_key_env="TOOLGYM_TEST_KEY", max_retries=0)
    [result] = backend.generate(REQUESTS[:1], SamplingParams(max_new_tokens=4))
    assert result.error is None
    assert "sk-test-123" not in json.dumps(backend.describe()) + json.dumps(result.record())
    monkeypatch.setenv("TOOLGYM_TEST_KEY", "wrong")
    [refused] = backend.generate(REQUESTS[:1], SamplingParams(max_new_tokens=4))
    assert "HTTP 401" in refused.error


def test_tooltalk_evaluation_through_the_server(server_url, tmp_path):
    env = gym.make("ToolTalk-v0")
    agent = LLMAgent(OpenAICompatibleBackend(server_url, max_concurrency=3), env=env,
                     sampling=SamplingParams(max_new_tokens=6))
    out = tmp_path / "r.jsonl"
    records, _, stats = evaluate_batched("ToolTalk-v0", agent, f"openai:{server_url}#tiny", episodes=3, out=out,
                                         progress=False, batch_size=3)
    assert len(records) == 3 and all(r["metrics"] is not None for r in records)
    for record in records:
        assert record["backend"] == "openai" and record["model"] == "tiny" and record["base_url"] == server_url
        for step in record["trajectory"]:
            assert step["llm"]["prompt_token_ids"] and 1 <= len(step["llm"]["completion_token_ids"]) <= 6
    assert os.path.getsize(out) > 0 and stats["completion_tokens"] > 0


def test_a_failed_backend_call_is_a_short_error_for_the_agent_and_the_runner():
    backend = OpenAICompatibleBackend("http://127.0.0.1:9/v1", model="m", max_retries=0)
    env = gym.make("ToolTalk-v0")
    agent = LLMAgent(backend, env=env)
    obs, info = env.reset(seed=0)
    [step] = agent.step_batch([agent.start(obs, info)], [obs], [info])
    assert step.llm["error"] == ("BackendError: http://127.0.0.1:9/v1: connection failed: connection refused; "
                                 "is the server running? (after 1 attempt)")
    agent.reset(obs, info)
    with pytest.raises(BackendError) as error:
        agent.act(obs, info)
    assert f"BackendError: {error.value}" == step.llm["error"]
    with pytest.raises(BackendUnavailable, match="connection refused; is the server running"):
        evaluate_batched("ToolTalk-v0", agent, "openai:http://127.0.0.1:9/v1#m", episodes=2, progress=False,
                         batch_size=2)
