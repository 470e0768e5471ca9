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
"""

from __future__ import annotations

import copy
import math
import re
from datetime import datetime, timedelta
from typing import Any
from collections.abc import Callable
from urllib.parse import unquote

from sqlalchemy import delete, insert, select

from toolgym.worlds.sheets.a1 import (Bounds, RangeError, bounds_label, cell_label, col_letters, parse_bounds, quote_title,
                                      split_sheet)
from toolgym.worlds.sheets.formula import (MAX_FORMULA_CHARS, VALUE_WORK, FormulaError, Recalculation, SheetCells,
                                           recalculation_work)
from toolgym.worlds.sheets.models import Cell, Sheet, Spreadsheet

#: Cells a simulated spreadsheet may hold in all its sheets.
MAX_CELLS = 200_000
#: Characters of one cell's text (Sheets' own limit).
MAX_CELL_CHARS = 50_000
#: Recalculation work (``formula.recalculation_work`` units, about a microsecond each) a
#: spreadsheet may need: a change after which it would need more is refused (400).
MAX_RECALCULATION_WORK = 400_000
#: Recalculation work one program may cause in all (its reads after its writes); then 429.
MAX_PROGRAM_WORK = 500_000
#: Nesting of a request body's JSON (Google's own parser stops at 100).
MAX_JSON_DEPTH = 100

DEFAULT_FORMAT: dict = {
    "backgroundColor": {"red": 1, "green": 1, "blue": 1},
    "padding": {"top": 2, "right": 3, "bottom": 2, "left": 3},
    "verticalAlignment": "BOTTOM",
    "wrapStrategy": "OVERFLOW_CELL",
    "textFormat": {"foregroundColor": {}, "fontFamily": "arial,sans,sans-serif", "fontSize": 10, "bold": False,
                   "italic": False, "strikethrough": False, "underline": False,
                   "foregroundColorStyle": {"rgbColor": {}}},
    "backgroundColorStyle": {"rgbColor": {"red": 1, "green": 1, "blue": 1}},
}

#: The theme of a new spreadsheet (Sheets' default: Arial, its six accents, text, background, link).
SPREADSHEET_THEME: dict = {"primaryFontFamily": "Arial", "themeColors": [
    {"colorType": kind, "color": {"rgbColor": rgb}} for kind, rgb in (
        ("TEXT", {}), ("BACKGROUND", {"red": 1, "green": 1, "blue": 1}),
        ("ACCENT1", {"red": 0.25882354, "green": 0.52156866, "blue": 0.95686275}),
        ("ACCENT2", {"red": 0.91764706, "green": 0.2627451, "blue": 0.20784314}),
        ("ACCENT3", {"red": 0.9843137, "green": 0.7372549, "blue": 0.015686275}),
        ("ACCENT4", {"red": 0.20392157, "green": 0.65882355, "blue": 0.3254902}),
        ("ACCENT5", {"red": 1, "green": 0.42745098, "blue": 0.003921569}),
        ("ACCENT6", {"red": 0.27450982, "green": 0.7411765, "blue": 0.7764706}),
        ("LINK", {"red": 0.06666667, "green": 0.33333334, "blue": 0.8}))]}
OWNER_EMAIL = "agent@toolgym.iam.gserviceaccount.com"  # the account of the world's programs (drive.OWNER)
#: The CellData fields the service stores (updateCells / repeatCell masks may name these only).
CELL_DATA_FIELDS = ("userEnteredValue", "userEnteredFormat", "pivotTable", "note", "dataValidation", "*")


class ApiError(Exception):
    """An error the API answers with ``{"error": {...}}``."""

    STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 413: "INVALID_ARGUMENT",
              429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}

    def __init__(self, message: str, code: int = 400):
        super().__init__(message)
        self.code = code

    def payload(self) -> dict:
        return {"error": {"code": self.code, "message": str(self), "status": self.STATUS.get(self.code, "UNKNOWN")}}


def next_modified_time(world, previous: str) -> str:
    """A file's modifiedTime after a change: the world's clock, or a millisecond after the last
    change when the clock has not moved since (Drive's times only ever grow)."""
    from datetime import datetime, timedelta

    now = world.clock.now()
    try:
        last = datetime.strptime(previous, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        last = None
    if last is not None and now <= last:
        now = last + timedelta(milliseconds=1)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def check_json(body: Any) -> None:
    """Refuse a body the API's JSON cannot hold: nesting past :data:`MAX_JSON_DEPTH`, a number
    that is no finite double (``1e400``, ``10**400``, NaN, Infinity)."""
    pending = [(body, 0)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            raise ApiError("Invalid JSON payload received. Nesting too deep.")
        if isinstance(value, dict):
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                finite = math.isfinite(float(value))
            except OverflowError:
                finite = False
            if not finite:
                raise ApiError(f"Invalid JSON payload received. Number out of range: {_show(value)}")


def _show(value: Any) -> str:
    """A value in an error message, cut short (a 400-digit number is shown by its start)."""
    if isinstance(value, int) and abs(value) >= 10 ** 30:
        return f"a number of {int(value.bit_length() * 0.30103) + 1} digits"
    return repr(value)[:100]


def _integer(value: Any, name: str) -> int:
    """An int32 field of a request (the API's JSON takes a number or a numeric string)."""
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and re.fullmatch(r"-?\d{1,12}", value.strip()):
        number = int(value)
    if number is None or not -2 ** 31 <= number < 2 ** 31:
        raise ApiError(f"Invalid value at '{name}' (TYPE_INT32), {_show(value)}")
    return number


# -- values ---------------------------------------------------------------------------------------
_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][+-]?\d+)?$")


def parse_user_entered(value: Any) -> dict | None:
    """What a value sent with valueInputOption=USER_ENTERED becomes (None: the cell is emptied)."""
    raw = parse_raw(value)
    if raw is None or "stringValue" not in raw:
        return raw
    text = raw["stringValue"]  # text is read as a person typing it would be
    if text.startswith("'"):
        return {"stringValue": text[1:]}
    if text.startswith("=") and len(text) > 1:
        return {"formulaValue": text}
    if text.upper() in ("TRUE", "FALSE"):
        return {"boolValue": text.upper() == "TRUE"}
    date = entered_date(text)
    if date is not None:
        return {"numberValue": _number_json(date[0])}
    stripped = text.strip()
    percent = stripped.endswith("%")
    core = stripped[:-1] if percent else stripped
    currency = core.startswith("$") or core.startswith("-$")
    core = core.replace("$", "", 1) if currency else core
    if core and any(ch.isdigit() for ch in core) and _NUMBER.match(core):
        number = float(core.replace(",", ""))
        number = number / 100 if percent else number
        if not math.isfinite(number):  # '1e400' is no number Sheets can hold: it stays text
            return {"stringValue": text}
        return {"numberValue": int(number) if number.is_integer() and abs(number) < 2 ** 53 else number}
    return {"stringValue": text}


# -- dates ----------------------------------------------------------------------------------------
#: Day 0 of Sheets' serial numbers (the 30th of December 1899; 1 January 1900 is 2).
EPOCH = datetime(1899, 12, 30)
_DATE_INPUTS = [  # what Sheets (locale en_US) reads as a date or date-time, and the format it gives the cell
    (re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})"), ("y", "m", "d"), "yyyy-mm-dd"),
    (re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})"), ("m", "d", "y"), "M/d/yyyy"),
]
_TIME_INPUT = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?")


