"""Language-model backends: a local transformers model, or any OpenAI-compatible server.

Both take a batch of :class:`ChatRequest` and return one :class:`Completion` per request, with
the text, native tool calls (servers only), token counts and, where available, token ids and
log-probabilities, so that RL code never has to re-tokenize. torch and transformers are imported
only by :class:`TransformersBackend` (the ``[llm]`` extra).
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol
from collections.abc import Sequence

from toolgym.agents.llm.prompts import flatten_messages, tools_as_text


@dataclass(frozen=True)
class SamplingParams:
    """Decoding settings. ``temperature=0`` is greedy decoding."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 512
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def describe(self) -> dict:
        return {"temperature": self.temperature, "top_p": self.top_p, "max_new_tokens": self.max_new_tokens,
                "stop": list(self.stop), "seed": self.seed}


@dataclass
class ChatRequest:
    """One prompt: chat messages, the tool schemas to offer (or None) and extra stop strings."""

    messages: list[dict]
    tools: list[dict] | None = None
    stop: tuple[str, ...] = ()


@dataclass
class Completion:
    """What a backend returns for one request; ``error`` is set when the request failed for good."""

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: str | None = None
    error: str | None = None

    def record(self) -> dict:
        """The trajectory's ``llm`` entry for the step this completion produced."""
        out = {"text": self.text, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
               "prompt_token_ids": self.prompt_token_ids, "completion_token_ids": self.completion_token_ids,
               "logprobs": self.logprobs, "finish_reason": self.finish_reason}
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        if self.error:
            out["error"] = self.error
        return out


class Backend(Protocol):
    name: str

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]: ...

    def describe(self) -> dict: ...


def _cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """The text before the first stop string (stop strings are not part of the output)."""
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


