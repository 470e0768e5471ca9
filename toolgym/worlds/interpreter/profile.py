"""Profiles: what the programs of one env may say.

A :class:`Profile` names the statement and expression node types a program may use, the
functions it may call (plain ``f(...)`` calls of the env's functions, ``NS.f(...)`` calls of
a namespace such as ``API``, ``value.method(...)`` calls on values of given types), the pure
builtins and helpers it offers, and the budgets of its runs. The interpreter binds the env's
functions and namespaces when it is created; everything else is fixed by the profile.

Two profiles exist: :func:`code_as_policies` (Tabletop's Code-as-Policies programs) and
:func:`api_calls` (the ToolBench programs of ``API.f(...)`` calls, with ``Loc``/``Date``).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Collection, Mapping

from toolgym.worlds.interpreter.values import Budgets, Meter, ProgramError, to_text


@dataclass(frozen=True)
class Profile:
    """What the programs of one env may say.

    Attributes:
        name: For messages and docs.
        statements: Statement node types allowed.
        expressions: Expression node types allowed, with their operator and context nodes.
        functions: Names of the env's functions, called as ``name(...)``.
        namespaces: Namespace name -> its functions, called as ``NS.name(...)``.
        methods: Type -> method names a program may call on values of that type.
        attributes: Type -> attribute names a program may read (not call) on values of that type.
        stores: Types (besides list and dict) that take subscript assignment (``x[k] = v``).
        guard: Called before every operator, method call and subscript store into one of
            ``stores``, as ``guard(operation, operands)``
            (operation: the operator's node name such as ``"Mult"``, ``"Type.method"`` or
            ``"store"``); raises ProgramError to refuse work too large to start. For a method
            call it may return a function of no arguments that computes the call's result in
            its place (GoogleSheets runs regular expressions on RE2 this way).
        size_of: Deep size of a value the interpreter cannot walk (a data frame), or None;
            such values count as size 1 without it.
        operation_cost: Work units of one operation (operator, subscript, method call) on such
            values besides their size: the fixed overhead of a library call, so that many small
            operations cost their time too.
        builtins: Pure functions (and helper constructors) the profile offers, by name.
        bare_expressions: Whether a statement may be any expression (else it must be a call).
        nested_namespace_calls: Whether a namespace call may sit inside an expression (else it
            must be a statement or the whole value of an assignment).
        budgets: The limits of a program and of each run.
    """

    name: str
    statements: frozenset[type]
    expressions: frozenset[type]
    functions: frozenset[str] = frozenset()
    namespaces: Mapping[str, frozenset[str]] = field(default_factory=dict)
    methods: Mapping[type, frozenset[str]] = field(default_factory=dict)
    attributes: Mapping[type, frozenset[str]] = field(default_factory=dict)
    stores: tuple[type, ...] = ()
    guard: Callable[[str, tuple], Callable[[], Any] | None] | None = None
    size_of: Callable[[Any], int | None] | None = None
    operation_cost: int = 0
    builtins: Mapping[str, Callable] = field(default_factory=dict)
    bare_expressions: bool = True
    nested_namespace_calls: bool = True
    budgets: Budgets = Budgets()

    def callables(self) -> frozenset[str]:
        """Every name a program may call plainly, as ``name(...)``."""
        return self._callables

    @functools.cached_property
    def _callables(self) -> frozenset[str]:  # computed once: the checker asks for every name
        return self.functions | frozenset(self.builtins)

    @functools.cached_property
    def method_names(self) -> frozenset[str]:
        """Every method name a program may call on some type."""
        return frozenset().union(*self.methods.values())

    @functools.cached_property
    def attribute_names(self) -> frozenset[str]:
        """Every attribute name a program may read on some type."""
        return frozenset().union(*self.attributes.values())

    @functools.cached_property
    def node_types(self) -> frozenset[type]:
        """Every node type a program may use: the statements and the expressions."""
        return self.statements | self.expressions

    def kind_of(self, name: str) -> str | None:
        """What a reserved name is ("the builtin", "the function", "the namespace"), or None."""
        if name in self.builtins:
            return "the builtin"
        if name in self.functions:
            return "the function"
        if name in self.namespaces:
            return "the namespace"
        return None


# -- builtins of the Code-as-Policies profile ---------------------------------------------------
# Each returns a plain value (never an iterator). The interpreter charges the deep size of every
# argument before a call and checks the result's size after it; these functions guard only
# what could be far larger or slower than their arguments. A ``metered`` one gets the run's
# meter as its first argument.
def metered(function: Callable) -> Callable:
    """Mark a builtin that takes the run's :class:`Meter` as its first argument."""
    function.metered = True
    return function


