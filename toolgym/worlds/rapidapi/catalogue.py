"""The rows of a RapidAPI catalogue: generated (seeded) or read from ToolBench API documents.

Only :class:`~toolgym.worlds.rapidapi.world.RapidAPIWorld.populate` calls these; they return
plain dicts for bulk inserts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolgym.worlds.rapidapi.domains import (
    CATEGORIES, CATEGORY_KINDS, COLLECTION_THEMES, GENERIC_KINDS, KINDS, SYLLABLES, TOOL_SUFFIXES,
)
from toolgym.worlds.rapidapi.naming import argument_name, standardize

PARAM_TYPES = {"enum": "ENUM", "int": "NUMBER", "float": "NUMBER", "text": "STRING"}
TEMPLATE_TYPES = {"enum": "str", "int": "int", "float": "float", "text": "str"}
#: Extra APIs a generated tool has besides search and details, and how many (weights): about
#: 4.8 APIs per tool, as ToolLLM's 16,464 APIs of 3,451 tools.
EXTRA_KINDS = ("list_by", "top_by", "field", "create", "update", "delete")
EXTRA_COUNT_WEIGHTS = (0.15, 0.25, 0.3, 0.2, 0.1)  # 1..5 extras


@dataclass(frozen=True)
class CatalogueSize:
    """How big a generated catalogue is."""

    categories: int
    tools: int
    entities_per_tool: int
    tools_per_collection: int = 8


#: ``catalogue_size`` presets. ``full`` has the real catalogue's shape: 49 categories, 3,451
#: tools, about 16,800 APIs.
SIZES = {
    "small": CatalogueSize(categories=14, tools=112, entities_per_tool=12),
    "medium": CatalogueSize(categories=30, tools=600, entities_per_tool=12),
    "full": CatalogueSize(categories=49, tools=3451, entities_per_tool=12),
}


def entity_name(rng: random.Random) -> str:
    def word() -> str:
        return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()
    return f"{word()} {word()}"


def field_value(kind: str, spec: Any, rng: random.Random) -> Any:
    if kind in ("enum", "text"):
        return rng.choice(spec)
    if kind == "int":
        return rng.randint(*spec)
    return round(rng.uniform(*spec), 2)


def entity_key(entity_kind: str, token: str) -> str:
    return f"{entity_kind[:3]}-{token}"


def _param(name: str, type_: str, description: str, default: Any = "", enum: Iterable[str] | None = None) -> dict:
    param = {"name": name, "type": type_, "description": description, "default": default, "arg": argument_name(name)}
    if enum is not None:
        param["enum"] = list(enum)
    return param


def _field_param(field: tuple, example: Any) -> dict:
    name, kind, spec = field
    return _param(name, PARAM_TYPES[kind], f"The {name.replace('_', ' ')}.", example,
                  spec if kind == "enum" else None)


def api_rows(tool_id: int, tool_name: str, entity_kind: str, extras: Iterable[str], rng: random.Random,
             sample: Mapping[str, Any]) -> list[dict]:
    """The APIs of one generated tool: search and details, then ``extras``."""
    plural, fields = KINDS[entity_kind]
    title, titles = entity_kind.replace("_", " ").title(), plural.title()
    enums = [f for f in fields if f[1] == "enum"]
    numbers = [f for f in fields if f[1] in ("int", "float")]
    id_param = _param(f"{entity_kind}_id", "STRING", f"The id of the {entity_kind}, as the search returns it.",
                      sample["key"])
    record = {"id": "str", "name": "str", **{f[0]: TEMPLATE_TYPES[f[1]] for f in fields}}
    rows = [
        dict(name=f"Search {titles}", kind="search", field=None, method="GET",
             description=f"Search the {plural} of {tool_name} by name; returns the id and name of every match.",
             required_parameters=[_param("query", "STRING", "Text the name contains.", sample["name"].split()[0])],
             optional_parameters=[_param("limit", "NUMBER", "Most results to return (1-50).", 10)],
             template_response={"results": [{"id": "str", "name": "str", "_list_length": 1}], "count": "int"}),
        dict(name=f"Get {title} Details", kind="details", field=None, method="GET",
             description=f"Every detail of one {entity_kind}: " + ", ".join(f[0] for f in fields) + ".",
             required_parameters=[id_param], optional_parameters=[], template_response=record),
    ]
    for extra in extras:
        if extra == "list_by":
            field = rng.choice(enums)
            rows.append(dict(
                name=f"List {titles} By {field[0].replace('_', ' ').title()}", kind="list_by", field=field[0],
                method="GET", description=f"The {plural} whose {field[0]} is the given value.",
                required_parameters=[_field_param(field, sample["data"][field[0]])], optional_parameters=[],
                template_response={"results": [{"id": "str", "name": "str", field[0]: "str", "_list_length": 1}],
                                   "count": "int"}))
        elif extra == "top_by":
            field = rng.choice(numbers)
            rows.append(dict(
                name=f"Top {titles} By {field[0].replace('_', ' ').title()}", kind="top_by", field=field[0],
                method="GET", description=f"The {plural} with the highest {field[0].replace('_', ' ')}, highest first.",
                required_parameters=[],
                optional_parameters=[_param("limit", "NUMBER", "Most results to return (1-50).", 5)],
                template_response={"results": [{"id": "str", "name": "str", field[0]: TEMPLATE_TYPES[field[1]],
                                                "_list_length": 5}]}))
        elif extra == "field":
            field = rng.choice(numbers)
            rows.append(dict(
                name=f"Get {title} {field[0].replace('_', ' ').title()}", kind="field", field=field[0],
                method="GET", description=f"The {field[0].replace('_', ' ')} of one {entity_kind}.",
                required_parameters=[id_param], optional_parameters=[],
                template_response={"id": "str", field[0]: TEMPLATE_TYPES[field[1]]}))
        elif extra == "create":
            field = enums[0]
            number = numbers[0]
            rows.append(dict(
                name=f"Create {title}", kind="create", field=field[0], method="POST",
                description=f"Add a new {entity_kind} to {tool_name}; returns its id.",
                required_parameters=[_param("name", "STRING", f"Name of the new {entity_kind}.", "New entry"),
                                     _field_param(field, field[2][0])],
                optional_parameters=[_field_param(number, number[2][0])],
                template_response={"id": "str", "name": "str", "status": "str"}))
        elif extra == "update":
            field = rng.choice(fields)
            rows.append(dict(
                name=f"Update {title} {field[0].replace('_', ' ').title()}", kind="update", field=field[0],
                method="PATCH", description=f"Change the {field[0].replace('_', ' ')} of one {entity_kind}.",
                required_parameters=[id_param, _field_param(field, sample["data"][field[0]])], optional_parameters=[],
                template_response={"id": "str", field[0]: TEMPLATE_TYPES[field[1]], "status": "str"}))
        elif extra == "delete":
            rows.append(dict(
                name=f"Delete {title}", kind="delete", field=None, method="DELETE",
                description=f"Remove one {entity_kind} from {tool_name}.", required_parameters=[id_param],
                optional_parameters=[], template_response={"id": "str", "status": "str"}))
    for row in rows:
        row["tool_id"] = tool_id
    return rows


def generated_rows(size: CatalogueSize, seed: int) -> dict[str, list[dict]]:
    """Every row of a generated catalogue, by table name; a pure function of ``size`` and ``seed``.

    Categories beyond the first ``size.categories`` are not used. About one category in five
    is held out (its tools' split is ``test_category``), and in the others about one tool in
    eight (``test_tool``); the rest are ``train``.
    """
    rng = random.Random(f"rapidapi-catalogue:{seed}")
    categories = list(CATEGORIES[:size.categories])
    held_out = set(rng.sample(categories[1:], max(2, round(len(categories) / 5))))
    # Tools per category: uneven (as RapidAPI's), at least 4 each.
    weights = [rng.uniform(0.5, 2.0) for _ in categories]
    counts = [4] * len(categories)
    for _ in range(size.tools - 4 * len(categories)):
        counts[rng.choices(range(len(categories)), weights)[0]] += 1
    collections = [{"id": i + 1, "name": f"{COLLECTION_THEMES[i % len(COLLECTION_THEMES)]} {i // len(COLLECTION_THEMES) + 1}",
                    "description": ""} for i in range(max(2, size.tools // size.tools_per_collection))]
    rows: dict[str, list[dict]] = {"categories": [], "collections": collections, "tools": [], "apis": [], "entities": []}
    names: set[str] = set()
    tool_id = entity_id = 0
    for c, (category, count) in enumerate(zip(categories, counts), start=1):
        rows["categories"].append({"id": c, "name": category})
        kinds = CATEGORY_KINDS.get(category, GENERIC_KINDS)
        for t in range(count):
            tool_id += 1
            kind = kinds[t % len(kinds)]
            brand = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()
            name = f"{brand} {KINDS[kind][0].title()} {rng.choice(TOOL_SUFFIXES)}"
            while standardize(name) in names:
                name += f" {rng.randint(2, 99)}"
            names.add(standardize(name))
            split = ("test_category" if category in held_out else "test_tool" if rng.random() < 0.125 else "train")
            rows["tools"].append({
                "id": tool_id, "name": name, "standard_name": standardize(name), "category_id": c,
                "collection_id": rng.randint(1, len(collections)), "split": split, "entity_kind": kind,
                "description": f"{name}: look up, list and manage {KINDS[kind][0]} ({category.replace('_', ' ')})."})
            plural, fields = KINDS[kind]
            seen: set[str] = set()
            entities = []
            while len(entities) < size.entities_per_tool:
                ename = entity_name(rng)
                if ename in seen:
                    continue
                seen.add(ename)
                entity_id += 1
                entities.append({"id": entity_id, "tool_id": tool_id, "name": ename,
                                 "key": entity_key(kind, f"{rng.getrandbits(24):06x}"),
                                 "data": {f[0]: field_value(f[1], f[2], rng) for f in fields}})
            rows["entities"] += entities
            extras = rng.sample(EXTRA_KINDS, rng.choices(range(1, 6), EXTRA_COUNT_WEIGHTS)[0])
            extras.sort(key=EXTRA_KINDS.index)
            rows["apis"] += api_rows(tool_id, name, kind, extras, rng, entities[0])
    for i, api in enumerate(rows["apis"], start=1):
        api["id"] = i
    return rows


def official_rows(documents: Iterable[Mapping]) -> dict[str, list[dict]]:
    """The catalogue of ToolBench API documents (the ``api_list`` entries of the queries).

    An API is identified by (category, tool, API name); the first document of each is kept.
    """
    rows: dict[str, list[dict]] = {"categories": [], "collections": [], "tools": [], "apis": [], "entities": []}
    categories: dict[str, int] = {}
    tools: dict[tuple[str, str], int] = {}
    seen: set[tuple[str, str, str]] = set()
    for doc in documents:
        category, tool, api = str(doc["category_name"]), str(doc["tool_name"]), str(doc["api_name"])
        if (category, tool, api) in seen:
            continue
        seen.add((category, tool, api))
        if category not in categories:
            categories[category] = len(categories) + 1
            rows["categories"].append({"id": categories[category], "name": category})
        if (category, tool) not in tools:
            tools[(category, tool)] = len(tools) + 1
            rows["tools"].append({"id": tools[(category, tool)], "name": tool, "standard_name": standardize(tool),
                                  "category_id": categories[category], "collection_id": None, "split": "official",
                                  "entity_kind": None, "description": str(doc.get("tool_description") or "")})
        template = doc.get("template_response")
        if isinstance(template, str):
            try:
                template = json.loads(template)
            except ValueError:
                template = None
        rows["apis"].append({
            "id": len(rows["apis"]) + 1, "tool_id": tools[(category, tool)], "name": api,
            "description": str(doc.get("api_description") or ""), "method": str(doc.get("method") or "GET"),
            "kind": "official", "field": None, "template_response": template,
            "required_parameters": [_official_param(p) for p in doc.get("required_parameters") or []],
            "optional_parameters": [_official_param(p) for p in doc.get("optional_parameters") or []]})
    return rows


def _official_param(param: Mapping) -> dict:
    name = str(param.get("name", ""))
    return {"name": name, "type": str(param.get("type", "STRING")).upper(),
            "description": str(param.get("description") or ""), "default": param.get("default", ""),
            "arg": argument_name(name)}
