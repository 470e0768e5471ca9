"""The interpreter profile of GoogleSheets-v0: gspread and pandas programs, allow-listed.

Programs run in toolgym's interpreter (:mod:`toolgym.worlds.interpreter`), never ``exec``.
They start with the names the original gives them: ``sheet`` (the gspread ``Spreadsheet``),
``worksheet`` (its first ``Worksheet``), ``get_as_dataframe``, ``set_with_dataframe``, ``pd``
and ``np`` (small facades offering the allowed pandas / numpy functions). A program may:

- call the allow-listed methods of gspread's Spreadsheet and Worksheet, of pandas' DataFrame,
  Series, Index, group-bys and string accessor, and of numpy arrays (:data:`METHODS`), and
  read their allow-listed attributes (:data:`ATTRIBUTES`: ``df.columns``, ``df.loc``,
  ``cell.value``, ``worksheet.title``, ...);
- subscript (``df['Price']``, ``df.loc[df['Region'] == 'East', 'Sales']``) and assign into
  data frames, series and their ``.loc``/``.iloc``/``.at``/``.iat`` (also ``+=``);
- use element-wise masks (``&``, ``|``, ``~``) and comparisons;
- use the Code-as-Policies statements and builtins (``for`` over lists, ``if``, f-strings).

Never reachable: dunders and names starting with ``_``, imports, ``open``, any file or
network method (``to_csv``, ``to_pickle``, ``read_*``, ...), string-code evaluation
(``query``, ``eval``), ``apply``/``map`` with callables (no callable is a value), the
gspread client and its HTTP session (``worksheet.client``, ``sheet.client``). The
:func:`guard` refuses, before they start, operations whose result would exceed the budgets
(``'x' * n`` with numpy integers, text columns times large numbers, big-integer growth in
object columns, pivots whose index times columns is too large, new arrays and frames too
large), string aggregation names other than :data:`AGGREGATIONS` (pandas resolves such a
name with ``getattr``) and regular expressions (``regex=True``; ``str.contains`` with
metacharacters must pass ``regex=False``). Each program may make at most
``max_requests`` API requests (the service answers 429 after that, as Sheets' quota does).
"""

from __future__ import annotations

import ast
import functools
import math
import re
from typing import Any

from toolgym.worlds.interpreter import Budgets, Profile, ProgramError
from toolgym.worlds.interpreter.profile import CODE_AS_POLICIES_BUILTINS, SCRIPT_EXPRESSIONS, SCRIPT_STATEMENTS

BUDGETS = Budgets(max_program_chars=20_000, max_steps=100_000, max_work=20_000_000, max_allocated=2_000_000,
                  max_length=10_000, max_size=400_000, max_depth=50, max_int_bits=256)

#: Aggregations a program may name as text (``agg('sum')``, ``aggfunc='mean'``).
AGGREGATIONS = frozenset({"sum", "mean", "min", "max", "count", "median", "first", "last", "size", "nunique",
                          "std", "var", "prod", "any", "all"})

_WORKSHEET_METHODS = frozenset({
    "get", "get_all_values", "get_values", "get_all_records", "row_values", "col_values", "acell", "cell", "range",
    "find", "findall", "update", "update_acell", "update_cell", "update_cells", "batch_update", "batch_get",
    "batch_clear", "append_row", "append_rows", "insert_row", "insert_rows", "insert_cols", "delete_rows",
    "delete_columns", "add_rows", "add_cols", "resize", "sort", "merge_cells", "unmerge_cells", "set_basic_filter",
    "clear_basic_filter", "format", "batch_format", "freeze", "clear", "update_title"})
_SPREADSHEET_METHODS = frozenset({
    "worksheet", "worksheets", "get_worksheet", "get_worksheet_by_id", "add_worksheet", "del_worksheet",
    "batch_update", "values_get", "values_update", "values_append", "values_clear", "values_batch_get",
    "fetch_sheet_metadata", "update_title"})
