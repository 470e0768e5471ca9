"""The agent protocol and the agents that need no model: oracle, replay, random."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Protocol

from toolgym.untrusted import MIB, parse_json, read_json_lines


class Agent(Protocol):
    """A policy over a toolgym env: ``reset`` at each episode start, then ``act`` per step.

    Any class with these two methods can be evaluated with ``toolgym eval --agent
    module.path:Class`` or ``--agent path/to/file.py:Class``; it is built as ``Class(env)``
    when its constructor takes one argument, else as ``Class()``.
    """

    def reset(self, observation: str, info: dict) -> None: ...

    def act(self, observation: str, info: dict) -> Any: ...


class OracleAgent:
    """Replays the ground truth: asks the env for its ground-truth next action."""

    def __init__(self, env):
        self.env = env.unwrapped

    def reset(self, observation: str, info: dict) -> None:
        pass

    def act(self, observation: str, info: dict) -> Any:
        return self.env.oracle_action()


def play_oracle(env, task_id: str, seed: int = 0) -> tuple[float, dict, bool]:
    """Play one task with the env's oracle: (return, last info, terminated)."""
    base = env.unwrapped
    env.reset(seed=seed, options={"task_id": task_id})
    total, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(base.oracle_action())
        total += reward
    return total, info, terminated


class MissingReplay(KeyError):
    """The replay file has no line for a task of the run."""


#: The largest replay file read (a file of recorded actions is a results file's size at most).
MAX_REPLAY_FILE = 256 * MIB


class ReplayAgent:
    """Plays actions from a JSONL file: ``{"task_id": ..., "actions": [a1, a2, ...]}`` per line.

    A tool call is a JSON object ``{"name": ..., "arguments": {...}}``; a string is a reply (or,
    in single-step envs, the whole plan / command / program). When a task's actions run out the
    agent replies with an empty string, which ends a conversational turn or submits nothing.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.actions: dict[str, list] = {}
        for n, line in read_json_lines(self.path, MAX_REPLAY_FILE, "replay file"):
            if not line.strip():
                continue
            record = parse_json(line, f"{self.path}:{n}")
            if not isinstance(record, dict) or "task_id" not in record or not isinstance(record.get("actions"), list):
                raise ValueError(f"{self.path}:{n}: expected {{'task_id': ..., 'actions': [...]}}")
            self.actions[str(record["task_id"])] = record["actions"]
        self._queue: list = []

    def reset(self, observation: str, info: dict) -> None:
        task_id = str(info["task_id"])
        if task_id not in self.actions:
            raise MissingReplay(f"no replay actions for task {task_id!r} in {self.path}")
        self._queue = list(self.actions[task_id])

    def act(self, observation: str, info: dict) -> Any:
        return self._queue.pop(0) if self._queue else ""


class RandomAgent:
    """Calls random tools with random arguments drawn from the schemas, or replies with text."""

    def __init__(self, seed: int = 0, reply_probability: float = 0.3):
        self.rng = random.Random(seed)
        self.reply_probability = reply_probability

    def reset(self, observation: str, info: dict) -> None:
        pass

    def act(self, observation: str, info: dict) -> Any:
        tools = info.get("tools") or []
        if not tools or self.rng.random() < self.reply_probability:
            return self.rng.choice(["OK.", "Done!", "Could you tell me more?", ""])
        fn = self.rng.choice(tools)["function"]
        props = fn.get("parameters", {}).get("properties", {})
        required = set(fn.get("parameters", {}).get("required", []))
        args = {k: self._value(p) for k, p in props.items() if k in required or self.rng.random() < 0.3}
        return {"name": fn["name"], "arguments": args}

    def _value(self, prop: dict) -> Any:
        if "enum" in prop:
            return self.rng.choice(prop["enum"])
        kind = prop.get("type")
        if kind == "integer":
            return self.rng.randint(-5, 100)
        if kind == "number":
            return round(self.rng.uniform(-5, 100), 2)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "array":
            return [self._value(prop.get("items", {"type": "string"})) for _ in range(self.rng.randint(0, 2))]
        words = ["meeting", "2023-09-12 10:00:00", "08:30:00", "london", "justinkool", "a@b.com", "hello"]
        return self.rng.choice(words)
