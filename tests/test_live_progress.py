"""A live run never sits silent (issue 47): the progress shows the requests in flight, the retries
and the last error, and a first request that outlives the timeout says the server is slow."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents import make_agent
from toolgym.eval import batch
from toolgym.eval import watch
from toolgym.eval.batch import evaluate_batched
from toolgym.eval.watch import requests_text
from toolgym.registry import env_class

pytest.importorskip("openai")

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "I cannot help with that."},
                       "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}


class SlowServer(ThreadingHTTPServer):
    """A chat-completions server on 127.0.0.1 that holds every request until the test releases
    it (past the client's timeout: the client retries), then answers, with a 500 while
    ``failing`` is set."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()
        self.failing = False


class _Handler(BaseHTTPRequestHandler):
    server: SlowServer

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.release.wait(10)  # bounded: the test sets it
        status, body = (500, {"error": {"message": "injected failure"}}) if self.server.failing else (200, ANSWER)
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up on this attempt
            pass


@pytest.fixture
def slow_server():
    server = SlowServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


def test_the_progress_shows_requests_retries_and_a_slow_first_answer(slow_server, monkeypatch, capsys):
    monkeypatch.setattr(watch, "WATCH_INTERVAL_S", 0.02)
    url = f"http://127.0.0.1:{slow_server.server_address[1]}/v1"
    agent = make_agent(f"openai:{url}#m", env_class("BFCL-v0"), backend_kwargs={"timeout": 0.5, "max_retries": 2})
    shown = []
    said_slow = threading.Event()
    real_text = watch.slow_server_text

    def slow_text(backend, waiting_s):
        said_slow.set()
        return real_text(backend, waiting_s)

    monkeypatch.setattr(watch, "slow_server_text", slow_text)

    class Bar:
        """The progress bar's postfix texts; the server answers once the first attempt timed out,
        the retry is under way and the slow server was reported."""

        def __init__(self, *args, **kwargs):
            self.n = 0

        def set_postfix_str(self, text):
            shown.append(text)
            if said_slow.is_set() and "1 retries" in text:
                slow_server.release.set()

        def update(self, n):
            self.n += n

        def close(self):
            pass

    monkeypatch.setattr(batch, "tqdm", type("tqdm", (Bar,), {"write": staticmethod(
        lambda text, file=None: print(text, file=file))}))
    records, _, _ = evaluate_batched("BFCL-v0", agent, f"openai:{url}#m", {"category": "simple_python"},
                                     episodes=1, batch_size=1)
    assert records[0]["metrics"] is not None and agent.backend.retries == 1
    assert "0 steps, 1 request(s) in flight, 0 answered, 0 retries" in shown
    assert "0 steps, 1 request(s) in flight, 0 answered, 1 retries" in shown  # the SDK retried the timed-out attempt
    assert shown[-1].startswith("1 steps, 0 live, ") and shown[-1].endswith("0 request(s) in flight, 1 answered, "
                                                                             "1 retries")
    err = capsys.readouterr().err
    assert f"toolgym: no answer from {url} after " in err
    assert ("the first request outlived the timeout (0.5s) and is retried. The server may be slow (a model on a "
            "CPU, a cold start): raise the timeout with --backend-kwarg timeout=SECONDS") in err
    assert err.count("no answer from") == 1


def test_the_last_error_is_shown():
    assert requests_text({"in_flight": 2, "answered": 5, "retries": 3, "last_error": "BackendError: x\x1b[2J: 500"}) \
        == "2 request(s) in flight, 5 answered, 3 retries, last error: BackendError: x?[2J: 500"


def test_a_failed_request_is_the_backends_last_error(slow_server):
    from toolgym.llm import ChatRequest, SamplingParams
    from toolgym.llm.backends.openai_compatible import OpenAICompatibleBackend

    slow_server.release.set()
    slow_server.failing = True
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{slow_server.server_address[1]}/v1", model="m",
                                      timeout=5, max_retries=1)
    [completion] = backend.generate([ChatRequest(messages=[{"role": "user", "content": "hi"}])], SamplingParams())
    counters = backend.progress()
    assert counters["last_error"] == completion.error and "HTTP 500: injected failure" in completion.error
    assert (counters["in_flight"], counters["answered"], counters["retries"]) == (0, 0, 1)
    assert counters["waiting_s"] is not None  # still no answer


def test_the_users_and_the_judges_requests_count_too(slow_server):
    import gymnasium as gym

    url = f"http://127.0.0.1:{slow_server.server_address[1]}/v1"
    envs = [gym.make("Tau2-v0", domain="mock", user=f"llm:openai:{url}#user", judge=f"openai:{url}#judge")
            for _ in range(2)]
    agent = make_agent(f"openai:{url}#m", env_class("Tau2-v0"))
    backends = watch.request_backends(agent, envs)
    assert [b.model for b in backends] == ["m", "user", "judge", "user", "judge"]
    backends[1].in_flight, backends[3].retries, backends[4].last_error = 2, 1, "BackendError: judge down"
    assert requests_text(watch.request_counters(backends)) == ("2 request(s) in flight, 0 answered, 1 retries, "
                                                       "last error: BackendError: judge down")


def test_the_sequential_runner_shows_the_requests_too(slow_server, monkeypatch, capsys):
    """``eval --env-url`` plays episodes one after another on the server's env: its bar shows the
    agent's requests and a slow first answer as the batched runner's does, and the LLM flags
    (``--backend-kwarg timeout=``, which the slow-server line names) reach its agent."""
    import gymnasium as gym

    from toolgym.eval import runner

    monkeypatch.setattr(watch, "WATCH_INTERVAL_S", 0.02)
    url = f"http://127.0.0.1:{slow_server.server_address[1]}/v1"
    shown = []

    class Bar:
        def __init__(self, iterable, **kwargs):
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable)

        def set_postfix_str(self, text):
            shown.append(text)
            if "1 retries" in text:  # the first attempt timed out and the SDK retries it: answer now
                slow_server.release.set()

        def close(self):
            pass

    import toolgym.remote
    from toolgym.eval.cli import main

    monkeypatch.setattr(runner, "tqdm", Bar)
    # a local env stands in for the server's (the runner steps either alike)
    monkeypatch.setattr(toolgym.remote, "make", lambda env_url, env_id, **kwargs: gym.make(env_id, **kwargs))
    assert main(["eval", "BFCL-v0", "--env-kwarg", "category=simple_python", "--env-url", "http://127.0.0.1:9",
                 "--agent", f"openai:{url}#m", "--episodes", "1", "--backend-kwarg", "timeout=0.5",
                 "--backend-kwarg", "max_retries=2"]) == 0
    assert "1 request(s) in flight, 0 answered, 0 retries" in shown
    assert "1 request(s) in flight, 0 answered, 1 retries" in shown
    err = capsys.readouterr().err
    assert err.count(f"toolgym: no answer from {url} after ") == 1
    assert "raise the timeout with --backend-kwarg timeout=SECONDS" in err
