"""GoogleSheets-v0 against hostile programs: names pandas would call, work the budgets must see
before it is done, regular expressions, and rejected steps that must leave nothing behind.

Every hostile step runs under :func:`tests.audit_guard.bounded_step` (no process, socket, file
write or foreign file read; under 1 s and 256 MB), in multi-step mode so that the namespace a
refused program leaves can be compared with the one before it, and is followed by the oracle
on the same episode (the env stays usable).
"""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("gspread")
pytest.importorskip("gspread_dataframe")

import toolgym  # noqa: E402,F401
from tests.audit_guard import bounded_step, no_escapes  # noqa: E402

pytestmark = pytest.mark.timeout(120)

READ = "df = get_as_dataframe(worksheet)\n"
_ENV: list = []


def multi_step_env():
    if not _ENV:
        _ENV.append(gym.make("GoogleSheets-v0", mode="multi_step", max_steps=50).unwrapped)
    env = _ENV[0]
    env.reset(options={"task_id": env.task_ids()[0]})
    env.step("df = get_as_dataframe(worksheet)\nkept = [1, 2]\nn = 3")
    return env


def _namespace(env) -> dict:
    """What a program can see of its namespace: names, and each value's content."""
    import pandas

    shown = {}
    for name, value in env.interpreter.variables.items():
        if isinstance(value, (pandas.DataFrame, pandas.Series)):
            shown[name] = ("frame", value.to_json())
        elif isinstance(value, (int, float, str, list, tuple, dict)):
            shown[name] = repr(value)
        else:
            shown[name] = type(value).__name__
    return shown


def assert_refused(program: str, *messages: str) -> str:
    """The program is refused with each message; the sheet and namespace are unchanged; the env goes on."""
    env = multi_step_env()
    world_before, namespace_before = env.world.state_hash(), _namespace(env)
    observation, reward, terminated, truncated, info = bounded_step(env, program)
    assert observation.startswith("Error:"), observation[:300]
    for message in messages:
        assert message in observation, observation[:300]
    assert not terminated and not truncated and reward == 0
    assert env.world.state_hash() == world_before
    assert _namespace(env) == namespace_before
    # The env is usable afterwards: the oracle solves the task in the same episode.
    with no_escapes():
        env.step(env.oracle_action())
        *_, terminated, _, info = env.step(env.oracle_action())
    assert terminated and info["metrics"]["success"] == 1
    return observation


# -- names pandas resolves to callables ----------------------------------------------------------
CALLABLE_NAMES = [
    # the reproducers
    READ + "x = df.agg(y=(df.columns[0], 'to_clipboard'))",
    READ + "x = df.agg(y=(df.columns[2], 'hist'))",
    READ + "x = df.groupby(df.columns[1]).agg(y=(df.columns[2], 'plot'))",
    READ + "x = df.agg(y=(df.columns[0], '__dict__'))",
    READ + "x = df.agg(y=(df.columns[0], '_mgr'))",
    # variations: every place of an aggregation spec, every method that takes one
    READ + "x = df.agg('to_clipboard')",
    READ + "x = df.aggregate(func='plot')",
    READ + "x = df.agg(['sum', 'hist'])",
    READ + "x = df.agg({df.columns[2]: ['sum', 'to_markdown']})",
    READ + "x = df.agg({df.columns[2]: 'to_latex'})",
    READ + "x = df[df.columns[2]].agg(total='plot')",
    READ + "x = df[df.columns[2]].agg(['sum', 'to_clipboard'])",
    READ + "x = df.groupby(df.columns[1]).agg('to_clipboard')",
    READ + "x = df.groupby(df.columns[1])[df.columns[2]].agg(total='hist')",
    READ + "x = df.groupby(df.columns[1]).aggregate({df.columns[2]: ['plot']})",
    READ + "x = df.pivot_table(index=df.columns[1], values=df.columns[2], aggfunc='plot')",
    READ + "x = df.pivot_table(df.columns[2], df.columns[1], None, 'hist')",
    READ + "x = df.pivot_table(index=df.columns[1], values=df.columns[2], aggfunc={df.columns[2]: 'to_clipboard'})",
    READ + "x = df.pivot_table(index=df.columns[1], values=df.columns[2], aggfunc=['sum', 'boxplot'])",
    READ + "x = pd.pivot_table(df, df.columns[2], df.columns[1], None, 'to_clipboard')",
    READ + "x = pd.pivot_table(df, values=df.columns[2], index=df.columns[1], aggfunc={df.columns[2]: 'plot'})",
]


