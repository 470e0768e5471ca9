"""Tabletop tasks: 15 task types from Code as Policies' 14 instruction templates.

Each task is a seeded setup (up to 4 blocks and 4 bowls, at least 0.15 m apart), an
instruction, and goals checked on the final object positions. The oracle's plan is computed
from the object positions (the world state), never from stored targets; the generator keeps
only setups where that plan is free of obstacles, so the instruction is unambiguous and
feasible. Pure Python: no pybullet here.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from collections.abc import Sequence

from toolgym.worlds.tabletop.layout import (
    CORNERS, DIRECTIONS, MAGNITUDES, NAMED_POSITIONS, SEEN_COLORS, SEEN_PLACES, SIDES, UNSEEN_COLORS,
    UNSEEN_PLACES, corner_name, distance, in_workspace, offset,
)
from toolgym.worlds.tabletop.sim import ObjectSpec

MIN_SEPARATION = 0.15
BOWL_SEPARATION = 0.17     # two bowls of 0.075 m radius keep a gap
AT_TOLERANCE = 0.06        # object on a position, or in a bowl
ON_BLOCK_TOLERANCE = 0.04  # block on a block
REGION_HALF_WIDTH = 0.1    # "on the left side", "on the top left corner" for several blocks
LINE_TOLERANCE = 0.03
LINE_SPACING = 0.1
MIN_FREE = 0.1             # a placement target is this far from every other object
UNIQUE_MARGIN = 0.03       # closest/farthest/nth: the runner-up is this much worse
ORDINALS = ("first", "second", "third", "fourth")
DIRECTION_PHRASES = {"left": "to the left of", "right": "to the right of", "top": "above", "bottom": "below"}

# (task type, Code as Policies template number); seen templates 1-8, unseen 9-14.
TASK_TYPES = (
    ("place_on_block", 1), ("place_in_bowl", 1), ("stack_all", 2), ("blocks_on_place", 3),
    ("blocks_in_bowl", 4), ("matching_bowls", 5), ("block_direction_of_bowl", 6),
    ("block_distance_to_bowl", 7), ("nth_block_from_side", 8), ("blocks_in_corners", 9),
    ("mismatched_bowls", 10), ("stack_on_place", 11), ("place_relative_to_bowl", 12),
    ("corner_closest_to_bowl", 13), ("blocks_in_line", 14),
)
TASK_TYPE_NAMES = tuple(name for name, _ in TASK_TYPES)


class Infeasible(Exception):
    """The setup does not suit the task (ambiguous reference or an obstacle on a target)."""


@dataclass(frozen=True)
class Goal:
    """One condition on the final positions.

    kinds: ``at`` (obj, xy), ``in_bowl`` (obj, bowl), ``on_block`` (obj, block),
    ``region`` (obj, place name), ``stack`` (blocks), ``line`` (blocks, orientation),
    ``distinct_corners`` (blocks), ``mismatched`` (blocks, bowls).
    """

    kind: str
    objects: tuple[str, ...]
    target: str | tuple[float, float] | None = None


@dataclass(frozen=True)
class TabletopTask:
    task_id: str
    task_type: str
    split: str
    instruction: str
    objects: tuple[ObjectSpec, ...]
    goals: tuple[Goal, ...]
    params: tuple[tuple[str, str], ...] = ()

    @property
    def object_names(self) -> list[str]:
        return [o.name for o in self.objects]

    @property
    def blocks(self) -> list[str]:
        return [o.name for o in self.objects if o.kind == "block"]

    @property
    def bowls(self) -> list[str]:
        return [o.name for o in self.objects if o.kind == "bowl"]

    def param(self, key: str) -> str:
        return dict(self.params)[key]


Positions = dict[str, Sequence[float]]


# -- success predicates ----------------------------------------------------------------------
def at_position(obj: Sequence[float], xy: Sequence[float], tolerance: float = AT_TOLERANCE) -> bool:
    return distance(obj, xy) < tolerance


def in_bowl(obj: Sequence[float], bowl: Sequence[float]) -> bool:
    return distance(obj, bowl) < AT_TOLERANCE and obj[2] > bowl[2]


def on_block(obj: Sequence[float], block: Sequence[float]) -> bool:
    return distance(obj, block) < ON_BLOCK_TOLERANCE and obj[2] > block[2] + 0.02


def in_region(obj: Sequence[float], place: str) -> bool:
    """On a corner (both coordinates near it) or a side (the coordinate across it near it)."""
    px, py = NAMED_POSITIONS[place]
    if place in CORNERS:
        return abs(obj[0] - px) < REGION_HALF_WIDTH and abs(obj[1] - py) < REGION_HALF_WIDTH
    dx, dy = SIDES[place]
    across = abs(obj[0] - px) if dx else abs(obj[1] - py)
    return across < REGION_HALF_WIDTH and in_workspace(obj, margin=0.05)


def is_stack(blocks: Sequence[Sequence[float]]) -> bool:
    ordered = sorted(blocks, key=lambda p: p[2])
    return all(on_block(upper, lower) for lower, upper in zip(ordered, ordered[1:]))


def _line_coordinates(points: Sequence[Sequence[float]], orientation: str) -> list[list[tuple[float, float]]]:
    """Each point as (along, across) for every axis that counts as the orientation."""
    s = math.sqrt(0.5)
    axes = {"horizontal": [((1, 0), (0, 1))], "vertical": [((0, 1), (1, 0))],
            "diagonal": [((s, s), (s, -s)), ((s, -s), (s, s))]}[orientation]
    return [[(p[0] * a[0] + p[1] * a[1], p[0] * c[0] + p[1] * c[1]) for p in points] for a, c in axes]


def is_line(points: Sequence[Sequence[float]], orientation: str) -> bool:
    """Blocks in a line: across-coordinates within a tolerance, along-coordinates not overlapping."""
    for coords in _line_coordinates(points, orientation):
        across = [c for _, c in coords]
        along = sorted(a for a, _ in coords)
        if max(across) - min(across) <= 2 * LINE_TOLERANCE and \
                all(b - a >= 0.045 for a, b in zip(along, along[1:])):
            return True
    return False


def goal_met(goal: Goal, positions: Positions) -> bool:
    pos = [positions[name] for name in goal.objects]
    if goal.kind == "at":
        return at_position(pos[0], goal.target)
    if goal.kind == "in_bowl":
        return in_bowl(pos[0], positions[goal.target])
    if goal.kind == "on_block":
        return on_block(pos[0], positions[goal.target])
    if goal.kind == "region":
        return in_region(pos[0], goal.target)
    if goal.kind == "stack":
        return is_stack(pos)
    if goal.kind == "line":
        return is_line(pos, goal.target)
    if goal.kind == "distinct_corners":
        corners = [next((c for c in CORNERS if at_position(p, NAMED_POSITIONS[c])), None) for p in pos]
        return None not in corners and len(set(corners)) == len(corners)
    if goal.kind == "mismatched":
        blocks, bowls = goal.objects, goal.target
        homes = [next((b for b in bowls if in_bowl(positions[block], positions[b])), None) for block in blocks]
        return (None not in homes and len(set(homes)) == len(homes)
                and all(home.split()[0] != block.split()[0] for block, home in zip(blocks, homes)))
    raise ValueError(f"unknown goal kind {goal.kind}")


def task_success(task: TabletopTask, positions: Positions) -> bool:
    return all(goal_met(goal, positions) for goal in task.goals)


# -- selections the instructions refer to ---------------------------------------------------
def _unique_best(scores: dict[str, float], largest: bool = False) -> str:
    ordered = sorted(scores, key=lambda name: -scores[name] if largest else scores[name])
    if len(ordered) > 1 and abs(scores[ordered[0]] - scores[ordered[1]]) < UNIQUE_MARGIN:
        raise Infeasible("no clear winner")
    return ordered[0]


def block_in_direction(blocks: Sequence[str], bowl: str, direction: str, positions: Positions) -> str:
    """The only block within 45 degrees of ``direction`` from the bowl."""
    dx, dy = DIRECTIONS[direction]
    bx, by = positions[bowl][:2]
    found = []
    for block in blocks:
        vx, vy = positions[block][0] - bx, positions[block][1] - by
        along, across = vx * dx + vy * dy, abs(vx * dy - vy * dx)
        if along > across + UNIQUE_MARGIN:
            found.append(block)
        elif along > across - UNIQUE_MARGIN:
            raise Infeasible("a block lies on the boundary of the direction")
    if len(found) != 1:
        raise Infeasible("not exactly one block in that direction")
    return found[0]


def nth_block_from(blocks: Sequence[str], side: str, n: int, positions: Positions) -> str:
    dx, dy = DIRECTIONS[side]
    # "from the left" counts from the left edge: the smallest coordinate along the direction first.
    scores = {b: positions[b][0] * dx + positions[b][1] * dy for b in blocks}
    ordered = sorted(blocks, key=lambda b: -scores[b])
    values = [scores[b] for b in ordered]
    if any(a - b < UNIQUE_MARGIN for a, b in zip(values, values[1:])):
        raise Infeasible("blocks too close in that direction")
    return ordered[n]


def corner_closest(xy: Sequence[float]) -> str:
    return _unique_best({c: distance(xy, NAMED_POSITIONS[c]) for c in CORNERS})


# -- the oracle's plan ------------------------------------------------------------------------
def _grid_targets(place: str, count: int) -> list[tuple[float, float]]:
    """Spots for several blocks on a corner (a 2x2 grid toward the table center) or a side."""
    px, py = NAMED_POSITIONS[place]
    if place in CORNERS:
        sx, sy = CORNERS[place]
        grid = [(0, 0), (-sx * 0.08, 0), (0, -sy * 0.08), (-sx * 0.08, -sy * 0.08)]
        return [(px + gx, py + gy) for gx, gy in grid[:count]]
    dx, dy = SIDES[place]
    steps = [(i - (count - 1) / 2) * 0.08 for i in range(count)]
    return [(px + s * abs(dy), py + s * abs(dx)) for s in steps]


def _line_targets(orientation: str, count: int, shift: float) -> list[tuple[float, float]]:
    cx, cy = NAMED_POSITIONS["middle"]
    steps = [(i - (count - 1) / 2) * LINE_SPACING for i in range(count)]
    if orientation == "horizontal":
        return [(cx + s, cy + shift) for s in steps]
    if orientation == "vertical":
        return [(cx + shift, cy + s) for s in steps]
    r = math.sqrt(0.5)
    return [(cx + (s + shift) * r, cy + (s - shift) * r) for s in steps]


def _free(xy: Sequence[float], positions: Positions, mover: str) -> bool:
    return in_workspace(xy) and all(distance(xy, p) >= MIN_FREE for n, p in positions.items() if n != mover)


def _assign_in_order(blocks: Sequence[str], targets: Sequence[tuple[float, float]], positions: Positions):
    """Blocks to targets with the least total travel (at most 4! assignments)."""
    best = min(itertools.permutations(targets),
               key=lambda perm: (sum(distance(positions[b], t) for b, t in zip(blocks, perm)), perm))
    return list(zip(blocks, best))


def _free_moves(moves: list[tuple[str, tuple[float, float]]], positions: Positions, strict: bool,
                ignore: str = "") -> list:
    clear = {name: xy for name, xy in positions.items() if name != ignore}
    if strict and not all(_free(xy, clear, block) for block, xy in moves):
        raise Infeasible("a target spot is occupied")
    return moves


Step = tuple[str, "str | tuple[float, float]"]


def _rounded(moves: Sequence[tuple[str, Sequence[float]]]) -> list[Step]:
    return [(block, (round(xy[0], 4), round(xy[1], 4))) for block, xy in moves]


def oracle_plan(task: TabletopTask, positions: Positions, strict: bool = False) -> list[Step]:
    """(block, target) moves solving the task from ``positions``; a target is an object name,
    a named position, a parse_position description or an (x, y) point.

    ``strict`` (used when generating tasks) raises Infeasible when a target spot is not free.
    """
    kind = task.task_type
    blocks = sorted(task.blocks)
    if kind in ("place_on_block", "place_in_bowl"):
        return [(task.param("pick"), task.param("place"))]
    if kind in ("stack_all", "stack_on_place"):
        if kind == "stack_all":
            base = min(blocks, key=lambda b: (distance(positions[b], NAMED_POSITIONS["middle"]), b))
            moves: list[Step] = []
        else:
            place = task.param("place")
            base = min(blocks, key=lambda b: (distance(positions[b], NAMED_POSITIONS[place]), b))
            _free_moves([(base, NAMED_POSITIONS[place])], positions, strict)
            moves = [(base, place)]
        below = base
        for block in (b for b in blocks if b != base):
            moves.append((block, below))
            below = block
        return moves
    if kind == "blocks_on_place":
        place = task.param("place")
        return _rounded(_free_moves(_assign_in_order(blocks, _grid_targets(place, len(blocks)), positions),
                                    positions, strict))
    if kind == "blocks_in_bowl":
        return [(block, task.param("bowl")) for block in blocks]
    if kind == "matching_bowls":
        return [(block, block.replace("block", "bowl")) for block in blocks
                if block.replace("block", "bowl") in task.bowls]
    if kind in ("block_direction_of_bowl", "block_distance_to_bowl", "nth_block_from_side"):
        params = dict(task.params)
        bowl, place = params.get("bowl"), params["place"]
        if kind == "block_direction_of_bowl":
            block = block_in_direction(blocks, bowl, task.param("direction"), positions)
        elif kind == "block_distance_to_bowl":
            farthest = task.param("distance") == "farthest"
            block = _unique_best({b: distance(positions[b], positions[bowl]) for b in blocks}, largest=farthest)
        else:
            block = nth_block_from(blocks, task.param("side"), ORDINALS.index(task.param("nth")), positions)
        _free_moves([(block, NAMED_POSITIONS[place])], positions, strict)
        return [(block, place)]
    if kind == "blocks_in_corners":
        moves = _free_moves(_assign_in_order(blocks, _nearest_corners(blocks, positions), positions), positions, strict)
        return [(block, corner_name(xy)) for block, xy in moves]
    if kind == "mismatched_bowls":
        bowls = sorted(task.bowls)
        return [(block, bowls[(i + 1) % len(bowls)]) for i, block in enumerate(blocks)]
    if kind == "place_relative_to_bowl":
        block, bowl = task.param("pick"), task.param("bowl")
        xy = offset(positions[bowl], task.param("direction"), MAGNITUDES[task.param("magnitude")])
        _free_moves([(block, xy)], positions, strict, ignore=bowl)
        return [(block, f"{task.param('magnitude')} {DIRECTION_PHRASES[task.param('direction')]} the {bowl}")]
    if kind == "corner_closest_to_bowl":
        block, corner = task.param("pick"), corner_closest(positions[task.param("bowl")])
        _free_moves([(block, NAMED_POSITIONS[corner])], positions, strict)
        return [(block, corner)]
    if kind == "blocks_in_line":
        orientation = task.param("orientation")
        for shift in (0.0, 0.1, -0.1, 0.2, -0.2):
            targets = _line_targets(orientation, len(blocks), shift)
            ordered = sorted(blocks, key=lambda b: _line_coordinates([positions[b]], orientation)[0][0][0])
            moves = list(zip(ordered, targets))
            if not strict or all(_free(xy, positions, block) for block, xy in moves):
                return _rounded(moves)
        raise Infeasible("no free line")
    raise ValueError(f"unknown task type {kind}")


def _nearest_corners(blocks: Sequence[str], positions: Positions) -> list[tuple[float, float]]:
    """For fewer than four blocks: the corners that make the least total travel."""
    corners = [NAMED_POSITIONS[c] for c in CORNERS]
    best = min(itertools.combinations(corners, len(blocks)),
               key=lambda combo: min(sum(distance(positions[b], t) for b, t in zip(blocks, perm))
                                     for perm in itertools.permutations(combo)))
    return list(best)


def plan_calls(moves: Sequence[Step], object_names: Sequence[str]) -> list[str]:
    """The oracle's program as lines: one ``put_first_on_second`` per move."""
    lines = []
    for block, target in moves:
        if isinstance(target, tuple):
            lines.append(f"put_first_on_second({block!r}, [{target[0]!r}, {target[1]!r}])")
        elif target in NAMED_POSITIONS or target in object_names:
            lines.append(f"put_first_on_second({block!r}, {target!r})")
        else:
            lines.append(f"put_first_on_second({block!r}, parse_position({target!r}))")
    return lines


