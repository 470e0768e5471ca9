"""The interpreter profile of GoogleSheets-v0: gspread and pandas programs, allow-listed.

Programs run in toolgym's interpreter (:mod:`toolgym.worlds.interpreter`), never ``exec``.
They start with the names the original gives them: ``sheet`` (the gspread ``Spreadsheet``),
``worksheet`` (its first ``Worksheet``), ``get_as_dataframe``, ``set_with_dataframe``, ``pd``
and ``np`` (small facades offering the allowed pandas / numpy functions), ``copy_spreadsheet``
(gspread's ``Client.copy`` without the client) and ``ValidationConditionType`` (gspread's
condition types for ``add_validation``). A program may:

- call the allow-listed methods of gspread's Spreadsheet and Worksheet, of pandas' DataFrame,
  Series, Index, group-bys and string accessor, and of numpy arrays (:data:`METHODS`), and
  read their allow-listed attributes (:data:`ATTRIBUTES`: ``df.columns``, ``df.loc``,
  ``cell.value``, ``worksheet.title``, ...);
- subscript (``df['Price']``, ``df.loc[df['Region'] == 'East', 'Sales']``) and assign into
  data frames, series and their ``.loc``/``.iloc``/``.at``/``.iat`` (also ``+=``);
- use element-wise masks (``&``, ``|``, ``~``) and comparisons;
- use the Code-as-Policies statements and builtins (``for`` over lists, ``if``, f-strings).

Never reachable: dunders and names starting with ``_``, imports, ``open``, any file or
network method (``to_csv``, ``to_pickle``, ``to_clipboard``, ``plot``, ``read_*``, ...),
string-code evaluation (``query``, ``eval``), methods that apply functions or names
(``apply``, ``map``, ``transform``, ``pipe``, ``resample``, ``rolling``, ...), the gspread
client and its HTTP session (``worksheet.client``, ``sheet.client``). No callable is a value.

**The rule for names that become calls.** pandas and numpy resolve some *strings* to callables
or types: ``agg('sum')`` is ``getattr(df, 'sum')()``, and so is every name in an aggregation
spec, wherever it sits (``agg(['sum', 'max'])``, ``agg({'col': ['sum']})``, named aggregation
``agg(total=('col', 'sum'))`` and ``SeriesGroupBy.agg(total='sum')``, ``pivot_table(aggfunc=...)``
and ``pd.pivot_table``); dtype names go through registries (``astype('U10000000')``,
``'datetime64[ns, tz]'``), and ``engine=`` starts a compiler. So, before pandas sees a call,
its arguments are bound to the method's own signature (a positional argument is judged by its
parameter's name) and: every function position of an aggregation spec must name one of
:data:`AGGREGATIONS`, else the call is refused ("aggregation 'x' is not allowed; use one of
..."); arguments pandas forwards to an aggregation must be numbers or booleans; a ``dtype``
must be one of :data:`DTYPES` or a dtype object a frame has; ``engine`` and
``engine_kwargs`` must be None; no argument may be callable. The rules live in
:mod:`toolgym.worlds.sheets.guard`, with the others the :func:`guard` applies before every
operator, subscript, store and method call, and the size and work of every result predicted from its arguments
(broadcasting, index alignment with duplicate labels, fancy indexing, enlargement, ``melt``,
pivots, text growth, big integers, frames wider than ``guard.MAX_COLUMNS`` columns) and
refused past the budgets. A refusal comes only from these rules: they never fail by
themselves.

**The rule for patterns.** No pattern ever reaches Python's backtracking ``re``. The
operations that take one (``str.contains``, ``str.replace``, ``str.extract`` with
``regex=True``, ``DataFrame.replace`` / ``Series.replace`` with ``regex=``) are run by the guard
itself on RE2, a linear-time engine (:mod:`toolgym.worlds.sheets.regex`), cell by cell under
their own budgets (text cells searched, matches substituted, the text a replacement builds
predicted from its matches before it is built); with ``regex=False`` pandas matches plain text.
RE2 has no backreferences or lookaround: a pattern using them is refused with a message naming
the feature. Other methods that take patterns (``filter``, ``str.split``, ``str.match``,
``str.count``, ``str.findall``, ...) are not in the allow-list. Each program may make at most ``max_requests`` API requests (the service answers
429 after that, as Sheets' quota does).
"""

