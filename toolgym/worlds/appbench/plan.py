"""Plans: sequences of API calls routed through apps, where an argument may reference a
field returned by an earlier call.

Two written forms are read (never evaluated):

- the paper's text form, one call per line::

      Restaurants: [restaurant_name, address = findrestaurants(#category='Korean', #location='San Jose')]
      Restaurants: [date, time = reserverestaurant(#restaurant_name=restaurant_name, #time='13:30')]

  Quoted values are literals; a bare name (``restaurant_name``) or ``#name`` is a reference to
  the field of that name returned by an earlier call. The ``#`` before argument keys, the
  square brackets and the returned names are optional.
- JSON: a list of ``{"app", "api", "arguments", "returns"}`` objects, where a string value
  ``"#field"`` is a reference and any other value is a literal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Ref:
    """A dependency: the value of ``field`` returned by an earlier call."""

    field: str

    def __str__(self) -> str:
        return f"#{self.field}"


Value = str | Ref


@dataclass
class Call:
    app: str
    api: str
    arguments: dict[str, Value] = field(default_factory=dict)
    returns: tuple[str, ...] = ()

    def render(self) -> str:
        """The paper's text form (references bare, as in the official data)."""
        args = ", ".join(f"#{k}={v.field if isinstance(v, Ref) else _quote(v)}" for k, v in self.arguments.items())
        head = f"{', '.join(self.returns)} = " if self.returns else ""
        return f"{self.app}: [{head}{self.api}({args})]"

    def as_json(self) -> dict:
        return {"app": self.app, "api": self.api, "returns": list(self.returns),
                "arguments": {k: str(v) if isinstance(v, Ref) else v for k, v in self.arguments.items()}}


@dataclass
class ParsedPlan:
    calls: list[Call]
    errors: list[str]


def _quote(value: str) -> str:
    return f"'{value}'"


def render_plan(calls: list[Call]) -> str:
    return "\n".join(call.render() for call in calls)


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_LINE = re.compile(r"^\s*(?:(?P<app>[A-Za-z_]\w*)\s*:)?\s*\[?\s*(?P<body>.*?)\s*\]?\s*$", re.S)
_CALL = re.compile(r"^(?:(?P<returns>[\w\s,]*?)\s*=\s*)?(?P<api>[A-Za-z_]\w*)\s*\((?P<args>.*)\)$", re.S)
_KEY = re.compile(r"\s*#?(?P<key>[A-Za-z_]\w*)\s*=\s*")
# A quoted value ends at the quote that is followed by the next "key=" or by the end, so
# apostrophes inside names (Mcdonald's) survive, as in the official data.
_QUOTED = {q: re.compile(q + r"(?P<v>.*?)" + q + r"\s*(?=,\s*#?[A-Za-z_]\w*\s*=|$)", re.S) for q in ("'", '"')}
_QUOTED_LOOSE = {q: re.compile(q + r"(?P<v>.*?)" + q + r"\s*(?=,|$)", re.S) for q in ("'", '"')}
_BARE = re.compile(r"(?P<v>[^,]*?)\s*(?=,\s*#?[A-Za-z_]\w*\s*=|$)", re.S)
_NAME = re.compile(r"[A-Za-z_]\w*")


