"""Demonstrations: a natural-language task and the action that solves it.

The ToolBench envs put k of them in the system prompt (retrieved from a pool). They are a
plain record of the worlds layer because the worlds' task generators build the pools.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Demo:
    """One demonstration: a natural-language task and the action that solves it."""

    query: str
    action: str

    def text(self) -> str:
        """The demonstration as it appears in the prompt (the original's example-file format)."""
        return f"Task: {self.query}\nAction:\n{self.action}\n"
