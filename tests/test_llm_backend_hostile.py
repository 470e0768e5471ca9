"""OpenAICompatibleBackend against a hostile server: answers too large, trickled, compressed
against the request, or not chat completions. Each is a short error in the completion, never a
crash or a hang; the work is bounded by bytes and attempts (the server counts them), not by a
wall clock."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time

import pytest

from toolgym.llm import ChatRequest, OpenAICompatibleBackend, SamplingParams

pytest.importorskip("openai")

HELLO = [ChatRequest(messages=[{"role": "user", "content": "Hi"}])]
SAMPLING = SamplingParams(max_new_tokens=4)
LIMIT = 4096  # the backend's max_answer_bytes in these tests


def completion(**fields) -> dict:
    choice = {"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop", **fields}
    return {"choices": [choice], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}


@contextlib.contextmanager
def raw_server(answer):
    """A server on 127.0.0.1 that reads one request per connection and hands the socket to
    ``answer(sock)``; yields its base URL and a list with one entry per request."""
    listener = socket.create_server(("127.0.0.1", 0))
    requests: list[bytes] = []
    stop = threading.Event()

    def serve(sock: socket.socket):
        with sock:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                head += chunk
            requests.append(head)
            with contextlib.suppress(OSError):
                answer(sock)

    def accept():
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=serve, args=(sock,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", requests
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


def reply(body: bytes, headers: str = "") -> callable:
    def answer(sock):
        sock.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"{headers}Connection: close\r\n\r\n".encode() + body)
    return answer


def backend(url, **kwargs):
    return OpenAICompatibleBackend(url, **{"model": "m", "api_key_env": "", "max_retries": 0, "timeout": 10,
                                           "max_answer_bytes": LIMIT, **kwargs})


def test_an_answer_over_the_byte_limit_is_refused_unread():
    big = json.dumps(completion(padding="x" * 10 * LIMIT)).encode()
    with raw_server(reply(big)) as (url, requests):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == (f"BackendError: {url}: an answer of {len(big)} bytes is over the limit of {LIMIT}; "
                            "not read (after 1 attempt)")
    assert len(requests) == 1


def test_an_endless_chunked_answer_is_cut_at_the_byte_limit():
    sent = []

    def endless(sock):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(10_000):  # 10 MB, 2500 times the limit, unless the client stops reading first
            sock.sendall(b"400\r\n" + b" " * 1024 + b"\r\n")
            sent.append(1024)

    with raw_server(endless) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == (f"BackendError: {url}: an answer of more than {LIMIT} bytes is over the limit; not read "
                            "(after 1 attempt)")
    assert sum(sent) < 10_000 * 1024  # the client hung up long before the end


@pytest.mark.parametrize("trickled", ["headers", "body"])
def test_a_trickled_answer_ends_at_the_deadline_not_at_its_end(trickled):
    body = json.dumps(completion()).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nX-Padding: {'p' * 100}\r\n\r\n".encode()
    sent = []

    def trickle(sock):
        whole = head + body
        if trickled == "body":
            sock.sendall(head)
            whole = body
        for byte in whole:  # one byte per 0.2 s: over 20 s for the whole, each read well within any read timeout
            sock.sendall(bytes([byte]))
            sent.append(byte)
            time.sleep(0.2)

    with raw_server(trickle) as (url, requests):
        [result] = backend(url, timeout=1.0).generate(HELLO, SAMPLING)
    assert result.error == f"BackendError: {url}: timed out after 1s (after 1 attempt)"
    assert len(sent) < 100  # the deadline, not the end of the answer, ended the read


def test_a_compressed_answer_that_was_not_asked_for_is_refused():
    body = gzip.compress(json.dumps(completion()).encode())
    with raw_server(reply(body, "Content-Encoding: gzip\r\n")) as (url, requests):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert b"accept-encoding: identity" in requests[0].lower()
    assert result.error == (f"BackendError: {url}: the answer came in Content-Encoding 'gzip', which was not "
                            "asked for (after 1 attempt)")


@pytest.mark.parametrize("answer, problem", [
    (b"<html>hello</html>", "Invalid JSON: expected value at line 1 column 1"),
    (b"[1, 2]", "Input should be an object"),
    (json.dumps({"choices": []}).encode(), "choices: List should have at least 1 item after validation, not 0"),
    (json.dumps({"choices": "many"}).encode(), "choices: Input should be a valid array"),
    (json.dumps(completion(message={"content": 42})).encode(), "choices.0.message.content: Input should be a valid "
                                                                "string"),
    (json.dumps(completion(message={"tool_calls": [{"function": {"arguments": "{}"}}]})).encode(),
     "choices.0.message.tool_calls.0.function.name: Field required"),
    (json.dumps(completion(token_ids=["a"])).encode(), "choices.0.token_ids.0: Input should be a valid integer, "
                                                       "unable to parse string as an integer"),
    (json.dumps(completion(logprobs={"content": [{"logprob": "high"}]})).encode(),
     "choices.0.logprobs.content.0.logprob: Input should be a valid number, unable to parse string as a number"),
    (json.dumps({**completion(), "usage": {"prompt_tokens": -1}}).encode(),
     "usage.prompt_tokens: Input should be greater than or equal to 0"),
    (b"[" * 100_000 + b"]" * 100_000, None),  # deeper than any parser's stack: over the limit first
    (b"[" * 2000 + b"]" * 2000, "Invalid JSON: recursion limit exceeded at line 1 column 202"),
])
def test_an_answer_that_is_not_a_chat_completion_says_which_field(answer, problem):
    with raw_server(reply(answer)) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    if problem is None:
        assert "is over the limit" in result.error
    else:
        assert result.error == f"BackendError: {url}: the answer is not a chat completion ({problem})"


def test_native_tool_calls_are_checked_and_kept_as_sent():
    call = {"id": "call_1", "type": "function", "function": {"name": "AddAlarm", "arguments": "{\"time\": \"8:30\"}"}}
    answer = completion(message={"content": None, "tool_calls": [call]}, finish_reason="tool_calls")
    with raw_server(reply(json.dumps(answer).encode())) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error is None and result.tool_calls == [call] and result.text == ""
    assert (result.prompt_tokens, result.completion_tokens, result.finish_reason) == (3, 1, "tool_calls")


def test_a_request_carries_no_credential_the_backend_was_not_given(monkeypatch):
    """The SDK reads OPENAI_API_KEY, OPENAI_ORG_ID and OPENAI_PROJECT_ID by itself; the backend
    sends only the key of its own ``api_key_env`` (none here) to the configured server."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient-KEY123456")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-ambient")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-ambient")
    with raw_server(reply(json.dumps(completion()).encode())) as (url, requests):
        [result] = backend(url).generate(HELLO, SAMPLING)
    head = requests[0].decode().lower()
    assert result.text == "hello"
    assert "authorization" not in head and "ambient" not in head and "openai-organization" not in head


def test_an_error_answer_nested_too_deep_for_json_is_quoted_not_a_crash():
    body = b"[" * 3000 + b"]" * 3000

    def error(sock):
        sock.sendall(f"HTTP/1.1 400 Bad Request\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                     + body)

    with raw_server(error) as (url, _):
        [result] = backend(url, max_answer_bytes=10_000).generate(HELLO, SAMPLING)
    assert result.error == f"BackendError: {url}: HTTP 400: {'[' * 500}..."
