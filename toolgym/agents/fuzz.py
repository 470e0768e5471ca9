"""An adversarial agent: the oracle's actions, mutated into what breaks parsers and databases.

Researchers push millions of model-written actions through these envs; a model can write
anything, so every env must turn any action into an observation quickly and leave its world
consistent. :class:`FuzzAgent` produces the hard cases on purpose: it starts from the oracle's
action (so that mutations reach deep into the tools, not only the parser) and replaces
arguments or pieces of text with integers beyond 64 bits, NaN and infinities, lone
surrogates, deep nesting, long strings, wrong types, unknown names and fragments of syntax.
It is seeded and deterministic.
"""

from __future__ import annotations

import json
import random
import re
import reprlib
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any

from toolgym.agents.base import play_oracle

# Values that a database, a JSON encoder or a naive size check cannot hold.
HOSTILE_VALUES: tuple = (
    10**30, -(2**70), 2**63, float("nan"), float("inf"), float("-inf"), "\ud800", "a\udfffb",
    "x" * 50_000, "", None, True, [], {}, -1, 0, 1e308, "NaN", "inf", "1e400", "💥" * 100,
    "'; DROP TABLE users; --", "{API_KEY}", "\x00", "../../etc/passwd",
)
DEEP = 3_000
_SHORT = reprlib.Repr()  # bounded repr of any action, however deep (Python 3.11 sets limits as attributes)
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 4, 120, 120


def deep_list(depth: int = DEEP) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def deep_dict(depth: int = DEEP) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


# Text mutations of string actions (programs, curl commands, plans, replies).
def _huge_numbers(text: str, rng: random.Random) -> str:
    return re.sub(r"\d+", lambda m: "9" * rng.choice((20, 40, 400)), text, count=rng.randint(1, 3))


def _surrogate_in_string(text: str, rng: random.Random) -> str:
    quote = text.find("'") if "'" in text else text.find('"')
    return text[:quote + 1] + "\ud800" + text[quote + 1:] if quote >= 0 else text + "\ud800"


def _long_string(text: str, rng: random.Random) -> str:
    cut = rng.randint(0, len(text))
    return text[:cut] + "A" * rng.choice((10_000, 200_000)) + text[cut:]


def _deep_parentheses(text: str, rng: random.Random) -> str:
    return "(" * DEEP + text + ")" * DEEP


def _deep_brackets(text: str, rng: random.Random) -> str:
    return "x = " + "[" * DEEP + "]" * DEEP + "\n" + text


def _exponential_list(text: str, rng: random.Random) -> str:
    return "x = [1]\n" + "x = [x] * 10\n" * rng.randint(5, 12) + text


def _repeated_multiplication(text: str, rng: random.Random) -> str:
    return "y = [0] * 10000\n" + "y = [y] * 10000\n" * 3 + "z = y == y\n" + text


def _truncate(text: str, rng: random.Random) -> str:
    return text[:rng.randint(0, len(text))]


def _nan_literal(text: str, rng: random.Random) -> str:
    return re.sub(r"\d+(\.\d+)?", lambda m: rng.choice(("float('nan')", "1e999", "-1e999", "NaN")), text, count=1)


def _catastrophic_regex(text: str, rng: random.Random) -> str:
    return "a(" + " " * rng.choice((3_000, 30_000)) + "x"


def _fence(text: str, rng: random.Random) -> str:
    return f"Action:\n```python\n{text}\n```\nTask: next"


def _noise(text: str, rng: random.Random) -> str:
    alphabet = "()[]{}'\",:;=\\\n\t .#*-+%$@!`~<>|&^?/\ud800\u202e\x00é日"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 400)))


TEXT_MUTATIONS = (_huge_numbers, _surrogate_in_string, _long_string, _deep_parentheses, _deep_brackets,
                  _exponential_list, _repeated_multiplication, _truncate, _nan_literal, _catastrophic_regex,
                  _fence, _noise)


