"""Chat messages for models without native tool support: the tool docs written into the
system message, and tool calls and results as plain turns; and a local model's prompt as text
and token ids. Used by the backends (a chat template without tools, a server without them, a
tokenizer without a template), the prompt formats, the token chains and the training data."""

from __future__ import annotations

import json

TOOL_INSTRUCTIONS = (
    "To call a tool, answer with only a JSON object "
    '{"name": "<tool name>", "arguments": {<argument>: <value>, ...}}. '
    "To answer the user, write plain text.")


def tool_docs(tools: list[dict]) -> str:
    """Tool schemas as text: one JSON function description per line."""
    return "\n".join(json.dumps(t.get("function", t), ensure_ascii=False) for t in tools)


def tools_as_text(messages: list[dict], tools: list[dict]) -> list[dict]:
    """The messages with the tool docs and call instructions appended to the system message."""
    block = f"# Tools\n{tool_docs(tools)}\n\n{TOOL_INSTRUCTIONS}"
    if messages and messages[0].get("role") == "system":
        return [{**messages[0], "content": f"{messages[0].get('content') or ''}\n\n{block}"}] + list(messages[1:])
    return [{"role": "system", "content": block}] + list(messages)


def flatten_messages(messages: list[dict]) -> list[dict]:
    """Plain system/user/assistant turns: tool calls become JSON text, tool results user turns."""
    out: list[dict] = []
    for m in messages:
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            calls = [_call_json(c) for c in m["tool_calls"]]
            text = "\n".join(calls) if not m.get("content") else m["content"] + "\n" + "\n".join(calls)
            out.append({"role": "assistant", "content": text})
        elif role == "tool":
            out.append({"role": "user", "content": f"Tool result ({m.get('name', 'tool')}): {m.get('content')}"})
        else:
            out.append({"role": role if role in ("system", "user", "assistant") else "user",
                        "content": m.get("content") or ""})
    return out


def _call_json(call: dict) -> str:
    fn = call.get("function", call)
    arguments = fn.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            pass
    return json.dumps({"name": fn.get("name"), "arguments": arguments}, ensure_ascii=False)


def plain_transcript(messages: list[dict], generation_prompt: bool = True) -> str:
    """A conversation as ``role: content`` turns, for a tokenizer without a chat template."""
    lines = [f"{m['role']}: {m['content']}" for m in flatten_messages(messages)]
    return "\n\n".join(lines + (["assistant:"] if generation_prompt else []))


def render_prompt(tokenizer, messages: list[dict], tools: list[dict] | None, generation_prompt: bool = True) -> str:
    """A conversation as a local model's prompt text: its chat template with ``tools=`` when the
    template uses tools, else with the tool docs in the system message; plain turns for templates
    that reject tool roles; :func:`plain_transcript` for a tokenizer without a template."""
    template = tokenizer.chat_template or ""
    if tools and "tools" not in template:
        messages, tools = tools_as_text(messages, tools), None
    if not template:
        return plain_transcript(messages, generation_prompt)
    try:
        return tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=generation_prompt,
                                             tokenize=False)
    except Exception:  # templates that reject tool roles or tool_calls: plain turns
        return tokenizer.apply_chat_template(flatten_messages(messages), tools=tools,
                                             add_generation_prompt=generation_prompt, tokenize=False)


def encode_prompt(tokenizer, text: str) -> list[int]:
    """The token ids of a whole prompt from :func:`render_prompt`. A chat template writes its own
    special tokens, so none are added; a plain transcript gets the tokenizer's own (Gemma's
    ``<bos>``: Gemma 3 270M, whose GGUF has no template, had been prompted without it)."""
    return tokenizer(text, add_special_tokens=not tokenizer.chat_template)["input_ids"]
