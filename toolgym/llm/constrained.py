"""Tool calls under a grammar: ``tool_choice`` for local models.

With ``tool_choice="required"`` (or a function's name, or OpenAI's
``{"type": "function", "function": {"name": ...}}``) a local model's completion is decoded
under a grammar built from the offered tools' JSON schemas, so that it is always a JSON list
of one or more calls, ``[{"name": "f", "arguments": {...}}, ...]``: each name one of the
tools (or the named one) and its arguments valid under that tool's parameter schema (its
required parameters present, no others), at most :data:`MAX_CALLS` calls and
:data:`MAX_ITEMS` items in an array the schema does not bound, :data:`MAX_STRING` characters in
a free string, numbers it does not bound within :data:`NUMBER_BOUND` with at most 8 decimals, no
key an object's schema does not list (and at most :data:`MAX_ITEMS` in an object that lists none),
so that no value grows without end; and it closes within its token budget, steered to the
closing brackets in its last tokens (:class:`ToolCallGrammar`). Every toolgym parser reads that
list as the calls it holds. ``"auto"`` (or None) decodes freely; ``"none"`` too, as the model may answer in text.

The grammar engine is llguidance (the ``[models]`` extra), a Rust library with no Python
dependencies: on SmolLM2-135M's 49,152-token vocabulary a token mask takes 0.06 ms on a CPU
(xgrammar: 0.005 ms, but it needs triton and apache-tvm-ffi), both negligible next to the
model's forward pass.
"""

from __future__ import annotations

import json
from typing import Any

#: JSON separators of the constrained output (those of ``json.dumps``), so that the text is
#: what models see in the tool-call examples they were tuned on.
SEPARATORS = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


def constrained_function_names(tools: list[dict] | None, tool_choice: str | dict | None) -> list[str] | None:
    """The functions a completion must call under ``tool_choice``, or None when it is free.

    Raises:
        ValueError: a ``tool_choice`` that is not auto, none, required or an offered function.
    """
    if tool_choice is None or tool_choice in ("auto", "none"):
        return None
    names = [t["function"]["name"] for t in tools or [] if isinstance(t.get("function"), dict)]
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function")
        tool_choice = function.get("name") if isinstance(function, dict) else None
        if not isinstance(tool_choice, str):
            raise ValueError("tool_choice as a dict names a function: {'type': 'function', 'function': {'name': ...}}")
    if not names:
        raise ValueError(f"tool_choice={tool_choice!r} needs tools offered with the request")
    if tool_choice == "required":
        return names
    if tool_choice not in names:
        raise ValueError(f"tool_choice names {tool_choice!r}, which is not an offered tool ({', '.join(names)})")
    return [tool_choice]


#: The most calls in one completion, and items in an array argument whose schema sets no
#: bound: a small model repeats a call or an item until its token budget ends (SmolLM2-135M
#: did, on BFCL), leaving JSON that never closes; the bounds make the grammar close it.
MAX_CALLS = 8
MAX_ITEMS = 8
#: Numbers whose schema sets no bound get at most 8 decimals and 16 digits before the point:
#: Gemma 3 270M wrote ``0.000000...`` until its budget ended (2 of 5 BFCL items cut). A value
#: with more decimals (6.626e-34) cannot be written under ``required``.
NUMBER_STEP = 1e-8
NUMBER_BOUND = 10 ** 16
#: Free strings (no ``maxLength``, ``enum``, ``const`` or ``pattern``) get at most 128 characters:
#: Gemma 3 270M wrote ``"a_t_t_t..."`` in an array of strings until its budget of 1,024 tokens
#: ended (a generated parallel_multiple item). A longer value cannot be written under ``required``.
MAX_STRING = 128
#: The keywords that say what a value is: a schema with none of them admits any JSON.
_TYPE_KEYWORDS = {"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not", "properties", "items"}