@pytest.mark.parametrize("program", CALLABLE_NAMES, ids=[str(i) for i in range(len(CALLABLE_NAMES))])
def test_names_pandas_would_call_must_be_allowed_aggregations(program):
    observation = assert_refused(program, "not allowed")
    assert "use one of" in observation and "sum" in observation


@pytest.mark.parametrize("program, message", [
    (READ + "x = df.groupby(df.columns[1]).agg('sum', 'to_clipboard')", "must be numbers"),
    (READ + "x = df.agg('sum', 0, 'to_clipboard')", "must be numbers"),
    (READ + "x = df.agg('sum', extra='to_clipboard')", "must be numbers"),
    (READ + "x = df.agg(y=(df.columns[2], df))", "an aggregation must be one of"),
    (READ + "x = df.agg(y=df)", "a named aggregation is"),
    (READ + "x = df.groupby(df.columns[1]).sum(engine='numba')", "engine is not allowed"),
    (READ + "x = df.groupby(df.columns[1]).agg('sum', engine='cython')", "engine is not allowed"),
    (READ + "x = df.astype('U10000000')", "dtype 'U10000000' is not allowed"),
    (READ + "x = df.astype({df.columns[0]: 'datetime64[ns, America/New_York]'})", "is not allowed"),
    (READ + "x = df.astype('string[pyarrow]')", "is not allowed"),
    (READ + "x = pd.Series([1], dtype='S100000')", "is not allowed"),
    ("x = get_as_dataframe(worksheet, dtype='V1000')", "is not allowed"),
    (READ + "x = df.round(10**9)", "decimals must be integers of at most 20"),
    (READ + "x = df.describe(include=['datetime64[ns, Europe/Paris]'])", "is not allowed"),
    (READ + "x = df[df.columns[2]].values.sum(dtype='U100000')", "is not allowed"),
])
def test_other_names_and_arguments_that_reach_registries_or_compilers(program, message):
    assert_refused(program, message)


@pytest.mark.parametrize("method", ["apply('sum')", "map({1: 2})", "transform('sum')", "pipe('sum')",
                                    "eval('a + 1')", "query('a > 1')", "resample('D')", "rolling(2)",
                                    "expanding()", "ewm(2)", "applymap('sum')", "filter(regex='(a+)+$')",
                                    "to_clipboard()", "plot()", "hist()", "to_csv('x.csv')"])
def test_methods_that_run_names_or_code_are_not_in_the_allow_list(method):
    observation = assert_refused(READ + f"x = df.{method}")
    assert "attribute access is only allowed" in observation or "no method" in observation


@pytest.mark.parametrize("method", ["split('(a+)+$', regex=True)", "match('(a+)+$')",
                                    "count('(a+)+$')", "findall('(a+)+$')", "fullmatch('(a+)+$')",
                                    "repeat(10**7)", "pad(10**7)"])
def test_string_methods_that_take_patterns_or_grow_text_are_not_in_the_allow_list(method):
    observation = assert_refused(READ + f"x = df[df.columns[0]].str.{method}")
    assert "attribute access is only allowed" in observation or "no method" in observation


# -- regular expressions -------------------------------------------------------------------------
#: Texts on which Python's backtracking engine takes longer than the age of the universe for
#: ``(a+)+$`` (it doubles its work per character): 20 cells of 5,000 characters, half ending in 'b'.
LONG = "t = pd.Series(['a' * 5000 + 'b', 'a' * 5000] * 10)\nf = pd.DataFrame({'t': t, 'n': np.arange(20)})\n"


