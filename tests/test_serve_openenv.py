"""`toolgym serve --protocol openenv` and toolgym.remote: remote episodes equal local ones, errors are answered."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest

import toolgym

pytest.importorskip("openenv.core")
websockets_sync = pytest.importorskip("websockets.sync.client")

import toolgym.remote  # noqa: E402
from toolgym.serve import openenv_app  # noqa: E402
from toolgym.serve.openenv_app import build_app  # noqa: E402
from toolgym.serve.wire import ServeLimits, json_safe_info  # noqa: E402


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


def ask(ws, message) -> dict:
    ws.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def play_both(remote, local, task_id: str, seed: int) -> list:
    """Play the local oracle's actions on both envs; assert each result is the same; return the steps."""
    remote_first = remote.reset(seed=seed, options={"task_id": task_id})
    local_obs, local_info = local.reset(seed=seed, options={"task_id": task_id})
    assert remote_first == (local_obs, json_safe_info(local_info))
    assert remote_first[1] == local_info  # every info entry of toolgym's envs crosses the wire
    steps = []
    for _ in range(100):
        action = local.unwrapped.oracle_action()
        assert remote.oracle_action() == action
        remote_step, local_step = remote.step(action), local.step(action)
        assert remote_step == local_step
        steps.append(remote_step)
        if local_step[2] or local_step[3]:
            return steps
    raise AssertionError("the oracle episode did not end in 100 steps")


@pytest.mark.parametrize("env_id", toolgym.ENV_IDS)
def test_remote_episode_equals_the_local_one(env_id, serve_app):
    url = serve_app(build_app(env_id, oracle=True))
    remote, local = toolgym.remote.make(url, env_id), gym.make(env_id)
    try:
        task_ids = local.unwrapped.task_ids()
        assert remote.task_ids() == task_ids
        for task_id, seed in ((task_ids[0], 0), (task_ids[-1], 7)):
            steps = play_both(remote, local, task_id, seed)
            assert steps[-1][4]["metrics"]["success"] == 1
    finally:
        remote.close()
        local.close()


def test_openenv_generic_client_plays_a_tooltalk_task(serve_app):
    """OpenEnv's own client, with no toolgym code on its side: the wire format is OpenEnv's."""
    from openenv.core.generic_client import GenericEnvClient

    url = serve_app(build_app("ToolTalk-v0", oracle=True))
    local = gym.make("ToolTalk-v0")
    task_id = local.unwrapped.task_ids()[5]
    local.reset(seed=3, options={"task_id": task_id})
    with GenericEnvClient(base_url=url).sync() as client:
        result = client.reset(seed=3, options={"task_id": task_id})
        assert result.observation["info"]["task_id"] == task_id and result.done is False
        while not result.done:
            action = local.unwrapped.oracle_action()
            assert result.observation["oracle_action"] == action
            result = client.step({"action": action})
            observation, reward, terminated, truncated, info = local.step(action)
            assert (result.observation["observation"], result.reward, result.done) == (observation, reward, terminated)
        assert result.observation["info"]["metrics"] == info["metrics"]
        state = client.state()
        assert state["env_id"] == "ToolTalk-v0" and state["task_id"] == task_id and state["step_count"] >= 1


def test_make_checks_the_served_env_and_its_arguments(serve_app):
    url = serve_app(build_app("CatAPI-v0"))
    with pytest.raises(ValueError, match="serves CatAPI-v0, not ToolTalk-v0"):
        toolgym.remote.make(url, "ToolTalk-v0")
    with pytest.raises(ValueError, match=r"scoring='paper_compat' \(server: 'paper'\)"):
        toolgym.remote.make(url, "CatAPI-v0", scoring="paper_compat")
    env = toolgym.remote.make(url, "CatAPI-v0", tasks="built-in", scoring="paper")
    with pytest.raises(ValueError, match="start the server with --oracle"):
        env.oracle_action()
    with pytest.raises(ValueError, match="unknown task_id 'nope'"):
        env.reset(seed=0, options={"task_id": "nope"})
    observation, info = env.reset(seed=0, options={"task_index": 1})  # the session goes on after a refused reset
    assert info["task_id"] == env.task_ids()[1]
    env.close()
    with pytest.raises(ConnectionError, match="no toolgym OpenEnv server answers"):
        toolgym.remote.make(url.rsplit(":", 1)[0] + ":1", "CatAPI-v0")


