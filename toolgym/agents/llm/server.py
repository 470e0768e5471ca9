"""A small OpenAI-compatible server over a :class:`TransformersBackend` (standard library and pydantic).

For local runs and tests where vLLM or ``transformers serve`` are not available::

    python -m toolgym.agents.llm.server MODEL_OR_PATH --port 8000 --max-batch 8

Serves ``GET /v1/models``, ``GET /health`` and ``POST /v1/chat/completions`` (non-streaming).
Concurrent requests are gathered into one batched ``generate`` call (up to ``--max-batch``, all
with the same decoding settings). Answers carry ``usage``, ``logprobs.content`` and vLLM's
``prompt_token_ids`` / ``choices[0].token_ids``; when the request offers ``tools`` and the
output is a tool call, it is returned as ``tool_calls``.

Limits (each refusal is an OpenAI-shaped error, ``{"error": {"message", "type", "param", "code"}}``):

- every request field is validated (:class:`ChatCompletionRequest`); a bad one is a 400 that
  names it. ``temperature`` defaults to 0 (greedy) and ``max_tokens`` to 256;
- a body over ``--max-body-bytes`` (4 MiB) is a 413, read no further; a missing or malformed
  ``Content-Length`` is a 411 or 400; a client has ``ChatHandler.timeout`` (30 s) to send it;
- ``max_tokens`` over ``--max-tokens-limit`` (4096) is a 400, and so is a prompt that does not
  fit the model's context together with its ``max_tokens`` (``context_length_exceeded``);
- at most ``--max-queue`` (64) requests wait for the generator; more are a 503 with ``Retry-After``;
- at most ``--max-connections`` (``max_queue + max_batch + 16``) connections are served at once and
  the listen backlog holds as many; one more is answered with a 503 and ``Retry-After`` right away,
  never left to a reset (:class:`toolgym.serving.BoundedHTTPServer`);
- a ``model`` other than the served one is a 404 (``model_not_found``);
- with ``--api-key`` (or ``$TOOLGYM_SERVER_API_KEY``) every route but ``/health`` wants
  ``Authorization: Bearer KEY`` (401 otherwise). A key is required to bind an address that is
  not loopback: the server refuses to start without one.

A request that fails inside the generator (its batch raised) is answered with a 500; the
generator goes on with the next batch. A request whose client hangs up while it waits (a client
that timed out and will retry) is dropped before it is generated, so that a slow server's
retried requests do not pile up behind the abandoned ones.

``main`` logs each request on stderr (``--quiet`` silences it): a line when it arrives (how many
wait before it) and one when it is answered or dropped (status, seconds, tokens). ``--threads``
sets torch's CPU threads (on a busy machine fewer threads than cores is faster).
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import queue
import select
import socket
import sys
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolgym.llm.backends import BackendError, ChatRequest, SamplingParams, TransformersBackend
from toolgym.llm.backends.common import DEFAULT_MAX_NEW_TOKENS
from toolgym.agents.llm.parsers import parse_tool_call
from toolgym.serving import (RETRY_AFTER_S, BoundedHandler, BoundedHTTPServer, HttpError, content_length,
                             is_loopback)

API_KEY_ENV = "TOOLGYM_SERVER_API_KEY"
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
DEFAULT_MAX_TOKENS_LIMIT = 4096
DEFAULT_MAX_TOKENS = 256
DEFAULT_MAX_QUEUE = 64
CLIENT_CHECK_S = 0.5  # how often a waiting request checks whether its client hung up
MAX_STOP_CHARS = 256  # longer stop strings make transformers' stop-string tables needlessly large
ERROR_MESSAGE_CHARS = 500


class ApiError(HttpError):
    """A request the server answers with an error status instead of a completion."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(status, message, headers)
        self.param = param
        self.code = code

    def body(self) -> dict:
        """OpenAI's error shape."""
        kind = ("authentication_error" if self.status == 401 else "server_error" if self.status >= 500
                else "invalid_request_error")
        return {"error": {"message": self.message[:ERROR_MESSAGE_CHARS], "type": kind, "param": self.param,
                          "code": self.code}}


# -- the request schema ----------------------------------------------------------------------
class _Strict(BaseModel):
    # strict: "seed": "1" or true is an error, not a silent conversion; NaN and inf are refused.
    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False)


class FunctionCall(_Strict):
    name: str = Field(min_length=1)
    arguments: str


class ToolCall(_Strict):
    id: str | None = None
    type: Literal["function"] = "function"
    function: FunctionCall


