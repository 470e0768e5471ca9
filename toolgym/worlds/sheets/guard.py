"""The rules every pandas / numpy operation of a GoogleSheets program passes before it starts.

The interpreter asks :func:`guard` before each operator, subscript, subscript store and method
call on a value (``guard(operation, operands)``); the ``pd`` / ``np`` facades and the sheet
functions of the profile ask the same rules. A rule either returns or raises
:class:`ProgramError` with a message for the agent; rules are total (they read their operands
defensively), so a refusal only ever comes from a rule, never from an exception inside one.

Three kinds of rules:

- **Names that become calls.** pandas looks up a *string* as a method of the data (``agg('sum')``
  is ``getattr(df, 'sum')()``, and so are named aggregations ``agg(y=('col', 'sum'))``, lists,
  dicts, ``pivot_table(aggfunc=...)``); numpy and pandas turn dtype strings into types through
  registries that import libraries and read files. Every argument of a method is bound to the
  method's real signature (so a positional argument is judged by its parameter's name), then:
  every function position of an aggregation spec must name one of :data:`AGGREGATIONS`;
  arguments forwarded to an aggregation must be plain numbers; ``dtype`` must be one of
  :data:`DTYPES` (or a dtype object a frame already has); ``engine`` / ``engine_kwargs`` (JIT
  compilers) must be None; no argument may be callable. Methods that evaluate code or apply
  functions (``apply``, ``map``, ``transform``, ``pipe``, ``eval``, ``query``, ``resample``,
  ``rolling``, ...) are not in the profile's allow-list at all.
- **Patterns on RE2.** ``str.contains``, ``str.replace``, ``str.extract`` (``regex=True``) and
  ``replace(regex=...)`` are not run by pandas: the guard returns what to run in their place,
  :mod:`toolgym.worlds.sheets.regex`, which matches with RE2 (linear time) under its own
  budgets and refuses backreferences and lookaround by name. Every other method that takes a
  pattern (``filter``, ``str.split``, ``str.match``, ``str.count``, ...) is not in the
  allow-list. So no pattern ever reaches a backtracking engine.
- **Size and work, predicted.** The size of each result is computed from the arguments' shapes
  and text before the work: numpy broadcasting, pandas index alignment (duplicate labels
  multiply), fancy indexing and ``loc`` lists, enlargement by stores, ``melt``, ``pivot`` and
  ``pivot_table`` (distinct keys, also of array keys), ``groupby().agg``, ``describe``,
  ``value_counts(bins=)``, ``concat``, text growth (``+`` of text, text times numbers,
  ``cumsum`` of text, ``str.replace`` / ``str.cat`` / case changes, conversion to text, numpy's
  fixed-width strings) and big-integer growth (``**``, ``*``, ``prod`` of object columns).
  Anything over the profile's ``max_size`` items and characters, or a frame wider than
  :data:`MAX_COLUMNS` columns (pandas works column by column), is refused.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

from toolgym.worlds.interpreter import ProgramError
from toolgym.worlds.sheets.sizes import (BUDGETS, LIMIT, COLUMN_COST, MAX_COLUMNS, _pd, _np, _is_pandas, _is_data,
                                         _texty, _cell_sizes, _text, _cells, size, _width,
                                         _refuse_size, _refuse_columns, _plain, _hashable_in)

#: Work of one pandas / numpy operation besides its data (a library call costs about 100 µs,
#: so that a run of the work budget makes at most a few thousand calls).
OPERATION_COST = 10_000

#: The only names a program may pass where pandas expects a function (``agg('sum')``,
#: ``agg(total=('Sales', 'sum'))``, ``aggfunc='mean'``, lists and dicts of them).
AGGREGATIONS = frozenset({"sum", "mean", "min", "max", "count", "median", "first", "last", "size", "nunique",
                          "std", "var", "prod", "any", "all"})
#: The dtype names a program may pass (``astype``, ``dtype=``): no sized strings, time zones or
#: storage back ends, which numpy and pandas resolve through registries.
DTYPES = frozenset({"int", "int8", "int16", "int32", "int64", "float", "float32", "float64", "bool", "str", "string",
                    "object", "category", "Int64", "Float64", "boolean", "datetime64[ns]"})
#: Characters of text a number may become (``astype(str)``).
NUMBER_TEXT = 24
#: How much longer a case change may make a text (``'ﬃ'.upper()`` is ``'FFI'``).
CASE_GROWTH = 3
_ARITHMETIC = frozenset({"Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow", "BitAnd", "BitOr"})
_ELEMENTWISE = _ARITHMETIC | {"Eq", "NotEq", "Lt", "LtE", "Gt", "GtE"}
_METHOD_OPERATORS = {"add": "Add", "sub": "Sub", "mul": "Mult", "div": "Div"}
_AGGREGATING = frozenset({"agg", "aggregate"})


# -- values -----------------------------------------------------------------------------------
def _number(value: Any) -> float:
    """The largest absolute number in a value (0 for text and others)."""
    numpy = _np()
    if _is_data(value):
        data = value.to_numpy() if _is_pandas(value) and not isinstance(value, _pd().Index) else numpy.asarray(value)
        if data.dtype.kind in "iuf":
            finite = numpy.abs(data[numpy.isfinite(data)]) if data.dtype.kind == "f" else numpy.abs(data)
            return float(finite.max()) if finite.size else 0.0
        if data.dtype == object:
            return max((_number(v) for v in data.ravel()), default=0.0)
        return 0.0
    if isinstance(value, bool):
        return 1.0
    if isinstance(value, int):
        return float(value) if value.bit_length() < 1000 else math.inf
    if isinstance(value, (float, numpy.number)) and not isinstance(value, numpy.bool_):
        number = abs(float(value))
        return number if math.isfinite(number) else 0.0
    if isinstance(value, (list, tuple)):
        return max((_number(v) for v in value), default=0.0)
    return 0.0


def _int_bits(value: Any) -> int:
    """Bits of the Python integers in the object cells of a value, summed."""
    numpy = _np()
    if not _is_data(value):
        return 0
    data = numpy.asarray(value.to_numpy() if _is_pandas(value) else value)
    if data.dtype != object:
        return 0
    return sum(abs(v).bit_length() for v in data.ravel() if isinstance(v, int) and not isinstance(v, bool))


# -- shapes -----------------------------------------------------------------------------------
def shape_of(value: Any) -> tuple[int, ...]:
    """The numpy shape of a value (nested lists: by their first items, never building an array)."""
    if _is_data(value):
        return tuple(value.shape)
    if isinstance(value, (list, tuple)):
        return (len(value), *(shape_of(value[0]) if value and isinstance(value[0], (list, tuple)) else ()))
    return ()


def _join(left: Any, right: Any) -> int:
    """Labels of the outer join of two indexes (duplicate labels multiply)."""
    pandas = _pd()
    try:
        if left.equals(right):
            return len(left)
        if left.is_unique and right.is_unique:
            return len(left) + len(right)
        a = pandas.Series(left).value_counts(dropna=False)
        b = pandas.Series(right).value_counts(dropna=False)
        common = a.index.intersection(b.index)
        both = int((a[common] * b[common]).sum())
        return both + int(a.sum() - a[common].sum()) + int(b.sum() - b[common].sum())
    except (TypeError, ValueError):  # labels pandas cannot count: the worst case of a join
        return len(left) * max(len(right), 1) + len(right)


def _aligned_cells(left: Any, right: Any, axis: Any = "columns") -> tuple[int, int]:
    """(cells, columns) of an element-wise operation, from broadcasting or pandas' alignment."""
    pandas, numpy = _pd(), _np()
    frame, series = pandas.DataFrame, pandas.Series
    if isinstance(left, (frame, series)) and isinstance(right, (frame, series)):
        if isinstance(left, frame) and isinstance(right, frame):
            columns = _join(left.columns, right.columns)
            return _join(left.index, right.index) * columns, columns
        if isinstance(left, series) and isinstance(right, series):
            return _join(left.index, right.index), 1
        table, line = (left, right) if isinstance(left, frame) else (right, left)
        if axis in (0, "index", "rows"):
            return _join(table.index, line.index) * table.shape[1], table.shape[1]
        columns = _join(table.columns, line.index)
        return len(table) * columns, columns
    shapes = [shape_of(v) for v in (left, right)]
    columns = max((_width(v) for v in (left, right)), default=1)
    try:
        return int(math.prod(numpy.broadcast_shapes(*shapes))), columns
    except ValueError:  # shapes that do not fit: the operation fails by itself
        return max(math.prod(s) for s in shapes), columns


