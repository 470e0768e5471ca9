"""Tools: typed Python functions whose schemas and validation come from their signatures.

A tool is a method of a :class:`Toolkit` marked with :func:`tool`. The decorator records
whether the tool is an *action* (it changes the world) or *read*-only, which app or plugin
owns it, and whether it needs a logged-in user. The OpenAI function schema is derived from
the signature and the Google-style docstring, so nothing is written twice: the parameters
are a pydantic model and its ``model_json_schema``, the texts come from ``docstring-parser``,
as τ²-bench derives its tools' schemas. A world whose
tools are a table (VirtualHome's actions) declares them with :func:`declared_tool`, and one
method of its toolkit performs them all; their schemas come from the same
:meth:`ToolSpec.schema`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import math
import sys
import types
import typing
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

import docstring_parser
import pydantic
import typing_extensions

#: The integers a database column holds (SQLite's and most engines' BIGINT): signed 64-bit.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: How deeply the arguments of one call may nest (lists in dicts in lists ...).
MAX_ARGUMENT_DEPTH = 32
#: How many values (containers and scalars together) the arguments of one call may hold.
MAX_ARGUMENT_VALUES = 10_000


class ToolKind(str, enum.Enum):
    READ = "read"
    ACTION = "action"


READ = ToolKind.READ
ACTION = ToolKind.ACTION


class ToolParameter(typing.NamedTuple):
    """A parameter of a tool as its signature declares it."""

    annotation: Any
    default: Any  # ``...`` when the parameter is required

    @property
    def required(self) -> bool:
        return self.default is ...


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
    #: The parameters an agent passes, in order (the injected ones are left out).
    parameters: dict[str, ToolParameter]
    injected: tuple[str, ...]
    #: The schema says that no other argument is accepted (``additionalProperties: false``).
    closed: bool = False
    #: Declared by data (:func:`declared_tool`): its method receives the tool's name first.
    declared: bool = False

    @functools.cached_property
    def is_action(self) -> bool:
        return self.kind is ToolKind.ACTION

    @functools.cached_property
    def arguments_model(self) -> type[pydantic.BaseModel]:
        """The pydantic model of the parameters: it validates a call's arguments and its JSON
        schema is the tool's. Built at the tool's first use: building every tool's model when
        its toolkit is defined was a tenth of ``gym.make``."""
        fields = {}
        for name, parameter in self.parameters.items():
            annotation = _for_pydantic(parameter.annotation)
            doc = self.param_docs.get(name)
            fields[name] = (annotation, pydantic.Field(parameter.default, description=doc) if doc else parameter.default)
        return pydantic.create_model(f"{self.name}Arguments", __config__=pydantic.ConfigDict(extra="forbid"),
                                     **fields)

    def schema(self) -> dict:
        """The tool in OpenAI function-calling format (injected arguments hidden)."""
        parameters = _house_shape(self.arguments_model.model_json_schema())
        return function_schema(self.name, self.description, parameters.get("properties", {}),
                               parameters.get("required", []),
                               **({"additionalProperties": False} if self.closed else {}))


def function_schema(name: str, description: str, properties: dict[str, dict], required: list[str],
                    **parameters: Any) -> dict:
    """A tool in OpenAI function-calling format: the one shape in which every world offers its tools.

    Args:
        name: The tool's name.
        description: What it does.
        properties: Parameter name -> JSON schema of its value.
        required: The parameters a call must give.
        **parameters: More keys of the ``parameters`` object (``additionalProperties``, ToolBench's
            ``optional``).
    """
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, **parameters}}}


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


def argument_problem(arguments: Mapping[str, Any]) -> str | None:
    """Why the database could not hold these argument values, or None if it can.

    A value is refused when it is an integer outside signed 64-bit, a string with a lone
    UTF-16 surrogate (not encodable as UTF-8), a NaN or infinite float, or when the
    arguments nest deeper than :data:`MAX_ARGUMENT_DEPTH` or hold more than
    :data:`MAX_ARGUMENT_VALUES` values. Dicts, lists, tuples, sets and dataclass instances
    (e.g. a program's ``Date(...)``) are searched; keys are checked like values.

    Args:
        arguments: Argument name -> value, as the tool would receive them.
    """
    # An explicit stack: a deeply nested value must not hit Python's recursion limit here.
    # A path is (parent path, step), rendered only for the message: building every item's
    # label up front would cost the length of its keys once per item. A step is text, or
    # (text before, a name or key, text after), whose label is made only for the message.
    stack: list[tuple[tuple, Any, int]] = []
    seen = 0
    for name, value in arguments.items():
        # ASCII text, the usual name and value, is counted here: it cannot fail, and queueing it cost
        # more than the check
        if type(value) is str and value.isascii():
            seen += 1
        else:
            stack.append(((None, ("", name, "")), value, 1))
        if type(name) is str and name.isascii():
            seen += 1
        else:
            stack.append(((None, ("the name ", name, "")), name, 1))
    while stack:
        path, value, depth = stack.pop()
        seen += 1
        if depth > MAX_ARGUMENT_DEPTH:
            return f"{_render(path)}: the value nests more than {MAX_ARGUMENT_DEPTH} levels deep"
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                return (f"{_render(path)}: the integer ({value.bit_length()} bits) is outside the signed 64-bit "
                        f"range [{INT64_MIN}, {INT64_MAX}] the database holds")
        elif isinstance(value, float):
            if not math.isfinite(value):
                return f"{_render(path)}: {value!r} is not a finite number"
        elif isinstance(value, str):
            if not _encodable(value):
                return (f"{_render(path)}: the text contains a lone surrogate (such as '\\ud800'), "
                        f"which is not valid Unicode")
        elif isinstance(value, (Mapping, list, tuple, set, frozenset)):
            if seen + len(stack) + 2 * len(value) > MAX_ARGUMENT_VALUES:  # before queueing a huge container
                return f"the arguments hold more than {MAX_ARGUMENT_VALUES} values"
            if isinstance(value, Mapping):
                for key, item in value.items():
                    stack += [((path, ("[", key, "]")), item, depth + 1), ((path, " (a key)"), key, depth + 1)]
            else:
                stack += [((path, f"[{i}]"), item, depth + 1) for i, item in enumerate(value)]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            stack += [((path, f".{f.name}"), getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)]
        elif isinstance(value, pydantic.BaseModel):
            stack += [((path, f".{k}"), getattr(value, k), depth + 1) for k in type(value).model_fields]
    return None


def python_call_problem(function: str, parameters: Mapping[str, ToolParameter], arguments: Mapping[str, Any]
                        ) -> str | None:
    """Python's own words (CPython 3.11's) for calling ``function`` with ``arguments`` by keyword,
    or None when the call binds: the first unknown argument, else every missing one in order.

    The text an original that calls its tool functions as ``tool(**arguments)`` answers; toolgym
    gives it without calling anything.

    Args:
        function: The function's qualified name (``CancelReservation.invoke``).
        parameters: Its parameters, in order.
        arguments: Argument name -> value.
    """
    unknown = next((name for name in arguments if name not in parameters), None)
    if unknown is not None:
        return f"{function}() got an unexpected keyword argument '{unknown}'"
    missing = [repr(name) for name, parameter in parameters.items() if parameter.required and name not in arguments]
    if not missing:
        return None
    names = (missing[0] if len(missing) == 1 else f"{missing[0]} and {missing[1]}" if len(missing) == 2
             else f"{', '.join(missing[:-1])}, and {missing[-1]}")
    plural = "s" if len(missing) > 1 else ""
    return f"{function}() missing {len(missing)} required positional argument{plural}: {names}"


def _render(path: tuple) -> str:
    steps = []
    while path is not None:
        path, step = path
        steps.append(step if isinstance(step, str) else f"{step[0]}{_label(step[1])}{step[2]}")
    return "".join(reversed(steps))


def _label(name: Any) -> str:
    """A name or key for a message: plain text as it is, anything else (a surrogate, a number) as a
    repr; long ones shortened."""
    text = name if isinstance(name, str) and name.isprintable() and _encodable(name) else repr(name)
    return text if len(text) <= 40 else text[:37] + "..."


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Toolkit:
    """A set of tools bound to one world; ``call`` validates and runs them safely."""

    #: The tools run on the arguments as the call gives them, as an original whose code calls
    #: ``tool(**arguments)`` does: nothing coerced or type-checked first (``3.0`` stays ``3.0``,
    #: ``"3"`` stays ``"3"``, unknown keys inside list items stay), a missing or unknown argument
    #: refused in Python's words (:meth:`binding_problem`). When False, the arguments are validated
    #: against the tool's schema and coerced to its types first.
    arguments_as_given: bool = False
    specs: dict[str, ToolSpec] = {}
    #: Tools declared by data (:func:`declared_tool`), after the methods marked with :func:`tool`.
    declared_tools: tuple[ToolSpec, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.specs = {}
        for attr in dir(cls):
            fn = getattr(cls, attr)
            meta = getattr(fn, "__tool_meta__", None)
            if meta is not None:
                spec = _build_spec(fn, attr, meta)
                cls.specs[spec.name] = spec
        cls.specs.update((spec.name, spec) for spec in cls.declared_tools)

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
        # without injected parameters the call's own dict is passed on: run() reads it, the tool gets a copy (**)
        visible = {k: v for k, v in arguments.items() if k not in spec.injected} if spec.injected else arguments
        if self.arguments_as_given:
            problem = self.binding_problem(spec, visible)
            if problem is not None:
                return ToolResult(name=name, arguments=request, is_action=spec.is_action, error=problem)
            return self._run_injected(spec, visible, request, injected)
        # Checked before pydantic, so that nothing walks a value nested thousands deep, and again
        # by run() after coercion, which turns "nan" into a float NaN and "1e400" into infinity.
        problem = argument_problem(visible)
        if problem is not None:
            return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                              error=f"Invalid arguments for {name}: {problem}")
        try:
            parsed = spec.arguments_model.model_validate(visible)
        except pydantic.ValidationError as exc:
            return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                              error=f"Invalid arguments for {name}: {_format_validation(exc)}")
        return self._run_injected(spec, {k: getattr(parsed, k) for k in parsed.model_fields_set}, request, injected)

    def _run_injected(self, spec: ToolSpec, values: dict, request: dict, injected: dict | None) -> ToolResult:
        """Run ``spec`` on ``values`` and the injected arguments it needs."""
        name = spec.name
        for key in spec.injected:
            if injected is None or key not in injected:
                return ToolResult(name=name, arguments=request, is_action=spec.is_action,
                                  error=f"{name} needs '{key}', which the environment did not provide.")
            values[key] = injected[key]
            request[key] = injected[key]
        return self.run(spec, values, request)

    def run(self, spec: ToolSpec, arguments: dict, request: dict | None = None) -> ToolResult:
        """Run tool ``spec`` on arguments already bound to it; the world changes only if it succeeds.

        The argument values are checked with :func:`argument_problem` first. Actions commit
        when they return; read-only tools commit nothing. Any exception in the tool or at
        commit (a :class:`ToolError`, or an error of the data such as an integrity error)
        becomes the result's error, after the world's transaction is rolled back and its
        aux state, random streams and clock are put back as they were before the call.

        Args:
            spec: The tool.
            arguments: Parameter name -> value, already coerced to the parameters' types (or, in
                the program toolkits and those with :attr:`arguments_as_given`, exactly as given).
            request: The arguments to report in the result; ``arguments`` when None.
        """
        request = dict(arguments) if request is None else request
        is_action = spec.is_action
        problem = argument_problem(arguments)
        if problem is not None:
            error = f"Invalid arguments for {spec.name}: {problem}"
        else:
            try:
                with self.world.atomic(write=is_action):  # a read-only tool never writes
                    method = getattr(self, spec.method_name)
                    response = method(spec.name, **arguments) if spec.declared else method(**arguments)
            except ToolError as exc:
                error = str(exc)
            except Exception as exc:  # noqa: BLE001 - bad data must not escape as an exception
                error = self.error_text(exc)
            else:
                return ToolResult(spec.name, request, response, None, is_action)
        return ToolResult(spec.name, request, None, error, is_action)

    def binding_problem(self, spec: ToolSpec, arguments: dict) -> str | None:
        """Why a call of ``spec`` with ``arguments`` (as given) does not bind to its parameters,
        in Python's words for the original's function (this toolkit's method by default)."""
        return python_call_problem(f"{type(self).__name__}.{spec.method_name}", spec.parameters, arguments)

    def error_text(self, exc: Exception) -> str:
        """What the agent reads of an exception other than :class:`ToolError` that a call raised.

        A bug-free tool raises only ToolError; data-shaped errors are still the agent's. First
        line only: database errors go on with the SQL statement and a link.
        """
        lines = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {lines[0][:300] if lines else 'failed'}"


def _build_spec(fn: Callable, method_name: str, meta: dict) -> ToolSpec:
    description, param_docs = parse_docstring(inspect.getdoc(fn) or "")
    hints = typing.get_type_hints(fn)
    parameters = {
        name: ToolParameter(hints.get(name, Any), ... if param.default is inspect.Parameter.empty else param.default)
        for name, param in inspect.signature(fn).parameters.items() if name != "self" and name not in meta["injected"]}
    return ToolSpec(description=description, param_docs=param_docs, method_name=method_name, parameters=parameters,
                    **meta)


def declared_tool(name: str, description: str, parameters: Mapping[str, tuple[Any, str]], *, kind: ToolKind,
                  app: str, method_name: str, closed: bool = False) -> ToolSpec:
    """A tool declared by data (a vocabulary's entry) rather than by a method's signature.

    Args:
        name: Public tool name.
        description: What it does.
        parameters: Parameter name -> (its type, its description), in order; all required.
        kind: ``ACTION`` if the tool changes the world, else ``READ``.
        app: The app that owns the tool.
        method_name: The toolkit's method that performs it, called with the tool's name and then
            the call's arguments.
        closed: The schema says that no other argument is accepted.
    """
    return ToolSpec(name=name, kind=kind, app=app, needs_login=False, description=description,
                    param_docs={p: doc for p, (_, doc) in parameters.items()}, method_name=method_name,
                    parameters={p: ToolParameter(annotation, ...) for p, (annotation, _) in parameters.items()},
                    injected=(), closed=closed, declared=True)


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """A docstring's description and per-argument texts (by ``docstring-parser``, as τ²-bench
    reads its tools), each on one line: the schema's texts."""
    parsed = docstring_parser.parse(doc)
    description = f"{parsed.short_description or ''} {parsed.long_description or ''}"
    return " ".join(description.split()), {p.arg_name: " ".join((p.description or "").split()) for p in parsed.params}


def _for_pydantic(annotation: Any) -> Any:
    """``annotation`` with each ``typing.TypedDict`` in it, however deep, made a ``typing_extensions``
    one: pydantic reads only those before Python 3.12."""
    if sys.version_info < (3, 12) and typing_extensions.is_typeddict(annotation):
        hints = {key: _without_required(value) for key, value in
                 typing_extensions.get_type_hints(annotation, include_extras=True).items()}
        converted = {key: _for_pydantic(value) for key, value in hints.items()}
        if converted == hints and not typing.is_typeddict(annotation):
            return annotation
        rebuilt = typing_extensions.TypedDict(annotation.__name__, {
            key: value if key in annotation.__required_keys__ else typing_extensions.NotRequired[value]
            for key, value in converted.items()})
        rebuilt.__doc__ = annotation.__doc__
        if hasattr(annotation, "__pydantic_config__"):
            rebuilt.__pydantic_config__ = annotation.__pydantic_config__
        return rebuilt
    args = typing.get_args(annotation)
    converted = tuple(_for_pydantic(arg) for arg in args)
    if converted == args:
        return annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return typing.Annotated[(converted[0], *annotation.__metadata__)]
    return typing.Union[converted] if origin in (typing.Union, types.UnionType) else origin[converted]


def _without_required(annotation: Any) -> Any:
    """A TypedDict field's type without its ``Required``/``NotRequired`` mark (the keys say which)."""
    while typing.get_origin(annotation) in (typing_extensions.Required, typing_extensions.NotRequired):
        annotation = typing.get_args(annotation)[0]
    return annotation


#: Keys of pydantic's JSON schema that the house's schemas leave out: the names pydantic makes up,
#: defaults, and what a plain ``dict`` or ``set`` adds to its type.
_DROPPED = {"title", "default", "uniqueItems"}


def _house_shape(schema: dict) -> dict:
    """pydantic's JSON schema of a tool's parameters in the shape every toolgym schema has: each
    ``$ref`` inlined, no titles or defaults, an optional value (``X | None``) as its type ``X``,
    ``"type"`` first and ``"description"`` last, and ``required`` always present."""
    definitions = schema.get("$defs", {})

    def shape(node: Any, depth: int) -> Any:
        if depth > MAX_ARGUMENT_DEPTH:
            raise ValueError("a tool's parameter types nest too deeply")
        if isinstance(node, list):
            return [shape(item, depth + 1) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return shape({**definitions[node["$ref"].rsplit("/", 1)[-1]],
                          **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
        options = [option for option in node.get("anyOf", ()) if option != {"type": "null"}]
        if "anyOf" in node and len(options) == 1:  # X | None: the value is an X
            return shape({**options[0], **{k: v for k, v in node.items() if k != "anyOf"}}, depth + 1)
        out = {key: shape(value, depth + 1) if key != "properties" else
               {name: shape(prop, depth + 1) for name, prop in value.items()}
               for key, value in node.items()
               if key not in _DROPPED and key != "$defs" and not (key == "additionalProperties" and value is True)
               and not (key == "additionalProperties" and node.get("type") == "object" and "properties" not in node)}
        if "anyOf" in out:
            out["anyOf"] = [option for option in out["anyOf"] if option != {"type": "null"}]
        ordered = {key: out[key] for key in ("type",) if key in out}
        ordered.update((key, value) for key, value in out.items() if key not in ("type", "description"))
        ordered.update((key, out[key]) for key in ("description",) if key in out)
        return ordered

    return shape(schema, 0)


def _format_validation(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = "unexpected argument" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)
