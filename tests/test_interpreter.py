"""The shared program interpreter: profiles, and budgets that bound work before it is done."""

from __future__ import annotations

import re
import signal
import time
import tracemalloc
import warnings
from contextlib import contextmanager

import pytest

from toolgym.worlds.api_programs import Date, Loc
from toolgym.worlds.homesearch import HomeSearchAPI
from toolgym.worlds.interpreter import (
    Budgets, Interpreter, Profile, ProgramError, api_calls, call_source, code_as_policies, literal_source, preview,
)
from toolgym.worlds.tripbooking import TripBookingAPI


@contextmanager
def deadline(seconds: float):
    """Fail (instead of spinning on) when the block spends more than ``seconds`` of this
    process's CPU time: a runaway program spins, and a busy machine stretches the wall clock
    (which failed these tests on a loaded machine), not the CPU time."""
    def expire(*_):
        raise TimeoutError(f"took more than {seconds} s of CPU")
    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def cap(**budgets) -> Interpreter:
    said: list = []
    return Interpreter(code_as_policies(["say"], Budgets(**budgets)), functions={"say": said.append})


# -- the budgets: reproducers of the robustness report ------------------------------------------
NESTED_COMPARISONS = """x = [0] * 10000
y = [x] * 10000
z = [y] * 10000
w = [z] * 10000
r1 = y == z
r2 = x in y
r3 = sorted(z)
r4 = min(w)
r5 = max(w)"""


@pytest.mark.parametrize("program, message", [
    (NESTED_COMPARISONS, "line 2: value too large"),
    # values within the size limit, compared over and over: the work budget stops them
    ("a = [[0] * 99] * 999\nb = [[0] * 99] * 999\nfor i in range(10000):\n    r = a == b", "work budget"),
    ("a = [[0] * 99] * 999\nfor i in range(10000):\n    r = [0] in a", "work budget"),
    ("a = [[i] * 99 for i in range(999)]\nfor i in range(10000):\n    r = sorted(a)", "work budget"),
    ("a = [[0] * 99] * 999\nfor i in range(10000):\n    r = max(a)", "work budget"),
    ("a = [0] * 10000\nb = zip(" + ", ".join(["a"] * 2000) + ")", "zip\\(\\) would build|work budget"),
    ("a = [[0] * 999] * 99\nb = str(a)", "too large to turn into text"),
    ("a = [[0] * 999] * 99\nb = f'{a!r}'", "too large to turn into text"),
    ("a = [" + "9" * 70 + "] * 9000\nb = str(a)", "too long to turn into text"),
    ("x = [1]\nfor i in range(3000):\n    x = [x]", "nested too deeply"),
    ("x = [0]\nx[0] = x", "cannot hold itself"),
    ("x = round(12345, -10**9)", "round\\(\\) takes at most 400 digits"),
    ("x = {}\nfor i in range(200):\n    for j in range(100):\n        x[i * 100 + j] = i", "value too long"),
])
def test_budgets_stop_runaway_programs_fast_and_in_little_memory(program, message):
    interpreter = cap()
    tracemalloc.start()
    start = time.process_time()  # this process's CPU time (0.8 s at most, traced): the wall clock is the machine's
    with deadline(10), pytest.raises(ProgramError, match=message):
        interpreter.run(program)
    elapsed = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 5 and peak < 100 * 2**20, (elapsed, peak)


def test_aliasing_cannot_grow_a_value_exponentially_across_runs():
    interpreter = cap()
    interpreter.run("x = [1]")
    with deadline(5):
        for _ in range(4):
            interpreter.run("x = [x] * 10")
        with pytest.raises(ProgramError, match="value too large"):
            interpreter.run("x = [x] * 10")
    assert interpreter.run("len(x)") == [10]  # the refused value was never bound


def test_a_value_grown_through_an_alias_is_measured_again_before_use():
    interpreter = cap()
    interpreter.run("a = [0] * 1000\nb = [a] * 90")
    interpreter.run("a[0] = [0] * 1000")  # b now holds 90 references to a 2001-item list
    with deadline(5), pytest.raises(ProgramError, match="value too large"):
        interpreter.run("r = b == b")
    with pytest.raises(ProgramError, match="value too large"):
        interpreter.run("say(b)")


def test_a_refused_write_leaves_the_list_as_it_was():
    interpreter = cap()
    interpreter.run("x = [0] * 6000")
    with pytest.raises(ProgramError, match="value too long"):
        interpreter.run("x[0:0] = x")
    with pytest.raises(ProgramError, match="value too long"):
        interpreter.run("x = x + x")
    assert interpreter.run("len(x)") == [6000]
    assert interpreter.run("x[0:0] = [1, 2]\nlen(x)") == [[1, 2], 6002]


def test_deeply_nested_values_preview_without_recursion_error():
    interpreter = cap()
    for _ in range(60):
        try:
            interpreter.run("x = [x] if x else [1]") if "x" in interpreter.variables else interpreter.run("x = [1]")
        except ProgramError as exc:
            assert "nested too deeply" in str(exc)
    text = preview(interpreter.variables["x"])
    assert text.startswith("[[[") and len(text) <= 2003
    nested: list = []
    for _ in range(3000):
        nested = [nested]
    assert preview(nested) == "<list too large to show>"


