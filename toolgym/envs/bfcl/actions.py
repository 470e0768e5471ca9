"""Reading a model's calls in BFCL's two modes: native tool calls and the prompting format.

Native: one OpenAI-style tool call (a dict or JSON object, read by
:func:`toolgym.envs.common.actions.parse_action`) or a list of them, or an OpenAI assistant message
(its ``tool_calls``; without them its text is an answer without a call, never read as calls, as
BFCL's function-calling decoder reads native calls only). Prompting: BFCL's
``[func(a=1), other(b='x')]``; Python is read by :mod:`toolgym.worlds.bfcl.calls` (ast, never
evaluated); Java and JavaScript as BFCL's tree-sitter decoders read them, by a scanner of
their call syntax: each argument's value is its source text, a string literal without its
quotes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolgym.envs.common.actions import Unparseable, json_text, mapping_call
from toolgym.worlds.bfcl.calls import CallSyntaxError, parse_calls


class DecodeError(ValueError):
    """The action holds no call list in either of BFCL's formats."""


def read_calls(action: Any, language: str = "python") -> list[tuple[str, dict]]:
    """The calls of an action, in order, each ``(name, arguments)`` with the arguments a dict;
    ``[]`` for an answer without a call.

    Raises:
        DecodeError: the action looks like calls but does not read (BFCL's decoder failure),
            or is plain text (BFCL's decoder fails on text too; the caller decides what that means).
    """
    if is_message(action):
        if action.get("tool_calls"):
            return _native(action["tool_calls"])
        raise DecodeError("an answer in text, without a call")  # BFCL's FC decoder reads native calls only
    if isinstance(action, (dict, list)):
        return _native(action)
    if not isinstance(action, str):
        raise DecodeError(f"actions are strings, dicts or lists, not {type(action).__name__}")
    text = action.strip()
    if text.startswith(("{", "[{")) or text == "[]":
        try:
            return _native(json.loads(text))
        except (ValueError, RecursionError):
            pass  # not JSON: read as the prompting format below
    # BFCL's default_decode_ast_prompting: strip backticks and blanks, add the brackets it lacks.
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    if language == "python":
        try:
            return parse_calls(text.strip("'"))
        except CallSyntaxError as exc:
            raise DecodeError(str(exc)) from None
    return source_calls(text[1:-1], language)


def is_message(action: Any) -> bool:
    """An OpenAI assistant message (``{"role": "assistant", "content": ..., "tool_calls": [...]}``):
    function-calling mode's answer, whose text is never read as calls."""
    return isinstance(action, dict) and action.get("role") == "assistant"


def answer_text(action: Any) -> str:
    """The text an action shows in the conversation: a string itself, an assistant message's
    content (or its calls as JSON), anything else as JSON."""
    if isinstance(action, str):
        return action
    if is_message(action) and not action.get("tool_calls"):
        return str(action.get("content") or "")
    return json_text(action)


def _native(value: Any) -> list[tuple[str, Any]]:
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            raise DecodeError("a list of tool calls holds only objects")
        call = mapping_call(item)  # parse_action's reading of a dict
        if isinstance(call, Unparseable):
            raise DecodeError(call.error)
        if not isinstance(call[1], dict):
            raise DecodeError(f"{call[0]}: the arguments are not a JSON object")
        calls.append(call)
    return calls


_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside quotes and brackets."""
    parts, depth, quote, start, i = [], [], None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif ch in _PAIRS:
            depth.append(_PAIRS[ch])
        elif ch in ")]}":
            if not depth or depth.pop() != ch:
                raise DecodeError(f"unbalanced {ch!r} at {i}")
        elif ch == sep and not depth:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if quote or depth:
        raise DecodeError("an unclosed quote or bracket")
    parts.append(text[start:])
    return parts


_ARGUMENT_START = re.compile(r"\s*[A-Za-z_$][\w$]*\s*=(?!=)")


def _arguments(body: str) -> list[str]:
    """The ``name=value`` parts of an argument list. A comma inside angle brackets
    (``new HashMap<String, Object>()``) splits nothing: a piece that does not start a new
    ``name=`` joins the one before."""
    parts: list[str] = []
    for piece in _split_top(body, ",") if body.strip() else []:
        if parts and not _ARGUMENT_START.match(piece):
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return parts


def _is_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split(".")) and bool(text)


def source_calls(text: str, language: str) -> list[tuple[str, dict]]:
    """Java or JavaScript calls ``f(a=1, b="x"), g(c=new int[]{1})``: values as source text."""
    calls = []
    for chunk in _split_top(text, ","):
        chunk = chunk.strip()
        if not chunk:
            continue
        name, paren, rest = chunk.partition("(")
        name = name.strip()
        if not paren or not rest.endswith(")") or not _is_name(name):
            raise DecodeError(f"not a call: {chunk[:80]}")
        arguments = {}
        body = rest[:-1]
        for part in _arguments(body):
            key, eq, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key.isidentifier() or not value:
                raise DecodeError(f"{name}: arguments must be given as name=value")
            # a string or char literal as a whole, not '"a", "b"' text that merely starts and ends with quotes
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" and \
                    len(_split_top(value, ",")) == 1:
                value = value[1:-1]
            arguments[key] = value
        calls.append((name, arguments))
    return calls
