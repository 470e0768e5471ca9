"""ToolBench's names and function schemas for RapidAPI APIs (``toolbench/utils.py``, ``rapidapi.py``).

An API ``Get Artist Overview`` of the tool ``TheClique`` is offered to the model as the
function ``get_artist_overview_for_theclique``: both names are standardised (characters other
than letters, digits, CJK and ``_`` become ``_``, runs of ``_`` collapse, the result is
lower-cased and trimmed of ``_``; a leading digit gets ``get_``), a few Python keywords and
``id`` become ``is_<name>``, and the function name keeps its last 64 characters.
"""

from __future__ import annotations

import re
from typing import Any

from toolgym.worlds.tools import function_schema

_NOT_NAME = re.compile(r"[^\u4e00-\u9fa5a-zA-Z0-9_^]")
_RENAMED = ("from", "class", "return", "false", "true", "id", "and")
#: ToolBench maps these parameter types; every other type is offered as a string.
SCHEMA_TYPES = {"NUMBER": "integer", "STRING": "string", "BOOLEAN": "boolean"}
DESCRIPTION_MAX = 256

#: Finish's ``return_type`` values.
RETURN_TYPES = ("give_answer", "give_up_and_restart")
FINISH_SCHEMA: dict = function_schema(
    "Finish",
    "If you believe that you have obtained a result that can answer the task, please call this "
    "function to provide the final answer. Alternatively, if you recognize that you are unable to "
    "proceed with the task in the current state, call this function to restart. Remember: you must "
    "ALWAYS call this function at the end of your attempt, and the only part that will be shown to "
    "the user is the final answer, so it should contain sufficient information.",
    {"return_type": {"type": "string", "enum": list(RETURN_TYPES)},
     "final_answer": {"type": "string", "description": (
         "The final answer you want to give the user. You should have this field if "
         "\"return_type\"==\"give_answer\"")}},
    ["return_type"])


def standardize(name: str) -> str:
    """ToolBench's ``standardize``: the identifier form of a tool, API or parameter name."""
    text = re.sub(r"_+", "_", _NOT_NAME.sub("_", name)).lower().strip("_")
    if text and text[0].isdigit():
        text = "get_" + text
    return text


def change_name(name: str) -> str:
    """ToolBench's ``change_name``: names that clash with Python keywords (and ``id``) get ``is_``."""
    return "is_" + name if name in _RENAMED else name


def argument_name(parameter_name: str) -> str:
    """The name of a parameter in the function schema."""
    return change_name(standardize(parameter_name))


def function_name(api_name: str, tool_name: str) -> str:
    """``<api>_for_<tool>``, its last 64 characters (OpenAI's limit), as ToolBench names functions."""
    return f"{change_name(standardize(api_name))}_for_{standardize(tool_name)}"[-64:]


def api_schema(api_name: str, tool_name: str, description: str, required: list[dict],
               optional: list[dict]) -> dict:
    """The OpenAI function of one API, built as ToolBench's ``api_json_to_openai_json``.

    ToolBench's extra ``optional`` list of parameter names is kept in ``parameters``; example
    values (a parameter's ``default``) are given as ``example_value``. As in ToolBench, whose
    loop over the optional parameters sits inside ``if len(required_parameters) > 0``, an API
    with no required parameter is offered with no parameters at all (its optional ones are still
    accepted when called).
    """
    name = function_name(api_name, tool_name)
    tool = standardize(tool_name)
    text = f"This is the subfunction for tool \"{tool}\", you can use this tool."
    if description.strip():
        text += f"The description of this function is: \"{description.strip().replace(api_name, name)[:DESCRIPTION_MAX]}\""
    properties: dict[str, Any] = {}
    parameters: dict[str, list[str]] = {"required": [], "optional": []}
    for group, params in (("required", required), ("optional", optional if required else [])):
        for param in params:
            arg = param.get("arg") or argument_name(str(param.get("name", "")))
            prop: dict[str, Any] = {"type": SCHEMA_TYPES.get(param.get("type"), "string"),
                                    "description": str(param.get("description") or "")[:DESCRIPTION_MAX]}
            if param.get("enum"):
                prop["enum"] = list(param["enum"])
            default = param.get("default")
            if default is not None and len(str(default)) != 0:
                prop["example_value"] = default
            properties[arg] = prop
            parameters[group].append(arg)
    return function_schema(name, text, properties, parameters["required"], optional=parameters["optional"])