class Message(_Strict):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: list[ToolCall] | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _join_text_parts(cls, value: Any) -> Any:
        """OpenAI's content parts, ``[{"type": "text", "text": ...}]``, as one string."""
        if not isinstance(value, list):
            return value
        if not all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in value):
            raise ValueError('content parts must be {"type": "text", "text": "..."} (only text is supported)')
        return "".join(p["text"] for p in value)

    @model_validator(mode="after")
    def _has_content(self) -> Message:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages have tool_calls")
        if self.content is None and not self.tool_calls:
            raise ValueError(f"a {self.role} message needs content" + (" or tool_calls" if self.role == "assistant"
                                                                         else ""))
        return self


class FunctionDefinition(_Strict):
    model_config = ConfigDict(extra="allow")  # schema keywords (strict, ...) reach the chat template as sent
    name: str = Field(min_length=1, max_length=256)
    description: str | None = None
    parameters: dict[str, Any] | None = None


class Tool(_Strict):
    type: Literal["function"]
    function: FunctionDefinition


StopString = Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]


class ChatCompletionRequest(_Strict):
    """The fields of ``POST /v1/chat/completions`` this server reads (others are ignored)."""

    model: str | None = None
    messages: list[Message] = Field(min_length=1)
    tools: list[Tool] | None = None
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    stop: list[StopString] | None = Field(None, max_length=4)
    seed: int | None = Field(None, ge=-(2 ** 63), le=2 ** 64 - 1)  # what torch.manual_seed takes
    logprobs: bool | None = None
    n: Literal[1] | None = None
    stream: Literal[False] | None = None

    @field_validator("stop", mode="before")
    @classmethod
    def _one_stop_string(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def requested_tokens(self) -> int | None:
        return self.max_completion_tokens if self.max_completion_tokens is not None else self.max_tokens

    def sampling(self, default_max_tokens: int) -> SamplingParams:
        return SamplingParams(temperature=self.temperature or 0.0,
                              top_p=self.top_p if self.top_p is not None else 1.0,
                              max_new_tokens=self.requested_tokens() or default_max_tokens,
                              stop=tuple(self.stop or ()), seed=self.seed)

    def chat_request(self) -> ChatRequest:
        return ChatRequest(messages=[m.model_dump(exclude_unset=True) for m in self.messages],
                           tools=[t.model_dump(exclude_unset=True) for t in self.tools] if self.tools else None)


def parse_chat_request(body: bytes) -> ChatCompletionRequest:
    """The validated request, or an ApiError (400) naming the first field that is wrong."""
    try:
        return ChatCompletionRequest.model_validate_json(body)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        if error["type"] == "json_invalid":
            raise ApiError(400, f"the body is not valid JSON: {error['msg'].removeprefix('Invalid JSON: ')}") from None
        if not error["loc"]:
            raise ApiError(400, "the body must be a JSON object") from None
        param = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ApiError(400, f"{param}: {error['msg'].removeprefix('Value error, ')}{more}", param=param) from None


# -- generation ------------------------------------------------------------------------------
@dataclass
class _Pending:
    request: ChatRequest
    sampling: SamplingParams
    future: Future
    prompt_ids: list[int] | None = None


def _fail(future: Future, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


class BatchingGenerator:
    """Collects requests from handler threads and runs them through the backend in batches.

    Args:
        backend: A :class:`TransformersBackend` (or anything with ``generate``; with ``encode``
            and ``context_length`` too, prompts are measured against the context).
        max_batch: Requests per ``generate`` call.
        wait_s: How long the first request of a batch waits for others.
        max_queue: Requests that may wait; :meth:`submit` refuses more with a 503.
    """

    def __init__(self, backend, max_batch: int = 8, wait_s: float = 0.01, max_queue: int = DEFAULT_MAX_QUEUE):
        if max_queue < 1:
            raise ValueError(f"max_queue must be at least 1, got {max_queue}")  # a 0 would mean no limit at all
        self.backend = backend
        self.max_batch = max_batch
        self.wait_s = wait_s
        self.max_queue = max_queue
        self.batch_sizes: list[int] = []
        self._queue: queue.Queue[_Pending] = queue.Queue(maxsize=max_queue)
        threading.Thread(target=self._loop, daemon=True, name="toolgym-batching").start()

    def submit(self, request: ChatRequest, sampling: SamplingParams) -> Future:
        """A future for the request's :class:`Completion`; ApiError 503 when the queue is full."""
        future: Future = Future()
        try:
            self._queue.put_nowait(_Pending(request, sampling, future))
        except queue.Full:
            raise ApiError(503, f"the server is busy ({self.max_queue} requests are waiting); retry later",
                           code="server_busy", headers={"Retry-After": str(RETRY_AFTER_S)}) from None
        return future

    def _loop(self) -> None:
        while True:
            items = [self._queue.get()]
            deadline = time.monotonic() + self.wait_s
            while len(items) < self.max_batch:
                try:
                    items.append(self._queue.get(timeout=max(0.0, deadline - time.monotonic())))
                except queue.Empty:
                    break
            try:
                self._run(items)
            except Exception as exc:  # noqa: BLE001 - these requests get a 500; the loop goes on
                for item in items:
                    _fail(item.future, exc)

    def waiting(self) -> int:
        """Requests queued for the generator now (those of the batch being generated left out)."""
        return self._queue.qsize()

    def _run(self, items: list[_Pending]) -> None:
        groups: dict[SamplingParams, list[_Pending]] = {}
        # a request whose client hung up while it waited was cancelled: it is not generated
        items = [item for item in items if item.future.set_running_or_notify_cancel()]
        for item in items:
            try:
                item.prompt_ids = self._measure(item)
            except Exception as exc:  # noqa: BLE001 - one bad request fails alone
                _fail(item.future, exc)
                continue
            groups.setdefault(item.sampling, []).append(item)
        for sampling, group in groups.items():
            self.batch_sizes.append(len(group))
            try:
                requests = [g.request for g in group]
                if hasattr(self.backend, "encode"):
                    results = self.backend.generate(requests, sampling, prompt_ids=[g.prompt_ids for g in group])
                else:
                    results = self.backend.generate(requests, sampling)
                if len(results) != len(group):
                    raise RuntimeError(f"the backend returned {len(results)} completions for {len(group)} requests")
            except Exception as exc:  # noqa: BLE001 - each waiting request gets a 500
                for g in group:
                    _fail(g.future, exc)
                continue
            for g, result in zip(group, results):
                if not g.future.done():
                    g.future.set_result(result)

    def _measure(self, item: _Pending) -> list[int] | None:
        """The prompt's token ids, checked against the model's context (None: backend cannot say)."""
        if not hasattr(self.backend, "encode"):
            return None
        try:
            ids = self.backend.encode(item.request)
        except Exception as exc:  # noqa: BLE001 - the chat template rejected the messages
            raise ApiError(400, f"the messages cannot be put through the model's chat template: {exc}",
                           param="messages") from None
        context = getattr(self.backend, "context_length", None)
        wanted = item.sampling.max_new_tokens or DEFAULT_MAX_NEW_TOKENS  # the local backend's limit when none is named
        if context and len(ids) + wanted > context:
            raise ApiError(400, f"This model's maximum context length is {context} tokens; the messages take "
                                f"{len(ids)} and max_tokens asks for {wanted} more", param="messages",
                           code="context_length_exceeded")
        return ids


# -- HTTP ------------------------------------------------------------------------------------
class ChatServer(BoundedHTTPServer):
    """A bounded threading HTTP server with the generator and the limits the handler reads."""

    def __init__(self, address: tuple[str, int], handler: type[BoundedHandler],
                 generator: BatchingGenerator, model_name: str, api_key: str | None, max_body_bytes: int,
                 max_tokens_limit: int, max_connections: int, log=None):
        self.generator = generator
        self.log_file = log  # a text stream for one line per request arriving and answered; None: quiet
        self._log_lock = threading.Lock()
        self._requests = 0
        self.model_name = model_name
        self.api_key = api_key
        self.max_body_bytes = max_body_bytes
        self.max_tokens_limit = max_tokens_limit
        super().__init__(address, handler, max_connections)

    def log(self, text: str) -> None:
        """One line on the log stream, with the time (nothing without one)."""
        if self.log_file is not None:
            with self._log_lock:
                print(f"{time.strftime('%H:%M:%S')} {text}", file=self.log_file, flush=True)

    def next_request_number(self) -> int:
        with self._log_lock:
            self._requests += 1
            return self._requests


class ChatHandler(BoundedHandler):
    """The HTTP side of :class:`ChatServer`."""

    protocol_version = "HTTP/1.1"
    timeout = 30.0  # seconds a client may stay silent (sending a body, or idle between requests)
    linger_s = 5.0  # seconds spent draining a refused body before closing the connection
    server: ChatServer

    def log_message(self, format, *args):  # http.server's lines: the server logs chat requests itself (log=)
        pass

    def _reply(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client has gone; nothing to tell it
            self.close_connection = True

    def _reply_error(self, error: ApiError) -> None:
        self._reply(error.status, error.body(), error.headers)

    def refuse_busy(self) -> None:
        self._reply_error(ApiError(503, f"the server is busy ({self.server.max_connections} connections are being "
                                        "served); retry later", code="server_busy",
                                   headers={"Retry-After": str(RETRY_AFTER_S)}))

    def _authorize(self) -> None:
        key = self.server.api_key
        if key is None:
            return
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        if not (scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), key.encode())):
            raise ApiError(401, "a valid API key is required, as a bearer token in the Authorization header",
                           code="invalid_api_key", headers={"WWW-Authenticate": "Bearer"})

    def serves(self, model: str) -> bool:
        """Whether a request's ``model`` names the served model."""
        return model == self.server.model_name

    def do_GET(self):
        try:
            if self.path == "/health":
                self._reply(200, {"status": "ok"})
                return
            self._authorize()
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._reply(200, {"object": "list", "data": [{"id": self.server.model_name, "object": "model"}]})
            else:
                raise ApiError(404, f"no route {self.path[:200]}")
        except ApiError as exc:
            self._reply_error(exc)

    def declared_length(self) -> int:
        """The body's Content-Length (ApiError when it is missing or not one non-negative integer)."""
        try:
            return content_length(self, sys.maxsize)  # the size limit is read_body's, with its own message
        except HttpError as error:
            raise ApiError(error.status, error.message) from None

    def read_body(self) -> bytes:
        """The request body, within the server's size limit (ApiError otherwise)."""
        length = self.declared_length()
        if length > self.server.max_body_bytes:
            raise ApiError(413, f"the body is {length} bytes; this server takes at most "
                                f"{self.server.max_body_bytes} (--max-body-bytes)")
        body = self.rfile.read(length)
        if len(body) < length:
            raise ConnectionError("the client closed the connection before sending the whole body")
        return body

    def discard_body(self) -> None:
        """Reads and drops an unread body for at most ``linger_s`` seconds, 64 KiB at a time, so
        that a client still sending it reads the error instead of a reset connection."""
        try:
            remaining = self.declared_length()
        except ApiError:
            return
        deadline = time.monotonic() + self.linger_s
        try:
            while remaining > 0 and (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                chunk = self.rfile.read1(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
        except OSError:  # timed out or gone: the connection closes either way
            pass

    def do_POST(self):
        # Until the body is read, an error leaves bytes on the connection that are not a request.
        keep_alive, self.close_connection = not self.close_connection, True
        body_read = False
        try:
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                raise ApiError(404, f"no route {self.path[:200]}")
            self._authorize()
            body = self.read_body()
            body_read, self.close_connection = True, not keep_alive
            request = parse_chat_request(body)
            if request.model is not None and not self.serves(request.model):
                raise ApiError(404, f"The model `{request.model[:200]}` does not exist; this server serves "
                                    f"`{self.server.model_name}`", param="model", code="model_not_found")
            wanted = request.requested_tokens()
            if wanted is not None and wanted > self.server.max_tokens_limit:
                param = "max_completion_tokens" if request.max_completion_tokens is not None else "max_tokens"
                raise ApiError(400, f"{param} is {wanted}; this server allows at most {self.server.max_tokens_limit} "
                                    "(--max-tokens-limit)", param=param)
            self._reply(200, self.complete(request))
        except ApiError as exc:
            self._reply_error(exc)
            if not body_read:
                self.discard_body()
        except ConnectionError:
            self.close_connection = True

    def _wait(self, future: Future):
        """The future's completion; ConnectionError when the client hangs up before the generator
        takes the request (the request is then cancelled and never generated). A request already
        being generated is waited for: its batch goes on for the other clients."""
        while True:
            try:
                return future.result(timeout=CLIENT_CHECK_S)
            except TimeoutError:
                if self._client_gone() and future.cancel():
                    raise ConnectionError("the client hung up") from None

    def _client_gone(self) -> bool:
        """Whether the client closed its connection (readable with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def complete(self, request: ChatCompletionRequest) -> dict:
        """The chat completion for a validated request (ApiError when it cannot be made; a
        ConnectionError when the client hung up before it was generated)."""
        chat = request.chat_request()
        sampling = request.sampling(DEFAULT_MAX_TOKENS)
        number, started = self.server.next_request_number(), time.monotonic()
        self.server.log(f"request {number} from {self.client_address[0]}: {len(chat.messages)} message(s), "
                        f"max_tokens {sampling.max_new_tokens}, {self.server.generator.waiting()} waiting before it")
        future = self.server.generator.submit(chat, sampling)
        try:
            result = self._wait(future)
        except ConnectionError:
            self.server.log(f"request {number} dropped after {time.monotonic() - started:.1f}s: the client hung up "
                            f"before it was generated")
            raise
        except ApiError as exc:
            self.server.log(f"request {number} answered {exc.status} after {time.monotonic() - started:.1f}s: "
                            f"{exc.message[:200]}")
            raise
        except Exception as exc:  # noqa: BLE001 - the batch failed: a 500 that says why
            self.server.log(f"request {number} answered 500 after {time.monotonic() - started:.1f}s: "
                            f"{type(exc).__name__}")
            raise ApiError(500, f"generation failed: {type(exc).__name__}: {exc}") from None
        self.server.log(f"request {number} answered 200 after {time.monotonic() - started:.1f}s: "
                        f"{result.prompt_tokens} prompt + {result.completion_tokens} completion tokens")
        message: dict = {"role": "assistant", "content": result.text}
        if chat.tools:
            names = [t["function"]["name"] for t in chat.tools]
            calls = [c for c in parse_tool_call(result.text, (), names) if isinstance(c, dict)]
            if calls:
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                     "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in calls]}
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message
                  else result.finish_reason, "token_ids": result.completion_token_ids}
        if request.logprobs:
            choice["logprobs"] = {"content": [{"token": str(t), "logprob": lp} for t, lp in
                                              zip(result.completion_token_ids or [], result.logprobs or [])]}
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.server.model_name, "choices": [choice], "prompt_token_ids": result.prompt_token_ids,
                "usage": {"prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
                          "total_tokens": result.prompt_tokens + result.completion_tokens}}


def make_server(backend, host: str = "127.0.0.1", port: int = 0, max_batch: int = 8, model_name: str | None = None,
                handler: type[BoundedHandler] = ChatHandler, api_key: str | None = None,
                max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, max_tokens_limit: int = DEFAULT_MAX_TOKENS_LIMIT,
                max_queue: int = DEFAULT_MAX_QUEUE, max_connections: int | None = None, log=None) -> ChatServer:
    """A bound server (call ``serve_forever``). Without ``api_key``, ``host`` must be loopback (ValueError).

    ``max_connections`` (default ``max_queue + max_batch + 16``: every waiting and generating
    request, and room for ``/health``) is also the listen backlog. ``log`` (a text stream) gets
    a line per chat request arriving and answered."""
    if not api_key and not is_loopback(host):
        raise ValueError(f"serving on {host or 'every address'!r} needs an API key: pass --api-key or set "
                         f"${API_KEY_ENV} (without one, only a loopback address such as 127.0.0.1)")
    generator = BatchingGenerator(backend, max_batch=max_batch, max_queue=max_queue)
    return ChatServer((host, port), handler, generator, model_name or getattr(backend, "model_id", "model"),
                      api_key or None, max_body_bytes, max_tokens_limit,
                      max_connections or max_queue + max_batch + 16, log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolgym.agents.llm.server", description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--host", default="127.0.0.1", help="an address other than loopback needs --api-key")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--max-batch", type=int, default=8)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="CPU threads for torch (default: torch's, every core; on a busy machine fewer is faster)")
    parser.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--api-key", default=os.environ.get(API_KEY_ENV),
                        help=f"clients must send it as a bearer token (default: ${API_KEY_ENV})")
    parser.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES)
    parser.add_argument("--max-tokens-limit", type=int, default=DEFAULT_MAX_TOKENS_LIMIT,
                        help="the largest max_tokens a request may ask for")
    parser.add_argument("--max-queue", type=int, default=DEFAULT_MAX_QUEUE,
                        help="requests that may wait for the generator; more are answered 503")
    parser.add_argument("--max-connections", type=int,
                        help="connections served at once, also the listen backlog; more are answered 503 "
                             "(default: max-queue + max-batch + 16)")
    args = parser.parse_args(argv)
    if not args.api_key and not is_loopback(args.host):  # before loading a model that may take minutes
        print(f"error: serving on {args.host!r} needs an API key: pass --api-key or set ${API_KEY_ENV}",
              file=sys.stderr)
        return 2
    try:
        backend = TransformersBackend(args.model, device=args.device, dtype=args.dtype, threads=args.threads)
    except BackendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = make_server(backend, args.host, args.port, args.max_batch, api_key=args.api_key,
                         max_body_bytes=args.max_body_bytes, max_tokens_limit=args.max_tokens_limit,
                         max_queue=args.max_queue, max_connections=args.max_connections,
                         log=None if args.quiet else sys.stderr)
    print(f"serving {server.model_name} on http://{args.host}:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
