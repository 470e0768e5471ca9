"""Built-in VirtualHome activities: written by toolgym over its seeded homes.

Each activity has a title in the corpus's style ("Turn on television"), goal predicates
(facts of :meth:`VirtualHomeWorld.facts` that must hold at the end) and several solutions
(programs of ``Agent.X(...)`` lines that differ in how they approach the objects: walking to
the room and finding the object, walking straight to it, or running to the room, walking to the
object and turning to it). Every solution is executed in the home from its starting state; a
solution that fails a precondition or misses the goal is dropped, and so is an activity left
with fewer than two solutions or whose goal holds at the start. The activities are split with
a seeded shuffle into test activities and a demonstration pool, as the paper splits the corpus.

Executing every solution is most of the env's make time, and its outcome is a pure function of
this generator's source and the home's seed, so the shuffled activities of each home are kept in
the on-disk cache (:mod:`toolgym.worlds.cache`).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Any

from toolgym.worlds.cache import cached_json
from toolgym.worlds.demos import Demo
from toolgym.worlds.virtualhome.vocabulary import OBJECTS, PROPERTIES
from toolgym.worlds.virtualhome.world import PreconditionFailed, VirtualHomeWorld, layout

#: The modules whose source decides the activities: the planner, the home and its actions, the
#: vocabulary, and the world base whose snapshots the verification restores.
_GENERATOR_MODULES = ("toolgym.worlds.virtualhome.tasks", "toolgym.worlds.virtualhome.world",
                      "toolgym.worlds.virtualhome.vocabulary", "toolgym.worlds.base")


@dataclass(frozen=True)
class Activity:
    """A household activity: its title, goal facts and solution programs (one ``Agent.X(...)`` per line)."""

    title: str
    goal: tuple[tuple, ...]
    solutions: tuple[str, ...]


@dataclass(frozen=True)
class TaskSet:
    test: tuple[Activity, ...]
    demos: tuple[Activity, ...]

    def demo_pool(self) -> list[Demo]:
        return [Demo(a.title, s) for a in self.demos for s in a.solutions]


def _words(name: str) -> str:
    return name.replace("_", " ")


class _Planner:
    """Writes solution variants from the home's starting layout."""

    def __init__(self, seed: int):
        self.places = layout(seed)

    def reach(self, name: str, style: int) -> list[str]:
        room = self.places[name].room
        if room is None:  # a body part
            return []
        if style == 0:
            return [f"Agent.WalkTo({room})", f"Agent.Find({name})"]
        if style == 1:
            return [f"Agent.WalkTo({name})"]
        return [f"Agent.RunTo({room})", f"Agent.WalkTo({name})", f"Agent.TurnTo({name})"]

    def grab(self, name: str, style: int) -> list[str]:
        place = self.places[name]
        steps = self.reach(name, style)
        if place.relation == "inside" and self.places[place.target].is_open is False:
            steps.append(f"Agent.Open({place.target})")
        return [*steps, f"Agent.Grab({name})"]

    def activities(self) -> list[tuple[str, tuple, list[list[str]]]]:
        """(title, goal, candidate solutions) of every template over the home."""
        out: list[tuple[str, tuple, list[list[str]]]] = []
        places = self.places
        styles = (0, 1, 2)

        def add(title: str, goal: tuple, make) -> None:
            out.append((title, goal, [make(s) for s in styles]))

        for name in OBJECTS:
            props, place = PROPERTIES[name], places[name]
            if "switchable" in props and "grabbable" not in props:
                def on(s, n=name, p=place):
                    steps = self.reach(n, s)
                    if p.plugged_in is False:
                        steps.append(f"Agent.PlugIn({n})")
                    if p.is_open and "container" in PROPERTIES[n]:
                        steps.append(f"Agent.Close({n})")
                    return [*steps, f"Agent.SwitchOn({n})"]
                add(f"Turn on {_words(name)}", (("on", name),), on)
                if "lookable" in props:
                    add(f"Watch {_words(name)}", (("on", name), ("did", "Watch", name)),
                        lambda s, n=name: [*on(s, n), f"Agent.Watch({n})"])
            if "openable" in props and "grabbable" not in props and "switchable" not in props:
                if place.is_open:
                    add(f"Close {_words(name)}", (("closed", name),),
                        lambda s, n=name: [*self.reach(n, s), f"Agent.Close({n})"])
                else:
                    add(f"Open {_words(name)}", (("open", name),),
                        lambda s, n=name: [*self.reach(n, s), f"Agent.Open({n})"])
            if "sittable" in props:
                add(f"Sit on {_words(name)}", (("sitting_on", name),),
                    lambda s, n=name: [*self.reach(n, s), f"Agent.SitOn({n})"])
            if "lieable" in props:
                add(f"Take a nap on {_words(name)}", (("lying_on", name), ("asleep",)),
                    lambda s, n=name: [*self.reach(n, s), f"Agent.LieOn({n})", "Agent.Sleep()"])
            if "readable" in props and "grabbable" in props:
                add(f"Read {_words(name)}", (("did", "Read", name),),
                    lambda s, n=name: [*self.grab(n, s), f"Agent.Read({n})"])
            if "clothes" in props and "grabbable" in props:
                add(f"Put on {_words(name)}", (("wears", name),),
                    lambda s, n=name: [*self.grab(n, s), f"Agent.PutOn({n})"])
            if "drinkable" in props and "grabbable" in props:
                add(f"Drink {_words(name)}", (("did", "Drink", name),),
                    lambda s, n=name: [*self.grab(n, s), f"Agent.Drink({n})"])
            if "eatable" in props and "grabbable" in props:
                add(f"Eat {_words(name)}", (("did", "Eat", name),),
                    lambda s, n=name: [*self.grab(n, s), f"Agent.Eat({n})"])
            if "person" in props:
                add(f"Greet {_words(name)}", (("did", "Greet", name),),
                    lambda s, n=name: [*self.reach(n, s), f"Agent.Greet({n})"])
            if "has_plug" in props and "grabbable" not in props and place.plugged_in is False:
                add(f"Plug in {_words(name)}", (("plugged_in", name),),
                    lambda s, n=name: [*self.reach(n, s), f"Agent.PlugIn({n})"])
            if place.clean is False:
                add(f"Wash {_words(name)}", (("clean", name),),
                    lambda s, n=name: [*self.grab(n, s), "Agent.WalkTo(sink)", f"Agent.Wash({n})"])
            if "grabbable" in props:
                home = {"eatable": "freezer", "clothes": "washing_machine"}
                target = next((c for p, c in home.items() if p in props), None)
                if target is None and place.clean is False:
                    target = "dishwasher"
                if target is not None and place.target != target:
                    def put_in(s, n=name, c=target):
                        steps = [*self.grab(n, s), f"Agent.WalkTo({c})"]
                        if not places[c].is_open:
                            steps.append(f"Agent.Open({c})")
                        return [*steps, f"Agent.PutIn({n}, {c})"]
                    add(f"Put {_words(name)} in {_words(target)}", (("inside", name, target),), put_in)
                elif name in ("novel", "remote_control", "phone", "cup", "newspaper", "check", "mail", "keys",
                              "toy", "bookmark", "spectacles", "coin") and place.target != "table":
                    add(f"Put {_words(name)} on table", (("ontop", name, "table"),),
                        lambda s, n=name: [*self.grab(n, s), "Agent.WalkTo(table)", f"Agent.Put({n}, table)"])
            if "pourable" in props and "grabbable" in props and "drinkable" in props:
                add(f"Pour {_words(name)} into cup", (("contains", "cup", name),),
                    lambda s, n=name: [*self.grab(n, s), "Agent.WalkTo(cup)", f"Agent.Pour({n}, cup)"])
        return out