from __future__ import annotations

import ast
import functools
import math
from typing import Any

from toolgym.worlds.interpreter import Profile, ProgramError
from toolgym.worlds.interpreter.profile import CODE_AS_POLICIES_BUILTINS, SCRIPT_EXPRESSIONS, SCRIPT_STATEMENTS
from toolgym.worlds.sheets import guard as rules
from toolgym.worlds.sheets.guard import AGGREGATIONS, DTYPES, guard
from toolgym.worlds.sheets.sizes import BUDGETS, size_of

__all__ = ["AGGREGATIONS", "BUDGETS", "DTYPES", "Numpy", "Pandas", "ValidationConditions", "copy_spreadsheet", "guard",
           "sheets_profile", "size_of"]

_WORKSHEET_METHODS = frozenset({
    "get", "get_all_values", "get_values", "get_all_records", "row_values", "col_values", "acell", "cell", "range",
    "find", "findall", "update", "update_acell", "update_cell", "update_cells", "batch_update", "batch_get",
    "batch_clear", "append_row", "append_rows", "insert_row", "insert_rows", "insert_cols", "delete_rows",
    "delete_columns", "add_rows", "add_cols", "resize", "sort", "merge_cells", "unmerge_cells", "set_basic_filter",
    "clear_basic_filter", "format", "batch_format", "freeze", "clear", "update_title", "hide_rows", "hide_columns",
    "unhide_rows", "unhide_columns", "define_named_range", "delete_named_range", "add_validation", "duplicate"})
_SPREADSHEET_METHODS = frozenset({
    "worksheet", "worksheets", "get_worksheet", "get_worksheet_by_id", "add_worksheet", "del_worksheet",
    "batch_update", "values_get", "values_update", "values_append", "values_clear", "values_batch_get",
    "fetch_sheet_metadata", "update_title", "duplicate_sheet", "list_named_ranges", "named_range"})
_FRAME_METHODS = frozenset({
    "head", "tail", "sort_values", "sort_index", "reset_index", "set_index", "drop", "dropna", "fillna", "rename",
    "copy", "astype", "pivot_table", "pivot", "groupby", "sum", "mean", "median", "min", "max", "count", "round",
    "abs", "cumsum", "isin", "isna", "notna", "isnull", "notnull", "nlargest", "nsmallest", "drop_duplicates",
    "duplicated", "insert", "transpose", "melt", "idxmax", "idxmin", "nunique", "value_counts", "agg", "aggregate",
    "where", "mask", "clip", "replace", "to_dict", "reindex_like", "equals", "any", "all", "std", "prod",
    "cumprod", "rank", "add", "sub", "mul", "div", "between", "unique", "tolist", "to_list", "item", "get",
    "keys", "describe", "sort"})
_STR_METHODS = frozenset({"upper", "lower", "title", "capitalize", "strip", "lstrip", "rstrip", "contains",
                          "startswith", "endswith", "replace", "len", "slice", "get", "cat", "extract"})
_INDEX_METHODS = frozenset({"tolist", "to_list", "get_loc", "isin", "unique", "max", "min"})
_GROUPBY_METHODS = frozenset({"sum", "mean", "median", "count", "min", "max", "size", "first", "last", "agg",
                              "aggregate", "nunique", "std", "prod"})
_ARRAY_METHODS = frozenset({"tolist", "sum", "mean", "min", "max", "round", "argmax", "argmin", "any", "all",
                            "item"})
_FRAME_ATTRIBUTES = frozenset({"columns", "index", "loc", "iloc", "at", "iat", "shape", "empty", "values", "T",
                               "size", "str", "name", "dtypes", "dtype", "ndim"})


