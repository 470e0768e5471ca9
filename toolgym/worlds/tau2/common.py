"""What every τ²-bench domain shares: ``calculate`` without eval, and the transfer tool's answer."""

from __future__ import annotations

import ast
import operator

from toolgym.worlds.tools import ToolError

TRANSFER_TOOL = "transfer_to_human_agents"
TRANSFER_RESULT = "Transfer successful"
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_EXPRESSION = 1000


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
