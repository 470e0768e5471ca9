"""A small interpreter for agent-written Python-like programs over a whitelisted AST.

Programs in the Code-as-Policies style call a fixed API, assign names, do arithmetic, build
lists, loop with ``for`` over lists and branch with ``if``::

    blocks = [name for name in get_obj_names() if 'block' in name]
    for block in blocks:
        put_first_on_second(block, 'blue bowl')

The source is parsed with :mod:`ast` and checked node by node before anything runs: no
``import``, ``while``, ``def``, ``lambda``, ``class``, ``with``, ``try``; no attribute access;
no names that start with ``_``; only calls of the given functions and a few pure builtins.
Every evaluated node costs one step from a budget, sequences and numbers have size limits,
and every failure surfaces as a :class:`ProgramError` whose message is meant for the agent.
Nothing is passed to ``eval`` or ``exec``.
"""

from __future__ import annotations

import ast
import operator
from typing import Any
from collections.abc import Callable, Mapping

MAX_PROGRAM_CHARS = 20_000
MAX_STEPS = 100_000
MAX_SEQUENCE = 10_000
MAX_INT_BITS = 256
MAX_ALLOCATED = 1_000_000  # items and characters a run may create in all


class ProgramError(Exception):
    """A program that is not allowed or that failed; the message is for the agent."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BIN_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY_OPS: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                                                 ast.Not: operator.not_}
_COMPARE_OPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_ALLOWED_NODES: tuple[type, ...] = (
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.For, ast.If, ast.Break, ast.Continue, ast.Pass,
    ast.Constant, ast.Name, ast.Load, ast.Store, ast.List, ast.Tuple, ast.Dict, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.IfExp, ast.Call, ast.keyword, ast.Subscript, ast.Slice,
    ast.ListComp, ast.comprehension, ast.JoinedStr, ast.FormattedValue,
    *_BIN_OPS, *_UNARY_OPS, *_COMPARE_OPS,
)
_FORBIDDEN_WORDS: dict[type, str] = {
    ast.Import: "import", ast.ImportFrom: "import", ast.While: "while", ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def", ast.Lambda: "lambda", ast.ClassDef: "class", ast.With: "with",
    ast.Try: "try", ast.Raise: "raise", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
    ast.Attribute: "attribute access", ast.Return: "return", ast.Yield: "yield", ast.Await: "await",
    ast.NamedExpr: "':='", ast.Starred: "'*' unpacking", ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression", ast.Set: "a set",
}
_SCALARS = (int, float, str, bool, type(None))


def _as_list(function: Callable) -> Callable:
    return lambda *args: list(function(*args))


def _checked_range(*args: Any) -> list[int]:
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise ProgramError("range() takes integers")
    values = range(*args)
    if len(values) > MAX_SEQUENCE:
        raise ProgramError(f"range() of {len(values)} numbers is too large (at most {MAX_SEQUENCE})")
    return list(values)


def _sorted(values: Any, reverse: bool = False) -> list:
    return sorted(values, reverse=bool(reverse))


def _sum(values: Any, start: Any = 0) -> Any:
    items = list(values)
    if not all(isinstance(v, (int, float)) for v in (*items, start)):
        raise ProgramError("sum() adds numbers only")
    return sum(items, start)


def _count_items(value: Any, limit: int) -> int:
    """Items in a nested value, counting no further than ``limit``."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return count


def to_text(value: Any) -> str:
    """``str(value)`` for values of any nesting, refusing ones too large to print."""
    if _count_items(value, MAX_SEQUENCE) > MAX_SEQUENCE:
        raise ProgramError(f"value too large to turn into text (more than {MAX_SEQUENCE} items)")
    return str(value)


def preview(value: Any, limit: int = 2000) -> str:
    """A bounded ``repr`` of a program's value, for observations."""
    if _count_items(value, MAX_SEQUENCE) > MAX_SEQUENCE:
        return f"<{type(value).__name__} too large to show>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