def execute(world: VirtualHomeWorld, program: str) -> str | None:
    """Run a solution from the world's current state; the first failure, or None."""
    for number, line in enumerate(program.split("\n"), start=1):
        action, _, rest = line[len("Agent."):].partition("(")
        arguments = [a.strip() for a in rest.rstrip(")").split(",") if a.strip()]
        try:
            world.act(action, arguments)
        except PreconditionFailed as exc:
            return f"line {number} ({line}): {exc}"
    return None


def verified(world: VirtualHomeWorld, title: str, goal: tuple, candidates: list[list[str]]) -> Activity | None:
    """The activity with the candidates that reach the goal, or None (see the module docstring)."""
    start = world.snapshot()
    if set(goal) <= world.facts():
        return None
    solutions = []
    for steps in candidates:
        program = "\n".join(steps)
        if program in solutions:
            continue
        world.restore(start)
        if execute(world, program) is None and set(goal) <= world.facts():
            solutions.append(program)
    world.restore(start)
    return Activity(title, goal, tuple(solutions)) if len(solutions) >= 2 else None


def generate_activities(world_seed: int) -> list[Activity]:
    """Every verified activity of home ``world_seed``, in the seeded order of the split."""
    world = VirtualHomeWorld(seed=world_seed)
    activities = [a for title, goal, candidates in _Planner(world_seed).activities()
                  if (a := verified(world, title, goal, candidates)) is not None]
    activities.sort(key=lambda a: a.title)
    random.Random(f"virtualhome-split:{world_seed}").shuffle(activities)
    return activities


def _encode(activities: list[Activity]) -> list:
    """Activities as JSON values: ``[title, goal facts, solutions]`` each."""
    return [[a.title, [list(fact) for fact in a.goal], list(a.solutions)] for a in activities]


def _decode(entries: list[Any]) -> list[Activity]:
    """The activities :func:`_encode` wrote (JSON has no tuples: goals and solutions become tuples again)."""
    return [Activity(title, tuple(tuple(fact) for fact in goal), tuple(solutions))
            for title, goal, solutions in entries]


@functools.lru_cache(maxsize=8)
def builtin_tasks(world_seed: int = 0, num_test: int = 100) -> TaskSet:
    """The built-in activities of home ``world_seed``: ``num_test`` test activities, the rest demonstrations.

    The activities come from the on-disk cache when it holds them (see the module docstring).

    Raises:
        ValueError: The home has fewer than ``num_test + 1`` activities.
    """
    activities = cached_json("virtualhome-activities", world_seed, _GENERATOR_MODULES,
                             lambda: generate_activities(world_seed), _encode, _decode)
    if len(activities) <= num_test:
        raise ValueError(f"VirtualHome-v0: home {world_seed} has {len(activities)} activities; num_test must be "
                         f"less than that, got {num_test}")
    return TaskSet(tuple(activities[:num_test]), tuple(activities[num_test:]))
