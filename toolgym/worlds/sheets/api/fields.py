"""Field masks: parsing ``fields=`` and keeping or writing only the paths it names."""

from __future__ import annotations

import copy
import re
from typing import Any

from toolgym.worlds.sheets.api.common import ApiError


# -- field masks ----------------------------------------------------------------------------------
#: Parentheses a field mask may nest (the API's resources nest a few levels): each level is read by
#: a recursive call, and a 20,000-character mask could otherwise nest past Python's recursion limit.
MAX_MASK_NESTING = 32


def parse_fields(mask: str) -> list[list[str]]:
    """'userEnteredFormat(textFormat,backgroundColor)' -> [['userEnteredFormat', 'textFormat'], ...]."""
    paths: list[list[str]] = []
    depth = deepest = 0
    for char in mask:
        if char in "()":
            depth += 1 if char == "(" else -1
            deepest = max(deepest, depth)
    if deepest > MAX_MASK_NESTING:
        raise ApiError(f"Invalid field mask: it nests more than {MAX_MASK_NESTING} levels of parentheses")

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