def _bounded(schema: Any) -> Any:
    """``schema`` with every array bounded to :data:`MAX_ITEMS` items, every free string to
    :data:`MAX_STRING` characters, every number and integer to :data:`NUMBER_BOUND` (numbers to
    steps of :data:`NUMBER_STEP`), every object to its declared keys or :data:`MAX_ITEMS` free
    ones, and every untyped value to :data:`FREE_VALUE`, where the schema sets no bound. The walk
    follows the keywords that hold schemas (a parameter may be named ``type`` or ``items``)."""
    if not isinstance(schema, dict):
        return schema
    if not _TYPE_KEYWORDS & schema.keys():
        return {**schema, **FREE_VALUE}
    bounded = dict(schema)
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            bounded[key] = {name: _bounded(value) for name, value in schema[key].items()}
    for key in ("items", "additionalProperties"):  # not "not": a bound inside it would widen it
        if isinstance(schema.get(key), dict):
            bounded[key] = _bounded(schema[key])
    for key in ("anyOf", "oneOf", "allOf", "prefixItems", "items"):
        if isinstance(schema.get(key), list):
            bounded[key] = [_bounded(value) for value in schema[key]]
    kind = schema.get("type")
    if kind == "array":
        if "maxItems" not in schema:
            bounded["maxItems"] = max(MAX_ITEMS, schema.get("minItems", 0))
        if "items" not in schema and "prefixItems" not in schema:
            bounded["items"] = FREE_VALUE
    if kind == "string" and not {"maxLength", "enum", "const", "pattern"} & schema.keys():
        bounded["maxLength"] = max(MAX_STRING, schema.get("minLength", 0))
    if kind in ("number", "integer"):
        if not {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} & schema.keys():
            bounded.update(minimum=-NUMBER_BOUND, maximum=NUMBER_BOUND)
        if kind == "number" and "multipleOf" not in schema:
            bounded["multipleOf"] = NUMBER_STEP
    if kind == "object":
        extra = schema.get("additionalProperties", True)
        if extra is True and isinstance(schema.get("properties"), dict):
            bounded["additionalProperties"] = False
        elif extra is not False:
            if extra is True:
                bounded["additionalProperties"] = FREE_VALUE
            if "maxProperties" not in schema:
                bounded["maxProperties"] = max(MAX_ITEMS, schema.get("minProperties", 0))
    return bounded


#: Objects: one that lists its ``properties`` takes no other key unless its schema says so, and
#: one that lists none holds at most :data:`MAX_ITEMS` keys of :data:`FREE_VALUE`, as does a
#: value whose schema names no type. SmolLM2-135M added undeclared keys to a nested object
#: (``"special_instructions.type": ...``) and nested ``{"data": {"data": ...`` in a free one until
#: its budget ended (official live_multiple and live_irrelevance items).
#: (Built by :func:`_bounded`, so a free value is bounded as a typed one is.)
FREE_SCALAR = {"anyOf": [_bounded({"type": "string"}), _bounded({"type": "number"}),
                         {"type": "boolean"}, {"type": "null"}]}
FREE_VALUE = {"anyOf": [*FREE_SCALAR["anyOf"], {"type": "array", "items": FREE_SCALAR, "maxItems": MAX_ITEMS},
                        {"type": "object", "additionalProperties": FREE_SCALAR, "maxProperties": MAX_ITEMS}]}


def tool_calls_schema(tools: list[dict], names: list[str]) -> dict:
    """The JSON schema of a list of one to :data:`MAX_CALLS` calls of the functions ``names``."""
    calls = []
    for tool in tools:
        function = tool.get("function") or {}
        if function.get("name") not in names:
            continue
        parameters = dict(function.get("parameters") or {"type": "object", "properties": {}})
        parameters.setdefault("type", "object")
        parameters["additionalProperties"] = False
        parameters = _bounded(parameters)
        calls.append({"type": "object", "properties": {"name": {"const": function["name"]}, "arguments": parameters},
                      "required": ["name", "arguments"], "additionalProperties": False})
    return {"type": "array", "minItems": 1, "maxItems": MAX_CALLS, "items": {"anyOf": calls}}


def grammar_tokenizer(tokenizer: Any):
    """llguidance's view of a transformers tokenizer (0.5 s to build: a backend keeps it)."""
    try:
        import llguidance.hf
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("tool_choice for hf: models needs llguidance: pip install 'toolgym[models]'") from exc
    return llguidance.hf.from_tokenizer(tokenizer)


#: Tokens the grammar is steered to when a completion must close within its budget, the first
#: one allowed at each token: closing brackets and quotes (several at once where the vocabulary
#: has them), the separator before a required key, then the shortest values. Their order matters
#: where one token means two things: ``"`` ends a string before ``, `` or ``0`` would lengthen
#: it, and ``, `` ends a number before ``0`` would.
CLOSERS = ('"}}]', '}}]', '"}]', '}]', '"]}]', ']}]', '"}}', '}}', '"}', '"]', ']]', ']}', '}', ']', '""', '"',
           ", ", ",", "0", "null", "false", "[]", "{}")


