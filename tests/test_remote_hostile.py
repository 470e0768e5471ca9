"""`toolgym.remote` against a hostile server: a fake OpenEnv server on raw sockets that sends
answers too large, too slow, of the wrong shape, or late. The client reads a bounded number of
bytes, keeps one deadline per whole answer, names the URL and the field, and never hands an
answer to a later request. Timeouts only catch a client that hangs."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import struct
import threading
import time

import pytest

pytest.importorskip("openenv.core")

import toolgym.remote  # noqa: E402
from toolgym.remote import AnswerTimeout, BadAnswer, RemoteError  # noqa: E402

pytestmark = pytest.mark.timeout(120)

DESCRIPTION = {"env_id": "CatAPI-v0", "env_kwargs": {}, "task_ids": ["1", "2"], "task_set": "built-in", "split": None,
               "scoring": "paper", "mode": None, "oracle": False, "limits": {}}


def result(observation="ok", reward: object = 0.0, **fields) -> dict:
    """An OpenEnv observation message as a toolgym server sends it, with ``fields`` changed."""
    inner = {"observation": observation, "terminated": False, "truncated": False, "info": {"task_id": "1"},
             "oracle_action": None, "done": False, "reward": reward, "metadata": {}}
    message = {"type": "observation", "data": {"observation": inner, "reward": reward, "done": False}}
    for path, value in fields.items():  # "data.observation.info" = ...
        *parents, last = path.split(".")
        target = message
        for key in parents:
            target = target[key]
        if value is MISSING:
            del target[last]
        else:
            target[last] = value
    return message


MISSING = object()


def frame(payload: bytes, opcode: int = 1) -> bytes:
    """A server's (unmasked) WebSocket frame."""
    size = len(payload)
    head = (struct.pack(">BB", 0x80 | opcode, size) if size < 126 else struct.pack(">BBH", 0x80 | opcode, 126, size)
            if size < 1 << 16 else struct.pack(">BBQ", 0x80 | opcode, 127, size))
    return head + payload


def read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """A client's (masked) frame: its opcode and payload; None when the client has gone."""
    def exactly(n):
        data = b""
        while len(data) < n:
            piece = sock.recv(n - len(data))
            if not piece:
                raise ConnectionError
            data += piece
        return data

    try:
        first, second = exactly(2)
        size = second & 0x7F
        size = struct.unpack(">H", exactly(2))[0] if size == 126 else struct.unpack(">Q", exactly(8))[0] \
            if size == 127 else size
        mask = exactly(4)
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(exactly(size)))
        return first & 0x0F, payload
    except (ConnectionError, OSError):
        return None


class HostileServer:
    """A fake toolgym OpenEnv server on loopback: ``describe(sock)`` answers ``GET /toolgym``
    (after reading its head), ``answer(message, sock)`` answers each WebSocket message. Counts
    what it sent and the WebSocket connections it accepted."""

    def __init__(self, describe=None, answer=None):
        self.describe = describe or (lambda sock: send_http(sock, json.dumps(DESCRIPTION).encode()))
        self.answer = answer or (lambda message, sock: sock.sendall(frame(json.dumps(result()).encode())))
        self.sent = 0
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket):
        with sock:
            head = b""
            while b"\r\n\r\n" not in head:
                piece = sock.recv(4096)
                if not piece:
                    return
                head += piece
            try:
                if head.startswith(b"GET /toolgym"):
                    return self.describe(sock)
                key = next(line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")
                           if line.lower().startswith(b"sec-websocket-key"))
                accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
                sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                             b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
                self.connections += 1
                while (received := read_frame(sock)) is not None:
                    opcode, payload = received
                    if opcode == 8:  # close
                        return
                    if opcode == 1:
                        self.answer(json.loads(payload), sock)
            except OSError:
                return  # the client went away

    def close(self):
        self.stopped.set()
        self.listener.close()


@contextlib.contextmanager
def hostile(**kwargs):
    server = HostileServer(**kwargs)
    try:
        yield server
    finally:
        server.close()


def send_http(sock: socket.socket, body: bytes, head: bytes | None = None) -> None:
    sock.sendall((head or b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                  b"Connection: close\r\n\r\n" % len(body)) + body)


def stream_forever(server: HostileServer, head: bytes, piece: bytes, pause_s: float = 0.0, limit: int = 800 << 20):
    """A describe() that sends ``head`` then ``piece`` again and again until the client hangs up."""
    def describe(sock):
        sock.sendall(head)
        while server.sent < limit:
            sock.sendall(piece)
            server.sent += len(piece)
            if pause_s:
                time.sleep(pause_s)
    return describe


