"""VirtualHome-v0's official data: the ToolBench file or language-planner's corpus, and the goal
checks of its activities."""

from __future__ import annotations

import os
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from toolgym.envs.common.official import (OfficialDataError, OfficialLayout, read_json, read_jsonl, require_key,
                                          toolbench_layout)
from toolgym.worlds.demos import Demo
from toolgym.worlds.interpreter import Profile
from toolgym.worlds.virtualhome.program import program_lines, read_line
from toolgym.worlds.virtualhome.tasks import execute
from toolgym.worlds.virtualhome.vocabulary import PROPERTIES, ROOMS, argument_names
from toolgym.worlds.virtualhome.world import VirtualHomeWorld

TOOLBENCH_LAYOUT = toolbench_layout("virtual_home", name="VirtualHome (ToolBench)", expected=("*.jsonl",),
                                    also_reads=("valid_object_lists*.json",))
CORPUS_LAYOUT = OfficialLayout(name="VirtualHome (language-planner)", benchmark="virtualhome",
                               expected=("available_examples.json",), also_reads=("valid_object_lists*.json",),
                               source="huangwl18/language-planner on GitHub (MIT): src/available_examples.json")

# "Walk to home office" -> WalkTo(home_office): the corpus's step phrases, longest first.
_PHRASES = sorted([
    ("walk to", "WalkTo"), ("run to", "RunTo"), ("find", "Find"), ("grab", "Grab"), ("put back", "PutBack"),
    ("put on", "PutOn"), ("take off", "TakeOff"), ("turn to", "TurnTo"), ("look at", "LookAt"),
    ("point at", "PointAt"), ("watch", "Watch"), ("read", "Read"), ("switch on", "SwitchOn"),
    ("switch off", "SwitchOff"), ("open", "Open"), ("close", "Close"), ("sit on", "SitOn"), ("lie on", "LieOn"),
    ("type on", "TypeOn"), ("wash", "Wash"), ("rinse", "Rinse"), ("scrub", "Scrub"), ("wipe", "Wipe"),
    ("squeeze", "Squeeze"), ("pull", "Pull"), ("push", "Push"), ("touch", "Touch"), ("drink", "Drink"),
    ("eat", "Eat"), ("cut", "Cut"), ("drop", "Drop"), ("greet", "Greet"), ("plug in", "PlugIn"),
    ("plug out", "PlugOut"), ("sleep", "Sleep"), ("wake up", "WakeUp"), ("stand up", "StandUp"),
], key=lambda p: -len(p[0]))
_TWO_ARGUMENTS = (("put", " on ", "Put"), ("put", " in ", "PutIn"), ("pour", " into ", "Pour"))
#: Facts that say where the agent happens to be, never what an activity achieves.
TRANSIENT = frozenset({"close", "facing", "in_room"})


def corpus_step(step: str) -> str:
    """A language-planner step ("Walk to home office", "Put plate on table") as ``Agent.X(...)``."""
    text = step.strip()
    lower = text.lower()
    for verb, separator, action in _TWO_ARGUMENTS:
        if lower.startswith(verb + " ") and separator in lower and not lower.startswith(("put on ", "put back ")):
            first, _, second = text[len(verb) + 1:].partition(separator)
            return f"Agent.{action}({_object(first)}, {_object(second)})"
    for phrase, action in _PHRASES:
        if lower == phrase or lower.startswith(phrase + " "):
            rest = text[len(phrase):].strip()
            return f"Agent.{action}({_object(rest) if rest else ''})"
    return text


def _object(words: str) -> str:
    return "_".join(words.strip().lower().split())


@dataclass(frozen=True)
class Activity:
    """A task: its title, solutions, goal facts (None: no goal check) and its home."""

    title: str
    solutions: tuple[str, ...]
    goal: tuple[tuple, ...] | None


@dataclass(frozen=True)
class OfficialActivities:
    """What :func:`load_official` read: test activities, demonstrations, valid objects, the folder."""

    activities: dict[str, Activity]
    demo_pool: list[Demo]
    valid: dict
    folder: Path


