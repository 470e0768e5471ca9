"""Formulas that move: references offset by a paste or a sort, and shifted by inserted or deleted
rows and columns."""

from __future__ import annotations

import re
from collections.abc import Callable

from toolgym.worlds.sheets.a1 import col_letters


_REFERENCE = re.compile(r"(\$?)([A-Z]{1,3})(\$?)(\d+)(?![\w(])")


def _group_depths(groups: list[dict]) -> list[dict]:
    """Dimension groups in order, each one's depth the number of groups that contain it."""
    ordered = sorted(groups, key=lambda g: (g["dimension"], g["startIndex"], -g["endIndex"]))
    for group in ordered:
        group["depth"] = sum(1 for other in ordered if other["dimension"] == group["dimension"]
                             and other["startIndex"] <= group["startIndex"] and group["endIndex"] <= other["endIndex"])
    return ordered


def offset_formula(formula: str, rows: int, cols: int) -> str:
    """A formula pasted ``rows`` down and ``cols`` right: its relative references follow, as in Sheets
    (absolute parts stay; a reference moved off the grid's top or left is ``#REF!``)."""
    from toolgym.worlds.sheets.a1 import letters_col

    def shift(match: re.Match) -> str:
        col_abs, col, row_abs, row = match.groups()
        new_col = letters_col(col) + (0 if col_abs else cols)
        new_row = int(row) + (0 if row_abs else rows)
        if new_col < 0 or new_row < 1:
            return "#REF!"
        return f"{col_abs}{col_letters(new_col)}{row_abs}{new_row}"

    pieces = formula.split('"')
    for i in range(0, len(pieces), 2):  # outside string literals
        pieces[i] = _REFERENCE.sub(shift, pieces[i])
    return '"'.join(pieces)


def _moved_formula(value: dict | None, source: int, target: int) -> dict | None:
    """A formula moved from row ``source`` to ``target`` by a sort: relative row references follow."""
    if not value or "formulaValue" not in value or source == target:
        return value
    delta = target - source

    def shift(match: re.Match) -> str:
        if match.group(3):
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{max(1, int(match.group(4)) + delta)}"

    return {"formulaValue": _REFERENCE.sub(shift, value["formulaValue"])}


_A1_REF = re.compile(
    r"(?P<sheet>(?:'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.]*)!)?"
    r"(?P<c1>\$?)(?P<col1>[A-Z]{1,3})(?P<r1>\$?)(?P<row1>\d+)"
    r"(?::(?P<c2>\$?)(?P<col2>[A-Z]{1,3})(?P<r2>\$?)(?P<row2>\d+))?(?![\w(])")


def shift_references(formula: str, targets_sheet: Callable[[str | None], bool], dimension: str, start: int,
                     delta: int) -> str:
    """A formula after rows (or columns) were inserted (``delta`` > 0) at ``start`` or deleted
    (``delta`` < 0) from ``start``: references to the changed sheet follow their cells, as in
    Sheets; a reference to a deleted cell becomes ``#REF!``. Text in double quotes is left alone."""
    from toolgym.worlds.sheets.a1 import letters_col

    def move(index: int, is_end: bool) -> int | None:
        if delta > 0:
            return index + delta if index >= start else index
        end = start - delta
        if start <= index < end:
            return start - 1 if is_end else start
        return index + delta if index >= end else index

    def replace(match: re.Match) -> str:
        sheet = match.group("sheet")
        title = None
        if sheet:
            title = sheet[:-1]
            title = title[1:-1].replace("''", "'") if title.startswith("'") else title
        if not targets_sheet(title):
            return match.group(0)
        corners = [(match.group("c1"), match.group("col1"), match.group("r1"), match.group("row1"))]
        if match.group("col2"):
            corners.append((match.group("c2"), match.group("col2"), match.group("r2"), match.group("row2")))
        moved = []
        for number, (cabs, col, rabs, row) in enumerate(corners):
            index = int(row) - 1 if dimension == "ROWS" else letters_col(col)
            new = move(index, is_end=number == 1)
            if len(corners) == 1 and delta < 0 and start <= index < start - delta:
                return "#REF!"
            moved.append(new)
        if len(moved) == 2 and moved[1] < moved[0]:
            return "#REF!"
        parts = []
        for (cabs, col, rabs, row), index in zip(corners, moved):
            if dimension == "ROWS":
                parts.append(f"{cabs}{col}{rabs}{index + 1}")
            else:
                parts.append(f"{cabs}{col_letters(index)}{rabs}{row}")
        return (sheet or "") + ":".join(parts)

    pieces = formula.split('"')
    for i in range(0, len(pieces), 2):  # outside string literals
        pieces[i] = _A1_REF.sub(replace, pieces[i])
    return '"'.join(pieces)