class Pandas:
    """``pd`` in a program: the allowed pandas functions, their arguments checked by the guard's rules."""

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
        rules.dtype(dtype, "pd.DataFrame")
        rows = _length(index) if index is not None else _rows(data)
        cols = _length(columns) if columns is not None else _columns(data)
        self._check(rows * cols + rules.size(data), "DataFrame")
        if cols > rules.MAX_COLUMNS:
            raise ProgramError(f"pd.DataFrame() would have {cols} columns (at most {rules.MAX_COLUMNS})")
        return self._pd.DataFrame(data, index=index, columns=columns, dtype=dtype)

    def Series(self, data: Any = None, index: Any = None, name: Any = None, dtype: Any = None):  # noqa: N802
        rules.dtype(dtype, "pd.Series")
        rows = _length(index) if index is not None else 1
        self._check(rows + rules.size(data), "Series")
        return self._pd.Series(data, index=index, name=name, dtype=dtype)

    def concat(self, objs: Any, axis: Any = 0, ignore_index: bool = False, join: str = "outer"):
        frame = self._pd.DataFrame
        items = list(objs.values()) if isinstance(objs, dict) else list(objs) if isinstance(objs, (list, tuple)) \
            else [objs]
        if not all(isinstance(o, (frame, self._pd.Series)) for o in items):
            raise ProgramError("pd.concat() takes a list of DataFrames or Series")
        # Stacked along one axis; across the other, the union of the labels (all of them, unless equal).
        if axis in (1, "columns"):
            stacked, labels = sum(o.shape[1] if isinstance(o, frame) else 1 for o in items), [o.index for o in items]
            width = stacked
        else:
            stacked = sum(len(o) for o in items)
            labels = [o.columns if isinstance(o, frame) else self._pd.Index([0]) for o in items]
        across = len(labels[0]) if labels and all(x.equals(labels[0]) for x in labels) else sum(map(len, labels))
        if axis not in (1, "columns"):
            width = across
        if width > rules.MAX_COLUMNS:
            raise ProgramError(f"pd.concat() would have {width} columns (at most {rules.MAX_COLUMNS})")
        self._check(stacked * across + sum(rules.size(o) for o in items), "concat")
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
                                                   "aggfunc": aggfunc, "fill_value": fill_value,
                                                   "margins": margins}))
        return data.pivot_table(values=values, index=index, columns=columns, aggfunc=aggfunc, fill_value=fill_value,
                                margins=margins)


def _length(value: Any) -> int:
    return len(value) if hasattr(value, "__len__") and not isinstance(value, str) else 1


def _rows(data: Any) -> int:
    """Rows of a frame built from ``data`` (a dict of columns: the longest, or, when series are
    aligned on their labels, all their labels)."""
    import pandas

    if isinstance(data, dict):
        lengths = [_length(v) for v in data.values()]
        aligned = any(isinstance(v, pandas.Series) for v in data.values())
        return max(sum(lengths) if aligned else max(lengths, default=1), 1)
    return _length(data)


def _columns(data: Any) -> int:
    if isinstance(data, dict):
        return max(len(data), 1)
    shape = getattr(data, "shape", None)
    if shape is not None and len(shape) > 1:
        return int(shape[1])
    if isinstance(data, (list, tuple)) and data:
        return max(_length(row) if isinstance(row, (list, tuple, dict)) else 1 for row in data)
    return 1


