"""The tool-call parsers on what models really emit, well-formed and malformed."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgym.agents.llm.parsers import PARSERS, parse_curl, parse_plan, parse_program, parse_react, parse_tool_call
from toolgym.envs.common.actions import TextReply, ToolCall, Unparseable, extract_curl, extract_program, parse_action

TOOLS = ["AddAlarm", "SendEmail", "QueryCalendar"]
ALARM = {"name": "AddAlarm", "arguments": {"time": "08:30:00"}}


@pytest.mark.parametrize("text", [
    '{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}',                          # bare JSON
    '```json\n{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}\n```',           # fenced
    'Sure, let me do that.\n```\n{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}\n```',
    '<tool_call>\n{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}\n</tool_call>',  # Hermes / Qwen
    '<tool_call>{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}',              # truncated closing tag
    '<|python_tag|>{"name": "AddAlarm", "parameters": {"time": "08:30:00"}}<|eom_id|>',  # Llama 3.1
    '{"name": "AddAlarm", "parameters": {"time": "08:30:00"}}<|eot_id|>',              # Llama 3 JSON
    '[TOOL_CALLS] [{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}]</s>',      # Mistral v3
    '[TOOL_CALLS]AddAlarm[ARGS]{"time": "08:30:00"}',                                   # Mistral v11
    'AddAlarm(time="08:30:00")',                                                        # Python call
    '```python\nAddAlarm(time="08:30:00")\n```',
    'I will set it now: {"name": "AddAlarm", "arguments": {"time": "08:30:00"}}',       # call inside prose
    '{"type": "function", "function": {"name": "AddAlarm", "arguments": "{\\"time\\": \\"08:30:00\\"}"}}',
    'Thought: set the alarm\nAction: AddAlarm\nAction Input: {"time": "08:30:00"}',     # ReAct
])
def test_tool_call_formats(text):
    assert parse_tool_call(text, (), TOOLS) == [ALARM]


def test_native_openai_tool_calls_and_several_calls():
    native = [{"id": "c1", "type": "function", "function": {"name": "AddAlarm", "arguments": '{"time": "08:30:00"}'}},
              {"id": "c2", "type": "function", "function": {"name": "QueryCalendar", "arguments": "{}"}}]
    assert parse_tool_call("", native, TOOLS) == [ALARM, {"name": "QueryCalendar", "arguments": {}}]
    two = ('<tool_call>{"name": "AddAlarm", "arguments": {"time": "08:30:00"}}</tool_call>\n'
           '<tool_call>{"name": "QueryCalendar", "arguments": {}}</tool_call>')
    assert parse_tool_call(two, (), TOOLS) == [ALARM, {"name": "QueryCalendar", "arguments": {}}]
    llama = '<|python_tag|>{"name": "AddAlarm", "parameters": {"time": "08:30:00"}}; {"name": "QueryCalendar", "parameters": {}}'
    assert parse_tool_call(llama, (), TOOLS) == [ALARM, {"name": "QueryCalendar", "arguments": {}}]


def _rejected_call(action) -> bool:
    """The env takes the action as a call it cannot run (not as the assistant's reply)."""
    parsed = parse_action(action, {})
    return isinstance(parsed, Unparseable) or (isinstance(parsed, ToolCall) and isinstance(parsed.arguments, str))


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "AddAlarm", "arguments": {"time": "08:30:00"</tool_call>',
    '{"name": "AddAlarm", "arguments": {"time": }}',
    '```json\n{"name": "AddAlarm", "arguments": {"time": "8:30"\n```',
    '[TOOL_CALLS] [{"name": "AddAlarm", "arguments": {"time": "08:30:00"}',
    '[TOOL_CALLS]AddAlarm[ARGS]{"time": 08:30}',
    'AddAlarm(time=open("x"))',
])
def test_malformed_calls_reach_the_env_as_rejected_calls(text):
    actions = parse_tool_call(text, (), TOOLS)
    assert len(actions) == 1 and _rejected_call(actions[0])


def test_native_call_with_broken_arguments_is_rejected_by_the_env():
    native = [{"id": "c", "type": "function", "function": {"name": "AddAlarm", "arguments": '{"time": '}}]
    [action] = parse_tool_call("", native, TOOLS)
    assert action == {"name": "AddAlarm", "arguments": '{"time": '} and _rejected_call(action)


@pytest.mark.parametrize("text", [
    "I have set an alarm for 8:30 tomorrow.",
    'Your contact is {"name": "Bob"} as far as I know.',  # JSON without arguments: not a call
    "Done (the alarm rings at 8:30).",
    "",
])
def test_replies_stay_text(text):
    [action] = parse_tool_call(text, (), TOOLS)
    assert action == text.strip() and isinstance(parse_action(action, {}), TextReply)