_FRAME_METHODS = frozenset({
    "head", "tail", "sort_values", "sort_index", "reset_index", "set_index", "drop", "dropna", "fillna", "rename",
    "copy", "astype", "pivot_table", "pivot", "groupby", "sum", "mean", "median", "min", "max", "count", "round",
    "abs", "cumsum", "isin", "isna", "notna", "isnull", "notnull", "nlargest", "nsmallest", "drop_duplicates",
    "duplicated", "insert", "transpose", "melt", "idxmax", "idxmin", "nunique", "value_counts", "agg", "aggregate",
    "where", "mask", "clip", "replace", "to_dict", "reindex_like", "equals", "any", "all", "std", "prod",
    "cumprod", "rank", "add", "sub", "mul", "div", "between", "unique", "tolist", "to_list", "item", "get",
    "keys", "describe", "sort"})
_STR_METHODS = frozenset({"upper", "lower", "title", "capitalize", "strip", "lstrip", "rstrip", "contains",
                          "startswith", "endswith", "replace", "len", "slice", "get", "cat"})
_INDEX_METHODS = frozenset({"tolist", "to_list", "get_loc", "isin", "unique", "max", "min"})
_GROUPBY_METHODS = frozenset({"sum", "mean", "median", "count", "min", "max", "size", "first", "last", "agg",
                              "aggregate", "nunique", "std", "prod"})
_ARRAY_METHODS = frozenset({"tolist", "sum", "mean", "min", "max", "round", "argmax", "argmin", "any", "all",
                            "item"})
_FRAME_ATTRIBUTES = frozenset({"columns", "index", "loc", "iloc", "at", "iat", "shape", "empty", "values", "T",
                               "size", "str", "name", "dtypes", "dtype", "ndim"})


class Pandas:
    """``pd`` in a program: the allowed pandas functions, with their sizes checked first."""

    def __init__(self, max_size: int):
        import pandas

        self._pd = pandas
        self._max_size = max_size
        self.NA = pandas.NA
        self.NaT = pandas.NaT

    def _check(self, cells: int, what: str) -> None:
        if cells > self._max_size:
            raise ProgramError(f"pd.{what}() would hold {cells} cells (at most {self._max_size})")

    def DataFrame(self, data: Any = None, index: Any = None, columns: Any = None, dtype: Any = None):  # noqa: N802
        rows = len(index) if index is not None and hasattr(index, "__len__") else 1
        cols = len(columns) if columns is not None and hasattr(columns, "__len__") else 1
        self._check(rows * cols + _size(data), "DataFrame")
        return self._pd.DataFrame(data, index=index, columns=columns, dtype=dtype)

    def Series(self, data: Any = None, index: Any = None, name: Any = None, dtype: Any = None):  # noqa: N802
        rows = len(index) if index is not None and hasattr(index, "__len__") else 1
        self._check(rows + _size(data), "Series")
        return self._pd.Series(data, index=index, name=name, dtype=dtype)

    def concat(self, objs: Any, axis: Any = 0, ignore_index: bool = False, join: str = "outer"):
        items = list(objs.values()) if isinstance(objs, dict) else list(objs)
        total = sum(_size(o) for o in items)
        if axis in (1, "columns"):
            total = max((len(o) for o in items if hasattr(o, "__len__")), default=0) * max(len(items), 1) + total
        self._check(total, "concat")
        return self._pd.concat(items, axis=axis, ignore_index=ignore_index, join=join)

    def to_numeric(self, arg: Any, errors: str = "raise"):
        return self._pd.to_numeric(arg, errors=errors)

    def isna(self, obj: Any):
        return self._pd.isna(obj)

    def notna(self, obj: Any):
        return self._pd.notna(obj)

    def pivot_table(self, data: Any, values: Any = None, index: Any = None, columns: Any = None,
                    aggfunc: Any = "mean", fill_value: Any = None, margins: bool = False):
        guard("DataFrame.pivot_table", (data, (), {"values": values, "index": index, "columns": columns,
                                                   "aggfunc": aggfunc}))
        return data.pivot_table(values=values, index=index, columns=columns, aggfunc=aggfunc, fill_value=fill_value,
                                margins=margins)


