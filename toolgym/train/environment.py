"""A toolgym env in TRL's environment interface: ``GRPOTrainer(environment_factory=...)``.

TRL's contract (``trl.GRPOTrainer``, ``environment_factory``): the factory makes one
environment per rollout; the trainer calls ``reset(**row)`` with the dataset row before
generating (a returned string is appended to the last user message), exposes every public
method as a tool the model may call (its schema read from the type hints and the docstring,
its string result fed back as the tool turn), and, when the environment defines
``get_reward()``, scores each finished rollout with it.

:func:`environment_factory` builds that class for an env id: one method per tool of the
env's ``info["tools"]`` (same names and parameters; a call is the env step
``{"name": tool, "arguments": {...}}``), plus ``act(action)`` for actions that are not one
tool call (a text reply, a program, a curl command, a WebShop ``click[...]``): the program envs
in single-step mode (HomeSearch, TripBooking, Tabletop, VirtualHome) take their whole program
through it and answer a single tool call with "the program must be text". ``get_reward()`` is the episode's return so far (the paper's metric once the
episode ends, as dense rewards sum to it), or ``metric`` from ``info["metrics"]``.
"""

from __future__ import annotations

import functools
import inspect
import json
import keyword
from typing import Any

from toolgym.registry import make_env
from toolgym.train.rewards import metric_value

_JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}
#: The method names TRL gives a meaning, and the adapter's own tool.
_RESERVED = {"reset", "get_reward", "act"}


class ToolgymEnvironment:
    """One rollout's env; :func:`environment_factory` subclasses it with the env's tools."""

    def __init__(self, env_id: str, env_kwargs: dict, seed: int = 0, metric: str | None = None):
        self._env = make_env(env_id, env_kwargs)
        self._seed, self._metric = seed, metric
        self._return, self._done, self._metrics = 0.0, True, None

    def reset(self, task_id: str | None = None, seed: int | None = None, prompt: Any = None, **row: Any) -> str | None:
        """Start the row's task (``task_id`` column; default: one drawn from the seed).

        Returns None when the row has a prompt (toolgym's prompt dataset states the task), else
        the task's first observation, for TRL to append to the user message.
        """
        options = {"task_id": task_id} if task_id is not None else None
        observation, _ = self._env.reset(seed=self._seed if seed is None else seed, options=options)
        self._return, self._done, self._metrics = 0.0, False, None
        return None if prompt is not None else observation

    def act(self, action: str) -> str:
        """Take an action that is not one tool call: a reply to the user, a program, a curl command, a click.

        Args:
            action: The action, as the env reads it.
        """
        return self._step(action)

    def get_reward(self) -> float:
        """The episode's return so far, or the chosen metric once the episode ended (0 before)."""
        if self._metric is None:
            return self._return
        return metric_value(self._metrics, self._metric)

    def _step(self, action: Any) -> str:
        observation, reward, terminated, truncated, info = self._env.step(action)
        if not self._done:
            self._return += float(reward)
            self._done = bool(terminated or truncated)
            self._metrics = info.get("metrics") if self._done else None
        return observation


def _python_type(schema: dict):
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return _JSON_TYPES.get(kind, str)


def _tool_method(function: dict):
    """A method with the tool's name, parameters (typed) and docstring; None for a name Python cannot take."""
    name = function["name"]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    if not name.isidentifier() or keyword.iskeyword(name) or name in _RESERVED or name.startswith("_") or any(
            not p.isidentifier() or keyword.iskeyword(p) for p in properties):
        return None
    required = set(parameters.get("required") or ())
    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations, lines = {}, []
    # Required parameters first: Python wants those without defaults ahead.
    for param, schema in sorted(properties.items(), key=lambda item: item[0] not in required):
        python_type = _python_type(schema)
        annotations[param] = python_type if param in required else python_type | None
        signature.append(inspect.Parameter(param, inspect.Parameter.KEYWORD_ONLY, annotation=annotations[param],
                                           **({} if param in required else {"default": None})))
        description = " ".join(str(schema.get("description") or param).split())
        if "enum" in schema:
            description += f" (choices: {json.dumps(schema['enum'])})"
        lines.append(f"    {param}: {description}")
    annotations["return"] = str

    def method(self, **arguments):
        return self._step({"name": name, "arguments": {k: v for k, v in arguments.items() if v is not None}})

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(signature, return_annotation=str)
    method.__annotations__ = annotations
    summary = " ".join(str(function.get("description") or name).split())
    method.__doc__ = summary + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
    return method


def environment_factory(env_id: str, env_kwargs: dict | None = None, seed: int = 0, metric: str | None = None):
    """The ``environment_factory`` of ``GRPOTrainer`` for ``env_id``.

    The tools are those of the env's first task (the same for every task of ToolTalk,
    AppBench, the API-program, REST, Sheets, VirtualHome and WebShop envs; ToolLLM's differ
    per task, and its other tasks' tools answer as unknown tools). A tool whose name or
    parameter names are not Python identifiers is left out; ``act`` reaches it.

    Args:
        env_id: A toolgym env id.
        env_kwargs: Keywords of ``gym.make``.
        seed: The reset seed of every episode (a row's ``seed`` column overrides it).
        metric: Score with this ``info["metrics"]`` key (or keys joined by ``+``, summed)
            instead of the return.
    """
    env_kwargs = dict(env_kwargs or {})
    probe = make_env(env_id, env_kwargs)
    _, info = probe.reset(seed=seed, options={"task_index": 0})
    probe.close()
    methods = {}
    for tool in info.get("tools") or []:
        method = _tool_method(tool["function"])
        if method is not None:
            methods[method.__name__] = method
    # TRL names the reward column after the class: the env id says which env scored.
    name = env_id.replace("-", "_") + "Environment"
    cls = type(name, (ToolgymEnvironment,), {**methods, "__doc__": f"{env_id} as a TRL environment.",
                                             "__module__": __name__})
    return functools.partial(cls, env_id, env_kwargs, seed, metric)
