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

import bisect
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


# Every pattern here is matched at known positions and cannot backtrack more than linearly;
# the values' ends are found by scanning, since lazy patterns followed by optional blanks
# take quadratic or cubic time on long runs of blanks.
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_APP = re.compile(r"\s*(?P<app>[A-Za-z_]\w*)\s*:")
_RETURNS = re.compile(r"[\w\s,]*")
_KEY = re.compile(r"\s*#?(?P<key>[A-Za-z_]\w*)\s*=\s*")
_NEXT_KEY = re.compile(r",\s*#?[A-Za-z_]\w*\s*=")
_COMMA = re.compile(r"\s*,\s*")
_NAME = re.compile(r"[A-Za-z_]\w*")
QUOTES = ("'", '"')


def _split_line(line: str) -> tuple[str | None, str]:
    """``App: [body]`` -> (app or None, body); the app, the brackets and blanks are optional."""
    app = _APP.match(line)
    rest = line[app.end():] if app else line
    rest = rest.lstrip()
    if rest.startswith("["):
        rest = rest[1:]
    rest = rest.strip()
    if rest.endswith("]"):
        rest = rest[:-1].rstrip()
    return (app["app"] if app else None), rest


def _split_call(body: str) -> tuple[str | None, str, str] | None:
    """``returns = api(args)`` -> (returns or None, api, args); None if ``body`` is not a call."""
    if not body.endswith(")") or "(" not in body:
        return None
    head, _, args = body[:-1].partition("(")
    returns, equals, api = head.rpartition("=")
    if not _NAME.fullmatch(api.strip() if equals else api.rstrip()):
        return None
    if equals and not _RETURNS.fullmatch(returns):
        return None
    return (returns.rstrip() if equals else None), api.strip(), args


def _value_ends(text: str, quote: str) -> tuple[list[int], list[int]]:
    """Positions of the quotes that can close a quoted value: those followed (after blanks)
    by the next ``key=`` or the end, and those followed by any comma or the end."""
    strict, loose = [], []
    at = text.find(quote)
    while at >= 0:
        after = at + 1
        while after < len(text) and text[after].isspace():
            after += 1
        if after == len(text) or text[after] == ",":
            loose.append(at)
            if after == len(text) or _NEXT_KEY.match(text, after):
                strict.append(at)
        at = text.find(quote, at + 1)
    return strict, loose


def _blank_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def parse_arguments(text: str) -> dict[str, Value]:
    """Arguments of one call: ``#k='literal'``, ``k=field`` or ``k=#field``, comma separated.

    A quoted value ends at the first matching quote that is followed by the next ``key=`` or
    by the end, so apostrophes inside names (Mcdonald's) survive, as in the official data;
    failing that, at the first one followed by a comma. A bare value ends before the next
    ``, key=``.
    """
    args: dict[str, Value] = {}
    pos, text = 0, text.strip()
    ends: dict[str, tuple[list[int], list[int]]] = {}
    while pos < len(text):
        key = _KEY.match(text, pos)
        if key is None:
            raise ValueError(f"cannot read an argument at {text[pos:pos + 30]!r} (expected key=value)")
        pos = key.end()
        quote = text[pos:pos + 1]
        if quote in QUOTES:
            if quote not in ends:
                ends[quote] = _value_ends(text, quote)
            strict, loose = ends[quote]
            closers = [c[i] for c in (strict, loose) if (i := bisect.bisect_right(c, pos)) < len(c)]
            if not closers:
                raise ValueError(f"unterminated quoted value of {key['key']!r}")
            raw, end = text[pos + 1:closers[0]], _blank_end(text, closers[0] + 1)
        else:
            comma = text.find(",", pos)
            if comma >= 0 and not _NEXT_KEY.match(text, comma):
                raise ValueError(f"unterminated quoted value of {key['key']!r}")
            end = len(text) if comma < 0 else comma
            raw = text[pos:end].rstrip()
        if quote in QUOTES:
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
        pos = end
        comma = _COMMA.match(text, pos)
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
        app, body = _split_line(line)
        found = _split_call(body)
        if found is None:
            errors.append(f"line {number}: not an API call: {line[:80]!r}")
            continue
        returned, api, argument_text = found
        try:
            arguments = parse_arguments(argument_text)
        except ValueError as exc:
            errors.append(f"line {number}: {exc}")
            continue
        returns = tuple(r.strip() for r in (returned or "").split(",") if r.strip())
        calls.append(Call(app=app or "", api=api, arguments=arguments, returns=returns))
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