def test_bad_messages_get_clear_errors_and_leave_the_session_and_others_untouched(serve_app):
    url = serve_app(build_app("ToolTalk-v0", limits=ServeLimits(max_message_bytes=10_000)))
    local = gym.make("ToolTalk-v0")
    task_id = local.unwrapped.task_ids()[0]
    with websockets_sync.connect(ws_url(url)) as ws, websockets_sync.connect(ws_url(url)) as other:
        first = ask(ws, {"type": "reset", "data": {"seed": 0, "options": {"task_id": task_id}}})
        assert ask(other, {"type": "reset", "data": {"seed": 0, "options": {"task_id": task_id}}}) == first

        bad = {
            "not json {": ("INVALID_JSON", "a message is a JSON object"),
            "{not json": ("INVALID_JSON", "Invalid JSON"),
            "[1, 2]": ("INVALID_JSON", "a message is a JSON object"),
            json.dumps({"type": "jump"}): ("UNKNOWN_TYPE", "Unknown message type: jump"),
            json.dumps({"type": "step", "data": {"action": 5}}): ("VALIDATION_ERROR", "Invalid message"),
            json.dumps({"type": "step", "data": {}}): ("VALIDATION_ERROR", "Invalid message"),
            json.dumps({"type": "reset", "data": {"speed": 1}}): ("EXECUTION_ERROR", "not 'speed'"),
            json.dumps({"type": "reset", "data": {"options": {"task_id": "nope"}}}):
                ("EXECUTION_ERROR", "unknown task_id 'nope'"),
            json.dumps({"type": "step", "data": {"action": "x" * 20_000}}):
                ("MESSAGE_TOO_LARGE", "over the server's limit of 10000 bytes; it was not read"),
        }
        for message, (code, text) in bad.items():
            answer = ask(ws, message)
            assert answer["type"] == "error" and answer["data"]["code"] == code and text in answer["data"]["message"]
        ws.send(b"\x00binary")
        assert "JSON text frame" in json.loads(ws.recv(timeout=30))["data"]["message"]

        # The refused messages changed nothing: both sessions play the same episode as a local env.
        local.reset(seed=0, options={"task_id": task_id})
        for session in (ws, other):
            action = local.unwrapped.oracle_action()
            answer = ask(session, {"type": "step", "data": {"action": action}})
            assert answer["type"] == "observation"
        observation, reward, *_ = local.step(action)
        assert answer["data"]["observation"]["observation"] == observation and answer["data"]["reward"] == reward