class FuzzAgent:
    """Mutates the oracle's next action (``rate`` of the time; otherwise plays it as it is).

    Args:
        env: The env (its ``unwrapped.oracle_action()`` is the starting point).
        seed: Seed of the mutations.
        rate: Probability that an action is mutated.
    """

    def __init__(self, env, seed: int = 0, rate: float = 0.7):
        self.env = env.unwrapped
        self.rng = random.Random(seed)
        self.rate = rate

    def reset(self, observation: str, info: dict) -> None:
        pass

    def act(self, observation: str, info: dict) -> Any:
        action = self.env.oracle_action()
        if action is None or self.rng.random() >= self.rate:
            return action if action is not None else ""
        return self.mutate(action)

    def mutate(self, action: Any) -> Any:
        """One adversarial variant of ``action`` (a tool-call dict or a string)."""
        if isinstance(action, dict):
            return self._mutate_call(action)
        return self.rng.choice(TEXT_MUTATIONS)(str(action), self.rng)

    def _mutate_call(self, call: dict) -> Any:
        rng = self.rng
        arguments = dict(call.get("arguments") or {})
        choice = rng.randrange(8)
        if choice <= 2 and arguments:  # a hostile value in an existing argument
            arguments[rng.choice(sorted(arguments))] = rng.choice(HOSTILE_VALUES)
        elif choice == 3:
            key = rng.choice(sorted(arguments)) if arguments else "x"
            arguments[key] = rng.choice((deep_list, deep_dict))(rng.choice((50, DEEP)))
        elif choice == 4:
            arguments[rng.choice(("unknown", "session_token", "__class__", "\ud800"))] = rng.choice(HOSTILE_VALUES)
        elif choice == 5:
            return {"name": rng.choice(("NoSuchTool", "", "\ud800", "x" * 10_000, "__import__")), "arguments": arguments}
        elif choice == 6:  # as JSON text, NaN and infinities written as the bare words json allows
            if arguments:
                arguments[rng.choice(sorted(arguments))] = rng.choice((float("nan"), float("inf"), 10**30))
            return json.dumps({"name": call.get("name"), "arguments": arguments})
        else:
            return rng.choice(TEXT_MUTATIONS)(json.dumps(call, default=str), rng)
        return {"name": call.get("name"), "arguments": arguments}


def fuzz_run(env, actions: int, seed: int = 0, max_episode_steps: int = 40, slow_step_s: float = 1.0) -> dict:
    """Step ``env`` with ``actions`` fuzzed actions; never lets an exception escape.

    Returns the number of steps and episodes, the slowest step (seconds), the highest
    Python heap peak of any step (bytes, by :mod:`tracemalloc`), the exceptions that
    ``reset``/``step`` raised (``"<type>: <message>"`` with the action that caused it), and
    ``slow_steps``: each step slower than ``slow_step_s`` as a :class:`SlowStep` that
    :func:`retime` can replay alone. Step times include tracemalloc's overhead and whatever
    else the machine was doing; retiming separates a slow action from a busy machine.
    """
    agent = FuzzAgent(env, seed=seed)
    task_ids = env.unwrapped.task_ids()
    _warm_up(env, task_ids[0])  # loads what the env loads lazily (e.g. a text model), untimed
    stats: dict = {"steps": 0, "episodes": 0, "worst_step_s": 0.0, "worst_step_action": None,
                   "peak_bytes": 0, "exceptions": [], "slow_steps": []}
    tracemalloc.start()
    try:
        while stats["steps"] < actions:
            task_id = task_ids[stats["episodes"] % len(task_ids)]
            episode_seed = seed + stats["episodes"]
            obs, info = env.reset(seed=episode_seed, options={"task_id": task_id})
            stats["episodes"] += 1
            played: list = []
            for _ in range(max_episode_steps):
                action = agent.act(obs, info)
                tracemalloc.reset_peak()
                start = time.perf_counter()
                try:
                    obs, _, terminated, truncated, info = env.step(action)
                except Exception as exc:  # the contract under test: step never raises
                    stats["exceptions"].append(f"{type(exc).__name__}: {str(exc)[:200]} <- {_SHORT.repr(action)}")
                    break
                finally:
                    elapsed = time.perf_counter() - start
                    stats["steps"] += 1
                    stats["peak_bytes"] = max(stats["peak_bytes"], tracemalloc.get_traced_memory()[1])
                    if elapsed > stats["worst_step_s"]:
                        stats["worst_step_s"], stats["worst_step_action"] = elapsed, _SHORT.repr(action)
                    if elapsed > slow_step_s:
                        stats["slow_steps"].append(SlowStep(task_id, episode_seed, tuple(played), action, elapsed))
                played.append(action)
                if terminated or truncated:
                    break
    finally:
        tracemalloc.stop()
    return stats


@dataclass(frozen=True)
class SlowStep:
    """A step that took ``seconds``: the episode's task and seed, the actions before it, and its action."""

    task_id: str
    seed: int
    before: tuple
    action: Any
    seconds: float


def retime(env, slow: SlowStep) -> float:
    """Replay a slow step's episode and time its action alone (no tracemalloc): seconds."""
    env.reset(seed=slow.seed, options={"task_id": slow.task_id})
    for action in slow.before:
        env.step(action)
    start = time.perf_counter()
    env.step(slow.action)
    return time.perf_counter() - start


def step_costs(env, actions: list) -> tuple[float, int, str]:
    """Play ``actions`` in the current episode: the slowest step's seconds, the largest peak of
    traced memory of one step (bytes), and the last observation."""
    worst, peak, last = 0.0, 0, ""
    for action in actions:
        tracemalloc.start()
        start = time.perf_counter()
        last, *_ = env.step(action)
        worst = max(worst, time.perf_counter() - start)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return worst, peak, last


def _warm_up(env, task_id: str) -> None:
    comparator = getattr(env.unwrapped, "text_similarity", None)
    if comparator is not None:
        comparator.score("warm up", "warm up")  # an embedding model loads on first use
    play_oracle(env, task_id)