class TransformersBackend:
    """A local ``AutoModelForCausalLM`` with batched, left-padded generation.

    The prompt is the model's chat template applied with ``tools=`` when the template uses
    tools; otherwise the tool documentation goes into the system message and tool calls and
    results become plain text turns. Log-probabilities are those of the generated tokens under
    the model (before temperature and top-p), as vLLM reports them by default.

    Args:
        model: A model id or a local path.
        device: ``"cuda"``, ``"cpu"`` or ``"auto"`` (cuda when available).
        dtype: ``"auto"``, ``"float32"``, ``"bfloat16"`` or ``"float16"``.
        trust_remote_code: Passed to ``from_pretrained``.
        max_batch_tokens: Cap on padded prompt tokens per ``generate`` call. None: no cap.
        max_padding: A batch is sorted by prompt length and split so that within one call the
            longest prompt is at most this factor longer than the shortest (padding costs as
            much as real tokens). None: no split for length.
        prefill: ``"batch"`` runs the prompts through the model as one padded batch;
            ``"rows"`` runs each prompt alone (no padding) and batches the decoding, which is
            faster on CPU, where attention with a padding mask is about 3x slower per token.
            ``"auto"``: batch on CUDA, rows elsewhere.
    """

    name = "hf"

    def __init__(self, model: str, device: str = "auto", dtype: str = "auto", trust_remote_code: bool = False,
                 max_batch_tokens: int | None = 65536, max_padding: float | None = None, prefill: str = "auto"):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the hf: agent needs torch and transformers: pip install 'toolgym[llm]'") from exc
        self.torch = torch
        self.model_id = model
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        self.dtype = dtype
        self.tokenizer = AutoTokenizer.from_pretrained(model, trust_remote_code=trust_remote_code)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype,
                                                          trust_remote_code=trust_remote_code).to(device)
        self.model.eval()
        self.max_batch_tokens = max_batch_tokens
        self.max_padding = max_padding
        if prefill not in ("auto", "batch", "rows"):
            raise ValueError(f"prefill must be 'auto', 'batch' or 'rows', got {prefill!r}")
        self.prefill = prefill if prefill != "auto" else ("batch" if device.startswith("cuda") else "rows")
        self._seed: int | None = None
        template = self.tokenizer.chat_template or ""
        self.has_template = bool(template)
        self.template_tools = "tools" in template

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model_id, "device": self.device, "dtype": self.dtype,
                "chat_template": "native-tools" if self.template_tools else ("chat" if self.has_template else "plain")}

    def render(self, request: ChatRequest) -> str:
        """The prompt text for one request (chat template, or a plain transcript without one)."""
        messages, tools = request.messages, request.tools
        if tools and not self.template_tools:
            messages, tools = tools_as_text(messages, tools), None
        if not self.has_template:
            lines = [f"{m['role']}: {m['content']}" for m in flatten_messages(messages)]
            return "\n\n".join(lines + ["assistant:"])
        try:
            return self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True,
                                                      tokenize=False)
        except Exception:  # templates that reject tool roles or tool_calls: retry with plain turns
            return self.tokenizer.apply_chat_template(flatten_messages(messages), tools=tools,
                                                      add_generation_prompt=True, tokenize=False)

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]:
        if not requests:
            return []
        prompts = [self.tokenizer(self.render(r), add_special_tokens=False)["input_ids"] for r in requests]
        # Requests with other stop strings go in other calls (a stop string ends its whole call's rows).
        order = sorted(range(len(requests)), key=lambda i: (requests[i].stop, len(prompts[i])))
        chunks, chunk = [], []
        for i in order:  # ascending lengths: a chunk's first prompt is its shortest, the new one its longest
            length = len(prompts[i])
            if chunk and (requests[i].stop != requests[chunk[0]].stop
                          or self.max_batch_tokens and (len(chunk) + 1) * length > self.max_batch_tokens
                          or self.max_padding and length > self.max_padding * len(prompts[chunk[0]])):
                chunks.append(chunk)
                chunk = []
            chunk.append(i)
        chunks.append(chunk)
        if sampling.temperature > 0 and sampling.seed is not None and sampling.seed != self._seed:
            self.torch.manual_seed(sampling.seed)  # once per run: later calls continue the stream
            self._seed = sampling.seed
        results: list[Completion | None] = [None] * len(requests)
        for chunk in chunks:
            done = self._generate([requests[i] for i in chunk], [prompts[i] for i in chunk], sampling)
            for i, completion in zip(chunk, done):
                results[i] = completion
        return results  # type: ignore[return-value]

    def _generate(self, requests: Sequence[ChatRequest], prompts: list[list[int]],
                  sampling: SamplingParams) -> list[Completion]:
        torch = self.torch
        encoded = self.tokenizer.pad({"input_ids": prompts}, padding=True, return_tensors="pt")
        input_ids = encoded["input_ids"].to(self.device)
        attention_mask = encoded["attention_mask"].to(self.device)
        stop = tuple(dict.fromkeys(sampling.stop + requests[0].stop))
        recorder = _LogprobRecorder()
        kwargs: dict[str, Any] = {"max_new_tokens": sampling.max_new_tokens, "logits_processor": [recorder],
                                  "pad_token_id": self.tokenizer.pad_token_id}
        if sampling.temperature > 0:
            kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if stop:
            kwargs.update(stop_strings=list(stop), tokenizer=self.tokenizer)
        with torch.inference_mode():
            if self.prefill == "rows" and len(prompts) > 1 and min(map(len, prompts)) > 1:
                kwargs["past_key_values"] = self._prefill_rows(prompts, input_ids.shape[1])
            sequences = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
        logprobs = recorder.finish(sequences)
        width = input_ids.shape[1]
        eos = self._eos_ids()
        results = []
        for row in range(len(requests)):
            prompt_ids = input_ids[row][attention_mask[row].bool()].tolist()
            new_ids = sequences[row, width:].tolist()
            length, finish = len(new_ids), "length"
            for i, token in enumerate(new_ids):
                if token in eos:
                    length, finish = i + 1, "stop"
                    break
            text, stopped = _cut_at_stop(self.tokenizer.decode(new_ids[:length], skip_special_tokens=True), stop)
            if stopped:  # keep the tokens up to the one that completed the stop string, as vLLM does
                length = self._stop_length(new_ids, length, stop)
            completion_ids = new_ids[:length]
            results.append(Completion(
                text=text, prompt_tokens=len(prompt_ids), completion_tokens=len(completion_ids),
                prompt_token_ids=prompt_ids, completion_token_ids=completion_ids,
                logprobs=[round(v, 6) for v in logprobs[row][:length]],
                finish_reason="stop" if stopped else finish))
        return results

    def _prefill_rows(self, prompts: list[list[int]], width: int):
        """The KV cache of all but the last prompt token, computed row by row without padding and
        left-padded into one batch cache: a padded prefill takes attention's slow masked path."""
        torch = self.torch
        caches = [self.model(input_ids=torch.tensor([p[:-1]], device=self.device), use_cache=True).past_key_values
                  for p in prompts]
        from transformers import DynamicCache
        batch = DynamicCache()
        for layer in range(len(caches[0].layers)):
            keys, values = [], []
            for prompt, cache in zip(prompts, caches):
                pad = width - len(prompt)
                keys.append(torch.nn.functional.pad(cache.layers[layer].keys, (0, 0, pad, 0)))
                values.append(torch.nn.functional.pad(cache.layers[layer].values, (0, 0, pad, 0)))
            batch.update(torch.cat(keys), torch.cat(values), layer)
        return batch

    def _stop_length(self, ids: list[int], length: int, stop: Sequence[str]) -> int:
        """The fewest leading tokens of ``ids[:length]`` whose text contains a stop string."""
        low, high = 1, length
        while low < high:
            mid = (low + high) // 2
            if _cut_at_stop(self.tokenizer.decode(ids[:mid], skip_special_tokens=True), stop)[1]:
                high = mid
            else:
                low = mid + 1
        return high

    def _eos_ids(self) -> set[int]:
        eos = self.model.generation_config.eos_token_id
        ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids


