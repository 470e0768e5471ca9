"""BFCL's wire protocol: what its OpenAI handlers send a model, byte for byte.

Matched to ``bfcl-eval`` 2026.3.23 (``model_handler/api_inference/openai_completion.py``,
``openai_response.py``, ``base_handler.py``, ``model_handler/utils.py``,
``constants/default_prompts.py``, the loader in ``bfcl_eval/utils.py``), and checked by
``tests/test_bfcl_protocol.py`` against the request bodies BFCL's own handlers sent to a
recording server (``tests/data/bfcl_protocol_requests.json``). Four profiles (prompt formats
in :mod:`toolgym.agents.llm.prompts`):

- ``bfcl-fc``: function calling through chat completions (``OpenAICompletionsHandler``);
- ``bfcl-fc-responses``: function calling through the Responses API
  (``OpenAIResponsesHandler``, which BFCL's leaderboard entries of OpenAI models use);
- ``bfcl-prompting`` (also named ``bfcl``): prompting mode through chat completions;
- ``bfcl-prompting-responses``: prompting mode through the Responses API.

What every profile sends:

- the body: ``model``, the messages (``input`` for the Responses API), ``tools`` in function
  calling when there are any, ``temperature`` 0.001 and ``store: false``; no ``tool_choice``,
  ``top_p``, ``seed``, ``max_tokens`` or stop strings (BFCL sends none). The Responses API
  entries of reasoning models (names with ``o3``, ``o4-mini``, ``gpt-5``) drop the
  temperature and add ``reasoning``/``include`` in BFCL; toolgym does not know the served
  model's name, so these profiles send BFCL's settings for other models;
- the function docs with BFCL's language hints (:func:`with_language_hints`: `` Note that the
  provided function is in Python 3 syntax.`` and the Java / JavaScript rewriting of parameters
  as strings in source text), and in function calling the tools as ``convert_to_tool`` derives
  them (:func:`openai_tools`: dots in names as underscores, GORILLA_TO_OPENAPI types,
  `` This is a float type value.`` and ``"format": "float"`` on float parameters, ``response``
  kept as it is);
- the question's messages as they are (Responses API: ``system`` as ``developer``, in every
  turn); in prompting mode BFCL's default system prompt (:func:`system_prompt`) before the first
  turn's own system message, joined by a blank line, or as a new first message;
- the model's own turns back as the server sent them: the chat completion's message, or the
  Responses API's output items (the SDK sends back every field the server set);
- tool results: function calling, one ``tool`` message per call with the server's
  ``tool_call_id`` (Responses API: ``function_call_output`` items with its ``call_id``);
  prompting, one user message holding the Python ``repr`` of
  ``[{"role": "tool", "name": CALL, "content": RESULT}, ...]`` where CALL is the call as BFCL
  writes it back (:func:`call_text`, ``cd(folder='document')``);
- multi-turn: every function of the involved APIs, the entry's ``excluded_function`` too (BFCL's
  loader never reads that field); a ``miss_func`` turn that reveals held-out functions is the
  user message ``I have updated some more functions you can choose from. What about now?``
  (prompting: the Python ``repr`` of the revealed docs, a newline, then that text) and, in
  function calling, the tools compiled again with the revealed docs appended; at most
  ``MAXIMUM_STEP_LIMIT`` (20) steps a turn, after which BFCL forces the entry to quit (the env
  counts them: :data:`toolgym.envs.bfcl.env.MAXIMUM_STEP_LIMIT`).

Accidental differences of BFCL, reproduced:

- the system prompt joins persona and task without a space (``functions.You are given``),
  and ``{output_format}. {param_types} You`` leaves two spaces after the format (``(params)].
  You``) since the Python format's type note is empty;
- the function docs of the system prompt are ``json.dumps(..., indent=4)`` with ASCII escapes;
- held-out (``miss_func``) docs get no language hint (BFCL adds the hints after it has taken
  them out of the entry's functions); in prompting they are shown as a Python ``repr``, not JSON;
- the float hint applies to top-level parameters only, and ``response`` schemas keep BFCL's own
  type names (``dict``);
- a prompting turn's tool results name the call with ``repr`` values joined by ``, ``.

Grading in function-calling mode: BFCL's FC decoder reads only native calls, so a text answer
is no call (a multi-turn turn ends; a single-turn item fails to decode). The FC profiles' parser
(``bfcl-fc``) passes such an answer as an assistant message, which the env never reads as calls,
even when its text is ``[f(a=1)]``.

Memory categories: the env's conversations (BFCL's memory system prompt, a fresh chat for each
prerequisite conversation and the question) go out in the same layout; checked against BFCL's
handlers for memory_kv, memory_vector and memory_rec_sum (``benchmarks/compare_bfcl_protocol.py``).

format_sensitivity: the prompting profiles send the entry's configuration's system prompt
(:mod:`toolgym.envs.bfcl.formats`, from ``info["prompt_variation"]``) in the same layout, the
docs hinted twice as BFCL's loader hints them; the function-calling profiles refuse the
category (:data:`FC_FORMAT_SENSITIVITY`), as ``bfcl generate`` skips it for FC models.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from toolgym.envs.bfcl import formats
from toolgym.envs.bfcl.actions import DecodeError, read_calls
from toolgym.envs.bfcl.tasks import OPENAPI_TYPES, openai_name

#: What BFCL's OpenAI handlers send besides the messages and tools: ``bfcl generate``'s default
#: temperature and ``store: false``; no ``top_p``, ``seed`` or ``max_tokens``. The run's own
#: decoding settings are therefore not sent (``SamplingParams`` fields of None); a local backend
#: decodes greedily, which a temperature of 0.001 stands for, within its own token limit.
BODY = {"temperature": 0.001, "store": False}
SAMPLING = {"temperature": None, "top_p": None, "max_new_tokens": None, "seed": None}
#: The user turn that reveals held-out functions (``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC``).
ADDITIONAL_FUNCTION = "I have updated some more functions you can choose from. What about now?"
#: BFCL's refusal of format_sensitivity for function-calling models (``_llm_response_generation.py``).
FC_FORMAT_SENSITIVITY = ("Format sensitivity test cases are only supported for prompting (non-FC) models. The "
                         "function-calling profiles (bfcl-fc, bfcl-fc-responses) do not run them; use bfcl-prompting "
                         "or bfcl-prompting-responses")

# BFCL's default system prompt format (ret_fmt=python, no tool-call tag, func_doc_fmt=json,
# prompt_fmt=plaintext, style=classic): "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}
# \n\n{available_tools}", with persona and task glued together as BFCL glues them.
SYSTEM_PROMPT = (
    "You are an expert in composing functions."
    "You are given a question and a set of possible functions. Based on the question, you will need to make one "
    "or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If "
    "the given question lacks the parameters required by the function, also point it out.\n\n"
    "You should only return the function calls in your response.\n\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of "
    "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  "
    "You SHOULD NOT include any other text in the response.\n\n"
    "At each turn, you should try your best to complete the tasks requested by the user within the current "
    "turn. Continue to output functions to call until you have fulfilled the user's request to the best of "
    "your ability. Once you have no more functions to call, the system will consider the current turn complete "
    "and proceed to the next turn or task.\n\n"
    "Here is a list of functions in json format that you can invoke.\n{functions}\n")


def language_of(category: str) -> str:
    """The language BFCL hints at for a category (its ``is_java`` / ``is_js`` tests on the name)."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def _hint_parameter(value: dict, language: str) -> None:
    """BFCL's Java / JavaScript rewriting of one top-level parameter (a string of source text)."""
    lang = "Java" if language == "java" else "JavaScript"
    declared = value.get("type")
    if declared == "any":
        value["description"] = value.get("description", "") + \
            f" This parameter can be of any type of {lang} object in string representation."
    else:
        value["description"] = value.get("description", "") + \
            f" This is {lang} {declared} type parameter in string representation."
    items = value.get("items") if isinstance(value.get("items"), dict) else {}
    if declared in (("ArrayList", "Array") if language == "java" else ("array",)):
        value["description"] += f" The list elements are of type {items.get('type')}; they are not in string " \
                                f"representation."
        value.pop("items", None)
    if language == "javascript" and declared == "dict" and "properties" in value:
        value["description"] += " The dictionary entries have the following schema; they are not in string " \
                                f"representation. {json.dumps(value['properties'])}"
        del value["properties"]
    value["type"] = "string"


