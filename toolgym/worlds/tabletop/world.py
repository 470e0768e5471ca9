"""The tabletop world: the simulation of one task and the perception-and-action API.

The API is what Code-as-Policies programs call (``get_obj_names``, ``get_obj_pos``,
``parse_position``, ``put_first_on_second``, ...). Every function checks its arguments
before touching the simulation and reports bad input with a ProgramError whose message is
meant for the agent, so a failing call changes nothing.
"""

from __future__ import annotations

import inspect
import math
from typing import Any
from collections.abc import Callable

from toolgym.worlds.program_interpreter import ProgramError
from toolgym.worlds.tabletop import layout
from toolgym.worlds.tabletop.sim import TabletopSim
from toolgym.worlds.tabletop.tasks import TabletopTask, task_success

MAX_PICK_PLACES = 20
REACH_MARGIN = 0.05  # placements may lie this far outside the workspace


def _xy(value: Any, what: str = "position") -> tuple[float, float]:
    if isinstance(value, (list, tuple)) and len(value) in (2, 3) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return (float(value[0]), float(value[1]))
    raise ProgramError(f"a {what} must be a list [x, y] of two numbers, got {value!r:.80}")


class TabletopWorld:
    """A PyBullet tabletop holding one task's setup; ``reset(task)`` rebuilds it exactly."""

    def __init__(self, max_pick_places: int = MAX_PICK_PLACES):
        self.sim = TabletopSim()
        self.max_pick_places = max_pick_places
        self.task: TabletopTask | None = None
        self.said: list[str] = []
        self.log: list[str] = []

    def close(self) -> None:
        self.sim.close()

    def reset(self, task: TabletopTask) -> None:
        self.task = task
        self.sim.build(task.objects)
        self.said, self.log = [], []

    def positions(self) -> dict[str, tuple[float, float, float]]:
        return self.sim.positions()

    def success(self) -> bool:
        return task_success(self.task, self.positions())

    def render(self):
        return self.sim.render()

    # -- the API -----------------------------------------------------------------------------
    def functions(self) -> dict[str, Callable]:
        return {name: getattr(self, name) for name in API_FUNCTIONS}

    def _object(self, name: Any) -> str:
        if not isinstance(name, str):
            raise ProgramError(f"an object name must be text, got {type(name).__name__}")
        if name not in self.sim.objects:
            raise ProgramError(f"unknown object {name!r:.80}; the objects are {list(self.sim.objects)}")
        return name

    def _xy_of(self, name: str) -> tuple[float, float]:
        x, y, _ = self.sim.positions()[name]
        return (x, y)

    def get_obj_names(self) -> list[str]:
        """The names of the objects on the table, e.g. ['blue block', 'red bowl']."""
        return list(self.sim.objects)

    def get_obj_pos(self, name: str) -> list[float]:
        """The [x, y] position (meters) of an object."""
        return [round(v, 4) for v in self._xy_of(self._object(name))]

    def is_obj_visible(self, name: str) -> bool:
        """Whether an object of that name is on the table."""
        if not isinstance(name, str):
            raise ProgramError(f"an object name must be text, got {type(name).__name__}")
        return name in self.sim.objects

    def parse_position(self, description: str) -> list[float]:
        """The [x, y] of a description: a named position ('top left corner', 'middle', 'left side'),
        an object name, 'a little to the left of the blue bowl', '10 cm above the red block',
        'the corner closest to the blue bowl', 'between the red block and the blue bowl'."""
        objects = {name: self._xy_of(name) for name in self.sim.objects}
        try:
            return [round(v, 4) for v in layout.parse_position(description, objects)]
        except ValueError as exc:
            raise ProgramError(str(exc)) from None

    def get_corner_name(self, pos: list[float]) -> str:
        """The name of the table corner nearest to a position [x, y]."""
        return layout.corner_name(_xy(pos))

    def get_side_name(self, pos: list[float]) -> str:
        """The name of the table side nearest to a position [x, y]."""
        return layout.side_name(_xy(pos))

    def denormalize_xy(self, pos: list[float]) -> list[float]:
        """Map [0..1, 0..1] (0, 0 = bottom left corner) to table coordinates [x, y]."""
        return [round(v, 4) for v in layout.denormalize(_xy(pos, "normalized position"))]

    def put_first_on_second(self, obj: str, target: str | list[float]) -> bool:
        """Pick up the object ``obj`` and place it on ``target``: an object name, a position
        description (see parse_position) or a position [x, y]. Returns whether the grasp held."""
        name = self._object(obj)
        if isinstance(target, str):
            if target == name:
                raise ProgramError(f"cannot put the {name} on itself")
            place = self._xy_of(target) if target in self.sim.objects else tuple(self.parse_position(target))
        else:
            place = _xy(target, "target")
        if not layout.in_workspace(place, margin=REACH_MARGIN):
            raise ProgramError(f"the target ({place[0]:.3f}, {place[1]:.3f}) is off the table: the workspace is "
                               f"x in [-0.3, 0.3], y in [-0.8, -0.2]")
        for what, xy in (("object", self._xy_of(name)), ("target", place)):
            if self.sim.unreachable(xy):
                raise ProgramError(f"the arm cannot reach the {what} at ({xy[0]:.3f}, {xy[1]:.3f}) from above")
        if self.sim.pick_place_count >= self.max_pick_places:
            raise ProgramError(f"the robot has done its {self.max_pick_places} pick-and-places for this episode")
        result = self.sim.pick_place(self._xy_of(name), place)
        self.log.append(result.message)
        return result.grasped

    def say(self, message: str) -> None:
        """Say something to the user (recorded in the observation)."""
        self.said.append(str(message)[:500])


API_FUNCTIONS = ("get_obj_names", "get_obj_pos", "is_obj_visible", "parse_position", "get_corner_name",
                 "get_side_name", "denormalize_xy", "put_first_on_second", "say")


def api_docs() -> str:
    """One line per API function: its signature and what it does."""
    lines = []
    for name in API_FUNCTIONS:
        function = getattr(TabletopWorld, name)
        signature = str(inspect.signature(function, eval_str=True)).replace("(self, ", "(").replace("(self)", "()")
        doc = " ".join(inspect.getdoc(function).split())
        lines.append(f"{name}{signature}: {doc}")
    return "\n".join(lines)
