"""What every τ²-bench domain shares: toolkits called as τ²'s are, ``calculate`` without eval, and
the transfer tool's answer."""

from __future__ import annotations

import ast
import operator
from typing import Any

from toolgym.worlds.tools import READ, Toolkit, ToolError, ToolResult, ToolSpec, tool

TRANSFER_TOOL = "transfer_to_human_agents"
TRANSFER_RESULT = "Transfer successful"
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_EXPRESSION = 1000


class Tau2Toolkit(Toolkit):
    """A τ² domain's tools, called as τ²-bench's ``ToolKitBase.use_tool`` calls them.

    The tool's method runs on the arguments as the call gives them: nothing is coerced or
    type-checked first (``2.0`` for an integer stays ``2.0``, and what the method does with a
    wrong value is the call's outcome), a missing or unknown argument fails with Python's own
    words, an unknown tool with ``Tool 'x' not found.``, and an exception's text is the error, as
    τ²'s environment words them after ``Error:``. The house's bounds on argument values still
    hold (see :func:`toolgym.worlds.tools.argument_problem`).
    """

    arguments_as_given = True

    def call(self, name: str, arguments: Any, injected: dict | None = None) -> ToolResult:
        spec = self.specs.get(name) if isinstance(name, str) else None
        if spec is None:
            return ToolResult(name=str(name), arguments=arguments if isinstance(arguments, dict) else {},
                              error=f"Tool '{name}' not found.", known=False)
        if type(arguments) is dict and not spec.injected and _binds(spec, arguments):
            # the usual call: what Toolkit.call does with one that binds, without its layers (run()
            # checks the values); its checks cost half of τ²'s whole enable_roaming
            return self.run(spec, arguments, dict(arguments))
        return super().call(name, arguments, injected)

    def error_text(self, exc: Exception) -> str:
        return str(exc)


#: id of a tool's spec -> (the spec, its parameters' names, the required ones), made at its first call
_BINDINGS: dict[int, tuple[ToolSpec, frozenset, frozenset]] = {}


def _binds(spec: ToolSpec, arguments: dict) -> bool:
    """Whether ``spec``'s method binds ``arguments`` by keyword (no unknown name, none required
    missing): :func:`~toolgym.worlds.tools.python_call_problem`'s None, from sets made once per tool."""
    entry = _BINDINGS.get(id(spec))
    if entry is None or entry[0] is not spec:
        entry = _BINDINGS[id(spec)] = (spec, frozenset(spec.parameters),
                                       frozenset(name for name, parameter in spec.parameters.items()
                                                 if parameter.required))
    names = arguments.keys()
    return names <= entry[1] and entry[2] <= names


class SoloStopTools(Tau2Toolkit):
    """The tool τ³'s solo agent adds to the domain's: ``done`` ends the ticket (the env ends the
    episode on it; τ³ turns the message into ``###STOP###`` and runs none of its calls)."""

    @tool(kind=READ, app="solo")
    def done(self) -> str:
        """Call this function when you are done with the task."""
        return "###STOP###"  # τ³'s stop token, what the call becomes in the conversation


class ValueFirstError(ToolError):
    """A failure whose text begins with a value of the call (``1008292230 not found``): τ-bench
    v1 words it the same, where it begins τ²'s other sentences in lower case."""


def calculate(expression: str) -> str:
    """τ²-bench's calculator: numbers, + - * / and parentheses, rounded to 2 decimals.

    The expression is parsed with ``ast`` and walked; nothing is evaluated as code.
    """
    if len(expression) > MAX_EXPRESSION or not all(char in "0123456789+-*/(). " for char in expression):
        raise ToolError("Invalid characters in expression")
    try:
        tree = ast.parse(expression, mode="eval")
        value = _value(tree.body, 0)
    except (SyntaxError, ValueError, RecursionError) as error:
        raise ToolError(f"Invalid expression: {error}") from None
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    return str(round(float(value), 2))


def _value(node: ast.AST, depth: int) -> float:
    if depth > 100:
        raise ValueError("too deeply nested")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(node.op, ast.Mult) and abs(left) * abs(right) > 1e300:
            raise ValueError("result too large")
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.operand, depth + 1))
    raise ValueError("only numbers and + - * / are allowed")
