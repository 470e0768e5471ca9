"""BFCL's single-turn tasks: the official files, the built-in generated set, the tools offered.

An official single-turn item is a line of ``BFCL_v4_<category>.json`` (``id``, ``question``
as turns of messages, ``function`` docs) with, except for relevance and irrelevance, its line
of ``possible_answer/BFCL_v4_<category>.json`` (``ground_truth``: per call, every acceptable
value per parameter, ``""`` marking an optional one).
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgym.envs.bfcl.formats import CONFIGS
from toolgym.envs.common.official import OfficialDataError, read_json, read_jsonl
from toolgym.worlds.bfcl import single_turn as generated

SINGLE_TURN = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
               "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
               "irrelevance", "live_irrelevance", "live_relevance")
NO_GROUND_TRUTH = ("irrelevance", "live_irrelevance", "live_relevance")

# BFCL's GORILLA_TO_OPENAPI: the docs' type names as JSON Schema's.
OPENAPI_TYPES = {"integer": "integer", "number": "number", "float": "number", "string": "string",
                 "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array", "dict": "object",
                 "object": "object", "tuple": "array", "any": "string", "byte": "integer", "short": "integer",
                 "long": "integer", "double": "number", "char": "string", "ArrayList": "array", "Array": "array",
                 "HashMap": "object", "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
                 "String": "string", "Bigint": "integer"}


@dataclass(frozen=True)
class SingleTurnTask:
    id: str
    category: str
    question: list[list[dict]]  # turns of messages; single-turn items have one turn
    functions: list[dict]
    ground_truth: list[dict] | None  # [{name: {param: [acceptable values]}}]; None for (ir)relevance
    #: format_sensitivity: BFCL's prompt configuration (``ret_fmt=…&…&style=…``) of this copy
    variation: str | None = None

    @property
    def language(self) -> str:
        return _LANGUAGES.get(self.category, "python")


_LANGUAGES = {"simple_java": "java", "simple_javascript": "javascript"}


def category_of(task_id: str) -> str:
    """The category of an official or built-in id (``live_simple_3-2-1`` -> ``live_simple``,
    ``format_sensitivity_7:<config>:simple_python_0`` -> ``format_sensitivity``)."""
    stem = task_id.split(":")[0].split("-")[0].rsplit("_", 1)[0]
    return stem


def load_single_turn(folder: Path, category: str) -> list[SingleTurnTask]:
    """The items of one official single-turn category."""
    questions = read_jsonl(folder / f"BFCL_v4_{category}.json")
    answers: dict[str, list] = {}
    if category not in NO_GROUND_TRUTH:
        for line, record in read_jsonl(folder / "possible_answer" / f"BFCL_v4_{category}.json"):
            if not isinstance(record, dict) or not isinstance(record.get("ground_truth"), list):
                raise OfficialDataError(f"BFCL possible_answer/{category} line {line}: no ground_truth list")
            answers[record["id"]] = record["ground_truth"]
    tasks = []
    for line, record in questions:
        if not isinstance(record, dict) or not isinstance(record.get("function"), list) \
                or not isinstance(record.get("question"), list):
            raise OfficialDataError(f"BFCL_v4_{category}.json line {line}: needs 'id', 'question' and 'function'")
        truth = None
        if category not in NO_GROUND_TRUTH:
            if record["id"] not in answers:
                raise OfficialDataError(f"BFCL {category}: {record['id']} has no possible answer")
            truth = answers[record["id"]]
        tasks.append(SingleTurnTask(str(record["id"]), category, record["question"], record["function"], truth))
    return tasks


def source_id(task: SingleTurnTask) -> str:
    """The official id a task was made from (a format_sensitivity copy's last part)."""
    return task.id.rsplit(":", 1)[-1]


def load_format_sensitivity(folder: Path) -> list[SingleTurnTask]:
    """BFCL's ``load_format_sensitivity_test_cases``: the items ``BFCL_v4_format_sensitivity.json``
    names (per category, in the category file's order), each copied once per configuration of
    :data:`~toolgym.envs.bfcl.formats.CONFIGS` as ``format_sensitivity_<n>:<config>:<id>``, n
    counting every copy."""
    chosen = read_json(folder / "BFCL_v4_format_sensitivity.json")
    if not isinstance(chosen, dict):
        raise OfficialDataError("BFCL_v4_format_sensitivity.json: not an object of id lists by category")
    items: list[SingleTurnTask] = []
    for category, ids in chosen.items():
        if not ids:
            continue
        if category not in SINGLE_TURN or category in NO_GROUND_TRUTH or not isinstance(ids, list):
            raise OfficialDataError(f"BFCL_v4_format_sensitivity.json: {category!r} is not a graded single-turn "
                                    f"category with a list of ids")
        wanted = set(map(str, ids))
        items += [item for item in load_single_turn(folder, category) if item.id in wanted]
    return format_sensitivity_copies(items)


def format_sensitivity_copies(items: list[SingleTurnTask]) -> list[SingleTurnTask]:
    """Each item once per configuration, numbered as BFCL numbers the copies."""
    tasks: list[SingleTurnTask] = []
    for item in items:
        for config in CONFIGS:
            tasks.append(SingleTurnTask(f"format_sensitivity_{len(tasks)}:{config}:{item.id}", "format_sensitivity",
                                        item.question, item.functions, item.ground_truth, config))
    return tasks


# -- the tools offered to a model (BFCL's convert_to_tool) ----------------------------------------
def openai_name(name: str) -> str:
    """OpenAI's tool names allow no dots; BFCL writes them as underscores."""
    return name.replace(".", "_")


def _cast(schema: dict, language: str) -> dict:
    schema = dict(schema)
    declared = schema.get("type")
    if language in ("java", "javascript") and declared is not None:
        # BFCL asks Java and JavaScript values as source text: every parameter is a string.
        lang = "Java" if language == "java" else "JavaScript"
        schema["description"] = (schema.get("description", "") +
                                 f" This parameter is of {lang} type {declared}, given as {lang} source text.").strip()
        schema["type"] = "string"
        schema.pop("items", None)
        schema.pop("properties", None)
        return schema
    if declared in OPENAPI_TYPES:
        schema["type"] = OPENAPI_TYPES[declared]
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: _cast(v, language) if isinstance(v, dict) else v
                                for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        schema["items"] = _cast(schema["items"], language)
    return schema


def tools_of(functions: list[dict], language: str) -> list[dict]:
    """OpenAI-style tool schemas of BFCL function docs (types as GORILLA_TO_OPENAPI maps them).

    Each schema dict is a copy (:func:`_cast` copies what it casts); values it does not cast (an
    ``enum``'s list) are shared with ``functions``: read the tools, never change them.
    """
    tools = []
    for doc in functions:
        parameters = doc.get("parameters") or {"type": "dict", "properties": {}}
        params = {"type": "object", "properties": {k: _cast(v, language) for k, v in parameters.get("properties", {}).items()},
                  "required": list(parameters.get("required", []))}
        tools.append({"type": "function", "function": {"name": openai_name(doc["name"]),
                                                       "description": doc.get("description", ""),
                                                       "parameters": params}})
    return tools


# -- the oracle's values in each language -------------------------------------------------------
def _first(options: list) -> tuple[bool, Any]:
    """The first acceptable value, or (False, None) when the parameter may only be left out."""
    for option in options:
        if option != "":
            return True, option
    return False, None


def _resolve(value: Any) -> Any:
    """A possible answer's value with each nested dict's options resolved to the first acceptable
    one (BFCL writes a dict's acceptable values per key, ``{"k": ["a", "b"]}``)."""
    if isinstance(value, dict):
        resolved = {}
        for key, options in value.items():
            present, item = _first(options) if isinstance(options, list) else (True, options)
            if present:
                resolved[key] = _resolve(item)
        return resolved
    if isinstance(value, list):
        return [_resolve(item) if isinstance(item, dict) else item for item in value]
    return value


def _java_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def java_source(value: Any, declared: str, items: str | None) -> str:
    """Java source text that BFCL's converter reads back as ``value``."""
    if isinstance(value, str):
        return value  # a String, a char, a variable's name or an expression
    if declared == "long":
        return f"{value}L"
    if declared == "float":
        return f"{float(value)!r}f".replace(".0f", "f") if float(value).is_integer() else f"{float(value)!r}f"
    if declared == "double":
        return repr(float(value))
    if isinstance(value, bool):
        return _java_literal(value)
    if declared == "Array" and isinstance(value, list):
        element = {"String": "String", "integer": "int", "long": "long", "boolean": "boolean", "double": "double",
                   "float": "float", "char": "char"}.get(items or "", "Object")
        return f"new {element}[]{{" + ", ".join(_java_item(v, items) for v in value) + "}"
    if declared == "ArrayList" and isinstance(value, list):
        return "new ArrayList<>(Arrays.asList(" + ", ".join(_java_item(v, items) for v in value) + "))" \
            if value else "new ArrayList<>()"
    if declared == "HashMap" and isinstance(value, dict):
        puts = " ".join(f"put({json.dumps(str(k))}, {_java_literal(v)});" for k, v in value.items())
        return "new HashMap<String, Object>() {{ " + puts + " }}"
    return _java_literal(value)


def _java_item(value: Any, items: str | None) -> str:
    if items in ("String", "char"):
        return json.dumps(value) if items == "String" else f"'{value}'"
    if isinstance(value, str) or items is None or items == "any":
        return _java_literal(value)
    return java_source(value, items, None)


def _js_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_js_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_js_literal(v)}" for k, v in value.items()) + "}"
    return str(value)


