"""Tabletop geometry, success predicates and task generation (pure Python: no pybullet)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from toolgym.worlds.tabletop import layout
from toolgym.worlds.tabletop.assets import ASSET_DIR, ASSETS
from toolgym.worlds.tabletop.tasks import (
    TASK_TYPE_NAMES, Goal, TabletopTask, builtin_tasks, goal_met, in_bowl, in_region, is_line, is_stack,
    make_task, on_block, oracle_plan, plan_calls, task_success,
)

OBJECTS = {"red block": (0.1, -0.4), "blue bowl": (-0.1, -0.6)}


@pytest.mark.parametrize("text, xy", [
    ("top left corner", (-0.25, -0.25)),
    ("the Bottom Right Corner.", (0.25, -0.75)),
    ("middle", (0.0, -0.5)),
    ("center", (0.0, -0.5)),
    ("left side", (-0.25, -0.5)),
    ("top", (0.0, -0.25)),
    ("red block", (0.1, -0.4)),
    ("a little to the left of the blue bowl", (-0.2, -0.6)),
    ("a lot above the blue bowl", (-0.1, -0.4)),
    ("10 cm below the red block", (0.1, -0.5)),
    ("to the right of the top left corner", (-0.15, -0.25)),
    ("the corner closest to the blue bowl", (-0.25, -0.75)),
    ("the side farthest from the red block", (-0.25, -0.5)),
    ("between the red block and the blue bowl", (0.0, -0.5)),
])
def test_parse_position(text, xy):
    assert layout.parse_position(text, OBJECTS) == pytest.approx(xy)


@pytest.mark.parametrize("text", ["nowhere", "left of the purple bowl", ""])
def test_parse_position_errors_name_the_grammar(text):
    with pytest.raises(ValueError, match="cannot parse the position"):
        layout.parse_position(text, OBJECTS)


def test_a_position_nested_past_the_bound_is_an_error_not_a_recursion_error():
    """1,300 "left of"s (10 KB, a program's string) raised RecursionError out of the tool (issue 46)."""
    assert layout.parse_position("left of " * 20 + "middle", OBJECTS) == pytest.approx((-2.0, -0.5))
    with pytest.raises(ValueError, match="^the position nests more than 20 descriptions$"):
        layout.parse_position("left of " * 1300 + "middle", OBJECTS)


def test_corner_side_and_denormalize():
    assert layout.corner_name((0.2, -0.3)) == "top right corner"
    assert layout.side_name((-0.01, -0.72)) == "bottom side"
    assert layout.denormalize((0, 0)) == pytest.approx((-0.3, -0.8))
    assert layout.denormalize((1, 1)) == pytest.approx((0.3, -0.2))
    assert layout.denormalize((0.5, 0.5)) == pytest.approx(layout.NAMED_POSITIONS["middle"])


def test_predicates_on_constructed_states():
    bowl = (0.0, -0.5, 0.001)
    assert in_bowl((0.03, -0.52, 0.03), bowl)
    assert not in_bowl((0.07, -0.5, 0.03), bowl)            # too far sideways
    assert not in_bowl((0.0, -0.5, 0.0), (0.0, -0.5, 0.01))  # below the bowl
    block = (0.1, -0.4, 0.02)
    assert on_block((0.12, -0.41, 0.06), block)
    assert not on_block((0.15, -0.4, 0.06), block)           # 0.05 off: over the 0.04 threshold
    assert not on_block((0.1, -0.4, 0.03), block)            # not above it
    assert is_stack([(0.1, -0.4, 0.02), (0.1, -0.4, 0.1), (0.11, -0.4, 0.06)])
    assert not is_stack([(0.1, -0.4, 0.02), (0.1, -0.4, 0.06), (0.2, -0.4, 0.02)])
    assert in_region((-0.22, -0.3, 0.02), "top left corner")
    assert not in_region((-0.1, -0.3, 0.02), "top left corner")
    assert in_region((0.02, -0.78, 0.02), "bottom side") and not in_region((0.02, -0.6, 0.02), "bottom side")


def test_line_predicates():
    row = [(-0.1, -0.5, 0.02), (0.0, -0.51, 0.02), (0.1, -0.49, 0.02)]
    assert is_line(row, "horizontal") and not is_line(row, "vertical") and not is_line(row, "diagonal")
    column = [(y + 0.5, x - 0.5, 0.02) for x, y, _ in row]
    assert is_line(column, "vertical") and not is_line(column, "horizontal")
    diagonal = [(t, -0.5 - t, 0.02) for t in (-0.1, 0.0, 0.1)]
    assert is_line(diagonal, "diagonal") and not is_line(diagonal, "horizontal")
    stacked = [(0.0, -0.5, 0.02), (0.0, -0.5, 0.06), (0.1, -0.5, 0.02)]
    assert not is_line(stacked, "horizontal")  # overlapping blocks are not a line


def test_goal_kinds_on_constructed_states():
    positions = {"red block": (-0.25, -0.25, 0.02), "blue block": (0.25, -0.75, 0.02),
                 "red bowl": (0.0, -0.5, 0.0), "blue bowl": (0.2, -0.4, 0.0)}
    assert goal_met(Goal("distinct_corners", ("red block", "blue block")), positions)
    positions_same = {**positions, "blue block": (-0.24, -0.26, 0.06)}
    assert not goal_met(Goal("distinct_corners", ("red block", "blue block")), positions_same)
    mixed = {**positions, "red block": (0.2, -0.4, 0.03), "blue block": (0.0, -0.5, 0.03)}
    assert goal_met(Goal("mismatched", ("red block", "blue block"), ("red bowl", "blue bowl")), mixed)
    matched = {**positions, "red block": (0.0, -0.5, 0.03), "blue block": (0.2, -0.4, 0.03)}
    assert not goal_met(Goal("mismatched", ("red block", "blue block"), ("red bowl", "blue bowl")), matched)
    assert goal_met(Goal("at", ("red block",), (-0.2, -0.27)), positions)
    assert not goal_met(Goal("at", ("red block",), (-0.18, -0.25)), positions)  # 0.07 > 0.06


def test_builtin_task_set_has_15_types_by_7_setups():
    tasks = builtin_tasks()
    assert len(tasks) == 105 and len(TASK_TYPE_NAMES) == 15
    assert Counter(t.task_type for t in tasks) == {name: 7 for name in TASK_TYPE_NAMES}
    assert Counter(t.split for t in tasks) == {"seen": 60, "unseen": 45}
    for task in tasks:
        colors = layout.SEEN_COLORS if task.split == "seen" else layout.UNSEEN_COLORS
        assert {o.color for o in task.objects} <= set(colors)
        assert 1 <= len(task.blocks) <= 4 and len(task.bowls) <= 4
        xys = [o.xy for o in task.objects]
        assert min(layout.distance(a, b) for i, a in enumerate(xys) for b in xys[i + 1:]) >= 0.15
        oracle_plan(task, {o.name: (*o.xy, 0.0) for o in task.objects}, strict=True)


def test_tasks_are_seeded():
    assert make_task("stack_all", 3, seed=0) == make_task("stack_all", 3, seed=0)
    assert make_task("stack_all", 3, seed=0).objects != make_task("stack_all", 3, seed=1).objects


def test_oracle_plan_reads_the_world_state():
    task = make_task("block_distance_to_bowl", 0)
    positions = {o.name: (*o.xy, 0.0) for o in task.objects}
    plan = oracle_plan(task, positions)
    assert len(plan) == 1 and plan[0][1] == task.param("place")
    bowl = positions[task.param("bowl")]
    distances = {b: layout.distance(positions[b], bowl) for b in task.blocks}
    chosen = (min if task.param("distance") == "closest" else max)(distances, key=distances.get)
    assert plan[0][0] == chosen
    line = make_task("blocks_in_line", 0)
    calls = plan_calls(oracle_plan(line, {o.name: (*o.xy, 0.0) for o in line.objects}), line.object_names)
    assert all(call.startswith("put_first_on_second(") for call in calls) and len(calls) == len(line.blocks)


def test_no_built_in_task_is_solved_before_the_first_action():
    """blocks_in_line-0 once started with its blocks in a line: a model whose program was refused
    scored a success (the first CPU baseline's only Tabletop success)."""
    for task in builtin_tasks():
        assert not task_success(task, {o.name: (*o.xy, 0.0) for o in task.objects}), task.task_id


def test_task_success_needs_every_goal():
    task = TabletopTask("t", "stack_all", "seen", "stack all the blocks", (), (
        Goal("stack", ("a block", "b block")), Goal("at", ("a block",), (0.0, -0.5))))
    assert task_success(task, {"a block": (0.0, -0.5, 0.02), "b block": (0.0, -0.5, 0.06)})
    assert not task_success(task, {"a block": (0.1, -0.5, 0.02), "b block": (0.1, -0.5, 0.06)})


def test_packaged_assets_match_the_generator():
    for name, make in ASSETS.items():
        assert (ASSET_DIR / name).read_text(encoding="utf-8") == make()


def test_import_toolgym_does_not_import_pybullet():
    code = ("import sys, toolgym, toolgym.worlds.tabletop, toolgym.worlds.tabletop.tasks; "
            "print('pybullet' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
