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
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from toolgym.worlds import jsontext


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

#: ``json.dumps(value, default=str)``, its encoder made once (``json.dumps`` with any keyword builds
#: a new encoder per call, which cost more than a cheap tool).
_write_lenient = jsontext.dumps(default=str)


def json_text(value: Any) -> str:
    """``json.dumps(value, default=str)``: how an action or a call's arguments are written into the
    conversation (anything JSON cannot write as its ``str``)."""
    return _write_lenient(value)


def parse_action(action: Any, signatures: dict[str, Sequence[str]] | None = None) -> Action:
    """Read an agent's action.

    Args:
        action: A dict or a string.
        signatures: Parameter names in order, per tool, for positional arguments in call syntax.
    """
    if isinstance(action, (ToolCall, TextReply, Unparseable)):
        return action  # already read (an env passes its own Unparseable for a refused action)
    if isinstance(action, dict):
        return _from_mapping(action, None)  # its text (str of the dict) made only if it is refused
    if not isinstance(action, str):
        return Unparseable(repr(action)[:200], f"actions are strings or dicts, not {type(action).__name__}")
    text = action.strip()
    if text.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:  # ValueError: also an integer past Python's digit limit
            return Unparseable(text, f"malformed JSON: {exc}")
        if not isinstance(value, dict):
            return Unparseable(text, "a JSON action must be an object with 'name' and 'arguments'")
        return _from_mapping(value, text)
    call = parse_call(text, signatures)
    return call if call is not None else TextReply(action)


def _from_mapping(action: dict, text: str | None) -> Action:
    call = mapping_call(action, text)
    return call if isinstance(call, Unparseable) else ToolCall(*call)


def mapping_call(action: dict, text: str | None = None) -> tuple[str, Any] | Unparseable:
    """A dict action's call as ``(name, arguments)``, as :func:`parse_action` reads it (for a
    caller that reads many calls and needs no :class:`ToolCall`); ``text``: the action's text, for
    an :class:`Unparseable` (``str(action)`` when None)."""
    value = action["function"] if isinstance(action.get("function"), dict) else action  # OpenAI tool_call shape
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return Unparseable(str(action) if text is None else text, "a tool call needs a string 'name'")
    arguments = value["arguments"] if "arguments" in value else value.get("parameters", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            pass  # still a call of `name`: the tool reports its unreadable arguments
    return name, arguments


def parse_call(text: str, signatures: dict[str, Sequence[str]] | None = None) -> Action | None:
    """Parse ``Name(k=v, ...)``; None if the text is not a single call expression."""
    text = text.strip()
    # A call has a parenthesis and starts with a name, an opening parenthesis or a comment;
    # a plain reply is turned away here, before the parser (a tenth of a ToolTalk step).
    if "(" not in text or not (text[0].isidentifier() or text[0] in "(#"):
        return None
    try:
        tree = ast.parse(text, mode="eval")
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


# -- the action in a model's raw completion ----------------------------------------------------
# One implementation for the single-step envs and the LLM agent's parsers, so that what an env
# prompts for and what it accepts agree. Every pattern here runs in linear time.
_STOP_LINE = re.compile(r"^[ \t]*(?:Task[ \t]*:|-{5,}).*$", re.M)
_FENCE = re.compile(r"```[ \t]*+([\w+-]*+)[ \t]*+\n(.*?)(?:```|$)", re.S)  # possessive: no backtracking
_ACTION_CUE = re.compile(r"^[ \t]*Actions?[ \t]*:[ \t]*", re.M)
_PLAN_CUE = re.compile(r"^\s*Plan\s*:\s*")


def braced_span(text: str) -> str | None:
    """The text from the first ``{`` to the last ``}`` after it (what ``re.search(r"\\{.*\\}",
    text, re.S)`` matches), or None: two scans, where that pattern tries every ``{`` against the
    rest of the text, quadratic in a text of ``{``."""
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else None


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block; an unclosed last fence runs to the end."""
    return [(lang.lower(), body.strip()) for lang, body in _FENCE.findall(text)]


def extract_program(text: str) -> str:
    """The action of a completion of a ToolBench-style prompt, which ends with ``Action:``.

    The ToolBench prompts end with the ``Action:`` cue, and the released generator stops
    the model at ``Task:`` and ``------``; chat models also wrap code in fences. So:

    1. The completion is cut at every line that starts with ``Task:`` or five or more dashes
       (where the model goes on to invent the next task), and the first part that is not blank
       once steps 2 and 3 are applied is the action: a completion that first repeats the
       ``Task:`` line still yields the action after it.
    2. In that part, the body of the first fenced code block (```` ```python ... ``` ````, an
       unclosed fence runs to the end) is the action, if there is a fence;
    3. otherwise, the text after the last ``Action:`` (or ``Actions:``) cue that starts a line.
    4. The result is stripped of surrounding whitespace; ``""`` if nothing is left.

    Args:
        text: The model's completion.

    Returns:
        The program (or command) text; nothing is parsed or evaluated.
    """
    for part in _STOP_LINE.split(text):
        fence = _FENCE.search(part)
        action = fence.group(2) if fence else _ACTION_CUE.split(part)[-1]
        if action.strip():
            return action.strip()
    return ""


def extract_curl(text: str) -> str:
    """The curl command of a completion, as the released ToolBench evaluator keeps it.

    The action is first taken with :func:`extract_program`; lines continued with a trailing
    backslash are joined. The first line that starts with ``curl`` (after stripping blanks
    and a shell prompt ``$``) is the command, as the released OpenWeather and Cat API
    evaluators keep it; without such a line the whole action is returned.
    """
    action = extract_program(text)
    for line in action.replace("\\\n", " ").split("\n"):
        line = line.strip().lstrip("$ ").strip()
        if line.startswith("curl"):
            return line
    return action


def extract_plan(text: str) -> str:
    """An AppBench plan in a completion: the first fenced block's body if there is one, else
    the whole text, without a leading ``Plan:`` cue."""
    fence = _FENCE.search(text)
    body = fence.group(2).strip() if fence else text
    return _PLAN_CUE.sub("", body, count=1)