@pytest.mark.parametrize("program, expected", [
    (LONG + "x = f.replace(regex='(a+)+$', value='x')['t'].tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = f.replace(to_replace='(a+)+$', value='x', regex=True)['t'].tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = f.replace(to_replace='(a+)+$', value='x', regex=np.array([True])[0])['t'].tolist()",
     ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = f.replace(regex=['(a+)+$'], value='x')['t'].tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = f.replace(regex={'(a+)+$': 'x'})['t'].tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = f.replace({'t': {'(a+)+$': 7}}, regex=True)['t'].tolist()", ["a" * 5000 + "b", 7] * 10),
    (LONG + "x = t.replace(regex='(a+)+$', value='x').tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "f.replace(regex='(a+)+$', value='x', inplace=True)\nx = f['t'].tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = t.str.replace('(a+)+$', 'x', regex=True).tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = t.str.replace('(a+)+$', 'x', -1, None, 0, True).tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = t.str.replace('(a+)+$', 'x', regex=np.array([True])[0]).tolist()", ["a" * 5000 + "b", "x"] * 10),
    (LONG + "x = t.str.contains('(a+)+$').tolist()", [False, True] * 10),
    (LONG + "x = t.str.contains('(a+)+$', False, 0, False, True).tolist()", [False, True] * 10),
    (LONG + "x = t.str.contains('(a|aa)*c', regex=np.array([True])[0]).sum()", 0),
    (LONG + "x = t.str.contains('(A+)+B$', case=False).sum()", 10),
    (LONG + "x = t.str.extract('((a+)+)(b?)$')[2].tolist()", ["b", ""] * 10),
])
def test_patterns_run_in_linear_time(program, expected, monkeypatch):
    """The catastrophic-backtracking reproducers run on RE2: under a second on texts where
    Python's engine would never finish, with the right answer; Python's ``re`` never sees them."""
    import re

    env = multi_step_env()
    seen, compile_pattern = [], re._compile
    monkeypatch.setattr(re, "_compile", lambda pattern, flags: seen.append(pattern) or compile_pattern(pattern, flags))
    observation, *_ = bounded_step(env, program)
    monkeypatch.undo()
    assert not [p for p in seen if "a+" in str(p) or "aa" in str(p)]
    assert observation.startswith("The program ran"), observation[:300]
    assert env.interpreter.variables["x"] == expected


@pytest.mark.parametrize("program, message", [
    (READ + "x = df[df.columns[0]].str.contains(r'(a)\\1')", "a backreference (\\1)"),
    (READ + "x = df[df.columns[0]].str.replace(r'(?P<x>a)(?P=x)', '', regex=True)", "a named backreference"),
    (READ + "x = df[df.columns[0]].str.contains('a(?=b)')", "lookahead (?=...)"),
    (READ + "x = df[df.columns[0]].str.contains('a(?!b)')", "negative lookahead (?!...)"),
    (READ + "x = df.replace(regex='(?<=a)b', value='x')", "lookbehind (?<=...)"),
    (READ + "x = df[df.columns[0]].str.extract('(?<!a)(b)')", "negative lookbehind (?<!...)"),
    (READ + "x = df.replace(to_replace=['a', '(?>a+)'], value='x', regex=True)", "an atomic group"),
    (READ + "x = df[df.columns[0]].str.contains('a++')", "possessive or repeated quantifier"),
])
def test_patterns_re2_cannot_run_are_refused_by_feature(program, message):
    observation = assert_refused(program, message)
    assert "RE2, a linear-time engine without backreferences or lookaround" in observation


@pytest.mark.parametrize("program, message", [
    (READ + "x = df.replace(to_replace='a', value='x', regex=1)", "regex must be True, False or the patterns"),
    (READ + "x = df[df.columns[0]].str.contains('x', regex='(a+)+$')", "regex must be True or False"),
    (READ + "x = df.replace(to_replace='a', regex='b', value='x')", "to_replace must be None"),
    (READ + "x = df.replace(regex='a')", "give value="),
    (READ + "x = df[df.columns[0]].str.contains('a', flags=64)", "flags may combine"),
    (READ + "x = df[df.columns[0]].str.replace('(a)', r'\\2', regex=True)", "does not have"),
    (READ + "x = df[df.columns[0]].str.extract('a')", "no capture groups"),
    (READ + "x = df[df.columns[0]].str.contains(5)", "a pattern must be text"),
    # budgets: cells searched, matches substituted, text built (literal characters and group references)
    ("s = pd.Series(['ab'] * 10000)\ns = pd.concat([s, s, s, s, s])\nx = s.str.contains('a')", "text cells"),
    ("s = pd.Series(['a b c d e f g h i j'] * 3000)\nx = s.str.replace(' ', '_', regex=True)", "matches more than"),
    ("s = pd.Series(['aaaa'] * 100)\nx = s.str.replace('a', 'x' * 10000, regex=True)", "too large"),
    ("s = pd.Series(['a' * 5000] * 10)\nx = s.str.replace('(a+)', r'\\1' * 10, regex=True)", "too large"),
    ("s = pd.DataFrame({'a': ['aaaa'] * 100})\nx = s.replace(regex='a', value='x' * 10000)", "too large"),
])
def test_pattern_arguments_and_budgets(program, message):
    assert_refused(program, message)


#: Patterns agents write, as the program says them and as the reference computes them: pandas
#: with Python's engine (these patterns do not backtrack). Results must be equal, dtypes and
#: missing values included.
EQUIVALENT = [
    ("s.str.contains('a|e')", lambda s, d, o: s.str.contains('a|e')),
    ("s.str.contains('^[A-M]')", lambda s, d, o: s.str.contains('^[A-M]')),
    ("s.str.contains('A|E', case=False)", lambda s, d, o: s.str.contains('A|E', case=False)),
    ("s.str.contains('o', flags=2)", lambda s, d, o: s.str.contains('o', flags=2)),
    ("s.str.contains('x', na=False)", lambda s, d, o: s.str.contains('x', na=False)),
    ("s.str.replace(r'\\s+', ' ', regex=True)", lambda s, d, o: s.str.replace(r'\s+', ' ', regex=True)),
    ("s.str.replace(r'(\\w)(\\w)', r'\\2\\1', regex=True)",
     lambda s, d, o: s.str.replace(r'(\w)(\w)', r'\2\1', regex=True)),
    ("s.str.replace('[aeiou]', '', n=1, regex=True)", lambda s, d, o: s.str.replace('[aeiou]', '', n=1, regex=True)),
    ("s.str.replace(r'(?P<first>^.)', r'<\\g<first>>', regex=True)",
     lambda s, d, o: s.str.replace(r'(?P<first>^.)', r'<\g<first>>', regex=True)),
    ("s.str.replace('A', '-', case=False, regex=True)",
     lambda s, d, o: s.str.replace('A', '-', case=False, regex=True)),
    ("s.str.extract(r'(?P<first>\\w)(\\w)')", lambda s, d, o: s.str.extract(r'(?P<first>\w)(\w)')),
    ("s.str.extract(r'([aeiou])', expand=False)", lambda s, d, o: s.str.extract(r'([aeiou])', expand=False)),
    ("s.str.extract(r'(?P<v>[aeiou])', expand=False)",
     lambda s, d, o: s.str.extract(r'(?P<v>[aeiou])', expand=False)),
    ("s.str.extract(r'(z)?(a)')", lambda s, d, o: s.str.extract(r'(z)?(a)')),
    ("d.replace(regex=r'^(\\w)', value=r'<\\1>')", lambda s, d, o: d.replace(regex=r'^(\w)', value=r'<\1>')),
    ("d.replace('^[A-M].*', 'early', regex=True)", lambda s, d, o: d.replace('^[A-M].*', 'early', regex=True)),
    ("d.replace(to_replace=[r'a', r'e'], value=['A', 'E'], regex=True)",
     lambda s, d, o: d.replace(to_replace=[r'a', r'e'], value=['A', 'E'], regex=True)),
    ("d.replace({'k': r'^.'}, 'Q', regex=True)", lambda s, d, o: d.replace({'k': r'^.'}, 'Q', regex=True)),
    ("d.replace({'k': {r'^(.)': r'\\1\\1'}}, regex=True)",
     lambda s, d, o: d.replace({'k': {r'^(.)': r'\1\1'}}, regex=True)),
    ("d.replace(regex={'^L.*': 'L'})", lambda s, d, o: d.replace(regex={'^L.*': 'L'})),
    ("o.str.contains('a')", lambda s, d, o: o.str.contains('a')),
    ("o.str.replace('a', 'A', regex=True)", lambda s, d, o: o.str.replace('a', 'A', regex=True)),
    ("o.str.extract('(a)(.)')", lambda s, d, o: o.str.extract('(a)(.)')),
    ("o.replace('a.', 'Q', regex=True)", lambda s, d, o: o.replace('a.', 'Q', regex=True)),
]


@pytest.mark.parametrize("expression, reference", EQUIVALENT, ids=[str(i) for i in range(len(EQUIVALENT))])
def test_patterns_give_what_pandas_gives(expression, reference):
    import numpy
    import pandas

    env = multi_step_env()
    setup = ("s = df[df.columns[0]]\nd = pd.DataFrame({'k': s, 'n': np.arange(len(s))})\n"
             "o = pd.Series(['ab', None, 'ca', 5, 'xa'], dtype='object')\n")
    observation, *_ = bounded_step(env, setup + f"x = {expression}")
    assert observation.startswith("The program ran"), observation[:300]
    s = env.interpreter.variables["s"]
    expected = reference(s, pandas.DataFrame({"k": s, "n": numpy.arange(len(s))}),
                         pandas.Series(["ab", None, "ca", 5, "xa"], dtype="object"))
    got = env.interpreter.variables["x"]
    if isinstance(expected, pandas.DataFrame):
        pandas.testing.assert_frame_equal(got, expected)
    else:
        pandas.testing.assert_series_equal(got, expected)


def test_plain_text_matching_still_works():
    env = multi_step_env()
    program = ("x = df[df.columns[0]].str.contains('a', regex=False).sum()\n"
               "y = df[df.columns[0]].str.contains('(a+)+$', regex=False).sum()\n"
               "z = df.replace('a', 'b')\n"
               "w = df[df.columns[0]].str.replace('a', 'b')\n")
    observation, *_ = bounded_step(env, program)
    assert observation.startswith("The program ran"), observation[:300]
    variables = env.interpreter.variables
    assert variables["x"] > 0 and variables["y"] == 0


# -- work and memory the budgets must predict -----------------------------------------------------
SIZES = [
    ("a = np.arange(15000)\nb = a[:, None] + a", "too large"),
    ("a = np.arange(15000)\nb = a[:, None] * a[None, :]", "too large"),
    ("a = np.arange(15000)\nb = a[:, None] == a", "too large"),
    ("a = np.arange(15000)\nb = (a[:, None] > 3) & (a > 2)", "too large"),
    ("a = np.arange(15000)\nb = a[a[:, None], a]", "too large"),
    ("a = np.arange(3000)\nb = np.where(a[:, None] > a, a, 0)", "too large"),
    ("s = pd.Series(['aaaa'] * 100)\nx = s.str.replace('a', 'x' * 10000)", "too large"),
    ("s = pd.Series(['abcd'] * 100)\nx = s.str.replace('', 'x' * 2000)", "too large"),
    ("s = pd.Series(['abcd'] * 100)\nx = s.str.cat(sep='x' * 5000)", "too large"),
    (READ + "x = df[df.columns[0]].mul(10**7)", "too large"),
    (READ + "x = df.mul(10**7)", "too large"),
    (READ + "x = df[df.columns[0]] * 10**7", "too large"),
    (READ + "x = 10**7 * df[df.columns[0]]", "too large"),
    (READ + "x = df[df.columns[0]] + df[df.columns[0]].mul(10**5)", "too large"),
    ("s = pd.Series(['x' * 1000] * 300)\nx = s.cumsum()", "too large"),
    ("s = pd.DataFrame({'a': ['x' * 1000] * 300})\nx = s.cumsum()", "too large"),
    ("w = pd.DataFrame(0, index=list(range(60)), columns=list(range(190)))\nx = w.melt(id_vars=list(range(95)))",
     "too large"),
    ("f = pd.DataFrame({'k': np.arange(1000), 'v': np.arange(1000)})\n"
     "x = f.pivot_table(index=np.arange(1000), columns=np.arange(1000) * 7, values='v')", "pivot table"),
    ("f = pd.DataFrame({'k': np.arange(1000), 'v': np.arange(1000)})\n"
     "x = f.pivot_table(index='k', columns=[np.arange(1000) % 50, np.arange(1000) % 7], values='v')", "columns"),
    ("f = pd.DataFrame({'k': np.arange(1000), 'v': np.arange(1000)})\nx = f.pivot(index='k', columns='v')",
     "columns"),
    (READ + "x = df.astype('U10000000')", "not allowed"),
    (READ + "x = df[df.columns[2]].value_counts(bins=10**8)", "bins"),
    ("s = pd.Series([0] * 10000, index=[0] * 10000)\nx = s.loc[[0] * 100]", "too large"),
    ("s = pd.Series([0] * 5000, index=[0] * 5000)\nt = pd.Series([1] * 5000, index=[0] * 4999 + [1])\nx = s + t",
     "too large"),
    ("s = pd.Series([1] * 1000, index=[0] * 999 + [1])\nf = pd.DataFrame({'a': [1] * 1000}, index=[0] * 1000)\n"
     "x = f.mul(s, axis=0)", "too large"),
    (READ + "x = df[[df.columns[0]] * 10000]", "columns"),
    (READ + "x = df.loc[:, [df.columns[0]] * 10000]", "columns"),
    ("x = pd.DataFrame({'a': np.arange(100000)}).T", "columns"),
    ("x = pd.DataFrame({'a': np.arange(100000)}).transpose()", "columns"),
    ("x = np.array(['x' * 10000] + ['a'] * 9999)", "characters"),
    ("x = np.where(np.arange(10000) > 0, 'x' * 10000, 'y')", "characters"),
    ("x = pd.Series(['%1000000s'] * 3) % 'a'", "string formatting"),
    ("f = pd.DataFrame({'a': [1, 2]})\nf.loc[list(range(3, 10000))] = 5\ng = f.loc[list(range(3, 100))]", None),
    ("x = pd.Series([2**200] * 50, dtype='object')\ny = x.prod()", "number too large"),
    ("x = pd.Series([2**200] * 50, dtype='object')\ny = x.cumprod()", "number too large"),
    ("x = pd.DataFrame(0, index=list(range(10000)), columns=list(range(10000)))", "cells"),
    ("x = pd.DataFrame({'a': np.arange(100000)})\ny = pd.concat([x, x, x, x, x])", "too large"),
    ("x = pd.DataFrame(0, index=[0, 1], columns=list(range(100)))\n"
     "y = x.describe(percentiles=[i / 20000 for i in range(10000)])", "too large"),
    ("x = pd.Series(np.arange(100000))\nfor i in range(1000):\n    y = x.sum()", "work budget"),
    ("x = pd.Series(np.arange(100000))\nfor i in range(1000):\n    y = x + 1", "too much data"),
    ("x = pd.DataFrame({'a': np.arange(100)})\nfor i in range(1000):\n    for j in range(100):\n"
     "        y = x['a'] + 1", "budget"),
]


@pytest.mark.parametrize("program, message", SIZES, ids=[str(i) for i in range(len(SIZES))])
def test_size_and_work_are_predicted_before_the_work(program, message):
    env = multi_step_env()
    if message is None:  # a store that grows a frame within the budgets, then more of it: runs or is refused cheaply
        bounded_step(env, program)
        return
    assert_refused(program, message)


def test_values_in_every_column_count():
    import pandas

    from toolgym.worlds.sheets.sizes import COLUMN_COST, size

    frame = pandas.DataFrame({i: [0] for i in range(1500)})
    frame[1400] = "x" * 9000
    assert size(frame) == 1500 + 1 + 1 + 9000 + 1500 * COLUMN_COST
    # Frames that wide never reach a program: pandas would work column by column.
    assert_refused("x = pd.DataFrame(0, index=[0], columns=list(range(1500)))", "columns")
    assert_refused(READ + "x = pd.concat([df[df.columns[2]]] * 300, axis=1)", "columns")


# -- legitimate calls are not refused; the guard never fails by itself ---------------------------
LEGITIMATE = [
    "x = df.pivot_table(index=df.columns[1], values=df.columns[2], aggfunc='sum')",
    "x = df.pivot_table(df.columns[2], df.columns[1], None, 'max')",
    "x = df.pivot_table(values=df.columns[2], index=df.columns[1], columns=df.columns[3], aggfunc=['sum', 'mean'], "
    "margins=True, fill_value=0)",
    "x = df.pivot_table(index=[df.columns[1]], values=[df.columns[2], df.columns[3]], "
    "aggfunc={df.columns[2]: 'sum', df.columns[3]: ['min', 'max']})",
    "x = df.pivot_table(index=df.columns.tolist()[1], values=df.columns.tolist()[2:4], aggfunc='mean')",
    "x = df.pivot_table(index=df[df.columns[1]], values=df.columns[2], aggfunc='count')",
    "x = df.pivot_table(index=df.columns[1], aggfunc='size')",
    "x = pd.pivot_table(df, values=df.columns[2], index=df.columns[1], aggfunc='sum')",
    "x = pd.pivot_table(df, df.columns[2], df.columns[1], df.columns[3], 'nunique', 0, True)",
    "x = df.pivot(index=df.columns[0], columns=df.columns[1], values=df.columns[2])",
    "x = df.agg(['sum', 'max'])",
    "x = df.agg({df.columns[2]: ['sum', 'mean'], df.columns[3]: 'max'})",
    "x = df[df.columns[2]].agg('mean')",
    "x = df.groupby(df.columns[1]).agg(total=(df.columns[2], 'sum'), n=(df.columns[2], 'count'))",
    "x = df.groupby(df.columns[1])[df.columns[2]].agg(t='sum', m='max')",
    "x = df.groupby(df.columns[1]).agg({df.columns[2]: 'median'})",
    "x = df.groupby(df.columns[1])[df.columns[2]].sum()",
    "x = df.melt(id_vars=[df.columns[0]])",
    "x = df.astype({df.columns[2]: 'int64'})",
    "x = df[df.columns[3]].astype('str')",
    "x = df.sort_values(df.columns[2], inplace=True)",
    "df.insert(0, 'ID', list(range(len(df))))",
    "df['Bonus'] = df[df.columns[2]] * 0.1",
    "df.loc[df[df.columns[2]] > 100000, 'Tag'] = 'high'",
    "x = df[df.columns[2]].value_counts(bins=4)",
    "x = df[df.columns[0]].str.upper() + ' ' + df[df.columns[1]]",
    "x = df[df.columns[0]].str.cat(sep=', ')",
    "x = pd.concat([df, df], ignore_index=True)",
    "x = df.describe()",
    "x = df.describe(include='all')",
    "x = df.describe(include=['number'])",
    "x = df.round(1)",
    "x = np.array([1, 2, 3])[:, None] + np.array([1, 2])",
    "x = df.T",
    "x = 'Name' in df.columns\ny = 3 not in df[df.columns[2]].tolist()\nz = -df[df.columns[2]]\nw = ~(df[df.columns[2]] > 1)",
]


@pytest.mark.parametrize("line", LEGITIMATE, ids=[str(i) for i in range(len(LEGITIMATE))])
def test_legitimate_calls_run(line):
    env = multi_step_env()
    observation, *_ = bounded_step(env, line)
    assert observation.startswith("The program ran"), observation[:300]


def test_describe_refuses_a_frame_as_its_dtype_selection():
    """Found by the totality fuzz: ``include=df`` was compared with ``!=`` (element-wise) and raised."""
    import pandas

    from toolgym.worlds.interpreter import ProgramError
    from toolgym.worlds.sheets.guard import guard

    frame = pandas.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]})
    for selection in (frame, [frame]):
        with pytest.raises(ProgramError, match="dtype must be one of"):
            guard("DataFrame.describe", (frame, [None, selection], {}))
    guard("DataFrame.describe", (frame, [], {"include": "all", "exclude": ["number"]}))


