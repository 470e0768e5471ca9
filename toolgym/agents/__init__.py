"""Policies that act in toolgym envs. ``make_agent`` turns a CLI spec into an agent."""

from __future__ import annotations

from collections.abc import Callable

from toolgym.agents.base import Agent, MissingReplay, OracleAgent, RandomAgent, ReplayAgent

# prefix -> factory(argument, env, options).
AGENT_FACTORIES: dict[str, Callable] = {
    "oracle": lambda arg, env, options: OracleAgent(env),
    "random": lambda arg, env, options: RandomAgent(seed=options.get("seed", 0)),
    "replay": lambda arg, env, options: ReplayAgent(arg),
    "hf": lambda arg, env, options: _llm_agent("hf", arg, env, options),
    "openai": lambda arg, env, options: _llm_agent("openai", arg, env, options),
}


def _llm_agent(kind: str, arg: str, env, options: dict):
    from toolgym.agents.llm import make_llm_agent  # torch / transformers only when a model is loaded
    return make_llm_agent(kind, arg, env, options)


def make_agent(spec: str, env, **options) -> Agent:
    """Build an agent from ``oracle``, ``random``, ``replay:FILE`` (or a registered prefix)."""
    prefix, _, arg = spec.partition(":")
    if prefix not in AGENT_FACTORIES:
        raise ValueError(f"unknown agent {spec!r}; known: {', '.join(sorted(AGENT_FACTORIES))}")
    return AGENT_FACTORIES[prefix](arg, env, options)


__all__ = ["Agent", "MissingReplay", "OracleAgent", "RandomAgent", "ReplayAgent", "make_agent", "AGENT_FACTORIES"]
