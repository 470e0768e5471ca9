"""The LLM server's limits, in-process on 127.0.0.1: validation, body size, tokens, queue, keys.

Every request has a socket timeout, so a server that stops answering fails a test instead of
hanging it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from toolgym.llm import ChatRequest, Completion, OpenAICompatibleBackend, SamplingParams  # noqa: E402
from toolgym.llm import TransformersBackend  # noqa: E402
from toolgym.agents.llm.server import (API_KEY_ENV, BatchingGenerator, ChatHandler, is_loopback, main,  # noqa: E402
                                       make_server)
from toolgym.llm.tiny import build_tiny_model  # noqa: E402

TIMEOUT_S = 20
HELLO = [{"role": "user", "content": "Set an alarm for 8:30."}]


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    return TransformersBackend(str(build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=3)))


@contextlib.contextmanager
def serving(backend, **kwargs):
    """The port of a server over ``backend`` running in a thread of this process."""
    server = make_server(backend, port=0, model_name="tiny", **kwargs)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def port(backend):
    with serving(backend) as port:
        yield port


def request(port, method="POST", path="/v1/chat/completions", body: dict | bytes | None = None,
            headers: dict | None = None) -> tuple[int, dict, dict]:
    """(status, headers, JSON body) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        conn.close()


def raw_request(port, head: bytes, body: bytes = b"") -> tuple[int, dict, socket.socket]:
    """Sends hand-written bytes; returns the status, the error JSON and the still open socket."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
    sock.sendall(head + b"\r\n\r\n" + body)
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, json.loads(response.read()), sock


def assert_answers(port) -> None:
    status, _, body = request(port, body={"messages": HELLO, "max_tokens": 3})
    assert status == 200 and len(body["choices"][0]["token_ids"]) <= 3


BAD_FIELDS = [
    ({"stop": [[1]]}, "stop[0]", "Input should be a valid string"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop", "at most 4 items"),
    ({"stop": ""}, "stop[0]", "at least 1 character"),
    ({"seed": [1]}, "seed", "Input should be a valid integer"),
    ({"seed": True}, "seed", "Input should be a valid integer"),
    ({"seed": 2 ** 64}, "seed", "less than or equal to"),
    ({"temperature": float("nan")}, "temperature", "Input should be a finite number"),
    ({"temperature": 2.5}, "temperature", "less than or equal to 2"),
    ({"temperature": "hot"}, "temperature", "Input should be a valid number"),
    ({"top_p": 5}, "top_p", "less than or equal to 1"),
    ({"top_p": 0}, "top_p", "greater than 0"),
    ({"max_tokens": 0}, "max_tokens", "greater than or equal to 1"),
    ({"max_tokens": "10"}, "max_tokens", "Input should be a valid integer"),
    ({"max_tokens": 10 ** 12}, "max_tokens", "max_tokens is 1000000000000; this server allows at most 4096"),
    ({"max_completion_tokens": 5000}, "max_completion_tokens", "this server allows at most 4096"),
    ({"messages": []}, "messages", "at least 1 item"),
    ({"messages": "hi"}, "messages", "Input should be a valid array"),
    ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role", "Input should be 'system'"),
    ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content", "Input should be a valid string"),
    ({"messages": [{"role": "user"}]}, "messages[0]", "a user message needs content"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "messages[0].content",
     "only text is supported"),
    ({"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}]},
     "messages[0].tool_calls[0].function.arguments", "Input should be a valid string"),
    ({"tools": [{"type": "function"}]}, "tools[0].function", "Field required"),
    ({"logprobs": "yes"}, "logprobs", "Input should be a valid boolean"),
    ({"n": 2}, "n", "Input should be 1"),
    ({"stream": True}, "stream", "Input should be False"),
]


@pytest.mark.parametrize(("fields", "param", "says"), BAD_FIELDS, ids=[p for _, p, _ in BAD_FIELDS])
def test_a_malformed_field_is_a_400_naming_it_and_the_server_keeps_answering(port, fields, param, says):
    status, headers, body = request(port, body={"messages": HELLO, **fields})
    assert status == 400 and headers["Content-Type"] == "application/json"
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["type"] == "invalid_request_error" and body["error"]["param"] == param
    assert body["error"]["message"].startswith(param) and says in body["error"]["message"]
    assert_answers(port)  # the generator thread is alive


@pytest.mark.parametrize(("body", "says"), [
    (b"[1]", "the body must be a JSON object"),
    (b"nope", "the body is not valid JSON"),
    (b"[" * 100_000, "the body is not valid JSON: recursion limit exceeded"),
    (b"", "the body is not valid JSON"),
])
def test_a_body_that_is_not_a_json_object_is_a_400(port, body, says):
    status, _, answer = request(port, body=body)
    assert status == 400 and answer["error"]["message"].startswith(says) and answer["error"]["param"] is None


def test_a_good_request_is_answered_with_what_it_asked_for(port):
    status, _, body = request(port, body={"model": "tiny", "messages": [
        {"role": "system", "content": [{"type": "text", "text": "You help."}]}, *HELLO],
        "max_completion_tokens": 4, "stop": "\n", "seed": 3, "temperature": 0.5, "top_p": 0.9, "logprobs": True,
        "n": 1, "stream": False, "frequency_penalty": 0})  # a field this server does not read is ignored
    assert status == 200, body
    choice = body["choices"][0]
    assert 1 <= len(choice["token_ids"]) <= 4 and len(choice["logprobs"]["content"]) == len(choice["token_ids"])
    assert body["usage"]["prompt_tokens"] == len(body["prompt_token_ids"])


def test_an_unknown_model_is_a_404_and_a_short_backend_error(port):
    status, _, body = request(port, body={"model": "gpt-nope", "messages": HELLO})
    assert status == 404 and body["error"]["code"] == "model_not_found" and body["error"]["param"] == "model"
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{port}/v1", model="gpt-nope", max_retries=0)
    [result] = backend.generate([ChatRequest(HELLO)], SamplingParams(max_new_tokens=2))
    assert result.error == (f"BackendError: http://127.0.0.1:{port}/v1: model 'gpt-nope' not found (HTTP 404: The "
                            "model `gpt-nope` does not exist; this server serves `tiny`)")


def test_oversized_and_malformed_content_lengths_are_refused_without_reading(port):
    # No body is ever sent: a server that waited for one would keep silent for its 30 s read
    # timeout, past the client's TIMEOUT_S (20 s), and the test would fail on the clock's
    # generous side only.
    status, body, sock = raw_request(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                           b"Content-Length: 2000000000")
    sock.close()
    assert status == 413 and "the body is 2000000000 bytes; this server takes at most 4194304" in \
        body["error"]["message"]
    for length, expected in [(b"-5", 400), (b"12abc", 400), (b"\xd9\xa1", 400)]:
        status, body, sock = raw_request(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                               b"Content-Length: " + length)
        assert status == expected and "Content-Length" in body["error"]["message"]
        assert sock.recv(1) == b""  # closed at once: no thread waits for a body that will not come
        sock.close()
    for head, says in [(b"", "a Content-Length header is required"),
                       (b"\r\nTransfer-Encoding: chunked", "chunked transfer encoding is not supported")]:
        status, body, sock = raw_request(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x" + head)
        sock.close()
        assert status == 411 and says in body["error"]["message"]
    assert_answers(port)


def test_a_50_mb_message_is_a_413_the_client_can_read(port):
    message = {"messages": [{"role": "user", "content": "a" * 50_000_000}]}
    status, headers, body = request(port, body=message)
    assert status == 413 and headers["Connection"] == "close"
    assert body["error"]["message"].startswith("the body is 50000047 bytes; this server takes at most 4194304")
    assert_answers(port)


def test_a_client_that_stops_sending_is_dropped(backend):
    class QuickTimeout(ChatHandler):
        timeout = 0.5

    with serving(backend, handler=QuickTimeout) as port:
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mess")
        # dropped after its 0.5 s: the client's TIMEOUT_S (20 s) fails the test only if never dropped
        assert sock.recv(1) == b""
        sock.close()


def test_a_prompt_that_does_not_fit_the_context_is_a_400(port, backend, monkeypatch):
    assert backend.context_length == 32768  # the tiny model's max_position_embeddings
    monkeypatch.setattr(backend, "context_length", 64)
    prompt_tokens = len(backend.encode(ChatRequest(HELLO)))
    status, _, body = request(port, body={"messages": HELLO, "max_tokens": 64 - prompt_tokens + 1})
    assert status == 400 and body["error"]["code"] == "context_length_exceeded"
    assert body["error"]["message"] == (f"This model's maximum context length is 64 tokens; the messages take "
                                         f"{prompt_tokens} and max_tokens asks for {64 - prompt_tokens + 1} more")
    status, _, body = request(port, body={"messages": HELLO, "max_tokens": 64 - prompt_tokens})
    assert status == 200 and body["usage"]["total_tokens"] <= 64


class ExplodingBackend:
    """The tiny model, except that a batch with the message "explode" in it raises."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = "tiny"

    def generate(self, requests, sampling):
        if any(m["content"] == "explode" for r in requests for m in r.messages):
            raise RuntimeError("the batch blew up")
        return self.inner.generate(requests, sampling)


