"""Parse a program with :mod:`ast` and refuse, before anything runs, all that its profile does not allow."""

from __future__ import annotations

import ast
import functools
import re
import warnings
from dataclasses import dataclass
from typing import Any

from toolgym.worlds.interpreter.profile import Profile
from toolgym.worlds.interpreter.values import ProgramError

# Constructs named in plain words when a program uses them and its profile does not allow them.
_WORDS: dict[type, str] = {
    ast.Import: "import", ast.ImportFrom: "import", ast.While: "while", ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def", ast.Lambda: "lambda", ast.ClassDef: "class", ast.With: "with",
    ast.AsyncWith: "with", ast.Try: "try", ast.TryStar: "try", ast.Raise: "raise", ast.Global: "global",
    ast.Nonlocal: "nonlocal", ast.Delete: "del", ast.Return: "return", ast.Yield: "yield",
    ast.YieldFrom: "yield", ast.Await: "await", ast.NamedExpr: "':='", ast.Starred: "'*' unpacking",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression", ast.Set: "a set", ast.Match: "match", ast.Assert: "assert",
}
_CONSTANT_TYPES = (int, float, str, bool, type(None))
#: The parser warns only about backslash escapes and numbers run into names ("1if", "1.or", "0x1for").
_DIGIT_LETTER = re.compile(r"[0-9]\.?[^\W0-9]")
_LINE_BREAK = re.compile(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)")  # splits after each line end, as ast counts lines


class _Lines:
    """A program's lines, split when a statement's text is first asked for (most runs never ask)."""

    def __init__(self, source: str):
        self.source = source

    @functools.cached_property
    def lines(self) -> list[str]:
        return _LINE_BREAK.split(self.source)


class Statement:
    """A top-level statement of a checked program and its text (cut from the program when first
    asked for: most runs never ask, and a frozen dataclass cost more to make than the check of a node)."""

    __slots__ = ("_program", "_source", "node")

    def __init__(self, node: ast.stmt, program: _Lines):
        self.node = node
        self._program = program
        self._source: str | None = None

    def __repr__(self) -> str:
        return f"Statement(line {self.line}: {self.source!r})"

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def source(self) -> str:
        if self._source is None:
            self._source = _segment(self._program.lines, self.node)
        return self._source


@dataclass(frozen=True)
class Program:
    """A program that passed its profile's checks."""

    source: str
    statements: tuple[Statement, ...]


def describe(node: ast.AST) -> str:
    """A node for a message: its type and (short) source, e.g. ``BinOp `'a' + 'b'```."""
    try:
        text = " ".join(ast.unparse(node).split())
    except Exception:  # noqa: BLE001 - unparse of odd or very deep trees; the type is description enough
        text = ""
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = type(node).__name__
    return f"{kind} `{text}`" if text else kind


def check(source: Any, profile: Profile) -> Program:
    """Parse ``source`` and refuse anything its profile does not allow.

    Raises:
        ProgramError: The text is not a program the profile allows; the message names the line.
    """
    budgets = profile.budgets
    if not isinstance(source, str):
        raise ProgramError(f"the program must be text, got {type(source).__name__}")
    if len(source) > budgets.max_program_chars:
        raise ProgramError(f"the program is too long ({len(source)} characters; at most "
                           f"{budgets.max_program_chars})")
    try:
        if "\\" in source or _DIGIT_LETTER.search(source):  # what the parser may warn about
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. invalid escape sequences, "1if" (invalid decimal literal)
                tree = ast.parse(source, mode="exec")
        else:  # (catching warnings costs more than the check of a short program's nodes)
            tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        raise ProgramError(f"{where}syntax error: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ProgramError(f"the program cannot be parsed: {type(exc).__name__} {exc}".strip()) from None
    if budgets.max_statements is not None and len(tree.body) > budgets.max_statements:
        raise ProgramError(f"the program has more than {budgets.max_statements} statements")
    _Checker(profile, tree).check()
    lines = _Lines(source)
    return Program(source, tuple([Statement(node, lines) for node in tree.body]))


def _folded(node: Any) -> Any:
    """``-3`` and ``+2.5`` as constants, as they read: a signed number is a literal."""
    if (type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd)
            and type(node.operand) is ast.Constant and type(node.operand.value) in (int, float)):
        value = node.operand.value
        return ast.copy_location(ast.Constant(-value if type(node.op) is ast.USub else value), node)
    return node


