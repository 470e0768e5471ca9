"""A small interpreter for programs of API calls (the SambaNova ToolBench program syntax).

A program is Python-like text such as::

    API.select_booking_type("trip tickets")
    location_from = Loc("Ontario")
    API.set_origin(location_from)
    API.set_departure_date(Date(12, 19, 2022))
    API.search()

It is parsed with :mod:`ast` and only a whitelist is accepted: statements that call a
function of ``API`` or assign a value to a plain name; values that are literals (numbers,
strings, booleans, None, lists and tuples of them), names assigned earlier, and the helpers
``Loc(...)`` and ``Date(...)``. Anything else (imports, attribute access on other objects,
dunder attributes, operators, subscripts, comprehensions, ...) is rejected before a single
statement runs. Nothing is ever passed to ``eval`` or ``exec``.
"""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from dataclasses import dataclass
from typing import Any, Union
from collections.abc import Callable, Collection

MAX_PROGRAM_CHARS = 20_000
MAX_STATEMENTS = 200
API_NAME = "API"


class ProgramError(Exception):
    """A program that is not allowed, or a statement that failed; the message is for the agent."""


@dataclass(frozen=True)
class Loc:
    """A location, as the original's ``Loc`` helper (any value is kept as given)."""

    location: Any


@dataclass(frozen=True)
class Date:
    """A date given as month, day, year; ``date`` is the text ``m-d-y`` exactly as written."""

    month: Any
    day: Any
    year: Any

    @property
    def date(self) -> str:
        return f"{self.month}-{self.day}-{self.year}"


HELPERS: dict[str, type] = {"Loc": Loc, "Date": Date}


# -- parsed program --------------------------------------------------------------------------
@dataclass(frozen=True)
class Literal:
    value: Any


@dataclass(frozen=True)
class Variable:
    name: str


@dataclass(frozen=True)
class SequenceValue:
    items: tuple
    is_list: bool


@dataclass(frozen=True)
class HelperCall:
    helper: str
    args: tuple
    kwargs: tuple  # ((name, value), ...)


Value = Union[Literal, Variable, SequenceValue, HelperCall]


@dataclass(frozen=True)
class Call:
    """``API.<function>(args)`` on line ``line``."""

    line: int
    function: str
    args: tuple
    kwargs: tuple
    source: str


@dataclass(frozen=True)
class Assignment:
    """``<target> = <value or API call>`` on line ``line``."""

    line: int
    target: str
    value: Value | Call
    source: str


Statement = Union[Call, Assignment]


def parse_program(text: Any, functions: Collection[str]) -> list[Statement]:
    """Parse ``text`` into statements, accepting only the whitelist.

    Args:
        text: The program.
        functions: Names of the functions of ``API``.

    Raises:
        ProgramError: The text is not a program of the allowed form.
    """
    if not isinstance(text, str):
        raise ProgramError(f"a program must be text, got {type(text).__name__}")
    if len(text) > MAX_PROGRAM_CHARS:
        raise ProgramError(f"the program is longer than {MAX_PROGRAM_CHARS} characters")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences in string literals
            tree = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        raise ProgramError(f"{where}syntax error: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ProgramError(f"the program cannot be parsed: {exc}") from None
    if len(tree.body) > MAX_STATEMENTS:
        raise ProgramError(f"the program has more than {MAX_STATEMENTS} statements")
    parser = _Parser(text, frozenset(functions))
    return [parser.statement(node) for node in tree.body]


class _Parser:
    def __init__(self, text: str, functions: frozenset[str]):
        self.lines = _LINE_BREAK.split(text)
        self.functions = functions

    def fail(self, node: ast.AST, message: str) -> ProgramError:
        return ProgramError(f"line {getattr(node, 'lineno', '?')}: {message}")

    def source(self, node: ast.AST) -> str:
        """The node's text (``ast.get_source_segment`` re-splits the text on every call)."""
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return _cut(self.lines[first], node.col_offset, node.end_col_offset)
        return "".join([_cut(self.lines[first], node.col_offset, None), *self.lines[first + 1:last],
                        _cut(self.lines[last], 0, node.end_col_offset)])

    def statement(self, node: ast.stmt) -> Statement:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _is_api_attribute(node.value.func):
            return self.api_call(node.value)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise self.fail(node, "only a single plain name can be assigned to")
            target = node.targets[0].id
            if target == API_NAME or target in HELPERS or target.startswith("_"):
                raise self.fail(node, f"the name {target!r} cannot be assigned to")
            value = node.value
            parsed = (self.api_call(value) if isinstance(value, ast.Call) and _is_api_attribute(value.func)
                      else self.value(value))
            return Assignment(node.lineno, target, parsed, self.source(node))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            raise self.fail(node, "import statements are not allowed")
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Attribute)):
            self.value(node.value)  # reports what is wrong with the callee or attribute
        raise self.fail(node, f"{_describe(node)} is not allowed: a statement must call a function "
                              f"of API or assign a value to a name")

    def api_call(self, node: ast.Call) -> Call:
        name = self.api_function(node.func)
        args = tuple(self.argument(a) for a in node.args)
        kwargs = tuple(self.keyword(k) for k in node.keywords)
        return Call(node.lineno, name, args, kwargs, self.source(node))

    def api_function(self, node: ast.Attribute) -> str:
        if node.attr.startswith("_"):
            raise self.fail(node, f"the attribute {node.attr!r} is not allowed")
        if node.attr not in self.functions:
            raise self.fail(node, f"API has no function {node.attr!r}")
        return node.attr

    def argument(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Starred):
            raise self.fail(node, "starred arguments are not allowed")
        return self.value(node)

    def keyword(self, node: ast.keyword) -> tuple[str, Value]:
        if node.arg is None:
            raise self.fail(node.value, "**-arguments are not allowed")
        return node.arg, self.value(node.value)

    def value(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            if node.value is None or type(node.value) in (str, int, float, bool):
                return Literal(node.value)
            raise self.fail(node, f"the literal {_describe(node)} is not allowed")
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
                and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)):
            number = node.operand.value
            return Literal(-number if isinstance(node.op, ast.USub) else number)
        if isinstance(node, (ast.List, ast.Tuple)):
            return SequenceValue(tuple(self.argument(e) for e in node.elts), isinstance(node, ast.List))
        if isinstance(node, ast.Name):
            if node.id == API_NAME:
                raise self.fail(node, "API can only be used to call its functions")
            if node.id in HELPERS:
                raise self.fail(node, f"{node.id} must be called, as {node.id}(...)")
            if node.id.startswith("_"):
                raise self.fail(node, f"the name {node.id!r} is not allowed")
            return Variable(node.id)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in HELPERS:
                return HelperCall(node.func.id, tuple(self.argument(a) for a in node.args),
                                  tuple(self.keyword(k) for k in node.keywords))
            if _is_api_attribute(node.func):
                self.api_function(node.func)
                raise self.fail(node, "an API call must be a statement of its own (or assigned to a name)")
            if isinstance(node.func, ast.Name):
                raise self.fail(node, f"calling {node.func.id!r} is not allowed (only API functions, Loc and Date)")
            return self.value(node.func)
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise self.fail(node, f"the attribute {node.attr!r} is not allowed")
            if not (isinstance(node.value, ast.Name) and node.value.id == API_NAME):
                raise self.fail(node, f"attribute access is only allowed on API (found {_describe(node)})")
            raise self.fail(node, f"API.{node.attr} must be called")
        raise self.fail(node, f"{_describe(node)} is not allowed (only literals, names, lists, Loc and Date)")


