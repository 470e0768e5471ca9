"""The shared base of BFCL's multi-turn APIs and BFCL's way of running one call on them.

BFCL keeps each API's state in the public attributes of a Python object and grades a turn
by comparing those attributes with the ground truth's (``state_checker``). Here the stateful
APIs (:class:`~toolgym.worlds.bfcl.world.TableAPI`) keep that state in the tables of a
:class:`~toolgym.worlds.bfcl.world.BfclWorld` and :meth:`BfclAPI.state` reads it back into
BFCL's attributes (key order, int against float and list order kept:
:mod:`toolgym.worlds.bfcl.models`). A call that raises leaves the state as it was unless the
caller asks for BFCL's behaviour, which keeps a half-made change (see :func:`run_call`); the
error text is the same either way.

:func:`run_call` dispatches a call by function name across the involved APIs as BFCL's
executor does (a later class wins a shared name), and turns the return value into BFCL's
result text: a string as is, a ``dict`` as JSON (``str`` when JSON cannot hold it), anything
else through ``str``; an exception becomes ``Error during execution: <message>``.
"""

from __future__ import annotations

import functools
import inspect
import json
from importlib import resources
from typing import Any

from toolgym.worlds import jsontext
from toolgym.worlds.base import _copy_state
from toolgym.worlds.tools import argument_problem, parse_docstring

#: Function names BFCL's executor refuses before running anything.
BLOCKED_NAMES = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})


class BfclAPI:
    """One BFCL API: its public methods are its functions. This base holds no state (BFCL's
    stateless MathAPI); the stateful APIs subclass :class:`~toolgym.worlds.bfcl.world.TableAPI`."""

    #: The BFCL class name (``TicketAPI``) and its function-doc file (``ticket_api``).
    class_name: str = ""
    doc_file: str = ""

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Set the state from the task's ``initial_config`` for this API: nothing without state."""

    def state(self) -> dict[str, Any]:
        """The attributes BFCL's state checker compares: none without state."""
        return {}

    def _run(self, name: str, arguments: dict, rollback: bool) -> str:
        """``name(**arguments)`` as BFCL's result text; see :func:`run_call` for ``rollback``."""
        return result_text(getattr(self, name)(**arguments))

    def work(self, name: str, arguments: dict) -> int:
        """The work units of a call, for the budgets of a step and a turn: 1 unless the API
        knows a call costs more (MathAPI's precision)."""
        return 1

    @classmethod
    @functools.cache
    def function_names(cls) -> tuple[str, ...]:
        """The API's functions, in name order (worked out once per class: calls look names up here)."""
        return tuple(name for name, member in inspect.getmembers(cls, inspect.isfunction)
                     if not name.startswith("_") and name not in _BASE_METHODS)


_BASE_METHODS = frozenset(name for name, _ in inspect.getmembers(BfclAPI, inspect.isfunction))


_write_json = jsontext.dumps()  # json.dumps


def result_text(value: Any) -> str:
    """A return value as BFCL's executor writes it into the conversation."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return _write_json(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def run_call(instances: dict[str, BfclAPI], name: str, arguments: dict, rollback: bool = True) -> str:
    """Run ``name(**arguments)`` on whichever involved API owns ``name``; BFCL's result text.

    With ``rollback`` a call that raises leaves the API as it was; without, it keeps whatever the
    call changed before raising, as BFCL does (``set_navigation(destination=1)`` sets the
    destination, then fails to build its message).
    """
    owner = _owner(instances, name)
    base = name.split(".")[-1] if isinstance(name, str) else ""
    if base in BLOCKED_NAMES:
        return f"Error during execution: Function call {base} is not allowed."
    if owner is None or not isinstance(arguments, dict) \
            or not all(isinstance(key, str) for key in arguments):
        # BFCL evaluates the text, so for "Class.method" Python names the first unknown part.
        unknown = name.split(".")[0] if isinstance(name, str) else repr(name)
        message = f"name '{unknown}' is not defined" if owner is None else "arguments must be a dict of names"
        return f"Error during execution: {message}"
    problem = argument_problem(arguments)  # bounded work: nesting, size, non-finite numbers
    if problem:
        return f"Error during execution: {problem}"
    try:
        # a copy (JSON-shaped values copied directly: deepcopy cost more than a read call), so that
        # a call changing its arguments never changes the caller's action
        return owner._run(name, _copy_state(arguments), rollback)
    except Exception as exc:  # the API's own failure, worded as Python words it (BFCL shows str(e))
        return f"Error during execution: {exc}"


def call_work(instances: dict[str, BfclAPI], name: str, arguments: dict) -> int:
    """The work units of a call (:meth:`BfclAPI.work`); 1 for a call that will not run."""
    owner = _owner(instances, name)
    if owner is None or not isinstance(arguments, dict):
        return 1
    return max(1, owner.work(name, arguments))


def _owner(instances: dict[str, BfclAPI], name: str) -> BfclAPI | None:
    """The involved API that runs ``name``: a later class wins a shared name, as in BFCL."""
    if not isinstance(name, str):  # no function's name (and perhaps not hashable)
        return None
    owner = None
    for instance in instances.values():
        if name in _function_set(type(instance)):
            owner = instance
    return owner


@functools.cache
def _function_set(cls: type[BfclAPI]) -> frozenset[str]:
    """:meth:`BfclAPI.function_names` as a set, for the lookup of every call's owner."""
    return frozenset(cls.function_names())


_JSON_TYPES = {str: "string", int: "integer", float: "float", bool: "boolean", dict: "dict", list: "array"}


def function_doc(cls: type[BfclAPI], name: str) -> dict:
    """A BFCL-style function doc derived from the method's signature and docstring.

    The description is the docstring's; each parameter's text is its entry under ``Args:``
    (read by ``docstring-parser``), and an optional parameter's default is given as BFCL's
    docs give it. A parameter the docstring does not describe is a ``ValueError``: a doc
    with a bare name tells a model nothing.
    """
    method = getattr(cls, name)
    description, texts = parse_docstring(inspect.getdoc(method) or "")
    hints = {key: value for key, value in inspect.get_annotations(method, eval_str=True).items()
             if key != "return"}
    properties, required = {}, []
    for parameter in list(inspect.signature(method).parameters.values())[1:]:
        if not texts.get(parameter.name):
            raise ValueError(f"{cls.__name__}.{name}: the docstring does not describe {parameter.name!r} under Args:")
        annotation = hints.get(parameter.name, str)
        base = next((t for t in getattr(annotation, "__args__", (annotation,)) if t is not type(None)), str)
        base = getattr(base, "__origin__", base)
        properties[parameter.name] = {"type": _JSON_TYPES.get(base, "string"), "description": texts[parameter.name]}
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        elif type(parameter.default) in (str, int, float, bool):
            properties[parameter.name]["default"] = parameter.default
    return {"name": name, "description": description,
            "parameters": {"type": "dict", "properties": properties, "required": required}}


@functools.cache
def long_context_data() -> dict:
    """BFCL's long-context data (``long_context.py``, Apache-2.0), read once; treat as read-only.

    BFCL's watch-list extension holds one ``...`` (Python's Ellipsis) among its symbols, which
    its results print as ``Ellipsis``; JSON writes it as ``null``.
    """
    text = resources.files("toolgym").joinpath("assets/bfcl/long_context.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data["WATCH_LIST_EXTENSION"] = [... if symbol is None else symbol for symbol in data["WATCH_LIST_EXTENSION"]]
    return data
