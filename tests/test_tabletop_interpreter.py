"""The whitelisted program interpreter that runs Tabletop-v0's Code-as-Policies programs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgym.worlds.interpreter import Budgets, Interpreter, ProgramError, check, code_as_policies


def make_interpreter(**budgets) -> tuple[Interpreter, list]:
    calls: list = []

    def put_first_on_second(obj, target):
        if not isinstance(obj, str):
            raise ProgramError(f"an object name must be text, got {type(obj).__name__}")
        calls.append((obj, target))
        return True

    functions = {"get_obj_names": lambda: ["red block", "blue block", "green bowl"],
                 "get_obj_pos": lambda name: {"red block": [0.1, -0.4], "blue block": [-0.2, -0.6]}[name],
                 "put_first_on_second": put_first_on_second}
    return Interpreter(code_as_policies(functions, Budgets(**budgets)), functions=functions), calls


def test_runs_a_code_as_policies_program():
    interpreter, calls = make_interpreter()
    interpreter.run(
        "block_names = [n for n in get_obj_names() if 'block' in n]\n"
        "x, y = get_obj_pos(block_names[0])\n"
        "total = 0\n"
        "for i, name in enumerate(block_names):\n"
        "    if i > 5:\n"
        "        break\n"
        "    total += 1\n"
        "    put_first_on_second(name, [x + 0.1 * i, y])\n"
        "label = f'{len(block_names)} blocks'\n"
        "last = block_names[-1:]\n"
        "pos = {'a': 1}['a'] if total == 2 else None\n")
    assert calls == [("red block", [0.1, -0.4]), ("blue block", [0.1 + 0.1, -0.4])]
    assert interpreter.variables["label"] == "2 blocks"
    assert interpreter.variables["last"] == ["blue block"]
    assert interpreter.variables["pos"] == 1 and interpreter.variables["total"] == 2


def test_run_returns_the_value_of_each_statement():
    interpreter, _ = make_interpreter()
    assert interpreter.run("get_obj_pos('red block')") == [[0.1, -0.4]]
    assert interpreter.run("x = 1\nif x:\n    pass") == [1, None]


@pytest.mark.parametrize("program, message", [
    ("import os", "import is not allowed"),
    ("from os import system", "import is not allowed"),
    ("x = ().__class__", "attribute access is not allowed"),
    ("__builtins__", "names starting with '_' are not allowed"),
    ("_x = 1", "names starting with '_' are not allowed"),
    ("get_obj_names().append(1)", "only calls of the API functions are allowed"),
    ("while True:\n    pass", "while is not allowed"),
    ("def f():\n    pass", "def is not allowed"),
    ("f = lambda: 1", "lambda is not allowed"),
    ("class A:\n    pass", "class is not allowed"),
    ("with x:\n    pass", "with is not allowed"),
    ("try:\n    pass\nexcept Exception:\n    pass", "try is not allowed"),
    ("exec('1')", "unknown function exec()"),
    ("eval('1')", "unknown function eval()"),
    ("open('/etc/passwd')", "unknown function open()"),
    ("getattr(1, 'real')", "unknown function getattr()"),
    ("put_first_on_second(*['a', 'b'])", "'*' unpacking is not allowed"),
    ("(x := 1)", "':=' is not allowed"),
    ("x = {1, 2}", "a set is not allowed"),
    ("len = 3", "cannot assign to the builtin len"),
    ("put_first_on_second(", "line 1: syntax error"),
    ("x = " + "(" * 300 + "1" + ")" * 300, "too many nested parentheses"),
])
def test_rejects_forbidden_programs_before_running(program, message):
    interpreter, calls = make_interpreter()
    with pytest.raises(ProgramError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        interpreter.run(program)
    assert calls == []


def test_forbidden_construct_anywhere_stops_the_whole_program():
    interpreter, calls = make_interpreter()
    with pytest.raises(ProgramError, match="line 2: import is not allowed"):
        interpreter.run("put_first_on_second('red block', 'x')\nimport os")
    assert calls == []  # checked before the first statement runs


@pytest.mark.parametrize("program, message", [
    ("for i in range(1000):\n    for j in range(1000):\n        x = i", "step budget exceeded"),
    ("x = range(10**12)", "range\\(\\) of 1000000000000 numbers is too large"),
    ("x = 10**10**10", "number too large"),
    ("x = 'a' * 10**9", "value too long"),
    ("x = [1]\nfor i in range(100):\n    x = x + x", "value too long"),
    ("x = 2\nfor i in range(20):\n    x = x * x", "number too large"),
    ("x = [n for n in range(5000) for m in range(5000)]", "value too long|step budget"),
    ("a = [0] * 9999\nfor i in range(200):\n    b = a + [1]", "builds too much data"),
    ("a = [[0] * 999] * 99\nx = sum(a, [])", "sum\\(\\) adds numbers only"),
    ("a = [[0] * 999] * 99\nx = str(a)", "too large to turn into text"),
    ("a = [[0] * 999] * 99\nx = f'{a}'", "too large to turn into text"),
    ("a = [[0] * 9999] * 9999", "line 1: value too large"),
    ("x = '%999999999d' % 1", "string formatting with % is not allowed"),
])
def test_resource_limits(program, message):
    interpreter, _ = make_interpreter()
    with pytest.raises(ProgramError, match=message):
        interpreter.run(program)


@pytest.mark.parametrize("program, message", [
    ("x = 1 + 'a'", "line 1: TypeError"),
    ("x = min([])", "line 1: min\\(\\): ValueError"),
    ("x = 1 / 0", "ZeroDivisionError"),
    ("x = get_obj_names()[10]", "IndexError"),
    ("x = y", "name 'y' is not defined"),
    ("x = get_obj_pos", "get_obj_pos is a function"),
    ("put_first_on_second(3, [0, 0])", "put_first_on_second\\(\\): an object name must be text"),
    ("put_first_on_second('a')", "put_first_on_second\\(\\): missing a required argument: 'target'"),
    ("for x in 5:\n    pass", "cannot loop over a int"),
    ("a, b = [1, 2, 3]", "cannot unpack 3 values into 2 names"),
    ("break", "outside"),
    (12, "the program must be text"),
])
def test_runtime_errors_are_program_errors(program, message):
    interpreter, _ = make_interpreter()
    with pytest.raises(ProgramError, match=message):
        interpreter.run(program)


TOKENS = st.sampled_from(["x", "y", "=", "+", "*", "**", "(", ")", "[", "]", ",", ":", "\n", "    ", "for", "in",
                          "if", "else", "range", "len", "get_obj_names", "put_first_on_second", "'red block'",
                          "0", "1", "10", "9999", ".", "__class__", "import", "lambda", "not", "==", "-"])


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=25).map(" ".join) | st.text(max_size=60))
def test_fuzz_never_raises_anything_but_program_error(program):
    interpreter, _ = make_interpreter(max_steps=2000)
    try:
        interpreter.run(program)
    except ProgramError as exc:
        assert str(exc)


def test_check_accepts_the_whitelist_only():
    program = check("x = [1, 2]\nif x:\n    y = -x[0] // 2 % 3\n", code_as_policies(()))
    assert [s.source for s in program.statements] == ["x = [1, 2]", "if x:\n    y = -x[0] // 2 % 3"]