def test_a_failing_batch_answers_500_and_the_generator_goes_on(backend):
    with serving(ExplodingBackend(backend)) as port:
        status, _, body = request(port, body={"messages": [{"role": "user", "content": "explode"}]})
        assert status == 500 and body["error"]["type"] == "server_error"
        assert body["error"]["message"] == "generation failed: RuntimeError: the batch blew up"
        assert_answers(port)


def test_the_generator_survives_a_request_it_cannot_even_group(backend):
    generator = BatchingGenerator(backend)
    unhashable = SamplingParams(stop=(["a list"],))  # what "stop": [[1]] used to become
    with pytest.raises(TypeError, match="unhashable"):
        generator.submit(ChatRequest(HELLO), unhashable).result(timeout=TIMEOUT_S)
    done = generator.submit(ChatRequest(HELLO), SamplingParams(max_new_tokens=2)).result(timeout=TIMEOUT_S)
    assert 1 <= done.completion_tokens <= 2


class GatedBackend:
    """Holds every batch until released, so that requests pile up."""

    model_id = "gated"

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def generate(self, requests, sampling):
        self.entered.set()
        self.release.wait(TIMEOUT_S)
        return [Completion(text="ok", prompt_tokens=1, completion_tokens=1, prompt_token_ids=[1],
                           completion_token_ids=[2], logprobs=[-0.5], finish_reason="stop") for _ in requests]


