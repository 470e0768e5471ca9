"""The grid of one sheet: its cells in memory while a request works on them."""

from __future__ import annotations

from typing import Any

from toolgym.worlds.sheets.models import Sheet


# -- the grid of one sheet ------------------------------------------------------------------------
class Grid:
    """The cells of one sheet, loaded for one request: (row, col) -> [value, format, pivot, extra]."""

    def __init__(self, sheet: Sheet, cells: dict[tuple[int, int], list]):
        self.sheet = sheet
        self.cells = cells
        #: The cells holding a formula (kept by ``put``, ``shift`` and ``crop``, the only writers).
        self.formulas = {key for key, cell in cells.items() if cell[0] and "formulaValue" in cell[0]}

    def get(self, row: int, col: int) -> list:
        return self.cells.get((row, col), [None, None, None, None])

    def put(self, row: int, col: int, value: Any = ..., fmt: Any = ..., pivot: Any = ..., extra: Any = ...) -> None:
        cell = list(self.get(row, col))
        if value is not ...:
            cell[0] = value
        if fmt is not ...:
            cell[1] = fmt or None
        if pivot is not ...:
            cell[2] = pivot
        if extra is not ...:
            cell[3] = extra or None
        if cell == [None, None, None, None]:
            self.cells.pop((row, col), None)
        else:
            self.cells[(row, col)] = cell
        if cell[0] and "formulaValue" in cell[0]:
            self.formulas.add((row, col))
        else:
            self.formulas.discard((row, col))

    def crop(self, rows: int, cols: int) -> None:
        """Drop the cells outside a grid of ``rows`` x ``cols``."""
        self.cells = {k: v for k, v in self.cells.items() if k[0] < rows and k[1] < cols}
        self.formulas = {k for k in self.formulas if k[0] < rows and k[1] < cols}

    def shift(self, dimension: str, start: int, delta: int) -> None:
        """Move every cell at or after ``start`` by ``delta`` rows (or columns); deleted ones vanish."""
        axis = 0 if dimension == "ROWS" else 1
        moved = {}
        for key, cell in self.cells.items():
            index = key[axis]
            if delta < 0 and start <= index < start - delta:
                continue
            if index >= start:
                key = (key[0] + delta, key[1]) if axis == 0 else (key[0], key[1] + delta)
            moved[key] = cell
        self.cells = moved
        self.formulas = {key for key, cell in moved.items() if cell[0] and "formulaValue" in cell[0]}