def entered_format(text: str) -> dict | None:
    """The number format Sheets gives a cell when ``text`` is typed into it: a date's, or that of
    a number typed with a currency sign, thousands separators or a percent sign."""
    date = entered_date(text)
    if date is not None:
        return date[1]
    value = parse_user_entered(text)
    if not value or "numberValue" not in value:
        return None
    core = text.strip()
    decimals = ".00" if "." in core else ""
    if core.endswith("%"):
        return {"type": "PERCENT", "pattern": f"0{decimals}%"}
    if core.lstrip("-").startswith("$"):
        return {"type": "CURRENCY", "pattern": f'"$"#,##0{decimals}'}
    if "," in core:
        return {"type": "NUMBER", "pattern": f"#,##0{decimals}"}
    return None


def entered_date(text: str) -> tuple[float, dict] | None:
    """A typed date ('2020-01-01', '1/2/1999', with an optional time '13:45[:30]' or '1:45 PM')
    as its serial number and the number format Sheets gives the cell; None for anything else."""
    stripped = text.strip()
    if len(stripped) > 40:
        return None
    for pattern, order, date_pattern in _DATE_INPUTS:
        match = pattern.match(stripped)
        if not match:
            continue
        parts = dict(zip(order, (int(g) for g in match.groups())))
        rest = stripped[match.end():]
        hour = minute = second = 0
        if rest.strip():
            time = _TIME_INPUT.fullmatch(rest.strip()) if rest[:1].isspace() else None
            if time is None:
                return None
            hour, minute, second = int(time.group(1)), int(time.group(2)), int(time.group(3) or 0)
            if time.group(4):
                if not 1 <= hour <= 12:
                    return None
                hour = hour % 12 + (12 if time.group(4).lower() == "pm" else 0)
        try:
            moment = datetime(parts["y"], parts["m"], parts["d"], hour, minute, second)
        except ValueError:
            return None
        serial = (moment - EPOCH).total_seconds() / 86400
        if rest.strip():
            return serial, {"type": "DATE_TIME", "pattern": f"{date_pattern} H:mm:ss"}
        return serial, {"type": "DATE", "pattern": date_pattern}
    return None


