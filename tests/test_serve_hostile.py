"""`toolgym serve --protocol openenv` against hostile clients on raw sockets: bodies that never end,
sessions no connection holds, values of the wrong type, frames nested 100,000 deep, foreign Host
headers. Each attack is answered (a 4xx over HTTP, an error message over a WebSocket) after
bounded work, and the sessions and their episodes go on. Timeouts only catch a server that hangs."""

from __future__ import annotations

import base64
import http.client
import json
import os
import select
import socket
import struct

import gymnasium as gym
import pytest

pytest.importorskip("openenv.core")
websockets_sync = pytest.importorskip("websockets.sync.client")

from toolgym.serve.openenv_app import build_app  # noqa: E402
from toolgym.serve.wire import ServeLimits  # noqa: E402
from toolgym.serving import foreign_host  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


def ask(ws, message) -> dict:
    ws.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.recv(timeout=60))


def raw_http(port: int, data: bytes) -> tuple[int, bytes]:
    """Status and body of the answer to hand-written request bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()


def post(port: int, path: str, body: bytes | str, headers: str = "") -> tuple[int, bytes]:
    body = body.encode() if isinstance(body, str) else body
    return raw_http(port, f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                          f"{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


@pytest.fixture(scope="module")
def catapi(request):
    """One CatAPI server for the module's tests (max_sessions 2): its URL."""
    import threading
    import time

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(build_app("CatAPI-v0", limits=ServeLimits(max_sessions=2)),
                                           host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


def test_a_chunked_body_is_cut_off_at_the_limit_and_answered_413(catapi):
    """400 MB of chunks: the server answers 413 once it has read 1 MiB, and reads no more."""
    port = port_of(catapi)
    chunk = b"%x\r\n%s\r\n" % (1 << 16, b"x" * (1 << 16))
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"POST /step HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                     f"Transfer-Encoding: chunked\r\n\r\n".encode())
        sock.setblocking(False)
        while sent < 400 << 20:
            readable, writable, _ = select.select([sock], [sock], [], 60)
            if readable:
                break  # the answer came
            assert writable, "the server neither read nor answered for 60 s"
            try:
                sent += sock.send(chunk)
            except (BlockingIOError, InterruptedError):
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        sock.setblocking(True)
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = json.loads(response.read())
    assert response.status == 413
    assert "message of more than 1048576 bytes is over the server's limit of 1048576 bytes" in body["detail"]
    # What the server read, plus what the two kernels buffered on the way: far from 400 MB.
    assert sent < 48 << 20
    status, answer = post(port, "/reset", "{}")  # and the server goes on
    assert status == 200 and json.loads(answer)["observation"]["info"]["task_id"]


def test_a_declared_length_over_the_limit_is_answered_before_the_body(catapi):
    port = port_of(catapi)
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"POST /step HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {400 << 20}\r\n\r\n".encode())
        response = http.client.HTTPResponse(sock)
        response.begin()  # with nothing of the body sent
        assert response.status == 413 and "message of 419430400 bytes" in json.loads(response.read())["detail"]