class _Checker:
    """Checks every node of a tree once, breadth first (as :func:`ast.walk`, so the first fault
    reported is the same), folding signed numbers on the way."""

    def __init__(self, profile: Profile, tree: ast.Module):
        self.profile = profile
        self.tree = tree
        self.allowed = profile.node_types
        self.leaves = _leaves(self.allowed)
        self.callables = profile.callables()
        self.method_names = profile.method_names
        self.attribute_names = profile.attribute_names
        self.attribute_calls = bool(profile.namespaces or profile.methods or profile.attributes)
        # Nodes in special places: callees, and values whose place allows a namespace call.
        self.callees: set[int] = set()
        self.namespace_uses: set[int] = set()  # the Name of each NS in NS.function
        self.statement_calls: set[int] = set()
        for statement in tree.body:
            if isinstance(statement, (ast.Expr, ast.Assign)):
                self.statement_calls.add(id(statement.value))
        # The check of each node type, decided once per type and profile: most need none beyond being allowed.
        self.checks = _checks(self.allowed, profile.bare_expressions)

    def fail(self, node: ast.AST, message: str) -> ProgramError:
        line = getattr(node, "lineno", None)
        return ProgramError(f"line {line}: {message}" if line else message)

    def check(self) -> None:
        todo: list[ast.AST] = [self.tree]
        checks, callees, leaves, node_fields = self.checks, self.callees, self.leaves, _NODE_FIELDS
        node_type, unary, call = ast.AST, ast.UnaryOp, ast.Call  # locals: this loop runs for every node
        for node in todo:  # breadth first: the list grows behind the loop, as ast.walk's queue
            kind = type(node)
            fields = node_fields[kind] if kind in node_fields else _node_fields(kind)
            for name in fields:  # the children, as ast.iter_child_nodes, signed numbers folded first
                value = getattr(node, name, None)
                if type(value) is list:
                    for index, item in enumerate(value):
                        if isinstance(item, node_type):
                            if type(item) is unary:
                                item = value[index] = _folded(item)
                            if type(item) not in leaves:
                                todo.append(item)
                elif isinstance(value, node_type):
                    if type(value) is unary:
                        value = _folded(value)
                        setattr(node, name, value)
                    if type(value) not in leaves:
                        todo.append(value)
            if kind is call:
                callees.add(id(node.func))
            check = checks[kind] if kind in checks else self.decide(kind)
            if check is not None:
                check(self, node)

    def decide(self, kind: type) -> Any:
        """The check of nodes of type ``kind`` (None: allowed as they are), kept for the next ones."""
        if kind is ast.Module:
            check = None
        elif kind is ast.Attribute:
            check = _Checker.attribute  # allowed or not: it says what is wrong with it
        elif kind not in self.allowed:
            check = _Checker.refuse
        elif kind is ast.Expr and not self.profile.bare_expressions:
            check = _Checker.statement_expression
        else:
            check = _SPECIFIC.get(kind)
        self.checks[kind] = check
        return check

    def refuse(self, node: ast.AST) -> None:
        if type(node) in _WORDS:
            raise self.fail(node, f"{_WORDS[type(node)]} is not allowed")
        if isinstance(node, ast.stmt) and not self.profile.bare_expressions:
            raise self.fail(node, f"{describe(node)} is not allowed: a statement must call a function of "
                                  f"{' or '.join(self.profile.namespaces)} or assign a value to a name")
        raise self.fail(node, f"{describe(node)} is not allowed")

    def statement_expression(self, node: ast.Expr) -> None:
        if not isinstance(node.value, ast.Call):
            if isinstance(node.value, ast.Attribute):
                self.attribute(node.value)  # says what is wrong with it
            raise self.fail(node, f"{describe(node.value)} is not allowed: a statement must call a function of "
                                  f"{' or '.join(self.profile.namespaces)} or assign a value to a name")

    def keyword(self, node: ast.keyword) -> None:
        if node.arg is None:
            raise self.fail(node.value, "'**' unpacking is not allowed")

    def for_loop(self, node: ast.For) -> None:
        if node.orelse:
            raise self.fail(node, "for ... else is not allowed")
        self.target(node.target, node)

    def comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            raise self.fail(node.target, "async comprehensions are not allowed")
        self.target(node.target, node)

    def formatted_value(self, node: ast.FormattedValue) -> None:
        if node.format_spec is not None:
            raise self.fail(node, "format specifications in f-strings are not allowed")

    def assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.target(target, node)

    def augmented_assign(self, node: ast.AugAssign) -> None:
        self.target(node.target, node, augmented=True)

    def name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("_"):
            raise self.fail(node, f"names starting with '_' are not allowed ({name})")
        if type(node.ctx) is ast.Load and id(node) not in self.callees:
            if name in self.profile.namespaces and id(node) not in self.namespace_uses:
                raise self.fail(node, f"{name} is not a value; call its functions as {name}.name(...)")
            if name in self.callables:
                raise self.fail(node, f"{name} is a function; call it as {name}(...)")

    def constant(self, node: ast.Constant) -> None:
        value, budgets = node.value, self.profile.budgets
        if not isinstance(value, _CONSTANT_TYPES):
            raise self.fail(node, f"constants of type {type(value).__name__} are not allowed")
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > budgets.max_int_bits:
            raise self.fail(node, f"number too large (more than {budgets.max_int_bits} bits)")
        if isinstance(value, str):
            if len(value) > budgets.max_length:
                raise self.fail(node, f"the text is too long ({len(value)} characters; at most "
                                      f"{budgets.max_length})")
            try:
                if not value.isascii():  # ASCII text holds no surrogate
                    value.encode("utf-8")
            except UnicodeEncodeError:
                raise self.fail(node, "the text contains a lone surrogate (such as '\\ud800'), "
                                      "which is not valid Unicode") from None

    def call(self, node: ast.Call) -> None:
        func, profile = node.func, self.profile
        if isinstance(func, ast.Name):
            if func.id not in self.callables and not func.id.startswith("_"):
                available = sorted(self.callables) + [f"{ns}.<function>" for ns in profile.namespaces]
                raise self.fail(node, f"unknown function {func.id}(); available: {', '.join(available)}")
        elif not isinstance(func, ast.Attribute):
            raise self.fail(node, f"only calls of named functions are allowed (found {describe(node)})")
        elif not self.attribute_calls:
            raise self.fail(node, "only calls of the API functions are allowed")
        elif (isinstance(func.value, ast.Name) and func.value.id in profile.namespaces
              and not profile.nested_namespace_calls and id(node) not in self.statement_calls):
            raise self.fail(node, f"a call of {func.value.id}.{func.attr} must be a statement of its own "
                                  f"(or assigned to a name)")

    def attribute(self, node: ast.Attribute) -> None:
        profile = self.profile
        if not self.attribute_calls:
            raise self.fail(node, "attribute access is not allowed")
        if node.attr.startswith("_"):
            raise self.fail(node, f"the attribute {node.attr!r} is not allowed")
        namespace = node.value.id if isinstance(node.value, ast.Name) and node.value.id in profile.namespaces \
            else None
        if namespace is not None:
            self.namespace_uses.add(id(node.value))
            if node.attr not in profile.namespaces[namespace]:
                raise self.fail(node, f"{namespace} has no function {node.attr!r}")
        elif node.attr not in self.method_names and node.attr not in self.attribute_names:
            allowed = " and ".join(profile.namespaces) or "values with methods"
            raise self.fail(node, f"attribute access is only allowed on {allowed} (found {describe(node)})")
        elif id(node) not in self.callees and node.attr in self.attribute_names:
            return  # an attribute read; the evaluator checks the value's type
        if id(node) not in self.callees:
            where = f"{namespace}.{node.attr}" if namespace else f".{node.attr}"
            raise self.fail(node, f"{where} must be called")

    def target(self, target: ast.AST, statement: ast.AST, augmented: bool = False) -> None:
        if isinstance(target, ast.Name):
            kind = self.profile.kind_of(target.id)
            if kind is not None:
                raise self.fail(statement, f"cannot assign to {kind} {target.id}")
            return
        if isinstance(target, ast.Subscript):
            return
        if isinstance(target, (ast.Tuple, ast.List)) and not augmented:
            for element in target.elts:
                self.target(element, statement)
            return
        raise self.fail(statement, f"cannot assign to {describe(target)}")