# -- generation --------------------------------------------------------------------------------
def _sample_positions(rng: random.Random, kinds: Sequence[str]) -> list[tuple[float, float]] | None:
    placed: list[tuple[float, float]] = []
    for kind in kinds:
        margin = 0.08 if kind == "bowl" else 0.05
        for _ in range(200):
            xy = (round(rng.uniform(-0.3 + margin, 0.3 - margin), 4),
                  round(rng.uniform(-0.8 + margin, -0.2 - margin), 4))
            if all(distance(xy, other) >= (BOWL_SEPARATION if kind == other_kind == "bowl" else MIN_SEPARATION)
                   for other, other_kind in zip(placed, kinds)):
                placed.append(xy)
                break
        else:
            return None
    return placed


_COUNTS = {  # (min blocks, max blocks, min bowls, max bowls)
    "place_on_block": (2, 4, 0, 3), "place_in_bowl": (1, 4, 1, 4), "stack_all": (2, 4, 0, 3),
    "blocks_on_place": (2, 4, 0, 2), "blocks_in_bowl": (2, 3, 1, 3), "matching_bowls": (2, 4, 2, 4),
    "block_direction_of_bowl": (2, 4, 1, 3), "block_distance_to_bowl": (2, 4, 1, 3),
    "nth_block_from_side": (2, 4, 0, 3), "blocks_in_corners": (2, 4, 0, 2), "mismatched_bowls": (2, 4, 2, 4),
    "stack_on_place": (2, 4, 0, 2), "place_relative_to_bowl": (1, 3, 1, 3),
    "corner_closest_to_bowl": (1, 3, 1, 3), "blocks_in_line": (2, 4, 0, 2),
}


