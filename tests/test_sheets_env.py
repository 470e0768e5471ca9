"""GoogleSheets-v0: the oracle, the scorings, multi-step episodes and hostile programs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest

pytest.importorskip("gspread")
pytest.importorskip("gspread_dataframe")

import toolgym  # noqa: E402,F401

_ENVS: dict[tuple, gym.Env] = {}


def make(**kwargs):
    """One env per configuration for the module (each computes its expected sheets once)."""
    key = tuple(sorted(kwargs.items()))
    if key not in _ENVS:
        _ENVS[key] = gym.make("GoogleSheets-v0", **kwargs).unwrapped
    return _ENVS[key]


def test_oracle_solves_every_task_and_both_ways_agree():
    env = make()
    categories, initial = set(), {}
    assert len(env.task_ids()) >= 70 and len(env.demo_pool) >= 10
    for task_id in env.task_ids():
        categories.add(env.tasks[task_id].category)
        states = env.expected_states(task_id)  # runs every ground truth (raises if one fails)
        for other in states[1:]:  # plain gspread calls and gspread-dataframe leave equal sheets
            assert states[0].values_equal(other) and states[0].formats_equal(other), task_id
        key = env.tasks[task_id].spreadsheet
        if key not in initial:
            initial[key] = env.read_state(key)
        assert not (states[0].values_equal(initial[key]) and states[0].formats_equal(initial[key])), task_id
    # The oracle's episodes: every task whose ground truths differ in kind, and one of each category.
    sample = {env.tasks[t].category: t for t in env.task_ids()}
    sample.update({t: t for t in env.task_ids() if len(env.tasks[t].programs) > 1 and t.startswith("products")})
    for task_id in sample.values():
        env.reset(options={"task_id": task_id})
        # Not the ground truth's exact text, so the sheets are compared rather than the programs.
        _, reward, terminated, _, info = env.step(env.oracle_action() + "\npass")
        assert terminated and reward == 1.0, (task_id, info["metrics"], info["error"])
        assert info["metrics"]["values_match"] == info["metrics"]["format_match"] == 1
    assert categories == {"cell_update", "sorting", "insert_rows", "delete_rows", "insert_columns",
                          "delete_columns", "merging", "filtering", "formatting", "pivot_tables", "pandas",
                          "drive", "dates", "named_ranges", "hidden", "data_validation"}


@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
def test_scorings(scoring):
    env = make(scoring=scoring)
    task = "employees-bold_header" if "employees-bold_header" in env.tasks else next(
        t for t in env.task_ids() if env.tasks[t].category == "formatting")
    env.reset(options={"task_id": task})
    _, reward, _, _, info = env.step(env.oracle_action())  # identical to the ground truth
    assert reward == 1.0 and info["metrics"]["success"] == 1
    env.reset(options={"task_id": task})
    _, reward, _, _, info = env.step("x = worksheet.title")  # leaves values alone, formats not done
    assert info["metrics"]["values_match"] == 1 and info["metrics"]["format_match"] == 0
    assert info["metrics"]["success"] == (1 if scoring == "paper_compat" else 0)


def test_observation_and_info():
    env = make()
    obs, info = env.reset(options={"task_id": env.task_ids()[0]})
    task = env.tasks[env.task_ids()[0]]
    assert obs.startswith(task.query) and "Worksheet 'Sheet1'" in obs
    assert info["sheet"]["Sheet1"][0] == ["Name", "Department", "Salary", "Years"] or info["sheet"]["Sheet1"][0]
    assert info["tools"][0]["function"]["name"] == "run_program"
    assert info["messages"][0]["role"] == "system" and "Task:" in info["messages"][1]["content"]
    assert len(info["prompt"]["demos"]) == 3
    obs, _, _, _, info = env.step({"name": "run_program", "arguments": {"program": "worksheet.update_acell('A2', 'Zed')"}})
    assert info["sheet"]["Sheet1"][1][0] == "Zed" and "Zed" in obs
    # A raw completion: the program is the fenced block.
    env.reset(options={"task_id": env.task_ids()[0]})
    _, _, _, _, info = env.step("Sure.\n```python\nworksheet.update_acell('A2', 'Yu')\n```\nDone.")
    assert info["sheet"]["Sheet1"][1][0] == "Yu" and info["metrics"]["executable"] == 1


def test_tool_calls_are_read_by_the_shared_action_parser():
    env = make(mode="multi_step")
    env.reset(options={"task_id": env.task_ids()[0]})
    # The OpenAI tool-call shape, with its arguments as JSON text.
    call = {"type": "function", "function": {"name": "run_program",
                                             "arguments": json.dumps({"program": "worksheet.update_acell('A2', 'Zed')"})}}
    _, _, _, _, info = env.step(call)
    assert info["sheet"]["Sheet1"][1][0] == "Zed"
    shape = 'Error: a tool call must be {"name": "run_program", "arguments": {"program": ...}}'
    assert env.step({"name": "other", "arguments": {}})[0] == shape
    assert env.step('{"name": "run_program", "arguments": "{bad"}')[0] == shape
    # JSON nested past Python's recursion limit is program text, refused by the interpreter.
    deep = '{"a":' * 3000 + "1" + "}" * 3000
    assert env.step(deep)[0] == "Error: line 1: syntax error: too many nested parentheses"


def test_multi_step_looks_then_submits():
    env = make(mode="multi_step")
    task_id = next(t for t in env.task_ids() if env.tasks[t].category == "sorting")
    env.reset(options={"task_id": task_id})
    total = 0.0
    obs, reward, terminated, _, info = env.step("rows = worksheet.get_all_values()")
    total += reward
    assert not terminated and "Sheet1" in obs
    obs, reward, terminated, _, info = env.step("worksheet.update(1, 'Q1')")  # fails: error, nothing changed
    total += reward
    assert obs.startswith("Error") and not terminated
    obs, reward, terminated, _, info = env.step(env.oracle_action())
    total += reward
    obs, reward, terminated, _, info = env.step(env.oracle_action())  # "" submits
    total += reward
    assert terminated and info["metrics"]["success"] == 1 and info["metrics"]["executable"] == 0
    assert total == pytest.approx(1.0)


HOSTILE = [
    ("worksheet.__class__", "'__class__' is not allowed"),
    ("x = worksheet.__dict__", "'__dict__' is not allowed"),
    ("__import__('os').system('touch /tmp/toolgym-sheets-pwned')", "attribute access is only allowed"),
    ("x = __import__('os')", "names starting with '_' are not allowed"),
    ("import os", "import"),
    ("f = open('/etc/passwd')", "unknown function open"),
    ("x = eval('1')", "unknown function eval"),
    ("x = getattr(worksheet, 'client')", "unknown function getattr"),
    ("df = get_as_dataframe(worksheet)\ndf.to_csv('/tmp/toolgym-sheets-x.csv')", "to_csv"),
    ("df = get_as_dataframe(worksheet)\ndf.to_pickle('/tmp/toolgym-sheets-x.pkl')", "to_pickle"),
    ("df = pd.read_csv('/etc/passwd')", "read_csv"),
    ("s = worksheet.client.session", "client"),
    ("c = sheet.client", "client"),
    ("x = worksheet.spreadsheet", "spreadsheet"),
    ("df = get_as_dataframe(worksheet)\nx = df.query('Price > 1')", "query"),
    ("df = get_as_dataframe(worksheet)\nx = df.agg('to_csv')", "aggregation 'to_csv' is not allowed"),
    ("df = get_as_dataframe(worksheet)\nx = df.pivot_table(index='Name', aggfunc='plot')", "not allowed"),
    ("df = get_as_dataframe(worksheet)\nx = df[df.columns[0]].str.contains(r'(a)\\1')", "a backreference"),
    ("f = lambda: 1", "lambda"),
    ("while True:\n    pass", "while"),
    ("for i in range(10**9):\n    pass", "too large"),
    ("for i in range(10000):\n    for j in range(10000):\n        x = 1", "step budget"),
    ("x = [0] * 10**9", "too long"),
    ("x = 'a' * 10**9", "too long"),
    ("df = get_as_dataframe(worksheet)\nn = df[df.columns[3]].astype('int64').max() * 0 + 10**6\ns = 'ab' * n", "too long"),
    ("df = get_as_dataframe(worksheet)\ndf[df.columns[0]] = df[df.columns[0]] * 10**6", "too large"),
    ("x = pd.DataFrame(0, index=list(range(10000)), columns=list(range(10000)))", "cells"),
    ("x = np.arange(10**12)", "np.arange"),
    ("x = pd.Series([10**70], dtype='object')\nfor i in range(40):\n    x = x * x", "number too large"),
    ("for i in range(1000):\n    worksheet.update_acell('A2', i)", "429"),
    ("worksheet.resize(100000, 1000)", "limit"),
    ("worksheet.update_acell('A2', 'changed')\nworksheet.update([[1]], 'ZZZ99999')", "exceeds grid limits"),
]


@pytest.mark.parametrize("program,message", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_hostile_programs_are_refused_and_change_nothing(program, message):
    env = make()
    env.reset(options={"task_id": env.task_ids()[0]})
    before = env.world.state_hash()
    obs, reward, terminated, _, info = env.step(program)
    assert obs.startswith("Error:") and message in obs, obs
    assert terminated and reward == 0 and info["metrics"]["executable"] == 0
    assert env.world.state_hash() == before
    assert not os.path.exists("/tmp/toolgym-sheets-pwned") and not os.path.exists("/tmp/toolgym-sheets-x.csv")
    # The env goes on working.
    env.reset(options={"task_id": env.task_ids()[1]})
    assert env.step(env.oracle_action())[1] == 1.0


def test_bad_input_is_data():
    env = make()
    env.reset(options={"task_id": env.task_ids()[0]})
    before = env.world.state_hash()
    for action in (None, 3, ["x"], {"name": "other"}, "{not json", "x = (", "\x00", "worksheet.nope()"):
        env.reset(options={"task_id": env.task_ids()[0]})
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs.startswith("Error:") and reward == 0 and terminated
        assert env.world.state_hash() == before


def test_bad_config_raises_at_make():
    with pytest.raises(ValueError, match="private"):
        gym.make("GoogleSheets-v0", tasks="official")
    with pytest.raises(ValueError, match="split"):
        gym.make("GoogleSheets-v0", split="nope")
    with pytest.raises(ValueError, match="max_steps"):
        gym.make("GoogleSheets-v0", max_steps=0)


def test_deterministic_and_split():
    env = make(split="pivot_tables")
    assert env.task_ids() and all(env.tasks[t].category == "pivot_tables" for t in env.task_ids())
    first = env.reset(seed=3)[0]
    assert env.reset(seed=3)[0] == first


def test_import_toolgym_is_light():
    code = "import sys, toolgym; print(any(m in sys.modules for m in ('gspread', 'pandas', 'formulas')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_make_leaves_the_client_libraries_to_the_first_program():
    # Importing gspread and pandas was most of what gym.make cost; the profile that names their
    # types is built on the first reset instead, and one is shared by every env of a process.
    code = ("import sys, gymnasium as gym, toolgym; env = gym.make('GoogleSheets-v0').unwrapped; "
            "print(any(m in sys.modules for m in ('gspread', 'pandas'))); env.reset(seed=0); "
            "print(env.sheet_tools.profile is gym.make('GoogleSheets-v0').unwrapped.sheet_tools.profile)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_make_without_the_sheets_extra_fails_at_make(monkeypatch):
    import importlib.util

    def find_spec(name, *args):  # gspread looks uninstalled
        return None if name == "gspread" else installed(name, *args)

    installed = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ModuleNotFoundError, match=r"toolgym\[sheets\]"):
        gym.make("GoogleSheets-v0")
