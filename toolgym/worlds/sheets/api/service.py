"""The service: request routing, one transaction per request, the values endpoints and
spreadsheets.get."""

from __future__ import annotations

import copy
import math
import re
from typing import Any
from urllib.parse import unquote

from sqlalchemy import delete, insert, select

from toolgym.worlds.sheets.a1 import (Bounds, RangeError, bounds_label, cell_label, col_letters, parse_bounds, quote_title,
                                      split_sheet)
from toolgym.worlds.sheets.formula import VALUE_WORK, FormulaError, Recalculation, SheetCells, recalculation_work
from toolgym.worlds.sheets.models import Cell, Sheet, Spreadsheet
from toolgym.worlds.sheets.api.common import (DEFAULT_FORMAT, MAX_CELL_CHARS, MAX_CELLS, MAX_PROGRAM_WORK,
                                              MAX_RECALCULATION_WORK, SPREADSHEET_THEME, ApiError, check_json, _integer,
                                              next_modified_time, _show)
from toolgym.worlds.sheets.api.values import (DATE_KINDS, check_user_value, effective_format, _effective_value,
                                              entered_format, formatted, grid_range_json, _number_json, _param,
                                              parse_raw, parse_user_entered, _user_value, violates, _with_sheet)
from toolgym.worlds.sheets.api.fields import _trim_grid_data, filter_fields, parse_fields
from toolgym.worlds.sheets.api.grid import Grid
from toolgym.worlds.sheets.api.pivots import pivot_table
from toolgym.worlds.sheets.api.requests import BatchUpdateRequests


