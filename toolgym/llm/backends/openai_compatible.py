"""Any OpenAI-compatible chat-completions (or Responses API) server as a backend, through the official ``openai`` SDK:
concurrent requests, the SDK's retries, answers bounded in bytes and time and checked by type,
redirects followed only to the same origin, error texts without credentials."""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolgym.llm.backends.common import BackendError, ChatRequest, Completion, SamplingParams, _cut_at_stop
from toolgym.llm.chat import flatten_messages, tools_as_text


ERROR_TEXT_CHARS = 500  # the most of a server's error text that goes into an error message
MAX_ANSWER_BYTES = 16 * 1024 * 1024  # a completion with token ids and log-probabilities of 4096 tokens is < 1 MiB
_BEARER_TOKEN = re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)  # RFC 6750's token characters
_SECRET_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")


class OpenAICompatibleBackend:
    """Any server speaking ``POST {base_url}/chat/completions`` (vLLM, SGLang, hosted APIs), through
    the ``openai`` SDK (imported when the backend is made).

    Requests of a batch run concurrently, at most ``max_concurrency`` at a time. The SDK retries
    408, 409, 429 and 5xx answers, timeouts and failed connections with exponential backoff and
    jitter, honouring ``Retry-After``. Tools are sent natively (``tools`` / ``tool_calls``) unless
    ``native_tools=False`` or the server rejects them with a 400, after which they go into the
    system message as text. A request with ``api="responses"`` goes to ``POST {base_url}/responses``
    (the Responses API) instead, under the same limits and retries (:meth:`_complete_responses`).
    Decoding settings that are None are not sent; ``tool_choice`` and the request's ``body`` are
    sent as given, the body merged last.

    The server is an untrusted peer: every answer is read whole within ``timeout`` seconds (one
    deadline per answer, from connecting to its last byte, however slowly the server sends it)
    and at most ``max_answer_bytes`` of it; a chat completion is checked field by field, and one
    that is not (wrong types, no choices) is an error that says which field, never a crash. The key
    is read from the environment variable ``api_key_env`` at each request and never stored in
    results or logs: error messages carry at most ``ERROR_TEXT_CHARS`` of the server's text, with
    the key and anything that looks like one (``Bearer ...``, ``sk-...``) replaced. Redirects are
    followed only within the same origin (scheme, host and port) and only when they keep the
    method (any redirect of a GET; 307 and 308 of a POST); any other redirect is an error that
    names the target, so the key never leaves the configured server
    (:mod:`toolgym.llm.backends.bounded_http`).

    Args:
        base_url: e.g. ``http://localhost:8000/v1``.
        model: The served model name; None asks ``/models`` for the first one.
        api_key_env: Name of the environment variable holding the key (optional for local servers).
        max_concurrency: Requests in flight at once.
        timeout: Seconds for one whole answer (each attempt has its own).
        max_retries: Retries after the first attempt (the SDK's ``max_retries``).
        native_tools: Send tools as ``tools``; False puts them into the system message.
        logprobs: Ask for token log-probabilities (and vLLM's ``return_token_ids``); off by default,
            as the benchmarks' own harnesses ask for neither (``--backend-kwarg logprobs=true``).
        extra_body: Extra JSON fields sent with every request (server-specific options).
        max_answer_bytes: The most bytes read of one answer.
    """

    name = "openai"
    #: The request APIs it speaks (``ChatRequest.api``); a backend without this attribute speaks chat only.
    apis = ("chat", "responses")

    def __init__(self, base_url: str, model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 max_concurrency: int = 8, timeout: float = 120.0, max_retries: int = 4,
                 native_tools: bool = True, logprobs: bool = False, extra_body: dict | None = None,
                 max_answer_bytes: int = MAX_ANSWER_BYTES):
        import httpx2
        import openai

        from toolgym.llm.backends.bounded_http import BoundedTransport

        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.max_concurrency = max(1, int(max_concurrency))
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.native_tools = native_tools
        self.logprobs = logprobs
        self.extra_body = dict(extra_body or {})
        self.max_answer_bytes = int(max_answer_bytes)
        self._openai = openai
        self._lock = threading.Lock()
        self._attempts = threading.local()  # the SDK sends each attempt from the caller's thread
        self.retries = 0  # retried attempts so far, for reports and tests
        self.in_flight = 0  # requests sent and not yet answered or failed for good
        self.answered = 0  # requests answered with a chat completion
        self.last_error: str | None = None  # the last request's failure, for the progress display
        self.first_sent: float | None = None  # time.monotonic() when the first request was sent
        transport = BoundedTransport(self.max_answer_bytes, self.timeout, self.max_concurrency)
        http_client = httpx2.Client(transport=transport, follow_redirects=False, timeout=self.timeout,
                                    event_hooks={"request": [self._count_attempt]})
        self._client = openai.OpenAI(api_key="unused", base_url=self.base_url, timeout=self.timeout,
                                     max_retries=self.max_retries, http_client=http_client,
                                     default_headers={"Accept-Encoding": "identity",
                                                      # the SDK's own $OPENAI_ORG_ID / $OPENAI_PROJECT_ID are
                                                      # for OpenAI, not for whatever server base_url names
                                                      "OpenAI-Organization": openai.Omit(),
                                                      "OpenAI-Project": openai.Omit()})
        self.model = model or self._first_model()

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model, "base_url": self.base_url,
                "max_concurrency": self.max_concurrency, "native_tools": self.native_tools}

    def _key(self) -> str | None:
        return (os.environ.get(self.api_key_env) or None) if self.api_key_env else None

    def _auth(self) -> dict:
        """The request's Authorization header: the key as it is in the environment now, or none."""
        key = self._key()
        return {"Authorization": f"Bearer {key}" if key else self._openai.Omit()}

    def _count_attempt(self, request) -> None:
        self._attempts.count = getattr(self._attempts, "count", 0) + 1
        if request.headers.get("x-stainless-retry-count", "0") != "0":
            with self._lock:
                self.retries += 1

    def _scrub(self, text: str) -> str:
        """``text`` on one line, with the key and anything that looks like a key replaced."""
        key = self._key()
        if key:
            text = text.replace(key, "[key]")
        text = _SECRET_KEY.sub("sk-[redacted]", _BEARER_TOKEN.sub("Bearer [redacted]", text))
        return " ".join(text.split())

    def _excerpt(self, body: str) -> str:
        """What an error answer says (its ``error.message`` when it has one), scrubbed and cut short."""
        text = self._scrub(_error_text(body))
        return text if len(text) <= ERROR_TEXT_CHARS else text[:ERROR_TEXT_CHARS] + "..."

    def _error(self, message: str) -> BackendError:
        return BackendError(self._scrub(message))

    def _first_model(self) -> str:
        url = f"{self.base_url}/models"
        try:
            models = self._client.with_options(max_retries=0).models  # a model listing that fails says so at once
            body = models.with_raw_response.list(extra_headers=self._auth()).http_response.content
        except self._openai.APIStatusError as exc:
            refused = exc.response.extensions.get("toolgym_redirect_refused")
            raise self._error(refused or f"{url} answered HTTP {exc.status_code}: {self._excerpt(exc.response.text)}") \
                from None
        except self._openai.APIError as exc:
            raise self._error(f"{url}: {self._failure(exc)}") from None
        try:
            models = ModelList.model_validate_json(body).data
        except ValidationError:
            raise self._error(f"{url} did not answer with a model list; name the model as openai:URL#MODEL") from None
        if not models or not models[0].id:
            raise self._error(f"{url} lists no model; name one as openai:URL#MODEL")
        return models[0].id

    def _failure(self, exc: Exception) -> str:
        """Why a request got no answer (a timeout, a failed connection, an answer refused), in a few words."""
        from toolgym.llm.backends.bounded_http import AnswerRefused

        if isinstance(exc, self._openai.APITimeoutError):
            return f"timed out after {self.timeout:g}s"
        if isinstance(exc.__cause__, AnswerRefused):
            return str(exc.__cause__)
        return f"connection failed: {_network_reason(exc)}"

    def _status_error(self, exc, endpoint: str = "/chat/completions") -> BackendError:
        """A short message for a final non-2xx answer to a chat completion (or a Responses API call)."""
        status = exc.status_code
        refused = exc.response.extensions.get("toolgym_redirect_refused")
        if refused:
            return self._error(refused)
        text = self._excerpt(exc.response.text)
        if status == 404 and "model" in text.lower():
            return self._error(f"{self.base_url}: model {self.model!r} not found (HTTP 404: {text})")
        if status == 404:
            return self._error(f"{self.base_url}{endpoint}: HTTP 404 ({text}); does the base URL end in /v1?")
        if status in (401, 403):
            who = f"the key in ${self.api_key_env} was refused" if self._key() else f"no key: set ${self.api_key_env}"
            return self._error(f"{self.base_url}: HTTP {status}, {who} ({text})")
        return self._error(f"{self.base_url}: HTTP {status}: {text}{self._after_attempts(status)}")

    def _after_attempts(self, status: int | None = None) -> str:
        """`` (after N attempts)`` for a failure the SDK retries, else nothing."""
        if status is not None and not (status in (408, 409, 429) or status >= 500):
            return ""
        attempts = getattr(self._attempts, "count", 1)
        return f" (after {attempts} attempt{'s' if attempts > 1 else ''})"

    def _params(self, request: ChatRequest, sampling: SamplingParams, native: bool) -> dict:
        """The keyword arguments of ``chat.completions.create`` for one request: the model, the
        messages as given, and only what the request and the sampling settings name (a setting
        that is None is not sent); the request's ``body`` last, exactly as given."""
        messages, tools = request.messages, request.tools
        if tools and not native:
            messages, tools = flatten_messages(tools_as_text(messages, tools)), None
        params: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            params["tools"] = tools
            if request.tool_choice is not None:
                params["tool_choice"] = request.tool_choice
        params.update(_sampling_fields(sampling, max_tokens="max_tokens"))
        stop = list(dict.fromkeys(sampling.stop + request.stop))
        if stop:
            params["stop"] = stop[:4]  # the OpenAI API accepts at most four
        extra_body = dict(self.extra_body)
        if self.logprobs:
            params["logprobs"] = True
            extra_body = {"return_token_ids": True, **extra_body}
        for key, value in (request.body or {}).items():  # the protocol's fields, as given, in place of ours
            params.pop(key, None)
            extra_body[key] = value
        if extra_body:
            params["extra_body"] = extra_body
        return params

    def _responses_params(self, request: ChatRequest, sampling: SamplingParams) -> dict:
        """The keyword arguments of ``responses.create`` for one request: the messages are the
        ``input`` items, the tools function tools in the Responses form, sent as given. The
        backend's ``extra_body`` applies; log-probabilities and stop strings have no place here."""
        params: dict[str, Any] = {"model": self.model, "input": request.messages}
        params.update(_sampling_fields(sampling, max_tokens="max_output_tokens"))
        if request.tools:
            params["tools"] = request.tools
        if request.tool_choice is not None:
            params["tool_choice"] = request.tool_choice
        extra_body = dict(self.extra_body)
        for key, value in (request.body or {}).items():
            params.pop(key, None)
            extra_body[key] = value
        if extra_body:
            params["extra_body"] = extra_body
        return params

    def _create(self, params: dict) -> bytes:
        """One chat completion through the SDK (with its retries): the answer's body."""
        self._attempts.count = 0
        raw = self._client.chat.completions.with_raw_response.create(**params, extra_headers=self._auth())
        return raw.http_response.content  # JSON is UTF-8, whatever charset the headers claim

    def progress(self) -> dict:
        """What the requests are doing now, for a progress display: ``in_flight``, ``answered``,
        ``retries``, ``last_error``, and ``waiting_s``, how long the first request has gone
        unanswered (None once one is answered or before one is sent)."""
        with self._lock:
            waiting = (time.monotonic() - self.first_sent if self.first_sent is not None and not self.answered
                       else None)
            return {"in_flight": self.in_flight, "answered": self.answered, "retries": self.retries,
                    "last_error": self.last_error, "waiting_s": waiting}

    def _complete(self, request: ChatRequest, sampling: SamplingParams) -> Completion:
        with self._lock:
            self.in_flight += 1
            if self.first_sent is None:
                self.first_sent = time.monotonic()
        try:
            completion = self._answer(request, sampling)
        finally:
            with self._lock:
                self.in_flight -= 1
        with self._lock:
            if completion.error:
                self.last_error = completion.error
            else:
                self.answered += 1
        return completion

    def _create_response(self, params: dict) -> bytes:
        """One Responses API call through the SDK (with its retries): the answer's body."""
        self._attempts.count = 0
        raw = self._client.responses.with_raw_response.create(**params, extra_headers=self._auth())
        return raw.http_response.content

    def _complete_responses(self, request: ChatRequest, sampling: SamplingParams) -> Completion:
        """A request to ``POST {base_url}/responses``: the same limits, retries and error texts as
        a chat completion; tools are never moved into the text."""
        try:
            body = self._create_response(self._responses_params(request, sampling))
            return _parse_responses_answer(ResponsesAnswer.model_validate_json(body), body)
        except self._openai.APIStatusError as exc:
            return Completion(error=f"BackendError: {self._status_error(exc, '/responses')}")
        except self._openai.APIError as exc:
            error = self._error(f"{self.base_url}: {self._failure(exc)}{self._after_attempts()}")
            return Completion(error=f"BackendError: {error}")
        except ValidationError as exc:
            return Completion(error=f"BackendError: {self.base_url}: the answer is not a Responses API response "
                                    f"({self._scrub(_first_problem(exc))[:200]})")

    def _answer(self, request: ChatRequest, sampling: SamplingParams) -> Completion:
        if request.api == "responses":
            return self._complete_responses(request, sampling)
        if request.api != "chat":
            return Completion(error=f"BackendError: unknown api {request.api!r} (chat or responses)")
        openai = self._openai
        try:
            native = self.native_tools and bool(request.tools)
            try:
                body = self._create(self._params(request, sampling, native))
            except openai.BadRequestError as exc:
                if not (native and "tool" in exc.response.text.lower()):
                    raise
                self.native_tools = False  # no tool support: tools as text from now on
                body = self._create(self._params(request, sampling, False))
            return _parse_chat_response(ChatCompletionAnswer.model_validate_json(body), body,
                                        stop=sampling.stop + request.stop)
        except openai.APIStatusError as exc:
            return Completion(error=f"BackendError: {self._status_error(exc)}")
        except openai.APIError as exc:  # no answer: a timeout, a failed connection, an answer over the limits
            error = self._error(f"{self.base_url}: {self._failure(exc)}{self._after_attempts()}")
            return Completion(error=f"BackendError: {error}")
        except ValidationError as exc:  # JSON or not, but not a chat completion
            return Completion(error=f"BackendError: {self.base_url}: the answer is not a chat completion "
                                    f"({self._scrub(_first_problem(exc))[:200]})")

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]:
        if len(requests) <= 1 or self.max_concurrency == 1:
            return [self._complete(r, sampling) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
            return list(pool.map(lambda r: self._complete(r, sampling), requests))


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ModelEntry(_Answer):
    id: str


class ModelList(_Answer):
    """``GET /models``: the fields the backend reads."""

    data: list[ModelEntry]


class ToolCallFunction(_Answer):
    name: str
    arguments: str | dict


class ToolCall(_Answer):
    model_config = ConfigDict(extra="allow")
    function: ToolCallFunction


class AnswerMessage(_Answer):
    content: str | None = None
    tool_calls: list[ToolCall] | None = None


class TokenLogprob(_Answer):
    logprob: float


class ChoiceLogprobs(_Answer):
    content: list[TokenLogprob] | None = None


class Choice(_Answer):
    message: AnswerMessage | None = None
    finish_reason: str | None = None
    logprobs: ChoiceLogprobs | None = None
    token_ids: list[int] | None = None  # vLLM's return_token_ids


class Usage(_Answer):
    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)