class Numpy:
    """``np`` in a program: the allowed numpy functions and constants."""

    def __init__(self, max_size: int):
        import numpy

        self._np = numpy
        self._max_size = max_size
        self.nan, self.inf, self.pi = numpy.nan, numpy.inf, numpy.pi

    def _checked(self, *values: Any) -> None:
        if sum(_size(v) for v in values) > self._max_size:
            raise ProgramError(f"the numpy arguments are too large (at most {self._max_size} items)")

    def where(self, condition: Any, x: Any, y: Any):
        self._checked(condition, x, y)
        return self._np.where(condition, x, y)

    def arange(self, *args: Any):
        if not all(isinstance(a, (int, float)) for a in args) or not args:
            raise ProgramError("np.arange() takes numbers")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
        if step == 0 or not all(math.isfinite(v) for v in (start, stop, step)):
            raise ProgramError("np.arange(): invalid range")
        if (stop - start) / step > self._max_size:
            raise ProgramError(f"np.arange() of more than {self._max_size} numbers")
        return self._np.arange(*args)

    def array(self, values: Any):
        self._checked(values)
        return self._np.array(values)

    def round(self, values: Any, decimals: int = 0):  # noqa: A003
        if not isinstance(decimals, int) or abs(decimals) > 20:
            raise ProgramError("np.round() takes at most 20 decimals")
        return self._np.round(values, decimals)

    def sum(self, values: Any):  # noqa: A003
        return self._np.sum(values)

    def mean(self, values: Any):
        return self._np.mean(values)

    def min(self, values: Any):  # noqa: A003
        return self._np.min(values)

    def max(self, values: Any):  # noqa: A003
        return self._np.max(values)

    def abs(self, values: Any):  # noqa: A003
        return self._np.abs(values)

    def isnan(self, values: Any):
        return self._np.isnan(values)

    def sqrt(self, values: Any):
        return self._np.sqrt(values)

    def floor(self, values: Any):
        return self._np.floor(values)

    def ceil(self, values: Any):
        return self._np.ceil(values)

    def unique(self, values: Any):
        return self._np.unique(values)


_PANDAS_FUNCTIONS = frozenset({"DataFrame", "Series", "concat", "to_numeric", "isna", "notna", "pivot_table"})
_NUMPY_FUNCTIONS = frozenset({"where", "arange", "array", "round", "sum", "mean", "min", "max", "abs", "isnan",
                              "sqrt", "floor", "ceil", "unique"})


def _frames() -> tuple[type, ...]:
    import numpy
    import pandas

    return pandas.DataFrame, pandas.Series, pandas.Index, numpy.ndarray


def _size(value: Any) -> int:
    """Deep size of a value as the budgets count it (a frame: its cells plus its text)."""
    import numpy
    import pandas

    if isinstance(value, (pandas.DataFrame, pandas.Series, pandas.Index)):
        size = int(value.size) + len(value) + 1
        frame = value if isinstance(value, pandas.DataFrame) else value.to_frame() if isinstance(value, pandas.Series) \
            else pandas.DataFrame({"i": value})
        for position, dtype in enumerate(frame.dtypes.values[:1000]):
            if _texty(dtype):
                size += sum(len(v) for v in frame.iloc[:, position].values if isinstance(v, str))
        return size
    if isinstance(value, numpy.ndarray):
        return int(value.size) + (sum(len(v) for v in value.ravel() if isinstance(v, str))
                                  if value.dtype == object else 0)
    if isinstance(value, (list, tuple)):
        return 1 + sum(_size(v) for v in value[:100_000])
    if isinstance(value, dict):
        return 1 + sum(_size(k) + _size(v) for k, v in list(value.items())[:100_000])
    if isinstance(value, str):
        return max(len(value), 1)
    return 1