def test_the_guard_is_total():
    """A rule refuses with a ProgramError or lets the call go; nothing else ever comes out of it."""
    hypothesis = pytest.importorskip("hypothesis")
    import numpy
    import pandas
    from hypothesis import strategies as st

    from toolgym.worlds.interpreter import ProgramError
    from toolgym.worlds.sheets.guard import guard

    frame = pandas.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 2.0, 3.0], "c": [1, 1, 2]}, index=[0, 0, 1])
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                        st.text(max_size=8), st.sampled_from(["a", "b", "c", "sum", "plot", "index", "columns"]))
    values = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.sampled_from([frame, frame["b"], frame.index, numpy.arange(4), numpy.array([[1], [2]]),
                         numpy.array([True, False, True])])), max_leaves=8)
    methods = st.sampled_from(["agg", "aggregate", "pivot_table", "pivot", "melt", "replace", "astype", "mul",
                               "value_counts", "cumsum", "describe", "round", "insert", "reindex_like", "groupby"])

    @hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
    @hypothesis.given(methods, st.lists(values, max_size=4), st.dictionaries(
        st.sampled_from(["func", "aggfunc", "index", "columns", "values", "regex", "dtype", "bins", "axis",
                         "id_vars", "other", "value", "y"]), values, max_size=3), values, values)
    def check(method, args, kwargs, left, right):
        for target in (frame, frame["b"], frame.groupby("a")):
            try:
                guard(f"{type(target).__name__}.{method}", (target, args, kwargs))
            except ProgramError:
                pass
            except AttributeError:
                assert not hasattr(target, method)
        operations = [(name, (left, right)) for name in ("Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow",
                                                         "BitAnd", "BitOr", "Eq", "NotEq", "Lt", "In", "NotIn")]
        operations += [("Add", (frame, right)), ("Mult", (left, frame["a"])), ("Pow", (frame["c"], right)),
                       ("USub", (left,)), ("Invert", (left,)), ("Not", (left,)), ("read", (frame, "T")),
                       ("load", (frame, left)), ("load", (frame["b"], left)), ("load", (frame.loc, left)),
                       ("load", (frame.iloc, left)), ("load", (numpy.arange(6), left)),
                       ("store", (frame, left, right)), ("store", (frame.loc, left, right))]
        for operation, operands in operations:
            try:
                guard(operation, operands)
            except ProgramError:
                pass

    check()


