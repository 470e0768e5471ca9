"""What a search asks for actions: a policy that decides for many chains at once.

A :class:`Policy` has ``start(observation, info) -> state`` (a chain's memory) and
``step_batch(states, observations, infos) -> [Step]`` (one action per chain, in one call).
The shared :class:`~toolgym.agents.llm.LLMAgent` is one as it is: its per-episode state is a
plain :class:`EpisodeState`, which the search copies at every node so that a chain continued
from a node remembers exactly what it remembered there. Agents of the ``reset`` / ``act``
protocol are wrapped by :class:`ActPolicy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from toolgym.agents.llm.agent import Step


class Policy(Protocol):
    def start(self, observation: str, info: dict) -> Any: ...

    def step_batch(self, states: Sequence[Any], observations: Sequence[str],
                   infos: Sequence[dict]) -> list[Step]: ...


class ActPolicy:
    """An agent of the ``reset`` / ``act`` protocol as a policy (one action at a time).

    Such an agent keeps its memory inside itself, so the search cannot copy it at a node:
    it fits agents that decide from the observation and info alone (the oracle, scripted
    agents). ``reset`` is called once per task.
    """

    def __init__(self, agent):
        self.agent = agent

    def start(self, observation: str, info: dict) -> None:
        self.agent.reset(observation, info)

    def step_batch(self, states, observations, infos) -> list[Step]:
        return [Step(action=self.agent.act(o, i), llm=dict(getattr(self.agent, "last_llm", None) or {}))
                for o, i in zip(observations, infos)]


def as_policy(agent) -> Policy:
    """The agent itself when it is a policy (``start`` and ``step_batch``), else an :class:`ActPolicy`."""
    if callable(getattr(agent, "start", None)) and callable(getattr(agent, "step_batch", None)):
        return agent
    return ActPolicy(agent)