def size_of(value: Any) -> int | None:
    """The profile's ``size_of``: frames and arrays; None for other opaque values."""
    if isinstance(value, _frames()):
        return _size(value)
    return None


def _max_number(value: Any) -> float:
    import numpy
    import pandas

    if isinstance(value, (pandas.DataFrame, pandas.Series, pandas.Index, numpy.ndarray)):
        numbers = [abs(float(v)) for v in numpy.ravel(getattr(value, "values", value))
                   if isinstance(v, (int, float, numpy.number)) and not isinstance(v, bool) and not
                   (isinstance(v, float) and math.isnan(v))]
        return max(numbers, default=0.0)
    if isinstance(value, (int, float, numpy.number)) and not isinstance(value, bool):
        return abs(float(value))
    return 0.0


def _texty(dtype: Any) -> bool:
    """Whether a column of this dtype may hold Python objects or text (object, str, string)."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    return is_object_dtype(dtype) or is_string_dtype(dtype)


def _has_objects(value: Any) -> bool:
    import pandas

    if isinstance(value, pandas.DataFrame):
        return any(_texty(dtype) for dtype in value.dtypes)
    return hasattr(value, "dtype") and _texty(value.dtype)


def _texts(value: Any) -> list[str]:
    """Every string in a (nested) argument."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _texts(item)]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _texts(item)]
    return []


_REGEX_CHARS = re.compile(r"[.^$*+?{}\[\]\\|()]")


def guard(operation: str, operands: tuple) -> None:
    """The profile's guard: refuse, before it starts, work the budgets do not allow."""
    import numpy
    import pandas

    frames = _frames()
    limit = BUDGETS.max_size
    if operation in ("Mult", "Pow", "Add", "FloorDiv", "Mod", "Div", "Sub"):
        left, right = operands
        if not any(isinstance(o, frames) or isinstance(o, numpy.generic) for o in operands):
            return
        for a, b in ((left, right), (right, left)):
            if isinstance(a, (str, list, tuple)) and isinstance(b, numpy.integer):
                if len(a) * abs(int(b)) > BUDGETS.max_length:
                    raise ProgramError(f"value too long (at most {BUDGETS.max_length} items or characters)")
            if operation == "Mult" and isinstance(a, frames):
                if isinstance(b, (str, list, tuple)) and len(b) * _max_number(a) * max(len(a), 1) > limit:
                    raise ProgramError("the result would be too large: repeating text by the numbers of a column")
                if _has_objects(a) and _max_number(b) * _size(a) > limit:
                    raise ProgramError("the result would be too large: repeating the text of a column")
            if operation in ("Mult", "Pow") and isinstance(a, frames) and _has_objects(a):
                bits = max(_max_number(a), 1.0)
                other = max(_max_number(b), 1.0)
                grow = math.log2(bits) * (other if operation == "Pow" else 1) + math.log2(other)
                if grow > BUDGETS.max_int_bits:
                    raise ProgramError(f"number too large (more than {BUDGETS.max_int_bits} bits)")
        return
    if operation == "store":
        container, key, value = operands
        if _size(value) > limit:
            raise ProgramError("the value is too large to store")
        return
    if "." not in operation:
        return
    kind, _, method = operation.partition(".")
    target, args, kwargs = operands
    if method in ("agg", "aggregate", "pivot_table"):
        names = _texts(list(args) + [kwargs.get("func"), kwargs.get("aggfunc")]) if method != "pivot_table" \
            else _texts([kwargs.get("aggfunc", "mean"), *(args[3:4] if len(args) > 3 else [])])
        for name in names:
            if name not in AGGREGATIONS:
                raise ProgramError(f"aggregation {name!r} is not allowed; use one of {', '.join(sorted(AGGREGATIONS))}")
    if method in ("pivot_table", "pivot") and isinstance(target, pandas.DataFrame):
        index = kwargs.get("index", args[1] if method == "pivot_table" and len(args) > 1 else
                           args[0] if method == "pivot" and args else None)
        columns = kwargs.get("columns", args[2] if len(args) > 2 else None)
        cells = 1
        for names in (index, columns):
            for name in ([names] if isinstance(names, str) else list(names or [])):
                if isinstance(name, str) and name in target.columns:
                    cells *= max(int(target[name].nunique()), 1)
        if cells > limit:
            raise ProgramError(f"the pivot table would have {cells} cells (at most {limit})")
    if kwargs.get("regex") is True or (method in ("replace",) and len(args) > 4):
        raise ProgramError("regular expressions are not allowed (regex=True); match plain text")
    if kind == "StringMethods" and method in ("contains", "replace"):
        pattern = args[0] if args else kwargs.get("pat", "")
        if isinstance(pattern, str) and _REGEX_CHARS.search(pattern) and kwargs.get("regex") is not False:
            raise ProgramError(f"str.{method}() with regular-expression characters needs regex=False "
                               f"(regular expressions are not allowed)")