def with_language_hints(functions: list[dict], category: str) -> list[dict]:
    """BFCL's ``_func_doc_language_specific_pre_processing`` on copies of ``functions``; twice for
    ``format_sensitivity``, whose loader hints the items it copies from their categories and then
    hints the copies again (so the Python note is in each description twice).

    Only the dicts the hints change are copied (a doc; for Java and JavaScript its parameters,
    their properties and each property's schema); the rest is shared with ``functions``, so read
    the result, never change it. A deep copy of every doc cost more than BFCL's checker.
    """
    if category == "format_sensitivity":
        return _hinted(_hinted(functions, "python"), "python")
    return _hinted(functions, language_of(category))


def _hinted(functions: list[dict], language: str) -> list[dict]:
    hinted = []
    for doc in functions:
        if not isinstance(doc, dict):
            hinted.append(copy.deepcopy(doc))
            continue
        doc = dict(doc)
        doc["description"] = str(doc.get("description", "")) + \
            f" Note that the provided function is in {_LANGUAGE_NAMES[language]} syntax."
        properties = (doc.get("parameters") or {}).get("properties") if isinstance(doc.get("parameters"), dict) \
            else None
        if language != "python" and isinstance(properties, dict):
            properties = {name: dict(value) if isinstance(value, dict) else value for name, value in properties.items()}
            doc["parameters"] = {**doc["parameters"], "properties": properties}
            for value in properties.values():
                if isinstance(value, dict):
                    _hint_parameter(value, language)
        hinted.append(doc)
    return hinted


