"""Built-in ToolLLM instructions over a generated RapidAPI world, with known solutions.

Each instruction is one to three *subtasks*, each on one tool:

- lookup: find an entity by name (search) and report two of its fields (details);
- top: report the entity with the highest value of a field (top-by);
- list: name the entities whose enum field has a value (list-by; only when 1-4 match);
- create: add an entity (POST) and report the id it gets.

A subtask knows the calls that solve it (its *plan*), the calls the answer must rest on
(*required*, with their arguments) and the *facts* the final answer must contain, read from the
world by running the plan. Groups follow ToolLLM's test sets, with StableToolBench's sizes:
G1 (one tool), G2 (two tools of one category), G3 (two or three tools of one collection);
``instruction`` sets use training tools, ``tool`` sets held-out tools of seen categories,
``category`` sets tools of held-out categories.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import select

from toolgym.worlds.cache import cached_json
from toolgym.worlds.rapidapi.catalogue import entity_name
from toolgym.worlds.rapidapi.domains import KINDS
from toolgym.worlds.rapidapi.models import Api, Tool
from toolgym.worlds.rapidapi.world import RapidAPIWorld

#: ToolLLM's six test groups and StableToolBench's number of solvable queries in each.
GROUP_SIZES = {"G1_instruction": 163, "G1_category": 153, "G1_tool": 158, "G2_instruction": 106,
               "G2_category": 124, "G3_instruction": 61}
GROUPS = tuple(GROUP_SIZES)
#: Which tools each group draws from.
GROUP_SPLIT = {"G1_instruction": "train", "G1_tool": "test_tool", "G1_category": "test_category",
               "G2_instruction": "train", "G2_category": "test_category", "G3_instruction": "train"}


@dataclass(frozen=True)
class ToolLLMTask:
    """One instruction.

    Attributes:
        query_id: The task id.
        group: G1_instruction, ... (the split).
        query: The instruction.
        api_ids: The APIs offered as functions (ToolBench's ``api_list``).
        relevant: ``(tool name, API name)`` of the APIs a solution needs (``relevant APIs``).
        plan: The calls that solve it, in order: ``{"api_id", "arguments"}`` (schema names).
        required: Calls the answer must rest on: ``{"api_id", "arguments"}`` (canonical names
            and values; a call matches when it succeeded and has these values).
        facts: Texts the final answer must contain.
        answer: The oracle's final answer.
    """

    query_id: str
    group: str
    query: str
    api_ids: tuple[int, ...]
    relevant: tuple[tuple[str, str], ...]
    plan: tuple[dict, ...] = ()
    required: tuple[dict, ...] = ()
    facts: tuple[str, ...] = ()
    answer: str | None = None

    @property
    def solvable_offline(self) -> bool:
        """True when the answer can be checked programmatically (built-in tasks)."""
        return self.answer is not None


def format_fact(value: Any) -> str:
    """A value as the answer should write it (as the response shows it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _copy(row: Any, model: type) -> SimpleNamespace:
    return SimpleNamespace(**{c.key: getattr(row, c.key) for c in model.__table__.columns})


class _Generator:
    def __init__(self, world: RapidAPIWorld, seed: int):
        self.world = world
        self.rng = random.Random(f"toolllm-tasks:{seed}")
        self.initial = world.snapshot()
        self._entities: dict[int, list] = {}
        session = world.session
        # Plain copies: restoring the world detaches ORM objects.
        self.tools = {t.id: _copy(t, Tool) for t in session.scalars(select(Tool).order_by(Tool.id))}
        self.apis: dict[int, dict[str, SimpleNamespace]] = defaultdict(dict)
        self.api_ids: dict[int, list[int]] = defaultdict(list)
        for api in session.scalars(select(Api).order_by(Api.id)):
            self.apis[api.tool_id].setdefault(api.kind, _copy(api, Api))
            self.api_ids[api.tool_id].append(api.id)

    def entities(self, tool_id: int) -> list[SimpleNamespace]:
        """The tool's entities in the initial world (tasks start there)."""
        if tool_id not in self._entities:
            self._entities[tool_id] = [SimpleNamespace(name=e.name, key=e.key, data=dict(e.data))
                                       for e in self.world.entities(tool_id)]
        return self._entities[tool_id]

    # -- subtasks ---------------------------------------------------------------------------
    def subtask(self, tool) -> dict | None:
        apis = self.apis[tool.id]
        kinds = ["lookup", "lookup"] + [k for k, a in (("top", "top_by"), ("list", "list_by"), ("create", "create"))
                                        if a in apis]
        return getattr(self, f"_{self.rng.choice(kinds)}")(tool, apis)

    def _lookup(self, tool, apis: dict) -> dict:
        entity = self.rng.choice(self.entities(tool.id))
        fields = [f[0] for f in KINDS[tool.entity_kind][1]]
        f1, f2 = self.rng.sample(fields, 2)
        kind, n1, n2 = tool.entity_kind, f1.replace("_", " "), f2.replace("_", " ")
        text = self.rng.choice((
            f"Find the {kind} called '{entity.name}' on {tool.name} and tell me its {n1} and {n2}.",
            f"What are the {n1} and {n2} of the {kind} '{entity.name}' listed by {tool.name}?",
            f"I need the {n1} and the {n2} of '{entity.name}', a {kind} in {tool.name}.",
        ))
        search, details = apis["search"], apis["details"]
        id_arg = details.required_parameters[0]
        return {"text": text, "plan": [(search, {"query": entity.name}), (details, {id_arg["arg"]: entity.key})],
                "required": [(details, {id_arg["name"]: entity.key})],
                "facts": lambda responses: [format_fact(responses[1][f1]), format_fact(responses[1][f2])],
                "labels": (n1, n2)}

    def _top(self, tool, apis: dict) -> dict | None:
        api = apis["top_by"]
        values = sorted((e.data.get(api.field) for e in self.entities(tool.id)), reverse=True)
        if len(values) > 1 and values[0] == values[1]:
            return None
        name = api.field.replace("_", " ")
        text = self.rng.choice((
            f"Which {tool.entity_kind} on {tool.name} has the highest {name}? Give me its name and {name}.",
            f"Tell me which {tool.entity_kind} in {tool.name} ranks first by {name}, and its {name}.",
        ))
        return {"text": text, "plan": [(api, {})], "required": [(api, {})],
                "facts": lambda responses: [responses[0]["results"][0]["name"],
                                            format_fact(responses[0]["results"][0][api.field])],
                "labels": ("name", name)}

    def _list(self, tool, apis: dict) -> dict | None:
        api = apis["list_by"]
        param = api.required_parameters[0]
        value = self.rng.choice(param["enum"])
        matches = [e.name for e in self.entities(tool.id) if e.data.get(api.field) == value]
        if not 1 <= len(matches) <= 4:
            return None
        plural = KINDS[tool.entity_kind][0]
        text = f"Which {plural} on {tool.name} have {api.field.replace('_', ' ')} '{value}'? Name all of them."
        return {"text": text, "plan": [(api, {param["arg"]: value})], "required": [(api, {param["name"]: value})],
                "facts": lambda responses: [r["name"] for r in responses[0]["results"]], "labels": None}

    def _create(self, tool, apis: dict) -> dict:
        api = apis["create"]
        existing = {e.name for e in self.entities(tool.id)}
        name = entity_name(self.rng)
        while name in existing:
            name = entity_name(self.rng)
        param = api.required_parameters[1]
        value = self.rng.choice(param["enum"])
        text = self.rng.choice((
            f"Add a new {tool.entity_kind} named '{name}' with {param['name'].replace('_', ' ')} '{value}' to "
            f"{tool.name}, and tell me the id it gets.",
            f"Please register '{name}' as a {tool.entity_kind} on {tool.name} ({param['name'].replace('_', ' ')}: "
            f"{value}) and report its new id.",
        ))
        return {"text": text, "plan": [(api, {"name": name, param["arg"]: value})],
                "required": [(api, {"name": name, param["name"]: value})],
                "facts": lambda responses: [responses[0]["id"]], "labels": ("id",)}

    # -- tasks ------------------------------------------------------------------------------
    def task(self, query_id: str, group: str, tools: list, distractors: list) -> ToolLLMTask | None:
        subtasks = [self.subtask(t) for t in tools]
        if any(s is None for s in subtasks):
            return None
        world = self.world
        wrote = False
        plan, required, facts, answers, relevant = [], [], [], [], []
        try:
            for tool, sub in zip(tools, subtasks):
                responses = []
                for api, arguments in sub["plan"]:
                    result = world.call(api.id, arguments)
                    if not result.ok:
                        raise RuntimeError(f"the plan of {query_id} failed: {result.error}")
                    responses.append(result.response)
                    wrote |= result.wrote
                    plan.append({"api_id": api.id, "arguments": arguments})
                    if (tool.name, api.name) not in relevant:
                        relevant.append((tool.name, api.name))
                required += [{"api_id": api.id, "arguments": arguments} for api, arguments in sub["required"]]
                sub_facts = sub["facts"](responses)
                facts += sub_facts
                if sub["labels"]:
                    answers.append(", ".join(f"{label}: {fact}" for label, fact in zip(sub["labels"], sub_facts)))
                else:
                    answers.append(", ".join(sub_facts))
        finally:
            if wrote:
                world.restore(self.initial)
        offered = [a for t in tools + distractors for a in self.api_ids[t.id]]
        text = " ".join(s["text"] for s in subtasks)
        answer = " ".join(f"{tool.name}: {a}." for tool, a in zip(tools, answers))
        return ToolLLMTask(query_id=query_id, group=group, query=text, api_ids=tuple(offered),
                           relevant=tuple(relevant), plan=tuple(plan), required=tuple(required), facts=tuple(facts),
                           answer=answer)


def builtin_tasks(world: RapidAPIWorld, seed: int = 0, sizes: dict[str, int] | None = None) -> list[ToolLLMTask]:
    """The built-in instructions of a generated world, every group.

    They are a pure function of the world's fingerprint, the seed, the sizes and this module's
    source, and generating them runs every solution, so they are kept in the on-disk cache
    (:mod:`toolgym.worlds.cache`). The world is left as it was.

    Raises:
        ValueError: The catalogue is too small for a group (it needs held-out categories with
            two tools, collections with two training tools).
    """
    def generate() -> list[ToolLLMTask]:
        fault_rate, world.fault_rate = world.fault_rate, 0.0  # solutions are read from a world without faults
        try:
            return _generate(world, seed, sizes)
        finally:
            world.fault_rate = fault_rate

    return cached_json("toolllm-tasks", [world.fingerprint(), seed, sizes], (__name__,), generate,
                       lambda tasks: [dataclasses.asdict(task) for task in tasks], _decode_tasks)


def _decode_tasks(entries: list[dict]) -> list[ToolLLMTask]:
    """The tasks ``dataclasses.asdict`` wrote (JSON has no tuples: they become tuples again)."""
    return [ToolLLMTask(**{**entry, "api_ids": tuple(entry["api_ids"]),
                           "relevant": tuple(tuple(pair) for pair in entry["relevant"]),
                           "plan": tuple(entry["plan"]), "required": tuple(entry["required"]),
                           "facts": tuple(entry["facts"])}) for entry in entries]


def _generate(world: RapidAPIWorld, seed: int, sizes: dict[str, int] | None) -> list[ToolLLMTask]:
    gen = _Generator(world, seed)
    rng = gen.rng
    by_split: dict[str, list] = defaultdict(list)
    by_category: dict[tuple[str, int], list] = defaultdict(list)
    by_collection: dict[int, list] = defaultdict(list)
    for tool in gen.tools.values():
        by_split[tool.split].append(tool)
        by_category[(tool.split, tool.category_id)].append(tool)
        if tool.split == "train":
            by_collection[tool.collection_id].append(tool)
    tasks: list[ToolLLMTask] = []
    queries: set[str] = set()
    for group, size in (sizes or GROUP_SIZES).items():
        split = GROUP_SPLIT[group]
        pool = by_split[split]
        if group.startswith("G1"):
            def draw():
                return [rng.choice(pool)], []
        elif group.startswith("G2"):
            groups = [ts for (s, _), ts in by_category.items() if s == split and len(ts) >= 2]

            def draw():
                members = rng.choice(groups)
                chosen = rng.sample(members, 2)
                rest = [t for t in members if t not in chosen]
                return chosen, rng.sample(rest, min(1, len(rest)))
        else:
            groups = [ts for ts in by_collection.values() if len(ts) >= 2]

            def draw():
                members = rng.choice(groups)
                chosen = rng.sample(members, min(len(members), rng.choice((2, 3))))
                rest = [t for t in members if t not in chosen]
                return chosen, rng.sample(rest, min(1, len(rest)))
        if not pool or (not group.startswith("G1") and not groups):
            raise ValueError(f"the catalogue is too small for {group}: choose a larger catalogue_size")
        made, attempts = 0, 0
        while made < size:
            attempts += 1
            if attempts > 50 * size:
                raise ValueError(f"could not generate {size} distinct {group} tasks: choose a larger catalogue_size")
            chosen, distractors = draw()
            task = gen.task(f"{group}-{made:03d}", group, chosen, distractors)
            if task is None or task.query in queries:
                continue
            queries.add(task.query)
            tasks.append(task)
            made += 1
    return tasks