@functools.cache
def sheets_profile() -> Profile:
    """The GoogleSheets-v0 profile (imports gspread, pandas and numpy).

    Built once per process and shared by every env (the interpreter only reads a profile).
    The env asks for it when it first builds an interpreter (at reset), not at make: importing the
    libraries whose types it names takes most of a second.
    """
    import gspread
    import numpy
    import pandas
    from pandas.api.typing import DataFrameGroupBy, SeriesGroupBy
    from pandas.core.indexing import _AtIndexer, _iAtIndexer, _iLocIndexer, _LocIndexer
    from pandas.core.strings.accessor import StringMethods

    methods = {
        gspread.Worksheet: _WORKSHEET_METHODS, gspread.Spreadsheet: _SPREADSHEET_METHODS,
        pandas.DataFrame: _FRAME_METHODS, pandas.Series: _FRAME_METHODS, pandas.Index: _INDEX_METHODS,
        DataFrameGroupBy: _GROUPBY_METHODS, SeriesGroupBy: _GROUPBY_METHODS, StringMethods: _STR_METHODS,
        numpy.ndarray: _ARRAY_METHODS, Pandas: _PANDAS_FUNCTIONS, Numpy: _NUMPY_FUNCTIONS,
    }
    attributes = {
        gspread.Worksheet: frozenset({"title", "id", "row_count", "col_count", "frozen_row_count",
                                      "frozen_col_count", "index"}),
        gspread.Spreadsheet: frozenset({"title", "id", "sheet1"}),
        gspread.Cell: frozenset({"value", "row", "col", "address", "numeric_value"}),
        pandas.DataFrame: _FRAME_ATTRIBUTES, pandas.Series: _FRAME_ATTRIBUTES,
        numpy.ndarray: frozenset({"shape", "size", "ndim"}),
        Pandas: frozenset({"NA", "NaT"}), Numpy: frozenset({"nan", "inf", "pi"}),
    }
    return Profile(
        name="Google Sheets (gspread + pandas)",
        statements=SCRIPT_STATEMENTS,
        expressions=SCRIPT_EXPRESSIONS | {ast.BitAnd, ast.BitOr, ast.Invert},  # pandas masks: a & b, ~a
        functions=frozenset({"get_as_dataframe", "set_with_dataframe"}),
        methods=methods,
        attributes=attributes,
        stores=(pandas.DataFrame, pandas.Series, _LocIndexer, _iLocIndexer, _AtIndexer, _iAtIndexer),
        builtins=CODE_AS_POLICIES_BUILTINS,
        guard=guard,
        size_of=size_of,
        budgets=BUDGETS,
    )