# -- a rejected step leaves nothing behind -------------------------------------------------------
def test_rejected_program_restores_sheet_and_namespace():
    env = multi_step_env()
    world_before = env.world.state_hash()
    before = _namespace(env)
    program = ("worksheet.update_acell('A2', 'changed')\nkept += [3]\nkept[0] = 99\nn = 4\nnew = 1\n"
               "df[df.columns[2]] = 0\ndf.insert(0, 'X', 1)\nx = df.agg(y=(df.columns[0], 'to_clipboard'))")
    observation, reward, terminated, *_ = bounded_step(env, program)
    assert observation.startswith("Error: line 8") and not terminated and reward == 0
    assert env.world.state_hash() == world_before and _namespace(env) == before
    assert "new" not in env.interpreter.variables and env.interpreter.variables["kept"] == [1, 2]


def test_rejected_program_restores_the_client_objects_the_names_hold():
    """The issue's reproducer, ``w = worksheet`` in one step and ``w.resize(20, 5)`` then an error in
    the next, with worksheet objects held in a list and a frame, the spreadsheet object, a
    rebound ``worksheet`` and a frame: each object believes what the restored sheet says."""
    env = multi_step_env()
    env.step("w = worksheet\ns = sheet\ntabs = sheet.worksheets()\n"
             "frame = pd.DataFrame({'w': [sheet.worksheet('Sheet1')]})\n"
             "t = sheet.add_worksheet('T', 5, 5)\nworksheet = t")
    names = env.interpreter.variables
    world_before, names_before, frame_before = env.world.state_hash(), set(names), names["df"].copy()
    program = ("w.resize(20, 5)\nw.update_title('Renamed')\ns.update_title('Other file')\ntabs[0].resize(3, 3)\n"
               "frame['w'][0].resize(4, 4)\nworksheet.resize(7, 7)\nsheet.del_worksheet(t)\n"
               "df.loc[0, df.columns[0]] = 'Z'\ndf['new'] = 1\nx = nope")
    observation, reward, terminated, *_ = bounded_step(env, program)
    assert observation == "Error: line 10: name 'nope' is not defined" and not terminated and reward == 0
    names = env.interpreter.variables
    assert env.world.state_hash() == world_before and set(names) == names_before
    restored = env.world.client().open_by_key(env.sheet_tools.spreadsheet_id)  # read afresh from the service
    sheet1, tab = restored.worksheet("Sheet1"), restored.worksheet("T")
    assert (names["w"].row_count, names["w"].col_count, names["w"].title) == (sheet1.row_count, sheet1.col_count,
                                                                             "Sheet1") != (20, 5, "Renamed")
    for held in (names["w"], names["tabs"][0], names["frame"]["w"][0]):
        assert held._properties == sheet1._properties  # size, title, index: every cached property
    assert names["worksheet"] is names["t"] and names["t"]._properties == tab._properties
    assert names["s"]._properties == restored._properties and names["s"].title != "Other file"
    assert names["w"].spreadsheet is names["s"]  # the same objects, not copies
    assert names["df"].equals(frame_before)  # the frame variable: no 'Z', no new column
    # the objects go on working: the next program writes through w into the sheet of its true size
    observation, *_ = env.step("w.update_acell('A2', 'Kept')\nsize = [w.row_count, w.col_count]")
    assert observation.startswith("The program ran.") and "Kept" in observation
    assert env.interpreter.variables["size"] == [sheet1.row_count, sheet1.col_count]


@pytest.mark.parametrize("env_id, good", [
    ("GoogleSheets-v0", "x = 1"), ("HomeSearch-v0", 'API.set_location("Spokane")'), ("Tabletop-v0", "x = 1"),
])
@pytest.mark.parametrize("bad", ["x = (", "\x00", "import os", "x = nope", "for i in [1, 2]:\n    y = i\n    x = nope"])
def test_one_rule_for_errors_in_every_multi_step_env(env_id, good, bad):
    """An error observation, nothing changed (names included), the episode goes on, the step counts."""
    env = gym.make(env_id, mode="multi_step", max_steps=3).unwrapped
    env.reset(seed=0, options={"task_index": 0})
    env.step(good)
    names = {name: value for name, value in env.interpreter.variables.items() if isinstance(value, (int, str))}
    observation, reward, terminated, truncated, info = env.step(bad)
    assert observation.startswith("Error") and not terminated and not truncated and reward == 0, observation
    assert {name: value for name, value in env.interpreter.variables.items() if isinstance(value, (int, str))} \
        == names and "y" not in env.interpreter.variables
    observation, reward, terminated, truncated, info = env.step(bad)
    assert truncated and not terminated and "metrics" in info  # the third step counted