def test_too_many_sessions_are_told_the_server_is_full(serve_app):
    url = serve_app(build_app("CatAPI-v0", limits=ServeLimits(max_sessions=2)))
    with websockets_sync.connect(ws_url(url)) as one, websockets_sync.connect(ws_url(url)) as two:
        assert ask(one, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        with websockets_sync.connect(ws_url(url)) as three:
            answer = ask(three, {"type": "reset", "data": {"seed": 0}})
        assert answer["data"]["code"] == "CAPACITY_REACHED"
        assert answer["data"]["active_sessions"] == 2 and answer["data"]["max_sessions"] == 2
        assert ask(two, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        assert ask(one, {"type": "step", "data": {"action": "curl https://example.com"}})["type"] == "observation"
    with websockets_sync.connect(ws_url(url)) as again:  # closed sessions free their places
        assert ask(again, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"


def test_a_step_past_the_time_limit_is_answered_and_its_episode_abandoned(serve_app, monkeypatch):
    class SlowOnRequest(gym.Wrapper):
        def step(self, action):
            if action == "slow":
                time.sleep(2.5)
            return self.env.step(action)

    make = openenv_app.make_env
    monkeypatch.setattr(openenv_app, "make_env", lambda env_id, kwargs: SlowOnRequest(make(env_id, kwargs)))
    url = serve_app(build_app("CatAPI-v0", limits=ServeLimits(step_timeout_s=1.0)))
    with websockets_sync.connect(ws_url(url)) as ws, websockets_sync.connect(ws_url(url)) as other:
        assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        assert ask(other, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        answer = ask(ws, {"type": "step", "data": {"action": "slow"}})
        assert answer["data"]["code"] == "EXECUTION_ERROR"
        assert "step ran past the server's limit of 1 s" in answer["data"]["message"]
        answer = ask(ws, {"type": "step", "data": {"action": "curl https://example.com"}})
        assert "its episode was abandoned: reset to start another" in answer["data"]["message"]
        assert ask(other, {"type": "step", "data": {"action": "curl x"}})["type"] == "observation"
        assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"


def test_http_routes_answer_without_a_session(serve_app):
    """OpenEnv's HTTP /step has no session: the env says no episode has started; big bodies get 413."""
    import urllib.error
    import urllib.request

    url = serve_app(build_app("CatAPI-v0", limits=ServeLimits(max_message_bytes=1000)))

    def post(path, body):
        request = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    answer = post("/step", {"action": {"action": "curl https://api.thecatapi.com/v1/votes"}})
    assert "no episode has started; call reset() before step()" in answer["observation"]["observation"]
    assert post("/reset", {"seed": 0})["observation"]["info"]["task_id"] in toolgym.remote.describe(url)["task_ids"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        post("/step", {"action": {"action": "x" * 5000}})
    assert refused.value.code == 413 and "over the server's limit of 1000 bytes" in refused.value.read().decode()
    schema = json.loads(urllib.request.urlopen(url + "/schema", timeout=30).read())
    assert "action" in schema["action"]["properties"] and "info" in schema["observation"]["properties"]


def test_cli_serve_and_eval_env_url(tmp_path, capsys):
    """`toolgym serve CatAPI-v0 --protocol openenv --oracle` in its own process; `toolgym eval --env-url` on it."""
    import os
    import socket
    import subprocess
    import sys
    from pathlib import Path

    from toolgym.eval.cli import main

    repo = Path(__file__).resolve().parents[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "toolgym.eval.cli", "serve", "CatAPI-v0", "--protocol", "openenv",
                               "--port", str(port), "--oracle", "--max-sessions", "4"], cwd=repo,
                              env={**os.environ, "PYTHONPATH": str(repo)})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                toolgym.remote.describe(url, timeout_s=1)
                break
            except ConnectionError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        out = tmp_path / "remote.jsonl"
        assert main(["eval", "CatAPI-v0", "--agent", "oracle", "--env-url", url, "--episodes", "3", "--no-progress",
                     "--out", str(out)]) == 0
        printed = capsys.readouterr().out
        assert "CatAPI-v0 (built-in tasks, scoring=paper)" in printed and "100.0" in printed
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["metrics"]["success"] for r in records if "metrics" in r] == [1, 1, 1]
        assert main(["eval", "CatAPI-v0", "--agent", "oracle", "--env-url", url, "--scoring", "paper_compat",
                     "--no-progress"]) == 2
        assert "serves CatAPI-v0 with other arguments: scoring='paper_compat'" in capsys.readouterr().err
    finally:
        server.terminate()
        server.wait(30)
    assert main(["serve", "CatAPI-v0"]) == 2  # without --protocol: the WebShop html pages only
    assert "--protocol openenv or mcp serves any env" in capsys.readouterr().err


def test_fuzzed_messages_are_all_answered_and_the_session_goes_on(serve_app):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    url = serve_app(build_app("CatAPI-v0", limits=ServeLimits(max_message_bytes=20_000)))
    json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                               lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                               max_leaves=12)
    messages = (json_values.map(json.dumps)
                | st.builds(lambda kind, data: json.dumps({"type": kind, "data": data}),
                            st.sampled_from(["reset", "step", "state", "jump"]), json_values)
                | st.text(max_size=200)).filter(lambda text: '"close"' not in text)  # close ends a session
    with websockets_sync.connect(ws_url(url)) as ws:
        first = ask(ws, {"type": "reset", "data": {"seed": 0, "options": {"task_index": 1}}})

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(messages)
        def answered(message):
            answer = ask(ws, message)
            assert answer["type"] in ("observation", "error", "state")

        answered()
        again = ask(ws, {"type": "reset", "data": {"seed": 0, "options": {"task_index": 1}}})
        assert again == first  # whatever came before, the session still plays the same episode


def test_import_toolgym_imports_no_server_library():
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, gymnasium, toolgym, toolgym.train; gymnasium.make('ToolTalk-v0');"
            "print(sorted(m for m in ('openenv', 'fastapi', 'uvicorn', 'mcp', 'websockets', 'gradio') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.strip() == "[]"


def test_an_idle_session_is_closed_and_says_so(serve_app, monkeypatch):
    """OpenEnv's reaper closes a session idle past the limit (it checks every 5 s at most); its env is freed."""
    closed = []
    make = openenv_app.make_env

    def tracked(env_id, kwargs):
        env = make(env_id, kwargs)
        env.close = lambda: closed.append(env_id)
        return env

    url = serve_app(build_app("CatAPI-v0", limits=ServeLimits(idle_timeout_s=1.0)))
    monkeypatch.setattr(openenv_app, "make_env", tracked)
    with websockets_sync.connect(ws_url(url)) as ws:
        assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        deadline = time.monotonic() + 20
        while not closed and time.monotonic() < deadline:
            time.sleep(0.2)
        answer = ask(ws, {"type": "step", "data": {"action": "curl x"}})
    assert closed == ["CatAPI-v0"]
    assert "this session was closed after 1 s without a message; connect again" in answer["data"]["message"]
