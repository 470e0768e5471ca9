"""The tabletop world: the simulation of one task and the perception-and-action API.

The API is what Code-as-Policies programs call (``get_obj_names``, ``get_obj_pos``,
``parse_position``, ``put_first_on_second``, ...). Every function checks its arguments
before touching the simulation and reports bad input with a ProgramError whose message is
meant for the agent, so a failing call changes nothing. The world is its own toolkit: the
functions are marked as tools, so their schemas come from their signatures and docstrings.
"""

from __future__ import annotations

import inspect
import math
from typing import Any
from collections.abc import Callable

from toolgym.worlds.interpreter import Profile, ProgramError, call_source, code_as_policies, preview
from toolgym.worlds.tabletop import layout
from toolgym.worlds.tabletop.sim import TabletopSim
from toolgym.worlds.tabletop.tasks import TabletopTask, task_success
from toolgym.worlds.tools import ACTION, READ, Toolkit, parse_docstring, tool

APP = "Tabletop"
MAX_PICK_PLACES = 20
MAX_SAID = 500  # characters of one say() kept in the observation
REACH_MARGIN = 0.05  # placements may lie this far outside the workspace


def _xy(value: Any, what: str = "position") -> tuple[float, float]:
    if isinstance(value, (list, tuple)) and len(value) in (2, 3) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return (float(value[0]), float(value[1]))
    raise ProgramError(f"a {what} must be a list [x, y] of two numbers, got {value!r:.80}")


class TabletopWorld(Toolkit):
    """A PyBullet tabletop holding one task's setup; ``reset(task)`` rebuilds it exactly."""

    def __init__(self, max_pick_places: int = MAX_PICK_PLACES):
        super().__init__(world=self)
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

    @staticmethod
    def call_source(name: Any, arguments: Any) -> str:
        """The statement ``name(key=value, ...)`` of a JSON tool call, as program text."""
        if name not in API_FUNCTIONS:
            raise ProgramError(f"unknown function {str(name)[:80]!r}; available: {', '.join(API_FUNCTIONS)}")
        return call_source(name, arguments)

    def _object(self, name: Any) -> str:
        if not isinstance(name, str):
            raise ProgramError(f"an object name must be text, got {type(name).__name__}")
        if name not in self.sim.objects:
            raise ProgramError(f"unknown object {name!r:.80}; the objects are {list(self.sim.objects)}")
        return name

    def _xy_of(self, name: str) -> tuple[float, float]:
        x, y, _ = self.sim.positions()[name]
        return (x, y)

    @tool(kind=READ, app=APP)
    def get_obj_names(self) -> list[str]:
        """The names of the objects on the table, e.g. ['blue block', 'red bowl']."""
        return list(self.sim.objects)

    @tool(kind=READ, app=APP)
    def get_obj_pos(self, name: str) -> list[float]:
        """The [x, y] position (meters) of an object.

        Args:
            name: The object, e.g. "blue block".
        """
        return [round(v, 4) for v in self._xy_of(self._object(name))]

    @tool(kind=READ, app=APP)
    def is_obj_visible(self, name: str) -> bool:
        """Whether an object of that name is on the table.

        Args:
            name: The object, e.g. "red bowl".
        """
        if not isinstance(name, str):
            raise ProgramError(f"an object name must be text, got {type(name).__name__}")
        return name in self.sim.objects

    @tool(kind=READ, app=APP)
    def parse_position(self, description: str) -> list[float]:
        """The [x, y] of a description: a named position ('top left corner', 'middle', 'left side'),
        an object name, 'a little to the left of the blue bowl', '10 cm above the red block',
        'the corner closest to the blue bowl', 'between the red block and the blue bowl'.

        Args:
            description: The position in words.
        """
        objects = {name: self._xy_of(name) for name in self.sim.objects}
        try:
            return [round(v, 4) for v in layout.parse_position(description, objects)]
        except ValueError as exc:
            raise ProgramError(str(exc)) from None

    @tool(kind=READ, app=APP)
    def get_corner_name(self, pos: list[float]) -> str:
        """The name of the table corner nearest to a position [x, y].

        Args:
            pos: The position [x, y] in meters.
        """
        return layout.corner_name(_xy(pos))

    @tool(kind=READ, app=APP)
    def get_side_name(self, pos: list[float]) -> str:
        """The name of the table side nearest to a position [x, y].

        Args:
            pos: The position [x, y] in meters.
        """
        return layout.side_name(_xy(pos))

    @tool(kind=READ, app=APP)
    def denormalize_xy(self, pos: list[float]) -> list[float]:
        """Map [0..1, 0..1] (0, 0 = bottom left corner) to table coordinates [x, y].

        Args:
            pos: The normalized position [u, v].
        """
        return [round(v, 4) for v in layout.denormalize(_xy(pos, "normalized position"))]

    @tool(kind=ACTION, app=APP)
    def put_first_on_second(self, obj: str, target: str | list[float]) -> bool:
        """Pick up the object ``obj`` and place it on ``target``: an object name, a position
        description (see parse_position) or a position [x, y]. Returns whether the grasp held.

        Args:
            obj: The object to pick up, e.g. "red block".
            target: Where to place it: an object name, a position description or [x, y].
        """
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

    @tool(kind=ACTION, app=APP)
    def say(self, message: str) -> None:
        """Say something to the user (recorded in the observation).

        Args:
            message: What to say.
        """
        self.said.append(preview(message, MAX_SAID, as_text=True))


API_FUNCTIONS = tuple(name for name, method in vars(TabletopWorld).items() if hasattr(method, "__tool_meta__"))
#: What Tabletop's programs may say: Code as Policies over the API functions.
PROFILE: Profile = code_as_policies(API_FUNCTIONS)


def api_docs() -> str:
    """One line per API function: its signature and what it does."""
    lines = []
    for name in API_FUNCTIONS:
        function = getattr(TabletopWorld, name)
        signature = str(inspect.signature(function, eval_str=True)).replace("(self, ", "(").replace("(self)", "()")
        description, _ = parse_docstring(inspect.getdoc(function))
        lines.append(f"{name}{signature}: {description}")
    return "\n".join(lines)