class ToolCallGrammar:
    """Per-row grammar matchers for one ``generate`` call, as a transformers logits processor:
    rows with a schema may only take tokens their grammar allows, and the end of text once it
    is complete; rows without one are left alone.

    The grammar bounds every value, not a completion's length: Gemma 3 270M wrote call after
    call of 128-character strings until its 1,024 tokens ended (official live_irrelevance and
    live_relevance items). So a row also closes within ``max_new_tokens``: it starts no call it
    may not finish (one as long as its longest so far, and ``reserve`` tokens to spare), and in
    its last ``reserve`` tokens it takes the first of :data:`CLOSERS` its grammar allows at each
    token (the model chooses among the allowed tokens where none is, e.g. inside a key or enum).

    Args:
        lltokenizer: :func:`grammar_tokenizer` of the model's tokenizer.
        schemas: Per row, the JSON schema its completion must satisfy, or None.
        eos_id: The token that ends a completion (the grammar stops at the closing bracket).
        max_new_tokens: The rows' token budget; None: no closing before the grammar ends. A
            quarter of it, 16 to 64 tokens, is the ``reserve`` kept for closing.
    """

    def __init__(self, lltokenizer: Any, schemas: list[dict | None], eos_id: int, max_new_tokens: int | None = None):
        import llguidance
        import llguidance.torch

        self._apply = llguidance.torch.apply_token_bitmask_inplace
        self._fill = llguidance.torch.fill_next_token_bitmask
        self.matchers = []
        for schema in schemas:
            if schema is None:
                self.matchers.append(None)
                continue
            grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema), defaults=SEPARATORS)
            matcher = llguidance.LLMatcher(lltokenizer, grammar)
            if matcher.is_error():
                raise ValueError(f"the tools' schemas make no grammar: {matcher.get_error()}")
            self.matchers.append(matcher)
        self.bitmask = llguidance.torch.allocate_token_bitmask(len(schemas), lltokenizer.vocab_size)
        self.vocab_size = lltokenizer.vocab_size
        self.eos_id = eos_id
        self.lltokenizer = lltokenizer
        self.max_new_tokens = max_new_tokens
        self.reserve = min(64, max(16, (max_new_tokens or 0) // 4))
        self.closers = []  # the CLOSERS that are one token of this vocabulary
        for text in CLOSERS:
            ids = lltokenizer.tokenize_str(text)
            if len(ids) == 1 and lltokenizer.decode_str(ids) == text:
                self.closers.append(ids[0])
        self.shape = [_CallShape() for _ in schemas]
        self.steps = 0

    def __call__(self, input_ids, scores):
        rows = []
        for row, matcher in enumerate(self.matchers):
            if matcher is None:
                continue
            if self.steps and not matcher.is_stopped():
                token = int(input_ids[row, -1])
                matcher.consume_token(token)
                self.shape[row].read(self.lltokenizer.decode_bytes([token]), self.steps)
            if matcher.is_stopped():  # the calls are complete: end the text
                eos_score = scores[row, self.eos_id].clone()
                scores[row] = float("-inf")
                scores[row, self.eos_id] = eos_score
                continue
            self._fill(matcher, self.bitmask, row)
            rows.append(row)
        for row in rows:
            allowed = scores[row:row + 1, :self.vocab_size].float()
            self._apply(allowed, self.bitmask[row:row + 1])
            scores[row, :self.vocab_size] = allowed[0].to(scores.dtype)
            scores[row, self.vocab_size:] = float("-inf")  # the embedding's padding ids, past the tokenizer's
            if self._must_close(row):
                self._steer_to_closers(row, scores)
        self.steps += 1
        return scores

    def _must_close(self, row: int) -> bool:
        if self.max_new_tokens is None:
            return False
        left = self.max_new_tokens - self.steps - 1  # tokens after this one, the end of text among them
        shape = self.shape[row]
        return left < self.reserve or (shape.between_calls() and left < shape.longest_call + self.reserve)

    def _steer_to_closers(self, row: int, scores) -> None:
        words = self.bitmask[row]
        for token in self.closers:
            if int(words[token // 32]) >> (token % 32) & 1:
                score = scores[row, token].clone()
                scores[row] = float("-inf")
                scores[row, token] = score
                return


class _CallShape:
    """Where a row's completion stands in its list of calls: the JSON nesting depth outside
    strings, read from the bytes of each token, and the length in tokens of its longest call."""

    def __init__(self):
        self.depth = 0
        self.in_string = self.escaped = False
        self.calls = 0
        self.call_start = 0
        self.longest_call = 0

    def read(self, data: bytes, step: int) -> None:
        for byte in data:
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif byte == 0x5C:  # backslash
                    self.escaped = True
                elif byte == 0x22:
                    self.in_string = False
            elif byte == 0x22:
                self.in_string = True
            elif byte in (0x5B, 0x7B):  # [ {
                self.depth += 1
                if self.depth == 2:
                    self.call_start = step
            elif byte in (0x5D, 0x7D):  # ] }
                self.depth -= 1
                if self.depth == 1:
                    self.calls += 1
                    self.longest_call = max(self.longest_call, step - self.call_start + 1)

    def between_calls(self) -> bool:
        """After a call, before the next one opens (its comma may be written)."""
        return self.calls > 0 and self.depth == 1