def test_a_full_queue_is_a_503_with_retry_after():
    gated = GatedBackend()
    server = make_server(gated, port=0, max_batch=1, max_queue=1)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with ThreadPoolExecutor(2) as pool:
            generating = pool.submit(request, port, body={"messages": HELLO})
            assert gated.entered.wait(TIMEOUT_S)
            waiting = pool.submit(request, port, body={"messages": HELLO})
            deadline = time.monotonic() + TIMEOUT_S
            while server.generator._queue.qsize() < 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            status, headers, body = request(port, body={"messages": HELLO})
            assert status == 503 and headers["Retry-After"] == "1" and body["error"]["code"] == "server_busy"
            gated.release.set()
            assert generating.result(TIMEOUT_S)[0] == waiting.result(TIMEOUT_S)[0] == 200
    finally:
        gated.release.set()
        server.shutdown()
        server.server_close()


def test_an_api_key_guards_every_route_but_health(backend, monkeypatch):
    key = "local-secret-key-1234"
    with serving(backend, api_key=key) as port:
        status, headers, body = request(port, body={"messages": HELLO})
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
        assert body["error"]["type"] == "authentication_error" and key not in json.dumps(body)
        assert request(port, body={"messages": HELLO}, headers={"Authorization": "Bearer wrong"})[0] == 401
        assert request(port, body={"messages": HELLO}, headers={"Authorization": key})[0] == 401  # no scheme
        assert request(port, "GET", "/v1/models")[0] == 401
        assert request(port, "GET", "/health")[0] == 200
        assert request(port, "GET", "/v1/models", headers={"Authorization": f"Bearer {key}"})[0] == 200
        monkeypatch.setenv("TOOLGYM_TEST_SERVER_KEY", key)
        client = OpenAICompatibleBackend(f"http://127.0.0.1:{port}/v1", api_key_env="TOOLGYM_TEST_SERVER_KEY")
        [done] = client.generate([ChatRequest(HELLO)], SamplingParams(max_new_tokens=2))
        assert client.model == "tiny" and done.error is None and done.completion_tokens >= 1
        monkeypatch.setenv("TOOLGYM_TEST_SERVER_KEY", "sk-wrong-key-5678")
        [refused] = client.generate([ChatRequest(HELLO)], SamplingParams(max_new_tokens=2))
        assert refused.error == (f"BackendError: http://127.0.0.1:{port}/v1: HTTP 401, the key in "
                                 "$TOOLGYM_TEST_SERVER_KEY was refused (a valid API key is required, as a "
                                 "bearer token in the Authorization header)")