def _instruction_and_goals(kind: str, rng: random.Random, blocks: list[str], bowls: list[str],
                           places: Sequence[str]) -> tuple[str, list[Goal], dict]:
    if kind == "place_on_block":
        pick, place = rng.sample(blocks, 2)
        return f"put the {pick} on the {place}", [Goal("on_block", (pick,), place)], {"pick": pick, "place": place}
    if kind == "place_in_bowl":
        pick, bowl = rng.choice(blocks), rng.choice(bowls)
        return f"put the {pick} in the {bowl}", [Goal("in_bowl", (pick,), bowl)], {"pick": pick, "place": bowl}
    if kind == "stack_all":
        return "stack all the blocks", [Goal("stack", tuple(blocks))], {}
    if kind == "blocks_on_place":
        place = rng.choice(places)
        return (f"put all the blocks on the {place}", [Goal("region", (b,), place) for b in blocks],
                {"place": place})
    if kind == "blocks_in_bowl":
        bowl = rng.choice(bowls)
        return f"put all the blocks in the {bowl}", [Goal("in_bowl", (b,), bowl) for b in blocks], {"bowl": bowl}
    if kind == "matching_bowls":
        goals = [Goal("in_bowl", (b,), b.replace("block", "bowl")) for b in blocks]
        return "put all the blocks in the bowls with matching colors", goals, {}
    if kind == "mismatched_bowls":
        return ("put all the blocks in the bowls with mismatched colors",
                [Goal("mismatched", tuple(blocks), tuple(bowls))], {})
    if kind == "blocks_in_corners":
        return "put the blocks in different corners", [Goal("distinct_corners", tuple(blocks))], {}
    if kind == "stack_on_place":
        place = rng.choice(places)
        goals = [Goal("stack", tuple(blocks))] + [Goal("at", (b,), NAMED_POSITIONS[place]) for b in blocks]
        return f"stack all the blocks on the {place}", goals, {"place": place}
    if kind == "blocks_in_line":
        orientation = rng.choice(("horizontal", "vertical", "diagonal"))
        return (f"put all the blocks in a {orientation} line", [Goal("line", tuple(blocks), orientation)],
                {"orientation": orientation})
    raise ValueError(kind)