@pytest.mark.parametrize("head, piece", [
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n", b"[" + b"1," * 32767),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"10000\r\n" + b"x" * 65536 + b"\r\n"),
])
def test_a_700_mb_description_is_refused_after_the_cap(head, piece):
    server = HostileServer()
    server.describe = stream_forever(server, head, piece)
    with contextlib.closing(server):
        with pytest.raises(ConnectionError, match=r"over the limit; not read: not a toolgym OpenEnv server") as refused:
            toolgym.remote.make(server.url, "CatAPI-v0", max_answer_bytes=1 << 20)
        assert server.url in str(refused.value)
        time.sleep(0.5)  # let the sender see the closed socket
        assert server.sent < 24 << 20  # the cap (1 MiB) and the kernels' buffers, not 700 MB


def test_a_declared_length_over_the_cap_is_refused_unread():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (700 << 20)
    with hostile(describe=lambda sock: sock.sendall(head + b"{" * 1000)) as server:
        with pytest.raises(ConnectionError, match=r"an answer of 734003200 bytes is over the limit of 33554432"):
            toolgym.remote.make(server.url, "CatAPI-v0")


@pytest.mark.parametrize("head, piece", [
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b"{"),  # the body, a byte at a time
    (b"HTTP/1.1 200 OK\r\n", b"X"),  # the headers never end
    (b"", b"H"),  # nor the status line
])
def test_an_answer_dribbled_a_byte_at_a_time_fails_at_the_deadline(head, piece):
    server = HostileServer()
    server.describe = stream_forever(server, head, piece, pause_s=0.2)
    with contextlib.closing(server):
        with pytest.raises(AnswerTimeout, match=r"no whole answer within 1 s"):
            toolgym.remote.make(server.url, "CatAPI-v0", message_timeout_s=1)
        assert server.sent < 400  # stopped near the deadline, not after the 60 s a per-read timeout allows


@pytest.mark.parametrize("body, says", [
    (b"[1, 2]", "the answer: Input should be a valid dictionary"),
    (b"null", "the answer: Input should be a valid dictionary"),
    (b"{}", "env_id: Field required"),
    (b"not json", "is not JSON"),
    (b"\xff\xfe{}", "is not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nests deeper than 108 levels"),
    (b'{"env_id": ' + b"9" * 5000 + b"}", "is not JSON"),
    (json.dumps({**DESCRIPTION, "task_ids": 5}).encode(), "task_ids: Input should be a valid list"),
    (json.dumps({**DESCRIPTION, "task_ids": [1, 2]}).encode(), "task_ids.0: Input should be a valid string"),
    (json.dumps({**DESCRIPTION, "env_id": ["CatAPI-v0"]}).encode(), "env_id: Input should be a valid string"),
    (json.dumps({**DESCRIPTION, "oracle": "false"}).encode(), "oracle: Input should be a valid boolean"),
    (json.dumps({**DESCRIPTION, "env_kwargs": None}).encode(), "env_kwargs: Input should be a valid dictionary"),
    (json.dumps({k: v for k, v in DESCRIPTION.items() if k != "scoring"}).encode(), "scoring: Field required"),
])
def test_a_description_of_the_wrong_shape_is_a_connection_error_naming_the_field(body, says):
    with hostile(describe=lambda sock: send_http(sock, body)) as server:
        with pytest.raises(ConnectionError) as refused:
            toolgym.remote.make(server.url, "CatAPI-v0")
        assert says in str(refused.value) and f"{server.url}" in str(refused.value)
        assert "not a toolgym OpenEnv server" in str(refused.value)