def test_ordinary_programs_stay_well_within_the_budgets():
    interpreter = cap()
    interpreter.run("pts = [[i, i] for i in range(1000)]\nfor i in range(1000):\n    pts[i] = [i + 1, i]\n"
                    "d = {}\nfor p in pts:\n    d[p[0]] = p\ns = sorted(pts, reverse=True)\nt = f'{s[:3]}'")
    assert interpreter.variables["t"] == "[[1000, 999], [999, 998], [998, 997]]"
    assert interpreter.meter.work < interpreter.profile.budgets.max_work // 10


# -- profiles ---------------------------------------------------------------------------------------
def test_api_calls_profile_allows_namespace_calls_and_helpers_only():
    calls: list = []
    interpreter = Interpreter(api_calls("Agent", ["WalkTo", "Grab"], {}),
                              namespaces={"Agent": lambda name, args, kwargs: calls.append((name, args))})
    interpreter.run("Agent.WalkTo('kitchen')\nAgent.Grab(-1)")
    assert calls == [("WalkTo", ["kitchen"]), ("Grab", [-1])]
    for program, message in [("Agent.Fly()", "line 1: Agent has no function 'Fly'"),
                             ("x = [Agent.WalkTo('a')]", "must be a statement of its own"),
                             ("x = 1 + 2", "BinOp `1 + 2` is not allowed"),
                             ("Agent", "Name `Agent` is not allowed"),
                             ("Agent = 3", "cannot assign to the namespace Agent"),
                             ("os.system('ls')", "attribute access is only allowed on Agent"),
                             ("Agent.__class__", "the attribute '__class__' is not allowed")]:
        with pytest.raises(ProgramError, match=re.escape(message)):
            interpreter.run(program)
    assert len(calls) == 2


def test_programs_the_parser_warns_about_are_checked_without_a_warning():
    interpreter = Interpreter(api_calls("API", ["f"], {}), namespaces={"API": lambda name, args, kwargs: args})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning that escaped would be a SyntaxError here
        assert interpreter.run('API.f("\\d")') == [["\\d"]]  # an invalid escape sequence
        for program, message in [("x = 1if y else 2", "IfExp `1 if y else 2` is not allowed"),
                                 ("x = 1.or 2", "BoolOp `1.0 or 2` is not allowed"),
                                 ("x = 0x1for", "syntax error")]:
            with pytest.raises(ProgramError, match=re.escape(message)):
                interpreter.run(program)


def test_methods_on_values_of_allowed_types():
    class Sheet:
        def __init__(self):
            self.cells = {}

        def update_cell(self, row, col, value):
            self.cells[row, col] = value
            return value

    sheet = Sheet()
    profile = Profile(name="sheets", statements=code_as_policies(()).statements,
                      expressions=code_as_policies(()).expressions, functions=frozenset({"open_sheet"}),
                      methods={Sheet: frozenset({"update_cell"})})
    interpreter = Interpreter(profile, functions={"open_sheet": lambda: sheet})
    interpreter.run("ws = open_sheet()\nws.update_cell(1, 2, 'a')")
    assert sheet.cells == {(1, 2): "a"}
    with pytest.raises(ProgramError, match="has no method 'update_cell'"):
        interpreter.run("x = [1]\nx.update_cell(1, 2, 3)")
    with pytest.raises(ProgramError, match="attribute access is only allowed"):
        interpreter.run("ws.delete()")


def test_home_search_profile_limits_integers_to_64_bits_before_running():
    interpreter = Interpreter(HomeSearchAPI.profile(), namespaces={"API": lambda *a: pytest.fail("ran")})
    for program in ["API.set_location('a')\nAPI.set_min_price(1000000000000000000000000000000)",
                    "d = Date(100000000000000000000, 1, 2023)", "API.set_min_price(10**30)"]:
        with pytest.raises(ProgramError, match="number too large \\(more than 63 bits\\)|BinOp"):
            interpreter.run(program)


def test_tool_call_sources():
    assert literal_source({"a": [1, 2.5, None, True, "x"]}) == "{'a': [1, 2.5, None, True, 'x']}"
    with pytest.raises(ProgramError, match="not a finite number"):
        literal_source(float("nan"))
    assert call_source("f", {"x": 1}) == "f(x=1)"
    with pytest.raises(ProgramError, match="is not a parameter name"):
        call_source("f", {"not a name": 1})
    assert TripBookingAPI.call_source("set_origin", {"value": "Ontario"}) == "API.set_origin(value=Loc('Ontario'))"
    assert (TripBookingAPI.call_source("set_checkin_date", {"value": {"month": 5, "day": 29, "year": 2023}})
            == "API.set_checkin_date(value=Date(month=5, day=29, year=2023))")
    with pytest.raises(ProgramError, match="API has no function 'fly'"):
        TripBookingAPI.call_source("fly", {})


def test_trip_booking_schemas_give_loc_and_date_json_types():
    schemas = {s["function"]["name"]: s["function"]["parameters"]["properties"] for s in TripBookingAPI.schemas()}
    typed = {name: props["value"] for name, props in schemas.items()
             if "value" in props and props["value"].get("type") in ("string", "object")
             and name in ("set_origin", "set_destination", "set_hotel_location", "set_departure_date",
                          "set_return_date", "set_checkin_date", "set_checkout_date")}
    assert len(typed) == 7
    assert typed["set_origin"]["type"] == "string"
    assert typed["set_checkin_date"]["required"] == ["month", "day", "year"]
    assert all(p for props in schemas.values() for p in props.values())  # no parameter without a type
    assert Loc("a") == Loc("a") and Date(1, 2, 3).date == "1-2-3"