class _LogprobRecorder:
    """A logits processor that keeps each chosen token's log-probability, one step behind.

    At step t it sees the token chosen at t-1 (the last column of ``input_ids``), so it only
    holds one step of log-softmax at a time instead of every step's full vocabulary.
    """

    def __init__(self):
        self._previous = None
        self._values: list = []

    def __call__(self, input_ids, scores):
        if self._previous is not None:
            self._values.append(self._previous.gather(1, input_ids[:, -1:]).squeeze(1))
        self._previous = scores.float().log_softmax(-1)
        return scores

    def finish(self, sequences) -> list[list[float]]:
        if self._previous is not None:
            self._values.append(self._previous.gather(1, sequences[:, -1:]).squeeze(1))
        if not self._values:
            return [[] for _ in range(sequences.shape[0])]
        import torch
        return torch.stack(self._values, dim=1).tolist()


class BackendError(RuntimeError):
    """A server request that failed for good (after the retries)."""


class OpenAICompatibleBackend:
    """Any server speaking ``POST {base_url}/chat/completions`` (vLLM, SGLang, hosted APIs).

    Requests of a batch run concurrently, at most ``max_concurrency`` at a time. 429 and 5xx
    answers, timeouts and refused connections are retried with exponential backoff and jitter
    (``Retry-After`` is honoured). Tools are sent natively (``tools`` / ``tool_calls``) unless
    ``native_tools=False`` or the server rejects them with a 400, after which they go into the
    system message as text. The key is read from the environment variable ``api_key_env`` and
    never stored in results or logs.

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

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _first_model(self) -> str:
        try:
            status, body, _ = self._send("GET", "/models", None)
        except OSError as exc:
            raise BackendError(f"{self.base_url}/models: connection failed: {getattr(exc, 'reason', exc)}") from exc
        if status != 200:
            raise BackendError(f"{self.base_url}/models answered {status}: {body[:200]}")
        data = json.loads(body).get("data") or []
        if not data:
            raise BackendError(f"{self.base_url}/models lists no model; name one as openai:URL#MODEL")
        return data[0]["id"]

    def _send(self, method: str, path: str, payload: dict | None) -> tuple[int, str, str | None]:
        """One attempt: (status, body, Retry-After). Network failures raise OSError (timeouts too)."""
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=self._headers())
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read().decode("utf-8", "replace"), None
        except urllib.error.HTTPError as exc:
            retry_after = exc.headers.get("Retry-After") if exc.headers else None
            return exc.code, exc.read().decode("utf-8", "replace"), retry_after

    def _post_with_retries(self, payload: dict) -> tuple[int, str]:
        delay = self.backoff
        for attempt in range(self.max_retries + 1):
            retry_after = None
            try:
                status, body, retry_after = self._send("POST", "/chat/completions", payload)
                failure = None if status not in self.RETRY_STATUS else f"HTTP {status}: {body[:200]}"
            except (TimeoutError, socket.timeout) as exc:
                status, body, failure = 0, "", f"timed out after {self.timeout:g}s ({exc})"
            except (urllib.error.URLError, ConnectionError, OSError) as exc:
                status, body, failure = 0, "", f"connection failed: {getattr(exc, 'reason', exc)}"
            if failure is None:
                return status, body
            if attempt == self.max_retries:
                raise BackendError(f"{self.base_url}: {failure} (after {attempt + 1} attempts)")
            with self._lock:
                self.retries += 1
            wait = _retry_after_seconds(retry_after)
            time.sleep(wait if wait is not None else delay * (1 + random.random() / 4))
            delay *= 2
        raise AssertionError("unreachable")

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
                raise BackendError(f"{self.base_url}: HTTP {status}: {body[:300]}")
            return _parse_chat_response(json.loads(body), stop=sampling.stop + request.stop)
        except (BackendError, json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            return Completion(error=f"{type(exc).__name__}: {exc}")

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]:
        if len(requests) <= 1 or self.max_concurrency == 1:
            return [self._complete(r, sampling) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
            return list(pool.map(lambda r: self._complete(r, sampling), requests))


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
