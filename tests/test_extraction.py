"""Extracting the action from a model's raw completion (toolgym.envs.common.actions.extract_*)."""

from __future__ import annotations

import time

import pytest

from toolgym.envs.common.actions import extract_curl, extract_plan, extract_program, fenced_blocks

PROGRAM = 'API.set_location("Palo Alto")\nAPI.set_buy_or_rent("buy")\nAPI.search()'
CURL = "curl -X GET 'https://api.openweathermap.org/data/2.5/weather?q=reno&appid={API_KEY}'"


@pytest.mark.parametrize("completion", [
    PROGRAM,
    f"Action:\n{PROGRAM}",
    f"Action: {PROGRAM}",
    f"{PROGRAM}\n\nTask: find a condo in Reno\nAction:\nAPI.set_location('Reno')",
    f"{PROGRAM}\n-------------\nI have the following set of examples:",
    f"Task: find a house in Palo Alto\nAction:\n{PROGRAM}\n",      # repeats the task line first
    f"Sure, here it is:\n```python\n{PROGRAM}\n```\nThis searches.",
    f"```\n{PROGRAM}",                                                 # unclosed fence
    f"Thought: I set the criteria.\nAction:\n```python\n{PROGRAM}\n```",
])
def test_extract_program(completion):
    assert extract_program(completion) == PROGRAM


def test_extract_program_keeps_what_only_looks_like_a_cue():
    assert extract_program("x = 'Task: y'\nAPI.search()") == "x = 'Task: y'\nAPI.search()"
    assert extract_program("Action:\n\n-------------\n") == ""
    assert extract_program("") == ""


@pytest.mark.parametrize("completion", [
    CURL,
    f"Action: {CURL}",
    f"Action:\n{CURL}\n\nTask: the weather in Paris\nAction:\ncurl -X GET 'https://elsewhere'",
    f"Here is the command:\n{CURL}\nIt asks for the current weather.",
    f"```bash\n$ {CURL}\n```",
    "```bash\ncurl -X GET \\\n'https://api.openweathermap.org/data/2.5/weather?q=reno&appid={API_KEY}'\n```",
])
def test_extract_curl_keeps_the_first_curl_line(completion):
    assert extract_curl(completion).replace("GET  ", "GET ") == CURL


def test_extract_curl_without_a_curl_line_is_the_action():
    assert extract_curl("Action: I cannot do that.") == "I cannot do that."


def test_extract_plan():
    plan = "Restaurants: [r = findrestaurants(#city='San Jose')]"
    assert extract_plan("Plan: " + plan) == plan
    assert extract_plan("Here is my plan:\n```\n" + plan + "\n```") == plan
    assert extract_plan(plan) == plan


def test_fenced_blocks():
    assert fenced_blocks("a\n```JSON\n{}\n```\nb\n```python\nf()\n") == [("json", "{}"), ("python", "f()")]


@pytest.mark.parametrize("text", [
    "\n" * 300_000, " " * 300_000 + "x", "Action:" * 100_000, "```" + " \t" * 200_000 + "x",
    "```a" * 100_000, "Task" * 100_000, "-" * 300_000, "curl " * 100_000, "\\\n" * 200_000,
])
def test_extraction_is_linear(text):
    start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
    extract_program(text), extract_curl(text), extract_plan(text), fenced_blocks(text)
    assert time.process_time() - start < 1.0
