"""Tools derived through worlds/tools.py: GoogleSheets' and VirtualHome's schemas are the ones the
envs wrote by hand before (kept, byte for byte, in tests/data/tool_schemas/), the toolkits run,
the schemas are pydantic's for every kind of annotation, and Tau2-v0's are τ²-bench's own."""

from __future__ import annotations

import contextlib
import enum
import json
import typing
from pathlib import Path
from typing import Literal

import gymnasium as gym
import pytest
import typing_extensions

import toolgym  # noqa: F401
from toolgym.worlds.tools import READ, Toolkit, _house_shape, function_schema, tool
from toolgym.worlds.virtualhome.tools import HomeTools
from toolgym.worlds.virtualhome.world import VirtualHomeWorld

SCHEMAS = Path(__file__).parent / "data" / "tool_schemas"


@pytest.mark.parametrize("env_id", ["GoogleSheets-v0", "VirtualHome-v0"])
def test_info_tools_are_the_schemas_written_by_hand_before(env_id):
    if env_id == "GoogleSheets-v0":
        pytest.importorskip("gspread")
    expected = json.loads((SCHEMAS / f"{env_id}.json").read_text())
    for mode, tools in expected.items():
        _, info = gym.make(env_id, mode=mode).reset(seed=0)
        assert json.dumps(info["tools"]) == json.dumps(tools), (env_id, mode)


def test_home_tools_are_declared_from_the_vocabulary_and_run_on_the_world():
    tools = HomeTools(VirtualHomeWorld(seed=0))
    assert len(HomeTools.specs) == 40 and all(spec.is_action and spec.declared for spec in HomeTools.specs.values())
    assert list(HomeTools.specs["Put"].parameters) == ["object1", "object2"] and not HomeTools.specs["Sleep"].parameters
    assert tools.call("WalkTo", {"object": "bedroom"}).response == "Walked: the agent is in the bedroom."
    assert ("in_room", "bedroom") in tools.world.facts()
    refused = tools.call("Grab", {"object": "sofa"})
    assert refused.error == "there is no 'sofa' in this home" and refused.is_action
    assert tools.call("Grab", {"object": "cup", "hand": "left"}).error == \
        "Invalid arguments for Grab: hand: unexpected argument"
    assert tools.call("Put", {"object1": "cup"}).error == "Invalid arguments for Put: object2: Field required"


def test_sheets_tool_runs_a_program_and_undoes_a_failing_one():
    pytest.importorskip("gspread")
    pytest.importorskip("gspread_dataframe")
    from toolgym.worlds.sheets.tools import SheetsTools
    from toolgym.worlds.sheets.world import SheetsWorld

    world = SheetsWorld(seed=0)
    tools = SheetsTools(world, max_requests=200, keep_names=True)
    tools.open("employees")

    def a1() -> str:
        return world.client().open_by_key("employees").sheet1.acell("A1").value

    assert tools.call("run_program", {"program": "x = 1\nworksheet.update_acell('A1', 'first')"}).ok
    assert a1() == "first" and tools.interpreter.variables["x"] == 1
    failed = tools.call("run_program", {"program": "x = 2\nworksheet.update_acell('A1', 'second')\n"
                                                   "worksheet.delete_rows(5000)"})
    assert failed.error.startswith("line 3: Worksheet.delete_rows(): APIError")
    assert a1() == "first" and tools.interpreter.variables["x"] == 1
    assert tools.call("run_program", {"program": "import os"}).error == "line 1: import is not allowed"
    assert tools.call("run_program", {"program": ""}).error == "the program is empty"


class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Position(typing.TypedDict):
    x: int


class Point(Position, total=False):
    label: str


class Box(typing_extensions.TypedDict):
    corners: list[Point]


class Shapes(Toolkit):
    @tool(kind=READ, app="shapes")
    def draw(self, box: Box, points: list[list[Point]], colour: Colour, style: Literal["solid", "dashed"] = "solid",
             width: int | None = None, tags: dict | None = None) -> str:
        """Draw a box.

        Longer text, on
        two lines.

        Args:
            box: The box to draw,
                continued on a second line.
            points: Rows of points.
            colour: Its colour.
        """
        return "drawn"


def test_schemas_are_pydantics_for_typeddicts_of_either_module_enums_literals_lists_and_optionals():
    # a TypedDict without a config of its own refuses unknown keys, as the arguments do, and says so
    point = {"type": "object", "additionalProperties": False,
             "properties": {"x": {"type": "integer"}, "label": {"type": "string"}}, "required": ["x"]}
    assert Shapes.specs["draw"].schema() == {"type": "function", "function": {
        "name": "draw", "description": "Draw a box. Longer text, on two lines.", "parameters": {
            "type": "object", "properties": {
                "box": {"type": "object", "additionalProperties": False,
                        "properties": {"corners": {"type": "array", "items": point}},
                        "required": ["corners"], "description": "The box to draw, continued on a second line."},
                "points": {"type": "array", "items": {"type": "array", "items": point}, "description": "Rows of points."},
                "colour": {"type": "string", "enum": ["red", "blue"], "description": "Its colour."},
                "style": {"type": "string", "enum": ["solid", "dashed"]},
                "width": {"type": "integer"},
                "tags": {"type": "object"}},
            "required": ["box", "points", "colour"]}}}
    class Paper:  # the toolkit's world: nothing to roll back
        def atomic(self, write):
            return contextlib.nullcontext()

    call = Shapes(Paper()).call("draw", {"box": {"corners": [{"x": "3"}]}, "points": [], "colour": "red"})
    assert call.ok and call.response == "drawn"
    refused = Shapes(Paper()).call("draw", {"box": {"corners": [{"y": 1}]}, "points": [], "colour": "green"})
    assert refused.error == ("Invalid arguments for draw: box.corners.0.x: Field required; "
                             "box.corners.0.y: unexpected argument; colour: Input should be 'red' or 'blue'")


def _house(schema: dict) -> dict:
    """τ²'s schema in the house's shape: what toolgym's mechanism makes of the same pydantic schema."""
    function = schema["function"]
    parameters = _house_shape(function["parameters"])
    return function_schema(function["name"], " ".join(function["description"].split()),
                           parameters.get("properties", {}), parameters.get("required", []))


def _one_line_descriptions(node):
    if isinstance(node, dict):
        return {k: " ".join(v.split()) if k == "description" and isinstance(v, str) else _one_line_descriptions(v)
                for k, v in node.items()}
    return [_one_line_descriptions(v) for v in node] if isinstance(node, list) else node


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "mock"])
def test_every_tau2_tool_is_tau2s_own_openai_schema(domain):
    """τ²'s ``Tool.openai_schema`` of every tool (tests/data/tau2/openai_schemas.json, written by
    benchmarks/tau2_openai_schemas.py from τ²'s code) in the house's shape: pydantic's titles, $defs,
    defaults and nullables as every toolgym schema has them, and descriptions on one line."""
    expected = json.loads((Path(__file__).parent / "data" / "tau2" / "openai_schemas.json").read_text())
    env = gym.make("Tau2-v0", domain=domain).unwrapped
    for side, ours in (("assistant", env.tools), ("user", env.user_tools)):
        theirs = {s["function"]["name"]: _one_line_descriptions(_house(s)) for s in expected[domain].get(side, [])}
        ours = {s["function"]["name"]: s for s in ours or []}
        assert sorted(ours) == sorted(theirs), (domain, side)
        for name, schema in ours.items():
            assert json.dumps(schema) == json.dumps(theirs[name]), (domain, side, name)