def js_source(value: Any, declared: str, items: str | None) -> str:
    """JavaScript source text that BFCL's converter reads back as ``value``."""
    if isinstance(value, str):
        return value
    if declared == "Bigint":
        return f"{value}n"
    if declared == "array" and isinstance(value, list) and items in ("String", "any"):
        return "[" + ", ".join(json.dumps(v) if isinstance(v, str) else _js_literal(v) for v in value) + "]"
    return _js_literal(value)


def oracle_calls(task: SingleTurnTask) -> list[tuple[str, dict]]:
    """The ground truth as calls, each parameter at its first acceptable value."""
    calls = []
    for answer in task.ground_truth or []:
        name, params = next(iter(answer.items()))
        doc = next((d for d in task.functions if d["name"] == name), {"parameters": {"properties": {}}})
        properties = doc["parameters"].get("properties", {})
        arguments = {}
        for param, options in params.items():
            present, value = _first(options)
            if not present:
                continue
            declared = properties.get(param, {}).get("type", "")
            items = (properties.get(param, {}).get("items") or {}).get("type")
            value = _resolve(value)
            if task.language == "java":
                value = java_source(value, declared, items)
            elif task.language == "javascript":
                value = js_source(value, declared, items)
            arguments[param] = value
        calls.append((name, arguments))
    return calls