def test_sessions_over_http_are_refused_so_they_never_lock_websocket_clients_out(catapi):
    port = port_of(catapi)
    create = json.dumps({"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 7})
    for _ in range(4):  # twice the server's places
        status, answer = post(port, "/mcp", create)
        error = json.loads(answer)
        assert status == 400 and error["id"] == 7 and error["error"]["code"] == -32600
        assert "openenv/session/create is not served over HTTP" in error["error"]["message"]
    close = json.dumps({"jsonrpc": "2.0", "method": "openenv/session/close", "params": {"session_id": "x"}, "id": 1})
    assert post(port, "/mcp", close)[0] == 400
    with websockets_sync.connect(ws_url(catapi)) as one, websockets_sync.connect(ws_url(catapi)) as two:
        for ws in (one, two):  # both places are free
            assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
    for body in ("{", "[1]", "[" * 100_000, json.dumps({"jsonrpc": "2.0", "method": "tools/list", "params": {}})):
        status, answer = post(port, "/mcp", body)  # OpenEnv's other answers: JSON-RPC errors, now 400s
        assert status == 400 and json.loads(answer)["error"]["code"] < 0


@pytest.mark.parametrize("data, field", [
    ({"episode_id": [1, 2]}, "episode_id"), ({"episode_id": {"a": 1}}, "episode_id"), ({"episode_id": 5}, "episode_id"),
    ({"seed": -1}, "seed"), ({"seed": "zero"}, "seed"), ({"seed": 1.5}, "seed"),
    ({"options": [1]}, "options"), ({"options": "task_id"}, "options"),
])
def test_a_websocket_reset_of_the_wrong_types_is_refused_and_the_session_kept(catapi, data, field):
    local = gym.make("CatAPI-v0")
    local.reset(seed=0, options={"task_index": 2})
    with websockets_sync.connect(ws_url(catapi)) as ws:
        first = ask(ws, {"type": "reset", "data": {"seed": 0, "options": {"task_index": 2}, "episode_id": "e1"}})
        refused = ask(ws, {"type": "reset", "data": data})
        assert refused["type"] == "error" and refused["data"]["code"] == "VALIDATION_ERROR"
        assert [error["loc"] for error in refused["data"]["errors"]][0][0] == field
        state = ask(ws, {"type": "state"})
        assert state["type"] == "state" and state["data"]["episode_id"] == "e1"
        assert state["data"]["task_id"] == first["data"]["observation"]["info"]["task_id"]
        action = local.unwrapped.oracle_action()  # the episode goes on where it was
        step = ask(ws, {"type": "step", "data": {"action": action}})
        assert step["data"]["observation"]["observation"] == local.step(action)[0] and step["data"]["reward"] == 1
        assert ask(ws, {"type": "state"})["data"]["step_count"] == 1
    status, answer = post(port_of(catapi), "/reset", json.dumps(data))  # HTTP /reset refuses the same
    assert status == 422 and field in json.dumps(json.loads(answer)["detail"])


def test_a_frame_nested_100000_deep_is_answered_and_skipped(catapi):
    deep = "[" * 100_000 + "]" * 100_000
    local = gym.make("CatAPI-v0")
    local.reset(seed=0, options={"task_index": 1})
    with websockets_sync.connect(ws_url(catapi)) as ws:
        ask(ws, {"type": "reset", "data": {"seed": 0, "options": {"task_index": 1}, "episode_id": "e1"}})
        for frame in ('{"type": "step", "data": {"action": %s}}' % deep, '{"type": "reset", "data": %s}' % deep,
                      "{" + '"a":{' * 100_000 + "}" * 100_001,
                      # deep enough to pass the parser, not the checks and the env after it
                      '{"type": "step", "data": {"action": %s}}' % ("[" * 980 + "]" * 980)):
            answer = ask(ws, frame)
            assert answer["type"] == "error" and answer["data"]["code"] == "INVALID_JSON"
            assert "nested deeper than 100 levels; it was not read and the session goes on" in answer["data"]["message"]
        action = local.unwrapped.oracle_action()  # the episode is the one reset before
        step = ask(ws, {"type": "step", "data": {"action": action}})
        observation, reward, *_ , info = local.step(action)
        assert step["data"]["observation"]["observation"] == observation and step["data"]["reward"] == reward == 1
        assert ask(ws, {"type": "state"})["data"] | {"task_id": None} == {
            "episode_id": "e1", "step_count": 1, "env_id": "CatAPI-v0", "task_id": None}
    with websockets_sync.connect(catapi.replace("http://", "ws://") + "/mcp") as mcp:  # OpenEnv's MCP socket too
        answer = ask(mcp, '{"jsonrpc": "2.0", "method": %s}' % deep)
        assert answer["error"]["code"] == -32700 and "nested deeper than 100 levels" in answer["error"]["message"]
        assert ask(mcp, {"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 2})["id"] == 2
    for path in ("/reset", "/step", "/mcp"):
        for depth in (100_000, 980):
            status, answer = post(port_of(catapi), path, '{"action": %s}' % ("[" * depth + "]" * depth))
            answer = json.loads(answer)
            assert status == 400 and "nested deeper than 100 levels" in (answer.get("detail") or answer["error"]["message"])


def test_json_depth_counts_brackets_outside_strings_in_linear_time():
    import time

    from toolgym.serve.wire import json_depth

    assert [json_depth(text) for text in ('{}', '[[1], {"a": [2]}]', '{"a": "[[[{{{"}', r'["\\", [1]]',
                                          r'"\"[[["', 'x')] == [1, 3, 1, 2, 0, 0]
    started = time.process_time()
    assert json_depth("[" * (1 << 20)) == 1 << 20 and json_depth('"' + "[" * (1 << 20)) == 1 << 20
    assert time.process_time() - started < 5  # CPU time, a wide margin over the 0.05 s it takes


def websocket_handshake(port: int, host: str, origin: str | None = None, sock: socket.socket | None = None) -> bytes:
    """The head of the server's answer to a WebSocket handshake for /ws with these headers."""
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=60) if sock is None else open(os.devnull) as owned:
        connection = owned if sock is None else sock
        connection.sendall(f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n".encode()
                           + (f"Origin: {origin}\r\n".encode() if origin else b"") + b"\r\n")
        head = b""
        while b"\r\n\r\n" not in head and (piece := connection.recv(1)):
            head += piece
        return head


def test_a_frame_declaring_a_gigabyte_is_refused_from_its_header(catapi):
    """Frames past the socket's size cap (16 MiB) close the connection with 1009 before their payload is read."""
    port = port_of(catapi)
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        assert websocket_handshake(port, f"127.0.0.1:{port}", sock=sock).startswith(b"HTTP/1.1 101")
        sock.sendall(b"\x81\xff" + struct.pack(">Q", 1 << 30) + b"mask" + b"x" * 1000)  # a text frame of 1 GiB
        answer = b""
        while len(answer) < 4:
            piece = sock.recv(64)
            if not piece:
                break
            answer += piece
    assert answer[0] == 0x88 and struct.unpack(">H", answer[2:4])[0] == 1009  # close: message too big
    with websockets_sync.connect(ws_url(catapi)) as ws:  # the server goes on
        assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"


@pytest.mark.parametrize("body, says", [
    ({"options": {"task_id": "nope"}}, "unknown task_id 'nope'"),
    ({"options": {"task_id": ["a"]}}, "reset option 'task_id' must be a string"),
    ({"options": {"data_dir": "/etc"}}, "data_dir"),
    ({"options": {"colour": "blue"}}, "colour"),
    ({"options": [1]}, "Input should be a valid dictionary"),
    ({"speed": 1}, "reset takes seed, options and episode_id, not 'speed'"),
    ({"episode_id": [1]}, "Input should be a valid string"),
])
def test_http_reset_refusals_are_422_saying_why(catapi, body, says):
    status, answer = post(port_of(catapi), "/reset", json.dumps(body))
    assert status == 422 and says in json.dumps(json.loads(answer)["detail"])


def test_every_bad_http_request_is_a_4xx(catapi):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    port = port_of(catapi)
    values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner,
                                                                                      max_size=3), max_leaves=8)
    bodies = (st.fixed_dictionaries({}, optional={"seed": values, "episode_id": values, "options": values,
                                                  "action": values, "method": values, "params": values})
              .map(json.dumps) | values.map(json.dumps) | st.text(max_size=50))

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(["/reset", "/step", "/mcp"]), bodies)
    def answered(path, body):
        status, answer = post(port, path, body)
        assert status < 500, (path, body, answer[:300])
        if status >= 400:
            assert json.loads(answer)  # an answer in the protocol's shape, not a bare error page

    answered()