def test_a_server_off_loopback_needs_a_key(backend, monkeypatch, capsys):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("")
    with pytest.raises(ValueError, match="serving on '0.0.0.0' needs an API key"):
        make_server(backend, host="0.0.0.0")
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    assert main(["some/missing-model", "--host", "0.0.0.0", "--port", "0"]) == 2  # refused before loading
    assert capsys.readouterr().err == (f"error: serving on '0.0.0.0' needs an API key: pass --api-key or set "
                                       f"${API_KEY_ENV}\n")
    monkeypatch.setenv(API_KEY_ENV, "a-key")  # with a key it goes on, to the model, which is not there
    assert main(["toolgym-test/missing-model", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: hf: model 'toolgym-test/missing-model' not found on disk")


class QuickBackend:
    """Answers every batch after a short pause, so that a burst of clients overlaps."""

    model_id = "quick"

    def generate(self, requests, sampling):
        time.sleep(0.05)
        return [Completion(text="ok", prompt_tokens=1, completion_tokens=1, prompt_token_ids=[1],
                           completion_token_ids=[2], logprobs=[-0.5], finish_reason="stop") for _ in requests]


@pytest.mark.timeout(120)
def test_400_concurrent_clients_are_each_answered_and_never_reset():
    server = make_server(QuickBackend(), port=0, max_batch=4, max_queue=8)
    assert server.max_connections == 28 and server.request_queue_size == 1024
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    clients = 400
    start = threading.Barrier(clients)

    def one_client(_):
        start.wait(TIMEOUT_S)
        return request(port, body={"messages": HELLO})  # a reset raises here and fails the test

    try:
        with ThreadPoolExecutor(clients) as pool:
            answers = list(pool.map(one_client, range(clients)))
        statuses = [status for status, _, _ in answers]
        assert set(statuses) <= {200, 503} and statuses.count(200) >= 12
        busy = [(headers, body) for status, headers, body in answers if status == 503]
        assert busy and all(h["Retry-After"] == "1" and b["error"]["code"] == "server_busy" for h, b in busy)
        assert {b["error"]["message"].split(" (")[0] for _, b in busy} == {"the server is busy"}
        status, _, body = request(port, body={"messages": HELLO})  # and the server goes on
        assert status == 200 and body["choices"][0]["message"]["content"] == "ok"
    finally:
        server.shutdown()
        server.server_close()


def test_a_busy_server_reads_the_refused_request_before_closing(backend):
    """The 503 for a connection over the limit reaches a client that is still sending its body."""
    server = make_server(GatedBackend(), port=0, max_batch=1, max_queue=1, max_connections=1)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        holder = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)  # takes the one slot, idle
        deadline = time.monotonic() + TIMEOUT_S
        while server.active_connections < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        body = json.dumps({"messages": [{"role": "user", "content": "x" * 200_000}]}).encode()
        status, error, sock = raw_request(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                                b"Content-Length: %d" % len(body), body)
        assert status == 503 and error["error"]["code"] == "server_busy"
        sock.close()
        holder.close()
    finally:
        server.shutdown()
        server.server_close()