#: Node types with a check beyond being allowed (methods of _Checker).
_SPECIFIC: dict[type, Any] = {
    ast.Name: _Checker.name, ast.Constant: _Checker.constant, ast.Call: _Checker.call, ast.keyword: _Checker.keyword,
    ast.For: _Checker.for_loop, ast.comprehension: _Checker.comprehension,
    ast.FormattedValue: _Checker.formatted_value, ast.Assign: _Checker.assign,
    ast.AugAssign: _Checker.augmented_assign,
}


# Field types of the abstract grammar that never hold a node (as ast's class docstrings name them).
_SCALAR_FIELDS = re.compile(r"\b(?:identifier|string|constant|int)[?*]? (\w+)")
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes (all of them when its grammar line is not
    known), kept for the next nodes of the type: a walk then skips names, numbers and texts."""
    signature = kind.__doc__ or ""
    scalars = set(_SCALAR_FIELDS.findall(signature)) if signature.startswith(f"{kind.__name__}(") else set()
    fields = _NODE_FIELDS[kind] = tuple(name for name in kind._fields if name not in scalars)
    return fields


@functools.lru_cache(maxsize=16)
def _checks(allowed: frozenset[type], bare_expressions: bool) -> dict[type, Any]:
    """The table of checks by node type of the profiles with these rules, filled as types come."""
    return {}


@functools.lru_cache(maxsize=16)
def _leaves(allowed: frozenset[type]) -> frozenset[type]:
    """The allowed node types without fields (contexts, operators): nothing to check, never visited."""
    return frozenset(kind for kind in allowed if not kind._fields and kind not in _SPECIFIC)


def _segment(lines: list[str], node: ast.AST) -> str:
    """The node's text (``ast.get_source_segment`` re-splits the text on every call)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return _cut(lines[first], node.col_offset, node.end_col_offset)
    return "".join([_cut(lines[first], node.col_offset, None), *lines[first + 1:last],
                    _cut(lines[last], 0, node.end_col_offset)])


def _cut(line: str, start: int, end: int | None) -> str:
    """Characters of ``line`` between two UTF-8 byte offsets (ast's column offsets)."""
    return line.encode("utf-8")[start:end].decode("utf-8", errors="replace")
