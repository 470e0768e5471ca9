"""How big a Sheets program's values are, as its budgets count them: the budgets themselves,
the deep size of a frame, series, array or container (cells, rows, text), and the refusals of
values that would be too large. The guard (what a program may call) and the regular-expression
rules both measure with these.
"""

from __future__ import annotations

import math
from typing import Any

from toolgym.worlds.interpreter import Budgets, ProgramError

BUDGETS = Budgets(max_program_chars=20_000, max_steps=100_000, max_work=20_000_000, max_allocated=2_000_000,
                  max_length=10_000, max_size=400_000, max_depth=50, max_int_bits=256)
LIMIT = BUDGETS.max_size
#: What a column of a frame counts for in its size: pandas does most work column by column, and a
#: column costs it about as much as this many cells (so a frame's size bounds its work).
COLUMN_COST = 2_000
#: Columns of a frame: a wider one would take more than its size's worth of work.
MAX_COLUMNS = LIMIT // COLUMN_COST


def _pd():
    import pandas

    return pandas


def _np():
    import numpy

    return numpy


def _is_pandas(value: Any) -> bool:
    pandas = _pd()
    return isinstance(value, (pandas.DataFrame, pandas.Series, pandas.Index))


def _is_data(value: Any) -> bool:
    """A frame, series, index or array (what the budgets size by cells and text)."""
    return _is_pandas(value) or isinstance(value, _np().ndarray)


def _texty(dtype: Any) -> bool:
    """Whether a column of this dtype may hold Python objects or text (object, str, string)."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    try:
        return bool(is_object_dtype(dtype) or is_string_dtype(dtype))
    except TypeError:
        return True


def _cell_size(value: Any) -> int:
    """Characters of a text cell, the deep size of a container cell, else 0."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple, dict)):
        from toolgym.worlds.interpreter.values import bounded_size

        return bounded_size(value, LIMIT)
    return 0


def _cell_sizes(value: Any) -> list[int]:
    """The text size of each cell of the texty columns of a frame, series, index or array (flat)."""
    pandas, numpy = _pd(), _np()
    if isinstance(value, numpy.ndarray):
        if value.dtype.kind in "US":
            return [value.dtype.itemsize // (4 if value.dtype.kind == "U" else 1)] * int(value.size)
        return [_cell_size(v) for v in value.ravel()] if value.dtype == object else []
    if isinstance(value, pandas.DataFrame):
        dtypes = value.dtypes
        texty = {d for d in set(dtypes.values) if _texty(d)}
        if not texty:
            return []
        chosen = value if len(texty) == len(set(dtypes.values)) else value.loc[:, dtypes.isin(texty).to_numpy()]
        return [_cell_size(v) for v in chosen.to_numpy(dtype=object).ravel()]
    if isinstance(value, (pandas.Series, pandas.Index)):
        if not _texty(value.dtype):
            return []
        if value.dtype == object:
            return [_cell_size(v) for v in value.to_numpy()]
        lengths = pandas.Series(value).str.len()
        return [int(n) for n in lengths.fillna(0).to_numpy()]
    return []


def _text(value: Any) -> int:
    """Characters of text (and items of containers) in the cells of a value; a string's length."""
    if isinstance(value, str):
        return len(value)
    if _is_data(value):
        return sum(_cell_sizes(value))
    if isinstance(value, (list, tuple, dict)):
        return size(value)
    return 0


def _cells(value: Any) -> int:
    if _is_data(value):
        return int(math.prod(value.shape))
    if isinstance(value, (list, tuple)):
        return len(value)
    return 1


def size(value: Any) -> int:
    """Deep size of a value as the budgets count it (a frame: its cells, its rows and its text)."""
    pandas, numpy = _pd(), _np()
    if isinstance(value, pandas.DataFrame):
        return _cells(value) + len(value) + 1 + _text(value) + COLUMN_COST * value.shape[1]
    if isinstance(value, (pandas.Series, pandas.Index)):
        return _cells(value) + len(value) + 1 + _text(value)
    if isinstance(value, numpy.ndarray):
        return int(value.size) + _text(value) + 1
    if isinstance(value, (list, tuple)):
        return 1 + sum(size(v) for v in value[:LIMIT])
    if isinstance(value, dict):
        return 1 + sum(size(k) + size(v) for k, v in list(value.items())[:LIMIT])
    if isinstance(value, str):
        return max(len(value), 1)
    return 1


def size_of(value: Any) -> int | None:
    """The profile's ``size_of``: frames and arrays; None for other opaque values."""
    return size(value) if _is_data(value) else None


def _width(value: Any) -> int:
    """Columns of a frame (what makes pandas' per-column work)."""
    return value.shape[1] if isinstance(value, _pd().DataFrame) else 1


def _refuse_size(cells: float, what: str) -> None:
    if cells > LIMIT:
        raise ProgramError(f"{what} would be too large: about {int(min(cells, 1e18))} items and characters "
                           f"(at most {LIMIT})")


def _refuse_columns(columns: float, what: str) -> None:
    if columns > MAX_COLUMNS:
        raise ProgramError(f"{what} would have {int(columns)} columns (at most {MAX_COLUMNS})")


def _plain(value: Any) -> bool:
    numpy = _np()
    return value is None or isinstance(value, (bool, int, float, numpy.number, numpy.bool_))


def _hashable_in(label: Any, labels: Any) -> bool:
    try:
        return label in labels
    except (TypeError, ValueError):
        return False
