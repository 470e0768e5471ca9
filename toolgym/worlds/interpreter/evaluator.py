"""Run checked programs node by node, within the budgets of their profile."""

from __future__ import annotations

import ast
import inspect
import operator
from typing import Any
from collections.abc import Callable, Mapping

from toolgym.worlds.interpreter.checker import Program, check
from toolgym.worlds.interpreter.profile import Profile
from toolgym.worlds.interpreter.values import Meter, ProgramError, shorten, to_text, too_deep, too_large

#: Characters of a Python exception's text kept in a message.
MAX_ERROR_DETAIL = 300

_BIN_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_,  # element-wise masks, where a profile allows them
}
_UNARY_OPS: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                                                 ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE_OPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_SEQUENCES = (str, list, tuple)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _LocatedError(ProgramError):
    """A ProgramError whose message already names its line."""


def _detail(exc: BaseException) -> str:
    return shorten(f"{type(exc).__name__}: {exc}", MAX_ERROR_DETAIL)


class Interpreter:
    """Runs the programs of one profile against one env's functions.

    ``variables`` persist across :meth:`run` calls (multi-step modes rely on it); the budgets
    of the profile apply to each run.

    Args:
        profile: What programs may say.
        functions: The env's functions by name (the profile's ``functions``).
        namespaces: For each of the profile's namespaces, ``invoke(function, args, kwargs)``,
            which raises ProgramError with a plain message when the call fails.
    """

    def __init__(self, profile: Profile, functions: Mapping[str, Callable] | None = None,
                 namespaces: Mapping[str, Callable[[str, list, dict], Any]] | None = None):
        self.profile = profile
        self.functions = dict(functions or {})
        self.namespaces = dict(namespaces or {})
        missing = (profile.functions - set(self.functions)) | (set(profile.namespaces) - set(self.namespaces))
        if missing:
            raise ValueError(f"no implementation given for {sorted(missing)}")
        self.variables: dict[str, Any] = {}
        self.meter = Meter(profile.budgets, profile.size_of, profile.operation_cost)
        self._signatures: dict[str, inspect.Signature | None] = {}

    def check(self, source: Any) -> Program:
        """The checked program (raises ProgramError)."""
        return check(source, self.profile)

    def run(self, program: Program | str) -> list[Any]:
        """Run a program (checking it first if it is text), statement by statement.

        Returns:
            The value of each top-level statement: an expression's value, an assignment's
            value, else None.

        Raises:
            ProgramError: The program is not allowed or a statement failed (never anything
                else); the message names the line.
        """
        if not isinstance(program, Program):
            program = self.check(program)
        self.meter = Meter(self.profile.budgets, self.profile.size_of, self.profile.operation_cost)
        values = []
        try:
            for statement in program.statements:
                values.append(self._statement(statement.node))
        except (_Break, _Continue):
            raise ProgramError("'break' or 'continue' outside a loop") from None
        except RecursionError:
            raise ProgramError("the program is nested too deeply") from None
        return values

    # -- statements ------------------------------------------------------------------------
    def _block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> Any:
        try:
            self.meter.tick()
            if isinstance(node, ast.Expr):
                return self._eval(node.value)
            if isinstance(node, ast.Assign):
                value = self._eval(node.value)
                for target in node.targets:
                    self._assign(target, value)
                return value
            if isinstance(node, ast.AugAssign):
                load = (ast.Name(id=node.target.id, ctx=ast.Load()) if isinstance(node.target, ast.Name) else
                        ast.Subscript(value=node.target.value, slice=node.target.slice, ctx=ast.Load()))
                value = self._binop(type(node.op), self._eval(ast.copy_location(load, node)), self._eval(node.value))
                self._assign(node.target, value)
            elif isinstance(node, ast.If):
                self._block(node.body if self._eval(node.test) else node.orelse)
            elif isinstance(node, ast.For):
                for item in self._iterable(self._eval(node.iter)):
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
            return None
        except (_LocatedError, _Break, _Continue, RecursionError):
            raise
        except ProgramError as exc:
            raise _LocatedError(f"line {node.lineno}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any failure of an operation is the program's error
            raise _LocatedError(f"line {node.lineno}: {_detail(exc)}") from None

    def _iterable(self, value: Any) -> list:
        if isinstance(value, dict):
            return list(value)
        if not isinstance(value, _SEQUENCES):
            raise ProgramError(f"cannot loop over a {type(value).__name__}")
        return list(value)

    def _assign(self, target: ast.AST, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.variables[target.id] = value
        elif isinstance(target, ast.Subscript):
            self._store(self._eval(target.value), self._eval(target.slice), value)
        else:
            items = self._iterable(value)
            if len(items) != len(target.elts):
                raise ProgramError(f"cannot unpack {len(items)} values into {len(target.elts)} names")
            for element, item in zip(target.elts, items):
                self._assign(element, item)

    def _store(self, container: Any, key: Any, value: Any) -> None:
        """``container[key] = value``, refused before the write if the container would grow too large."""
        meter, budgets = self.meter, self.profile.budgets
        if self.profile.stores and isinstance(container, self.profile.stores):
            meter.charge_opaque(container, value)
            self._guard("store", (container, key, value))
            container[key] = value
            meter.forget(container)  # the next use measures it again
            meter.check(container)
            return
        if isinstance(container, list) and isinstance(key, slice):
            added, replaced = self._iterable(value), container[key]
            length = len(container) - len(replaced) + len(added)
        elif isinstance(container, list):
            added, replaced, length = [value], [container[key]], len(container)
        elif isinstance(container, dict):
            meter.charge(meter.size(key))  # hashing the key
            replaced = [container[key]] if key in container else []
            added = [value] if replaced else [key, value]
            length = len(container) + (not replaced)
        else:
            raise ProgramError(f"cannot assign into a {type(container).__name__}")
        if length > budgets.max_length:
            raise ProgramError(f"value too long (at most {budgets.max_length} items)")
        size, depth = meter.measure(container)
        for item in added:
            item_size, item_depth = meter.measure(item)
            size += item_size
            depth = max(depth, item_depth + 1)
            if meter.holds(item, container):
                raise ProgramError(f"a {type(container).__name__} cannot hold itself")
        size -= sum(meter.size(item) for item in replaced)
        if size > budgets.max_size:
            raise too_large(budgets)
        if depth > budgets.max_depth:
            raise too_deep(budgets)
        meter.allocate(len(added))
        container[key] = added if isinstance(key, slice) else value
        meter.stored(container, size, depth)

    # -- expressions -----------------------------------------------------------------------
    def _new(self, value: Any) -> Any:
        """A value the program just created: checked against the budgets, its items counted."""
        if isinstance(value, (str, list, tuple, dict)):
            self.meter.allocate(len(value))
        self.meter.check(value)
        self.meter.allocate_opaque(value)  # a new frame or array counts by its size
        return value

    def _eval(self, node: ast.expr) -> Any:
        self.meter.tick()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.variables:
                return self.variables[node.id]
            raise ProgramError(f"name {node.id!r} is not defined")
        if isinstance(node, ast.Call):  # early: most statements of most programs are calls
            return self._call(node)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self._eval(e) for e in node.elts]
            return self._new(items if isinstance(node, ast.List) else tuple(items))
        if isinstance(node, ast.Dict):
            return self._new({self._eval(k): self._eval(v) for k, v in zip(node.keys, node.values)})
        if isinstance(node, ast.BinOp):
            return self._binop(type(node.op), self._eval(node.left), self._eval(node.right))
        if isinstance(node, ast.UnaryOp):
            operand = self._eval(node.operand)
            self._guard(type(node.op).__name__, (operand,))
            return self._new(_UNARY_OPS[type(node.op)](operand))
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self._eval(operand)
                if isinstance(node.op, ast.And) != bool(value):
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = self._eval(node.left)
            if len(node.ops) == 1:  # the comparison's own value (an element-wise mask for a profile's arrays)
                return self._new(self._compare(type(node.ops[0]), left, self._eval(node.comparators[0])))
            for op, comparator in zip(node.ops, node.comparators):
                right = self._eval(comparator)
                if not self._compare(type(op), left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self._eval(node.body if self._eval(node.test) else node.orelse)
        if isinstance(node, ast.Subscript):
            container, key = self._eval(node.value), self._eval(node.slice)
            if isinstance(container, dict):
                self.meter.charge(self.meter.size(key))  # hashing the key
            elif not isinstance(container, (list, tuple, str)):
                self.meter.charge_opaque(container, key)
                self._guard("load", (container, key))
                return self._new(container[key])
            value = container[key]
            return self._new(value) if isinstance(key, slice) else value
        if isinstance(node, ast.Slice):
            return slice(*(None if part is None else self._eval(part) for part in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.ListComp):
            return self._list_comprehension(node)
        if isinstance(node, ast.JoinedStr):
            return self._f_string(node)
        if isinstance(node, ast.Attribute):  # a read the checker allowed: the value's type decides
            target = self._eval(node.value)
            if not any(node.attr in names for kind, names in self.profile.attributes.items()
                       if isinstance(target, kind)):
                raise ProgramError(f"a {type(target).__name__} has no attribute {node.attr!r} a program may read")
            self._guard("read", (target, node.attr))
            return self._new(getattr(target, node.attr))
        raise ProgramError(f"{type(node).__name__} is not allowed")

    def _binop(self, op: type, left: Any, right: Any) -> Any:
        """``left op right``, refused before it is computed if the result would be too large."""
        budgets, meter = self.profile.budgets, self.meter
        meter.charge_opaque(left, right)
        self._guard(op.__name__, (left, right))
        known = None  # (deep size, depth) of a list or tuple result, from its operands' sizes
        if op is ast.Mult:
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, _SEQUENCES) and isinstance(times, int):
                    times = max(times, 0)
                    if len(seq) * times > budgets.max_length:
                        raise ProgramError(f"value too long (at most {budgets.max_length} items or characters)")
                    if not isinstance(seq, str):
                        size, depth = meter.measure(seq)
                        known = (1 + (size - 1) * times, depth if times else 0)
            if isinstance(left, int) and isinstance(right, int) and \
                    abs(left).bit_length() + abs(right).bit_length() > budgets.max_int_bits + 1:
                raise ProgramError(f"number too large (more than {budgets.max_int_bits} bits)")
        if op is ast.Pow and isinstance(left, (int, float)) and isinstance(right, (int, float)):
            if abs(right) > 1024 or (isinstance(left, int) and isinstance(right, int) and right > 0
                                      and abs(left).bit_length() * right > budgets.max_int_bits + 1):
                raise ProgramError("number too large")
        if op is ast.Mod and isinstance(left, str):
            raise ProgramError("string formatting with % is not allowed; use an f-string")
        if op is ast.Add and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
            if len(left) + len(right) > budgets.max_length:
                raise ProgramError(f"value too long (at most {budgets.max_length} items or characters)")
            if not isinstance(left, str) and type(left) is type(right):
                (left_size, left_depth), (right_size, right_depth) = meter.measure(left), meter.measure(right)
                known = (left_size + right_size - 1, max(left_depth, right_depth))
        if known is not None and known[0] > budgets.max_size:
            raise too_large(budgets)
        result = _BIN_OPS[op](left, right)
        if known is not None:
            meter.remember(result, *known)  # no need to walk what was just counted
        return self._new(result)

    def _compare(self, op: type, left: Any, right: Any) -> bool:
        """``left op right``, its work charged first (a deep comparison walks both sides)."""
        if op not in (ast.Is, ast.IsNot):
            meter = self.meter
            if op in (ast.In, ast.NotIn) and isinstance(right, dict):
                meter.charge(meter.size(left))  # hashing
            else:
                meter.charge(meter.size(left) + meter.size(right))
            meter.charge_opaque(left, right)
            self._guard(op.__name__, (left, right))
        return _COMPARE_OPS[op](left, right)

    def _list_comprehension(self, node: ast.ListComp) -> list:
        result: list = []
        totals = [1, 0]  # deep size and depth of the result so far

        def generate(index: int) -> None:
            generator = node.generators[index]
            for item in self._iterable(self._eval(generator.iter)):
                self._assign(generator.target, item)
                if not all(self._eval(condition) for condition in generator.ifs):
                    continue
                if index + 1 < len(node.generators):
                    generate(index + 1)
                    continue
                value = self._eval(node.elt)
                budgets = self.profile.budgets
                if len(result) >= budgets.max_length:
                    raise ProgramError(f"value too long (at most {budgets.max_length} items)")
                size, depth = self.meter.measure(value)
                totals[0] += size
                totals[1] = max(totals[1], depth + 1)
                if totals[0] > budgets.max_size:
                    raise too_large(budgets)
                self.meter.allocate(1)
                result.append(value)

        generate(0)
        self.meter.remember(result, *totals)
        return result

    def _f_string(self, node: ast.JoinedStr) -> str:
        parts = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                value = self._eval(part.value)
                parts.append(to_text(value, self.meter, as_repr=part.conversion == ord("r")))
            else:
                parts.append(self._eval(part))
        if sum(len(p) for p in parts) > self.profile.budgets.max_length:
            raise ProgramError(f"value too long (at most {self.profile.budgets.max_length} characters)")
        return self._new("".join(parts))

    # -- calls -----------------------------------------------------------------------------
    def _call(self, node: ast.Call) -> Any:
        func = node.func
        args = [self._eval(a) for a in node.args]
        kwargs = {k.arg: self._eval(k.value) for k in node.keywords}
        meter = self.meter
        units = 0  # a call may walk its arguments
        for value in args:
            units += meter.size(value)
        for value in kwargs.values():
            units += meter.size(value)
        meter.charge(units)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.namespaces:
            label = f"{func.value.id}.{func.attr}"
            invoke = self.namespaces[func.value.id]
            return self._result(label, invoke, func.attr, args, kwargs)
        if isinstance(func, ast.Attribute):
            target = self._eval(func.value)
            label = f"{type(target).__name__}.{func.attr}"
            allowed = [names for kind, names in self.profile.methods.items() if isinstance(target, kind)]
            if not any(func.attr in names for names in allowed):
                raise ProgramError(f"a {type(target).__name__} has no method {func.attr!r} a program may call")
            meter.charge_opaque(target)
            instead = self._guard(label, (target, args, kwargs))
            method = getattr(target, func.attr)
            result = self._result(label, instead) if instead else self._result(label, method, *args, **kwargs)
            if result is None:  # a method that returns nothing changed its target (pandas' inplace=True, insert)
                meter.forget(target)
            return result
        name = func.id
        function = self.functions.get(name) or self.profile.builtins[name]
        if getattr(function, "metered", False):
            args = [meter, *args]
        self._bind(name, function, args, kwargs)
        return self._result(name, function, *args, **kwargs)

    def _guard(self, operation: str, operands: tuple) -> Callable[[], Any] | None:
        """Ask the profile's guard, if any, whether an operation on its values may start (and,
        for a method call, whether to run something else in its place)."""
        if self.profile.guard is not None:
            return self.profile.guard(operation, operands)
        return None

    def _bind(self, name: str, function: Callable, args: list, kwargs: dict) -> None:
        """Say plainly when the arguments do not fit ``function``'s signature."""
        if name not in self._signatures:
            try:
                self._signatures[name] = inspect.signature(function)
            except (TypeError, ValueError):  # some builtins have none; they report misfits themselves
                self._signatures[name] = None
        signature = self._signatures[name]
        if signature is not None:
            try:
                signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise ProgramError(f"{name}(): {exc}") from None

    def _result(self, label: str, function: Callable, /, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)``, a new value; its failure a ProgramError named by ``label``."""
        try:
            return self._new(function(*args, **kwargs))
        except ProgramError as exc:
            raise ProgramError(f"{label}(): {exc}") from None
        except RecursionError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failing function is the program's error
            raise ProgramError(f"{label}(): {_detail(exc)}") from None
