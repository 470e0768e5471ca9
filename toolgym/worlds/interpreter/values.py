"""The values of a program: their budgets, their deep sizes, and bounded ways to show them.

A program may alias values (``[x] * 10`` holds ten references to one ``x``), so a value's
memory can be small while everything that walks it (``str``, ``==``, ``sorted``, hashing, a
database write) does work in proportion to its *deep size*: the items and characters met
when walking it through every nesting and every alias. :class:`Meter` measures deep sizes,
remembers them so that building ``[x] * 10`` costs ten look-ups rather than a walk of ten
copies of ``x``, and counts a run's steps, work and allocations against its :class:`Budgets`.
"""

from __future__ import annotations

import dataclasses
import keyword
import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

#: Work units charged per item a measuring walk visits (a Python-level step costs about ten
#: times an item of a C-level comparison or copy, which cost one unit each).
WALK_COST = 10


class ProgramError(Exception):
    """A program that is not allowed, or that failed; the message is for the agent."""


@dataclass(frozen=True)
class Budgets:
    """Limits of one program and of each of its runs.

    Attributes:
        max_program_chars: Characters of a program's text.
        max_statements: Top-level statements of a program (None: no limit).
        max_steps: Syntax nodes evaluated in one run (each loop iteration counts again).
        max_work: Work units of one run: one per item that a comparison, ``in``, ``sorted``,
            ``min``/``max``, hashing, a call's arguments or a conversion to text may touch,
            and :data:`WALK_COST` per item a measuring walk visits. Charged before the work.
        max_allocated: Items and characters all the containers and strings a run creates may
            hold together.
        max_length: Items or characters of one string, list, tuple or dict, and the deep
            size of a value turned into text (``str``, f-strings).
        max_size: Deep size of one value: its items and characters, counted through every
            nesting level and every alias.
        max_depth: Nesting levels of one value.
        max_int_bits: Bits of an integer.
    """

    max_program_chars: int = 20_000
    max_statements: int | None = None
    max_steps: int = 100_000
    max_work: int = 5_000_000
    max_allocated: int = 1_000_000
    max_length: int = 10_000
    max_size: int = 100_000
    max_depth: int = 50
    max_int_bits: int = 256


def _children(value: Any) -> list | tuple | None:
    """The values a container holds (dict keys and values, dataclass fields); None for others."""
    if isinstance(value, (list, tuple)):
        return value
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, field.name) for field in dataclasses.fields(value)]
    return None


def _scalar_size(value: Any) -> int | None:
    if isinstance(value, str):
        return max(len(value), 1)
    if value is None or isinstance(value, (bool, int, float)):
        return 1
    return None


def _is_opaque(value: Any) -> bool:
    """Whether ``value`` is neither a scalar nor a container the meter walks (as
    ``_scalar_size(value) is None and _children(value) is None``, without listing children)."""
    if value is None or isinstance(value, (str, bool, int, float, list, tuple, dict)):
        return False
    return not (dataclasses.is_dataclass(value) and not isinstance(value, type))


