"""A gymnasium env whose episodes run on a ``toolgym serve --protocol openenv`` server.

    >>> import toolgym.remote
    >>> env = toolgym.remote.make("http://127.0.0.1:8000", "ToolTalk-v0")
    >>> observation, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    >>> observation, reward, terminated, truncated, info = env.step("...")

The episode equals a local ``gym.make`` one for the same seed and actions: the same
observations, rewards, ``terminated``/``truncated`` and ``info`` (its JSON-safe entries, which
are all of them in toolgym's envs). The connection is OpenEnv's ``EnvClient`` (one WebSocket
session per env); it needs the ``serve`` extra.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import urllib.parse
from typing import Any, Literal

import gymnasium as gym
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from pydantic import BaseModel, ConfigDict, FiniteFloat, ValidationError
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.protocol import CLOSED, CLOSING

from toolgym.envs.common.spaces import TextSpace
from toolgym.serve.wire import MAX_JSON_DEPTH, json_depth

#: The most bytes read for one answer (the description or one result); a longer one is refused.
MAX_ANSWER_BYTES = 32 << 20
#: How deep an answer may nest: the info the server sends (at most MAX_JSON_DEPTH) in its envelope.
MAX_ANSWER_DEPTH = MAX_JSON_DEPTH + 8


class RemoteError(RuntimeError):
    """The server answered a message with an error (full, timed out, closed, refused)."""


class AnswerTimeout(ConnectionError, TimeoutError):
    """No whole answer came within the deadline; the connection was dropped so that the late
    answer can never be taken for the next request's."""


class BadAnswer(ValueError):
    """The server's answer is not what a toolgym server sends (too large, not JSON, too deep,
    a field missing or of the wrong type): the server is not trusted, nothing of it is used."""


class _Answer(BaseModel):
    """What the server says, checked strictly: "false" is no boolean, "1.0" no number."""

    model_config = ConfigDict(strict=True, extra="ignore")


class Description(_Answer):
    """``GET /toolgym``: the served env and its configuration."""

    env_id: str
    env_kwargs: dict[str, Any]
    task_ids: list[str]
    task_set: str
    split: str | None
    scoring: str
    mode: str | None
    oracle: bool
    tasks_provenance: dict[str, str | None] | None = None  # None: a server from before toolgym recorded it


class ResultObservation(_Answer):
    observation: str
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    oracle_action: Any = None


class Envelope(_Answer):
    """Every OpenEnv message: ``{"type": ..., "data": {...}}``."""

    type: Literal["observation", "state", "error"]
    data: dict[str, Any]


class Result(_Answer):
    """One reset's or step's answer (OpenEnv's envelope around :class:`ResultObservation`)."""

    observation: ResultObservation
    reward: FiniteFloat | None
    done: bool


def parse(raw: str | bytes, url: str, what: str) -> Any:
    """``raw`` read as JSON, refused first if it nests deeper than :data:`MAX_ANSWER_DEPTH`.

    Raises:
        BadAnswer: It is not JSON or nests too deep (the message names the URL).
    """
    if json_depth(raw) > MAX_ANSWER_DEPTH:
        raise BadAnswer(f"{url}: the answer to {what} nests deeper than {MAX_ANSWER_DEPTH} levels; not read")
    try:
        return json.loads(raw)
    except ValueError as exc:  # not JSON, not UTF-8, an integer of too many digits
        raise BadAnswer(f"{url}: the answer to {what} is not JSON ({exc})") from None


def checked(model: type[_Answer], value: Any, url: str, what: str) -> Any:
    """``value`` checked against ``model``.

    Raises:
        BadAnswer: A field is missing or of the wrong type (the message names the URL and the field).
    """
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(map(str, error["loc"])) or "the answer"
        shown = repr(error.get("input"))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise BadAnswer(f"{url}: the answer to {what} is not a toolgym server's: {field}: {error['msg']} "
                        f"(got {shown})") from None


