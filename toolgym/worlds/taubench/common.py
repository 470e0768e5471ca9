"""What τ-bench v1's domains share: its database hash, calculator, and tools that answer in v1's text."""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import operator
from collections.abc import Callable
from typing import Any

from toolgym.worlds.tau2.common import ValueFirstError
from toolgym.worlds.tools import Toolkit, ToolError, ToolSpec, python_call_problem


def to_hashable(item):
    """τ-bench's ``to_hashable``: dicts as sorted (key, value) tuples, lists as tuples."""
    if isinstance(item, dict):
        return tuple((key, to_hashable(value)) for key, value in sorted(item.items()))
    if isinstance(item, list):
        return tuple(to_hashable(element) for element in item)
    return item


def data_hash(data: dict) -> str:
    """τ-bench's ``consistent_hash(to_hashable(data))``: independent of key order, but ``2`` and
    ``2.0`` differ (the hash reads ``str`` of the tuples)."""
    return hashlib.sha256(str(to_hashable(data)).encode("utf-8")).hexdigest()


#: v1 evaluates the expression with Python's ``eval``; here the same operators are walked with ``ast``.
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_EXPRESSION = 1000


def calculate(expression: str) -> str:
    """v1's calculator: ``+ - * / // **``, parentheses and numbers (the characters v1 allows),
    the value rounded to 2 decimals; v1's error text for other characters, ``Error: <reason>``
    for an expression that does not compute (``Error: division by zero`` as v1's)."""
    if not all(char in "0123456789+-*/(). " for char in expression):
        return "Error: invalid characters in expression"
    if len(expression) > MAX_EXPRESSION:
        return "Error: expression too long"
    try:
        return str(round(float(_value(ast.parse(expression.strip(), filename="<string>", mode="eval").body, 0)), 2))
    except ZeroDivisionError:
        return "Error: division by zero"
    except SyntaxError as error:
        return f"Error: {error}"  # v1's eval says "invalid syntax (<string>, line 1)"
    except (ValueError, OverflowError, RecursionError) as error:
        return f"Error: {error}"


def _value(node: ast.AST, depth: int) -> float:
    if depth > 100:
        raise ValueError("expression nested too deeply")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.operand, depth + 1))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(node.op, ast.Pow) and (abs(right) > 1000 or abs(left) > 1e100):
            raise OverflowError("result too large")
        if isinstance(node.op, ast.Mult) and abs(left) * abs(right) > 1e300:
            raise OverflowError("result too large")
        return _OPERATORS[type(node.op)](left, right)
    raise ValueError("unsupported expression")


class V1Hash:
    """Mixin of a document world: its state hash compares as τ-bench's hash of the whole database.

    Two databases get the same hash exactly when v1's :func:`data_hash` of them is the same:
    tables and records by sorted key, each record's JSON with sorted keys (so key order does not
    count and ``2`` differs from ``2.0``, as in ``str`` of v1's tuples). Each record's digest is
    kept by its stored text, so an episode's hash reads again only the records it changed
    (:func:`data_hash` of retail's whole database costs about 0.2 s).
    """

    #: Record digests kept per world, by the record's stored JSON text; cleared past this many.
    MAX_DIGESTS = 200_000

    def state_hash(self) -> str:
        self.commit()
        digests = self.__dict__.setdefault("_record_digests", {})
        if len(digests) > self.MAX_DIGESTS:
            digests.clear()
        total = hashlib.sha256()
        for name in sorted(self.tables):
            total.update(f"{name}\0".encode())
            for key, doc in self.sql().execute(
                    f'SELECT key, doc FROM "{self.tables[name].__tablename__}" ORDER BY key'):
                digest = digests.get(doc)
                if digest is None:
                    canonical = json.dumps(json.loads(doc), sort_keys=True)
                    digest = digests[doc] = hashlib.sha256(canonical.encode()).digest()
                total.update(f"{key}\0".encode() + digest)
        return total.hexdigest()


def v1_error(error: ToolError) -> str:
    """v1's words for a failure that τ²'s shared rules word as τ² does: ``Error:`` and the same
    sentence begun in lower case (``Not enough seats on flight HAT001`` becomes
    ``Error: not enough seats on flight HAT001``)."""
    text = str(error)
    return f"Error: {text}" if isinstance(error, ValueFirstError) else f"Error: {text[:1].lower()}{text[1:]}"


@functools.cache
def _invoke_name(tool: str) -> str:
    """v1's method behind a tool, as Python names it: ``cancel_reservation`` -> ``CancelReservation.invoke``."""
    return "".join(word.capitalize() for word in tool.split("_")) + ".invoke"


class V1Toolkit(Toolkit):
    """A v1 domain's tools: each answers with text, ``json.dumps`` of the record it read or wrote or
    v1's error string; only an error of the data itself (v1's ``KeyError``) fails the call.

    They are called as v1's ``Env.step`` calls its tools (``Tool.invoke(data=data, **arguments)``):
    on the arguments as given (``3.0`` is stored as ``3.0``, a list item keeps its unknown keys), a
    missing or unknown argument refused in Python's words for v1's function
    (``CancelReservation.invoke() missing 1 required positional argument: 'reservation_id'``), and
    any other exception answered with its own text, as v1's ``Error: {e}``.
    """

    arguments_as_given = True

    def binding_problem(self, spec: ToolSpec, arguments: dict) -> str | None:
        function = _invoke_name(spec.name)
        if "data" in arguments:  # v1 passes its database as ``data=``: Python names the function in full
            return (f"tau_bench.envs.{spec.app}.tools.{spec.name}.{function}() got multiple values for keyword "
                    f"argument 'data'")
        return python_call_problem(function, spec.parameters, arguments)

    def error_text(self, exc: Exception) -> str:
        return str(exc)

    def _answer(self, operation: Callable[..., Any], *arguments: Any, **keywords: Any) -> str:
        """What v1's tool returns for ``operation(*arguments, **keywords)``, a rule of τ²'s; its
        refusal (:class:`ToolError`) is v1's error answer, and the world is left as it was."""
        try:
            answer = operation(*arguments, **keywords)
        except ToolError as error:
            self.world.rollback()  # the call's own writes: each call starts on a committed world
            return v1_error(error)
        return answer if isinstance(answer, str) else json.dumps(answer)

    def _doc(self, table: str, key: str) -> dict | None:
        return self.world.find(table, key)


def v1_tool(tau2_tool: Callable[..., Any], body: Callable[..., str] | None = None) -> Callable[..., str]:
    """τ²'s tool method as a v1 toolkit's: the same name, parameters and texts (v1 declares the
    tool as τ² does), run on the v1 toolkit's records and answering in v1's text, or, where v1's
    code differs, ``body`` called with the arguments."""

    @functools.wraps(tau2_tool)
    def answer(self: V1Toolkit, **arguments: Any) -> str:
        return body(**arguments) if body is not None else self._answer(tau2_tool, self, **arguments)

    return answer


def v1_record(tau2_tool: Callable[..., Any], table: str, missing: str) -> Callable[..., str]:
    """τ²'s tool that reads one record by its id, as v1's: the record's text as the table stores it
    (``json.dumps`` of the record, which is what v1 answers, without parsing it), or v1's ``missing``."""

    @functools.wraps(tau2_tool)
    def answer(self: V1Toolkit, **arguments: Any) -> str:
        (key,) = arguments.values()  # the call bound to the tool's one parameter
        text = self.world.text(table, key)
        return missing if text is None else text

    return answer