def _selection_task(kind: str, rng: random.Random, blocks: list[str], bowls: list[str], places: Sequence[str],
                    positions: Positions) -> tuple[str, list[Goal], dict]:
    """Tasks whose object is chosen by a relation in the initial state."""
    place = rng.choice((*places, "middle"))
    if kind == "block_direction_of_bowl":
        bowl, direction = rng.choice(bowls), rng.choice(tuple(DIRECTIONS))
        block = block_in_direction(blocks, bowl, direction, positions)
        text = f"pick up the block {DIRECTION_PHRASES[direction]} the {bowl} and place it on the {place}"
        params = {"bowl": bowl, "direction": direction, "place": place}
    elif kind == "block_distance_to_bowl":
        bowl, which = rng.choice(bowls), rng.choice(("closest", "farthest"))
        block = _unique_best({b: distance(positions[b], positions[bowl]) for b in blocks},
                             largest=which == "farthest")
        text = f"pick up the block {which} to the {bowl} and place it on the {place}"
        params = {"bowl": bowl, "distance": which, "place": place}
    elif kind == "nth_block_from_side":
        side, n = rng.choice(tuple(DIRECTIONS)), rng.randrange(len(blocks))
        block = nth_block_from(blocks, side, n, positions)
        text = f"pick up the {ORDINALS[n]} block from the {side} and place it on the {place}"
        params = {"side": side, "nth": ORDINALS[n], "place": place}
    elif kind == "place_relative_to_bowl":
        block, bowl = rng.choice(blocks), rng.choice(bowls)
        direction, magnitude = rng.choice(tuple(DIRECTIONS)), rng.choice(("a little", "a lot"))
        xy = offset(positions[bowl], direction, MAGNITUDES[magnitude])
        text = f"pick up the {block} and place it {magnitude} {DIRECTION_PHRASES[direction]} the {bowl}"
        return text, [Goal("at", (block,), xy)], {"pick": block, "bowl": bowl, "direction": direction,
                                                   "magnitude": magnitude}
    elif kind == "corner_closest_to_bowl":
        block, bowl = rng.choice(blocks), rng.choice(bowls)
        corner = corner_closest(positions[bowl])
        text = f"pick up the {block} and place it in the corner closest to the {bowl}"
        return text, [Goal("at", (block,), NAMED_POSITIONS[corner])], {"pick": block, "bowl": bowl}
    else:
        raise ValueError(kind)
    return text, [Goal("at", (block,), NAMED_POSITIONS[place])], params