_LINE_BREAK = re.compile(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)")  # splits after each line end, as ast counts lines


def _cut(line: str, start: int, end: int | None) -> str:
    """Characters of ``line`` between two UTF-8 byte offsets (ast's column offsets)."""
    return line.encode("utf-8")[start:end].decode("utf-8", errors="replace")


def _is_api_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == API_NAME


def _describe(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # unparse of odd trees; the node type is description enough
        text = ""
    text = " ".join(text.split())
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = type(node).__name__
    return f"{kind} `{text}`" if text else kind


# -- running ---------------------------------------------------------------------------------
def evaluate(value: Value, variables: dict[str, Any]) -> Any:
    """The Python value of a parsed value, given the names assigned so far."""
    if isinstance(value, Literal):
        return value.value
    if isinstance(value, Variable):
        if value.name not in variables:
            raise ProgramError(f"name {value.name!r} is not defined")
        return variables[value.name]
    if isinstance(value, SequenceValue):
        items = [evaluate(v, variables) for v in value.items]
        return items if value.is_list else tuple(items)
    helper = HELPERS[value.helper]
    args = [evaluate(v, variables) for v in value.args]
    kwargs = {k: evaluate(v, variables) for k, v in value.kwargs}
    bound = bind_call(helper, value.helper, args, kwargs)
    return helper(*bound.args, **bound.kwargs)


def bind_call(function: Callable, name: str, args: list, kwargs: dict) -> inspect.BoundArguments:
    """Bind arguments to ``function``'s signature, or say plainly why they do not fit."""
    try:
        return inspect.signature(function).bind(*args, **kwargs)
    except TypeError as exc:
        raise ProgramError(f"{name}(): {exc}") from None


def run_statement(statement: Statement, variables: dict[str, Any],
                  call_api: Callable[[str, list, dict], Any]) -> Any:
    """Run one statement: call ``call_api(function, args, kwargs)`` or bind a name.

    Returns the value of the call or assignment. Raises :class:`ProgramError` on failure,
    with the statement's line number.
    """
    try:
        if isinstance(statement, Call):
            return _call(statement, variables, call_api)
        value = (_call(statement.value, variables, call_api) if isinstance(statement.value, Call)
                 else evaluate(statement.value, variables))
        variables[statement.target] = value
        return value
    except ProgramError as exc:
        raise ProgramError(f"line {statement.line}: {exc}") from None


def _call(call: Call, variables: dict[str, Any], call_api: Callable[[str, list, dict], Any]) -> Any:
    args = [evaluate(v, variables) for v in call.args]
    kwargs = {k: evaluate(v, variables) for k, v in call.kwargs}
    return call_api(call.function, args, kwargs)
