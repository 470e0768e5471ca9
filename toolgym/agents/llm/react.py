"""ReAct (Yao et al. 2023) over any backend: Thought / Action / Action Input / Observation.

The tools are described in the system prompt and the model writes text, so this works with
models and servers that have no native tool calling. Each tool call of the conversation is an
assistant turn ``Thought / Action / Action Input`` (generation stops before the model writes
an observation itself) followed by a user turn ``Observation: <result>``; a reply to the
user is ``Final Answer: ...``. The model's own thoughts are kept and shown again with the
calls they led to; calls the model did not make (a ground-truth history) have none.
"""

from __future__ import annotations

import json
from typing import Any

from toolgym.agents.llm.parsers import react_fields
from toolgym.agents.llm.prompts import EpisodeState, PromptFormat

REACT_INSTRUCTIONS = """Answer the user as well as you can. You have access to the following tools:

{tools}

Use the following format:

Thought: think about what to do next
Action: the tool to call, one of [{names}]
Action Input: the arguments of the call as a JSON object
Observation: the result of the call (given to you; never write it yourself)
... (Thought / Action / Action Input / Observation can repeat)
Thought: I know what to tell the user
Final Answer: the reply to the user"""


def _call_key(name: Any, arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            pass
    return json.dumps([name, arguments], sort_keys=True, default=str)


class ReActFormat(PromptFormat):
    name = "react"
    parser = "react"
    stop = ("\nObservation:",)

    def build(self, state: EpisodeState, info: dict):
        tools = info.get("tools") or []
        docs = "\n".join(f"{t['function']['name']}: {t['function'].get('description', '')} "
                         f"Arguments: {json.dumps(t['function'].get('parameters', {}), ensure_ascii=False)}"
                         for t in tools) or "(none)"
        names = ", ".join(t["function"]["name"] for t in tools)
        system = REACT_INSTRUCTIONS.format(tools=docs, names=names)
        history = list(info.get("messages") or [])
        if history and history[0].get("role") == "system":
            system = f"{history[0].get('content') or ''}\n\n{system}"
            history = history[1:]
        thoughts = {k: list(v) for k, v in state.notes.get("thoughts", {}).items()}
        messages = [{"role": "system", "content": system}]
        for m in history:
            if m.get("role") == "assistant" and m.get("tool_calls"):
                for call in m["tool_calls"]:
                    fn = call.get("function", {})
                    key = _call_key(fn.get("name"), fn.get("arguments"))
                    thought = thoughts[key].pop(0) if thoughts.get(key) else None
                    lines = ([f"Thought: {thought}"] if thought else []) + [
                        f"Action: {fn.get('name')}", f"Action Input: {fn.get('arguments') or '{}'}"]
                    messages.append({"role": "assistant", "content": "\n".join(lines)})
            elif m.get("role") == "tool":
                messages.append({"role": "user", "content": f"Observation: {m.get('content')}"})
            elif m.get("role") == "assistant":
                messages.append({"role": "assistant", "content": f"Final Answer: {m.get('content') or ''}"})
            else:
                messages.append({"role": "user", "content": m.get("content") or ""})
        return messages, None

    def after_completion(self, state: EpisodeState, text: str, action: Any) -> None:
        thought = next((v for k, v in react_fields(text) if k == "Thought"), None)
        if thought and isinstance(action, dict):
            key = _call_key(action.get("name"), action.get("arguments"))
            state.notes.setdefault("thoughts", {}).setdefault(key, []).append(thought)