class ChatCompletionAnswer(_Answer):
    """A chat completion as the backend reads it: every field it uses, checked by type."""

    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None
    prompt_token_ids: list[int] | None = None  # vLLM's return_token_ids


def _first_problem(exc: ValidationError) -> str:
    """The first thing wrong with an answer: where, and what (pydantic's words)."""
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]


def _network_reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words: the innermost cause that says."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused; is the server running?"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        if isinstance(seen, ConnectionResetError):
            return "the server closed the connection"
        seen = seen.__cause__ or seen.__context__
    cause = exc.__cause__ or exc
    text = str(cause) or type(cause).__name__
    if "Connection refused" in text:
        return "connection refused; is the server running?"
    return text


def _error_text(body: str) -> str:
    """The message of an error answer: OpenAI's ``error.message``, FastAPI's ``detail``, else the body."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return body
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        for value in (error, data.get("detail"), data.get("message")):
            if isinstance(value, str):
                return value
    return body


def _sampling_fields(sampling: SamplingParams, max_tokens: str) -> dict:
    """The decoding settings that are set (a None field is not sent); ``max_tokens`` names the
    API's field for the limit."""
    fields = {max_tokens: sampling.max_new_tokens, "temperature": sampling.temperature, "top_p": sampling.top_p,
              "seed": sampling.seed}
    return {key: value for key, value in fields.items() if value is not None}


