"""A local transformers model as a backend: batched generation with token ids and log-probabilities.

torch and transformers are imported only when a :class:`TransformersBackend` is created (the
``[llm]`` extra)."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from toolgym.llm.backends.common import (DEFAULT_MAX_NEW_TOKENS, BackendError, ChatRequest, Completion, SamplingParams,
                                         _cut_at_stop)
from toolgym.llm.chat import encode_prompt, render_prompt


# The default bound of a backend's prefix cache (see TransformersBackend's prefix_cache_mb).
PREFIX_CACHE_MB = 4096


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
    """The name of the key-value cache in generate's keywords and in a model's outputs: ``cache``
    in later transformers 5 releases (``past_key_values`` there prints deprecation warnings),
    else ``past_key_values``."""
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
            ``"auto"``: batch on CUDA, rows elsewhere. Models with sliding-window layers
            (Gemma 3) always prefill as one batch (a window's cache is shorter than the prompt).
        prefix_cache_mb: With ``"rows"`` prefill, keep the key-value caches of recent prompts
            (up to this many MiB in all, least recently used dropped first; see :class:`PrefixCache`)
            and prefill only what follows the longest run of leading tokens a prompt shares with
            one of them: a multi-turn episode's next prompt is its last one plus the reply and
            the env's turn, a GRPO group repeats its prompt, and an env's episodes share their
            system prompt, so most of each turn's prefill is saved. The default, 4096, holds
            eight lockstep episodes (``eval --batch-size 8``) of 10,000 tokens of SmolLM2-135M
            (45 KiB a token in float32). 0: off. A prompt prefilled in two
            parts can differ from one prefilled whole in the last bits of its logits, as a
            batch's padding can.
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
            a packaged model's short name, see :data:`toolgym.llm.gguf.PACKAGED_MODELS`).
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
    #: Called during generation with the number of rows that made a token (a progress display).
    on_tokens: Callable[[int], None] | None = None

    def __init__(self, model: str, device: str = "auto", dtype: str = "auto", trust_remote_code: bool = False,
                 max_batch_tokens: int | None = 65536, max_padding: float | None = None, prefill: str = "auto",
                 download: bool = False, static_cache: bool | None = None, compile: bool | None = None,
                 gguf_file: str | None = None, threads: int | None = None, progress: bool = True,
                 prefix_cache_mb: float = PREFIX_CACHE_MB):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the hf: agent needs torch and transformers: pip install 'toolgym[llm]'") from exc
        from transformers.utils import logging as transformers_logging

        from toolgym.llm.gguf import GGUFError, dequantised_folder, find_gguf

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
                model = str(dequantised_folder(gguf, "float32" if dtype == "auto" else dtype, progress=progress))
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
        self.model.eval()
        self._read_model()
        self.max_batch_tokens = max_batch_tokens
        self.max_padding = max_padding
        if prefill not in ("auto", "batch", "rows"):
            raise ValueError(f"prefill must be 'auto', 'batch' or 'rows', got {prefill!r}")
        self.prefill = prefill if prefill != "auto" else ("batch" if device.startswith("cuda") else "rows")
        self.prefix_cache = PrefixCache(int(prefix_cache_mb * 2 ** 20))
        if static_cache is None:
            static_cache = device.startswith("cuda") and getattr(self.model, "_can_compile_fullgraph", False)
        self.static_cache = bool(static_cache)
        self.compile = self.static_cache if compile is None else bool(compile)
        if self.compile and not self.static_cache:
            raise ValueError("compile needs static_cache: a dynamic cache changes shape at every token")

    def _read_model(self) -> None:
        """Set what this backend reads off its model and tokenizer (shared with backends over a model in memory)."""
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.context_length = _context_length(self.model.config)
        # Layers that attend over a sliding window (Gemma 3) keep a cache shorter than the prompt,
        # which a row-by-row prefill cannot pad into one batch: those models prefill as one batch.
        self.sliding_window = "sliding_attention" in (getattr(self.model.config, "layer_types", None) or ())
        self._seed: int | None = None
        self._grammar_tokenizer = None  # llguidance's view of the tokenizer, built at the first tool_choice

    def describe(self) -> dict:
        template = self.tokenizer.chat_template or ""  # as render_prompt reads it
        return {"backend": self.name, "model": self.model_id, "device": self.device, "dtype": self.dtype,
                "chat_template": "native-tools" if "tools" in template else ("chat" if template else "plain")}

    def render(self, request: ChatRequest) -> str:
        """The prompt text for one request (chat template, or a plain transcript without one)."""
        return render_prompt(self.tokenizer, request.messages, request.tools)

    def encode(self, request: ChatRequest) -> list[int]:
        """The prompt token ids of one request."""
        return encode_prompt(self.tokenizer, self.render(request))

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams,
                 prompt_ids: Sequence[list[int]] | None = None) -> list[Completion]:
        """One completion per request. ``prompt_ids``: the requests' :meth:`encode`, when the
        caller has them already (the server measures them against the context first)."""
        if not requests:
            return []
        sampling = dataclasses.replace(  # what a server would take as its defaults
            sampling, temperature=sampling.temperature or 0.0,
            top_p=sampling.top_p if sampling.top_p is not None else 1.0,
            max_new_tokens=sampling.max_new_tokens or DEFAULT_MAX_NEW_TOKENS)
        prompts = list(prompt_ids) if prompt_ids is not None else [self.encode(r) for r in requests]
        # Requests with other stop strings or completion tests go in other calls (one call stops its
        # rows by the same rules).
        order = sorted(range(len(requests)), key=lambda i: (requests[i].stop, id(requests[i].complete),
                                                            len(prompts[i])))
        chunks, chunk = [], []
        for i in order:  # ascending lengths: a chunk's first prompt is its shortest, the new one its longest
            length = len(prompts[i])
            if chunk and ((requests[i].stop, requests[i].complete) != (requests[chunk[0]].stop,
                                                                       requests[chunk[0]].complete)
                          or self.max_batch_tokens and (len(chunk) + 1) * length > self.max_batch_tokens
                          or self.max_padding and length > self.max_padding * len(prompts[chunk[0]])):
                chunks.append(chunk)
                chunk = []
            chunk.append(i)
        chunks.append(chunk)
        if (sampling.temperature or 0) > 0 and sampling.seed is not None and sampling.seed != self._seed:
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
        kwargs: dict[str, Any] = {"max_new_tokens": sampling.max_new_tokens or DEFAULT_MAX_NEW_TOKENS,
                                  "logits_processor": [recorder],
                                  "pad_token_id": self.tokenizer.pad_token_id}
        if (sampling.temperature or 0) > 0:
            kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if stop:
            kwargs.update(stop_strings=list(stop), tokenizer=self.tokenizer)
        grammar = self._tool_call_grammar(requests, kwargs["max_new_tokens"])
        if grammar is not None:
            kwargs["logits_processor"].append(grammar)  # after the recorder: logprobs stay the model's own
        complete = requests[0].complete
        watch = _RowWatch(self.tokenizer, input_ids.shape[1], complete, self.on_tokens)
        kwargs["stopping_criteria"] = [watch]
        if self.static_cache:
            kwargs.update(cache_implementation="static", disable_compile=not self.compile)
        with torch.inference_mode():
            # A single prompt goes this way too when the prefix cache is on: an episode that
            # outlives its batch would otherwise prefill its whole prompt at every turn.
            if (self.prefill == "rows" and not self.static_cache and not self.sliding_window
                    and min(map(len, prompts)) > 1 and (len(prompts) > 1 or self.prefix_cache.max_bytes > 0)):
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
                length = self._stop_length(new_ids, length, lambda t: _cut_at_stop(t, stop)[1])
            elif complete is not None and complete(text):  # the rows after it are padding
                length = self._stop_length(new_ids, length, complete)
                text, stopped = self.tokenizer.decode(new_ids[:length], skip_special_tokens=True), True
            completion_ids = new_ids[:length]
            results.append(Completion(
                text=text, prompt_tokens=len(prompt_ids), completion_tokens=len(completion_ids),
                prompt_token_ids=prompt_ids, completion_token_ids=completion_ids,
                logprobs=[round(v, 6) for v in logprobs[row][:length]],
                finish_reason="stop" if stopped else finish))
        return results

    def _tool_call_grammar(self, requests: Sequence[ChatRequest], max_new_tokens: int):
        """The grammar of the rows whose ``tool_choice`` asks for calls
        (:mod:`toolgym.llm.constrained`), or None when every row decodes freely."""
        from toolgym.llm.constrained import (ToolCallGrammar, constrained_function_names, grammar_tokenizer,
                                             tool_calls_schema)

        schemas = []
        for request in requests:
            names = constrained_function_names(request.tools, request.tool_choice)
            schemas.append(None if names is None else tool_calls_schema(request.tools or [], names))
        if all(schema is None for schema in schemas):
            return None
        if self._grammar_tokenizer is None:
            self._grammar_tokenizer = grammar_tokenizer(self.tokenizer)
        eos = self.tokenizer.eos_token_id
        return ToolCallGrammar(self._grammar_tokenizer, schemas, eos if eos is not None else min(self._eos_ids()),
                               max_new_tokens=max_new_tokens)

    def _prefill_rows(self, prompts: list[list[int]], width: int):
        """The KV cache of all but the last prompt token, computed row by row without padding and
        left-padded into one batch cache: a padded prefill takes attention's slow masked path.
        A row starts from the cache of the longest run of leading tokens it shares with an earlier
        prompt (``prefix_cache_mb``)."""
        torch = self.torch
        from transformers import DynamicCache

        keyword = _cache_keyword()
        rows = []
        prefixes = [tuple(prompt[:-1]) for prompt in prompts]
        with self.prefix_cache.holding(prefixes):
            for ids in prefixes:
                done, layers = self.prefix_cache.longest(ids)
                if done < len(ids):
                    cache = DynamicCache()
                    for index, (keys, values) in enumerate(layers or ()):
                        cache.update(keys, values, index)  # the stored tensors stay as they are: update concatenates
                    output = self.model(input_ids=torch.tensor([ids[done:]], device=self.device),
                                        use_cache=True, **({keyword: cache} if layers else {}))
                    layers = [(layer.keys, layer.values) for layer in getattr(output, keyword).layers]
                    self.prefix_cache.put(ids, layers)
                rows.append(layers)
        batch = DynamicCache()
        for index in range(len(rows[0])):
            keys, values = [], []
            for prompt, layers in zip(prompts, rows):
                pad = width - len(prompt)
                keys.append(torch.nn.functional.pad(layers[index][0], (0, 0, pad, 0)))
                values.append(torch.nn.functional.pad(layers[index][1], (0, 0, pad, 0)))
            batch.update(torch.cat(keys), torch.cat(values), index)
        return batch

    def _stop_length(self, ids: list[int], length: int, stopped: Callable[[str], bool]) -> int:
        """The fewest leading tokens of ``ids[:length]`` whose text is ``stopped`` (holds a stop
        string, or a complete action)."""
        low, high = 1, length
        while low < high:
            mid = (low + high) // 2
            if stopped(self.tokenizer.decode(ids[:mid], skip_special_tokens=True)):
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


class _RowWatch:
    """A stopping criterion called once per generated token: it stops each row whose text is a
    complete action (``complete``, the parser's test) and reports the tokens of rows still
    generating to ``on_tokens`` (a progress display), so a long call is seen to move."""

    def __init__(self, tokenizer, width: int, complete: Callable[[str], bool] | None,
                 on_tokens: Callable[[int], None] | None):
        self.tokenizer, self.width, self.complete, self.on_tokens = tokenizer, width, complete, on_tokens
        self.done: list[bool] | None = None

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        rows = input_ids.shape[0]
        if self.done is None:
            self.done = [False] * rows
        if self.on_tokens is not None:
            self.on_tokens(rows - sum(self.done))  # the rows that made this token
        if self.complete is not None:
            for row, ids in enumerate(input_ids[:, self.width:].tolist()):
                if not self.done[row]:
                    self.done[row] = self.complete(self.tokenizer.decode(ids, skip_special_tokens=True))
        return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)


class PrefixCache:
    """The key-value caches of recent prompts (one row each, every layer's keys and values),
    bounded in bytes, least recently used dropped first.

    A lookup returns the longest run of leading tokens that a new prompt shares with any stored
    one, not only a stored prompt it extends: the episodes of an env share their system prompt
    and tool documentation, so a new episode's first prompt prefills only what follows them.
    A cache of a prompt's first n tokens is its stored cache cut to n positions (the positions,
    and so the rotary embeddings, are the same).

    A stored prompt that a new one extends is dropped when the new one is stored: the new one
    serves every lookup the old one did, as well or better, so an episode keeps one entry, its
    latest prompt. During a call (:meth:`holding`) the entries its rows start from and those it
    stores are not evicted for the call's later rows: episodes stepped in lockstep come back to
    their entries in the same order every turn, and least-recently-used eviction would drop
    each one just before it was needed (four τ-bench episodes of 9,000 tokens each missed every
    turn under 1 GiB and prefilled their whole conversation again). A row whose prompt does
    not fit beside them is not stored.
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.entries: OrderedDict[tuple[int, ...], tuple[list, int]] = OrderedDict()
        self.bytes = 0
        #: Inside :meth:`holding`, the entries its call keeps from eviction; None outside a call.
        self.held: set[tuple[int, ...]] | None = None

    @contextmanager
    def holding(self, prompts: Sequence[tuple[int, ...]]):
        """Keep, until the block ends, the entries ``prompts`` start from and those stored in it."""
        self.held = {key for key, _ in map(self._best, prompts) if key is not None}
        try:
            yield
        finally:
            self.held = None

    def _best(self, ids: tuple[int, ...]) -> tuple[tuple[int, ...] | None, int]:
        """The stored prompt sharing the most leading tokens with ``ids`` and how many (None, 0: none shares any)."""
        best, shared = None, 0
        for key in self.entries:
            length = _common_prefix_length(key, ids)
            if length > shared:
                best, shared = key, length
        return best, shared

    def longest(self, ids: tuple[int, ...]) -> tuple[int, list | None]:
        """How many leading tokens of ``ids`` a stored cache covers, and the layers of those tokens."""
        best, shared = self._best(ids)
        if best is None:
            return 0, None
        self.entries.move_to_end(best)
        layers = self.entries[best][0]
        if shared < len(best):
            layers = [(keys[:, :, :shared], values[:, :, :shared]) for keys, values in layers]
        return shared, layers

    def put(self, ids: tuple[int, ...], layers: list) -> None:
        size = sum(t.numel() * t.element_size() for pair in layers for t in pair)
        if size > self.max_bytes or ids in self.entries:
            return
        extended = [key for key in self.entries if len(key) < len(ids) and ids[:len(key)] == key]
        held = self.held or ()
        evictable = [key for key in self.entries if key not in held and key not in extended]  # oldest first
        room = self.max_bytes - self.bytes + sum(self.entries[key][1] for key in extended)
        if room + sum(self.entries[key][1] for key in evictable) < size:
            return  # the entries the call holds fill the budget
        for key in extended:
            self._drop(key)
        for key in evictable:
            if self.bytes + size <= self.max_bytes:
                break
            self._drop(key)
        self.entries[ids] = (layers, size)
        self.bytes += size
        if self.held is not None:
            self.held.add(ids)

    def _drop(self, key: tuple[int, ...]) -> None:
        self.bytes -= self.entries.pop(key)[1]
        if self.held is not None:
            self.held.discard(key)


def _common_prefix_length(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """The number of leading tokens ``a`` and ``b`` share (a binary search of slice comparisons,
    which run in C: a prompt is thousands of tokens and a lookup compares it with every entry)."""
    shortest = min(len(a), len(b))
    if a[:shortest] == b[:shortest]:
        return shortest
    low, high = 0, shortest - 1
    while low < high:  # the length is in [low, high]
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


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
