"""Tools derived through worlds/tools.py: GoogleSheets' and VirtualHome's schemas are the ones the
envs wrote by hand before (kept, byte for byte, in tests/data/tool_schemas/), and the toolkits run."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
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