SELECTION_TYPES = ("block_direction_of_bowl", "block_distance_to_bowl", "nth_block_from_side",
                   "place_relative_to_bowl", "corner_closest_to_bowl")


def make_task(task_type: str, index: int, seed: int = 0) -> TabletopTask:
    """The ``index``-th seeded setup of a task type; even indices use seen attributes."""
    split = "seen" if index % 2 == 0 else "unseen"
    colors, places = (SEEN_COLORS, SEEN_PLACES) if split == "seen" else (UNSEEN_COLORS, UNSEEN_PLACES)
    rng = random.Random(f"tabletop/{seed}/{task_type}/{index}")
    lo_blocks, hi_blocks, lo_bowls, hi_bowls = _COUNTS[task_type]
    for _ in range(1000):
        n_blocks = rng.randint(lo_blocks, hi_blocks)
        n_bowls = rng.randint(lo_bowls, hi_bowls)
        block_colors = rng.sample(colors, n_blocks)
        if task_type == "matching_bowls":
            n_bowls = max(n_bowls, n_blocks)
            bowl_colors = block_colors + rng.sample([c for c in colors if c not in block_colors],
                                                    n_bowls - n_blocks)
            rng.shuffle(bowl_colors)
        elif task_type == "mismatched_bowls":
            bowl_colors = rng.sample(block_colors, n_blocks)
        else:
            bowl_colors = rng.sample(colors, n_bowls)
        kinds = ["bowl"] * len(bowl_colors) + ["block"] * n_blocks
        xys = _sample_positions(rng, kinds)
        if xys is None:
            continue
        objects = tuple(ObjectSpec(c, k, xy) for c, k, xy in zip(bowl_colors + block_colors, kinds, xys))
        blocks = sorted(o.name for o in objects if o.kind == "block")
        bowls = sorted(o.name for o in objects if o.kind == "bowl")
        positions = {o.name: (*o.xy, 0.0) for o in objects}
        try:
            if task_type in SELECTION_TYPES:
                text, goals, params = _selection_task(task_type, rng, blocks, bowls, places, positions)
            else:
                text, goals, params = _instruction_and_goals(task_type, rng, blocks, bowls, places)
            task = TabletopTask(f"{task_type}-{index}", task_type, split, text, objects, tuple(goals),
                                tuple(sorted(params.items())))
            oracle_plan(task, positions, strict=True)
        except Infeasible:
            continue
        if task_success(task, positions):  # a goal that already holds: doing nothing would succeed
            continue
        return task
    raise RuntimeError(f"no feasible setup for {task_type} #{index} (seed {seed})")


def builtin_tasks(setups_per_type: int = 7, seed: int = 0) -> list[TabletopTask]:
    return [make_task(kind, i, seed) for kind in TASK_TYPE_NAMES for i in range(setups_per_type)]
