"""Turn what a model emitted into env actions. Model output is parsed, never evaluated.

A parser takes the completion's text (and native ``tool_calls`` when the server returned
them) and returns a non-empty list of actions: a tool call as ``{"name", "arguments"}``, or a
string (a reply, a curl line, a program, a plan). Several calls in one completion become
several actions, taken one per step. Output that looks like a call but cannot be read is
passed on as the malformed call itself, so that the env rejects it with an error observation;
anything else is the assistant's text. No parser raises.

Parsers: ``tool_call`` (OpenAI ``tool_calls``, Mistral ``[TOOL_CALLS]``, Hermes/Qwen
``<tool_call>``, Llama-3 ``<|python_tag|>`` / JSON with ``parameters``, JSON objects also in
code fences, Python call syntax ``Name(k=v)``, ReAct ``Action:``), ``react``, ``curl``,
``program``, ``plan``, ``text``, ``bfcl`` (all of a BFCL answer's calls as one action) and ``bfcl-fc``
(the same in function-calling mode, where text is an answer and never a call).
"""

from __future__ import annotations

import json
import re
from typing import Any
from collections.abc import Callable, Sequence

from toolgym.envs.common.actions import (
    ToolCall, Unparseable, extract_curl, extract_plan, extract_program, fenced_blocks, parse_call,
)

Action = Any  # dict tool call or str
Parser = Callable[[str, Sequence[dict], Sequence[str]], list]

# Bodies are stripped after matching: a "\s*" before the closing tag makes the lazy body retry
# every run of blanks in it, quadratic in a call holding a long run of spaces.
_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
MAX_JSON_SCAN = 16_000
_SPECIAL = re.compile(r"<\|(?:eot_id|eom_id|im_end|end|endoftext)\|>|</s>")


def _clean(text: str) -> str:
    return _SPECIAL.sub("", text or "").strip()


