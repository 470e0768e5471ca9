"""How the backends fail: redirects, error texts without keys, servers and models that are not there.

The OpenAI-compatible backend talks to real ``http.server`` instances on 127.0.0.1; two of them
on different ports are two origins.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolgym.llm import BackendError, ChatRequest, OpenAICompatibleBackend, SamplingParams

KEY = "sk-test-SECRET123456"
KEY_ENV = "TOOLGYM_TEST_ERRORS_KEY"
HELLO = [ChatRequest(messages=[{"role": "user", "content": "Hi"}])]
SAMPLING = SamplingParams(max_new_tokens=4)
COMPLETION = {"choices": [{"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 3, "completion_tokens": 1}}


@contextlib.contextmanager
def http_server(respond):
    """A server on 127.0.0.1 answering ``respond(method, path) -> (status, headers, body)``.

    Yields its origin and the list of requests it received (method, path, headers by any case, body).
    """
    received = []

    class Handler(BaseHTTPRequestHandler):
        def handle_request(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append({"method": self.command, "path": self.path, "headers": self.headers, "body": body})
            status, headers, answer = respond(self.command, self.path)
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            for name, value in {"Content-Length": str(len(data)), **headers}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = handle_request

        def log_message(self, format, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def redirecting(status, location):
    return lambda method, path: (status, {"Location": location}, b"") if path.startswith("/v1/") else \
        (200, {}, COMPLETION)


def answering(method, path):
    return 200, {}, COMPLETION


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)


def backend(url, **kwargs):
    return OpenAICompatibleBackend(f"{url}/v1", model="m", api_key_env=KEY_ENV, timeout=10, max_retries=0,
                                   **kwargs)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_not_followed_and_gets_no_key(keyed, status):
    with http_server(answering) as (other, other_received):
        with http_server(redirecting(status, f"{other}/v1/chat/completions")) as (url, received):
            [result] = backend(url).generate(HELLO, SAMPLING)
    port = other.rsplit(":", 1)[1]
    assert result.error == (f"BackendError: {url}/v1/chat/completions redirects (HTTP {status}) to another origin, "
                            f"http://127.0.0.1:{port}; not following it with the credentials: use the final URL "
                            "as the base URL")
    assert other_received == []  # no request, so no key, reached the other origin
    assert [r["headers"]["Authorization"] for r in received] == [f"Bearer {KEY}"]


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_redirect_that_would_turn_the_post_into_a_get_is_an_error(keyed, status):
    with http_server(redirecting(status, "/moved/chat/completions")) as (url, received):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == (f"BackendError: {url}/v1/chat/completions redirects (HTTP {status}) to "
                            f"{url}/moved/chat/completions, which would turn the POST into a GET; use the final URL "
                            "as the base URL")
    assert [r["method"] for r in received] == ["POST"]


@pytest.mark.parametrize("status", [307, 308])
def test_a_same_origin_307_or_308_is_posted_again(keyed, status):
    with http_server(redirecting(status, "/moved/chat/completions")) as (url, received):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error is None and result.text == "hello"
    first, second = received
    assert (second["method"], second["path"]) == ("POST", "/moved/chat/completions")
    assert second["body"] == first["body"] and json.loads(second["body"])["messages"] == HELLO[0].messages
    assert second["headers"]["Authorization"] == f"Bearer {KEY}"


def test_model_listing_follows_same_origin_redirects_only(keyed):
    def respond(method, path):
        if path == "/v1/models":
            return 301, {"Location": "/v2/models"}, b""
        return 200, {}, {"data": [{"id": "served-model"}]}

    with http_server(respond) as (url, received):
        assert OpenAICompatibleBackend(f"{url}/v1", api_key_env=KEY_ENV).model == "served-model"
    assert [(r["method"], r["path"]) for r in received] == [("GET", "/v1/models"), ("GET", "/v2/models")]
    with http_server(answering) as (other, other_received):
        with http_server(redirecting(302, f"{other}/v1/models")) as (url, _):
            with pytest.raises(BackendError, match="redirects \\(HTTP 302\\) to another origin"):
                OpenAICompatibleBackend(f"{url}/v1", api_key_env=KEY_ENV)
    assert other_received == []


def test_a_redirect_loop_ends(keyed):
    with http_server(redirecting(307, "/v1/chat/completions")) as (url, received):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == f"BackendError: {url}/v1/chat/completions: more than 5 redirects" and len(received) == 6


LEAKY = (f"upstream said: Authorization: Bearer {KEY}; other key sk-proj-ABCDEFGH12345; "
         f"token Bearer abc.def-ghi_jkl; yours is {KEY}\n" + "padding " * 2000)


@pytest.mark.parametrize("status", [400, 503])
def test_error_texts_are_short_one_line_and_hold_no_key(keyed, status):
    with http_server(lambda method, path: (status, {}, {"error": {"message": LEAKY}})) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    prefix = f"BackendError: {url}/v1: HTTP {status}: "
    assert result.error.startswith(prefix + "upstream said: Authorization: Bearer [key]; other key sk-[redacted]; "
                                            "token Bearer [redacted]; yours is [key] padding padding")
    assert len(result.error) <= len(prefix) + 500 + len(" (after 1 attempt)") + 3
    assert "\n" not in result.error and "SECRET" not in result.error and "ABCDEFGH" not in result.error
    assert "abc.def" not in result.error
    assert result.record()["error"] == result.error


def test_a_key_without_a_known_shape_is_still_scrubbed(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "plainkey42")
    with http_server(lambda method, path: (401, {}, b"key plainkey42 is not valid")) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == (f"BackendError: {url}/v1: HTTP 401, the key in ${KEY_ENV} was refused "
                            "(key [key] is not valid)")


def test_not_found_says_whether_the_model_or_the_url_is_wrong(keyed):
    def respond(method, path):
        if path == "/v1/chat/completions":
            return 404, {}, {"error": {"message": "The model `m` does not exist.", "code": "model_not_found"}}
        return 404, {}, {"detail": "Not Found"}

    with http_server(respond) as (url, _):
        [missing_model] = backend(url).generate(HELLO, SAMPLING)
        [wrong_url] = OpenAICompatibleBackend(url, model="m", max_retries=0).generate(HELLO, SAMPLING)
    assert missing_model.error == (f"BackendError: {url}/v1: model 'm' not found "
                                   "(HTTP 404: The model `m` does not exist.)")
    assert wrong_url.error == (f"BackendError: {url}/chat/completions: HTTP 404 (Not Found); "
                               "does the base URL end in /v1?")


def test_a_model_list_that_is_not_one_is_an_error():
    with http_server(lambda method, path: (200, {}, b"<html>welcome</html>")) as (url, _):
        with pytest.raises(BackendError, match=r"/v1/models did not answer with a model list; name the model as "
                                                r"openai:URL#MODEL$"):
            OpenAICompatibleBackend(f"{url}/v1")
    with http_server(lambda method, path: (200, {}, {"data": []})) as (url, _):
        with pytest.raises(BackendError, match="/v1/models lists no model"):
            OpenAICompatibleBackend(f"{url}/v1")


def test_an_answer_that_is_not_a_completion_is_an_error(keyed):
    with http_server(lambda method, path: (200, {}, {"object": "list"})) as (url, _):
        [result] = backend(url).generate(HELLO, SAMPLING)
    assert result.error == f"BackendError: {url}/v1: the answer is not a chat completion (choices: Field required)"


@pytest.fixture
def no_network(monkeypatch):
    """Fails any connection attempt, and records it."""
    attempts = []

    def connect(sock, address):
        attempts.append(address)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@pytest.mark.parametrize("model", ["toolgym-test/missing-model", "/nonexistent/model/dir"])
def test_an_hf_model_not_on_disk_is_one_line_and_no_download(no_network, model, capsys):
    pytest.importorskip("transformers")
    from toolgym.agents.llm import make_llm_agent
    from toolgym.eval.cli import main

    with pytest.raises(BackendError) as error:
        make_llm_agent("hf", model, None, {})
    assert str(error.value) == (f"hf: model {model!r} not found on disk (downloads are off); pass a local path or "
                                "a model in the Hugging Face cache, or download=true to fetch it")
    assert main(["eval", "ToolTalk-v0", "--agent", f"hf:{model}", "--no-progress"]) == 2
    assert capsys.readouterr().err == f"toolgym: error: {error.value}\n"
    assert no_network == []
