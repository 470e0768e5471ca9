"""BFCL's call syntax, read with :mod:`ast` and never evaluated.

BFCL writes a turn's calls as a Python list of calls, ``[cd(folder='document'), ls()]``
(its prompting format and every multi-turn ground truth), and a single call without the
brackets in places. :func:`parse_calls` turns such text into ``(name, arguments)`` pairs,
keeping only the keyword arguments, as BFCL's prompting decoder (``resolve_ast_call``) does:
``f('x', b=2)`` and ``f(*xs, b=2)`` read as ``f(b=2)``, so a model's positional argument
reaches the function as a missing one. Only literals are accepted as argument values (a bare name is read as its own text, as
BFCL's decoder reads it), so nothing in the text can run.
"""

from __future__ import annotations

import ast

# Deeper nesting than this is refused before ast.parse, whose recursion it would exhaust.
MAX_NESTING = 100


class CallSyntaxError(ValueError):
    """The text is not a list of calls with literal arguments."""


def parse_calls(text: str, drop_positional: bool = True) -> list[tuple[str, dict]]:
    """The calls in ``text`` (``[f(a=1), g.h(b='x')]`` or ``f(a=1)``), in order, each with
    its keyword arguments; positional and ``*`` arguments are dropped unread, as BFCL's
    decoder drops them (``drop_positional=False`` refuses them instead).

    Raises :class:`CallSyntaxError` with the reason for anything else: a value that is not
    a literal, ``**kwargs``, a call inside an argument.
    """
    source = text.strip()
    # the depth is walked only when there are enough brackets to reach the limit (counting them
    # costs a tenth of the walk, which cost a third of a short call's parse)
    if source.count("(") + source.count("[") + source.count("{") > MAX_NESTING:
        depth = deepest = 0
        for ch in source:
            if ch in "([{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in ")]}":
                depth -= 1
        if deepest > MAX_NESTING:
            raise CallSyntaxError(f"nested deeper than {MAX_NESTING} brackets")
    try:
        tree = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise CallSyntaxError(f"not a list of calls: {exc.__class__.__name__}: {exc}") from None
    nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    try:
        return [_call(node, drop_positional) for node in nodes]
    except TypeError as exc:  # an unhashable dict key, {[1]: 2}
        raise CallSyntaxError(f"not a literal value: {exc}") from None


def _call(node: ast.expr, drop_positional: bool) -> tuple[str, dict]:
    if not isinstance(node, ast.Call):
        raise CallSyntaxError(f"not a call: {ast.unparse(node)[:80]}")
    if node.args and not drop_positional:
        raise CallSyntaxError(f"{_name(node.func)}: arguments must be given by keyword")
    arguments = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise CallSyntaxError(f"{_name(node.func)}: **arguments are not allowed")
        arguments[keyword.arg] = _value(keyword.value)
    return _name(node.func), arguments


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    raise CallSyntaxError(f"not a function name: {ast.unparse(node)[:80]}")


def _value(node: ast.expr):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float, complex)) \
            and not isinstance(node.operand.value, bool):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, ast.List):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise CallSyntaxError("**mapping inside a value is not allowed")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        # BFCL's decoder reads a bare identifier as its text (a model writing `unit=celsius`).
        return node.id
    raise CallSyntaxError(f"not a literal value: {ast.unparse(node)[:80]}")