def _json_values(text: str) -> list[tuple[Any, int, int]]:
    """Every top-level JSON object or array in the first ``MAX_JSON_SCAN`` characters of
    ``text``: (value, start, end), up to a nesting too deep to decode. Each failed decoding
    costs time proportional to its position (the error locates itself), hence the bound."""
    text = text[:MAX_JSON_SCAN]
    decoder = json.JSONDecoder()
    found, i = [], 0
    next_open = {"{": text.find("{"), "[": text.find("[")}  # searched again only once passed: linear
    while True:
        for char, at in next_open.items():
            if 0 <= at < i:
                next_open[char] = text.find(char, i)
        starts = [j for j in next_open.values() if j >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            i = start + 1
            continue
        except RecursionError:  # nested too deep to decode, as would be most starts after it
            return found
        found.append((value, start, end))
        i = end


def _as_call(value: Any) -> dict | None:
    """A tool call dict from the shapes models write, or None if ``value`` is not one."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # OpenAI shape
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not ("arguments" in value or "parameters" in value):
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):  # JSON-encoded arguments, as in OpenAI tool_calls
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return {"name": name, "arguments": arguments}  # the env reports the malformed JSON
    return {"name": name, "arguments": arguments if arguments is not None else {}}


def _calls_in_json_text(text: str) -> list[dict] | None:
    """Calls in a JSON text that is a call or a list of calls; None if it is not."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    items = value if isinstance(value, list) else [value]
    calls = [_as_call(v) for v in items]
    return calls if calls and all(calls) else None


def _native_calls(tool_calls: Sequence[dict]) -> list:
    out = []
    for call in tool_calls:
        parsed = _as_call(call if "function" in call else {"function": call})
        out.append(parsed if parsed else json.dumps(call))
    return out


def parse_turn(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """A model's whole turn as one action, as τ²'s agent takes it: its native tool calls (their
    ids kept) with its text, ``{"content": ..., "tool_calls": [...]}``; else its text."""
    if tool_calls:
        return [{"content": text or None, "tool_calls": [dict(call) for call in tool_calls]}]
    return [text]


def parse_tool_call(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """Chat models' tool calls in any common format; otherwise the text is the reply."""
    if tool_calls:
        return _native_calls(tool_calls)
    text = _clean(text)
    known = set(tool_names)

    if "[TOOL_CALLS]" in text:  # Mistral: [TOOL_CALLS][{...}] or [TOOL_CALLS]name[ARGS]{...}
        body = text.split("[TOOL_CALLS]", 1)[1].strip()
        if "[ARGS]" in body:
            calls = []
            for chunk in body.split("[TOOL_CALLS]"):
                name, _, args = chunk.partition("[ARGS]")
                parsed = _as_call({"name": name.strip(), "arguments": args.strip()})
                calls.append(parsed or chunk.strip())
            return calls
        return _calls_in_json_text(body) or [body]

    if "<tool_call>" in text:  # Hermes / Qwen
        calls = []
        for body in map(str.strip, _HERMES.findall(text)):
            parsed = _calls_in_json_text(body) or [_python_call(body, known) or body]
            calls.extend(parsed)
        return calls or [text]

    if "<|python_tag|>" in text:  # Llama 3.1: JSON calls separated by ';'
        body = text.split("<|python_tag|>", 1)[1].strip()
        calls = []
        for part in (p.strip() for p in body.split(";")):
            if part:
                calls.extend(_calls_in_json_text(part) or [part])
        return calls or [body]

    for lang, body in fenced_blocks(text):  # ```json {...}``` or ```python Name(...)```
        calls = _calls_in_json_text(body)
        if calls:
            return calls
        if body.startswith(("{", "[")) and lang in ("json", ""):
            return [body]  # a malformed JSON call: let the env say what is wrong
        call = _python_call(body, known)
        if call is not None:
            return [call]

    calls = _calls_in_json_text(text)
    if calls:
        return calls
    if text.startswith("{") and '"name"' in text:
        for value, _, _ in _json_values(text):
            if _as_call(value):
                return [_as_call(value)]
        return [text]  # malformed: the env rejects it as a call
    for value, _, _ in _json_values(text):  # a call embedded in prose
        call = _as_call(value)
        if call and (not known or call["name"] in known):
            return [call]

    call = _python_call(text, known)
    if call is not None:
        return [call]
    if _REACT_ACTION.search(text):
        return parse_react(text, (), tool_names)
    return [text]


def _python_call(text: str, known: set[str]) -> Action | None:
    """``Name(k=v)`` for a known tool (or any name when the tool list is unknown)."""
    match = re.match(r"\s*([A-Za-z_]\w*)\s*\(", text)
    if not match or (known and match.group(1) not in known):
        return None
    parsed = parse_call(text.strip())
    if isinstance(parsed, ToolCall):
        return {"name": parsed.name, "arguments": parsed.arguments}
    if isinstance(parsed, Unparseable):
        return text.strip()  # the env's own parser reports why
    return None


# Blanks before a field stop at the line's start: "^\s*" under re.M would also run over blank
# lines from every line start before the field, quadratic in a text of newlines; the field is
# found at its own line's start all the same.
_REACT_FIELD = re.compile(r"^[^\S\n]*+(Thought|Action Input|Action|Observation|Final Answer)\s*+:\s*", re.M)
_REACT_ACTION = re.compile(r"^[^\S\n]*+Action\s*+:", re.M)


def react_fields(text: str) -> list[tuple[str, str]]:
    """(field, value) pairs of a ReAct output, in order."""
    matches = list(_REACT_FIELD.finditer(text))
    return [(m.group(1), text[m.end(): matches[i + 1].start() if i + 1 < len(matches) else len(text)].strip())
            for i, m in enumerate(matches)]


def parse_react(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """ReAct: ``Action:`` + ``Action Input:`` is a call, ``Final Answer:`` the reply."""
    if tool_calls:
        return _native_calls(tool_calls)
    text = _clean(text)
    fields = react_fields(text)
    for i, (key, value) in enumerate(fields):
        if key == "Final Answer":
            return [value]
        if key == "Action":
            name = value.splitlines()[0].strip().strip("`") if value else ""
            raw = next((v for k, v in fields[i + 1:i + 2] if k == "Action Input"), "")
            raw = raw.strip().strip("`").removeprefix("json").strip()
            if not name:
                return ['{"name": null, "arguments": {}}']  # rejected by the env: no tool named
            if not raw:
                return [{"name": name, "arguments": {}}]
            try:
                arguments = json.loads(raw)
            except (json.JSONDecodeError, RecursionError):
                values = _json_values(raw)
                arguments = values[0][0] if values else raw  # a raw string is reported by the env
            return [{"name": name, "arguments": arguments}]
    return [text]


def parse_curl(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """A curl command (:func:`toolgym.envs.common.actions.extract_curl`, as the env reads a raw
    completion); native tool calls of the REST envs' endpoint tools pass on as calls."""
    if tool_calls:
        return _native_calls(tool_calls)
    return [extract_curl(_clean(text))]


def parse_program(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """A program (ToolBench API calls, code-as-policies): :func:`toolgym.envs.common.actions.extract_program`."""
    return [extract_program(_clean(text))]


def parse_plan(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """AppBench's plan: :func:`toolgym.envs.common.actions.extract_plan` (code block, no ``Plan:`` cue)."""
    return [extract_plan(_clean(text))]


def parse_text(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    return [_clean(text)]


def curl_complete(text: str) -> bool:
    """Whether ``text`` already holds the command :func:`parse_curl` reads: a line that starts
    with ``curl`` and has ended (a newline after it, the line not continued by a backslash).
    What a model writes after that line is never read."""
    *ended, _ = text.replace("\\\n", " ").split("\n")  # the last piece may still be growing
    return any(line.strip().lstrip("$ ").strip().startswith("curl") for line in ended)


def parse_bfcl(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """BFCL's answer is one action however many calls it holds (parallel calls are judged
    together): native calls as one list, else the completion's text (``[f(a=1), g(b=2)]``)."""
    if tool_calls:
        return [_native_calls(tool_calls)]
    return [_clean(text)]


def parse_bfcl_fc(text: str, tool_calls: Sequence[dict] = (), tool_names: Sequence[str] = ()) -> list:
    """BFCL's function-calling mode: native calls as one action; a completion without them is a
    text answer, passed as an assistant message so that the env never reads its text as calls
    (BFCL's FC decoder reads native calls only)."""
    if tool_calls:
        return [_native_calls(tool_calls)]
    return [{"role": "assistant", "content": _clean(text)}]


PARSERS: dict[str, Parser] = {
    "tool_call": parse_tool_call,
    "turn": parse_turn,
    "react": parse_react,
    "curl": parse_curl,
    "program": parse_program,
    "plan": parse_plan,
    "text": parse_text,
    "bfcl": parse_bfcl,
    "bfcl-fc": parse_bfcl_fc,
}


def get_parser(name: str) -> Parser:
    if name not in PARSERS:
        raise ValueError(f"unknown parser {name!r}; known: {', '.join(sorted(PARSERS))}")
    return PARSERS[name]


#: Parser name -> a test of whether a completion is complete for it: generation of that row can
#: stop there (the curl parser reads one line, and a model that goes on explaining it would hold
#: a lockstep batch to ``max_new_tokens``).
ACTION_COMPLETE: dict[str, Callable[[str], bool]] = {"curl": curl_complete}