def _raw_json(body: bytes) -> Any:
    """The answer's JSON as sent (already bounded in bytes and validated by type); None if it
    nests deeper than the parser goes."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _parse_chat_response(answer: ChatCompletionAnswer, body: bytes = b"", stop: Sequence[str] = ()) -> Completion:
    choice = answer.choices[0]
    message = choice.message or AnswerMessage()
    text, _ = _cut_at_stop(message.content or "", stop)
    usage = answer.usage or Usage()
    content = choice.logprobs.content if choice.logprobs else None
    logprobs = [t.logprob for t in content] if content else None
    completion_ids = choice.token_ids
    return Completion(text=text, tool_calls=[call.model_dump(exclude_unset=True) for call in message.tool_calls or ()],
                      prompt_tokens=usage.prompt_tokens or 0,
                      completion_tokens=usage.completion_tokens or len(completion_ids or []),
                      prompt_token_ids=answer.prompt_token_ids, completion_token_ids=completion_ids,
                      logprobs=logprobs, finish_reason=choice.finish_reason, message=_raw_message(body))


def _raw_message(body: bytes) -> dict | None:
    """The first choice's message as the server sent it (kept for protocols that send it back)."""
    raw = _raw_json(body) if body else None
    choices = raw.get("choices") if isinstance(raw, dict) else None
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) \
        else None
    return message if isinstance(message, dict) else None