class Meter:
    """The steps, work and allocations of one run, and the deep sizes of its values.

    Deep sizes are remembered per object. A subscript assignment changes the size of the
    container it writes to and of every container that holds it; the meter cannot know
    those holders, so it forgets every remembered size of a container that holds containers
    (see :meth:`stored`) and measures them again when they are next used.
    """

    def __init__(self, budgets: Budgets, size_of: Callable[[Any], int | None] | None = None,
                 operation_cost: int = 0):
        self.budgets = budgets
        self.size_of = size_of  # deep size of values with no walkable children (a profile's data frames)
        self.operation_cost = operation_cost  # work of one operation on such values, besides their size
        self.steps = 0
        self.work = 0
        self.allocated = 0
        # id -> (value, size, depth); the value is kept so that its id is not reused in the run
        self._flat: dict[int, tuple[Any, int, int]] = {}
        self._nested: dict[int, tuple[Any, int, int]] = {}
        self._opaque: dict[int, tuple[Any, int]] = {}  # id -> (value, size) of values measured by size_of

    # -- budgets -------------------------------------------------------------------------------
    def tick(self) -> None:
        """Count one evaluated node."""
        self.steps += 1
        if self.steps > self.budgets.max_steps:
            raise ProgramError(f"step budget exceeded ({self.budgets.max_steps} steps); the program runs too long")

    def charge(self, units: int) -> None:
        """Count ``units`` of work, before the work is done."""
        self.work += units
        if self.work > self.budgets.max_work:
            raise ProgramError(f"work budget exceeded ({self.budgets.max_work} units); the program compares, "
                               f"sorts, copies or prints too much data")

    def allocate(self, items: int) -> None:
        """Count ``items`` items or characters of a new container or string."""
        self.allocated += items
        if self.allocated > self.budgets.max_allocated:
            raise ProgramError(f"the program builds too much data (more than {self.budgets.max_allocated} "
                               f"items and characters in all)")

    # -- sizes ---------------------------------------------------------------------------------
    def size(self, value: Any) -> int:
        """The deep size of ``value``; raises ProgramError past ``max_size`` or ``max_depth``."""
        return self.measure(value)[0]

    def measure(self, value: Any) -> tuple[int, int]:
        """(deep size, nesting depth) of ``value``, walking only what is not remembered."""
        scalar = _scalar_size(value)
        if scalar is not None:
            return scalar, 0
        return self._walk(value, 0)

    def _walk(self, value: Any, level: int) -> tuple[int, int]:
        scalar = _scalar_size(value)
        if scalar is not None:
            return scalar, 0
        known = self._flat.get(id(value)) or self._nested.get(id(value))
        if known is not None:
            return known[1], known[2]
        children = _children(value)
        if children is None:  # an opaque object a function returned
            return self.opaque_size(value), 0
        if level >= self.budgets.max_depth:  # also ends the walk of a value that holds itself
            raise too_deep(self.budgets)
        self.charge(WALK_COST * (len(children) + 1))
        size, depth = 1, 0
        for child in children:
            child_size, child_depth = self._walk(child, level + 1)
            size += child_size
            depth = max(depth, child_depth + 1)
            if size > self.budgets.max_size:
                raise too_large(self.budgets)
        if depth > self.budgets.max_depth:
            raise too_deep(self.budgets)
        self.remember(value, size, depth)
        return size, depth

    def opaque_size(self, value: Any) -> int:
        """The size of a value only the profile's ``size_of`` can measure (1 without it), remembered
        until the next write into an opaque value; raises ProgramError past ``max_size``."""
        known = self._opaque.get(id(value))
        if known is not None:
            return known[1]
        size = (self.size_of(value) or 1) if self.size_of is not None else 1
        if size > self.budgets.max_size:
            raise too_large(self.budgets)
        self._opaque[id(value)] = (value, size)
        return size

    def allocate_opaque(self, value: Any) -> None:
        """Count a new opaque value (a data frame, an array) as items allocated, by its size."""
        if _is_opaque(value):
            self.allocate(self.opaque_size(value))

    def charge_opaque(self, *values: Any) -> None:
        """Charge the work of an operation on opaque values, before it: their sizes (a data frame's
        operation visits its cells) and the operation's fixed cost (a library call's overhead)."""
        opaque = [v for v in values if _is_opaque(v)]
        if opaque:
            self.charge(self.operation_cost + sum(self.opaque_size(v) for v in opaque))

    def remember(self, value: Any, size: int, depth: int) -> None:
        """Record the deep size of a container just built from measured parts."""
        (self._flat if depth <= 1 else self._nested)[id(value)] = (value, size, depth)

    def check(self, value: Any) -> Any:
        """Refuse a new value that is too large; returns it."""
        budgets = self.budgets
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if value.bit_length() > budgets.max_int_bits:
                raise ProgramError(f"number too large (more than {budgets.max_int_bits} bits)")
            return value
        if isinstance(value, complex):
            raise ProgramError("complex numbers are not supported")
        if isinstance(value, (str, list, tuple, dict)) and len(value) > budgets.max_length:
            raise ProgramError(f"value too long ({len(value)} items or characters; at most {budgets.max_length})")
        self.measure(value)
        return value

    def stored(self, container: Any, size: int, depth: int) -> None:
        """After a subscript assignment into ``container``, whose deep size is now ``size``."""
        self._nested.clear()  # any of them may hold the container
        self._flat.pop(id(container), None)
        self.remember(container, size, depth)

    def forget(self, container: Any) -> None:
        """After a write into an opaque container (or a method that changed its target): drop every
        remembered size that may include it (an indexer writes into the frame it belongs to)."""
        self._nested.clear()
        self._opaque.clear()
        self._flat.pop(id(container), None)

    def holds(self, value: Any, target: Any) -> bool:
        """Whether walking ``value`` meets the object ``target`` (charged, bounded by max_size)."""
        stack, seen = [value], 0
        while stack:
            item = stack.pop()
            if item is target:
                return True
            children = _children(item)
            if children:
                seen += len(children)
                if seen > self.budgets.max_size:
                    raise too_large(self.budgets)
                self.charge(WALK_COST * len(children))
                stack.extend(children)
        return False