@metered
def _range(meter: Meter, *args: Any) -> list[int]:
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise ProgramError("range() takes integers")
    values = range(*args)
    limit = meter.budgets.max_length
    if len(values) > limit:
        raise ProgramError(f"range() of {len(values)} numbers is too large (at most {limit})")
    return list(values)


@metered
def _str(meter: Meter, value: Any = "") -> str:
    return to_text(value, meter)


@metered
def _zip(meter: Meter, *sequences: Any) -> list:
    # The result holds len(shortest) tuples of len(sequences) items: count them before building.
    if sequences and all(hasattr(s, "__len__") for s in sequences):
        items = min(len(s) for s in sequences) * (len(sequences) + 1)
        if items > meter.budgets.max_size:
            raise ProgramError(f"zip() would build {items} items (at most {meter.budgets.max_size})")
    return list(zip(*sequences))


def _min(*values: Any) -> Any:
    return min(*values)


def _max(*values: Any) -> Any:
    return max(*values)


def _round(number: Any, ndigits: Any = None) -> Any:
    # round(12345, -10**9) would compute 10**(10**9) first.
    if isinstance(ndigits, int) and abs(ndigits) > 400:
        raise ProgramError("round() takes at most 400 digits")
    return round(number, ndigits)


@metered
def _sorted(meter: Meter, values: Any, reverse: bool = False) -> list:
    # About log2(n) comparisons per item, each walking the items compared.
    meter.charge(meter.size(values) * max(1, len(values).bit_length() if hasattr(values, "__len__") else 1))
    return sorted(values, reverse=bool(reverse))


def _sum(values: Any, start: Any = 0) -> Any:
    items = list(values)
    if not all(isinstance(v, (int, float)) for v in (*items, start)):
        raise ProgramError("sum() adds numbers only")
    return sum(items, start)


def _list(values: Any = ()) -> list:
    return list(values)


def _enumerate(values: Any, start: int = 0) -> list:
    return list(enumerate(values, start))


def _reversed(values: Any) -> list:
    return list(reversed(values))


CODE_AS_POLICIES_BUILTINS: dict[str, Callable] = {
    "len": len, "range": _range, "min": _min, "max": _max, "abs": abs, "round": _round, "sum": _sum,
    "sorted": _sorted, "list": _list, "str": _str, "int": int, "float": float, "bool": bool,
    "enumerate": _enumerate, "zip": _zip, "reversed": _reversed,
}

_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not,
              ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is,
              ast.IsNot)
# The Python subset of Code-as-Policies programs; other profiles of that style extend it.
SCRIPT_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.For, ast.If, ast.Break, ast.Continue,
                               ast.Pass})
SCRIPT_EXPRESSIONS = frozenset({ast.Constant, ast.Name, ast.Load, ast.Store, ast.List, ast.Tuple, ast.Dict,
                                ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword,
                                ast.Subscript, ast.Slice, ast.ListComp, ast.comprehension, ast.JoinedStr,
                                ast.FormattedValue, *_OPERATORS})


def code_as_policies(functions: Collection[str], budgets: Budgets = Budgets()) -> Profile:
    """Code as Policies (Liang et al. 2023): assignments, ``for`` over lists, ``if``, arithmetic,
    comparisons, lists, tuples, dicts, subscripts, list comprehensions and f-strings; plain calls
    of the env's ``functions`` and of a few pure builtins (``str`` is checked before it prints)."""
    return Profile(
        name="Code as Policies",
        statements=SCRIPT_STATEMENTS,
        expressions=SCRIPT_EXPRESSIONS,
        functions=frozenset(functions),
        builtins=CODE_AS_POLICIES_BUILTINS,
        budgets=budgets,
    )


def api_calls(namespace: str, functions: Collection[str], helpers: Mapping[str, Callable],
              budgets: Budgets = Budgets()) -> Profile:
    """Programs of calls: each statement calls ``namespace.f(...)`` or assigns a value to a name;
    values are literals (numbers, signed numbers, strings, booleans, None), lists and tuples of
    values, names assigned earlier and ``helper(...)`` calls. Namespace calls do not nest."""
    return Profile(
        name=f"{namespace} calls",
        statements=frozenset({ast.Expr, ast.Assign}),
        expressions=frozenset({ast.Constant, ast.Name, ast.Load, ast.Store, ast.List, ast.Tuple, ast.Call,
                               ast.keyword}),
        namespaces={namespace: frozenset(functions)},
        builtins=dict(helpers),
        bare_expressions=False,
        nested_namespace_calls=False,
        budgets=budgets,
    )