# Pure builtins a program may call; each returns a plain value (never an iterator).
BUILTINS: dict[str, Callable] = {
    "len": len, "range": _checked_range, "min": min, "max": max, "abs": abs, "round": round, "sum": _sum,
    "sorted": _sorted, "list": list, "str": to_text, "int": int, "float": float, "bool": bool,
    "enumerate": _as_list(enumerate), "zip": _as_list(zip), "reversed": _as_list(reversed),
}


def _check_value(value: Any) -> Any:
    """Keep values small and of plain types (numbers, strings, lists, tuples, dicts)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise ProgramError(f"number too large (more than {MAX_INT_BITS} bits)")
    if isinstance(value, (str, list, tuple, dict)) and len(value) > MAX_SEQUENCE:
        raise ProgramError(f"value too long ({len(value)} items or characters; at most {MAX_SEQUENCE})")
    return value


def _binop(op: type, left: Any, right: Any) -> Any:
    # Check the size of a result before computing it where computing could exhaust memory.
    if op is ast.Mult:
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(times, int):
                if len(seq) * max(times, 0) > MAX_SEQUENCE:
                    raise ProgramError(f"value too long (at most {MAX_SEQUENCE} items or characters)")
        if isinstance(left, int) and isinstance(right, int) and \
                abs(left).bit_length() + abs(right).bit_length() > MAX_INT_BITS + 1:
            raise ProgramError(f"number too large (more than {MAX_INT_BITS} bits)")
    if op is ast.Pow and isinstance(left, (int, float)) and isinstance(right, (int, float)):
        if abs(right) > 1024 or (isinstance(left, int) and isinstance(right, int) and right > 0
                                  and abs(left).bit_length() * right > MAX_INT_BITS + 1):
            raise ProgramError("number too large")
    if op is ast.Mod and isinstance(left, str):
        raise ProgramError("string formatting with % is not allowed; use an f-string")
    if op is ast.Add and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
        if len(left) + len(right) > MAX_SEQUENCE:
            raise ProgramError(f"value too long (at most {MAX_SEQUENCE} items or characters)")
    return _BIN_OPS[op](left, right)


def check_program(source: str, functions: Mapping[str, Callable]) -> ast.Module:
    """Parse ``source`` and reject anything outside the whitelist (raises ProgramError)."""
    if not isinstance(source, str):
        raise ProgramError(f"the program must be text, got {type(source).__name__}")
    if len(source) > MAX_PROGRAM_CHARS:
        raise ProgramError(f"the program is too long ({len(source)} characters; at most {MAX_PROGRAM_CHARS})")
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise ProgramError(f"syntax error on line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ProgramError(f"the program cannot be parsed: {type(exc).__name__}") from None
    callable_names = set(functions) | set(BUILTINS)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        where = f"line {line}: " if line else ""
        if type(node) in _FORBIDDEN_WORDS:
            raise ProgramError(f"{where}{_FORBIDDEN_WORDS[type(node)]} is not allowed")
        if not isinstance(node, _ALLOWED_NODES):
            raise ProgramError(f"{where}{type(node).__name__} is not allowed")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise ProgramError(f"{where}names starting with '_' are not allowed ({node.id})")
        if isinstance(node, ast.Constant) and not isinstance(node.value, _SCALARS):
            raise ProgramError(f"{where}constants of type {type(node.value).__name__} are not allowed")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise ProgramError(f"{where}only calls of the API functions are allowed")
            if node.func.id not in callable_names:
                raise ProgramError(f"{where}unknown function {node.func.id}(); available: "
                                   f"{', '.join(sorted(functions))}")
            if any(k.arg is None for k in node.keywords):
                raise ProgramError(f"{where}'**' unpacking is not allowed")
        if isinstance(node, ast.For) and node.orelse:
            raise ProgramError(f"{where}for ... else is not allowed")
        if isinstance(node, ast.comprehension) and node.is_async:
            raise ProgramError(f"{where}async comprehensions are not allowed")
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            raise ProgramError(f"{where}format specifications in f-strings are not allowed")
        if isinstance(node, (ast.Assign, ast.For, ast.comprehension, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                _check_target(target, where, augmented=isinstance(node, ast.AugAssign))
    return tree


def _check_target(target: ast.AST, where: str, augmented: bool = False) -> None:
    if isinstance(target, ast.Name):
        if target.id in BUILTINS:
            raise ProgramError(f"{where}cannot assign to the builtin {target.id}")
        return
    if isinstance(target, ast.Subscript):
        return
    if isinstance(target, (ast.Tuple, ast.List)) and not augmented:
        for element in target.elts:
            _check_target(element, where)
        return
    raise ProgramError(f"{where}cannot assign to {type(target).__name__}")


class Interpreter:
    """Runs checked programs; ``functions`` are the API the programs may call.

    ``variables`` persist across :meth:`run` calls (the multi-step mode relies on it). Each
    evaluated node costs one step; ``max_steps`` bounds a single run.
    """

    def __init__(self, functions: Mapping[str, Callable], max_steps: int = MAX_STEPS):
        self.functions = dict(functions)
        self.max_steps = max_steps
        self.variables: dict[str, Any] = {}
        self.steps = 0
        self.allocated = 0

    def _check(self, value: Any) -> Any:
        """``_check_value`` plus the run's budget of created items and characters."""
        _check_value(value)
        if isinstance(value, (str, list, tuple, dict)):
            self.allocated += len(value)
            if self.allocated > MAX_ALLOCATED:
                raise ProgramError(f"the program builds too much data (more than {MAX_ALLOCATED} items "
                                   f"and characters in all)")
        return value

    def run(self, source: str) -> Any:
        """Check and run ``source``; returns the value of a final expression statement (else None).

        Raises ProgramError (never anything else) on failure.
        """
        tree = check_program(source, self.functions)
        self.steps = self.allocated = 0
        value = None
        try:
            for statement in tree.body:
                value = self._statement(statement)
            return value
        except (_Break, _Continue):
            raise ProgramError("'break' or 'continue' outside a loop") from None
        except RecursionError:
            raise ProgramError("the program is nested too deeply") from None

    # -- statements ------------------------------------------------------------------------
    def _block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> Any:
        self._tick(node)
        try:
            if isinstance(node, ast.Expr):
                return self._eval(node.value)
            elif isinstance(node, ast.Assign):
                value = self._eval(node.value)
                for target in node.targets:
                    self._assign(target, value)
            elif isinstance(node, ast.AugAssign):
                current = self._eval(ast.Name(id=node.target.id, ctx=ast.Load())) \
                    if isinstance(node.target, ast.Name) else self._eval(
                        ast.Subscript(value=node.target.value, slice=node.target.slice, ctx=ast.Load()))
                self._assign(node.target, self._check(_binop(type(node.op), current, self._eval(node.value))))
            elif isinstance(node, ast.If):
                self._block(node.body if self._eval(node.test) else node.orelse)
            elif isinstance(node, ast.For):
                for item in self._iterable(self._eval(node.iter), node):
                    self._assign(node.target, item)
                    try:
                        self._block(node.body)
                    except _Break:
                        break
                    except _Continue:
                        continue
            elif isinstance(node, ast.Break):
                raise _Break
            elif isinstance(node, ast.Continue):
                raise _Continue
        except (ProgramError, _Break, _Continue, RecursionError):
            raise
        except Exception as exc:  # any failure of an operation is the program's error
            raise ProgramError(f"line {node.lineno}: {type(exc).__name__}: {exc}") from None

    def _iterable(self, value: Any, node: ast.AST) -> list:
        if isinstance(value, dict):
            return list(value)
        if not isinstance(value, (list, tuple, str)):
            raise ProgramError(f"line {node.lineno}: cannot loop over a {type(value).__name__}")
        return list(value)

    def _assign(self, target: ast.AST, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.variables[target.id] = value
        elif isinstance(target, ast.Subscript):
            container = self._eval(target.value)
            if not isinstance(container, (list, dict)):
                raise ProgramError(f"line {target.lineno}: cannot assign into a {type(container).__name__}")
            container[self._eval(target.slice)] = value
            _check_value(container)
        else:
            items = list(self._iterable(value, target))
            if len(items) != len(target.elts):
                raise ProgramError(f"line {target.lineno}: cannot unpack {len(items)} values into "
                                   f"{len(target.elts)} names")
            for element, item in zip(target.elts, items):
                self._assign(element, item)

    # -- expressions -----------------------------------------------------------------------
    def _tick(self, node: ast.AST) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise ProgramError(f"line {getattr(node, 'lineno', '?')}: step budget exceeded ({self.max_steps} "
                               f"steps); the program runs too long")

    def _eval(self, node: ast.expr) -> Any:
        self._tick(node)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.variables:
                return self.variables[node.id]
            if node.id in self.functions or node.id in BUILTINS:
                raise ProgramError(f"line {node.lineno}: {node.id} is a function; call it as {node.id}(...)")
            raise ProgramError(f"line {node.lineno}: name {node.id!r} is not defined")
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self._eval(e) for e in node.elts]
            return self._check(items if isinstance(node, ast.List) else tuple(items))
        if isinstance(node, ast.Dict):
            return self._check({self._eval(k): self._eval(v) for k, v in zip(node.keys, node.values)})
        if isinstance(node, ast.BinOp):
            return self._check(_binop(type(node.op), self._eval(node.left), self._eval(node.right)))
        if isinstance(node, ast.UnaryOp):
            return _UNARY_OPS[type(node.op)](self._eval(node.operand))
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self._eval(operand)
                if isinstance(node.op, ast.And) != bool(value):
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = self._eval(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self._eval(comparator)
                if not _COMPARE_OPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self._eval(node.body if self._eval(node.test) else node.orelse)
        if isinstance(node, ast.Subscript):
            return self._eval(node.value)[self._eval(node.slice)]
        if isinstance(node, ast.Slice):
            return slice(*(None if part is None else self._eval(part) for part in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.ListComp):
            result: list = []
            self._comprehension(node, 0, result)
            return result
        if isinstance(node, ast.JoinedStr):
            return self._check("".join(to_text(self._eval(v.value if isinstance(v, ast.FormattedValue) else v))
                                       for v in node.values))
        if isinstance(node, ast.Call):
            return self._call(node)
        raise ProgramError(f"line {getattr(node, 'lineno', '?')}: {type(node).__name__} is not allowed")

    def _comprehension(self, node: ast.ListComp, index: int, result: list) -> None:
        generator = node.generators[index]
        for item in self._iterable(self._eval(generator.iter), node):
            self._assign(generator.target, item)
            if all(self._eval(condition) for condition in generator.ifs):
                if index + 1 < len(node.generators):
                    self._comprehension(node, index + 1, result)
                else:
                    result.append(self._eval(node.elt))
                    _check_value(result)
                    self.allocated += 1

    def _call(self, node: ast.Call) -> Any:
        name = node.func.id
        args = [self._eval(a) for a in node.args]
        kwargs = {k.arg: self._eval(k.value) for k in node.keywords}
        function = self.functions.get(name) or BUILTINS[name]
        try:
            return self._check(function(*args, **kwargs))
        except ProgramError as exc:
            raise ProgramError(f"line {node.lineno}: {name}(): {exc}") from None
        except Exception as exc:
            raise ProgramError(f"line {node.lineno}: {name}(): {type(exc).__name__}: {exc}") from None
