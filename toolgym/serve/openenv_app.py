"""``toolgym serve ENV_ID --protocol openenv``: one env per session on OpenEnv's server.

OpenEnv's ``create_fastapi_app`` gives the routes (``/ws`` sessions, ``/reset``, ``/step``,
``/state``, ``/schema``, ``/health``) and the session bookkeeping (a cap on sessions, idle
sessions reaped). What toolgym adds:

- :class:`GymSession`, OpenEnv's ``Environment`` around a gymnasium env made on the session's
  first reset (a connection that never resets costs no env) and closed with the session;
- :class:`ToolgymAction` / :class:`ToolgymObservation`: the action is the text or tool call
  ``env.step`` takes; the observation carries ``observation``, ``reward``, ``terminated``,
  ``truncated`` and the JSON-safe part of ``info``, so an episode over the wire equals the
  local one;
- the limits of :class:`~toolgym.serve.wire.ServeLimits`: an oversized or binary frame is
  answered with an error and skipped, a reset or step past the time limit is answered with an
  error, and one session more than the cap is told the server is full (OpenEnv's
  ``CAPACITY_REACHED``), each without touching the other sessions;
- ``GET /toolgym``: the served env id, its arguments and task ids, for
  :func:`toolgym.remote.make`.
"""

from __future__ import annotations

import asyncio
import functools
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import JsonRpcErrorCode, JsonRpcResponse
from openenv.core.env_server.types import (Action, ConcurrencyConfig, Observation, ResetRequest, State,
                                           WSErrorCode)
from pydantic import Field, ValidationError

from toolgym.registry import make_env
from toolgym.serve.wire import (MAX_JSON_DEPTH, ServeLimits, describe_env, json_depth, json_safe_float, json_safe_info,
                                round_trips, warm_up)
from toolgym.serving import LoopbackHostCheck, is_loopback

#: The error code of a frame over ``max_message_bytes`` (OpenEnv's own codes cover the rest).
MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
CAPACITY_REACHED = WSErrorCode.CAPACITY_REACHED.value


class ToolgymAction(Action):
    """One step's action: the text, or the tool call as a JSON object, that ``env.step`` takes."""

    action: str | dict[str, Any] | list[Any] = Field(description="the action env.step takes: text or a tool call")


class ToolgymObservation(Observation):
    """One reset's or step's result; ``done`` is ``terminated or truncated``."""

    observation: str = Field(default="", description="the env's observation text")
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = Field(default_factory=dict, description="the JSON-safe part of the env's info")
    oracle_action: Any = Field(default=None, description="the oracle's next action (servers run with --oracle)")


class ToolgymReset(ResetRequest):
    """A reset's arguments, checked before the env is touched: OpenEnv's (``seed`` a
    non-negative int, ``episode_id`` a short string) plus toolgym's ``options`` object."""

    options: dict[str, Any] | None = None


class RequestRefused(ValueError):
    """A request the env refuses (an unknown task, option or argument): the client's mistake,
    answered over HTTP with 422 and over a WebSocket with an error message; nothing changed."""


class ToolgymState(State):
    """The session's episode: OpenEnv's counters plus the env id and task."""

    env_id: str
    task_id: str | None = None


@dataclass
class ServedEnv:
    """What every session of one server shares: the env's configuration and the worker threads."""

    env_id: str
    env_kwargs: dict
    limits: ServeLimits
    oracle: bool
    executor: ThreadPoolExecutor