def test_react_parser():
    assert parse_react("Thought: the user wants an alarm\nAction: AddAlarm\nAction Input: {\"time\": \"08:30:00\"}") == [ALARM]
    assert parse_react("Thought: done\nFinal Answer: The alarm is set.") == ["The alarm is set."]
    assert parse_react("Action: QueryCalendar") == [{"name": "QueryCalendar", "arguments": {}}]
    assert parse_react("Action: AddAlarm\nAction Input: ```json\n{\"time\": \"08:30:00\"}\n```") == [ALARM]
    # malformed input: the raw string goes to the env, which reports it as malformed JSON
    [bad] = parse_react("Action: AddAlarm\nAction Input: {time: 8:30")
    assert bad == {"name": "AddAlarm", "arguments": "{time: 8:30"} and _rejected_call(bad)
    [no_name] = parse_react("Action:\nAction Input: {}")
    assert _rejected_call(no_name)
    assert parse_react("I am not sure what to do.") == ["I am not sure what to do."]


@pytest.mark.parametrize("text", [
    "curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}'",
    "Action:\ncurl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}'\n\nTask: next",
    "```bash\n$ curl -X GET \\\n  'https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}'\n```",
    "Here is the command:\ncurl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}'",
])
def test_curl_parser(text):
    [line] = parse_curl(text)
    assert line.startswith("curl -X GET") and line.endswith("appid={API_KEY}'") and "\n" not in line


def test_curl_parser_passes_non_commands_on():
    assert parse_curl("I cannot do that.") == ["I cannot do that."]


def test_program_and_plan_parsers():
    program = 'API.set_location("Palo Alto")\nAPI.set_buy_or_rent("buy")\nAPI.search()'
    assert parse_program(program + "\n-------------\nTask: another") == [program]
    assert parse_program("Action:\n" + program + "\nTask: x") == [program]
    assert parse_program("Sure:\n```python\n" + program + "\n```\nThis searches.") == [program]
    plan = "Restaurants: r1 = findrestaurants(city='San Jose', cuisine='Italian')"
    assert parse_plan("Plan: " + plan) == [plan]
    assert parse_plan("```\n" + plan + "\n```") == [plan]


PIECES = list('{}[]":,<>/_ ()=\n`x1') + ["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "Action:",
                                        "Action Input:", "Final Answer:", "```json\n", "<|python_tag|>",
                                        '"name"', '"arguments"', "AddAlarm", "curl ", "Task:"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_parsers_never_raise_and_always_act(text):
    for parser in PARSERS.values():
        actions = parser(text, (), TOOLS)
        assert actions and all(isinstance(a, (str, dict)) for a in actions)
        for action in actions:
            assert isinstance(parse_action(action, {}), (ToolCall, TextReply, Unparseable))
            json.dumps(action)


def test_completion_style_outputs_that_run_on():
    curl = "curl -X GET 'https://api.thecatapi.com/v1/favourites'"
    assert parse_curl(f"{curl}\n\nTask: list my favourites\nAction:\n{curl}") == [curl]
    assert parse_curl(f"Task: list my favourites\nAction:\n{curl}\n") == [curl]
    assert parse_program("Action:\n\n-------------\n") == [""]


@pytest.mark.parametrize("text", [
    "{" * 200_000,          # took 16 s: every failed decoding located itself from the start
    "x{" * 100_000,
    "[[[[[[[[[[" * 20_000,  # each start used to recurse a thousand levels deep
    "[1, " * 200_000,
    "\n" * 200_000 + "Action: x",
    "<tool_call>x" + " " * 99_000 + "y",  # 20,000 blanks took 2.8 s: "\s*" before the closing tag
    "x" + "\n" * 99_000 + "y",           # 20,000 took 2.4 s: "^\s*" from every line start
    "Thought: a" + " \n" * 49_500 + "y",
])
def test_parsers_are_linear_on_pathological_completions(text):
    start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
    for parser in PARSERS.values():
        assert parser(text, (), TOOLS)
    assert time.process_time() - start < 1.0


def test_parsers_share_the_envs_extraction():
    curl = "curl -X GET 'https://api.thecatapi.com/v1/favourites'"
    completion = f"Action:\n```bash\n{curl}\n```\n\nTask: next\nAction:\ncurl -X GET 'x'"
    assert parse_curl(completion) == [extract_curl(completion)] == [curl]
    assert parse_program(completion) == [extract_program(completion)] == [curl]
    native = [{"id": "c1", "type": "function", "function": {"name": "list_favourites", "arguments": "{}"}}]
    assert parse_curl("", native) == [{"name": "list_favourites", "arguments": {}}]
