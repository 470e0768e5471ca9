"""The base of the toolkits whose tools are the functions of ``API`` in a program.

Also the helpers ``Loc`` and ``Date`` of the programs and their profile: a statement calls
``API.<function>(...)`` or assigns a value to a name (see
:func:`toolgym.worlds.interpreter.api_calls`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from toolgym.worlds.interpreter import Budgets, Profile, ProgramError, api_calls, call_source, literal_source
from toolgym.worlds.tools import Toolkit

#: API programs are short lists of calls with small literal values; their integers must fit the
#: database's signed 64-bit columns.
API_PROGRAM_BUDGETS = Budgets(max_statements=200, max_steps=20_000, max_size=10_000, max_int_bits=63)


@dataclass(frozen=True)
class Loc:
    """A location, as the original's ``Loc`` helper (any value is kept as given)."""

    location: Any

    #: The JSON schema of a ``Loc`` parameter in a JSON tool call, and how it reads.
    json_schema: ClassVar[dict] = {"type": "string"}
    json_note: ClassVar[str] = 'In a JSON call: the city name, e.g. "Ontario".'

    @classmethod
    def json_source(cls, value: Any) -> str:
        """The program text of a JSON argument: ``Loc(<value>)``."""
        return f"Loc({literal_source(value)})"


@dataclass(frozen=True)
class Date:
    """A date given as month, day, year; ``date`` is the text ``m-d-y`` exactly as written."""

    month: Any
    day: Any
    year: Any

    json_schema: ClassVar[dict] = {
        "type": "object", "properties": {"month": {"type": "integer"}, "day": {"type": "integer"},
                                         "year": {"type": "integer"}},
        "required": ["month", "day", "year"], "additionalProperties": False}
    json_note: ClassVar[str] = 'In a JSON call: an object such as {"month": 12, "day": 19, "year": 2022}.'

    @property
    def date(self) -> str:
        return f"{self.month}-{self.day}-{self.year}"

    @classmethod
    def json_source(cls, value: Any) -> str:
        """The program text of a JSON argument: ``Date(month=.., day=.., year=..)`` for an object,
        else the value as written (which the tool refuses as not a Date)."""
        return call_source("Date", value) if isinstance(value, dict) else literal_source(value)


HELPERS: dict[str, type] = {"Loc": Loc, "Date": Date}


class ProgramToolkit(Toolkit):
    """Tools called from programs: arguments reach them exactly as written.

    The paper stores values as given and compares them with ``==`` (``3 == 3.0`` but
    ``"3" != 3``), so :meth:`invoke` passes arguments through without schema coercion;
    the type hints document the API and give the schemas. The search criteria set so far
    live in ``world.aux["criteria"]``, so world snapshots cover them.
    """

    helper_docs: tuple[str, ...] = ()

    @property
    def criteria(self) -> dict[str, Any]:
        return self.world.aux["criteria"]

    def _fill_defaults(self, defaults: dict[str, Any]) -> None:
        """``search()``: give every unset criterion of ``defaults`` its default, and record the ones
        it filled in ``world.aux["defaults"]`` (over all the searches of a program), so a score can
        tell them from the criteria the program set itself."""
        filled = {key: value for key, value in defaults.items() if key not in self.criteria}
        self.criteria.update(filled)
        self.world.aux["defaults"].update(filled)

    @classmethod
    def profile(cls) -> Profile:
        """What the programs over this API may say."""
        return api_calls("API", cls.specs, HELPERS, API_PROGRAM_BUDGETS)

    def invoke(self, name: str, args: list, kwargs: dict) -> Any:
        """Call ``API.<name>(*args, **kwargs)``; a failure is a :class:`ProgramError` with a plain
        message (the interpreter adds the line and the function)."""
        spec = self.specs.get(name)
        if spec is None:
            raise ProgramError(f"API has no function {name!r}")
        try:
            bound = self._call_signature(spec.method_name).bind(*args, **kwargs)
        except TypeError as exc:
            raise ProgramError(str(exc)) from None
        result = self.run(spec, dict(bound.arguments))  # checks the values; rolls back on failure
        if not result.ok:
            raise ProgramError(result.error)
        return result.response

    @classmethod
    @functools.cache
    def _call_signature(cls, method_name: str) -> inspect.Signature:
        """The parameters a program passes to a method (``self`` left out), read once per class."""
        signature = inspect.signature(getattr(cls, method_name))
        return signature.replace(parameters=list(signature.parameters.values())[1:])

    @classmethod
    def call_source(cls, name: Any, arguments: Any) -> str:
        """The statement ``API.<name>(key=value, ...)`` of a JSON tool call, as program text.

        ``Loc`` and ``Date`` parameters take the JSON forms of their schemas (a city name; an
        object with month, day and year) and become ``Loc(...)`` / ``Date(...)`` calls.

        Raises:
            ProgramError: Unknown function, or arguments that cannot be written as a call.
        """
        spec = cls.specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise ProgramError(f"API has no function {str(name)[:80]!r}")
        return call_source(f"API.{name}", arguments, {parameter: helper.json_source for parameter, helper
                                                      in cls._helper_parameters(spec.method_name).items()})

    @classmethod
    def schemas(cls, names: typing.Iterable[str] | None = None) -> list[dict]:
        """The tools' schemas, with ``Loc`` and ``Date`` parameters given their JSON forms."""
        schemas = super().schemas(names)
        for schema in schemas:
            function = schema["function"]
            properties = function["parameters"]["properties"]
            for parameter, helper in cls._helper_parameters(cls.specs[function["name"]].method_name).items():
                description = " ".join(filter(None, [properties[parameter].get("description"), helper.json_note]))
                properties[parameter] = {**copy.deepcopy(helper.json_schema), "description": description}
        return schemas

    @classmethod
    def _helper_parameters(cls, method_name: str) -> dict[str, type]:
        hints = typing.get_type_hints(getattr(cls, method_name))
        return {name: hint for name, hint in hints.items() if hint in HELPERS.values()}

    @classmethod
    def api_docs(cls) -> str:
        """The API documentation as the prompt shows it: one signature and description per function."""
        lines = []
        for method in vars(cls).values():
            if not hasattr(method, "__tool_meta__"):
                continue
            spec = cls.specs[method.__tool_meta__["name"]]
            signature = inspect.signature(method, eval_str=True)
            params = ", ".join(f"{name}: {_type_name(p.annotation)}" for name, p in signature.parameters.items()
                               if name != "self")
            lines.append(f"API.{spec.name}({params})\n    {spec.description}")
        lines += list(cls.helper_docs)
        return "\n".join(lines) + "\n"


def _type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)