class GymSession(Environment):
    """One session's gymnasium env, made on the first reset and closed with the session.

    Env code runs on the server's shared worker threads, one call at a time per session, each
    bounded by ``step_timeout_s`` from when it starts running (not while it waits for a
    worker): a call past it is answered with a TimeoutError and its env abandoned (closed once
    the call returns); the next reset makes a fresh env.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True
    # Session creation and close are cheap here: one shared thread for them instead of one per session.
    REQUIRES_SINGLE_THREAD_EXECUTOR = True

    def __init__(self, served: ServedEnv):
        super().__init__()
        self._served = served
        self._env = None
        self._abandoned: str | None = None
        self._closed = False
        self._episode_id: str | None = None
        self._step_count = 0

    # -- the env calls, run on a worker thread ------------------------------------------------
    def reset(self, seed: int | None = None, episode_id: str | None = None, options: dict | None = None,
              **unknown: Any) -> ToolgymObservation:
        if unknown:
            raise RequestRefused(f"reset takes seed, options and episode_id, not {', '.join(map(repr, unknown))}")
        # A WebSocket reset gets the checks of HTTP /reset's body; nothing is touched before them.
        ToolgymReset.model_validate({"seed": seed, "episode_id": episode_id, "options": options})
        env = self._env = self._env or make_env(self._served.env_id, self._served.env_kwargs)
        try:
            observation, info = env.reset(seed=seed, options=options)
        except (ValueError, KeyError) as exc:  # the env's word on the options: an unknown task, option, ...
            raise RequestRefused(exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)) from None
        if self._env is env:  # not abandoned meanwhile
            self._abandoned = None
            self._episode_id, self._step_count = episode_id, 0
        return self._result(env, observation, None, False, False, info)

    def step(self, action: ToolgymAction, timeout_s: float | None = None, **kwargs: Any) -> ToolgymObservation:
        if self._env is None and self._abandoned:
            raise RuntimeError(self._abandoned)
        # Before any reset the env itself answers (an observation that says so), as locally.
        env = self._env = self._env or make_env(self._served.env_id, self._served.env_kwargs)
        observation, reward, terminated, truncated, info = env.step(action.action)
        self._step_count += self._env is env
        return self._result(env, observation, reward, terminated, truncated, info)

    def _result(self, env, observation, reward, terminated, truncated, info) -> ToolgymObservation:
        # ``env`` is the env this call ran on: an abandoned call never touches its successor.
        oracle = None
        if self._served.oracle and not (terminated or truncated):
            oracle = env.unwrapped.oracle_action()
            oracle = oracle if round_trips(oracle) else None
        return ToolgymObservation(observation=observation, reward=None if reward is None else json_safe_float(reward),
                                  done=bool(terminated or truncated), terminated=bool(terminated),
                                  truncated=bool(truncated), info=json_safe_info(info), oracle_action=oracle)

    # -- what OpenEnv's server awaits ---------------------------------------------------------
    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          options: dict | None = None, **unknown: Any) -> ToolgymObservation:
        return await self._bounded("reset", functools.partial(self.reset, seed, episode_id, options, **unknown))

    async def step_async(self, action: ToolgymAction, timeout_s: float | None = None,
                         **kwargs: Any) -> ToolgymObservation:
        return await self._bounded("step", functools.partial(self.step, action))

    async def _bounded(self, what: str, call) -> ToolgymObservation:
        if self._closed:
            raise RuntimeError(f"this session was closed after {self._served.limits.idle_timeout_s:g} s without a "
                               f"message; connect again")
        limit = self._served.limits.step_timeout_s
        loop = asyncio.get_running_loop()
        started = loop.create_future()

        def run():
            loop.call_soon_threadsafe(started.set_result, None)
            return call()

        future = loop.run_in_executor(self._served.executor, run)
        # The limit counts from when the call starts: waiting for a free worker is not its time.
        await asyncio.wait({started, future}, return_when=asyncio.FIRST_COMPLETED)
        done, _ = await asyncio.wait({future}, timeout=limit)
        if done:
            return future.result()
        env, self._env = self._env, None
        if env is not None:
            future.add_done_callback(lambda _: self._served.executor.submit(env.close))
        self._abandoned = (f"the last {what} ran past the server's limit of {limit:g} s; its episode was "
                           f"abandoned: reset to start another")
        raise TimeoutError(f"{what} ran past the server's limit of {limit:g} s; its episode was abandoned: reset "
                           f"to start another")

    @property
    def state(self) -> ToolgymState:
        task_id = getattr(self._env.unwrapped, "task_id", None) if self._env is not None else None
        return ToolgymState(episode_id=self._episode_id, step_count=self._step_count, env_id=self._served.env_id,
                            task_id=task_id)

    def close(self) -> None:
        self._closed = True
        env, self._env = self._env, None
        if env is not None:
            env.close()


class MessageLimit:
    """ASGI middleware: the bytes a client sends are counted as they are read, never trusted from a header.

    An HTTP body is read before the app sees it, at most ``max_bytes`` of it, chunked or not: a
    longer one (or a longer declared Content-Length) is answered 413 and the rest is never read.
    A WebSocket frame over ``max_bytes``, binary, not a JSON object or nested too deep to parse
    is answered with an error (in the shape of the route's protocol) and skipped: the session's
    handler never sees it, so the session and its env go on. A connection refused because the
    server is full gets the refusal as the answer to its first message. Closing a socket the
    client has already closed is not an error.
    """

    #: How long a refused connection waits for the client's first message before answering anyway.
    FULL_ANSWER_WAIT_S = 10.0

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            return await self._http(scope, receive, send)
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)

        heard = []  # the client has sent a frame

        async def limited_receive():
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return message
                heard.append(True)
                error = self._frame_problem(message)
                if error is None:
                    return message
                await send({"type": "websocket.send", "text": json.dumps(self._frame_error(scope, *error))})

        async def quiet_send(message):
            if not heard and message["type"] == "websocket.send" and CAPACITY_REACHED in (message.get("text") or ""):
                # OpenEnv refuses a session on connect; a client that has not sent anything yet
                # would find a closed socket. The refusal answers its first message instead.
                with anyio.move_on_after(self.FULL_ANSWER_WAIT_S):
                    if (await receive())["type"] == "websocket.disconnect":
                        return
            try:
                await send(message)
            except OSError:
                # A client that said "close" and hung up first: closing its socket again is moot.
                if message["type"] != "websocket.close":
                    raise

        await self.app(scope, limited_receive, quiet_send)

    def _frame_problem(self, message: dict) -> tuple[str, str] | None:
        """Why a frame is skipped (its message and code), or None to hand it to OpenEnv's handler."""
        text = message.get("text")
        if text is None:
            return "binary frame: send each message as a JSON text frame", "INVALID_JSON"
        if len(text) * 4 > self.max_bytes and len(text.encode()) > self.max_bytes:
            return self._too_large(len(text.encode())), MESSAGE_TOO_LARGE
        if not text.lstrip().startswith("{"):
            # OpenEnv's handler ends the session on JSON that is not an object; answer it here.
            return ('a message is a JSON object: {"type": "reset" | "step" | "state" | "close", "data": {...}}',
                    "INVALID_JSON")
        if json_depth(text) > MAX_JSON_DEPTH:
            # Parsing it would overflow the stack (OpenEnv's handler then ends the session), or
            # the checks and the env after it: refused before any of them.
            return self._too_deep(), "INVALID_JSON"
        return None

    @staticmethod
    def _frame_error(scope, message: str, code: str) -> dict:
        if scope.get("path") == "/mcp":  # OpenEnv's MCP socket speaks JSON-RPC
            return JsonRpcResponse.error_response(JsonRpcErrorCode.PARSE_ERROR, f"{message} ({code})").model_dump()
        return {"type": "error", "data": {"message": message, "code": code}}

    async def _http(self, scope, receive, send):
        length = dict(scope.get("headers") or ()).get(b"content-length", b"0")
        if length.isdigit() and int(length) > self.max_bytes:
            return await self._answer(scope, send, 413, self._too_large(int(length)))
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body ended
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                # Answered without reading the rest; the server closes the connection after it.
                return await self._answer(scope, send, 413, self._too_large(None))
            if not message.get("more_body", False):
                break
        if json_depth(body) > MAX_JSON_DEPTH:
            return await self._answer(scope, send, 400, self._too_deep())
        replayed = []

        async def replay():
            if not replayed:
                replayed.append(True)
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _answer(scope, send, status: int, detail: str) -> None:
        """An HTTP refusal in the route's shape: FastAPI's ``{"detail": ...}``, a JSON-RPC error on ``/mcp``."""
        if scope.get("path") == "/mcp":
            body = JsonRpcResponse.error_response(JsonRpcErrorCode.INVALID_REQUEST, detail).model_dump()
        else:
            body = {"detail": detail}
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})

    @staticmethod
    def _too_deep() -> str:
        return f"the message is nested deeper than {MAX_JSON_DEPTH} levels; it was not read and the session goes on"

    def _too_large(self, size: int | None) -> str:
        what = f"message of {size} bytes" if size is not None else f"message of more than {self.max_bytes} bytes"
        return f"{what} is over the server's limit of {self.max_bytes} bytes; it was not read and the session goes on"