@pytest.mark.parametrize("host, origin, refused", [
    ("127.0.0.1:{port}", None, None), ("localhost:{port}", None, None), ("localhost", None, 421),
    ("[::1]:{port}", "http://[::1]:{port}", None), ("127.0.0.1:{port}", "http://localhost:3000", None),
    ("evil.example:{port}", None, 421), ("127.0.0.1.evil.example", None, 421), ("", None, 421),
    ("127.0.0.1:{port}", "http://evil.example", 403), ("127.0.0.1:{port}", "null", 403),
])
def test_a_loopback_server_refuses_foreign_host_and_origin_headers(catapi, host, origin, refused):
    port = port_of(catapi)
    host, origin = host.format(port=port), origin and origin.format(port=port)
    head = f"GET /toolgym HTTP/1.1\r\nHost: {host}\r\n" + (f"Origin: {origin}\r\n" if origin else "")
    status, body = raw_http(port, (head + "Connection: close\r\n\r\n").encode())
    if refused is None:
        assert status == 200 and json.loads(body)["env_id"] == "CatAPI-v0"
        return
    assert status == refused and "loopback" in json.loads(body)["detail"]
    # A WebSocket from such a page is refused at its handshake.
    assert websocket_handshake(port, host, origin).startswith(b"HTTP/1.1 403")


def test_the_host_rule_and_a_server_bound_elsewhere(serve_app):
    assert foreign_host("127.0.0.1:8000") is None and foreign_host("[::1]:80") is None
    assert "not this loopback server's name" in foreign_host("127.0.0.1")  # the MCP SDK's rule: with a port
    assert "not this loopback server's name" in foreign_host("attacker.example:8000")
    assert "not this loopback server's name" in foreign_host(None)
    assert "not a page of this loopback server" in foreign_host("localhost:8000", "https://attacker.example")
    url = serve_app(build_app("CatAPI-v0", host="0.0.0.0"))  # bound to every interface: any name reaches it
    status, body = raw_http(port_of(url), b"GET /toolgym HTTP/1.1\r\nHost: gpu-box.lan\r\nConnection: close\r\n\r\n")
    assert status == 200


def test_a_step_whose_action_holds_infinity_is_a_422_without_the_value(catapi):
    """OpenEnv's /step answers a malformed action with pydantic's errors, which quote the client's
    values; an Infinity among them is no JSON, and echoing it made a 500."""
    status, answer = post(port_of(catapi), "/step", '{"action": {"": Infinity}}')
    assert status == 422
    detail = json.loads(answer)["detail"]
    assert [error["loc"] for error in detail] == [["action"], [""]]
    assert all("input" not in error for error in detail)
