"""A1 notation: cell labels, ranges with sheet names, and the API's ``GridRange``."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CELL = re.compile(r"^([A-Za-z]{0,3})(\d{0,7})$")


class RangeError(ValueError):
    """A range the service cannot parse (the API answers 400)."""


def col_letters(col: int) -> str:
    """0-based column index -> letters (0 -> 'A', 26 -> 'AA')."""
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def letters_col(letters: str) -> int:
    """Letters -> 0-based column index."""
    col = 0
    for char in letters.upper():
        col = col * 26 + ord(char) - 64
    return col - 1


def cell_label(row: int, col: int) -> str:
    """0-based (row, col) -> 'B3'."""
    return f"{col_letters(col)}{row + 1}"


def quote_title(title: str) -> str:
    """A sheet title as it appears in a range ('My Sheet' quoted, Sheet1 not)."""
    looks_like_cell = _CELL.match(title) is not None
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title) and not looks_like_cell:
        return title
    return "'" + title.replace("'", "''") + "'"


@dataclass(frozen=True)
class Bounds:
    """A 0-based, end-exclusive rectangle; None ends are open (to the grid's edge)."""

    start_row: int | None
    end_row: int | None
    start_col: int | None
    end_col: int | None

    def clip(self, rows: int, cols: int) -> tuple[int, int, int, int]:
        return (self.start_row or 0, rows if self.end_row is None else self.end_row,
                self.start_col or 0, cols if self.end_col is None else self.end_col)


def split_sheet(text: str) -> tuple[str | None, str]:
    """'Sheet1!A1:B2' -> ('Sheet1', 'A1:B2'); "'My ''x'''!A1" -> ("My 'x'", 'A1'); 'A1' -> (None, 'A1')."""
    text = text.strip()
    if text.startswith("'"):
        end, i = None, 1
        while i < len(text):
            if text[i] == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    i += 2
                    continue
                end = i
                break
            i += 1
        if end is None:
            raise RangeError(f"Unable to parse range: {text}")
        title = text[1:end].replace("''", "'")
        rest = text[end + 1:]
        if rest and not rest.startswith("!"):
            raise RangeError(f"Unable to parse range: {text}")
        return title, rest[1:]
    if "!" in text:
        title, _, rest = text.rpartition("!")
        return title, rest
    return None, text


def parse_bounds(text: str) -> Bounds | None:
    """'A1:C3', 'A:A', '2:5', 'B2', 'A2:C' -> Bounds; '' -> None (the whole sheet)."""
    if text == "":
        return None
    parts = text.split(":")
    if len(parts) > 2:
        raise RangeError(f"Unable to parse range: {text}")
    corners = []
    for part in parts:
        match = _CELL.match(part.strip())
        if not match or not (match.group(1) or match.group(2)):
            raise RangeError(f"Unable to parse range: {text}")
        col = letters_col(match.group(1)) if match.group(1) else None
        row = int(match.group(2)) - 1 if match.group(2) else None
        if row is not None and row < 0:
            raise RangeError(f"Unable to parse range: {text}")
        corners.append((row, col))
    (r1, c1), (r2, c2) = corners[0], corners[-1]
    if len(parts) == 1:
        if r1 is None or c1 is None:
            raise RangeError(f"Unable to parse range: {text}")
        return Bounds(r1, r1 + 1, c1, c1 + 1)
    if (r1 is None) != (r2 is None) and (c1 is None or c2 is None) and r1 is None:
        pass
    start_row = r1 if r1 is not None else (0 if r2 is not None else None)
    start_col = c1 if c1 is not None else (0 if c2 is not None else None)
    end_row = r2 + 1 if r2 is not None else None
    end_col = c2 + 1 if c2 is not None else None
    if r1 is None and r2 is not None:  # 'A:B5' is not valid A1
        raise RangeError(f"Unable to parse range: {text}")
    if start_row is not None and end_row is not None and end_row <= start_row:
        start_row, end_row = end_row - 1, start_row + 1
    if start_col is not None and end_col is not None and end_col <= start_col:
        start_col, end_col = end_col - 1, start_col + 1
    return Bounds(start_row, end_row, start_col, end_col)


def bounds_label(start_row: int, end_row: int, start_col: int, end_col: int) -> str:
    """A closed rectangle as 'A1:C3' (a single cell as 'A1')."""
    first, last = cell_label(start_row, start_col), cell_label(end_row - 1, end_col - 1)
    return first if first == last else f"{first}:{last}"