_LANGUAGE_NAMES = {"python": "Python 3", "java": "Java 8 SDK", "javascript": "JavaScript"}


def _openapi_type(name: Any) -> Any:
    return OPENAPI_TYPES.get(name, "string") if isinstance(name, str) else "string"


def _cast_properties(properties: dict) -> dict:
    """BFCL's ``_cast_to_openai_type``: types mapped, the float hint on float parameters, nested
    object properties and list items (two levels, as BFCL goes) mapped too."""
    for value in properties.values():
        if not isinstance(value, dict):
            continue
        if "type" not in value:
            value["type"] = "string"
        else:
            if value["type"] == "float":
                value["format"] = "float"
                value["description"] = str(value.get("description", "")) + " This is a float type value."
            value["type"] = _openapi_type(value["type"])
        if value["type"] not in ("array", "object"):
            continue
        if isinstance(value.get("properties"), dict):
            value["properties"] = _cast_properties(value["properties"])
        elif isinstance(value.get("items"), dict):
            items = value["items"]
            items["type"] = _openapi_type(items.get("type"))
            if items["type"] == "array" and isinstance(items.get("items"), dict):
                items["items"]["type"] = _openapi_type(items["items"].get("type"))
            elif items["type"] == "object" and isinstance(items.get("properties"), dict):
                items["properties"] = _cast_properties(items["properties"])
    return properties


def openai_tools(functions: list[dict], api: str = "chat") -> list[dict]:
    """BFCL's ``convert_to_tool`` for its OpenAI handlers: ``{"type": "function", "function":
    doc}`` for chat completions, the doc with ``"type": "function"`` for the Responses API."""
    tools = []
    for doc in copy.deepcopy(functions):
        if not isinstance(doc, dict):
            continue
        doc["name"] = openai_name(str(doc.get("name", "")))
        parameters = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
        doc["parameters"] = parameters
        parameters["type"] = "object"
        parameters["properties"] = _cast_properties(parameters.get("properties")
                                                    if isinstance(parameters.get("properties"), dict) else {})
        if api == "responses":
            doc["type"] = "function"
            tools.append(doc)
        else:
            tools.append({"type": "function", "function": doc})
    return tools