class Numpy:
    """``np`` in a program: the allowed numpy functions and constants."""

    def __init__(self, max_size: int):
        import numpy

        self._np = numpy
        self._max_size = max_size
        self.nan, self.inf, self.pi = numpy.nan, numpy.inf, numpy.pi

    def _checked(self, *values: Any) -> None:
        if sum(rules.size(v) for v in values) > self._max_size:
            raise ProgramError(f"the numpy arguments are too large (at most {self._max_size} items)")

    def _text_width(self, what: str, *values: Any) -> None:
        """numpy stores text at the width of its longest item: refuse a result wider than the budget."""
        widths = [_longest_text(v) for v in values]
        if max(widths, default=0):
            shapes = [rules.shape_of(v) for v in values]
            try:
                items = math.prod(self._np.broadcast_shapes(*shapes))
            except ValueError:
                items = max(math.prod(s) for s in shapes)
            if items * max(widths) > self._max_size:
                raise ProgramError(f"np.{what}() would store {items} texts of {max(widths)} characters "
                                   f"(at most {self._max_size} characters)")

    def where(self, condition: Any, x: Any, y: Any):
        self._checked(condition, x, y)
        shapes = [rules.shape_of(v) for v in (condition, x, y)]
        try:
            items = math.prod(self._np.broadcast_shapes(*shapes))
        except ValueError:
            items = 0  # shapes that do not fit: numpy refuses by itself
        if items > self._max_size:
            raise ProgramError(f"np.where() would hold {items} items (at most {self._max_size})")
        self._text_width("where", condition, x, y)
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
        self._text_width("array", values)
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
        self._text_width("unique", values)
        return self._np.unique(values)


def _longest_text(value: Any) -> int:
    """The longest text item of a (nested) list or of an array, which sets numpy's text width."""
    import numpy

    if isinstance(value, str):
        return len(value)
    if isinstance(value, numpy.ndarray):
        return rules.fixed_width(value)
    if isinstance(value, (list, tuple)):
        return max((_longest_text(v) for v in value), default=0)
    return 0


class ValidationConditions:
    """``ValidationConditionType`` in a program: the members of gspread's enum, by name
    (``ValidationConditionType.one_of_list``), without the enum class, which is callable."""

    def __init__(self):
        from gspread.utils import ValidationConditionType

        for member in ValidationConditionType:
            setattr(self, member.name, member)


def copy_spreadsheet(client: Any, spreadsheet: Any, title: Any = None, copy_comments: bool = False):
    """``copy_spreadsheet(sheet, title)`` in a program (the env binds ``client``): gspread's
    ``client.copy(sheet.id, title)``, for programs never reach the client. The copy is one Drive
    request, under the program's request quota, and the service charges its cells to the
    program's work before copying them."""
    import gspread

    if not isinstance(spreadsheet, gspread.Spreadsheet):
        raise ProgramError(f"copy_spreadsheet() takes a spreadsheet first, got {type(spreadsheet).__name__}")
    if title is not None and not (isinstance(title, str) and len(title) <= 1000):
        raise ProgramError("copy_spreadsheet(): the title must be a text of at most 1,000 characters")
    return client.copy(spreadsheet.id, title=title, copy_comments=bool(copy_comments))


_PANDAS_FUNCTIONS = frozenset({"DataFrame", "Series", "concat", "to_numeric", "isna", "notna", "pivot_table"})
_NUMPY_FUNCTIONS = frozenset({"where", "arange", "array", "round", "sum", "mean", "min", "max", "abs", "isnan",
                              "sqrt", "floor", "ceil", "unique"})


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
        ValidationConditions: frozenset(gspread.utils.ValidationConditionType.__members__),
    }
    return Profile(
        name="Google Sheets (gspread + pandas)",
        statements=SCRIPT_STATEMENTS,
        expressions=SCRIPT_EXPRESSIONS | {ast.BitAnd, ast.BitOr, ast.Invert},  # pandas masks: a & b, ~a
        functions=frozenset({"get_as_dataframe", "set_with_dataframe", "copy_spreadsheet"}),
        methods=methods,
        attributes=attributes,
        stores=(pandas.DataFrame, pandas.Series, _LocIndexer, _iLocIndexer, _AtIndexer, _iAtIndexer),
        builtins=CODE_AS_POLICIES_BUILTINS,
        guard=guard,
        size_of=size_of,
        operation_cost=rules.OPERATION_COST,
        budgets=BUDGETS,
    )