# -- built-in tasks -----------------------------------------------------------------------------
def _doc(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"name": name, "description": description,
            "parameters": {"type": "dict", "properties": properties, "required": required}}


_AREA = _doc("geometry.circle_area", "Area of a circle.",
             {"radius": {"type": "float", "description": "The radius."},
              "units": {"type": "string", "description": "Length unit, default 'cm'.", "default": "cm"}}, ["radius"])
_WEATHER = _doc("get_weather", "Current weather in a city.",
                {"city": {"type": "string", "description": "City name."},
                 "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit."}},
                ["city"])
_STOCK = _doc("stock.price", "Latest price of a stock.",
              {"ticker": {"type": "string", "description": "Ticker symbol."},
               "days": {"type": "integer", "description": "Days of history, default 1."}}, ["ticker"])
_SORT = _doc("sort_numbers", "Sort a list of numbers.",
             {"numbers": {"type": "array", "items": {"type": "integer"}, "description": "The numbers."},
              "descending": {"type": "boolean", "description": "Largest first, default false."}}, ["numbers"])
_JAVA = _doc("Inventory.restock", "Restock an item in a Java inventory service.",
             {"itemId": {"type": "String", "description": "The item's id."},
              "quantity": {"type": "integer", "description": "Units to add."},
              "urgent": {"type": "boolean", "description": "Ship with priority."}}, ["itemId", "quantity"])
