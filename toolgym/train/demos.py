"""Demonstrations as a dataset: oracle episodes as OpenAI-style chat conversations.

Each line of the file is one episode the env's oracle solved: ``messages`` (the env's opening
messages, then per step the oracle's action as an assistant message: native calls as
``tool_calls`` with JSON-text ``arguments``, anything else as text, and what the env answered:
one ``tool`` message per call, or a ``user`` message after a text action) and ``tools`` (the
env's ``info["tools"]``, offered natively, as JSON text: the tools of different envs and tasks
have different schemas, which Arrow would merge into one with nulls; TRL reads the text back).
That is the conversational form
``datasets.load_dataset("json", data_files=...)`` reads and TRL's ``SFTTrainer`` trains on,
with the chat template rendering the tools and the calls. The grader's last word (BFCL's
"Correct.") is not part of the conversation. Episodes the oracle does not solve (return below 1)
are left out.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgym.envs.common.actions import ToolCall, parse_action
from toolgym.registry import make_env

#: Steps an oracle episode may take before it is given up (no env's oracle needs as many).
MAX_ORACLE_STEPS = 200


def _calls(action: Any) -> list[ToolCall] | None:
    """The native calls of an action (a call, or a list of them; ``[]``: no call), or None for text."""
    items = action if isinstance(action, list) else [action] if isinstance(action, dict) else None
    if items is None:
        return None
    calls = [parse_action(item) for item in items]
    if not all(isinstance(call, ToolCall) for call in calls):
        raise ValueError(f"an oracle action that is not a tool call: {json.dumps(action, default=str)[:200]}")
    return calls  # type: ignore[return-value]


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def oracle_conversation(env, task_id: str, seed: int = 0) -> dict | None:
    """The oracle's episode on ``task_id`` as ``{"messages", "tools"}``, or None when it fails."""
    base = env.unwrapped
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    messages = [dict(m) for m in info.get("messages") or [{"role": "user", "content": observation}]]
    tools = list(info.get("tools") or [])
    total = 0.0
    for step in range(MAX_ORACLE_STEPS):
        action = base.oracle_action()
        calls = _calls(action)
        observation, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        if calls:
            ids = [f"call_{step}_{i}" for i in range(len(calls))]
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": call.name,
                                                                 "arguments": _arguments_text(call.arguments)}}
                for call_id, call in zip(ids, calls)]})
        else:
            messages.append({"role": "assistant", "content": action if isinstance(action, str) else ""})
        if terminated or truncated:
            break
        if calls:
            messages += [{"role": "tool", "tool_call_id": call_id, "name": call.name, "content": result}
                         for call_id, call, result in zip(ids, calls, _results(info, observation, len(calls)))]
        else:
            messages.append({"role": "user", "content": observation})
    else:
        return None
    return {"messages": messages, "tools": json.dumps(tools, ensure_ascii=False)} if total >= 1.0 else None


def _results(info: dict, observation: str, count: int) -> list[str]:
    """Each call's result: the env's own ``tool`` messages when it wrote one per call, else the
    observation (one call)."""
    tail = (info.get("messages") or [])[-count:]
    if len(tail) == count and all(m.get("role") == "tool" for m in tail):
        return [str(m.get("content", "")) for m in tail]
    if count == 1:
        return [observation]
    raise ValueError(f"{count} calls in one step and no tool message per call in info['messages']")


def demonstrations(env_id: str, env_kwargs: dict | None = None, episodes: int | None = None,
                   seed: int = 0) -> Iterator[dict]:
    """Oracle conversations of up to ``episodes`` tasks (all when None), the tasks drawn in an
    order shuffled by ``seed``; failed oracle episodes are skipped."""
    env = make_env(env_id, env_kwargs or {})
    try:
        task_ids = list(env.unwrapped.task_ids())
        random.Random(seed).shuffle(task_ids)
        made = 0
        for task_id in task_ids:
            if episodes is not None and made >= episodes:
                break
            conversation = oracle_conversation(env, task_id, seed=seed)
            if conversation is not None:
                made += 1
                yield conversation
    finally:
        env.close()


def write_demonstrations(path: str | Path, env_id: str, env_kwargs: dict | None = None,
                         episodes: int | None = None, seed: int = 0) -> int:
    """Write the demonstrations as JSON lines to ``path``; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for conversation in demonstrations(env_id, env_kwargs, episodes, seed):
            out.write(json.dumps(conversation, ensure_ascii=False) + "\n")
            count += 1
    return count


def plain_chat_example(conversation: dict, chat_template: bool = True) -> dict:
    """A demonstration for a model whose chat template renders no tools (SmolLM2's) or that has
    no template (Gemma 3 270M's GGUF): TRL's prompt-completion form, written as the ``hf:``
    backend writes a request to such a model.

    The prompt is the conversation up to its last assistant message with the tool docs in the
    system message and earlier calls and results as plain turns (``tools_as_text`` and
    ``flatten_messages``, the backend's own rendering), so that training sees the text the model
    is later evaluated on: chat messages for the template, or without one the backend's
    ``role: content`` transcript ending in ``assistant:`` (TRL adds the tokenizer's ``<bos>``
    to it, as the backend does). The completion is that last message, its calls as one JSON list
    ``[{"name": ..., "arguments": {...}}, ...]`` (the form ``tool_choice="required"`` decodes and
    every toolgym parser reads; BFCL grades parallel calls only together). With a prompt and a
    completion, TRL's ``SFTTrainer`` puts the loss on the completion alone.
    """
    from toolgym.llm.chat import flatten_messages, plain_transcript, tools_as_text

    messages, tools = conversation["messages"], json.loads(conversation["tools"] or "[]")
    last = messages[-1]
    if last.get("tool_calls"):
        calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                 for c in last["tool_calls"]]
        answer = json.dumps(calls, ensure_ascii=False)
    else:
        answer = last.get("content") or ""
    prompt = tools_as_text(messages[:-1], tools) if tools else messages[:-1]
    if not chat_template:
        return {"prompt": plain_transcript(prompt), "completion": f" {answer}"}
    return {"prompt": flatten_messages(prompt), "completion": [{"role": "assistant", "content": answer}]}
