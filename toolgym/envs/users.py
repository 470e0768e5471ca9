"""Simulated users for conversational envs: scripted, LLM-played, or your own class.

A user holds the task's goal and answers the agent's messages. Every user has

- ``reset(scenario, rng_seed) -> str``: start a conversation and return the user's first message;
- ``respond(message, trajectory) -> str``: answer the agent's message. ``trajectory`` is the
  episode so far as role/content dicts (assistant tool calls included), which a scripted user
  may read; an LLM user sees only the text of the conversation.

A reply that contains one of :data:`STOP_SIGNALS` ends the conversation, as in τ²-bench.
:func:`make_user` builds a user from a spec: ``"scripted"``, ``"llm:<backend>"`` (``hf:MODEL``
or ``openai:URL#MODEL``, the LLM agent's backends) or ``"module.path:Class"``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from toolgym.envs.common.actions import braced_span

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
STOP_SIGNALS = (STOP, TRANSFER, OUT_OF_SCOPE)
FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"

# τ²-bench's user-simulation guidelines, in toolgym's words: same role, same end signals.
USER_GUIDELINES = f"""# User simulation
You play a customer who contacts a customer-service agent. Write one message at a time, as the
customer would, and follow the scenario below.

- Use only the information the scenario gives you; anything it does not give you is unknown to you.
- Do not recite the instructions; say things in your own words.
- Give information only when the agent asks for it.
- When the goal of the scenario is reached, reply with '{STOP}' to end the conversation.
- If you are transferred to another agent, reply with '{TRANSFER}'.
- If the scenario does not tell you enough to go on, reply with '{OUT_OF_SCOPE}'."""


class User(Protocol):
    def reset(self, scenario: Mapping, seed: int | None = None) -> str: ...

    def respond(self, message: str, trajectory: list[dict]) -> str | dict: ...


def is_stop(text: str) -> bool:
    return any(signal in text for signal in STOP_SIGNALS)


def scenario_text(scenario: Mapping) -> str:
    """The scenario as the user reads it: persona, then the instructions' fields (τ²-bench's order)."""
    parts = []
    if scenario.get("persona"):
        parts.append(f"Persona:\n{scenario['persona']}")
    instructions = scenario.get("instructions")
    if isinstance(instructions, Mapping):
        for key, title in (("domain", "Domain"), ("reason_for_call", "Reason for call"),
                           ("known_info", "Known info"), ("unknown_info", "Unknown info"),
                           ("task_instructions", "Task instructions")):
            if instructions.get(key):
                parts.append(f"{title}:\n{instructions[key]}")
    elif instructions:
        parts.append(f"Instructions:\n{instructions}")
    return "\n\n".join(parts)


class ScriptedUser:
    """A deterministic user built from the task, for tests and cheap training.

    It opens with the reason for calling, answers a question with what it knows, agrees to
    what the agent proposes, and says ``###STOP###`` once the goal is reached: every
    ground-truth action of the task has been called with its arguments and every fact the
    agent must tell has been said. A transfer to a human ends the call with ``###TRANSFER###``.
    With tools of its own (telecom's phone) it runs a call the agent spells out as JSON
    (``{"name": "toggle_roaming", "arguments": {}}``), names (a tool without required
    arguments) or asks for in words ("please turn off airplane mode", "restart your phone":
    :func:`match_instruction`), then reports the result.

    Args:
        goal_reached: ``goal_reached(trajectory) -> bool``; the env passes the task's check.
        tools: The user's own tools (OpenAI schemas), if any.
    """

    def __init__(self, goal_reached: Callable[[list[dict]], bool] | None = None, tools: list[dict] | None = None):
        self.goal_reached = goal_reached
        self.tools = {t["function"]["name"]: t["function"] for t in tools or ()}
        self._known = self._reason = ""
        self._acted = False

    def reset(self, scenario: Mapping, seed: int | None = None) -> str:
        instructions = scenario.get("instructions")
        if isinstance(instructions, Mapping):
            self._reason = str(instructions.get("reason_for_call") or instructions.get("task_instructions") or "")
            self._known = str(instructions.get("known_info") or "")
        else:
            self._reason, self._known = str(instructions or ""), ""
        return self._reason or "I need help."

    def respond(self, message: str, trajectory: list[dict]) -> str | dict:
        if self._acted:  # ``message`` is the result of the call it just made
            self._acted = False
            if self.goal_reached is not None and self.goal_reached(trajectory):
                return STOP
            return f"I did that. The phone says: {message}"
        call = self._instructed_call(message)
        if call is not None:
            self._acted = True
            return call
        if any(call["function"]["name"] == "transfer_to_human_agents"
               for m in trajectory if m["role"] == "assistant" for call in m.get("tool_calls") or ()):
            return TRANSFER
        if self.goal_reached is not None and self.goal_reached(trajectory):
            return STOP
        if "?" in message:
            if re.search(r"\b(confirm|proceed|yes/no|shall i|should i|would you like)\b", message, re.I):
                return "Yes, please go ahead."
            return self._known or self._reason
        return "Yes, please go ahead."

    def _instructed_call(self, message: str) -> dict | None:
        if not self.tools:
            return None
        span = braced_span(message)
        try:
            value = json.loads(span) if span is not None else None
        except (ValueError, RecursionError):  # RecursionError: nested too deep to decode
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"] in self.tools:
            return {"name": value["name"], "arguments": value.get("arguments") or {}}
        words = set(re.findall(r"\w+", message))  # a tool's name (an identifier) is one of them: one scan for all
        for name, function in self.tools.items():
            if name in words and not function["parameters"].get("required"):
                return {"name": name, "arguments": {}}
        name = match_instruction(message, [n for n, f in self.tools.items() if not f["parameters"].get("required")])
        return {"name": name, "arguments": {}} if name is not None else None


#: Phrases of a free-form instruction rewritten to the words of the user's tool names, in this order.
INSTRUCTION_WORDS = (
    (r"\bwi-?\s?fi\b", "wifi"), (r"\b(mobile|cellular) data\b", "data"), (r"\bflight mode\b", "airplane mode"),
    (r"\b(turn|switch)(ing)?\b|\b(en|dis)abl(e|ing)\b", "toggle"), (r"\b(restart|power[- ]cycle)\b", "reboot"),
    (r"\b(phone|handset)\b", "device"), (r"\b(re-?insert|re-?seat|take out)\b", "reseat"),
    (r"\b(verify|look at|inspect)\b", "check"), (r"\bpay\b", "make payment"), (r"\bperform\b", "run"),
)
#: Words of tool names an instruction may leave out ("reseat your SIM" names reseat_sim_card).
OPTIONAL_NAME_WORDS = frozenset({"mode", "card", "status", "settings", "device", "preference", "test"})


def match_instruction(message: str, names: Sequence[str]) -> str | None:
    """The tool a free-form instruction asks for ("please turn off airplane mode" ->
    ``toggle_airplane_mode``), or None.

    Each clause of the message, in order, is rewritten to the tools' vocabulary
    (``INSTRUCTION_WORDS``); a tool matches a clause when the clause has its verb (the first
    word of its name) and every other word of its name but those in ``OPTIONAL_NAME_WORDS``.
    The first clause with a match wins; among its matches the tool with the most words in the
    clause, then the fewest left out, then the first name in alphabetical order.
    """
    for clause in re.split(r"[.;!?\n]|,|\band then\b|\bthen\b", message.lower()):
        for pattern, words in INSTRUCTION_WORDS:
            clause = re.sub(pattern, words, clause)
        said = set(re.findall(r"[a-z0-9]+", clause))
        ranked = []
        for name in names:
            verb, *rest = name.split("_")
            if verb in said and all(w in said or w in OPTIONAL_NAME_WORDS for w in rest):
                matched = 1 + sum(w in said for w in rest)
                ranked.append((-matched, len(rest) + 1 - matched, name))
        if ranked:
            return min(ranked)[2]
    return None


class LLMUser:
    """A user played by a language model with τ²-bench's guidelines and stop signals.

    Args:
        backend: Any backend of the LLM agent (``generate(requests, sampling)``).
        sampling: Its decoding settings; ``reset(seed=...)`` gives each episode its own seed.
        max_turns: Replies after which the user stops on its own (a guard against loops).
    """

    def __init__(self, backend, sampling=None, max_turns: int = 30, tools: list[dict] | None = None):
        from toolgym.agents.llm.backends import SamplingParams  # the backends live with the LLM agent
        self.backend = backend
        self.tools = tools or None
        self.sampling = sampling or SamplingParams(temperature=0.0, max_new_tokens=200)
        self.max_turns = max_turns
        self._messages: list[dict] = []

    def reset(self, scenario: Mapping, seed: int | None = None) -> str:
        import dataclasses
        if seed is not None:
            self.sampling = dataclasses.replace(self.sampling, seed=seed)
        # Roles are flipped: the model plays the user, so the agent's messages are its "user" turns.
        self._messages = [{"role": "system", "content": f"{USER_GUIDELINES}\n\n<scenario>\n{scenario_text(scenario)}"
                                                        f"\n</scenario>"}]
        return self.respond(FIRST_AGENT_MESSAGE, [])

    def respond(self, message: str, trajectory: list[dict]) -> str | dict:
        """The model's next message, or the call of one of the user's tools it makes (dual control)."""
        from toolgym.agents.llm.backends import ChatRequest
        from toolgym.envs.common.actions import ToolCall, parse_action
        acted = self._messages[-1]["role"] == "assistant" and self._messages[-1]["content"].startswith('{"name"')
        self._messages.append({"role": "user", "content": f"Tool result: {message}" if acted else message})
        if len(self._messages) // 2 > self.max_turns:
            return STOP
        completion = self.backend.generate([ChatRequest(messages=list(self._messages), tools=self.tools)],
                                           self.sampling)[0]
        text = (completion.text or "").strip() if completion.error is None else OUT_OF_SCOPE
        names = {t["function"]["name"] for t in self.tools or ()}
        calls = [parse_action(c) for c in completion.tool_calls] or [parse_action(text)]
        if isinstance(calls[0], ToolCall) and calls[0].name in names:
            self._messages.append({"role": "assistant", "content": json.dumps(
                {"name": calls[0].name, "arguments": calls[0].arguments}, default=str)})
            return {"name": calls[0].name, "arguments": calls[0].arguments}
        text = text or "..."
        self._messages.append({"role": "assistant", "content": text})
        return text


def make_user(spec: Any, goal_reached: Callable[[list[dict]], bool] | None = None, tools: list[dict] | None = None,
              **options) -> Any:
    """A user from a spec (see the module docstring), or ``spec`` itself when it is a user object.

    Args:
        spec: ``"scripted"``, ``"llm:hf:MODEL"``, ``"llm:openai:URL#MODEL"``, ``"module:Class"`` or a user.
        goal_reached: The task's goal check, for the scripted user.
        tools: The user's own tools (OpenAI schemas) in a dual-control env, for the built-in users.
        options: For LLM users: ``temperature``, ``top_p``, ``max_new_tokens``, ``seed``, ``backend_kwargs``.

    Raises:
        ValueError: The spec names no known kind of user, or its class lacks reset/respond.
    """
    if not isinstance(spec, str):
        if not (callable(getattr(spec, "reset", None)) and callable(getattr(spec, "respond", None))):
            raise ValueError(f"user {spec!r}: a user object needs reset(scenario, seed) and respond(message, "
                             f"trajectory) methods")
        if tools and getattr(spec, "tools", False) is None:  # a built-in user made without the env's tools
            spec.tools = tools
        return spec
    if spec == "scripted":
        return ScriptedUser(goal_reached, tools)
    if spec.startswith("llm:"):
        kind, _, arg = spec[len("llm:"):].partition(":")
        from toolgym.agents.llm import SAMPLING_KEYS, SamplingParams, make_backend
        sampling = SamplingParams(**{"max_new_tokens": 200,
                                     **{k: options[k] for k in SAMPLING_KEYS if options.get(k) is not None}})
        return LLMUser(make_backend(kind, arg, **dict(options.get("backend_kwargs") or {})), sampling, tools=tools)
    if ":" in spec:
        from toolgym.agents import load_agent_class
        cls = load_agent_class(spec)
        return make_user(cls(), goal_reached)
    raise ValueError(f"unknown user {spec!r}: use 'scripted', 'llm:hf:MODEL', 'llm:openai:URL#MODEL' or "
                     f"module.path:Class")