def load_official(env_id: str, data_dir: str | os.PathLike | None, num_test: int, split_seed: int) -> OfficialActivities:
    """The official activities: the ToolBench file, else language-planner's corpus.

    Activities linked by a shared program keep the first; a shuffle seeded by ``split_seed``
    takes ``num_test`` test activities and leaves the rest as demonstrations. The valid
    objects are a ``valid_object_lists*.json`` beside the programs, else rebuilt from them.

    Raises:
        FileNotFoundError: Neither layout is under ``data_dir``.
        OfficialDataError: A file is not in the format; the message names it.
        ValueError: ``num_test`` is not below the number of activities.
    """
    try:
        folder = TOOLBENCH_LAYOUT.locate(env_id, data_dir)
        records = read_toolbench(folder)
    except FileNotFoundError as toolbench_missing:
        try:
            folder = CORPUS_LAYOUT.locate(env_id, data_dir)
        except FileNotFoundError as corpus_missing:
            raise FileNotFoundError(f"{toolbench_missing}\n{corpus_missing}") from None
        records = read_corpus(folder)
    TOOLBENCH_LAYOUT.check_not_empty(env_id, folder, len(records))
    kept = drop_duplicates(records)
    if len(kept) <= num_test:
        raise ValueError(f"{env_id}: the official data in {folder} has {len(kept)} activities after "
                         f"dropping duplicates; num_test must be less than that, got {num_test}")
    order = list(range(len(kept)))
    random.Random(split_seed).shuffle(order)
    test = [kept[i] for i in order[:num_test]]
    demos = [kept[i] for i in order[num_test:]]
    lists = sorted(folder.glob("valid_object_lists*.json"))
    valid = read_json(lists[0]) if lists else rebuild_object_lists(records)
    if not isinstance(valid, dict) or not all(isinstance(v, dict) for v in valid.values()):
        raise OfficialDataError(f"{lists[0]}: expected {{'Agent.<Action>': {{'object': [...]}}}}")
    activities = {title: Activity(title, tuple(programs), None) for title, programs in test}
    pool = [Demo(title, program) for title, programs in demos for program in programs]
    return OfficialActivities(activities, pool, valid, folder)

def derive_goal(world: VirtualHomeWorld, initial, solutions: tuple[str, ...], valid: dict,
                profile: Profile) -> tuple | None:
    """The goal check of an official activity: the facts that every solution achieves when run from
    the home's initial state ``initial`` (a snapshot), leaving out where the agent stands; None when
    a solution names an action or object the home lacks, or no solution runs there.

    The world is left in the state it was in (an episode under way keeps its state).
    """
    known = set(PROPERTIES) | set(ROOMS)
    lines = [read_line(line, valid, profile) for program in solutions for line in program_lines(program)]
    if any(line.action is None or not all(a in known for a in line.arguments) for line in lines):
        return None
    saved = world.snapshot()
    world.restore(initial)
    start = world.facts()
    achieved = None
    for program in solutions:
        world.restore(initial)
        if execute(world, "\n".join(program_lines(program))) is None:
            changed = {f for f in world.facts() - start if f[0] not in TRANSIENT}
            achieved = changed if achieved is None else achieved & changed
    world.restore(saved)
    return tuple(sorted(achieved)) if achieved else None


def read_toolbench(folder: Path) -> list[tuple[str, list[str]]]:
    records = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, record in read_jsonl(path):
            where = f"{path}:{number}"
            prompt, completion = require_key(record, "prompt", where), require_key(record, "completion", where)
            programs = completion if isinstance(completion, list) else [completion]
            if not isinstance(prompt, str) or not programs or not all(isinstance(p, str) for p in programs):
                raise OfficialDataError(f"{where}: 'prompt' must be text and 'completion' a program or a list "
                                        f"of programs")
            records.append((prompt, programs))
    return records

def read_corpus(folder: Path) -> list[tuple[str, list[str]]]:
    path = folder / "available_examples.json"
    examples = read_json(path)
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        raise OfficialDataError(f"{path}: expected a list of 'Task: ...\\nStep 1: ...' texts")
    by_title: dict[str, list[str]] = {}
    for number, example in enumerate(examples):
        head, *steps = example.split("\n")
        if not head.startswith("Task: "):
            raise OfficialDataError(f"{path}: example {number} does not start with 'Task: '")
        program = "\n".join(corpus_step(s.split(": ", 1)[1] if s.startswith("Step ") else s) for s in steps)
        programs = by_title.setdefault(head[len("Task: "):], [])
        if program not in programs:
            programs.append(program)
    return list(by_title.items())


def drop_duplicates(records: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """Activities linked by a shared program (transitively) keep only the first in file order."""
    parent = list(range(len(records)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for index, (_, programs) in enumerate(records):
        for program in programs:
            if program in first_with:
                a, b = root(first_with[program]), root(index)
                parent[max(a, b)] = min(a, b)
            else:
                first_with[program] = index
    seen_titles: set[str] = set()
    kept = []
    for index, (title, programs) in enumerate(records):
        if root(index) == index and title not in seen_titles:
            seen_titles.add(title)
            kept.append((title, programs))
    return kept


def rebuild_object_lists(records: list[tuple[str, list[str]]]) -> dict[str, dict[str, list[str]]]:
    """The valid objects of each action's arguments: every object the corpus's programs give it."""
    lists: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for _, programs in records:
        for program in programs:
            for line in program_lines(program):
                api, _, rest = line.partition("(")
                objects = [o.strip() for o in rest.rstrip(")").split(",")] if rest.rstrip(")").strip() else []
                keys = argument_names(len(objects)) if objects else []
                entry = lists[api]
                for key, obj in zip(keys, objects):
                    if obj not in entry.setdefault(key, []):
                        entry[key].append(obj)
    return dict(lists)