def parse_arguments(text: str) -> dict[str, Value]:
    """Arguments of one call: ``#k='literal'``, ``k=field`` or ``k=#field``, comma separated."""
    args: dict[str, Value] = {}
    pos, text = 0, text.strip()
    while pos < len(text):
        key = _KEY.match(text, pos)
        if key is None:
            raise ValueError(f"cannot read an argument at {text[pos:pos + 30]!r} (expected key=value)")
        pos = key.end()
        quote = text[pos:pos + 1]
        if quote in _QUOTED:
            found = _QUOTED[quote].match(text, pos) or _QUOTED_LOOSE[quote].match(text, pos)
        else:
            found = _BARE.match(text, pos)
        if found is None:
            raise ValueError(f"unterminated quoted value of {key['key']!r}")
        raw = found["v"]
        if quote in _QUOTED:
            value: Value = raw
        elif raw.startswith("#") and _NAME.fullmatch(raw[1:]):
            value = Ref(raw[1:])
        elif _NAME.fullmatch(raw) and raw not in ("True", "False", "None"):
            value = Ref(raw)
        elif raw:
            value = raw
        else:
            raise ValueError(f"argument {key['key']!r} has no value")
        if key["key"] in args:
            raise ValueError(f"argument {key['key']!r} is given twice")
        args[key["key"]] = value
        pos = found.end()
        comma = re.compile(r"\s*,\s*").match(text, pos)
        if comma:
            pos = comma.end()
    return args


def parse_plan_text(text: str) -> ParsedPlan:
    """Read a plan in the paper's text form; lines without a call are prose and skipped."""
    calls, errors = [], []
    for number, line in enumerate(text.splitlines(), 1):
        line = _BULLET.sub("", line).strip()
        if not line or "(" not in line or line.startswith("```"):
            continue
        parts = _LINE.match(line)
        body = parts["body"].strip()
        found = _CALL.match(body)
        if found is None:
            errors.append(f"line {number}: not an API call: {line[:80]!r}")
            continue
        try:
            arguments = parse_arguments(found["args"])
        except ValueError as exc:
            errors.append(f"line {number}: {exc}")
            continue
        returns = tuple(r.strip() for r in (found["returns"] or "").split(",") if r.strip())
        calls.append(Call(app=parts["app"] or "", api=found["api"], arguments=arguments, returns=returns))
    return ParsedPlan(calls, errors)


def literal(value: Any) -> str:
    """A JSON scalar as the string the apps take (booleans as 'True'/'False', 3.0 as '3')."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_plan_json(value: Any) -> ParsedPlan:
    """Read a plan given as JSON (a list of call objects, or ``{"plan": [...]}``)."""
    if isinstance(value, dict) and isinstance(value.get("plan"), list):
        value = value["plan"]
    if not isinstance(value, list):
        return ParsedPlan([], ["a JSON plan must be a list of {app, api, arguments, returns} objects"])
    calls, errors = [], []
    for i, item in enumerate(value, 1):
        if not isinstance(item, dict) or not isinstance(item.get("api"), str) or not item["api"]:
            errors.append(f"call {i}: needs a string 'api'")
            continue
        app = item.get("app", "")
        raw_args = item.get("arguments", {})
        raw_returns = item.get("returns", [])
        if not isinstance(app, str) or not isinstance(raw_args, dict) or not isinstance(raw_returns, list):
            errors.append(f"call {i}: 'app' must be a string, 'arguments' an object, 'returns' a list")
            continue
        arguments: dict[str, Value] = {}
        for key, v in raw_args.items():
            if isinstance(v, (dict, list)) or v is None:
                errors.append(f"call {i}: argument {key!r} must be a string or number")
                break
            text = literal(v)
            arguments[str(key)] = Ref(text[1:]) if text.startswith("#") and _NAME.fullmatch(text[1:]) else text
        else:
            calls.append(Call(app=app, api=item["api"], arguments=arguments,
                              returns=tuple(str(r) for r in raw_returns)))
    return ParsedPlan(calls, errors)


def parse_plan(action: Any) -> ParsedPlan:
    """Read a plan in either form (a JSON string or object, or text)."""
    if isinstance(action, (list, dict)):
        return parse_plan_json(action)
    if not isinstance(action, str):
        return ParsedPlan([], [f"a plan is text or JSON, not {type(action).__name__}"])
    stripped = action.strip()
    if stripped.startswith(("[{", "{")) or stripped == "[]":
        try:
            return parse_plan_json(json.loads(stripped))
        except (json.JSONDecodeError, RecursionError) as exc:
            return ParsedPlan([], [f"malformed JSON plan: {exc}"])
    return parse_plan_text(action)
