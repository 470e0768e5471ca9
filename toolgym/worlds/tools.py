"""Tools: typed Python functions whose schemas and validation come from their signatures.

A tool is a method of a :class:`Toolkit` marked with :func:`tool`. The decorator records
whether the tool is an *action* (it changes the world) or *read*-only, which app or plugin
owns it, and whether it needs a logged-in user. The OpenAI function schema is derived from
the signature and the Google-style docstring, so nothing is written twice.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal
from collections.abc import Callable

import pydantic


class ToolKind(str, enum.Enum):
    READ = "read"
    ACTION = "action"


READ = ToolKind.READ
ACTION = ToolKind.ACTION


class ToolError(Exception):
    """An expected failure of a tool; its message is what the agent sees."""


@dataclass(frozen=True)
class ToolSpec:
    """Everything known about one tool, derived once from its definition."""

    name: str
    kind: ToolKind
    app: str
    needs_login: bool
    description: str
    param_docs: dict[str, str]
    method_name: str
    arguments_model: type[pydantic.BaseModel]
    injected: tuple[str, ...]

    @property
    def is_action(self) -> bool:
        return self.kind is ToolKind.ACTION

    def schema(self) -> dict:
        """The tool in OpenAI function-calling format (injected arguments hidden)."""
        properties, required = {}, []
        for name, field in self.arguments_model.model_fields.items():
            prop = _json_type(field.annotation)
            if self.param_docs.get(name):
                prop["description"] = self.param_docs[name]
            properties[name] = prop
            if field.is_required():
                required.append(name)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }


@dataclass
class ToolResult:
    """The outcome of one tool call: a response, or an error text (never both)."""

    name: str
    arguments: dict
    response: Any = None
    error: str | None = None
    is_action: bool = False
    known: bool = True

    @property
    def ok(self) -> bool:
        return self.error is None

    def observation(self) -> str:
        return json.dumps({"response": self.response, "exception": self.error}, sort_keys=False)


def tool(
    name: str | None = None,
    *,
    kind: ToolKind,
    app: str,
    needs_login: bool = False,
    injected: tuple[str, ...] = (),
) -> Callable:
    """Mark a Toolkit method as a tool.

    Args:
        name: Public tool name (defaults to the method name).
        kind: ``ACTION`` if the tool changes the world, else ``READ``.
        app: The app or plugin that owns the tool.
        needs_login: The tool runs on behalf of the logged-in user.
        injected: Parameters the environment supplies (hidden from the schema).
    """

    def mark(fn: Callable) -> Callable:
        fn.__tool_meta__ = dict(name=name or fn.__name__, kind=kind, app=app,
                                needs_login=needs_login, injected=tuple(injected))
        return fn

    return mark


class Toolkit:
    """A set of tools bound to one world; ``call`` validates and runs them safely."""

    specs: dict[str, ToolSpec] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.specs = {}
        for attr in dir(cls):
            fn = getattr(cls, attr)
            meta = getattr(fn, "__tool_meta__", None)
            if meta is not None:
                spec = _build_spec(fn, attr, meta)
                cls.specs[spec.name] = spec

    def __init__(self, world):
        self.world = world

    @classmethod
    def schemas(cls, names: typing.Iterable[str] | None = None) -> list[dict]:
        names = list(cls.specs) if names is None else names
        return [cls.specs[n].schema() for n in names]

    def call(self, name: str, arguments: Any, injected: dict | None = None) -> ToolResult:
        """Validate ``arguments`` and run tool ``name``; failures become error results.

        The world is changed only by a call that succeeds: a failing call is rolled back.
        """
        spec = self.specs.get(name) if isinstance(name, str) else None
        if spec is None:
            return ToolResult(name=str(name), arguments=arguments if isinstance(arguments, dict) else {},
                              error=f"Unknown tool '{name}'.", known=False)
        if not isinstance(arguments, dict):
            return ToolResult(name=name, arguments={}, is_action=spec.is_action,
                              error=f"Arguments of {name} must be a JSON object, got {type(arguments).__name__}.")
        request = dict(arguments)
        visible = {k: v for k, v in arguments.items() if k not in spec.injected}
        try:
            parsed = spec.arguments_model.model_validate(visible)
        except pydantic.ValidationError as exc:
            return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                              error=f"Invalid arguments for {name}: {_format_validation(exc)}")
        values = {k: getattr(parsed, k) for k in parsed.model_fields_set}
        for key in spec.injected:
            if injected is None or key not in injected:
                return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                                  error=f"{name} needs '{key}', which the environment did not provide.")
            values[key] = injected[key]
            request[key] = injected[key]
        # Read-only tools need no commit; actions commit on success and roll back on failure.
        with self.world.transaction(write=spec.is_action) as tx:
            try:
                response = getattr(self, spec.method_name)(**values)
            except ToolError as exc:
                tx.fail()
                return ToolResult(name=name, arguments=request, is_action=spec.is_action, error=str(exc))
            except (ValueError, TypeError, KeyError, LookupError) as exc:
                # A bug-free tool raises only ToolError; data-shaped errors are still the agent's.
                tx.fail()
                return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                                  error=f"{type(exc).__name__}: {exc}")
        return ToolResult(name=name, arguments=request, response=response, is_action=spec.is_action)


def _build_spec(fn: Callable, method_name: str, meta: dict) -> ToolSpec:
    description, param_docs = parse_docstring(inspect.getdoc(fn) or "")
    hints = typing.get_type_hints(fn)
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(fn).parameters.items():
        if pname == "self" or pname in meta["injected"]:
            continue
        annotation = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, default)
    model = pydantic.create_model(
        f"{meta['name']}Arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields
    )
    return ToolSpec(description=description, param_docs=param_docs, method_name=method_name,
                    arguments_model=model, **meta)


_SECTION = re.compile(r"^(Args|Arguments|Returns|Raises|Yields|Examples?|Notes?):\s*$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts."""
    description, params, section, current = [], {}, None, None
    for line in doc.splitlines():
        header = _SECTION.match(line.strip())
        if header and not line.startswith(" "):
            section, current = header.group(1), None
            continue
        if section is None:
            description.append(line)
        elif section in ("Args", "Arguments"):
            item = re.match(r"^\s{0,8}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
            if item and (len(line) - len(line.lstrip())) <= 4:
                current = item.group(1)
                params[current] = item.group(2).strip()
            elif current and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
    return " ".join(" ".join(description).split()), params


def _json_type(annotation: Any) -> dict:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return _json_type(rest[0]) if len(rest) == 1 else {"anyOf": [_json_type(a) for a in rest]}
    if origin is Literal:
        values = list(args)
        return {"type": _json_type(type(values[0]))["type"], "enum": values}
    if origin in (list, tuple, set, list):
        return {"type": "array", "items": _json_type(args[0]) if args else {}}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if annotation in simple:
        return {"type": simple[annotation]}
    return {}


def _format_validation(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = "unexpected argument" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)
