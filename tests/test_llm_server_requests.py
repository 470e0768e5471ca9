"""The project's OpenAI-compatible server under a slow model (issue 47): it answers concurrent
requests in batches, logs each one, drops a request whose client hung up before it was
generated (a retried request does not pile up behind it), and takes --threads.

A scripted backend stands in for the model: it holds each batch until the test releases it.
Every wait is bounded.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from toolgym.agents.llm import server as server_module
from toolgym.agents.llm.server import make_server
from toolgym.llm import Completion

TIMEOUT_S = 20


class GatedBackend:
    """Answers each request with its last message's text, once ``gate`` is set; notes what it generated."""

    model_id = "gated"

    def __init__(self):
        self.gate = threading.Event()
        self.generated: list[str] = []
        self.started = threading.Event()

    def generate(self, requests, sampling):
        self.started.set()
        assert self.gate.wait(TIMEOUT_S)
        texts = [r.messages[-1]["content"] for r in requests]
        self.generated += texts
        return [Completion(text=f"echo {t}", prompt_tokens=3, completion_tokens=2) for t in texts]


@pytest.fixture
def served():
    backend, log = GatedBackend(), io.StringIO()
    server = make_server(backend, port=0, max_batch=8, log=log)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server, backend, log
    backend.gate.set()
    server.shutdown()
    server.server_close()
    thread.join(TIMEOUT_S)


def _ask(port: int, text: str, timeout: float = TIMEOUT_S) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        body = json.dumps({"messages": [{"role": "user", "content": text}], "max_tokens": 8})
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def test_concurrent_requests_are_answered_in_one_batch_and_logged(served):
    server, backend, log = served
    port = server.server_address[1]
    backend.gate.set()
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda i: _ask(port, f"q{i}"), range(6)))
    assert [(status, body["choices"][0]["message"]["content"]) for status, body in answers] == [
        (200, f"echo q{i}") for i in range(6)]
    assert sum(server.generator.batch_sizes) == 6 and sorted(backend.generated) == [f"q{i}" for i in range(6)]
    lines = log.getvalue().splitlines()
    arrived = [line for line in lines if " message(s), max_tokens 8, " in line]
    answered = [line for line in lines if " answered 200 after " in line]
    assert len(arrived) == len(answered) == 6
    assert all(line.endswith("3 prompt + 2 completion tokens") for line in answered)
    assert {line.split()[2] for line in answered} == {str(n) for n in range(1, 7)}  # "HH:MM:SS request N ..."


def test_a_request_whose_client_hung_up_is_not_generated(served):
    server, backend, log = served
    port = server.server_address[1]
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(_ask, port, "first")  # held in the generator
        assert backend.started.wait(TIMEOUT_S)
        with pytest.raises(socket.timeout):  # a client that gives up on a queued request, as on a timeout
            _ask(port, "abandoned", timeout=0.3)
        for _ in range(int(TIMEOUT_S / 0.05)):  # until the server noticed (bounded)
            if "dropped" in log.getvalue():
                break
            threading.Event().wait(0.05)
        retried = pool.submit(_ask, port, "retried")
        backend.gate.set()
        assert first.result(TIMEOUT_S)[0] == 200 and retried.result(TIMEOUT_S)[0] == 200
    assert backend.generated == ["first", "retried"]
    assert "request 2 dropped after " in log.getvalue() and "the client hung up before it was generated" in log.getvalue()


def test_main_takes_threads_and_quiet(monkeypatch, capsys):
    made = {}

    class FakeBackend(GatedBackend):
        def __init__(self, model, **kwargs):
            super().__init__()
            made.update(model=model, **kwargs)

    monkeypatch.setattr(server_module, "TransformersBackend", FakeBackend)
    monkeypatch.setattr(server_module.ChatServer, "serve_forever", lambda self: made.update(log=self.log_file))
    assert server_module.main(["tiny-model", "--port", "0", "--threads", "3"]) == 0
    assert made["threads"] == 3 and made["model"] == "tiny-model" and made["log"] is not None
    assert server_module.main(["tiny-model", "--port", "0", "--quiet"]) == 0
    assert made["threads"] is None and made["log"] is None
    assert "serving gated on http://127.0.0.1:" in capsys.readouterr().out