class OutputContent(_Answer):
    type: str
    text: str | None = None


class OutputItem(_Answer):
    """An item of a Responses API ``output``: a message (its text parts) or a function call."""

    type: str
    content: list[OutputContent] | None = None
    name: str | None = None
    arguments: str | None = None
    call_id: str | None = None


class ResponsesUsage(_Answer):
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)


class ResponsesAnswer(_Answer):
    """A Responses API response as the backend reads it."""

    output: list[OutputItem]
    usage: ResponsesUsage | None = None
    status: str | None = None


def _parse_responses_answer(answer: ResponsesAnswer, body: bytes) -> Completion:
    """Text as the SDK's ``output_text`` joins it (every ``output_text`` part of every message),
    function calls as tool calls with their ``call_id`` as the id, and the output items as sent."""
    text = "".join(part.text or "" for item in answer.output if item.type == "message"
                   for part in item.content or () if part.type == "output_text")
    calls = [{"id": item.call_id, "type": "function", "function": {"name": item.name or "", "arguments":
                                                                     item.arguments or ""}}
             for item in answer.output if item.type == "function_call"]
    raw = _raw_json(body)
    output = raw.get("output") if isinstance(raw, dict) else None
    usage = answer.usage or ResponsesUsage()
    return Completion(text=text, tool_calls=calls, prompt_tokens=usage.input_tokens or 0,
                      completion_tokens=usage.output_tokens or 0, finish_reason=answer.status,
                      message=output if isinstance(output, list) else None)