def refuse_unheld_sessions(app: FastAPI) -> None:
    """Make OpenEnv's ``POST /mcp`` refuse ``openenv/session/create`` (and ``close``): a place is held only by a
    live connection.

    OpenEnv keeps a session made over HTTP until its idle time runs out (``session_timeout``, the
    server's 600 s): a few requests would hold every place and lock WebSocket clients out. Such a
    session serves only MCP tool calls, which toolgym's sessions do not have (toolgym's MCP server
    is ``--protocol mcp``), so nothing is lost. Every JSON-RPC error of ``POST /mcp`` is answered
    400 (OpenEnv answers them 200) with the JSON-RPC error as the body.
    """
    route = next(r for r in app.router.routes if getattr(r, "path", None) == "/mcp" and "POST" in getattr(r, "methods", ()))
    openenv_mcp = route.endpoint
    app.router.routes.remove(route)

    @app.post("/mcp", tags=["MCP"], summary="OpenEnv's MCP JSON-RPC endpoint (toolgym's sessions have no MCP tools)")
    async def mcp_endpoint(request: Request):
        try:
            call = json.loads(await request.body())
        except (ValueError, RecursionError):
            call = None
        method = call.get("method") if isinstance(call, dict) else None
        if isinstance(method, str) and method.startswith("openenv/session/"):
            request_id = call.get("id") if type(call.get("id")) in (int, str) else None
            answer = JsonRpcResponse.error_response(
                JsonRpcErrorCode.INVALID_REQUEST, f"{method} is not served over HTTP: a session here lives as long "
                                                  f"as its WebSocket connection (/ws)", request_id=request_id).model_dump()
        else:
            answer = await openenv_mcp(request)
        return JSONResponse(answer, status_code=400 if answer.get("error") else 200)