def fixed_width(value: Any) -> int:
    """Characters per item of numpy's fixed-width strings a value takes part in as, or 0."""
    numpy = _np()
    if isinstance(value, numpy.ndarray) and value.dtype.kind in "US":
        return value.dtype.itemsize // (4 if value.dtype.kind == "U" else 1)
    if isinstance(value, (str, numpy.str_)):
        return len(value)
    return 0


def _has_text(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, _pd().DataFrame):
        return any(_texty(d) for d in set(value.dtypes.values))
    return _is_data(value) and (_texty(value.dtype) or value.dtype.kind in "US")


def _elementwise(operation: str, left: Any, right: Any, axis: Any = "columns") -> None:
    """Refuse an operator (or its method form) whose result would exceed the budgets."""
    numpy = _np()
    if not any(_is_data(v) or isinstance(v, numpy.generic) for v in (left, right)):
        return
    for a, b in ((left, right), (right, left)):
        if isinstance(a, (str, list, tuple)) and isinstance(b, numpy.integer) and operation == "Mult":
            if len(a) * abs(int(b)) > BUDGETS.max_length:
                raise ProgramError(f"value too long (at most {BUDGETS.max_length} items or characters)")
    cells, columns = _aligned_cells(left, right, axis)
    _refuse_size(cells, "the result")
    _refuse_columns(columns, "the result")
    if operation not in _ARITHMETIC:
        return
    if operation == "Mod" and _has_text(left):
        raise ProgramError("string formatting with % is not allowed; use an f-string or str methods")
    widths = [fixed_width(v) for v in (left, right)]
    if isinstance(left, numpy.ndarray) and left.dtype.kind in "US" or \
            isinstance(right, numpy.ndarray) and right.dtype.kind in "US":
        _refuse_size(cells * sum(widths), "the result (numpy text)")
    if operation == "Add":
        grown = sum(_text(v) * max(1, cells // max(_cells(v), 1)) for v in (left, right))
        _refuse_size(cells + grown, "the result")
    if operation in ("Mult", "Pow"):
        for a, b in ((left, right), (right, left)):
            if not _is_data(a):
                continue
            if isinstance(b, (str, list, tuple)):
                _refuse_size(len(b) * _number(a) * max(_cells(a), 1), "repeating text by the numbers of a column")
            if _has_text(a):
                _refuse_size(_number(b) * max(_text(a), 1), "repeating the text of a column")
                bits = math.log2(max(_number(a), 1.0))
                other = max(_number(b), 1.0)
                grow = bits * (other if operation == "Pow" else 1) + math.log2(other)
                if grow > BUDGETS.max_int_bits:
                    raise ProgramError(f"number too large (more than {BUDGETS.max_int_bits} bits)")


# -- subscripts --------------------------------------------------------------------------------
def _is_list_like(key: Any) -> bool:
    return isinstance(key, (list, tuple)) or _is_data(key)


def _is_mask(key: Any) -> bool:
    numpy = _np()
    if _is_data(key):
        return key.dtype == bool if not isinstance(key, _pd().DataFrame) else all(d == bool for d in key.dtypes)
    return isinstance(key, list) and bool(key) and all(isinstance(k, (bool, numpy.bool_)) for k in key)


def _selected(labels: Any, key: Any, positional: bool = False) -> int:
    """How many entries of an axis a ``loc`` / ``iloc`` / ``[]`` key selects (an upper bound)."""
    pandas = _pd()
    if not _is_list_like(key) or _is_mask(key):
        if positional or not isinstance(key, (str, int, float)) or labels.is_unique:
            return len(labels)
    count = len(key) if _is_list_like(key) else 1
    if positional or labels.is_unique:
        return count
    try:
        repeats = int(pandas.Series(labels).value_counts(dropna=False).max())
    except (TypeError, ValueError):
        repeats = len(labels)
    return count * repeats


def _index_cells(array: Any, key: Any) -> int:
    """Items of a numpy subscript's result; advanced indexes broadcast together."""
    numpy = _np()
    parts = key if isinstance(key, tuple) else (key,)
    advanced, consumed = [], 0
    for part in parts:
        if part is None or part is Ellipsis or isinstance(part, slice):
            consumed += isinstance(part, slice)
            continue
        if _is_list_like(part):
            shape = shape_of(part)
            if _is_mask(part):
                consumed += max(len(shape), 1)
                shape = (int(numpy.count_nonzero(numpy.asarray(part, dtype=bool))),)
            else:
                consumed += 1
            advanced.append(shape)
        else:
            consumed += 1
    if not advanced:
        return 0  # a view: nothing new is allocated
    try:
        chosen = math.prod(numpy.broadcast_shapes(*advanced))
    except ValueError:
        return 0  # indexes that do not fit: numpy refuses by itself
    return chosen * math.prod(array.shape[min(consumed, array.ndim):] or (1,))


def _load(container: Any, key: Any) -> None:
    """Refuse a subscript whose result would exceed the budgets."""
    pandas, numpy = _pd(), _np()
    from pandas.core.indexing import _iLocIndexer, _LocIndexer

    if isinstance(container, numpy.ndarray):
        _refuse_size(_index_cells(container, key), "the selection")
        return
    positional = isinstance(container, _iLocIndexer)
    if isinstance(container, (_LocIndexer, _iLocIndexer)):
        target = container.obj
        rows, columns = key if isinstance(key, tuple) and len(key) == 2 else (key, slice(None))
        if isinstance(target, pandas.DataFrame):
            width = _selected(target.columns, columns, positional)
            _refuse_columns(width, "the selection")
            _refuse_size(_selected(target.index, rows, positional) * width, "the selection")
        elif isinstance(target, pandas.Series):
            _refuse_size(_selected(target.index, rows, positional), "the selection")
        return
    if isinstance(container, pandas.DataFrame) and _is_list_like(key) and not _is_mask(key):
        width = _selected(container.columns, key)
        _refuse_columns(width, "the selection")
        _refuse_size(len(container) * width, "the selection")
    elif isinstance(container, pandas.Series) and _is_list_like(key) and not _is_mask(key):
        _refuse_size(_selected(container.index, key), "the selection")
    elif isinstance(container, pandas.Index) and _is_list_like(key):
        _refuse_size(_index_cells(numpy.empty(len(container), dtype=bool), key), "the selection")


def _new_labels(labels: Any, key: Any) -> int:
    """Labels a store adds to an axis (enlargement)."""
    if isinstance(key, slice) or _is_mask(key):
        return 0
    keys = list(key) if _is_list_like(key) and not isinstance(key, _pd().DataFrame) else [key]
    return sum(not _hashable_in(k, labels) for k in keys)  # the index's hash table: O(1) a key


def _store(container: Any, key: Any, value: Any) -> None:
    """Refuse a subscript store whose value or enlarged frame would exceed the budgets (by its
    cells: a store runs in loops, and the frame's text is measured when it is next used)."""
    pandas = _pd()
    from pandas.core.indexing import _AtIndexer, _iAtIndexer, _iLocIndexer, _LocIndexer

    if size(value) > LIMIT:
        raise ProgramError("the value is too large to store")
    if isinstance(container, (_iLocIndexer, _iAtIndexer)):
        return  # positions never enlarge
    target = container.obj if isinstance(container, (_LocIndexer, _AtIndexer)) else container
    if isinstance(container, (_LocIndexer, _AtIndexer)):
        rows, columns = key if isinstance(key, tuple) and len(key) == 2 else (key, None)
    else:
        rows, columns = (None, key) if isinstance(target, pandas.DataFrame) else (key, None)
    if isinstance(target, pandas.DataFrame):
        height = len(target) + (0 if rows is None else _new_labels(target.index, rows))
        width = target.shape[1] + (0 if columns is None else _new_labels(target.columns, columns))
        _refuse_columns(width, "the frame")
        _refuse_size(height * width + COLUMN_COST * width, "the frame")
    elif isinstance(target, pandas.Series):
        _refuse_size(len(target) + (0 if rows is None else _new_labels(target.index, rows)), "the series")


# -- arguments ----------------------------------------------------------------------------------
_SIGNATURES: dict[tuple[type, str], inspect.Signature | None] = {}


def bind(target: Any, method: str, args: tuple | list, kwargs: dict) -> dict[str, Any]:
    """The arguments of ``target.method(*args, **kwargs)`` by parameter name (``*args`` and
    ``**kwargs`` under their own names), as the method's signature binds them."""
    key = (type(target), method)
    if key not in _SIGNATURES:
        try:
            _SIGNATURES[key] = inspect.signature(getattr(target, method))
        except (TypeError, ValueError, AttributeError):
            _SIGNATURES[key] = None
    signature = _SIGNATURES[key]
    if signature is None:
        return {**{f"#{i}": a for i, a in enumerate(args)}, **kwargs}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise ProgramError(f"{method}(): {exc}") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def aggregation(spec: Any, where: str) -> int:
    """Check an aggregation spec (a name, or a list / dict of names); returns how many functions it names."""
    if isinstance(spec, str):
        if spec not in AGGREGATIONS:
            raise ProgramError(f"{where}: aggregation {spec!r} is not allowed; use one of "
                               f"{', '.join(sorted(AGGREGATIONS))}")
        return 1
    if isinstance(spec, (list, tuple)):
        if not spec:
            raise ProgramError(f"{where}: an empty list of aggregations")
        for item in spec:
            if not isinstance(item, str):
                raise ProgramError(f"{where}: a list of aggregations holds names only "
                                   f"(found a {type(item).__name__})")
        return sum(aggregation(item, where) for item in spec)
    if isinstance(spec, dict):
        counts = [aggregation(item, where) for item in spec.values()]
        if any(isinstance(item, dict) for item in spec.values()):
            raise ProgramError(f"{where}: nested dicts of aggregations are not allowed")
        return max(counts, default=1)
    raise ProgramError(f"{where}: an aggregation must be one of {', '.join(sorted(AGGREGATIONS))} (as text), a list "
                       f"of them or a dict of column -> name (found a {type(spec).__name__})")


def _forwarded(values: Any, where: str) -> None:
    """Arguments pandas passes on to an aggregation function: plain numbers only."""
    items = values.values() if isinstance(values, dict) else values
    for item in items:
        if not _plain(item):
            raise ProgramError(f"{where}: extra arguments of an aggregation must be numbers or booleans "
                               f"(found a {type(item).__name__})")


def _aggregate(bound: dict, where: str) -> int:
    """agg / aggregate of a frame, series or group-by: the functions they name; returns their number."""
    func, named = bound.get("func"), bound.get("kwargs") or {}
    _forwarded(bound.get("args") or (), where)
    if func is not None:
        _forwarded(named, where)
        return aggregation(func, where)
    if not named:
        raise ProgramError(f"{where}: name the aggregation (e.g. agg('sum') or agg(total=('column', 'sum')))")
    for label, spec in named.items():
        if isinstance(spec, tuple) and len(spec) == 2:
            aggregation(spec[1], where)
        elif isinstance(spec, str):
            aggregation(spec, where)
        else:
            raise ProgramError(f"{where}: a named aggregation is {label}=('column', 'name') (found a "
                               f"{type(spec).__name__})")
    return 1


def dtype(value: Any, where: str) -> None:
    """A dtype argument: one of :data:`DTYPES`, a dtype object pandas already made, or a mapping of them."""
    pandas, numpy = _pd(), _np()
    if value is None:
        return
    if isinstance(value, (dict, pandas.Series)):
        for item in (value.values() if isinstance(value, dict) else value.tolist()):
            dtype(item, where)
        return
    if isinstance(value, str):
        if value not in DTYPES:
            raise ProgramError(f"{where}: dtype {value!r} is not allowed; use one of {', '.join(sorted(DTYPES))}")
        return
    if isinstance(value, numpy.dtype) and value.kind not in "USV":
        return
    if isinstance(value, pandas.api.extensions.ExtensionDtype) and not isinstance(value, pandas.DatetimeTZDtype):
        return
    raise ProgramError(f"{where}: dtype must be one of {', '.join(sorted(DTYPES))} (found {value!r:.60})")


def _arguments(bound: dict, where: str) -> None:
    """Rules for every method: no callables, no JIT engines, allowed dtypes, bounded decimals."""
    for name, value in bound.items():
        values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if callable(item):
                raise ProgramError(f"{where}: functions cannot be passed as arguments")
        if name in ("engine", "engine_kwargs") and value is not None:
            raise ProgramError(f"{where}: {name} is not allowed")
        if name == "dtype":
            dtype(value, where)
        # describe's dtype selections (compared as text only: a frame's == is element-wise)
        if name in ("include", "exclude") and value is not None and not (isinstance(value, str) and value == "all"):
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if not (isinstance(item, str) and item == "number"):
                    dtype(item, where)
        if name == "decimals":
            items = list(value.values()) if isinstance(value, dict) else \
                value.tolist() if isinstance(value, _pd().Series) else [value]
            for item in items:
                if isinstance(item, bool) or not isinstance(item, (int, _np().integer)) or abs(int(item)) > 20:
                    raise ProgramError(f"{where}: decimals must be integers of at most 20")


# -- methods -------------------------------------------------------------------------------------
def _columns_of(names: Any) -> list:
    """Column names given as one name or a list of them."""
    if names is None:
        return []
    return [names] if not _is_list_like(names) else list(names)


def _distinct(frame: Any, key: Any) -> int:
    """Distinct values of a group / pivot key: a column, an array, or a list of those (multiplied)."""
    pandas = _pd()
    if key is None:
        return 1
    try:
        if not _is_list_like(key) and key in frame.columns:
            return max(int(frame[key].nunique(dropna=False)), 1) if isinstance(frame[key], pandas.Series) else len(frame)
    except (TypeError, ValueError):
        return max(len(frame), 1)
    if isinstance(key, list) and key and all(not _is_list_like(k) for k in key) and \
            all(_hashable_in(k, frame.columns) for k in key):
        return math.prod(_distinct(frame, k) for k in key)
    if isinstance(key, list) and any(_is_list_like(k) for k in key):
        return math.prod(_distinct(frame, k) for k in key)
    if _is_list_like(key):
        try:
            return max(int(pandas.Series(list(key) if isinstance(key, (list, tuple)) else
                                         _np().ravel(_np().asarray(key, dtype=object))).nunique(dropna=False)), 1)
        except (TypeError, ValueError):
            return max(_cells(key), 1)
    return 1


def _pivot_table(frame: Any, bound: dict, where: str) -> None:
    if not isinstance(frame, _pd().DataFrame):
        raise ProgramError(f"{where}: takes a DataFrame")
    functions = aggregation(bound.get("aggfunc", "mean"), where)
    _forwarded(bound.get("kwargs") or {}, where)
    rows, columns = _distinct(frame, bound.get("index")), _distinct(frame, bound.get("columns"))
    values = bound.get("values")
    width = len(_columns_of(values)) if values is not None else frame.shape[1]
    extra = 1 if bound.get("margins") else 0
    _refuse_columns((columns + extra) * width * functions, "the pivot table")
    _refuse_size((rows + extra) * (columns + extra) * width * functions, "the pivot table")


def _melt(frame: Any, bound: dict) -> None:
    keep = _columns_of(bound.get("id_vars"))
    melted = _columns_of(bound.get("value_vars")) or [c for c in frame.columns if not _hashable_in(c, keep)]
    rows, count = len(frame), max(len(melted), 1)
    kept_text = sum(_text(frame[c]) for c in keep if _hashable_in(c, frame.columns))
    labels = sum(len(str(c)) for c in melted[:MAX_COLUMNS]) * rows
    _refuse_size(rows * count * (len(keep) + 2) + kept_text * count + _text(frame) + labels, "melt()")


def _cumsum_text(target: Any) -> int:
    """Characters of the running concatenations ``cumsum`` builds from text columns."""
    total, pandas = 0, _pd()
    columns = [target] if isinstance(target, pandas.Series) else \
        [target.iloc[:, i] for i in range(target.shape[1])] if isinstance(target, pandas.DataFrame) else []
    for column in columns:
        running = 0
        for cell in _cell_sizes(column):
            running += cell
            total += running
            if total > LIMIT:
                return total
    return total


def _string_method(strings: Any, method: str, bound: dict) -> Callable[[], Any] | None:
    """``.str`` methods: patterns run on RE2 (what to run instead), else the text they would build."""
    series = strings._orig
    if method in ("contains", "replace", "extract"):
        from toolgym.worlds.sheets import regex

        instead = regex.string_method(strings, method, bound)
        if instead is not None:
            return instead
    if method == "replace":
        pattern, replacement, limit = bound.get("pat"), bound.get("repl"), bound.get("n", -1)
        pairs = list(pattern.items()) if isinstance(pattern, dict) else [(pattern, replacement)]
        grown = _text(series)
        values = [v for v in series.tolist() if isinstance(v, str)]
        for old, new in pairs:
            if not isinstance(old, str) or not isinstance(new, str):
                raise ProgramError("str.replace() takes text to find and text to put instead")
            for value in values:
                count = value.count(old) if old else len(value) + 1
                if isinstance(limit, int) and limit >= 0:
                    count = min(count, limit)
                grown += count * max(len(new) - len(old), 0)
            _refuse_size(grown, "str.replace()")
    elif method == "cat":
        separator, missing = bound.get("sep") or "", bound.get("na_rep") or ""
        others = bound.get("others")
        if not all(isinstance(t, str) for t in (separator, missing)):
            raise ProgramError("str.cat() takes text for sep and na_rep")
        parts = [series] + ([] if others is None else [others] if _is_data(others) or not
                            isinstance(others, (list, tuple)) else list(others))
        text = sum(_text(p) for p in parts) + len(series) * (len(parts) * (len(separator) + len(missing)))
        _refuse_size(text, "str.cat()")
        if others is None and text > BUDGETS.max_length:
            raise ProgramError(f"str.cat() would build a text of {text} characters (at most {BUDGETS.max_length})")
    elif method in ("upper", "lower", "title", "capitalize", "swapcase", "casefold"):
        _refuse_size(_cells(series) + CASE_GROWTH * _text(series), f"str.{method}()")
    return None


def _method(target: Any, method: str, bound: dict, where: str) -> Callable[[], Any] | None:
    """Size and name rules of the methods of frames, series, indexes, group-bys and arrays;
    ``replace`` with patterns is run on RE2 (what to run instead)."""
    pandas, numpy = _pd(), _np()
    from pandas.api.typing import DataFrameGroupBy, SeriesGroupBy

    if method in _AGGREGATING:
        functions = _aggregate(bound, where)
        if isinstance(target, (DataFrameGroupBy, SeriesGroupBy)):
            named = len(bound.get("kwargs") or {}) if bound.get("func") is None else 0
            width = named or _width(target.obj) * functions
            _refuse_columns(width, where)
            _refuse_size(target.ngroups * width, where)
        else:
            _refuse_size(_width(target) * (functions + len(bound.get("kwargs") or {})), where)
        return
    if isinstance(target, (DataFrameGroupBy, SeriesGroupBy)):
        return
    if method == "replace":
        from toolgym.worlds.sheets import regex

        return regex.replace(target, bound, where)
    if method == "pivot_table":
        _pivot_table(target, bound, where)
    elif method == "pivot" and isinstance(target, pandas.DataFrame):
        values = bound.get("values")
        width = len(_columns_of(values)) if values is not None else target.shape[1]
        columns = _distinct(target, bound.get("columns")) * width
        _refuse_columns(columns, where)
        _refuse_size(_distinct(target, bound.get("index")) * columns, where)
    elif method == "melt" and isinstance(target, pandas.DataFrame):
        _melt(target, bound)
    elif method in _METHOD_OPERATORS:
        operand = bound.get("other")
        _elementwise(_METHOD_OPERATORS[method], target, operand, bound.get("axis", "columns"))
        if bound.get("fill_value") is not None and not _plain(bound.get("fill_value")):
            raise ProgramError(f"{where}: fill_value must be a number")
    elif method == "cumsum" and _has_text(target):
        _refuse_size(_cumsum_text(target), "cumsum() of text")
    elif method in ("prod", "cumprod") and _int_bits(target) > BUDGETS.max_int_bits:
        raise ProgramError(f"{where}: number too large (more than {BUDGETS.max_int_bits} bits)")
    elif method == "value_counts":
        bins = bound.get("bins")
        if bins is not None:
            count = len(bins) if _is_list_like(bins) else bins if isinstance(bins, (int, numpy.integer)) else 0
            if count > BUDGETS.max_length:
                raise ProgramError(f"{where}: at most {BUDGETS.max_length} bins")
    elif method == "astype":
        names = bound.get("dtype")
        names = list(names.values()) if isinstance(names, dict) else [names]
        if any(n in ("str", "string") or n is str for n in names):
            _refuse_size(size(target) + NUMBER_TEXT * _cells(target), where)
    elif method == "describe":
        percentiles = bound.get("percentiles")
        count = len(percentiles) if _is_list_like(percentiles) else 0
        _refuse_size((count + 8) * _width(target), where)
    elif method == "reindex_like":
        other = bound.get("other")
        if _is_pandas(other):
            _refuse_columns(_width(other), where)
            _refuse_size(_cells(other) + _text(target), where)
    elif method == "insert" and isinstance(target, pandas.DataFrame):
        _refuse_columns(target.shape[1] + 1, where)
        _refuse_size(size(target) + len(target) + size(bound.get("value")), where)
    elif method == "transpose":
        _refuse_columns(len(target), where)


def guard(operation: str, operands: tuple) -> Callable[[], Any] | None:
    """The profile's guard: refuse, before it starts, an operation the rules do not allow; or
    return what to run instead of it (patterns on RE2)."""
    if operation in _ELEMENTWISE:
        _elementwise(operation, *operands)
        return
    if "." not in operation and operation not in ("load", "store", "read"):
        return  # unary operators keep the size; ``in`` only looks
    if operation == "load":
        _load(*operands)
        return
    if operation == "store":
        _store(*operands)
        return
    if operation == "read":  # frame.T transposes: a frame of many rows would get as many columns
        target, name = operands
        if name == "T" and isinstance(target, _pd().DataFrame):
            _refuse_columns(len(target), "the transpose")
        return
    kind, _, method = operation.partition(".")
    target, args, kwargs = operands
    if type(target).__module__.startswith("gspread") or kind in ("Pandas", "Numpy"):
        return  # gspread calls are requests, which the service budgets; the facades check their own
    bound = bind(target, method, args, kwargs)
    where = f"{kind}.{method}"
    _arguments(bound, where)
    from pandas.core.strings.accessor import StringMethods

    if isinstance(target, StringMethods):
        return _string_method(target, method, bound)
    return _method(target, method, bound, where)