@pytest.mark.parametrize("answer, says", [
    (result(observation=123), "observation.observation: Input should be a valid string"),
    (result(reward="1.0"), "reward: Input should be a valid number"),
    (result(**{"data.observation.terminated": "false"}), "observation.terminated: Input should be a valid boolean"),
    (result(**{"data.observation.truncated": 0}), "observation.truncated: Input should be a valid boolean"),
    (result(**{"data.observation.info": [1]}), "observation.info: Input should be a valid dictionary"),
    (result(**{"data.done": "no"}), "done: Input should be a valid boolean"),
    (result(**{"data.observation": MISSING}), "observation: Field required"),
    (result(**{"data.reward": None}), "reward: a step's reward is a number (got None)"),
    (result(**{"data": [1, 2]}), "data: Input should be a valid dictionary"),
    (result(**{"type": "nonsense"}), "type: Input should be 'observation', 'state' or 'error'"),
    ([1, 2], "the answer: Input should be a valid dictionary"),
    (None, "the answer: Input should be a valid dictionary"),
    ("[" * 100_000 + "]" * 100_000, "nests deeper than 108 levels"),
    ("{", "is not JSON"),
])
def test_a_step_result_of_the_wrong_types_is_refused_naming_the_field(answer, says):
    def answers(message, sock):
        bad = message["type"] == "step"
        text = answer if bad and isinstance(answer, str) else json.dumps(answer if bad else result())
        sock.sendall(frame(text.encode()))

    with hostile(answer=answers) as server:
        env = toolgym.remote.make(server.url, "CatAPI-v0")
        assert env.reset(seed=0) == ("ok", {"task_id": "1"})
        with pytest.raises(BadAnswer) as refused:  # a ValueError
            env.step("curl x")
        assert says in str(refused.value) and server.url in str(refused.value)
        with pytest.raises(RemoteError, match="the connection was dropped .* reset to start another"):
            env.step("curl x")  # the session went with the connection: no answer of it is trusted again
        assert env.reset(seed=0) == ("ok", {"task_id": "1"}) and server.connections == 2
        env.close()


def test_an_error_answer_of_odd_types_is_a_remote_error():
    def answers(message, sock):
        error = {"type": "error", "data": {"message": ["not", "text"], "code": 5}}
        sock.sendall(frame(json.dumps(error if message["type"] == "step" else result()).encode()))

    with hostile(answer=answers) as server:
        env = toolgym.remote.make(server.url, "CatAPI-v0")
        env.reset()
        with pytest.raises(RemoteError, match="an error without a message"):
            env.step("x")
        env.close()


def test_a_late_answer_is_never_delivered_to_the_next_request():
    """The server answers "slow" only once the next message comes on its connection: the client,
    past its deadline, has dropped that connection, so the late answer never reaches it."""
    held = {}

    def answers(message, sock):
        action = (message.get("data") or {}).get("action")
        if held.get(sock) is not None:  # the late answer first, as a real slow server would send it
            sock.sendall(frame(json.dumps(result(observation=held.pop(sock))).encode()))
        if action == "slow":
            held[sock] = "the answer to slow"
            return
        sock.sendall(frame(json.dumps(result(observation=f"the answer to {action}")).encode()))

    with hostile(answer=answers) as server:
        env = toolgym.remote.make(server.url, "CatAPI-v0", message_timeout_s=1)
        env.reset()
        with pytest.raises(AnswerTimeout, match="no whole answer came within 1 s; the connection was dropped"):
            env.step("slow")
        with pytest.raises(RemoteError, match="connection was dropped"):
            env.step("fast")
        env.reset()
        assert env.step("fast")[0] == "the answer to fast"
        assert env.step("next")[0] == "the answer to next"
        assert server.connections == 2
        env.close()


def test_a_frame_dribbled_a_byte_at_a_time_fails_at_the_deadline():
    server = HostileServer()

    def answers(message, sock):
        if message["type"] != "step":
            return sock.sendall(frame(json.dumps(result()).encode()))
        for byte in frame(b'"' + b"x" * 10_000 + b'"'):
            sock.sendall(bytes([byte]))
            server.sent += 1
            time.sleep(0.2)

    server.answer = answers
    with contextlib.closing(server):
        env = toolgym.remote.make(server.url, "CatAPI-v0", message_timeout_s=1)
        env.reset()
        with pytest.raises(AnswerTimeout):
            env.step("x")
        time.sleep(0.5)
        assert server.sent < 400
        env.close()


def test_a_frame_over_the_cap_is_refused_from_its_header():
    server = HostileServer()

    def answers(message, sock):
        if message["type"] != "step":
            return sock.sendall(frame(json.dumps(result()).encode()))
        sock.sendall(struct.pack(">BBQ", 0x81, 127, 700 << 20))  # a text frame of 700 MB
        while server.sent < 800 << 20:
            sock.sendall(b"x" * 65536)
            server.sent += 65536

    server.answer = answers
    with contextlib.closing(server):
        env = toolgym.remote.make(server.url, "CatAPI-v0", max_answer_bytes=1 << 20)
        env.reset()
        with pytest.raises(ConnectionError, match="message too big|frame exceeds limit|1009"):
            env.step("x")
        time.sleep(0.5)
        assert server.sent < 24 << 20
        env.close()
