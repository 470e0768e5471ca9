"""Formula results, computed by the maintained ``formulas`` engine (Excel semantics, which
Sheets shares for the functions the tasks use: SUM, AVERAGE, MIN, MAX, COUNT, COUNTA,
COUNTIF, SUMIF, IF, ROUND, arithmetic, text concatenation, A1 references and ranges, also
to other sheets). ``formulas`` is imported on the first formula only.

A formula is compiled once per process (keyed by its text); its inputs are resolved against
the sheet's effective values, recursively, with cycles answered ``#REF!`` as Sheets does.
"""

from __future__ import annotations

import functools
import math
from typing import Any
from collections.abc import Callable

from toolgym.worlds.sheets.a1 import RangeError, parse_bounds, split_sheet

#: An error value, as Sheets shows it ("#DIV/0!", "#REF!", "#NAME?", "#VALUE!", "#ERROR!").
ERROR_PREFIX = "#"


class FormulaError(str):
    """An error result (a ``str`` holding the error code)."""


@functools.lru_cache(maxsize=4096)
def _compile(text: str):
    import formulas  # heavy: loaded on the first formula only

    try:
        return formulas.Parser().ast(text)[1].compile()
    except Exception:  # noqa: BLE001 - any parse failure is Sheets' #ERROR!
        return None


def _empty():
    import schedula

    return schedula.EMPTY


def _plain(value: Any) -> Any:
    """A result of the engine as float / str / bool / FormulaError."""
    import numpy as np

    while isinstance(value, np.ndarray):
        if value.size == 0:
            return 0.0
        value = value.reshape(-1)[0] if value.ndim else value[()]
    if value is _empty():
        return 0.0
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else FormulaError("#NUM!")
    text = str(value)
    if type(value).__name__ == "XlError" or text.startswith("#") and text.endswith(("!", "?", "A")):
        return FormulaError(text)
    return text


def evaluate(text: str, resolve: Callable[[str | None, int, int, int, int], list[list[Any]]]) -> Any:
    """The value of formula ``text``.

    Args:
        text: The formula, starting with '='.
        resolve: ``(sheet title or None, start_row, end_row, start_col, end_col)`` -> the
            effective values of that rectangle (None for empty cells); raises RangeError for
            an unknown sheet.
    """
    import numpy as np

    function = _compile(text)
    if function is None:
        return FormulaError("#ERROR!")
    args = []
    for name in function.inputs:
        try:
            title, cells = split_sheet(name)
            bounds = parse_bounds(cells)
            if bounds is None or None in (bounds.start_row, bounds.end_row, bounds.start_col, bounds.end_col):
                values = resolve(title, *(bounds.start_row or 0, bounds.end_row, bounds.start_col or 0,
                                          bounds.end_col) if bounds else (0, None, 0, None))
            else:
                values = resolve(title, bounds.start_row, bounds.end_row, bounds.start_col, bounds.end_col)
        except RangeError:
            return FormulaError("#REF!")
        if any(isinstance(v, FormulaError) for row in values for v in row):
            return next(v for row in values for v in row if isinstance(v, FormulaError))
        empty = _empty()
        grid = [[empty if v is None else v for v in row] for row in values]
        if ":" in name:
            array = np.empty((len(grid), len(grid[0]) if grid else 0), dtype=object)
            for r, row in enumerate(grid):
                for c, v in enumerate(row):
                    array[r, c] = v
            args.append(array)
        else:
            args.append(grid[0][0] if grid and grid[0] else empty)
    try:
        return _plain(function(*args))
    except Exception:  # noqa: BLE001 - a function the engine lacks or rejects
        return FormulaError("#ERROR!")
