"""Policies that act in toolgym envs. ``make_agent`` turns a CLI spec into an agent."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from toolgym.agents.base import Agent, MissingReplay, OracleAgent, RandomAgent, ReplayAgent, play_oracle
from toolgym.agents.fuzz import FuzzAgent
from toolgym.registry import load_class

# prefix -> factory(argument, env, options).
AGENT_FACTORIES: dict[str, Callable] = {
    "oracle": lambda arg, env, options: OracleAgent(env),
    "random": lambda arg, env, options: RandomAgent(seed=options.get("seed", 0)),
    "fuzz": lambda arg, env, options: FuzzAgent(env, seed=options.get("seed", 0)),
    "replay": lambda arg, env, options: ReplayAgent(arg),
    "hf": lambda arg, env, options: _llm_agent("hf", arg, env, options),
    "openai": lambda arg, env, options: _llm_agent("openai", arg, env, options),
}


def _llm_agent(kind: str, arg: str, env, options: dict):
    from toolgym.agents.llm import make_llm_agent  # torch / transformers only when a model is loaded
    return make_llm_agent(kind, arg, env, options)


def make_custom_agent(spec: str, env) -> Agent:
    """An instance of a user's agent class: ``Class(env)`` when it takes one argument, else ``Class()``."""
    cls = load_class(spec)
    signature = inspect.signature(cls)
    if _accepts(signature, env):
        agent = cls(env)
    elif _accepts(signature):
        agent = cls()
    else:
        raise ValueError(f"agent {spec!r}: {cls.__name__}{signature} must take the env or no argument")
    missing = [m for m in ("reset", "act") if not callable(getattr(agent, m, None))]
    if missing:
        raise ValueError(f"agent {spec!r}: {cls.__name__} has no {' or '.join(missing)} method; an agent "
                         f"implements reset(observation, info) and act(observation, info) -> action")
    return agent


def _accepts(signature: inspect.Signature, *args) -> bool:
    try:
        signature.bind(*args)
    except TypeError:
        return False
    return True


def make_agent(spec: str, env, **options) -> Agent:
    """Build an agent from a CLI spec.

    ``oracle``, ``random``, ``replay:FILE``, ``hf:MODEL``, ``openai:URL#MODEL`` (or another
    prefix of :data:`AGENT_FACTORIES`), or a user's class as ``module.path:Class`` or
    ``path/to/file.py:Class`` (see :func:`make_custom_agent`).
    """
    prefix, sep, arg = spec.partition(":")
    if prefix in AGENT_FACTORIES:
        return AGENT_FACTORIES[prefix](arg, env, options)
    if sep:
        return make_custom_agent(spec, env)
    raise ValueError(f"unknown agent {spec!r}; known: {', '.join(sorted(AGENT_FACTORIES))}, "
                     f"or your own class as module:Class or path/to/file.py:Class")


__all__ = ["Agent", "FuzzAgent", "MissingReplay", "OracleAgent", "RandomAgent", "ReplayAgent", "make_agent", "play_oracle",
           "make_custom_agent", "AGENT_FACTORIES"]
