"""Tools derived through worlds/tools.py: VirtualHome's schemas are the ones the env wrote by hand
before (kept, byte for byte, in tests/data/tool_schemas/), and the toolkit runs."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.worlds.virtualhome.tools import HomeTools
from toolgym.worlds.virtualhome.world import VirtualHomeWorld

SCHEMAS = Path(__file__).parent / "data" / "tool_schemas"


@pytest.mark.parametrize("env_id", ["VirtualHome-v0"])
def test_info_tools_are_the_schemas_written_by_hand_before(env_id):
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