class _AbortOnFailure(ClientConnection):
    """A WebSocket connection that is aborted once it is closing: after a frame over
    ``max_size`` (refused from its header) the library would read and drop whatever the
    server goes on sending until it closes, so the bytes read would have no bound."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.protocol.state in (CLOSING, CLOSED):
            self.transport.abort()


def _is_loopback_url(url: str) -> bool:
    return (urllib.parse.urlsplit(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


class ToolgymClient(EnvClient[Any, Result, dict]):
    """OpenEnv's async client for a toolgym server, with the server treated as untrusted input.

    Each answer is read whole within ``message_timeout_s`` (one deadline per answer, however it
    trickles in) and at most ``max_answer_bytes`` of it (the socket refuses a longer frame from
    its header), then checked (:class:`Result`). After an answer that did not come, or that is
    refused, the connection is dropped: the next request goes on a fresh one, so an answer can
    never be taken for a later request's.
    """

    def __init__(self, base_url: str, message_timeout_s: float = 60.0, max_answer_bytes: int = MAX_ANSWER_BYTES):
        super().__init__(base_url=base_url, message_timeout_s=message_timeout_s,
                         max_message_size_mb=max_answer_bytes / (1 << 20))
        self.url = base_url
        #: Why the last connection was dropped (None while it holds); the session went with it.
        self.dropped: str | None = None

    async def connect(self) -> ToolgymClient:
        """Open the session's socket (OpenEnv's, with these changes): no compression (a small
        frame cannot inflate), no proxy for a loopback server, and the connection aborted as
        soon as it fails (see :class:`_AbortOnFailure`)."""
        if self._ws is None:
            self.dropped = None
            try:
                self._ws = await ws_connect(self._ws_url, open_timeout=self._connect_timeout,
                                            max_size=self._max_message_size, compression=None,
                                            proxy=None if _is_loopback_url(self._ws_url) else True,
                                            create_connection=_AbortOnFailure)
            except Exception as exc:  # noqa: BLE001 - refused, unreachable, a bad handshake, too slow
                raise ConnectionError(f"{self.url}: cannot open a session at {self._ws_url}: {exc}") from None
        return self

    async def _receive(self) -> dict[str, Any]:
        assert self._ws is not None
        try:
            raw = await asyncio.wait_for(self._ws.recv(), timeout=self._message_timeout)
        except asyncio.TimeoutError:
            self.drop(f"no whole answer came within {self._message_timeout:g} s")
            raise AnswerTimeout(f"{self.url}: no whole answer came within {self._message_timeout:g} s; the "
                                f"connection was dropped (a late answer is never taken for the next one)") from None
        except Exception as exc:  # noqa: BLE001 - the socket refused the frame (over max_size, ...) or closed
            self.drop(f"the connection failed ({exc})")
            raise ConnectionError(f"{self.url}: the connection failed: {exc}") from None
        try:
            envelope = checked(Envelope, parse(raw, self.url, "a message"), self.url, "a message")
        except BadAnswer:
            self.drop("an answer was not an OpenEnv message")
            raise
        if envelope.type == "error":
            message, code = envelope.data.get("message"), envelope.data.get("code")
            message = message[:2000] if isinstance(message, str) else "an error without a message"
            raise RemoteError(f"{self.url}: {message} (code: {code[:100] if isinstance(code, str) else '?'})")
        return envelope.model_dump()

    def drop(self, why: str) -> None:
        """Abort the connection at once (a closing handshake would wait on the server); the session goes with it."""
        ws, self._ws = self._ws, None
        self.dropped = why
        if ws is not None:
            ws.transport.abort()

    def _step_payload(self, action: Any) -> dict:
        return {"action": action}

    def _parse_result(self, payload: dict) -> StepResult[Result]:
        try:
            result = checked(Result, payload, self.url, "a reset or step")
        except BadAnswer:
            self.drop("an answer was not a toolgym result")
            raise
        return StepResult(observation=result, reward=result.reward, done=result.done)

    def _parse_state(self, payload: dict) -> dict:
        return payload


def fetch(url: str, timeout_s: float, max_bytes: int = MAX_ANSWER_BYTES) -> bytes:
    """The body of ``GET url``: at most ``max_bytes`` of it, all of it within ``timeout_s``.

    The deadline is for the whole answer (a watchdog shuts the socket at it), so a server that
    trickles one byte a second cannot hold the caller past it.

    Raises:
        ConnectionError: Nothing answers, the status is not 200, or the connection fails.
        AnswerTimeout: The whole answer did not come within ``timeout_s``.
        BadAnswer: The answer is longer than ``max_bytes``.
    """
    parts = urllib.parse.urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_class(parts.hostname, parts.port, timeout=timeout_s)
    expired = threading.Event()
    opened: list[socket.socket] = []  # http.client lets go of connection.sock once a response says close

    def expire():
        expired.set()
        for sock in opened:  # before the connection is made, its own timeout bounds connect()
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(timeout_s, expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.connect()
        opened.append(connection.sock)
        if expired.is_set():
            raise TimeoutError
        connection.request("GET", parts.path or "/", headers={"Accept": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            raise ConnectionError(f"{url}: answered {response.status} {response.reason}")
        if response.length is not None and response.length > max_bytes:
            raise BadAnswer(f"{url}: an answer of {response.length} bytes is over the limit of {max_bytes}; not read")
        body = bytearray()
        while chunk := response.read1(1 << 16):
            body += chunk
            if len(body) > max_bytes:
                raise BadAnswer(f"{url}: an answer of more than {max_bytes} bytes is over the limit; not read")
        if expired.is_set():
            raise TimeoutError
        return bytes(body)
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise AnswerTimeout(f"{url}: no whole answer within {timeout_s:g} s") from None
        if isinstance(exc, ConnectionError) and str(exc).startswith(url):
            raise
        raise ConnectionError(f"{url}: {exc or type(exc).__name__}") from None
    finally:
        watchdog.cancel()
        connection.close()


def describe(url: str, timeout_s: float = 10.0, max_bytes: int = MAX_ANSWER_BYTES) -> dict:
    """The server's ``GET /toolgym``: env id, arguments, task ids, limits, checked (:class:`Description`).

    Raises:
        ConnectionError: Nothing answers at ``url``, or it is not a toolgym server (no whole
            answer within ``timeout_s``, one over ``max_bytes``, or one of the wrong shape:
            the message names the field).
    """
    address = url.rstrip("/").replace("ws://", "http://", 1).replace("wss://", "https://", 1)
    try:
        raw = fetch(f"{address}/toolgym", timeout_s, max_bytes)
    except BadAnswer as exc:
        raise ConnectionError(f"{exc}: not a toolgym OpenEnv server") from None
    except AnswerTimeout:
        raise
    except ConnectionError as exc:
        raise ConnectionError(f"{url}: no toolgym OpenEnv server answers there ({exc}); start one with "
                              f"`toolgym serve ENV_ID --protocol openenv --port PORT`") from exc
    try:
        return checked(Description, parse(raw, url, "GET /toolgym"), url, "GET /toolgym").model_dump()
    except BadAnswer as exc:
        raise ConnectionError(f"{exc}; not a toolgym OpenEnv server") from None


class RemoteEnv(gym.Env):
    """A served env's session as a gymnasium env; :func:`make` builds it.

    ``task_ids()``, ``env_id``, ``task_set``, ``split``, ``scoring``, ``mode`` and
    ``table_columns`` are the served env's, so ``toolgym eval --env-url`` runs the local
    evaluator unchanged; ``oracle_action()`` works when the server runs with ``--oracle``.
    """

    metadata = {"render_modes": []}

    def __init__(self, url: str, description: dict, message_timeout_s: float = 60.0,
                 max_answer_bytes: int = MAX_ANSWER_BYTES):
        from toolgym.registry import env_class

        self.url = url
        self.env_id = description["env_id"]
        self.task_set, self.split = description["task_set"], description["split"]
        self.scoring, self.mode = description["scoring"], description["mode"]
        self.data_dir = None
        self.table_columns = env_class(self.env_id).table_columns
        self._task_ids = list(description["task_ids"])
        self._oracle_served = description["oracle"]
        self._tasks_provenance = description.get("tasks_provenance")
        self._oracle_action = None
        self.task_id = None
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self._connection = ToolgymClient(url, message_timeout_s, max_answer_bytes)
        self._client = self._connection.sync()

    def tasks_provenance(self) -> dict:
        """The served env's task data (its ``tasks_provenance``), as the server described it."""
        return dict(self._tasks_provenance or {"tasks_source": self.task_set, "tasks_digest": None})

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Reset the served env; an argument it refuses raises ValueError with the server's message."""
        super().reset(seed=seed)
        data = {key: value for key, value in (("seed", seed), ("options", options)) if value is not None}
        try:
            result, _ = self._call(self._client.reset, **data)
        except RemoteError as exc:
            raise ValueError(str(exc)) from None
        self.task_id = result.info.get("task_id")
        return result.observation, result.info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        """Step the served env.

        Raises:
            RemoteError: The server answered with an error, or the session was lost with a
                dropped connection (reset starts another).
            AnswerTimeout, ConnectionError: No whole answer in time; the connection failed.
            BadAnswer: The answer is not a toolgym server's (a field missing or of the wrong type).
        """
        if self._connection.dropped:
            raise RemoteError(f"{self.url}: the connection was dropped ({self._connection.dropped}) and its session "
                              f"and episode with it; reset to start another")
        result, reward = self._call(self._client.step, action)
        if reward is None:
            self._connection.drop("a step's answer had no reward")
            raise BadAnswer(f"{self.url}: the answer to a step is not a toolgym server's: reward: a step's reward "
                            f"is a number (got None)")
        return result.observation, reward, result.terminated, result.truncated, result.info

    def oracle_action(self) -> Any:
        """The oracle's next action, as the server sent it with the last result."""
        if not self._oracle_served:
            raise ValueError(f"{self.url} does not send the oracle's actions: start the server with --oracle")
        return self._oracle_action

    def _call(self, method, *args, **kwargs) -> tuple[ResultObservation, float | None]:
        answer = method(*args, **kwargs).observation
        self._oracle_action = answer.observation.oracle_action
        return answer.observation, answer.reward

    def close(self) -> None:
        self._client.close()


