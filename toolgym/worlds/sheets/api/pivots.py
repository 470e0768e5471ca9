"""Pivot tables: the spec's checks and the table a pivot computes."""

from __future__ import annotations

import copy
from typing import Any

from toolgym.worlds.sheets.formula import FormulaError
from toolgym.worlds.sheets.api.common import ApiError
from toolgym.worlds.sheets.api.values import _sort_key


_SUMMARIZE = ("SUM", "COUNTA", "COUNT", "AVERAGE", "MAX", "MIN")


def _check_pivot(table: Any) -> dict:
    if not isinstance(table, dict) or not isinstance(table.get("source"), dict):
        raise ApiError("Invalid pivotTable: a source range is required")
    for group in table.get("rows", []) + table.get("columns", []):
        if not isinstance(group, dict) or not isinstance(group.get("sourceColumnOffset"), int):
            raise ApiError("Invalid pivotTable group: sourceColumnOffset is required")
    values = table.get("values", [])
    if not values:
        raise ApiError("Invalid pivotTable: at least one value is required")
    for value in values:
        if not isinstance(value, dict) or not isinstance(value.get("sourceColumnOffset"), int) \
                or value.get("summarizeFunction", "SUM") not in _SUMMARIZE:
            raise ApiError(f"Invalid pivotTable value (summarizeFunction one of {', '.join(_SUMMARIZE)})")
    if len(table.get("rows", [])) > 1 or len(table.get("columns", [])) > 1:
        raise ApiError("The simulated service supports pivot tables with at most one row group and one column group")
    return copy.deepcopy(table)


def _summarize(function: str, items: list) -> Any:
    numbers = [v for v in items if isinstance(v, float)]
    if function == "COUNTA":
        return float(len([v for v in items if v is not None and v != ""]))
    if function == "COUNT":
        return float(len(numbers))
    if function == "SUM":
        return float(sum(numbers))
    if not numbers:
        return FormulaError("#DIV/0!") if function == "AVERAGE" else 0.0
    return {"AVERAGE": sum(numbers) / len(numbers), "MAX": max(numbers), "MIN": min(numbers)}[function]


def pivot_table(table: list[list[Any]], pivot: dict) -> dict[tuple[int, int], Any]:
    """The cells of a pivot table over ``table`` (its first row the headers), relative to the anchor.

    Layout, as Sheets draws it: with a row group, a header row (the group's header, then one
    column per value named ``"SUM of Sales"``), one row per group value in ascending order
    (or ``sortOrder: DESCENDING``) and a ``Grand Total`` row. With a column group as well,
    the first row names the value and the column group's header, the second the row group's
    header, each column value and ``Grand Total``.
    """
    if not table:
        return {}
    headers, data = table[0], table[1:]
    width = len(headers)

    def header(offset: int) -> str:
        return str(headers[offset]) if 0 <= offset < width and headers[offset] is not None else ""

    def field(group: dict) -> int:
        offset = group["sourceColumnOffset"]
        if not 0 <= offset < width:
            raise ApiError(f"sourceColumnOffset {offset} is outside the source range")
        return offset

    def ordered(keys: set, group: dict) -> list:
        keys = sorted(keys, key=lambda v: _sort_key(v) if v is not None else (3, 0, ""))
        return keys[::-1] if group.get("sortOrder") == "DESCENDING" else keys

    values = pivot.get("values", [])
    rows, columns = pivot.get("rows", []), pivot.get("columns", [])
    data = [row for row in data if any(v is not None for v in row)]
    labels = [f"{v.get('summarizeFunction', 'SUM')} of {header(field(v))}" for v in values]
    out: dict[tuple[int, int], Any] = {}
    row_field = field(rows[0]) if rows else None
    col_field = field(columns[0]) if columns else None
    row_keys = ordered({r[row_field] for r in data}, rows[0]) if rows else [None]
    if col_field is None:
        out[(0, 0)] = header(row_field) if rows else None
        for j, label in enumerate(labels):
            out[(0, (1 if rows else 0) + j)] = label
        line = 1
        for key in row_keys if rows else []:
            out[(line, 0)] = key
            for j, value in enumerate(values):
                out[(line, 1 + j)] = _summarize(value.get("summarizeFunction", "SUM"),
                                                [r[field(value)] for r in data if r[row_field] == key])
            line += 1
        out[(line, 0)] = "Grand Total" if rows else None
        for j, value in enumerate(values):
            out[(line, (1 if rows else 0) + j)] = _summarize(value.get("summarizeFunction", "SUM"),
                                                            [r[field(value)] for r in data])
        return {k: v for k, v in out.items() if v is not None}
    value = values[0]
    function, source = value.get("summarizeFunction", "SUM"), field(value)
    col_keys = ordered({r[col_field] for r in data}, columns[0])
    out[(0, 0)], out[(0, 1)] = labels[0], header(col_field)
    out[(1, 0)] = header(row_field) if rows else None
    for j, key in enumerate(col_keys):
        out[(1, 1 + j)] = key
    out[(1, 1 + len(col_keys))] = "Grand Total"
    line = 2
    for key in row_keys if rows else []:
        out[(line, 0)] = key
        selected = [r for r in data if r[row_field] == key]
        for j, col_key in enumerate(col_keys):
            cells = [r[source] for r in selected if r[col_field] == col_key]
            if cells:
                out[(line, 1 + j)] = _summarize(function, cells)
        out[(line, 1 + len(col_keys))] = _summarize(function, [r[source] for r in selected])
        line += 1
    out[(line, 0)] = "Grand Total"
    for j, col_key in enumerate(col_keys):
        out[(line, 1 + j)] = _summarize(function, [r[source] for r in data if r[col_field] == col_key])
    out[(line, 1 + len(col_keys))] = _summarize(function, [r[source] for r in data])
    return {k: v for k, v in out.items() if v is not None}