class SheetsService(BatchUpdateRequests):
    """Answers Sheets API v4 requests against a :class:`SheetsWorld`'s database.

    ``handle(method, path, query, body)`` returns ``(status, json)``. One request is one
    transaction: it is committed when it succeeds and rolled back when it fails.
    """

    def __init__(self, world):
        self.world = world
        self.requests = 0
        # Grids and effective values stay loaded between requests until a request fails or the
        # world is restored (``forget``); a request that writes saves its grids and recomputes.
        self._grids: dict[int, Grid] = {}
        self._dirty: set[int] = set()
        self._effective: dict[int, dict] = {}
        # The last recalculation of each spreadsheet: the next one evaluates only what changed.
        self._calculations: dict[str, Recalculation] = {}
        self.quota = None

    @property
    def quota(self) -> int | None:
        """Requests still allowed (None: no limit); past it the service answers 429, as Sheets'
        quota does. Setting it (the env does, per program) also refills ``work_left``, the
        recalculation work the program may still cause (:data:`MAX_PROGRAM_WORK`)."""
        return self._quota

    @quota.setter
    def quota(self, requests: int | None) -> None:
        self._quota = requests
        self.work_left: int | None = None if requests is None else MAX_PROGRAM_WORK

    # -- entry point ------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, dict]:
        refused = self.spend_request()
        if refused is not None:
            return refused
        # One request is one atomic call on the world; a failed one also drops the loaded grids.
        try:
            with self.world.atomic():
                check_json(body)
                result = self._route(method.upper(), path, query, body)
                if method.upper() != "GET" and self._spreadsheet is not None:
                    self.check_recalculation(self._spreadsheet)
                    self._spreadsheet.modified_time = next_modified_time(self.world, self._spreadsheet.modified_time)
                for sheet_id in self._dirty:
                    if sheet_id in self._grids:
                        self._save(self._grids[sheet_id])
            self._dirty.clear()
            return 200, result
        except ApiError as error:
            self.forget()
            return error.code, error.payload()
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
            self.forget()
            return 400, ApiError(f"Invalid request: {type(error).__name__}: {str(error)[:200]}").payload()
        except Exception:  # noqa: BLE001 - a fault of the simulation: Google's answer to its own faults
            self.forget()
            return 500, ApiError("Internal error encountered.", 500).payload()
        except BaseException:
            self.forget()
            raise

    def spend_request(self) -> tuple[int, dict] | None:
        """Count one request (Sheets or Drive) against the quota; past it, the 429 to answer."""
        self.requests += 1
        self._sheet_lists: dict[str, list[Sheet]] = {}
        if self._quota is not None:
            if self._quota <= 0:
                return 429, ApiError("Quota exceeded: this program has made too many requests to the simulated "
                                     "Sheets API.", 429).payload()
            self._quota -= 1
        return None

    def forget(self) -> None:
        """Drop the loaded grids (after a failed request, or when the world's database was replaced)."""
        self._grids, self._dirty, self._effective, self._sheet_lists = {}, set(), {}, {}
        self._calculations: dict[str, Recalculation] = {}

    _ROUTES = [
        ("GET", re.compile(r"^/v4/spreadsheets/([^/:]+)$"), "spreadsheets_get"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+):batchUpdate$"), "batch_update"),
        ("GET", re.compile(r"^/v4/spreadsheets/([^/:]+)/values:batchGet$"), "values_batch_get"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+)/values:batchUpdate$"), "values_batch_update"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+)/values:batchClear$"), "values_batch_clear"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+)/values/(.+):append$"), "values_append"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+)/values/(.+):clear$"), "values_clear"),
        ("GET", re.compile(r"^/v4/spreadsheets/([^/:]+)/values/(.+)$"), "values_get"),
        ("PUT", re.compile(r"^/v4/spreadsheets/([^/:]+)/values/(.+)$"), "values_update"),
        ("POST", re.compile(r"^/v4/spreadsheets/([^/:]+)/sheets/([^/:]+):copyTo$"), "sheet_copy_to"),
    ]

    def _route(self, method: str, path: str, query: dict, body: Any) -> dict:
        self._spreadsheet = None
        for verb, pattern, name in self._ROUTES:
            match = pattern.match(path)
            if match and verb == method:
                spreadsheet = self.world.session.get(Spreadsheet, unquote(match.group(1)))
                if spreadsheet is None:
                    raise ApiError("Requested entity was not found.", 404)
                self._spreadsheet = spreadsheet
                args = [unquote(g) for g in match.groups()[1:]]
                if body is not None and not isinstance(body, dict):
                    raise ApiError("Invalid JSON payload received. Expected an object.")
                return getattr(self, name)(spreadsheet, *args, query=query, body=body or {})
        raise ApiError(f"Method {method} {path} is not supported by the simulated Sheets API.", 404)

    # -- loading and saving ---------------------------------------------------------------------
    def sheets(self, spreadsheet: Spreadsheet) -> list[Sheet]:
        """The spreadsheet's sheets in order (queried once per request; adding, deleting or
        moving a sheet forgets the list)."""
        lists = getattr(self, "_sheet_lists", None)
        if lists is None:
            lists = self._sheet_lists = {}
        if spreadsheet.id not in lists:
            rows = self.world.session.scalars(select(Sheet).where(Sheet.spreadsheet_id == spreadsheet.id))
            lists[spreadsheet.id] = sorted(rows, key=lambda s: s.index)
        return list(lists[spreadsheet.id])

    def grid(self, sheet: Sheet) -> Grid:
        if sheet.sheet_id not in self._grids:
            rows = self.world.session.execute(select(Cell.row, Cell.col, Cell.value, Cell.format, Cell.pivot, Cell.extra)
                                              .where(Cell.sheet_id == sheet.sheet_id))
            self._grids[sheet.sheet_id] = Grid(sheet, {(r, c): [v, f, p, e] for r, c, v, f, p, e in rows})
        return self._grids[sheet.sheet_id]

    def touch(self, grid: Grid) -> Grid:
        """Mark a grid changed (saved at the end of the request; effective values recomputed)."""
        self._dirty.add(grid.sheet.sheet_id)
        self._effective.clear()
        return grid

    def _save(self, grid: Grid) -> None:
        session, sheet = self.world.session, grid.sheet
        session.execute(delete(Cell).where(Cell.sheet_id == sheet.sheet_id))
        rows = [{"sheet_id": sheet.sheet_id, "row": r, "col": c, "value": v, "format": f, "pivot": p, "extra": e}
                for (r, c), (v, f, p, e) in grid.cells.items()
                if r < sheet.row_count and c < sheet.column_count]
        if rows:
            session.execute(insert(Cell), rows)

    def sheet_by_title(self, spreadsheet: Spreadsheet, title: str | None) -> Sheet:
        sheets = self.sheets(spreadsheet)
        if title is None:
            return sheets[0]
        for sheet in sheets:
            if sheet.title == title:
                return sheet
        for sheet in sheets:
            if sheet.title.lower() == title.lower():
                return sheet
        raise ApiError(f"Unable to parse range: {quote_title(title)}")

    def sheet_by_id(self, spreadsheet: Spreadsheet, sheet_id: Any) -> Sheet:
        if sheet_id is not None:
            sheet_id = _integer(sheet_id, "sheetId")
        for sheet in self.sheets(spreadsheet):
            if sheet.sheet_id == (sheet_id or 0) or (sheet_id is None and sheet.index == 0):
                return sheet
        raise ApiError(f"No grid with id: {sheet_id}")

    def a1(self, spreadsheet: Spreadsheet, text: str, check_grid: bool = True) -> tuple[Sheet, tuple[int, int, int, int]]:
        """An A1 range -> its sheet and 0-based end-exclusive bounds (open ends clipped to the grid)."""
        if not isinstance(text, str) or not text.strip():
            raise ApiError("Unable to parse range: " + str(text)[:100])
        def by_title(title: str | None) -> Sheet:  # a missing sheet: Sheets quotes the whole range
            try:
                return self.sheet_by_title(spreadsheet, title)
            except ApiError:
                raise RangeError(text) from None

        try:
            title, cells = split_sheet(text)
            sheet = by_title(title) if title is not None or cells else None
            if sheet is None:
                raise RangeError(text)
            try:
                bounds = parse_bounds(cells)
            except RangeError:
                named = next((n for n in spreadsheet.named_ranges if n["name"].lower() == cells.lower()), None)
                if named is not None:  # a named range's name stands for its range (after a sheet's name too)
                    return self.grid_range(spreadsheet, named["range"])
                if title is None:  # 'Sheet1' alone is a sheet's name
                    sheet, bounds = by_title(cells), None
                else:
                    raise
        except RangeError:
            raise ApiError(f"Unable to parse range: {text[:200]}") from None
        rect = (bounds or Bounds(None, None, None, None)).clip(sheet.row_count, sheet.column_count)
        if check_grid and (rect[1] > sheet.row_count or rect[3] > sheet.column_count):
            raise ApiError(f"Range ({quote_title(sheet.title)}!{cells}) exceeds grid limits. Max rows: "
                           f"{sheet.row_count}, max columns: {sheet.column_count}")
        return sheet, rect

    def grid_range(self, spreadsheet: Spreadsheet, value: Any) -> tuple[Sheet, tuple[int, int, int, int]]:
        """A GridRange dict -> its sheet and bounds (missing indexes: the grid's edge)."""
        if not isinstance(value, dict):
            raise ApiError("Invalid GridRange: expected an object")
        sheet = self.sheet_by_id(spreadsheet, value.get("sheetId", 0))
        rect = (_integer(value.get("startRowIndex", 0), "startRowIndex"),
                _integer(value.get("endRowIndex", sheet.row_count), "endRowIndex"),
                _integer(value.get("startColumnIndex", 0), "startColumnIndex"),
                _integer(value.get("endColumnIndex", sheet.column_count), "endColumnIndex"))
        if rect[0] < 0 or rect[2] < 0 or rect[1] < rect[0] or rect[3] < rect[2]:
            raise ApiError(f"Invalid GridRange: {value}")
        if rect[1] > sheet.row_count or rect[3] > sheet.column_count:
            raise ApiError(f"Range ({rect}) exceeds grid limits. Max rows: {sheet.row_count}, max columns: "
                           f"{sheet.column_count}")
        return sheet, rect

    def check_size(self, spreadsheet: Spreadsheet, extra: int = 0) -> None:
        total = sum(s.row_count * s.column_count for s in self.sheets(spreadsheet)) + extra
        if total > MAX_CELLS:
            raise ApiError(f"This action would increase the number of cells in the workbook above the limit of "
                           f"{MAX_CELLS} cells (simulated service).")

    # -- effective values ---------------------------------------------------------------------
    def effective(self, sheet: Sheet) -> dict[tuple[int, int], Any]:
        """(row, col) -> effective value (float, str, bool, FormulaError) of every non-empty cell.

        The whole spreadsheet is recalculated at once (formulas may read other sheets); its
        work is priced first and charged to the program's allowance (429 when spent)."""
        if sheet.sheet_id not in self._effective:
            spreadsheet = self.world.session.get(Spreadsheet, sheet.spreadsheet_id)
            cells = self._sheet_cells(spreadsheet)
            calculation = Recalculation(cells, self._calculations.get(spreadsheet.id))
            work = calculation.work + self._pivot_work(spreadsheet)
            if self.work_left is not None:
                if work > self.work_left:
                    raise ApiError("Quota exceeded: this program's formulas need more recalculation than the "
                                   "simulated Sheets API allows one program.", 429)
                self.work_left -= work
            calculation.run()
            self._calculations[spreadsheet.id] = calculation
            for sheet_id, sheet_cells in cells.items():
                self._effective[sheet_id] = dict(sheet_cells.values)
            self._add_pivots(spreadsheet)
        return self._effective[sheet.sheet_id]

    def _sheet_cells(self, spreadsheet: Spreadsheet) -> dict[int, SheetCells]:
        """Every sheet's plain values and formulas, as :func:`recalculate` takes them."""
        cells = {}
        for sheet in self.sheets(spreadsheet):
            grid = self.grid(sheet)
            values, formulas = {}, {}
            for key, (user, *_) in grid.cells.items():
                if user is None or key[0] >= sheet.row_count or key[1] >= sheet.column_count:
                    continue
                if key in grid.formulas:
                    formulas[key] = user["formulaValue"]
                else:
                    values[key] = _user_value(user)
            cells[sheet.sheet_id] = SheetCells(sheet.title, sheet.row_count, sheet.column_count, values, formulas)
        return cells

    def check_recalculation(self, spreadsheet: Spreadsheet) -> None:
        """Refuse a change after which the spreadsheet's recalculation would exceed its budget.

        Priced from the formulas alone (and a unit per cell): a write does not read every value."""
        formulas, cells = {}, 0
        for sheet in self.sheets(spreadsheet):
            grid = self.grid(sheet)
            cells += len(grid.cells)
            formulas[sheet.sheet_id] = SheetCells(sheet.title, sheet.row_count, sheet.column_count, {}, {
                key: grid.cells[key][0]["formulaValue"] for key in grid.formulas
                if key[0] < sheet.row_count and key[1] < sheet.column_count})
        pivots = self._pivot_work(spreadsheet)
        if not pivots and not any(sheet.formulas for sheet in formulas.values()) and cells <= MAX_CELLS:
            return  # plain values alone never exceed the budget (a spreadsheet holds at most MAX_CELLS)
        work = recalculation_work(formulas) + VALUE_WORK * cells + pivots
        if work > MAX_RECALCULATION_WORK:
            raise ApiError(f"The spreadsheet's formulas would need {work:,} units of recalculation work; the "
                           f"simulated Sheets API computes at most {MAX_RECALCULATION_WORK:,} per spreadsheet. "
                           f"Use fewer, shorter or smaller-ranged formulas.")

    def _pivots(self, spreadsheet: Spreadsheet):
        for sheet in self.sheets(spreadsheet):
            for (row, col), cell in sorted((key, cell) for key, cell in self.grid(sheet).cells.items() if cell[2]):
                yield sheet, row, col, cell[2]

    def _pivot_work(self, spreadsheet: Spreadsheet) -> int:
        work = 0
        for _, _, _, pivot in self._pivots(spreadsheet):
            try:
                _, (r1, r2, c1, c2) = self.grid_range(spreadsheet, pivot.get("source", {}))
            except ApiError:
                continue
            work += (r2 - r1) * (c2 - c1) * (1 + len(pivot.get("values", [])))
        return work

    def _add_pivots(self, spreadsheet: Spreadsheet) -> None:
        for sheet, row, col, pivot in list(self._pivots(spreadsheet)):
            values = self._effective[sheet.sheet_id]
            for (r, c), v in self.pivot_output(spreadsheet, pivot).items():
                if row + r < sheet.row_count and col + c < sheet.column_count:
                    values[(row + r, col + c)] = v
            for key in [k for k, v in values.items() if v is None]:
                del values[key]

    def pivot_output(self, spreadsheet: Spreadsheet, pivot: dict) -> dict[tuple[int, int], Any]:
        """The cells a pivot table shows, relative to its anchor (see ``pivot_table``); a
        source that no longer fits (columns deleted since) shows ``#REF!``."""
        try:
            source_sheet, (r1, r2, c1, c2) = self.grid_range(spreadsheet, pivot.get("source", {}))
            source = self._effective[source_sheet.sheet_id]
            table = [[source.get((r, c)) for c in range(c1, c2)] for r in range(r1, r2)]
            return pivot_table(table, pivot)
        except Exception:  # noqa: BLE001 - a definition that no longer fits its source must not stop reads
            return {(0, 0): FormulaError("#REF!", "The pivot table's source range is not valid.")}

    # -- values.* --------------------------------------------------------------------------------
    def render(self, sheet: Sheet, row: int, col: int, option: str, dates: str = "SERIAL_NUMBER") -> Any:
        """One cell's value as values.get answers it (None: empty); ``dates`` is the
        dateTimeRenderOption of unformatted values (a date cell's text with FORMATTED_STRING)."""
        grid, values = self.grid(sheet), self.effective(sheet)
        user = grid.get(row, col)[0]
        if option == "FORMULA" and user is not None and "formulaValue" in user:
            return user["formulaValue"]
        value = values.get((row, col))
        if value is None:
            return None
        if isinstance(value, FormulaError):
            return str(value)
        if option in ("UNFORMATTED_VALUE", "FORMULA"):
            number_format = (grid.get(row, col)[1] or {}).get("numberFormat") or {}
            if dates == "FORMATTED_STRING" and isinstance(value, float) and number_format.get("type") in DATE_KINDS:
                return formatted(value, grid.get(row, col)[1])
            return _number_json(value) if isinstance(value, float) else value
        return formatted(value, grid.get(row, col)[1])

    def value_range(self, sheet: Sheet, rect: tuple[int, int, int, int], option: str, major: str,
                    dates: str = "SERIAL_NUMBER") -> dict:
        r1, r2, c1, c2 = rect
        by_row: dict[int, dict[int, Any]] = {}
        for (r, c) in self.effective(sheet):  # only the cells that hold something
            if r1 <= r < r2 and c1 <= c < c2:
                by_row.setdefault(r, {})[c] = self.render(sheet, r, c, option, dates)
        rows = []
        for r in range(r1, max(by_row, default=r1 - 1) + 1):
            cells = by_row.get(r, {})
            rows.append([cells.get(c, "") for c in range(c1, max(cells, default=c1 - 1) + 1)])
        if major == "COLUMNS":
            width = max((len(r) for r in rows), default=0)
            rows = [[row[c] if c < len(row) else "" for row in rows] for c in range(width)]
            for column in rows:
                while column and column[-1] == "":
                    column.pop()
        label = f"{quote_title(sheet.title)}!{bounds_label(*rect)}" if r2 > r1 and c2 > c1 else quote_title(sheet.title)
        result = {"range": label, "majorDimension": major}
        if rows:
            result["values"] = rows
        return result

    def values_get(self, spreadsheet, range_: str, query: dict, body: dict) -> dict:
        sheet, rect = self.a1(spreadsheet, range_)
        return self.value_range(sheet, rect, _param(query, "valueRenderOption", "FORMATTED_VALUE"),
                                _param(query, "majorDimension", "ROWS"), _param(query, "dateTimeRenderOption",
                                                                                "SERIAL_NUMBER"))

    def values_batch_get(self, spreadsheet, query: dict, body: dict) -> dict:
        ranges = query.get("ranges", [])
        option, major = _param(query, "valueRenderOption", "FORMATTED_VALUE"), _param(query, "majorDimension", "ROWS")
        value_ranges = []
        for text in ranges:
            sheet, rect = self.a1(spreadsheet, text)
            value_ranges.append(self.value_range(sheet, rect, option, major,
                                                 _param(query, "dateTimeRenderOption", "SERIAL_NUMBER")))
        return {"spreadsheetId": spreadsheet.id, "valueRanges": value_ranges}

    def write_values(self, spreadsheet, range_: str, values: Any, input_option: str, major: str = "ROWS",
                     start: tuple[Sheet, int, int] | None = None) -> dict:
        if input_option not in ("RAW", "USER_ENTERED"):
            raise ApiError("Invalid valueInputOption: must be RAW or USER_ENTERED")
        if not isinstance(values, list) or not all(isinstance(row, list) for row in values):
            raise ApiError("Invalid values: expected a list of lists")
        if major == "COLUMNS":
            width = max((len(r) for r in values), default=0)
            values = [[col[i] if i < len(col) else None for col in values] for i in range(width)]
        if start is None:
            sheet, (r1, r2, c1, c2) = self.a1(spreadsheet, range_, check_grid=False)
        else:
            sheet, r1, c1 = start
            r2, c2 = r1 + len(values), c1 + max((len(r) for r in values), default=0)
        height, width = len(values), max((len(r) for r in values), default=0)
        if ":" in range_.rpartition("!")[2] and start is None:
            if height > max(r2 - r1, 1):
                raise ApiError(f"Requested writing within range [{range_}], but tried writing to row [{r1 + height}]")
            if width > max(c2 - c1, 1):
                raise ApiError(f"Requested writing within range [{range_}], but tried writing to column "
                               f"[{col_letters(c1 + width - 1)}]")
        if r1 + height > sheet.row_count or c1 + width > sheet.column_count:
            raise ApiError(f"Range ({quote_title(sheet.title)}!{bounds_label(r1, r1 + max(height, 1), c1, c1 + max(width, 1))}) "
                           f"exceeds grid limits. Max rows: {sheet.row_count}, max columns: {sheet.column_count}")
        parse = parse_raw if input_option == "RAW" else parse_user_entered
        grid = self.touch(self.grid(sheet))
        updated = 0
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, (dict, list)):
                    raise ApiError(f"Invalid values[{i}][{j}]: {str(value)[:80]}")
                if isinstance(value, float) and not math.isfinite(value):
                    raise ApiError(f"Invalid values[{i}][{j}]: {value}")
                if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
                    raise ApiError(f"Your input contains more than the maximum of {MAX_CELL_CHARS} characters "
                                   f"in a single cell.")
                user = check_user_value(parse(value), f"values[{i}][{j}]")
                typed = entered_format(value) if input_option == "USER_ENTERED" and isinstance(value, str) else None
                fmt = grid.get(r1 + i, c1 + j)[1]
                if typed is not None and not (fmt or {}).get("numberFormat"):  # '1/2/1999', '$5', '1,000', '5%'
                    grid.put(r1 + i, c1 + j, fmt={**(fmt or {}), "numberFormat": typed})
                rule = (grid.get(r1 + i, c1 + j)[3] or {}).get("dataValidation")
                if rule and user and "formulaValue" not in user and violates(rule, _user_value(user)):
                    raise ApiError(f"Invalid value at {cell_label(r1 + i, c1 + j)}: {_show(value)} violates the "
                                   f"cell's data validation rule.")
                grid.put(r1 + i, c1 + j, value=user)
                updated += 1
        label = f"{quote_title(sheet.title)}!{bounds_label(r1, r1 + max(height, 1), c1, c1 + max(width, 1))}"
        return {"spreadsheetId": spreadsheet.id, "updatedRange": label, "updatedRows": height,
                "updatedColumns": width, "updatedCells": updated}

    def values_update(self, spreadsheet, range_: str, query: dict, body: dict) -> dict:
        result = self.write_values(spreadsheet, range_, body.get("values", []), _param(query, "valueInputOption", ""),
                                   body.get("majorDimension", "ROWS"))
        return self._with_values(spreadsheet, result, query)

    def _with_values(self, spreadsheet, result: dict, query: dict) -> dict:
        if _param(query, "includeValuesInResponse", "false").lower() == "true":
            self._effective.clear()
            sheet, rect = self.a1(spreadsheet, result["updatedRange"])
            result["updatedData"] = self.value_range(sheet, rect, _param(query, "responseValueRenderOption",
                                                                            "FORMATTED_VALUE"), "ROWS")
        return result

    def values_batch_update(self, spreadsheet, query: dict, body: dict) -> dict:
        option = body.get("valueInputOption", "")
        responses = [self.write_values(spreadsheet, item["range"], item.get("values", []), option,
                                       item.get("majorDimension", "ROWS")) for item in body.get("data", [])]
        return {"spreadsheetId": spreadsheet.id, "totalUpdatedCells": sum(r["updatedCells"] for r in responses),
                "totalUpdatedRows": sum(r["updatedRows"] for r in responses),
                "totalUpdatedColumns": sum(r["updatedColumns"] for r in responses),
                "totalUpdatedSheets": len({r["updatedRange"].rpartition("!")[0] for r in responses}),
                "responses": responses}

    def values_append(self, spreadsheet, range_: str, query: dict, body: dict) -> dict:
        sheet, (r1, r2, c1, c2) = self.a1(spreadsheet, range_)
        values = body.get("values", [])
        if not isinstance(values, list) or not all(isinstance(row, list) for row in values):
            raise ApiError("Invalid values: expected a list of lists")
        grid = self.grid(sheet)
        # The "table" is searched within the range: it starts at the range's first row and runs over
        # the following rows that hold a value in the range's columns (gspread's insert_row appends
        # at 'A5' of a blank row just inserted, insert_cols at 'A1' of a blank column).
        used = {r for (r, c), cell in grid.cells.items() if cell[0] is not None and c1 <= c < c2}
        last = r1 - 1
        while last + 1 in used:
            last += 1
        target = last + 1
        height = len(values)
        width = max((len(r) for r in values), default=0)
        if c1 + width > sheet.column_count:
            raise ApiError(f"Range exceeds grid limits. Max columns: {sheet.column_count}")
        if _param(query, "insertDataOption", "OVERWRITE") == "INSERT_ROWS":
            self.check_size(spreadsheet, height * sheet.column_count)
            self.touch(grid).shift("ROWS", target, height)
            sheet.row_count += height
        elif target + height > sheet.row_count:
            self.check_size(spreadsheet, (target + height - sheet.row_count) * sheet.column_count)
            sheet.row_count = target + height
        table = f"{quote_title(sheet.title)}!{bounds_label(r1, max(last + 1, r1 + 1), c1, max(c2, c1 + 1))}"
        updates = self.write_values(spreadsheet, range_, values, _param(query, "valueInputOption", ""),
                                    body.get("majorDimension", "ROWS"), start=(sheet, target, c1))
        result = {"spreadsheetId": spreadsheet.id, "updates": updates}
        if last >= r1:  # the API names the table it appended to, when there was one
            result["tableRange"] = table
        return result

    def clear_range(self, spreadsheet, range_: str) -> str:
        sheet, (r1, r2, c1, c2) = self.a1(spreadsheet, range_)
        grid = self.touch(self.grid(sheet))
        for (r, c) in list(grid.cells):
            if r1 <= r < r2 and c1 <= c < c2:
                grid.put(r, c, value=None)
        return f"{quote_title(sheet.title)}!{bounds_label(r1, r2, c1, c2)}"

    def values_clear(self, spreadsheet, range_: str, query: dict, body: dict) -> dict:
        return {"spreadsheetId": spreadsheet.id, "clearedRange": self.clear_range(spreadsheet, range_)}

    def values_batch_clear(self, spreadsheet, query: dict, body: dict) -> dict:
        return {"spreadsheetId": spreadsheet.id,
                "clearedRanges": [self.clear_range(spreadsheet, r) for r in body.get("ranges", [])]}

    # -- spreadsheets.get -----------------------------------------------------------------------
    def sheet_properties(self, sheet: Sheet) -> dict:
        grid = {"rowCount": sheet.row_count, "columnCount": sheet.column_count}
        if sheet.frozen_rows:
            grid["frozenRowCount"] = sheet.frozen_rows
        if sheet.frozen_columns:
            grid["frozenColumnCount"] = sheet.frozen_columns
        if sheet.hide_gridlines:
            grid["hideGridlines"] = True
        properties = {"sheetId": sheet.sheet_id, "title": sheet.title, "index": sheet.index, "sheetType": "GRID",
                      "gridProperties": grid}
        if sheet.hidden:
            properties["hidden"] = True
        if sheet.tab_color:
            properties["tabColor"] = copy.deepcopy(sheet.tab_color.get("rgbColor", {}))
            properties["tabColorStyle"] = copy.deepcopy(sheet.tab_color)
        return properties

    def sheet_resource(self, sheet: Sheet, rects: list[tuple[int, int, int, int]] | None) -> dict:
        resource: dict = {"properties": self.sheet_properties(sheet)}
        if sheet.merges:
            resource["merges"] = [grid_range_json({"sheetId": sheet.sheet_id, **m}) for m in sheet.merges]
        if sheet.basic_filter:
            resource["basicFilter"] = _with_sheet(sheet.basic_filter, sheet.sheet_id)
        if sheet.protected_ranges:
            resource["protectedRanges"] = [_with_sheet(p, sheet.sheet_id) for p in sheet.protected_ranges]
        for kind, dimension in (("rowGroups", "ROWS"), ("columnGroups", "COLUMNS")):
            groups = [{"range": {"sheetId": sheet.sheet_id, "dimension": dimension, "startIndex": g["startIndex"],
                                 "endIndex": g["endIndex"]}, "depth": g["depth"], **({"collapsed": True}
                                                                                    if g.get("collapsed") else {})}
                      for g in sheet.groups if g["dimension"] == dimension]
            if groups:
                resource[kind] = groups
        if rects is not None:
            resource["data"] = [self.grid_data(sheet, rect) for rect in rects]
        return resource

    def dimension_metadata(self, sheet: Sheet, dimension: str, start: int, end: int) -> list[dict]:
        """rowMetadata / columnMetadata: each row 21 pixels and each column 100 unless set."""
        default = 21 if dimension == "ROWS" else 100
        changed = (sheet.dimensions or {}).get(dimension, {})
        return [{"pixelSize": changed.get(str(i), {}).get("pixelSize", default),
                 **({"hiddenByUser": True} if changed.get(str(i), {}).get("hiddenByUser") else {})}
                for i in range(start, end)]

    def cell_data(self, sheet: Sheet, row: int, col: int) -> dict:
        grid, values = self.grid(sheet), self.effective(sheet)
        user, fmt, pivot, extra = grid.get(row, col)
        data: dict = {}
        if user is not None:
            data["userEnteredValue"] = user
        value = values.get((row, col))
        if value is not None:
            data["effectiveValue"] = _effective_value(value)
            data["formattedValue"] = str(value) if isinstance(value, FormulaError) else formatted(value, fmt)
        if fmt:
            data["userEnteredFormat"] = copy.deepcopy(fmt)
        data["effectiveFormat"] = effective_format(fmt)
        if pivot:
            data["pivotTable"] = _with_sheet(pivot, None)
        data.update(copy.deepcopy(extra or {}))
        return data

    def grid_data(self, sheet: Sheet, rect: tuple[int, int, int, int]) -> dict:
        r1, r2, c1, c2 = rect
        used = [k for k in self.grid(sheet).cells] + list(self.effective(sheet))
        last_row = min(r2, max((r + 1 for r, c in used if c1 <= c < c2), default=r1))
        last_col = min(c2, max((c + 1 for r, c in used if r1 <= r < r2), default=c1))
        if last_row - r1 == 0:  # an empty range still answers its format (gspread-formatting reads it)
            last_row, last_col = min(r1 + 1, r2), min(c1 + 1, c2)
        if (last_row - r1) * (last_col - c1) > MAX_CELLS:
            raise ApiError("The requested grid data is too large.")
        rows = [{"values": [self.cell_data(sheet, r, c) for c in range(c1, max(last_col, c1 + 1))]}
                for r in range(r1, last_row)]
        return {"startRow": r1, "startColumn": c1, "rowData": rows,
                "rowMetadata": self.dimension_metadata(sheet, "ROWS", r1, r2),
                "columnMetadata": self.dimension_metadata(sheet, "COLUMNS", c1, c2)}

    def spreadsheets_get(self, spreadsheet, query: dict, body: dict) -> dict:
        fields = _param(query, "fields", "")
        paths = parse_fields(fields) if fields else []
        # A mask naming sheets.data asks for the grid data, as includeGridData does.
        include = _param(query, "includeGridData", "false").lower() == "true" or any(
            path[:2] in (["sheets", "data"], ["sheets", "*"], ["*"]) for path in paths)
        wanted: dict[int, list] = {}
        for text in query.get("ranges", []):
            sheet, rect = self.a1(spreadsheet, text)
            wanted.setdefault(sheet.sheet_id, []).append(rect)
        sheets = []
        for sheet in self.sheets(spreadsheet):
            if wanted and sheet.sheet_id not in wanted:
                continue
            rects = None
            if include:
                rects = wanted.get(sheet.sheet_id) or [(0, sheet.row_count, 0, sheet.column_count)]
            sheets.append(self.sheet_resource(sheet, rects))
        result = {"spreadsheetId": spreadsheet.id,
                  "properties": {"title": spreadsheet.title, "locale": spreadsheet.locale, "autoRecalc": "ON_CHANGE",
                                 "timeZone": spreadsheet.time_zone, "defaultFormat": copy.deepcopy(DEFAULT_FORMAT),
                                 "spreadsheetTheme": copy.deepcopy(SPREADSHEET_THEME)},
                  "sheets": sheets,
                  "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{spreadsheet.id}/edit"}
        if spreadsheet.named_ranges:
            result["namedRanges"] = [{**n, "range": grid_range_json(n["range"])} for n in spreadsheet.named_ranges]
        return _trim_grid_data(filter_fields(result, paths)) if paths else result

    # -- spreadsheets.batchUpdate ------------------------------------------------------------------
    def batch_update(self, spreadsheet, query: dict, body: dict) -> dict:
        requests = body.get("requests", [])
        if not isinstance(requests, list):
            raise ApiError("Invalid requests: expected a list")
        replies = []
        for index, request in enumerate(requests):
            if not isinstance(request, dict) or len(request) != 1:
                raise ApiError(f"Invalid requests[{index}]: a request has exactly one kind")
            (kind, spec), = request.items()
            handler = getattr(self, f"req_{kind}", None) if kind.isidentifier() else None
            if handler is None:
                raise ApiError(f"Invalid requests[{index}]: unknown or unsupported request type {kind!r}")
            if not isinstance(spec, dict):
                raise ApiError(f"Invalid requests[{index}].{kind}: expected an object")
            try:
                replies.append(handler(spreadsheet, spec) or {})
            except ApiError as error:
                raise ApiError(f"Invalid requests[{index}].{kind}: {error}", error.code) from None
        result = {"spreadsheetId": spreadsheet.id, "replies": replies}
        if body.get("includeSpreadsheetInResponse"):
            result["updatedSpreadsheet"] = self.spreadsheets_get(spreadsheet, {}, {})
        return result

    def sheet_copy_to(self, spreadsheet, sheet_id: str, query: dict, body: dict) -> dict:
        """sheets.copyTo: the sheet, as "Copy of <title>", at the end of another spreadsheet."""
        source = self.sheet_by_id(spreadsheet, sheet_id)
        target = self.world.session.get(Spreadsheet, str(body.get("destinationSpreadsheetId", "")))
        if target is None:
            raise ApiError("Requested entity was not found.", 404)
        title, number = f"Copy of {source.title}", 2
        while any(s.title.lower() == title.lower() for s in self.sheets(target)):
            title, number = f"Copy {number} of {source.title}", number + 1
        properties = self.copy_sheet(source, target, title, None, None)
        self.check_recalculation(target)  # the copied formulas within the target's budget
        return properties
