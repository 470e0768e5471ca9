"""The service's limits, its error, and the checks every request body passes first."""

from __future__ import annotations

import math
import re
from typing import Any


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
