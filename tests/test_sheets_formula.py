"""The formula engine's compiled formulas run as straight lines of its functions: the same
results as its dispatcher, and the engine is imported at reset, never inside a step."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

pytest.importorskip("formulas")

from toolgym.worlds.sheets import formula  # noqa: E402

FORMULAS = ["=A1+1", "=A1-A2", "=A1*A2", "=A1/A2", "=A1^2", "=-A1", '=A1&"x"', "=A1=A2", "=A1>A2", "=A1<>A2",
            "=A1%", "=SUM(B1:C1)", "=AVERAGE(B1:C1)", "=MIN(B1:C1)", "=MAX(A1,A2)+MIN(B1:C1)", "=COUNT(B1:C1)",
            "=COUNTA(B1:C1)", '=COUNTIF(B1:C1,">1")', '=SUMIF(B1:C1,">1")', '=IF(A1>1,A2,"no")', "=IF(A1,B1:C1,0)",
            "=IFERROR(A1/A2,0)", "=ISERROR(A1)", "=ROUND(A1,1)", "=AND(A1,A2)", "=NOT(A1)", "=LEN(A1)",
            "=CONCATENATE(A1,A2)", "=DATE(2024,1,A1)", '=TEXT(A1,"0.0")', "=VLOOKUP(A1,B1:C1,2,FALSE)",
            "=MATCH(A1,B1:C1,0)", "=MOD(A1,A2)", "=SQRT(A1)"]


def outcome(function, args):
    try:
        return repr(formula._plain(function(*args)))
    except Exception:  # noqa: BLE001 - both ways must fail alike
        return "fails"


def test_straight_lines_compute_what_the_dispatcher_computes():
    import numpy as np
    from formulas.functions import Error

    engine, _ = formula._engine()
    empty = formula._empty()
    scalars = [3.0, 0.0, -2.5, "abc", "4", True, empty, Error.errors["#DIV/0!"]]
    arrays = []
    for first, second in itertools.product([1.0, "x", empty, True, Error.errors["#N/A"]], repeat=2):
        array = np.full((1, 2), empty, dtype=object)
        array[0, 0], array[0, 1] = first, second
        arrays.append(array)
    straight = 0
    for text in FORMULAS:
        parsed = formula.parse_formula(text)
        dispatcher = engine.Parser().ast(parsed.canonical)[1].compile()
        line = formula._straight_line(dispatcher)
        if line is None:
            continue
        straight += 1
        pools = [arrays if parsed.references[name].is_range else scalars for name in dispatcher.inputs]
        for args in itertools.product(*pools):
            assert outcome(line, args) == outcome(dispatcher, args), (text, args)
    assert straight == len(FORMULAS)  # every formula above runs without the dispatcher
    # One that needs the dispatcher keeps it (INDEX runs an inner dispatcher).
    index = engine.Parser().ast(formula.parse_formula("=INDEX(B1:C1,1,1)").canonical)[1].compile()
    assert formula._straight_line(index) is None
    assert formula.compile_formula(formula.parse_formula("=INDEX(B1:C1,1,1)").canonical).function is not None


def test_the_engine_is_imported_at_reset_not_in_a_step():
    script = """
import sys, gymnasium as gym, toolgym
env = gym.make("GoogleSheets-v0")
made = "formulas" in sys.modules
env.reset(options={"task_id": env.unwrapped.task_ids()[0]})
before = set(sys.modules)
obs = env.step("worksheet.update_acell('F1', '=SUM(C2:C11)*2')")[0]
print(made, "formulas" in before, sorted(set(sys.modules) - before), obs.startswith("The program ran."))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    assert result.stdout.split() == ["False", "True", "[]", "True"], result.stdout + result.stderr