_JS = _doc("renderChart", "Render a chart in a JavaScript dashboard.",
           {"elementId": {"type": "String", "description": "The DOM element's id."},
            "values": {"type": "array", "items": {"type": "integer"}, "description": "The data points."}},
           ["elementId", "values"])
_CITIES = ["Paris", "Lima", "Osaka", "Nairobi", "Oslo", "Quito", "Perth", "Dakar"]
_TICKERS = ["AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOG"]


def _user(text: str) -> list[list[dict]]:
    return [[{"role": "user", "content": text}]]


def builtin_single_turn(seed: int, per_category: int = 6, split: str | None = None) -> list[SingleTurnTask]:
    """Generated single-turn tasks with their possible answers, per category, from ``seed``.

    Without a split, a small fixed set (``per_category`` of each of seven categories, Java and
    JavaScript too); with ``split="train"`` or ``"test"``, ``per_category`` tasks of each of
    :data:`~toolgym.worlds.bfcl.single_turn.CATEGORIES` over that split's function families.
    """
    if split is not None:
        return [SingleTurnTask(record["id"], category, record["question"], record["function"],
                               record["ground_truth"])
                for category in generated.CATEGORIES
                for record in generated.generate(seed, split, category, per_category)]
    rng = random.Random(seed)
    tasks = []
    for i in range(per_category):
        radius, city, unit = rng.randint(2, 40), rng.choice(_CITIES), rng.choice(["celsius", "fahrenheit"])
        ticker, days = rng.choice(_TICKERS), rng.randint(2, 30)
        numbers = rng.sample(range(100), rng.randint(3, 6))
        other_city = rng.choice([c for c in _CITIES if c != city])
        area = {"geometry.circle_area": {"radius": [float(radius)], "units": ["cm", ""]}}
        weather = {"get_weather": {"city": [city], "unit": [unit]}}
        tasks += [
            SingleTurnTask(f"simple_python_{i}", "simple_python",
                           _user(f"What is the area of a circle of radius {radius} cm?"), [_AREA], [area]),
            SingleTurnTask(f"multiple_{i}", "multiple", _user(f"How warm is it in {city} now, in {unit}?"),
                           [_AREA, _WEATHER, _STOCK], [weather]),
            SingleTurnTask(f"parallel_{i}", "parallel",
                           _user(f"Weather in {city} and in {other_city}, both in {unit}."), [_WEATHER],
                           [weather, {"get_weather": {"city": [other_city], "unit": [unit]}}]),
            SingleTurnTask(f"parallel_multiple_{i}", "parallel_multiple",
                           _user(f"Give me {ticker}'s price over the last {days} days and sort {numbers} "
                                 f"from largest to smallest."), [_STOCK, _SORT, _WEATHER],
                           [{"stock.price": {"ticker": [ticker], "days": [days]}},
                            {"sort_numbers": {"numbers": [numbers], "descending": [True]}}]),
            SingleTurnTask(f"irrelevance_{i}", "irrelevance",
                           _user(f"Who painted the ceiling of the chapel in {city}?"), [_AREA, _STOCK], None),
            SingleTurnTask(f"simple_java_{i}", "simple_java",
                           _user(f"Restock item SKU-{100 + i} with {days} units, urgently."), [_JAVA],
                           [{"Inventory.restock": {"itemId": [f"SKU-{100 + i}"], "quantity": [days],
                                                   "urgent": [True]}}]),
            SingleTurnTask(f"simple_javascript_{i}", "simple_javascript",
                           _user(f"Draw the values {numbers} in the element 'chart{i}'."), [_JS],
                           [{"renderChart": {"elementId": [f"chart{i}"], "values": [numbers]}}]),
        ]
    return tasks
