"""τ-bench (v1)'s wire protocol: what its ``run.py`` sends through litellm with
``--agent-strategy tool-calling --user-strategy llm``, for its agent and its user.

The ``tau-bench`` prompt format (:mod:`toolgym.agents.llm.prompts`) and the LLM user's
``tau-bench`` protocol (:mod:`toolgym.envs.users`) build their requests from here; both are
the defaults on official tasks. Facts taken from τ-bench (``agents/tool_calling_agent.py``,
``envs/user.py``), checked against its own ``run.py`` behind a recording server (litellm
1.82.6):

- Agent: the domain's wiki as the system message, then the user's first message (v1's agent
  does not see the greeting), then each turn: the model's message as litellm dumps it, keeping
  only its first tool call as the server sent it (id and arguments text unchanged), followed by
  a ``tool`` message with ``tool_call_id``, ``name`` and ``content``, or by the user's reply as a
  ``user`` message. Tools are the domain's ``get_info()`` in v1's order (the env's
  ``info["tools"]``: the same tools), sent as v1's own ``get_info()`` writes them (:func:`tools`:
  ``assets/taubench/v1_tools.json``, written by ``benchmarks/taubench_v1_tools.py`` from τ-bench
  59a200c; toolgym's airline schemas, derived from τ²'s item models, word three tools' array items
  and enums otherwise), ``temperature`` 0.0; no ``tool_choice``, seed or token limit. At most 30
  agent steps (:data:`MAX_STEPS`).
- User (``LLMUserSimulationEnv``): v1's system prompt around the task's instruction
  (:func:`user_system_prompt`), then ``"Hi! How can I help you today?"`` as a ``user`` turn;
  the simulated user's replies are ``assistant`` turns and the agent's messages ``user`` turns.
  No tools, no sampling settings at all (the server's default temperature).

Differences v1 makes by accident and toolgym reproduces:

- The model's messages go back with litellm's ``provider_specific_fields``
  (``{"refusal": null}``), and without their null keys (no ``content`` beside a tool call).
- The system prompt's "satisified".

- v1's ``LLMUserSimulationEnv`` asks for an opening (system prompt without an instruction, then
  the greeting) whenever it is built and discards the answer: ``run.py`` builds one env before its
  tasks and one per episode. The ``tau-bench`` user sends the same discarded request twice before
  its first episode's opening and once before each later one, so a run of one env (the sequential
  runner, ``--batch-size 1``) sends v1's request sequence; a batched run sends the run's one per
  env in the batch.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

MAX_STEPS = 30
TEMPERATURE = 0.0
FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"
#: What litellm 1.82 adds to each model message it dumps (``Message.model_dump()``).
PROVIDER_FIELDS = {"refusal": None}

USER_RULES = "\n".join([
    "Rules:",
    "- Just generate one line at a time to simulate the user's message.",
    "- Do not give away all the instruction at once. Only provide the information that is necessary for the current"
    " step.",
    "- Do not hallucinate information that is not provided in the instruction. For example, if the agent asks for the"
    " order id but it is not mentioned in the instruction, do not make up an order id, just say you do not remember"
    " or have it.",
    "- If the instruction goal is satisified, generate '###STOP###' as a standalone message without anything else to"
    " end the conversation.",
    "- Do not repeat the exact instruction in the conversation. Instead, use your own words to convey the same"
    " information.",
    "- Try to make the conversation as natural as possible, and stick to the personalities in the instruction."])


def tools(domain: str) -> list[dict]:
    """The domain's tools as v1's agent sends them (each tool's ``get_info()``, in v1's order)."""
    return json.loads(_v1_tools())[domain]


@functools.cache
def _v1_tools() -> str:
    return (Path(__file__).resolve().parents[2] / "assets" / "taubench" / "v1_tools.json").read_text(encoding="utf-8")


def user_system_prompt(instruction: str | None) -> str:
    """v1's ``LLMUserSimulationEnv.build_system_prompt``."""
    shown = f"\n\nInstruction: {instruction}\n" if instruction is not None else ""
    return f"You are a user interacting with an agent.{shown}\n{USER_RULES}"


def model_message(content: str | None, tool_calls: Sequence[Mapping] | None = None) -> dict:
    """A model's message as v1 sends it back: litellm's dump without its null keys."""
    message: dict = {"role": "assistant"}
    if content is not None:
        message["content"] = content
    if tool_calls:
        message["tool_calls"] = [dict(call) for call in tool_calls]
    message["provider_specific_fields"] = dict(PROVIDER_FIELDS)
    return message


def agent_messages(conversation: Sequence[Mapping]) -> list[dict]:
    """The agent's request messages from the env's conversation (OpenAI's shape: system, the
    greeting, the user's opening, then the episode)."""
    out = []
    for i, message in enumerate(conversation):
        role = message.get("role")
        if role == "assistant" and i == 1 and message.get("content") == FIRST_AGENT_MESSAGE:
            continue  # v1's agent starts from the user's first message
        if role == "assistant":
            out.append(model_message(message.get("content"), (message.get("tool_calls") or [])[:1]))
        elif role == "tool":
            out.append({"role": "tool", "tool_call_id": message.get("tool_call_id"), "name": message.get("name"),
                        "content": message.get("content")})
        else:
            out.append({"role": role, "content": message.get("content")})
    return out


def user_messages(system: str, conversation: Sequence[Mapping]) -> list[dict]:
    """The user simulator's request: its system prompt, the greeting, then the conversation's
    words with roles flipped (the agent's tool calls and their results are not shown)."""
    out = [{"role": "system", "content": system}, {"role": "user", "content": FIRST_AGENT_MESSAGE}]
    opened = False
    for message in conversation:
        role = message.get("role")
        if role == "user":
            out.append(model_message(message.get("content")))
            opened = True
        elif role == "assistant" and opened and not message.get("tool_calls"):
            out.append({"role": "user", "content": message.get("content")})
    return out