_DATE_TOKEN = re.compile(r'"[^"]*"|\\.|yyyy|yy|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am/pm|a/p|.', re.IGNORECASE)
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def format_date(value: float, pattern: str) -> str:
    """A serial number under a date / time pattern (yyyy, mm, m, mmm, dd, d, ddd, h, hh, mm after
    h as minutes, ss, am/pm; quoted text kept), as Sheets draws it."""
    try:
        moment = EPOCH + timedelta(days=value)
    except OverflowError:
        return format_number(value, None)
    moment = moment.replace(microsecond=0) + timedelta(seconds=round(moment.microsecond / 1e6))
    tokens = _DATE_TOKEN.findall(pattern[:200])
    twelve = any(t.lower() in ("am/pm", "a/p") for t in tokens)
    out = []
    for i, token in enumerate(tokens):
        low = token.lower()
        after_hour = any(t.lower() in ("h", "hh") for t in tokens[max(0, i - 2):i])
        before_second = any(t.lower() in ("s", "ss") for t in tokens[i + 1:i + 3])
        hour = moment.hour % 12 or 12 if twelve else moment.hour
        if low in ("m", "mm") and (after_hour or before_second):
            out.append(f"{moment.minute:0{len(low)}d}")
        else:
            out.append({"yyyy": f"{moment.year:04d}", "yy": f"{moment.year % 100:02d}", "mmmm": _MONTHS[moment.month - 1],
                        "mmm": _MONTHS[moment.month - 1][:3], "mm": f"{moment.month:02d}", "m": str(moment.month),
                        "dddd": _DAYS[moment.weekday()], "ddd": _DAYS[moment.weekday()][:3],
                        "dd": f"{moment.day:02d}", "d": str(moment.day), "hh": f"{hour:02d}", "h": str(hour),
                        "ss": f"{moment.second:02d}", "s": str(moment.second),
                        "am/pm": "AM" if moment.hour < 12 else "PM", "a/p": "a" if moment.hour < 12 else "p",
                        }.get(low, token.strip('"').removeprefix("\\")))
    return "".join(out)


