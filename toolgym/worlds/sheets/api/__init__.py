"""A simulated Google Sheets API v4 over the world's database.

:class:`SheetsService` answers the REST calls that gspread 6, gspread-dataframe and
gspread-formatting make for the task's operations::

    GET  /v4/spreadsheets/{id}                      spreadsheets.get (includeGridData, ranges, fields)
    POST /v4/spreadsheets/{id}:batchUpdate          spreadsheets.batchUpdate (request types below)
    GET  /v4/spreadsheets/{id}/values/{range}       values.get
    PUT  /v4/spreadsheets/{id}/values/{range}       values.update
    POST /v4/spreadsheets/{id}/values/{range}:append  values.append
    POST /v4/spreadsheets/{id}/values/{range}:clear   values.clear
    GET  /v4/spreadsheets/{id}/values:batchGet      values.batchGet
    POST /v4/spreadsheets/{id}/values:batchUpdate   values.batchUpdate
    POST /v4/spreadsheets/{id}/values:batchClear    values.batchClear
    POST /v4/spreadsheets/{id}/sheets/{sheetId}:copyTo  sheets.copyTo

batchUpdate request types: updateCells, repeatCell, insertDimension, deleteDimension,
appendDimension, updateSheetProperties (title, index, grid size, frozen rows and columns,
hidden, tab color, gridlines), sortRange, mergeCells, unmergeCells, setBasicFilter,
clearBasicFilter, addSheet, deleteSheet, duplicateSheet, updateSpreadsheetProperties (title,
time zone, locale), addNamedRange, deleteNamedRange, addProtectedRange, deleteProtectedRange,
updateDimensionProperties (hidden, pixel size), autoResizeDimensions, addDimensionGroup,
deleteDimensionGroup, setDataValidation, copyPaste, cutPaste (pivot tables are
``pivotTable`` cells written with updateCells, as the API does; notes and data validation
rules are cell fields too). Named ranges stand for their range in A1 requests; strict data
validation rules refuse the values they do not allow. A request the service does
not know, or a malformed one, is answered with the API's error shape
(``{"error": {"code": 400, "message": ..., "status": "INVALID_ARGUMENT"}}``) and the whole
batch is rolled back, as in Sheets; so is a body the API's JSON cannot hold (nesting past
:data:`MAX_JSON_DEPTH`, a number that is no finite double, an int32 field out of range, a
``userEnteredValue`` or ``userEnteredFormat`` not of its message's types). A fault of the
simulation itself is a 500 ``INTERNAL`` in the same shape, also rolled back: no request
raises, and none leaves a sheet unreadable.

Formulas (:mod:`~toolgym.worlds.sheets.formula`) are recalculated on read, only where a value
they read changed, with Sheets' error values (``#REF!``, ``#DIV/0!``, ``#NAME?``, ``#VALUE!``,
``#ERROR!``). Their work is priced before it is done: a change after which the spreadsheet's
recalculation would exceed :data:`MAX_RECALCULATION_WORK` is refused (400), and a program's
reads may cause at most :data:`MAX_PROGRAM_WORK` in all (then 429, as a quota). A formula
holds at most ``formula.MAX_FORMULA_CHARS`` characters.

Dates are serial numbers (days since 30 December 1899): a typed ``2020-01-01``, ``1/2/1999``
or ``2020-01-01 13:45`` becomes one and gives its cell a DATE / DATE_TIME number format, which
renders it (``dateTimeRenderOption`` FORMATTED_STRING too); a number typed with a currency
sign, thousands separators or a percent sign gives its cell the CURRENCY / NUMBER / PERCENT
format it was typed in (a cell's own number format stays). A GridRange of sheet 0 leaves its
sheetId out, as the API's JSON leaves out every zero.

Simplifications (documented, deliberate): dates are read in the en_US forms above only, and a
formula over dates is not given a date format (Sheets infers one); number formats of the
NUMBER / CURRENCY / PERCENT kinds with ``0``, ``0.00``, ``#,##0``, ``%`` and a currency prefix,
and of the DATE / TIME / DATE_TIME kinds (``yyyy``, ``mm``, ``mmm``, ``d``, ``dddd``, ``h``,
``mm`` as minutes, ``ss``, ``am/pm``); merges keep the top-left value and clear the rest (as Sheets does); values.append
appends after the last non-empty row of the range's columns; a spreadsheet holds at most
:data:`MAX_CELLS` cells (Sheets: ten million); sheet ids are unique in the whole world, so a
copied spreadsheet's sheets take new ids (Sheets keeps them); autoResizeDimensions estimates
7 pixels a character; copyPaste pastes with NORMAL orientation only; strict validation checks
lists, booleans and number conditions (other conditions are kept, not enforced); named
ranges are not names inside formulas (``#NAME?``).

The package by job: :mod:`.service` routes a request and answers the values endpoints and
spreadsheets.get, :mod:`.requests` holds each batchUpdate request type, :mod:`.values` what a
cell holds and shows, :mod:`.fields` the field masks, :mod:`.formulas` the references that move,
:mod:`.pivots` the pivot tables, :mod:`.grid` one sheet's cells, :mod:`.common` the limits and
:class:`ApiError`.
"""

from __future__ import annotations

from toolgym.worlds.sheets.api.common import MAX_CELLS, MAX_PROGRAM_WORK, MAX_RECALCULATION_WORK, OWNER_EMAIL, ApiError
from toolgym.worlds.sheets.api.fields import filter_fields, parse_fields
from toolgym.worlds.sheets.api.pivots import pivot_table
from toolgym.worlds.sheets.api.service import SheetsService
from toolgym.worlds.sheets.api.values import (check_user_value, effective_format, format_number, parse_raw,
                                              parse_user_entered)

__all__ = ["MAX_CELLS", "MAX_PROGRAM_WORK", "MAX_RECALCULATION_WORK", "OWNER_EMAIL", "ApiError", "SheetsService",
           "check_user_value", "effective_format", "filter_fields", "format_number", "parse_fields", "parse_raw",
           "parse_user_entered", "pivot_table"]
