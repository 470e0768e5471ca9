"""Cell values: what a user-entered text becomes, dates and number formats, cell formats and
data validation, and the helpers that render a value."""

from __future__ import annotations

import copy
import math
import re
from datetime import datetime, timedelta
from typing import Any

from toolgym.worlds.sheets.formula import MAX_FORMULA_CHARS, FormulaError
from toolgym.worlds.sheets.api.common import ApiError, DEFAULT_FORMAT, MAX_CELL_CHARS, _integer, _show


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
