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
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
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


class BackendError(RuntimeError):
    """A backend that cannot answer: a model that cannot be loaded, or a server request that
    failed for good (after the retries). The message is one short line without credentials."""


def _model_on_disk(model: str) -> bool:
    """Whether ``model`` is a local folder or a Hugging Face id whose config is in the local cache."""
    if Path(model).expanduser().is_dir():
        return True
    from huggingface_hub import try_to_load_from_cache
    from huggingface_hub.errors import HFValidationError

    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except HFValidationError:  # neither a folder nor a valid model id
        return False


def _cache_keyword() -> str:
    """generate's keyword for a prefilled cache: ``cache`` in later transformers 5 releases
    (``past_key_values`` there prints a deprecation warning at every call), else ``past_key_values``."""
    from transformers.generation import utils

    return "cache" if "cache" in getattr(utils, "ALL_CACHE_NAMES", ()) else "past_key_values"


def _one_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's message on one line (a first line may end in a colon), at most ``limit`` characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def _context_length(config) -> int | None:
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


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
        download: Fetch the model from the Hugging Face Hub when it is not on disk. Off by
            default (as with ``HF_HUB_OFFLINE=1``): a model that is neither a local folder nor in
            the Hugging Face cache is a one-line :class:`BackendError`, not a network attempt.
        static_cache: Decode with a preallocated key-value cache (transformers'
            ``cache_implementation="static"``), whose fixed shapes let the forward pass be
            compiled; greedy tokens are those of the plain path. The prompts are then prefilled
            as one padded batch. None (default): on for CUDA when the model supports it
            (``_can_compile_fullgraph``), off elsewhere.
        compile: Compile the forward pass of the static-cache decoding with ``torch.compile``
            (transformers does it on CUDA; the first calls of each batch size pay the compile
            time). None (default): the value of ``static_cache``.
        gguf_file: The GGUF file in the folder ``model`` (``model`` may also be a ``.gguf`` path or
            a packaged model's short name, see :data:`toolgym.agents.llm.gguf.PACKAGED_MODELS`).
            The model is dequantised to ``dtype`` (``auto``: float32) and cached as a plain folder.
        threads: CPU threads for torch (``torch.set_num_threads``); None leaves torch's default.
            On a busy machine fewer threads than cores is often faster.
        progress: Whether transformers shows its own progress bars (loading, GGUF
            dequantisation). Its warnings are errors-only either way: deprecation notices would
            otherwise print into the run's progress bar at every call.

    Attributes:
        context_length: The most tokens (prompt and completion) the model takes, from its
            config; None when the config does not say.
    """

    name = "hf"

    def __init__(self, model: str, device: str = "auto", dtype: str = "auto", trust_remote_code: bool = False,
                 max_batch_tokens: int | None = 65536, max_padding: float | None = None, prefill: str = "auto",
                 download: bool = False, static_cache: bool | None = None, compile: bool | None = None,
                 gguf_file: str | None = None, threads: int | None = None, progress: bool = True):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the hf: agent needs torch and transformers: pip install 'toolgym[llm]'") from exc
        from transformers.utils import logging as transformers_logging

        from toolgym.agents.llm.gguf import GGUFError, dequantised_folder, find_gguf

        transformers_logging.set_verbosity_error()
        if not progress:
            transformers_logging.disable_progress_bar()
        self.torch = torch
        self.model_id = model
        if threads is not None:
            torch.set_num_threads(int(threads))
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.dtype = dtype
        try:
            gguf = find_gguf(model, gguf_file)
            if gguf is not None:
                model = str(dequantised_folder(gguf, "float32" if dtype == "auto" else dtype))
        except GGUFError as exc:
            raise BackendError(f"hf: {exc}") from exc
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        if not download and not _model_on_disk(model):
            raise BackendError(f"hf: model {model!r} not found on disk (downloads are off); pass a local path or a "
                               "model in the Hugging Face cache, or download=true to fetch it")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model, trust_remote_code=trust_remote_code,
                                                           local_files_only=not download)
            self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype,
                                                              trust_remote_code=trust_remote_code,
                                                              local_files_only=not download).to(device)
        except (OSError, ValueError) as exc:  # transformers' messages run to many lines: one, cut short
            raise BackendError(f"hf: cannot load model {model!r}: {_one_line(exc)}") from exc
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model.eval()
        self.context_length = _context_length(self.model.config)
        self.max_batch_tokens = max_batch_tokens
        self.max_padding = max_padding
        if prefill not in ("auto", "batch", "rows"):
            raise ValueError(f"prefill must be 'auto', 'batch' or 'rows', got {prefill!r}")
        self.prefill = prefill if prefill != "auto" else ("batch" if device.startswith("cuda") else "rows")
        if static_cache is None:
            static_cache = device.startswith("cuda") and getattr(self.model, "_can_compile_fullgraph", False)
        self.static_cache = bool(static_cache)
        self.compile = self.static_cache if compile is None else bool(compile)
        if self.compile and not self.static_cache:
            raise ValueError("compile needs static_cache: a dynamic cache changes shape at every token")
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

    def encode(self, request: ChatRequest) -> list[int]:
        """The prompt token ids of one request."""
        return self.tokenizer(self.render(request), add_special_tokens=False)["input_ids"]

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams,
                 prompt_ids: Sequence[list[int]] | None = None) -> list[Completion]:
        """One completion per request. ``prompt_ids``: the requests' :meth:`encode`, when the
        caller has them already (the server measures them against the context first)."""
        if not requests:
            return []
        prompts = list(prompt_ids) if prompt_ids is not None else [self.encode(r) for r in requests]
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
        if self.static_cache:
            kwargs.update(cache_implementation="static", disable_compile=not self.compile)
        with torch.inference_mode():
            if (self.prefill == "rows" and not self.static_cache and len(prompts) > 1
                    and min(map(len, prompts)) > 1):
                kwargs[_cache_keyword()] = self._prefill_rows(prompts, input_ids.shape[1])
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