def make(url: str, env_id: str, message_timeout_s: float = 60.0, max_answer_bytes: int = MAX_ANSWER_BYTES,
         **kwargs: Any) -> RemoteEnv:
    """A session with the server at ``url``, checked to serve ``env_id`` with ``kwargs``.

    The server's env arguments are set when it starts (``toolgym serve ENV_ID --split ...``);
    ``kwargs`` are checked against them, not sent, so a client cannot make the server read
    files or build worlds of its choosing.

    The server is untrusted input: every answer is read within ``message_timeout_s`` (for the
    whole answer, not per read), at most ``max_answer_bytes`` of it, and checked field by field.

    Raises:
        ConnectionError: No toolgym server at ``url`` (or one whose description is too large,
            too slow or of the wrong shape).
        ValueError: The server serves another env, or the same env with other arguments.
    """
    description = describe(url, min(message_timeout_s, 10.0), max_answer_bytes)
    if description["env_id"] != env_id:
        raise ValueError(f"{url} serves {description['env_id']}, not {env_id}")
    served = {"tasks": description["task_set"], "split": description["split"], "scoring": description["scoring"],
              "mode": description["mode"], **description["env_kwargs"]}
    different = {key: (value, served.get(key)) for key, value in kwargs.items() if served.get(key) != value}
    if different:
        details = ", ".join(f"{key}={want!r} (server: {have!r})" for key, (want, have) in different.items())
        raise ValueError(f"{url} serves {env_id} with other arguments: {details}; start a server with them")
    return RemoteEnv(url, description, message_timeout_s, max_answer_bytes)
