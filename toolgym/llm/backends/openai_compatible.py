"""Any OpenAI-compatible chat-completions server as a backend: concurrent requests, retries with
backoff, redirects followed only to the same origin, error texts without credentials."""

from __future__ import annotations

import json
import os
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from collections.abc import Sequence

from toolgym.llm.backends.common import BackendError, ChatRequest, Completion, SamplingParams, _cut_at_stop
from toolgym.llm.chat import flatten_messages, tools_as_text


ERROR_TEXT_CHARS = 500  # the most of a server's error text that goes into an error message
MAX_REDIRECTS = 5
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_BEARER_TOKEN = re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)  # RFC 6750's token characters
_SECRET_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Hands every 3xx answer back as an HTTPError: :meth:`OpenAICompatibleBackend._send` decides
    which to follow (urllib's own handler sends the key to any host and turns a POST into a GET)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class OpenAICompatibleBackend:
    """Any server speaking ``POST {base_url}/chat/completions`` (vLLM, SGLang, hosted APIs).

    Requests of a batch run concurrently, at most ``max_concurrency`` at a time. 429 and 5xx
    answers, timeouts and refused connections are retried with exponential backoff and jitter
    (``Retry-After`` is honoured). Tools are sent natively (``tools`` / ``tool_calls``) unless
    ``native_tools=False`` or the server rejects them with a 400, after which they go into the
    system message as text. The key is read from the environment variable ``api_key_env`` and
    never stored in results or logs: error messages carry at most ``ERROR_TEXT_CHARS`` of the
    server's text, with the key and anything that looks like one (``Bearer ...``, ``sk-...``)
    replaced. Redirects are followed only within the same origin (scheme, host and port) and
    only when they keep the method (any redirect of a GET; 307 and 308 of a POST); any other
    redirect is an error that names the target, so the key never leaves the configured server.

    Args:
        base_url: e.g. ``http://localhost:8000/v1``.
        model: The served model name; None asks ``/models`` for the first one.
        api_key_env: Name of the environment variable holding the key (optional for local servers).
        max_concurrency: Requests in flight at once.
        timeout: Seconds per request attempt.
        max_retries: Retries after the first attempt.
        backoff: First backoff in seconds (doubles per retry).
        logprobs: Ask for token log-probabilities (and vLLM's ``return_token_ids``).
        extra_body: Extra JSON fields sent with every request (server-specific options).
    """

    name = "openai"
    RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

    def __init__(self, base_url: str, model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 max_concurrency: int = 8, timeout: float = 120.0, max_retries: int = 4, backoff: float = 1.0,
                 native_tools: bool = True, logprobs: bool = True, extra_body: dict | None = None):
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.max_concurrency = max(1, int(max_concurrency))
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.native_tools = native_tools
        self.logprobs = logprobs
        self.extra_body = dict(extra_body or {})
        self._lock = threading.Lock()
        self.retries = 0  # retried attempts so far, for reports and tests
        self.model = model or self._first_model()

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model, "base_url": self.base_url,
                "max_concurrency": self.max_concurrency, "native_tools": self.native_tools}

    def _key(self) -> str | None:
        return (os.environ.get(self.api_key_env) or None) if self.api_key_env else None

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

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
            status, body, _ = self._send("GET", "/models", None)
        except OSError as exc:
            raise self._error(f"{url}: connection failed: {_network_reason(exc)}") from exc
        if status != 200:
            raise self._error(f"{url} answered HTTP {status}: {self._excerpt(body)}")
        try:
            models = json.loads(body).get("data")
            first = models[0]["id"] if models else None
        except (ValueError, AttributeError, LookupError, TypeError):
            raise self._error(f"{url} did not answer with a model list; name the model as openai:URL#MODEL") from None
        if not first:
            raise self._error(f"{url} lists no model; name one as openai:URL#MODEL")
        return str(first)

    def _send(self, method: str, path: str, payload: dict | None) -> tuple[int, str, str | None]:
        """One attempt: (status, body, Retry-After), through same-origin redirects that keep the method.

        Network failures raise OSError (timeouts too); a redirect that is not followed raises
        BackendError.
        """
        data = json.dumps(payload).encode() if payload is not None else None
        url = self.base_url + path
        for _ in range(MAX_REDIRECTS + 1):
            req = urllib.request.Request(url, data=data, method=method, headers=self._headers())
            try:
                with _OPENER.open(req, timeout=self.timeout) as resp:
                    return resp.status, resp.read().decode("utf-8", "replace"), None
            except urllib.error.HTTPError as exc:
                headers = exc.headers or {}
                body = exc.read().decode("utf-8", "replace")
                if exc.code not in REDIRECT_STATUS:
                    return exc.code, body, headers.get("Retry-After")
                url = self._redirect_target(method, url, exc.code, headers.get("Location"))
        raise self._error(f"{self.base_url}{path}: more than {MAX_REDIRECTS} redirects")

    def _redirect_target(self, method: str, url: str, status: int, location: str | None) -> str:
        """Where a redirect leads, if the backend may follow it; otherwise a BackendError."""
        if not location:
            raise self._error(f"{url} answered HTTP {status} without a Location to go to")
        target = urllib.parse.urljoin(url, location)
        if _origin(target) != _origin(url):
            scheme, host, port = _origin(target)
            raise self._error(f"{url} redirects (HTTP {status}) to another origin, {scheme}://{host}:{port}; "
                              "not following it with the credentials: use the final URL as the base URL")
        if method != "GET" and status not in (307, 308):
            raise self._error(f"{url} redirects (HTTP {status}) to {target[:200]}, which would turn the {method} "
                              "into a GET; use the final URL as the base URL")
        return target

    def _post_with_retries(self, payload: dict) -> tuple[int, str]:
        delay = self.backoff
        for attempt in range(self.max_retries + 1):
            retry_after = None
            try:
                status, body, retry_after = self._send("POST", "/chat/completions", payload)
                failure = None if status not in self.RETRY_STATUS else f"HTTP {status}: {self._excerpt(body)}"
            except TimeoutError:
                status, body, failure = 0, "", f"timed out after {self.timeout:g}s"
            except OSError as exc:  # URLError and ConnectionError are OSErrors
                status, body, failure = 0, "", f"connection failed: {_network_reason(exc)}"
            if failure is None:
                return status, body
            if attempt == self.max_retries:
                attempts = f"{attempt + 1} attempt{'s' if attempt else ''}"
                raise self._error(f"{self.base_url}: {failure} (after {attempts})")
            with self._lock:
                self.retries += 1
            wait = _retry_after_seconds(retry_after)
            time.sleep(wait if wait is not None else delay * (1 + random.random() / 4))
            delay *= 2
        raise AssertionError("unreachable")

    def _status_error(self, status: int, body: str) -> BackendError:
        """A short message for a final non-200 answer to a chat completion."""
        text = self._excerpt(body)
        if status == 404 and "model" in text.lower():
            return self._error(f"{self.base_url}: model {self.model!r} not found (HTTP 404: {text})")
        if status == 404:
            return self._error(f"{self.base_url}/chat/completions: HTTP 404 ({text}); does the base URL end in /v1?")
        if status in (401, 403):
            who = f"the key in ${self.api_key_env} was refused" if self._key() else f"no key: set ${self.api_key_env}"
            return self._error(f"{self.base_url}: HTTP {status}, {who} ({text})")
        return self._error(f"{self.base_url}: HTTP {status}: {text}")

    def _payload(self, request: ChatRequest, sampling: SamplingParams, native: bool) -> dict:
        messages, tools = request.messages, request.tools
        if tools and not native:
            messages, tools = flatten_messages(tools_as_text(messages, tools)), None
        payload: dict[str, Any] = {"model": self.model, "messages": messages,
                                   "max_tokens": sampling.max_new_tokens, "temperature": sampling.temperature,
                                   "top_p": sampling.top_p}
        stop = list(dict.fromkeys(sampling.stop + request.stop))
        if stop:
            payload["stop"] = stop[:4]  # the OpenAI API accepts at most four
        if sampling.seed is not None:
            payload["seed"] = sampling.seed
        if tools:
            payload["tools"] = tools
        if self.logprobs:
            payload.update(logprobs=True, return_token_ids=True)
        payload.update(self.extra_body)
        return payload

    def _complete(self, request: ChatRequest, sampling: SamplingParams) -> Completion:
        try:
            native = self.native_tools and bool(request.tools)
            status, body = self._post_with_retries(self._payload(request, sampling, native))
            if status == 400 and native and "tool" in body.lower():  # no tool support: tools as text from now on
                self.native_tools = False
                status, body = self._post_with_retries(self._payload(request, sampling, False))
            if status != 200:
                raise self._status_error(status, body)
            return _parse_chat_response(json.loads(body), stop=sampling.stop + request.stop)
        except BackendError as exc:
            return Completion(error=f"BackendError: {exc}")
        except (ValueError, LookupError, TypeError, AttributeError) as exc:  # JSON, but not a chat completion
            return Completion(error=f"BackendError: {self.base_url}: the answer is not a chat completion "
                                    f"({type(exc).__name__}: {self._scrub(str(exc))[:200]})")

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]:
        if len(requests) <= 1 or self.max_concurrency == 1:
            return [self._complete(r, sampling) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
            return list(pool.map(lambda r: self._complete(r, sampling), requests))


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # not a port number: matches no origin
        port = -1
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def _network_reason(exc: OSError) -> str:
    """Why a connection failed, in a few words."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused; is the server running?"
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, socket.gaierror):
        return "unknown host"
    if isinstance(reason, ConnectionResetError):
        return "the server closed the connection"
    return str(reason)


def _error_text(body: str) -> str:
    """The message of an error answer: OpenAI's ``error.message``, FastAPI's ``detail``, else the body."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        for value in (error, data.get("detail"), data.get("message")):
            if isinstance(value, str):
                return value
    return body


def _retry_after_seconds(value: str | None) -> float | None:
    try:
        return min(float(value), 60.0) if value is not None else None
    except ValueError:
        return None


def _parse_chat_response(data: dict, stop: Sequence[str] = ()) -> Completion:
    choice = data["choices"][0]
    message = choice.get("message") or {}
    text, _ = _cut_at_stop(message.get("content") or "", stop)
    usage = data.get("usage") or {}
    logprobs = None
    content = (choice.get("logprobs") or {}).get("content")
    if content:
        logprobs = [float(t["logprob"]) for t in content]
    completion_ids = choice.get("token_ids")
    return Completion(text=text, tool_calls=list(message.get("tool_calls") or []),
                      prompt_tokens=int(usage.get("prompt_tokens") or 0),
                      completion_tokens=int(usage.get("completion_tokens") or len(completion_ids or [])),
                      prompt_token_ids=data.get("prompt_token_ids"), completion_token_ids=completion_ids,
                      logprobs=logprobs, finish_reason=choice.get("finish_reason"))