def parse_raw(value: Any) -> dict | None:
    """What a value sent with valueInputOption=RAW becomes."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, (int, float)):
        return {"numberValue": value}
    return {"stringValue": str(value)}


_VALUE_TYPES = {"numberValue": (int, float), "stringValue": str, "boolValue": bool, "formulaValue": str}


def check_user_value(value: Any, name: str) -> dict | None:
    """A cell's ``userEnteredValue`` as the API accepts it: one of its four kinds, of its type,
    a finite number, text within Sheets' cell limit, a formula within the simulation's."""
    if value is None:
        return None
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in _VALUE_TYPES:
        raise ApiError(f"Invalid {name}: expected exactly one of {', '.join(_VALUE_TYPES)}, got {_show(value)}")
    (kind, item), = value.items()
    if not isinstance(item, _VALUE_TYPES[kind]) or (kind == "numberValue" and isinstance(item, bool)):
        raise ApiError(f"Invalid value at '{name}.{kind}', {_show(item)}")
    if kind == "numberValue":
        try:
            finite = math.isfinite(float(item))
        except OverflowError:
            finite = False
        if not finite:
            raise ApiError(f"Invalid value at '{name}.{kind}': {_show(item)} is not a finite number")
    if isinstance(item, str) and len(item) > MAX_CELL_CHARS:
        raise ApiError(f"Your input contains more than the maximum of {MAX_CELL_CHARS} characters in a single cell.")
    if kind == "formulaValue":
        if not item.startswith("="):
            raise ApiError(f"Invalid {name}.formulaValue: a formula starts with '='")
        if len(item) > MAX_FORMULA_CHARS:
            raise ApiError(f"Invalid {name}.formulaValue: the simulated Sheets API computes formulas of at most "
                           f"{MAX_FORMULA_CHARS} characters (this one has {len(item)}).")
    return value


def _number_json(value: float) -> int | float:
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53 else value


DATE_KINDS = ("DATE", "TIME", "DATE_TIME")


def format_number(value: float, number_format: dict | None) -> str:
    """A number as Sheets shows it under a NUMBER / CURRENCY / PERCENT pattern (else the General format)."""
    pattern = (number_format or {}).get("pattern", "")
    kind = (number_format or {}).get("type", "")
    if kind in DATE_KINDS:
        return format_date(value, pattern or {"DATE": "M/d/yyyy", "TIME": "h:mm:ss am/pm",
                                              "DATE_TIME": "M/d/yyyy H:mm:ss"}[kind])
    if not pattern and kind in ("", "TEXT", "NUMBER_FORMAT_TYPE_UNSPECIFIED"):
        if float(value).is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.10g}" if abs(value) >= 1e-4 else f"{value:.6g}"
    if not pattern:
        pattern = {"PERCENT": "0.00%", "CURRENCY": "$#,##0.00", "NUMBER": "#,##0.00"}.get(kind, "0.##")
    percent = pattern.endswith("%")
    prefix = re.match(r'^[^#0.]*', pattern).group(0).strip('"')
    body = pattern[len(re.match(r'^[^#0.]*', pattern).group(0)):].rstrip("%")
    decimals = min(len(body.split(".")[1]), 30) if "." in body else 0  # Sheets shows at most 30
    number = value * 100 if percent else value
    text = f"{abs(number):,.{decimals}f}" if "," in body else f"{abs(number):.{decimals}f}"
    sign = "-" if number < 0 and float(text.replace(",", "")) != 0 else ""
    return f"{sign}{prefix}{text}{'%' if percent else ''}"


def _merge_dicts(base: dict, over: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge_dicts(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


_COLOR = {"red": float, "green": float, "blue": float, "alpha": float}
_COLOR_STYLE = {"rgbColor": _COLOR, "themeColor": str}
_BORDER = {"style": str, "width": int, "color": _COLOR, "colorStyle": _COLOR_STYLE}
#: The fields of the API's ``CellFormat`` message and their types (a dict: a nested message).
CELL_FORMAT: dict = {
    "numberFormat": {"type": str, "pattern": str},
    "backgroundColor": _COLOR, "backgroundColorStyle": _COLOR_STYLE,
    "borders": {"top": _BORDER, "bottom": _BORDER, "left": _BORDER, "right": _BORDER},
    "padding": {"top": int, "right": int, "bottom": int, "left": int},
    "horizontalAlignment": str, "verticalAlignment": str, "wrapStrategy": str, "textDirection": str,
    "hyperlinkDisplayType": str,
    "textFormat": {"foregroundColor": _COLOR, "foregroundColorStyle": _COLOR_STYLE, "fontFamily": str,
                   "fontSize": int, "bold": bool, "italic": bool, "strikethrough": bool, "underline": bool,
                   "link": {"uri": str}},
    "textRotation": {"angle": int, "vertical": bool},
}


def check_message(value: Any, schema: dict, name: str) -> None:
    """Refuse a value that is not the message ``schema`` describes, as the API's JSON parser
    does (``Unknown name "x" at 'name': Cannot find field.``, ``Invalid value at 'name'``)."""
    if value is None:
        return
    if not isinstance(value, dict):
        raise ApiError(f"Invalid value at '{name}', {_show(value)}: expected an object")
    for key, item in value.items():
        kind = schema.get(key)
        path = f"{name}.{key}"
        if kind is None:
            raise ApiError(f'Invalid JSON payload received. Unknown name "{str(key)[:60]}" at \'{name}\': '
                           f"Cannot find field.")
        if isinstance(kind, dict):
            check_message(item, kind, path)
        elif kind is float:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                raise ApiError(f"Invalid value at '{path}' (TYPE_FLOAT), {_show(item)}")
        elif kind is int:
            _integer(item, path)
        elif item is not None and not isinstance(item, kind):
            raise ApiError(f"Invalid value at '{path}' ({'TYPE_BOOL' if kind is bool else 'TYPE_STRING'}), "
                           f"{_show(item)}")


_VALIDATION = {"condition": {"type": str, "values": {"userEnteredValue": str, "relativeDate": str}},
               "inputMessage": str, "strict": bool, "showCustomUi": bool}


def without_nulls(value: Any) -> Any:
    """A message without its null fields (the API's JSON reads null as the field left out)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def check_validation(rule: Any) -> None:
    """A ``DataValidationRule`` of the API's shape (its condition's values a list of ConditionValue)."""
    if not isinstance(rule, dict) or not isinstance(rule.get("condition"), dict):
        raise ApiError("Invalid dataValidation: a condition is required.")
    values = rule["condition"].get("values", [])
    if not isinstance(values, list):
        raise ApiError("Invalid value at 'dataValidation.condition.values': expected a list")
    check_message({**rule, "condition": {k: v for k, v in rule["condition"].items() if k != "values"}}, _VALIDATION,
                  "dataValidation")
    for value in values:
        check_message(value, _VALIDATION["condition"]["values"], "dataValidation.condition.values")


def violates(rule: dict, value: Any) -> bool:
    """Whether a strict rule refuses ``value`` (the conditions the service checks: lists and numbers)."""
    condition = rule.get("condition", {})
    kind, items = condition.get("type"), [v.get("userEnteredValue", "") for v in condition.get("values", [])]
    if value is None or not rule.get("strict"):
        return False
    if kind == "ONE_OF_LIST":
        return str(value) not in items
    if kind == "BOOLEAN":
        return not isinstance(value, bool)
    numbers = []
    for item in items:
        try:
            numbers.append(float(item))
        except ValueError:
            return False
    if not isinstance(value, float) or isinstance(value, bool):
        return kind is not None and kind.startswith("NUMBER_")
    checks = {"NUMBER_GREATER": lambda: value > numbers[0], "NUMBER_GREATER_THAN_EQ": lambda: value >= numbers[0],
              "NUMBER_LESS": lambda: value < numbers[0], "NUMBER_LESS_THAN_EQ": lambda: value <= numbers[0],
              "NUMBER_EQ": lambda: value == numbers[0], "NUMBER_NOT_EQ": lambda: value != numbers[0],
              "NUMBER_BETWEEN": lambda: numbers[0] <= value <= numbers[1],
              "NUMBER_NOT_BETWEEN": lambda: not numbers[0] <= value <= numbers[1]}
    try:
        return kind in checks and not checks[kind]()
    except IndexError:
        return False


def with_color_styles(fmt: dict | None) -> dict | None:
    """A user format as Sheets stores it: each color also as its ``...Style`` (``backgroundColor``
    -> ``backgroundColorStyle.rgbColor``, ``textFormat.foregroundColor`` likewise)."""
    if not fmt:
        return fmt
    fmt = copy.deepcopy(fmt)
    if isinstance(fmt.get("backgroundColor"), dict) and "backgroundColorStyle" not in fmt:
        fmt["backgroundColorStyle"] = {"rgbColor": copy.deepcopy(fmt["backgroundColor"])}
    text = fmt.get("textFormat")
    if isinstance(text, dict) and isinstance(text.get("foregroundColor"), dict) and "foregroundColorStyle" not in text:
        text["foregroundColorStyle"] = {"rgbColor": copy.deepcopy(text["foregroundColor"])}
    return fmt


def effective_format(user_format: dict | None) -> dict:
    """The default format with the user's format over it (what ``effectiveFormat`` answers)."""
    merged = _merge_dicts(DEFAULT_FORMAT, user_format or {})
    if "backgroundColor" in (user_format or {}):
        merged["backgroundColorStyle"] = {"rgbColor": merged["backgroundColor"]}
    if "foregroundColor" in (user_format or {}).get("textFormat", {}):
        merged["textFormat"]["foregroundColorStyle"] = {"rgbColor": merged["textFormat"]["foregroundColor"]}
    return merged


# -- field masks ----------------------------------------------------------------------------------
def parse_fields(mask: str) -> list[list[str]]:
    """'userEnteredFormat(textFormat,backgroundColor)' -> [['userEnteredFormat', 'textFormat'], ...]."""
    paths: list[list[str]] = []

    def split_top(text: str) -> list[str]:
        parts, depth, current = [], 0, ""
        for char in text:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth < 0:
                    raise ApiError(f"Invalid field mask: {mask}")
            if char == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += char
        if depth:
            raise ApiError(f"Invalid field mask: {mask}")
        parts.append(current)
        return [p.strip() for p in parts if p.strip()]

    def expand(text: str, prefix: list[str]) -> None:
        if "(" in text:
            head, _, inner = text.partition("(")
            if not inner.endswith(")"):
                raise ApiError(f"Invalid field mask: {mask}")
            head_path = prefix + [p for p in re.split(r"[./]", head) if p]
            for part in split_top(inner[:-1]):
                expand(part, head_path)
        else:
            paths.append(prefix + [p for p in re.split(r"[./]", text) if p])

    for part in split_top(mask):
        expand(part, [])
    return paths


def apply_mask(target: dict, source: dict, paths: list[list[str]]) -> dict:
    """Copy the masked fields of ``source`` into ``target`` (a field absent from source is cleared)."""
    result = copy.deepcopy(target)
    for path in paths:
        if path == ["*"]:
            return copy.deepcopy(source)
        src: Any = source
        for key in path:
            src = src.get(key) if isinstance(src, dict) else None
        node = result
        for key in path[:-1]:
            node = node.setdefault(key, {}) if isinstance(node.get(key), dict) or key not in node else node[key]
            if not isinstance(node, dict):
                break
        else:
            if src is None:
                node.pop(path[-1], None)
            else:
                node[path[-1]] = copy.deepcopy(src)
    return _prune(result)


def _prune(value: dict) -> dict:
    return {k: (_prune(v) if isinstance(v, dict) else v) for k, v in value.items()
            if not (isinstance(v, dict) and not _prune(v)) or k in ("foregroundColor", "rgbColor")}


def filter_fields(value: Any, paths: list[list[str]]) -> Any:
    """Keep only the fields of a response that a ``fields`` mask names."""
    if not paths or any(not p for p in paths):
        return value
    if isinstance(value, list):
        return [filter_fields(item, paths) for item in value]
    if not isinstance(value, dict):
        return value
    kept = {}
    for key, item in value.items():
        sub = [p[1:] for p in paths if p[0] in (key, "*")]
        if not sub:
            continue
        kept[key] = item if any(not p for p in sub) else filter_fields(item, sub)
    return kept


def _trim_grid_data(result: dict) -> dict:
    """A masked response's grid data without the cells the mask left empty at the ends of rows,
    nor rows left empty at the end, as Sheets answers (``get_notes`` of a sheet without notes
    reads ``[[]]``)."""
    for sheet in result.get("sheets", []):
        for data in sheet.get("data", []) if isinstance(sheet, dict) else []:
            rows = data.get("rowData")
            if not isinstance(rows, list):
                continue
            for row in rows:
                values = row.get("values")
                while values and values[-1] == {}:
                    values.pop()
                if values == []:
                    del row["values"]
            while rows and rows[-1] == {}:
                rows.pop()
            if not rows:
                del data["rowData"]
    return result


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


class SheetsService:
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
        try:
            title, cells = split_sheet(text)
            sheet = self.sheet_by_title(spreadsheet, title) if title is not None or cells else None
            if sheet is None:
                raise RangeError(text)
            try:
                bounds = parse_bounds(cells)
            except RangeError:
                named = next((n for n in spreadsheet.named_ranges if n["name"].lower() == cells.lower()), None)
                if named is not None:  # a named range's name stands for its range (after a sheet's name too)
                    return self.grid_range(spreadsheet, named["range"])
                if title is None:  # 'Sheet1' alone is a sheet's name
                    sheet, bounds = self.sheet_by_title(spreadsheet, cells), None
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

    def req_updateSpreadsheetProperties(self, spreadsheet, spec):
        props = spec.get("properties", {})
        for path in parse_fields(spec.get("fields", "")):
            if path == ["title"] or path == ["*"]:
                spreadsheet.title = str(props.get("title", spreadsheet.title))
            if path == ["timeZone"] or path == ["*"] and "timeZone" in props:
                zone = props.get("timeZone")
                if not isinstance(zone, str) or not re.fullmatch(r"[A-Za-z_]+(/[A-Za-z0-9_+-]+){0,2}", zone):
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


# -- helpers ----------------------------------------------------------------------------------------
def _param(query: dict, name: str, default: str) -> str:
    values = query.get(name)
    return values[-1] if values else default


def _sheet_id_base(spreadsheet_id: str) -> int:
    """Sheet ids are unique across the world's spreadsheets: each spreadsheet has its own block."""
    return (sum(ord(ch) * 31 ** i for i, ch in enumerate(spreadsheet_id)) % 9973) * 1000


def _with_sheet(value: dict, sheet_id: int | None) -> dict:
    value = copy.deepcopy(value)
    if "range" in value and sheet_id is not None:
        value["range"] = grid_range_json({"sheetId": sheet_id, **value["range"]})
    return value


def grid_range_json(grid_range: dict) -> dict:
    """A GridRange as the API writes it: a sheetId of 0 is left out, as every zero of proto3 JSON."""
    return {k: v for k, v in grid_range.items() if not (k == "sheetId" and v == 0)}


def _user_value(user: dict) -> Any:
    if "numberValue" in user:
        return float(user["numberValue"])
    if "boolValue" in user:
        return bool(user["boolValue"])
    return str(user.get("stringValue", ""))


def _effective_value(value: Any) -> dict:
    if isinstance(value, FormulaError):
        return {"errorValue": {"type": value.type, "message": value.message}}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, float):
        return {"numberValue": _number_json(value)}
    return {"stringValue": value}


def formatted(value: Any, fmt: dict | None) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return format_number(value, (fmt or {}).get("numberFormat"))
    return str(value)


def _sort_key(value: Any) -> tuple:
    # Sheets orders numbers before text before booleans; text case-insensitively.
    if isinstance(value, bool):
        return (2, value, "")
    if isinstance(value, float):
        return (0, value, "")
    return (1, 0, str(value).lower())


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
