"""The tabletop's geometry and vocabulary (pure Python: no pybullet).

Coordinates follow Code as Policies: the table is centered at (0, -0.5); the workspace is
x in [-0.3, 0.3], y in [-0.8, -0.2]; "left" is -x, "right" is +x, "top" (toward the robot's
base at the origin) is +y and "bottom" is -y. Named positions lie 0.25 m around the center.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

CENTER = (0.0, -0.5)
BOUNDS = ((-0.3, 0.3), (-0.8, -0.2))
NAMED_OFFSET = 0.25
COLORS: dict[str, tuple[float, float, float]] = {
    "blue": (0.078, 0.372, 0.953), "red": (0.913, 0.133, 0.133), "green": (0.164, 0.682, 0.239),
    "orange": (1.0, 0.549, 0.0), "yellow": (0.98, 0.85, 0.1), "purple": (0.502, 0.0, 0.502),
    "pink": (1.0, 0.6, 0.8), "cyan": (0.0, 0.85, 0.85), "brown": (0.55, 0.33, 0.15), "gray": (0.5, 0.5, 0.5),
}
# Code as Policies evaluates on attributes seen in its prompts and on unseen ones.
SEEN_COLORS = ("blue", "red", "green", "orange", "yellow")
UNSEEN_COLORS = ("purple", "pink", "cyan", "brown", "gray")
CORNERS = {"top left corner": (-1, 1), "top right corner": (1, 1), "bottom left corner": (-1, -1),
           "bottom right corner": (1, -1)}
SIDES = {"top side": (0, 1), "bottom side": (0, -1), "left side": (-1, 0), "right side": (1, 0)}
SEEN_PLACES = ("top left corner", "top right corner", "top side", "left side")
UNSEEN_PLACES = ("bottom left corner", "bottom right corner", "bottom side", "right side")
DIRECTIONS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "top": (0.0, 1.0), "bottom": (0.0, -1.0)}
DIRECTION_WORDS = {"left": "left", "right": "right", "top": "top", "above": "top", "up": "top",
                   "behind": "top", "bottom": "bottom", "below": "bottom", "down": "bottom",
                   "in front": "bottom"}
MAGNITUDES = {"a little": 0.1, "a bit": 0.1, "slightly": 0.1, "a lot": 0.2, "far": 0.2}
DEFAULT_OFFSET = 0.1


def named_positions() -> dict[str, tuple[float, float]]:
    """The nine named positions: four corners, four sides and the middle."""
    cx, cy = CENTER
    out = {name: (cx + NAMED_OFFSET * sx, cy + NAMED_OFFSET * sy) for name, (sx, sy) in {**CORNERS, **SIDES}.items()}
    out["middle"] = CENTER
    return out


NAMED_POSITIONS = named_positions()
POSITION_ALIASES = {"center": "middle", "centre": "middle", "middle of the table": "middle",
                    **{name.replace(" corner", ""): name for name in CORNERS},
                    **{name.replace(" side", ""): name for name in SIDES}}


def in_workspace(xy: Sequence[float], margin: float = 0.0) -> bool:
    (x0, x1), (y0, y1) = BOUNDS
    return x0 - margin <= xy[0] <= x1 + margin and y0 - margin <= xy[1] <= y1 + margin


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def closest_name(xy: Sequence[float], names: Sequence[str]) -> str:
    return min(names, key=lambda name: (distance(xy, NAMED_POSITIONS[name]), name))


def corner_name(xy: Sequence[float]) -> str:
    """The corner nearest to ``xy``."""
    return closest_name(xy, tuple(CORNERS))


def side_name(xy: Sequence[float]) -> str:
    """The side nearest to ``xy``."""
    return closest_name(xy, tuple(SIDES))


def denormalize(xy: Sequence[float]) -> tuple[float, float]:
    """Map a point of the unit square (0, 0 = bottom left) onto the workspace."""
    (x0, x1), (y0, y1) = BOUNDS
    return (x0 + float(xy[0]) * (x1 - x0), y0 + float(xy[1]) * (y1 - y0))


def offset(xy: Sequence[float], direction: str, amount: float) -> tuple[float, float]:
    dx, dy = DIRECTIONS[direction]
    return (xy[0] + dx * amount, xy[1] + dy * amount)


_OFFSET_RE = re.compile(
    r"^(?:(?P<mag>a little|a bit|slightly|a lot|far|(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>cm|m))\s+)?"
    r"(?:to the\s+|on the\s+)?(?P<dir>left|right|top|bottom|above|below|up|down|behind|in front)"
    r"(?:\s+side)?(?:\s+of)?\s+(?P<ref>.+)$")
_CLOSEST_RE = re.compile(r"^(?P<kind>corner|side)\s+(?P<which>closest|nearest|farthest|furthest)\s+"
                         r"(?:to|from)\s+(?P<ref>.+)$")
_BETWEEN_RE = re.compile(r"^between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$")


def _clean(text: str) -> str:
    text = " ".join(text.lower().strip().rstrip(".").split())
    return text[4:] if text.startswith("the ") else text


#: How many descriptions one position may nest ("left of the middle of ..."): each is read by
#: a recursive call, and a program's string could otherwise nest past Python's recursion limit.
MAX_POSITION_NESTING = 20


def parse_position(description: str, objects: dict[str, Sequence[float]], depth: int = 0) -> tuple[float, float]:
    """A position from a description; ``objects`` maps object names to their xy.

    Understands named positions ("top left corner", "middle", "left side"), object names,
    offsets ("a little to the left of the blue bowl", "10 cm above the red block"),
    "the corner closest to the blue bowl", "the side farthest from ..." and
    "between A and B" (``depth``: how deep inside another description this one is). Raises
    ValueError with a plain message otherwise.
    """
    if depth > MAX_POSITION_NESTING:
        raise ValueError(f"the position nests more than {MAX_POSITION_NESTING} descriptions")
    if not isinstance(description, str):
        raise ValueError(f"parse_position takes a text description, got {type(description).__name__}")
    text = _clean(description)
    text = POSITION_ALIASES.get(text, text)
    if text in NAMED_POSITIONS:
        return NAMED_POSITIONS[text]
    if text in objects:
        return (float(objects[text][0]), float(objects[text][1]))
    if match := _BETWEEN_RE.match(text):
        a, b = parse_position(match["a"], objects, depth + 1), parse_position(match["b"], objects, depth + 1)
        return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    if match := _CLOSEST_RE.match(text):
        ref = parse_position(match["ref"], objects, depth + 1)
        names = tuple(CORNERS if match["kind"] == "corner" else SIDES)
        key = lambda name: (distance(ref, NAMED_POSITIONS[name]), name)  # noqa: E731
        name = min(names, key=key) if match["which"] in ("closest", "nearest") else max(names, key=key)
        return NAMED_POSITIONS[name]
    if match := _OFFSET_RE.match(text):
        ref = parse_position(match["ref"], objects, depth + 1)
        if match["num"]:
            amount = float(match["num"]) / (100.0 if match["unit"] == "cm" else 1.0)
        else:
            amount = MAGNITUDES.get(match["mag"] or "", DEFAULT_OFFSET)
        return offset(ref, DIRECTION_WORDS[match["dir"]], amount)
    raise ValueError(f"cannot parse the position {description!r}; use a named position "
                     f"({', '.join(NAMED_POSITIONS)}), an object name, or e.g. "
                     f"'a little to the left of the blue bowl'")