def system_prompt(functions: list[dict], variation: str | None = None) -> str:
    """BFCL's prompting system prompt with ``functions`` (hinted): the default (as indented
    JSON), or a format_sensitivity ``variation``'s (:func:`toolgym.envs.bfcl.formats.system_prompt`)."""
    if variation is not None:
        return formats.system_prompt(variation, functions)
    return SYSTEM_PROMPT.replace("{functions}", json.dumps(functions, indent=4))


def _value_text(value: Any) -> str:
    """BFCL's ``parse_nested_value``: a dict whose values are all dicts is a nested call."""
    if isinstance(value, dict):
        if value and all(isinstance(v, dict) for v in value.values()):
            name, arguments = next(iter(value.items()))
            return f"{name}({', '.join(f'{k}={_value_text(v)}' for k, v in arguments.items())})"
        return "{" + ", ".join(f"'{k}': {_value_text(v)}" for k, v in value.items()) + "}"
    return repr(value)


def call_text(name: str, arguments: dict) -> str:
    """A call as BFCL's prompting mode names it in a tool result (``decoded_output_to_execution_list``)."""
    return f"{name}({', '.join(f'{k}={_value_text(v)}' for k, v in arguments.items())})"


def _call_ids(reply: Any, api: str) -> list:
    """The ids of the calls in a server's answer: chat ``tool_calls[].id``, Responses ``call_id``."""
    if api == "responses":
        return [item.get("call_id") for item in reply or () if isinstance(item, dict)
                and item.get("type") == "function_call"]
    calls = reply.get("tool_calls") if isinstance(reply, dict) else None
    return [call.get("id") if isinstance(call, dict) else None for call in calls or ()]


def _call_texts(message: dict) -> list[str]:
    """The env's record of a prompting answer's calls, as BFCL names them: the model's text read
    again (Python values as written), else the calls the env recorded."""
    try:
        return [call_text(name, args) for name, args in read_calls(str(message.get("content") or ""), "python")]
    except DecodeError:
        out = []
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except (ValueError, RecursionError):
                arguments = {}
            out.append(call_text(str(function.get("name")), arguments if isinstance(arguments, dict) else {}))
        return out