def answer_refusals(app: FastAPI) -> None:
    """Answer the errors of OpenEnv's HTTP routes (``/reset``, ``/step``) in FastAPI's shape, ``{"detail": ...}``:
    the client's mistakes with 422, a call past the time limit with 504 (OpenEnv lets them be 500s)."""

    @app.exception_handler(RequestRefused)
    async def refused(request, exc: RequestRefused):
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(ValidationError)
    @app.exception_handler(RequestValidationError)
    async def invalid(request, exc: ValidationError | RequestValidationError):
        errors = exc.errors(include_url=False, include_context=False) if isinstance(exc, ValidationError) \
            else exc.errors()
        return JSONResponse({"detail": _without_inputs(errors)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_refusal(request, exc: HTTPException):
        # OpenEnv's /step raises its own 422 with pydantic's errors, the client's values among them
        detail = _without_inputs(exc.detail) if isinstance(exc.detail, list) else exc.detail
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(TimeoutError)
    async def timed_out(request, exc: TimeoutError):
        return JSONResponse({"detail": str(exc)}, status_code=504)


def _without_inputs(errors: list) -> Any:
    """Validation errors without the inputs they quote: a client's Infinity or NaN is no JSON to echo
    back (a 500 otherwise)."""
    return jsonable_encoder([{k: v for k, v in error.items() if k not in ("input", "ctx")}
                             if isinstance(error, dict) else str(error) for error in errors])


def build_app(env_id: str, env_kwargs: dict | None = None, limits: ServeLimits | None = None,
              oracle: bool = False, host: str = "127.0.0.1") -> FastAPI:
    """The OpenEnv app serving ``env_id``.

    Args:
        env_id: A registered toolgym env id.
        env_kwargs: The arguments of every session's env (``tasks``, ``split``, ...).
        limits: Sessions, message size, time per call, idle time, worker threads.
        oracle: Put the oracle's next action in each result (for tests and benchmarks: it
            gives the answer away).
        host: The address the server binds; on loopback, requests whose Host or Origin header
            is not loopback are refused (DNS rebinding), as the MCP server does.

    Raises:
        ValueError: The env id or its arguments are wrong; an env is made once here, so bad
            configuration fails at start, not in a session.
    """
    env_kwargs = dict(env_kwargs or {})
    limits = limits or ServeLimits()
    probe = make_env(env_id, env_kwargs)
    description = {**describe_env(env_id, env_kwargs, probe), "oracle": oracle, "limits": asdict(limits)}
    warm_up(probe)
    probe.close()
    served = ServedEnv(env_id, env_kwargs, limits, oracle,
                       ThreadPoolExecutor(max_workers=limits.workers, thread_name_prefix="toolgym-env"))
    app = create_fastapi_app(functools.partial(GymSession, served), ToolgymAction, ToolgymObservation,
                             concurrency_config=ConcurrencyConfig(max_concurrent_envs=limits.max_sessions,
                                                                  session_timeout=limits.idle_timeout_s))

    @app.get("/toolgym", tags=["Environment Info"], summary="The served toolgym env, its arguments and tasks")
    async def toolgym_description() -> dict:
        return description

    refuse_unheld_sessions(app)
    answer_refusals(app)
    app.add_middleware(MessageLimit, max_bytes=limits.max_message_bytes)
    if is_loopback(host):
        app.add_middleware(LoopbackHostCheck)  # added last: it runs first, before any byte of the body is read
    app.router.on_shutdown.append(lambda: served.executor.shutdown(wait=False))
    return app


def serve(env_id: str, env_kwargs: dict | None = None, host: str = "127.0.0.1", port: int = 8000,
          limits: ServeLimits | None = None, oracle: bool = False) -> None:
    """Run the OpenEnv server of ``env_id`` until interrupted (loopback by default)."""
    import uvicorn

    limits = limits or ServeLimits()
    app = build_app(env_id, env_kwargs, limits, oracle, host)
    print(f"toolgym: serving {env_id} (OpenEnv) at ws://{host}:{port}/ws, at most {limits.max_sessions} sessions",
          flush=True)
    # Frames between max_message_bytes and ws_max_size are answered by MessageLimit; larger
    # ones end the connection with WebSocket close code 1009 (message too big).
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=max(16 << 20, 4 * limits.max_message_bytes))
