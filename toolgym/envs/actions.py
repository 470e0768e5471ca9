"""Action parsing shared by all tool envs. Model output is parsed, never evaluated.

An action is one of:
- a dict or JSON object ``{"name": ..., "arguments": {...}}`` (OpenAI's
  ``{"type": "function", "function": {"name", "arguments": "<json>"}}`` also works);
- Python call syntax ``Name(k=v, ...)``, parsed with :mod:`ast`, literal arguments only;
- any other text, which conversational envs take as the assistant's reply.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Any = field(default_factory=dict)


@dataclass(frozen=True)
class TextReply:
    text: str


@dataclass(frozen=True)
class Unparseable:
    """An action that looked like a tool call but could not be read; ``error`` says why."""

    text: str
    error: str


Action = ToolCall | TextReply | Unparseable


def parse_action(action: Any, signatures: dict[str, Sequence[str]] | None = None) -> Action:
    """Read an agent's action.

    Args:
        action: A dict or a string.
        signatures: Parameter names in order, per tool, for positional arguments in call syntax.
    """
    if isinstance(action, dict):
        return _from_mapping(action, str(action))
    if not isinstance(action, str):
        return Unparseable(repr(action)[:200], f"actions are strings or dicts, not {type(action).__name__}")
    text = action.strip()
    if text.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            return Unparseable(text, f"malformed JSON: {exc}")
        if not isinstance(value, dict):
            return Unparseable(text, "a JSON action must be an object with 'name' and 'arguments'")
        return _from_mapping(value, text)
    call = parse_call(text, signatures)
    return call if call is not None else TextReply(action)


def _from_mapping(value: dict, text: str) -> Action:
    if isinstance(value.get("function"), dict):  # OpenAI tool_call shape
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return Unparseable(text, "a tool call needs a string 'name'")
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            pass  # still a call of `name`: the tool reports its unreadable arguments
    return ToolCall(name, arguments)


def parse_call(text: str, signatures: dict[str, Sequence[str]] | None = None) -> Action | None:
    """Parse ``Name(k=v, ...)``; None if the text is not a single call expression."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    name = node.func.id
    try:
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                return Unparseable(text, "**kwargs are not allowed in a tool call")
            kwargs[kw.arg] = ast.literal_eval(kw.value)
        positional = [ast.literal_eval(a) for a in node.args]
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return Unparseable(text, f"arguments of {name} must be literals (strings, numbers, lists, dicts)")
    if positional:
        order = list((signatures or {}).get(name, ()))
        if len(positional) > len(order):
            return Unparseable(text, f"{name} takes its arguments by name, as {name}(key=value)")
        for key, value in zip(order, positional):
            if key in kwargs:
                return Unparseable(text, f"{name} got two values for '{key}'")
            kwargs[key] = value
    return ToolCall(name, kwargs)