class Conversation:
    """Builds one profile's request from the env's ``info`` and the server's earlier answers.

    ``fc`` is function calling (else prompting), ``api`` ``"chat"`` or ``"responses"``. An
    instance belongs to one episode: it remembers the functions offered at the start (BFCL
    hints them) and those revealed later (it does not)."""

    def __init__(self, fc: bool, api: str):
        self.fc = fc
        self.api = api
        self.initial: list[str] | None = None  # the doc names offered at the first request
        self.revealed: list[list[dict]] = []  # docs revealed by each held-out turn, in order
        self._known: set[str] = set()

    def _functions(self, info: dict) -> tuple[list[dict], list[dict]]:
        """(hinted initial docs, unhinted revealed docs) of ``info["functions"]``, in its order."""
        functions = [f for f in info.get("functions") or [] if isinstance(f, dict)]
        names = [str(f.get("name")) for f in functions]
        if self.initial is None:
            self.initial = names
            self._known = set(names)
        new = [f for f in functions if str(f.get("name")) not in self._known]
        if new:
            self.revealed.append(new)
            self._known.update(str(f.get("name")) for f in new)
        offered_first = set(self.initial)
        initial = [f for f in functions if str(f.get("name")) in offered_first]
        later = [f for f in functions if str(f.get("name")) not in offered_first]
        return with_language_hints(initial, str(info.get("split") or "")), later

    def _refuse_variation(self, info: dict) -> None:
        """BFCL runs format_sensitivity for prompting models only (``bfcl generate`` skips it for
        FC models with this warning)."""
        if self.fc and info.get("prompt_variation") is not None:
            raise ValueError(FC_FORMAT_SENSITIVITY)

    def tools(self, info: dict) -> list[dict] | None:
        self._refuse_variation(info)
        if not self.fc:
            return None
        hinted, later = self._functions(info)
        return openai_tools(hinted + later, self.api) or None

    def messages(self, info: dict, replies: list) -> list[dict]:
        """The request's messages (Responses API: its input items)."""
        self._refuse_variation(info)
        hinted, _ = self._functions(info)
        env_messages = [m for m in info.get("messages") or [] if isinstance(m, dict)]
        out: list[Any] = []
        # Each completion is one action and each action one assistant message; a memory entry's
        # new conversation starts its messages again, so its answers are the last replies.
        shown = sum(m.get("role") == "assistant" for m in env_messages)
        replies = list(replies)[max(0, len(replies) - shown):]
        answers = 0
        holdouts = 0
        first_turn = True
        i = 0
        while i < len(env_messages):
            message = env_messages[i]
            role = message.get("role")
            if role == "assistant":
                reply = replies[answers] if answers < len(replies) else None
                answers += 1
                results = []
                while i + 1 < len(env_messages) and env_messages[i + 1].get("role") == "tool":
                    i += 1
                    results.append(str(env_messages[i].get("content") or ""))
                self._answer(out, message, reply if reply is not None else self._local_reply(message, answers),
                             results)
                first_turn = False
                ended = not message.get("tool_calls")
                next_is_user = i + 1 < len(env_messages) and env_messages[i + 1].get("role") != "assistant" \
                    and env_messages[i + 1].get("role") != "tool"
                if ended and not next_is_user and holdouts < len(self.revealed):
                    out.append(self._role({"role": "user", "content": self._holdout_text(self.revealed[holdouts])}))
                    holdouts += 1
            elif role in ("user", "system"):
                turn = [dict(message)]
                while i + 1 < len(env_messages) and env_messages[i + 1].get("role") in ("user", "system"):
                    i += 1
                    turn.append(dict(env_messages[i]))
                if first_turn and not self.fc:
                    prompt = system_prompt(hinted, info.get("prompt_variation"))
                    if turn[0].get("role") == "system":
                        turn[0]["content"] = f"{prompt}\n\n{turn[0].get('content')}"
                    else:
                        turn.insert(0, {"role": "system", "content": prompt})
                out.extend(self._role(m) for m in turn)
            i += 1
        return out

    def _holdout_text(self, docs: list[dict]) -> str:
        return ADDITIONAL_FUNCTION if self.fc else f"{docs!r}\n{ADDITIONAL_FUNCTION}"

    def _role(self, message: dict) -> dict:
        """Responses API: ``system`` is sent as ``developer`` (BFCL's ``_substitute_prompt_role``)."""
        if self.api == "responses" and message.get("role") == "system":
            return {**message, "role": "developer"}
        return message

    def _local_reply(self, message: dict, index: int) -> Any:
        """A model turn where no server sent one (a local backend, or a test building requests
        from an env alone): the text, or in function calling the calls with ids of their own."""
        calls = message.get("tool_calls") if self.fc else None
        if not calls:
            text = str(message.get("content") or "")
            return [{"role": "assistant", "content": text}] if self.api == "responses" else \
                {"role": "assistant", "content": text}
        functions = [call.get("function") or {} for call in calls if isinstance(call, dict)]
        ids = [f"call_{index}_{j}" for j in range(len(functions))]
        if self.api == "responses":
            return [{"type": "function_call", "call_id": call_id, "name": f.get("name"), "arguments": f.get("arguments")}
                    for call_id, f in zip(ids, functions)]
        return {"role": "assistant", "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": f} for call_id, f in zip(ids, functions)]}

    def _answer(self, out: list, message: dict, reply: Any, results: list[str]) -> None:
        """The model's turn as the server sent it, then the results of its calls."""
        if self.api == "responses":
            out.extend(reply if isinstance(reply, list) else [reply])
        else:
            out.append(reply)
        if not results:
            return
        if not self.fc:
            names = _call_texts(message)
            results_text = repr([{"role": "tool", "name": name, "content": result}
                                 for name, result in zip(names, results)])
            out.append({"role": "user", "content": results_text})
            return
        for result, call_id in zip(results, _call_ids(reply, self.api)):
            out.append({"type": "function_call_output", "call_id": call_id, "output": result}
                       if self.api == "responses" else {"role": "tool", "content": result, "tool_call_id": call_id})
