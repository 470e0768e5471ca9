"""The batchUpdate request types, one ``req_<type>`` method each, mixed into :class:`SheetsService`."""

from __future__ import annotations

import copy
import re
from typing import Any

from sqlalchemy import delete

from toolgym.worlds.sheets.formula import FormulaError
from toolgym.worlds.sheets.models import Cell, Sheet, Spreadsheet
from toolgym.worlds.sheets.api.common import ApiError, CELL_DATA_FIELDS, MAX_CELL_CHARS, OWNER_EMAIL, _integer, _show
from toolgym.worlds.sheets.api.values import (CELL_FORMAT, _COLOR_STYLE, check_message, check_user_value,
                                              check_validation, format_number, grid_range_json, parse_raw,
                                              _sheet_id_base, _sort_key, with_color_styles, _with_sheet, without_nulls)
from toolgym.worlds.sheets.api.fields import apply_mask, parse_fields
from toolgym.worlds.sheets.api.grid import Grid
from toolgym.worlds.sheets.api.formulas import _group_depths, _moved_formula, offset_formula, shift_references
from toolgym.worlds.sheets.api.pivots import _check_pivot


class BatchUpdateRequests:
    """The ``req_<type>`` methods that :meth:`SheetsService.batch_update` dispatches to, and
    their helpers."""

    def req_updateSpreadsheetProperties(self, spreadsheet, spec):
        props = spec.get("properties", {})
        for path in parse_fields(spec.get("fields", "")):
            if path == ["title"] or path == ["*"]:
                spreadsheet.title = str(props.get("title", spreadsheet.title))
            if path == ["timeZone"] or path == ["*"] and "timeZone" in props:
                zone = props.get("timeZone")
                if not isinstance(zone, str) or not re.fullmatch(r"[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)?(?:/[A-Za-z0-9_+-]+)?", zone):
                    raise ApiError(f"Invalid timeZone: {_show(zone)}")
                spreadsheet.time_zone = zone
            if path == ["locale"] or path == ["*"] and "locale" in props:
                locale = props.get("locale")
                if not isinstance(locale, str) or not re.fullmatch(r"[a-z]{2,3}(_[A-Z]{2})?", locale):
                    raise ApiError(f"Invalid locale: {_show(locale)}")
                spreadsheet.locale = locale

    def req_updateSheetProperties(self, spreadsheet, spec):
        props = spec.get("properties", {})
        sheet = self.sheet_by_id(spreadsheet, props.get("sheetId", 0))
        fields = parse_fields(spec.get("fields", ""))
        if not fields:
            raise ApiError("At least one field must be updated, but none was specified.")
        grid_props = props.get("gridProperties", {})
        for path in fields:
            name = ".".join(path)
            if name in ("title", "*"):
                title = str(props.get("title", ""))
                if not title or any(s.title.lower() == title.lower() and s is not sheet for s in self.sheets(spreadsheet)):
                    raise ApiError(f"A sheet with the name \"{title}\" already exists. Please enter another name.")
                sheet.title = title
            if name in ("hidden", "*"):
                hidden = bool(props.get("hidden", False))
                if hidden and all(s.hidden or s is sheet for s in self.sheets(spreadsheet)):
                    raise ApiError("You can't hide all the sheets in a document.")
                sheet.hidden = hidden
            if name in ("tabColor", "tabColorStyle") or (name == "*" and ("tabColor" in props
                                                                         or "tabColorStyle" in props)):
                style = props.get("tabColorStyle") if "tabColorStyle" in props else {"rgbColor": props.get("tabColor")}
                check_message(style, _COLOR_STYLE, name)
                sheet.tab_color = copy.deepcopy(style) if style and (style.get("rgbColor") or
                                                                     style.get("themeColor")) else None
            if name in ("gridProperties", "*", "gridProperties.hideGridlines"):
                sheet.hide_gridlines = bool(grid_props.get("hideGridlines", False))
            if name in ("index", "*") and "index" in props:
                self._move_sheet(spreadsheet, sheet, _integer(props["index"], "index"))
            if name in ("gridProperties", "*", "gridProperties.rowCount", "gridProperties.columnCount"):
                rows = _integer(grid_props.get("rowCount", sheet.row_count), "gridProperties.rowCount")
                cols = _integer(grid_props.get("columnCount", sheet.column_count), "gridProperties.columnCount")
                if name == "gridProperties.rowCount":
                    cols = sheet.column_count
                if name == "gridProperties.columnCount":
                    rows = sheet.row_count
                self._resize(spreadsheet, sheet, rows, cols)
            if name in ("gridProperties", "*", "gridProperties.frozenRowCount"):
                sheet.frozen_rows = _integer(grid_props.get("frozenRowCount", 0), "gridProperties.frozenRowCount")
            if name in ("gridProperties", "*", "gridProperties.frozenColumnCount"):
                sheet.frozen_columns = _integer(grid_props.get("frozenColumnCount", 0), "gridProperties.frozenColumnCount")
            if sheet.frozen_rows < 0 or sheet.frozen_columns < 0 or sheet.frozen_rows >= sheet.row_count \
                    or sheet.frozen_columns >= sheet.column_count:
                raise ApiError("Invalid frozen row or column count.")

    def _resize(self, spreadsheet, sheet: Sheet, rows: int, cols: int) -> None:
        if rows < 1 or cols < 1:
            raise ApiError("Invalid grid size: a sheet needs at least one row and one column.")
        self.check_size(spreadsheet, rows * cols - sheet.row_count * sheet.column_count)
        grid = self.touch(self.grid(sheet))
        grid.crop(rows, cols)
        sheet.merges = [m for m in sheet.merges if m["endRowIndex"] <= rows and m["endColumnIndex"] <= cols]
        sheet.row_count, sheet.column_count = rows, cols

    def _move_sheet(self, spreadsheet, sheet: Sheet, index: int) -> None:
        others = [s for s in self.sheets(spreadsheet) if s is not sheet]
        self._sheet_lists = {}
        index = max(0, min(index, len(others)))
        others.insert(index, sheet)
        for position, item in enumerate(others):
            item.index = position

    def req_addSheet(self, spreadsheet, spec):
        props = spec.get("properties", {})
        sheets = self.sheets(spreadsheet)
        title = str(props.get("title") or f"Sheet{len(sheets) + 1}")
        if any(s.title.lower() == title.lower() for s in sheets):
            raise ApiError(f"A sheet with the name \"{title}\" already exists. Please enter another name.")
        grid = props.get("gridProperties", {})
        rows = _integer(grid.get("rowCount", 1000), "gridProperties.rowCount")
        cols = _integer(grid.get("columnCount", 26), "gridProperties.columnCount")
        if rows < 1 or cols < 1:
            raise ApiError("Invalid grid size.")
        self.check_size(spreadsheet, rows * cols)
        sheet_id = _integer(props.get("sheetId", spreadsheet.next_sheet_id + _sheet_id_base(spreadsheet.id)), "sheetId")
        if sheet_id < 0:
            raise ApiError(f"Invalid sheetId: {sheet_id} (a sheet id is not negative)")
        if self.world.session.get(Sheet, sheet_id) is not None:
            raise ApiError(f"A sheet with the id {sheet_id} already exists.")
        spreadsheet.next_sheet_id += 1
        sheet = Sheet(sheet_id=sheet_id, spreadsheet_id=spreadsheet.id, title=title, index=len(sheets),
                      row_count=rows, column_count=cols, frozen_rows=0, frozen_columns=0, merges=[], basic_filter=None)
        self.world.session.add(sheet)
        self.world.session.flush()
        self._sheet_lists = {}
        if "index" in props:
            self._move_sheet(spreadsheet, sheet, _integer(props["index"], "index"))
        return {"addSheet": {"properties": self.sheet_properties(sheet)}}

    def req_deleteSheet(self, spreadsheet, spec):
        sheet = self.sheet_by_id(spreadsheet, spec.get("sheetId"))
        sheets = self.sheets(spreadsheet)
        if len(sheets) == 1:
            raise ApiError("You can't remove all the sheets in a document.")
        self.world.session.execute(delete(Cell).where(Cell.sheet_id == sheet.sheet_id))
        self._grids.pop(sheet.sheet_id, None)
        self._dirty.discard(sheet.sheet_id)
        self._effective.clear()
        self.world.session.delete(sheet)
        self.world.session.flush()
        self._sheet_lists = {}
        for position, item in enumerate(s for s in sheets if s is not sheet):
            item.index = position

    def _dimension(self, spreadsheet, spec: dict) -> tuple[Sheet, str, int, int]:
        sheet = self.sheet_by_id(spreadsheet, spec.get("sheetId", 0))
        dimension = spec.get("dimension")
        if dimension not in ("ROWS", "COLUMNS"):
            raise ApiError("Invalid dimension: must be ROWS or COLUMNS")
        start, end = _integer(spec.get("startIndex", 0), "startIndex"), spec.get("endIndex")
        limit = sheet.row_count if dimension == "ROWS" else sheet.column_count
        end = limit if end is None else _integer(end, "endIndex")
        if start < 0 or end <= start:
            raise ApiError(f"Invalid dimension range: startIndex {start}, endIndex {end}")
        return sheet, dimension, start, end

    def req_insertDimension(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("range", {}))
        count = end - start
        limit = sheet.row_count if dimension == "ROWS" else sheet.column_count
        if start > limit:
            raise ApiError(f"Invalid dimension range: startIndex {start} is past the end of the grid ({limit})")
        other = sheet.column_count if dimension == "ROWS" else sheet.row_count
        self.check_size(spreadsheet, count * other)
        grid = self.touch(self.grid(sheet))
        grid.shift(dimension, start, count)
        self._shift_formulas(spreadsheet, sheet, dimension, start, count)
        inherit = spec.get("inheritFromBefore", False)
        source = start - 1 if inherit else end
        if (inherit and start > 0) or (not inherit and start < limit):
            for index in range(start, end):  # new rows take the neighbour's format, as in Sheets
                for other_index in range(other):
                    key = (source, other_index) if dimension == "ROWS" else (other_index, source)
                    fmt = grid.cells.get(key, [None, None])[1]
                    if fmt:
                        new = (index, other_index) if dimension == "ROWS" else (other_index, index)
                        grid.put(*new, fmt=copy.deepcopy(fmt))
        axis = "Row" if dimension == "ROWS" else "Column"
        merges = []
        for merge in sheet.merges:
            merge = dict(merge)
            if merge[f"start{axis}Index"] >= start:
                merge[f"start{axis}Index"] += count
                merge[f"end{axis}Index"] += count
            elif merge[f"end{axis}Index"] > start:
                merge[f"end{axis}Index"] += count
            merges.append(merge)
        sheet.merges = merges
        self._shift_filter(sheet, axis, start, count)
        if dimension == "ROWS":
            sheet.row_count += count
        else:
            sheet.column_count += count

    def req_deleteDimension(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("range", {}))
        limit = sheet.row_count if dimension == "ROWS" else sheet.column_count
        end = min(end, limit)
        if start >= limit:
            raise ApiError(f"Invalid dimension range: startIndex {start} is past the end of the grid ({limit})")
        count = end - start
        if count >= limit:
            raise ApiError("You can't delete all the rows on the sheet." if dimension == "ROWS"
                           else "You can't delete all the columns on the sheet.")
        grid = self.touch(self.grid(sheet))
        grid.shift(dimension, start, -count)
        self._shift_formulas(spreadsheet, sheet, dimension, start, -count)
        axis = "Row" if dimension == "ROWS" else "Column"
        merges = []
        for merge in sheet.merges:
            merge = dict(merge)
            s, e = merge[f"start{axis}Index"], merge[f"end{axis}Index"]
            kept_before = max(0, min(e, start) - s)
            kept_after = max(0, e - max(s, end))
            if kept_before + kept_after == 0:
                continue
            merge[f"start{axis}Index"] = s if s < start else max(start, s - count)
            merge[f"end{axis}Index"] = merge[f"start{axis}Index"] + kept_before + kept_after
            if merge["endRowIndex"] - merge["startRowIndex"] + merge["endColumnIndex"] - merge["startColumnIndex"] > 2:
                merges.append(merge)
        sheet.merges = merges
        self._shift_filter(sheet, axis, start, -count)
        if dimension == "ROWS":
            sheet.row_count -= count
            sheet.frozen_rows = min(sheet.frozen_rows, sheet.row_count - 1)
        else:
            sheet.column_count -= count
            sheet.frozen_columns = min(sheet.frozen_columns, sheet.column_count - 1)

    def _shift_formulas(self, spreadsheet, changed: Sheet, dimension: str, start: int, delta: int) -> None:
        for sheet in self.sheets(spreadsheet):
            grid = self.grid(sheet)

            def targets(title: str | None, sheet=sheet) -> bool:
                return sheet is changed if title is None else title.lower() == changed.title.lower()

            for key in sorted(grid.formulas):
                text = grid.cells[key][0]["formulaValue"]
                new = shift_references(text, targets, dimension, start, delta)
                if new != text:
                    self.touch(grid)
                    grid.put(*key, value={"formulaValue": new})

    def _shift_filter(self, sheet: Sheet, axis: str, start: int, delta: int) -> None:
        if not sheet.basic_filter:
            return
        flt = copy.deepcopy(sheet.basic_filter)
        rng = flt["range"]
        s, e = rng.get(f"start{axis}Index", 0), rng.get(f"end{axis}Index")
        if e is None:
            return
        if delta > 0:
            if s >= start:
                s += delta
            if e > start:
                e += delta
        else:
            count = -delta
            s = s if s < start else max(start, s - count)
            e = e - max(0, min(e, start + count) - max(s, start)) if e > start else e
        if e <= s:
            sheet.basic_filter = None
            return
        rng[f"start{axis}Index"], rng[f"end{axis}Index"] = s, e
        sheet.basic_filter = flt

    def req_appendDimension(self, spreadsheet, spec):
        sheet = self.sheet_by_id(spreadsheet, spec.get("sheetId", 0))
        length = _integer(spec.get("length", 0), "length")
        if length < 1:
            raise ApiError("Invalid length: must be positive")
        if spec.get("dimension") == "ROWS":
            self._resize(spreadsheet, sheet, sheet.row_count + length, sheet.column_count)
        elif spec.get("dimension") == "COLUMNS":
            self._resize(spreadsheet, sheet, sheet.row_count, sheet.column_count + length)
        else:
            raise ApiError("Invalid dimension: must be ROWS or COLUMNS")

    def req_updateCells(self, spreadsheet, spec):
        fields = parse_fields(spec.get("fields", ""))
        if not fields:
            raise ApiError("At least one field must be updated, but none was specified.")
        rows = spec.get("rows", [])
        if "range" in spec:
            sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec["range"])
        elif "start" in spec:
            start = spec["start"]
            sheet = self.sheet_by_id(spreadsheet, start.get("sheetId", 0))
            r1, c1 = _integer(start.get("rowIndex", 0), "rowIndex"), _integer(start.get("columnIndex", 0), "columnIndex")
            r2 = r1 + len(rows)
            c2 = c1 + max((len(row.get("values", [])) for row in rows), default=0)
            if r2 > sheet.row_count or c2 > sheet.column_count:
                raise ApiError(f"Range exceeds grid limits. Max rows: {sheet.row_count}, max columns: "
                               f"{sheet.column_count}")
        else:
            raise ApiError("updateCells needs a range or a start")
        grid = self.touch(self.grid(sheet))
        for r in range(r1, r2):
            row = rows[r - r1] if r - r1 < len(rows) else {}
            values = row.get("values", []) if isinstance(row, dict) else []
            for c in range(c1, c2):
                cell = values[c - c1] if c - c1 < len(values) else {}
                self._write_cell(grid, r, c, cell if isinstance(cell, dict) else {}, fields)

    def _write_cell(self, grid: Grid, row: int, col: int, data: dict, fields: list[list[str]]) -> None:
        user, fmt, pivot, extra = grid.get(row, col)
        current = {k: v for k, v in (("userEnteredValue", user), ("userEnteredFormat", fmt), ("pivotTable", pivot),
                                     *(extra or {}).items()) if v}
        unknown = [path[0] for path in fields if path[0] not in CELL_DATA_FIELDS]
        if unknown:
            raise ApiError(f"Invalid field mask: the simulated Sheets API does not write the cell field "
                           f"{unknown[0][:60]!r}.")
        new = apply_mask(current, data, fields)
        value = check_user_value(new.get("userEnteredValue"), "userEnteredValue")
        table = new.get("pivotTable")
        if table is not None:
            table = _check_pivot(table)
        fmt = new.get("userEnteredFormat")
        check_message(fmt, CELL_FORMAT, "userEnteredFormat")
        fmt = with_color_styles(fmt)
        note = new.get("note")
        if note is not None and (not isinstance(note, str) or len(note) > MAX_CELL_CHARS):
            raise ApiError(f"Invalid value at 'note', {_show(note)}")
        rule = without_nulls(new.get("dataValidation"))
        if rule is not None:
            check_validation(rule)
        extra = {k: v for k, v in (("note", note), ("dataValidation", rule)) if v}
        grid.put(row, col, value=value, fmt=fmt or None, pivot=table, extra=extra)

    def req_repeatCell(self, spreadsheet, spec):
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec.get("range", {}))
        fields = parse_fields(spec.get("fields", ""))
        if not fields:
            raise ApiError("At least one field must be updated, but none was specified.")
        cell = spec.get("cell", {})
        grid = self.touch(self.grid(sheet))
        for r in range(r1, r2):
            for c in range(c1, c2):
                self._write_cell(grid, r, c, cell, fields)

    def req_sortRange(self, spreadsheet, spec):
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec.get("range", {}))
        specs = spec.get("sortSpecs", [])
        if not specs:
            raise ApiError("sortSpecs must not be empty")
        grid, values = self.grid(sheet), self.effective(sheet)
        rows = list(range(r1, r2))
        for sort in reversed(specs):
            col = _integer(sort.get("dimensionIndex", 0), "dimensionIndex")
            if not c1 <= col < c2:
                raise ApiError(f"Invalid sortSpec: dimensionIndex {col} is outside the range")
            descending = sort.get("sortOrder", "ASCENDING") == "DESCENDING"
            present = [r for r in rows if values.get((r, col)) is not None]
            empty = [r for r in rows if values.get((r, col)) is None]
            present.sort(key=lambda r: _sort_key(values[(r, col)]), reverse=descending)
            rows = present + empty  # empty cells always last, as in Sheets
        old = {(r, c): grid.get(r, c) for r in range(r1, r2) for c in range(c1, c2)}
        self.touch(grid)
        for target, source in zip(range(r1, r2), rows):
            for c in range(c1, c2):
                value, fmt, pivot, extra = old[(source, c)]
                grid.put(target, c, value=_moved_formula(value, source, target), fmt=fmt, pivot=pivot, extra=extra)

    def req_mergeCells(self, spreadsheet, spec):
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec.get("range", {}))
        kind = spec.get("mergeType", "MERGE_ALL")
        if kind == "MERGE_ALL":
            blocks = [(r1, r2, c1, c2)]
        elif kind == "MERGE_ROWS":
            blocks = [(r, r + 1, c1, c2) for r in range(r1, r2)]
        elif kind == "MERGE_COLUMNS":
            blocks = [(r1, r2, c, c + 1) for c in range(c1, c2)]
        else:
            raise ApiError(f"Invalid mergeType: {kind}")
        merges = list(sheet.merges)
        grid = self.touch(self.grid(sheet))
        for a, b, c, d in blocks:
            if (b - a) * (d - c) < 2:
                continue
            inside = [m for m in merges if a <= m["startRowIndex"] and m["endRowIndex"] <= b
                      and c <= m["startColumnIndex"] and m["endColumnIndex"] <= d]
            merges = [m for m in merges if m not in inside]  # a merge over whole merges replaces them
            for m in merges:
                if a < m["endRowIndex"] and m["startRowIndex"] < b and c < m["endColumnIndex"] and m["startColumnIndex"] < d:
                    raise ApiError("You can't merge cells that overlap an existing merge; unmerge them first.")
            for r in range(a, b):  # Sheets keeps the top-left value only
                for col in range(c, d):
                    if (r, col) != (a, c):
                        grid.put(r, col, value=None)
            merges.append({"startRowIndex": a, "endRowIndex": b, "startColumnIndex": c, "endColumnIndex": d})
        sheet.merges = sorted(merges, key=lambda m: (m["startRowIndex"], m["startColumnIndex"]))

    def req_unmergeCells(self, spreadsheet, spec):
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec.get("range", {}))
        kept = []
        for m in sheet.merges:
            overlaps = r1 < m["endRowIndex"] and m["startRowIndex"] < r2 and c1 < m["endColumnIndex"] \
                and m["startColumnIndex"] < c2
            inside = r1 <= m["startRowIndex"] and m["endRowIndex"] <= r2 and c1 <= m["startColumnIndex"] \
                and m["endColumnIndex"] <= c2
            if overlaps and not inside:
                raise ApiError("You must select all cells in a merged range to unmerge it.")
            if not overlaps:
                kept.append(m)
        sheet.merges = kept

    def req_setBasicFilter(self, spreadsheet, spec):
        flt = spec.get("filter")
        if not isinstance(flt, dict):
            raise ApiError("setBasicFilter needs a filter")
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, flt.get("range", {}))
        stored = {"range": {"startRowIndex": r1, "endRowIndex": r2, "startColumnIndex": c1, "endColumnIndex": c2}}
        for key in ("sortSpecs", "criteria", "filterSpecs"):
            if key in flt:
                stored[key] = copy.deepcopy(flt[key])
        if flt.get("sortSpecs"):
            self.req_sortRange(spreadsheet, {"range": {"sheetId": sheet.sheet_id, "startRowIndex": r1 + 1,
                                                       "endRowIndex": r2, "startColumnIndex": c1,
                                                       "endColumnIndex": c2}, "sortSpecs": flt["sortSpecs"]})
        sheet.basic_filter = stored

    def req_clearBasicFilter(self, spreadsheet, spec):
        sheet = self.sheet_by_id(spreadsheet, spec.get("sheetId", 0))
        sheet.basic_filter = None

    # -- named and protected ranges, dimensions, copies ------------------------------------------
    def _new_object_id(self, spreadsheet) -> int:
        spreadsheet.next_object_id = (spreadsheet.next_object_id or 1) + 1
        return 100_000_000 + spreadsheet.next_object_id * 7919 % 900_000_000

    def _stored_range(self, spreadsheet, value: Any) -> dict:
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, value)
        return {"sheetId": sheet.sheet_id, "startRowIndex": r1, "endRowIndex": r2, "startColumnIndex": c1,
                "endColumnIndex": c2}

    def req_addNamedRange(self, spreadsheet, spec):
        named = spec.get("namedRange")
        if not isinstance(named, dict):
            raise ApiError("addNamedRange needs a namedRange")
        name = named.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,249}", name) \
                or re.fullmatch(r"[A-Za-z]{1,3}[0-9]+|true|false|TRUE|FALSE", name):
            raise ApiError(f"Invalid namedRange name: {_show(name)}")
        if any(n["name"].lower() == name.lower() for n in spreadsheet.named_ranges):
            raise ApiError(f"A named range with the name \"{name}\" already exists.")
        stored = {"namedRangeId": str(named.get("namedRangeId") or self._new_object_id(spreadsheet)), "name": name,
                  "range": self._stored_range(spreadsheet, named.get("range", {}))}
        spreadsheet.named_ranges = [*spreadsheet.named_ranges, stored]
        return {"addNamedRange": {"namedRange": {**stored, "range": grid_range_json(stored["range"])}}}

    def req_deleteNamedRange(self, spreadsheet, spec):
        named_id = str(spec.get("namedRangeId"))
        kept = [n for n in spreadsheet.named_ranges if n["namedRangeId"] != named_id]
        if len(kept) == len(spreadsheet.named_ranges):
            raise ApiError(f"No namedRange with id: {named_id[:40]}")
        spreadsheet.named_ranges = kept

    def req_addProtectedRange(self, spreadsheet, spec):
        protected = without_nulls(spec.get("protectedRange"))
        if not isinstance(protected, dict):
            raise ApiError("addProtectedRange needs a protectedRange")
        stored_range = self._stored_range(spreadsheet, protected.get("range", {}))
        sheet = self.sheet_by_id(spreadsheet, stored_range.pop("sheetId"))
        editors = protected.get("editors", {})
        if not isinstance(editors, dict) or not all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                                    for v in editors.values()):
            raise ApiError("Invalid protectedRange.editors")
        stored = {"protectedRangeId": self._new_object_id(spreadsheet), "range": stored_range,
                  "requestingUserCanEdit": True}
        for key, kind in (("description", str), ("warningOnly", bool)):
            if protected.get(key) is not None:
                if not isinstance(protected[key], kind):
                    raise ApiError(f"Invalid value at 'protectedRange.{key}', {_show(protected[key])}")
                if protected[key] is not False:  # the API leaves out a false flag
                    stored[key] = protected[key]
        if not stored.get("warningOnly"):  # the owner always edits; the editors listed join them
            users = sorted({OWNER_EMAIL, *editors.get("users", [])})
            stored["editors"] = {"users": users, **({"groups": editors["groups"]} if editors.get("groups") else {})}
        sheet.protected_ranges = [*sheet.protected_ranges, stored]
        return {"addProtectedRange": {"protectedRange": _with_sheet(stored, sheet.sheet_id)}}

    def req_deleteProtectedRange(self, spreadsheet, spec):
        wanted = spec.get("protectedRangeId")
        for sheet in self.sheets(spreadsheet):
            kept = [p for p in sheet.protected_ranges if p["protectedRangeId"] != wanted]
            if len(kept) != len(sheet.protected_ranges):
                sheet.protected_ranges = kept
                return
        raise ApiError(f"No protected range with id: {_show(wanted)}")

    def req_updateDimensionProperties(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("range", {}))
        limit = sheet.row_count if dimension == "ROWS" else sheet.column_count
        if end > limit:
            raise ApiError(f"Invalid dimension range: endIndex {end} is past the end of the grid ({limit})")
        props = spec.get("properties", {})
        fields = parse_fields(spec.get("fields", ""))
        if not fields:
            raise ApiError("At least one field must be updated, but none was specified.")
        changes = {}
        for path in fields:
            name = path[0]
            if name in ("hiddenByUser", "*"):
                changes["hiddenByUser"] = bool(props.get("hiddenByUser", False))
            if name in ("pixelSize", "*"):
                size = _integer(props.get("pixelSize", 21 if dimension == "ROWS" else 100), "pixelSize")
                if not 0 <= size <= 10_000:
                    raise ApiError(f"Invalid pixelSize: {size}")
                changes["pixelSize"] = size
            if name not in ("hiddenByUser", "pixelSize", "*", "developerMetadata"):
                raise ApiError(f"Invalid field mask: the simulated Sheets API does not set {name[:60]!r}")
        self._set_dimensions(sheet, dimension, range(start, end), changes)

    def _set_dimensions(self, sheet: Sheet, dimension: str, indexes, changes: dict) -> None:
        default = {"pixelSize": 21 if dimension == "ROWS" else 100, "hiddenByUser": False}
        table = copy.deepcopy(sheet.dimensions or {})
        entries = table.setdefault(dimension, {})
        for index in indexes:
            entry = {**entries.get(str(index), {}), **changes}
            entry = {k: v for k, v in entry.items() if v != default[k]}
            if entry:
                entries[str(index)] = entry
            else:
                entries.pop(str(index), None)
        sheet.dimensions = table

    def req_autoResizeDimensions(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("dimensions", {}))
        values = self.effective(sheet)
        sizes: dict[int, int] = {}
        for (row, col), value in values.items():  # about 7 pixels a character, as Arial 10 is drawn
            index = row if dimension == "ROWS" else col
            if start <= index < end:
                text = str(value) if not isinstance(value, float) else format_number(value, None)
                lines = text.split("\n")
                size = 21 * len(lines) if dimension == "ROWS" else 7 * max(len(line) for line in lines) + 10
                sizes[index] = max(sizes.get(index, 0), size)
        for index in range(start, end):
            self._set_dimensions(sheet, dimension, [index], {"pixelSize": sizes.get(
                index, 21 if dimension == "ROWS" else 100)})

    def req_addDimensionGroup(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("range", {}))
        groups = [dict(g) for g in sheet.groups]
        if any(g["dimension"] == dimension and g["startIndex"] == start and g["endIndex"] == end for g in groups):
            raise ApiError("A group with this range already exists.")
        groups.append({"dimension": dimension, "startIndex": start, "endIndex": end, "depth": 1})
        sheet.groups = _group_depths(groups)
        return {"addDimensionGroup": {"dimensionGroups": self._groups(sheet, dimension)}}

    def req_deleteDimensionGroup(self, spreadsheet, spec):
        sheet, dimension, start, end = self._dimension(spreadsheet, spec.get("range", {}))
        groups = [dict(g) for g in sheet.groups]
        matching = [g for g in groups if g["dimension"] == dimension and g["startIndex"] == start
                    and g["endIndex"] == end]
        if not matching:
            raise ApiError("No group with this range exists.")
        groups.remove(matching[-1])
        sheet.groups = _group_depths(groups)
        return {"deleteDimensionGroup": {"dimensionGroups": self._groups(sheet, dimension)}}

    def _groups(self, sheet: Sheet, dimension: str) -> list[dict]:
        return [{"range": {"sheetId": sheet.sheet_id, "dimension": dimension, "startIndex": g["startIndex"],
                           "endIndex": g["endIndex"]}, "depth": g["depth"]}
                for g in sheet.groups if g["dimension"] == dimension]

    def req_setDataValidation(self, spreadsheet, spec):
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, spec.get("range", {}))
        rule = without_nulls(spec.get("rule"))
        if rule is not None:
            check_validation(rule)
        grid = self.touch(self.grid(sheet))
        for r in range(r1, r2):
            for c in range(c1, c2):
                extra = {k: v for k, v in (grid.get(r, c)[3] or {}).items() if k != "dataValidation"}
                if rule is not None:
                    extra["dataValidation"] = copy.deepcopy(rule)
                grid.put(r, c, extra=extra)

    def _paste(self, spreadsheet, source: dict, target_sheet: Sheet, row: int, col: int, paste_type: str,
               cut: bool) -> None:
        sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, source)
        kinds = {"PASTE_NORMAL": (0, 1, 2, 3), "PASTE_VALUES": (0,), "PASTE_FORMAT": (1,),
                 "PASTE_NO_BORDERS": (0, 1, 2, 3), "PASTE_FORMULA": (0,), "PASTE_DATA_VALIDATION": (3,)}
        if paste_type not in kinds:
            raise ApiError(f"Invalid pasteType: {_show(paste_type)}")
        if row + (r2 - r1) > target_sheet.row_count or col + (c2 - c1) > target_sheet.column_count:
            raise ApiError(f"Range exceeds grid limits. Max rows: {target_sheet.row_count}, max columns: "
                           f"{target_sheet.column_count}")
        values = self.effective(sheet)  # read before the grids change (touch forgets them)
        grid, target = self.touch(self.grid(sheet)), self.touch(self.grid(target_sheet))
        block = {(r, c): list(grid.get(r, c)) for r in range(r1, r2) for c in range(c1, c2)}
        if cut:
            for key in block:
                grid.put(*key, value=None, fmt=None, pivot=None, extra=None)
        for (r, c), cell in block.items():
            new = list(target.get(row + r - r1, col + c - c1))
            for position in kinds[paste_type]:
                new[position] = copy.deepcopy(cell[position])
            user = new[0]
            if paste_type == "PASTE_VALUES" and cell[0] is not None:
                value = values.get((r, c))
                user = None if value is None else parse_raw(str(value) if isinstance(value, FormulaError) else value)
            elif user and "formulaValue" in user and not cut:  # relative references follow the paste
                user = {"formulaValue": offset_formula(user["formulaValue"], row - r1, col - c1)}
            target.put(row + r - r1, col + c - c1, value=user, fmt=new[1], pivot=new[2], extra=new[3])

    def req_copyPaste(self, spreadsheet, spec):
        destination = spec.get("destination", {})
        target_sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, destination)
        if spec.get("pasteOrientation", "NORMAL") != "NORMAL":
            raise ApiError("The simulated Sheets API pastes with pasteOrientation NORMAL only.")
        self._paste(spreadsheet, spec.get("source", {}), target_sheet, r1, c1, spec.get("pasteType", "PASTE_NORMAL"),
                    cut=False)

    def req_cutPaste(self, spreadsheet, spec):
        destination = spec.get("destination", {})
        if not isinstance(destination, dict):
            raise ApiError("cutPaste needs a destination GridCoordinate")
        target_sheet = self.sheet_by_id(spreadsheet, destination.get("sheetId", 0))
        row, col = _integer(destination.get("rowIndex", 0), "rowIndex"), _integer(destination.get("columnIndex", 0),
                                                                                  "columnIndex")
        if row < 0 or col < 0:
            raise ApiError("Invalid destination: negative index")
        self._paste(spreadsheet, spec.get("source", {}), target_sheet, row, col, spec.get("pasteType", "PASTE_NORMAL"),
                    cut=True)

    def req_duplicateSheet(self, spreadsheet, spec):
        source = self.sheet_by_id(spreadsheet, spec.get("sourceSheetId"))
        return {"duplicateSheet": {"properties": self.copy_sheet(
            source, spreadsheet, spec.get("newSheetName") or f"Copy of {source.title}", spec.get("newSheetId"),
            spec.get("insertSheetIndex"))}}

    def copy_sheet(self, source: Sheet, target: Spreadsheet, title: Any, sheet_id: Any, index: Any) -> dict:
        """A copy of ``source`` (cells, merges, filter, sizes, groups) as a new sheet of ``target``."""
        reply = self.req_addSheet(target, {"properties": {
            "title": title, **({"sheetId": sheet_id} if sheet_id is not None else {}),
            **({"index": index} if index is not None else {}),
            "gridProperties": {"rowCount": source.row_count, "columnCount": source.column_count}}})
        new = self.sheet_by_id(target, reply["addSheet"]["properties"]["sheetId"])
        new.frozen_rows, new.frozen_columns, new.hide_gridlines = (source.frozen_rows, source.frozen_columns,
                                                                   source.hide_gridlines)
        new.merges, new.tab_color = copy.deepcopy(source.merges), copy.deepcopy(source.tab_color)
        new.dimensions, new.groups = copy.deepcopy(source.dimensions), copy.deepcopy(source.groups)
        if source.basic_filter:
            new.basic_filter = copy.deepcopy(source.basic_filter)
        grid = self.touch(self.grid(new))
        for (r, c), cell in self.grid(source).cells.items():
            grid.put(r, c, value=copy.deepcopy(cell[0]), fmt=copy.deepcopy(cell[1]), pivot=copy.deepcopy(cell[2]),
                     extra=copy.deepcopy(cell[3]))
        return self.sheet_properties(new)