def too_large(budgets: Budgets) -> ProgramError:
    return ProgramError(f"value too large (more than {budgets.max_size} items and characters, counted through "
                        f"every nesting level)")


def too_deep(budgets: Budgets) -> ProgramError:
    return ProgramError(f"value nested too deeply (more than {budgets.max_depth} levels)")


def bounded_size(value: Any, limit: int) -> int:
    """Deep size of ``value``, counting no further than ``limit + 1`` (for values outside a run)."""
    count, stack = 0, [(value, 0)]
    while stack and count <= limit:
        item, level = stack.pop()
        scalar = _scalar_size(item)
        count += scalar if scalar is not None else 1
        children = _children(item)
        if children:
            if level >= Budgets.max_depth:
                return limit + 1
            stack.extend((child, level + 1) for child in children)
    return count


# -- text ----------------------------------------------------------------------------------------
def to_text(value: Any, meter: Meter, as_repr: bool = False) -> str:
    """``str(value)`` (or ``repr``), refused before it is built when the value is too large."""
    if isinstance(value, str) and not as_repr:
        return value
    limit = meter.budgets.max_length
    size = meter.size(value)
    if size > limit:
        raise ProgramError(f"value too large to turn into text (more than {limit} items)")
    meter.charge(size)
    text = repr(value) if as_repr else str(value)
    if len(text) > limit:
        raise ProgramError(f"value too long to turn into text ({len(text)} characters; at most {limit})")
    return text


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marked with ``...`` when cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def preview(value: Any, limit: int = 2000, as_text: bool = False) -> str:
    """A bounded ``repr`` (``str`` with ``as_text``) of any value, for observations; never raises."""
    if isinstance(value, str) and as_text:
        return shorten(value, limit)
    if bounded_size(value, Budgets.max_length) > Budgets.max_length:
        return f"<{type(value).__name__} too large to show>"
    try:
        text = str(value) if as_text else repr(value)
    except (RecursionError, ValueError):  # a value holding itself; an int past Python's digit limit
        return f"<{type(value).__name__} that cannot be shown>"
    return shorten(text, limit)


# -- program text of a tool call -----------------------------------------------------------------
def literal_source(value: Any, depth: int = 0) -> str:
    """A JSON value (from a tool call's arguments) as a Python literal of a program.

    Raises:
        ProgramError: NaN or infinity, nesting deeper than ``Budgets.max_depth``, or a value
            that has no literal.
    """
    if depth > Budgets.max_depth:
        raise ProgramError(f"the arguments nest more than {Budgets.max_depth} levels deep")
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProgramError(f"{value!r} is not a finite number")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal_source(item, depth + 1) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal_source(k, depth + 1)}: {literal_source(v, depth + 1)}"
                               for k, v in value.items()) + "}"
    raise ProgramError(f"a value of type {type(value).__name__} cannot be an argument")


def call_source(callee: str, arguments: Any, render: Mapping[str, Callable[[Any], str]] | None = None) -> str:
    """The program text ``callee(key=value, ...)`` of a tool call with JSON arguments.

    Args:
        callee: What the statement calls, e.g. ``"API.set_location"``.
        arguments: The call's arguments, a mapping of parameter names to JSON values.
        render: Parameter name -> function giving the source of that parameter's value
            (e.g. ``Loc('Boston')``); others are written with :func:`literal_source`.

    Raises:
        ProgramError: The arguments are not a mapping with parameter names as keys, or a
            value cannot be written.
    """
    if not isinstance(arguments, Mapping):
        raise ProgramError(f"the arguments of {callee} must be a JSON object, got {type(arguments).__name__}")
    parts = []
    for key, value in arguments.items():
        if not (isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key)):
            raise ProgramError(f"{callee}(): {shorten(repr(key), 80)} is not a parameter name")
        parts.append(f"{key}={(render or {}).get(key, literal_source)(value)}")
    return f"{callee}({', '.join(parts)})"
