"""Regular expressions of GoogleSheets programs, run on RE2: linear time, never backtracking.

pandas hands a pattern to Python's ``re``, a backtracking engine on which ``(a+)+$`` takes
seconds per character of text. So the guard runs every pattern-taking operation a program may
call itself, with RE2 (``google-re2``), whose matching time is linear in the text:
``str.contains``, ``str.replace`` and ``str.extract`` with ``regex=True`` (the default of
``contains`` and ``extract``) and ``DataFrame.replace`` / ``Series.replace`` with ``regex=``.
Each compiles its patterns with RE2 and computes the result cell by cell; pandas only ever sees
plain values (a pattern found in every text, then the cells that did not match).

RE2 has no backreferences (``\\1``, ``(?P=name)``), lookaround (``(?=``, ``(?!``, ``(?<=``,
``(?<!``) or atomic groups; a pattern using one is refused with a message naming it. Its
``\\w``, ``\\d`` and ``\\s`` are ASCII classes and ``$`` matches only at the end of the text
(``(?m)`` for line ends). Replacement templates are Python's (``\\1``, ``\\g<name>``). Flags
may combine ``re.IGNORECASE`` (2), ``re.MULTILINE`` (8) and ``re.DOTALL`` (16).

Budgets, checked before the work they bound: at most :data:`MAX_CELLS` text cells searched per
operation and :data:`MAX_MATCHES` matches substituted (RE2's Python binding costs ~10 µs a cell
and ~20 µs a match), and the text a replacement builds predicted from its matches (the template's
characters per match, plus the cell's length per group it refers to) and refused past
the profile's size budget before any text is built.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

from toolgym.worlds.interpreter import ProgramError
from toolgym.worlds.sheets import sizes as rules

#: Text cells one operation may search.
MAX_CELLS = 40_000
#: Matches one operation may substitute.
MAX_MATCHES = 20_000
#: Python's flag bits that RE2 has inline (re.UNICODE is how RE2 reads text anyway).
_FLAGS = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}
_KNOWN_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE
#: What RE2's parse errors mean, in the program's terms.
_FEATURES = (("(?=", "lookahead (?=...)"), ("(?!", "negative lookahead (?!...)"),
             ("(?<=", "lookbehind (?<=...)"), ("(?<!", "negative lookbehind (?<!...)"),
             ("(?P", "a named backreference (?P=name)"), ("(?>", "an atomic group (?>...)"),
             ("bad repetition operator", "a possessive or repeated quantifier (such as a++ or a**)"))
_BACKREFERENCE = re.compile(r"invalid escape sequence: \\([1-9])")
#: Group references of a replacement template (a fixed pattern of ours, never the program's).
_TEMPLATE_REFERENCE = re.compile(r"\\(?:\\|g<([^>]*)>|([0-9]{1,2}))")


@functools.cache
def _options() -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print each refused pattern to stderr
    return options


def compile_pattern(pattern: Any, where: str, flags: Any = 0, case: Any = True) -> Any:
    """The RE2 form of a program's pattern, or a :class:`ProgramError` naming what RE2 lacks."""
    import numpy
    import re2

    if not isinstance(pattern, str):
        raise ProgramError(f"{where}: a pattern must be text (found a {type(pattern).__name__})")
    if isinstance(flags, bool) or not isinstance(flags, (int, numpy.integer)) or int(flags) & ~_KNOWN_FLAGS:
        raise ProgramError(f"{where}: flags may combine re.IGNORECASE (2), re.MULTILINE (8) and re.DOTALL (16) "
                           f"(found {flags!r:.40})")
    if not isinstance(case, (bool, numpy.bool_)) and case is not None:
        raise ProgramError(f"{where}: case must be True or False")
    inline = "".join(letter for bit, letter in _FLAGS.items() if int(flags) & bit) + ("i" if case is False else "")
    try:
        return re2.compile(f"(?{inline}){pattern}" if inline else pattern, _options())
    except (re2.error, ValueError, TypeError) as exc:  # RE2's parse errors; text it cannot encode
        raise ProgramError(f"{where}: {_unsupported(pattern, exc)}") from None


def _unsupported(pattern: str, exc: Exception) -> str:
    detail = exc.args[0] if exc.args else ""
    detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    feature = next((name for marker, name in _FEATURES if marker in detail), None)
    if (reference := _BACKREFERENCE.search(detail)) is not None:
        feature = f"a backreference (\\{reference.group(1)})"
    engine = "patterns run on RE2, a linear-time engine without backreferences or lookaround"
    if feature is not None:
        return f"the pattern uses {feature}, which is not allowed: {engine}"
    return f"the pattern {pattern!r:.80} is not valid: {detail} ({engine})"


def _template(compiled: Any, template: str, where: str) -> tuple[int, int]:
    """(characters, group references) of a replacement template; refuses groups the pattern lacks."""
    references = 0
    for match in _TEMPLATE_REFERENCE.finditer(template):
        name, number = match.groups()
        if name is None and number is None:  # an escaped backslash
            continue
        known = int(number) <= compiled.groups if number is not None else \
            name in compiled.groupindex or (name.isdigit() and int(name) <= compiled.groups)
        if not known:
            raise ProgramError(f"{where}: the replacement refers to group {match.group(0)!r}, which the pattern "
                               f"does not have")
        references += 1
    return len(template), references


def _text_cells(values: Any, where: str) -> list[tuple[int, str]]:
    """The positions and texts of the text cells of an object array; refuses too many."""
    texts = [(i, v) for i, v in enumerate(values) if isinstance(v, str)]
    if len(texts) > MAX_CELLS:
        raise ProgramError(f"{where}: a regular expression over {len(texts)} text cells (at most {MAX_CELLS} "
                           f"per operation)")
    return texts


class _Substitution:
    """One pattern's replacement over text cells: matches counted and growth predicted first."""

    def __init__(self, compiled: Any, replacement: Any, count: int, where: str):
        self.compiled, self.replacement, self.count, self.where = compiled, replacement, max(count, 0), where
        self.template = isinstance(replacement, str)
        if self.template:
            self.literal, self.references = _template(compiled, replacement, where)
        elif not rules._plain(replacement):
            raise ProgramError(f"{where}: a replacement must be text, a number, a boolean or None "
                               f"(found a {type(replacement).__name__})")

    def apply(self, values: list, texts: list[tuple[int, str]], budget: list[int]) -> bool:
        """Replace in ``values`` (a list, changed in place) at the text cells; whether any changed.
        ``budget`` is [matches left, characters left], shared by the operation's substitutions."""
        hits = []
        for position, text in texts:
            if self.compiled.search(text) is None:
                continue
            if self.template:
                matches = 0
                for _ in self.compiled.finditer(text):
                    matches += 1
                    if self.count and matches >= self.count:
                        break
                budget[0] -= matches
                budget[1] -= matches * self.literal + self.references * len(text)
            else:
                budget[0] -= 1
            if budget[0] < 0:
                raise ProgramError(f"{self.where}: the pattern matches more than {MAX_MATCHES} times (at most "
                                   f"{MAX_MATCHES} substitutions per operation)")
            hits.append((position, text))
        if budget[1] < 0:
            rules._refuse_size(rules.LIMIT - budget[1], f"{self.where} (its replacements)")
        for position, text in hits:
            values[position] = self.compiled.sub(self.replacement, text, self.count) if self.template else \
                self.replacement
        return bool(hits)


def _budget(values: Any) -> list[int]:
    return [MAX_MATCHES, rules.LIMIT - rules._text(values)]


# -- the .str methods ---------------------------------------------------------------------------------
def string_method(strings: Any, method: str, bound: dict) -> Callable[[], Any] | None:
    """How to run ``series.str.<method>`` with RE2 instead of pandas, or None when no pattern is
    involved (``regex=False``: pandas matches plain text)."""
    import numpy

    where = f"str.{method}"
    flag = bound.get("regex", True)
    if not isinstance(flag, (bool, numpy.bool_)):
        raise ProgramError(f"{where}: regex must be True or False (found {flag!r:.40})")
    if not flag:
        return None
    series = strings._orig
    values = series.to_numpy(dtype=object)
    if method == "contains":
        return _contains(strings, values, bound, where)
    if method == "replace":
        return _str_replace(series, values, bound, where)
    return _extract(series, values, bound, where)


def _contains(strings: Any, values: Any, bound: dict, where: str) -> Callable[[], Any]:
    import numpy

    compiled = compile_pattern(bound.get("pat"), where, bound.get("flags", 0), bound.get("case", True))
    texts = _text_cells(values, where)
    na = bound.get("na")

    def run() -> Any:
        # pandas' own answer for a pattern every text contains (its dtype, its missing values),
        # then the texts the pattern is not found in.
        found = strings.contains("", regex=False, na=na)
        missed = numpy.zeros(len(values), dtype=bool)
        for position, text in texts:
            missed[position] = compiled.search(text) is None
        return found.mask(missed, False)

    return run


def _str_replace(series: Any, values: Any, bound: dict, where: str) -> Callable[[], Any]:
    pattern, replacement, count = bound.get("pat"), bound.get("repl"), bound.get("n", -1)
    if isinstance(count, bool) or not isinstance(count, int):
        raise ProgramError(f"{where}: n must be an integer")
    pairs = list(pattern.items()) if isinstance(pattern, dict) else [(pattern, replacement)]
    substitutions = []
    for old, new in pairs:
        if not isinstance(new, str):
            raise ProgramError(f"{where}: the replacement must be text (found a {type(new).__name__})")
        compiled = compile_pattern(old, where, bound.get("flags", 0), bound.get("case"))
        substitutions.append(_Substitution(compiled, new, count, where))
    texts = _text_cells(values, where)

    def run() -> Any:
        cells, budget = list(values), _budget(series)
        for substitution in substitutions:
            if substitution.apply(cells, texts, budget):
                texts[:] = [(i, cells[i]) for i, _ in texts]
        # pandas' own result for a replacement that changes nothing (dtype, missing and non-text
        # cells), then the replaced texts.
        same = series.str.replace("", "", regex=False)
        return _with_texts(same, cells, texts)

    return run


def _with_texts(base: Any, cells: list, texts: list[tuple[int, str]]) -> Any:
    import numpy

    changed = numpy.zeros(len(cells), dtype=bool)
    replaced = numpy.empty(len(cells), dtype=object)
    for position, _ in texts:
        changed[position], replaced[position] = True, cells[position]
    return base.mask(changed, replaced)


def _extract(series: Any, values: Any, bound: dict, where: str) -> Callable[[], Any]:
    pandas = rules._pd()
    compiled = compile_pattern(bound.get("pat"), where, bound.get("flags", 0))
    expand = bound.get("expand", True)
    if compiled.groups == 0:
        raise ProgramError(f"{where}: the pattern has no capture groups (wrap what to extract in parentheses)")
    texts = _text_cells(values, where)
    rules._refuse_columns(compiled.groups, where)
    rules._refuse_size(compiled.groups * len(values) + rules._text(series), where)
    names = {number: name for name, number in compiled.groupindex.items()}
    columns = [names.get(1 + i, i) for i in range(compiled.groups)]
    dtype = series.dtype if isinstance(series.dtype, pandas.StringDtype) else object

    def run() -> Any:
        missing = [math.nan] * compiled.groups  # pandas' missing value of a group, also in object columns
        rows = [missing] * len(values)
        for position, text in texts:
            match = compiled.search(text)
            if match is not None:
                rows[position] = [math.nan if group is None else group for group in match.groups()]
        frame = pandas.DataFrame(rows, index=series.index, columns=columns, dtype=dtype)
        if not expand and compiled.groups == 1:
            return frame.iloc[:, 0].rename(names.get(1, series.name))
        return frame

    return run


# -- DataFrame.replace / Series.replace -----------------------------------------------------------------
def replace(target: Any, bound: dict, where: str) -> Callable[[], Any] | None:
    """How to run ``target.replace(..., regex=...)`` with RE2, or None when ``regex`` is False."""
    import numpy

    pandas = rules._pd()
    if not isinstance(target, (pandas.DataFrame, pandas.Series)):
        return None
    regex, to_replace, value = bound.get("regex", False), bound.get("to_replace"), bound.get("value")
    if isinstance(regex, (bool, numpy.bool_)):
        if not regex:
            return None
        spec = to_replace
    elif isinstance(regex, (str, list, tuple, dict)):
        if to_replace is not None:
            raise ProgramError(f"{where}: to_replace must be None when regex= gives the patterns")
        spec = regex
    else:
        raise ProgramError(f"{where}: regex must be True, False or the patterns (text, a list or a dict; "
                           f"found a {type(regex).__name__})")
    frame = isinstance(target, pandas.DataFrame)
    plan = [(columns, _Substitution(compile_pattern(pattern, where), new, 0, where))
            for columns, pattern, new in _replace_rules(spec, value, frame, where)]
    positions = list(range(target.shape[1])) if frame else [None]
    columns = {j: (target.iloc[:, j] if frame else target) for j in positions}
    chosen = {j: [s for labels, s in plan if labels is None or (frame and rules._hashable_in(target.columns[j], labels))]
              for j in positions}
    work = {j: _text_cells(columns[j].to_numpy(dtype=object), where) if chosen[j] and
            rules._texty(columns[j].dtype) else [] for j in positions}
    cells = sum(len(texts) * len(chosen[j]) for j, texts in work.items())
    if cells > MAX_CELLS:
        raise ProgramError(f"{where}: regular expressions over {cells} text cells (at most {MAX_CELLS} per "
                           f"operation)")
    inplace = bool(bound.get("inplace", False))

    def run() -> Any:
        budget, new_columns = _budget(target), {}
        for j, texts in work.items():
            values, changed = list(columns[j].to_numpy(dtype=object)), False
            for substitution in chosen[j]:
                if substitution.apply(values, texts, budget):
                    changed = True
                    texts = [(i, v) for i, v in enumerate(values) if isinstance(v, str)]
            if changed:
                new_columns[j] = _column(columns[j], values)
        if not frame:
            if None not in new_columns:
                return None if inplace else target.copy()
            if inplace:
                target.iloc[:] = new_columns[None].to_numpy(dtype=object)
                return None
            return new_columns[None]
        result = target if inplace else target.copy()
        for j, column in new_columns.items():
            result.isetitem(j, column)
        return None if inplace else result

    return run


def _column(original: Any, values: list) -> Any:
    """A replaced column: the original's string dtype while every cell is text or missing, else object."""
    pandas = rules._pd()
    texty = isinstance(original.dtype, pandas.StringDtype) and \
        all(isinstance(v, str) or v is None or v is pandas.NA or (isinstance(v, float) and v != v) for v in values)
    return pandas.Series(values, index=original.index, name=original.name,
                         dtype=original.dtype if texty else object)


def _replace_rules(spec: Any, value: Any, frame: bool, where: str) -> list[tuple[list | None, Any, Any]]:
    """(columns or None for all, pattern, replacement) of ``replace``'s patterns, in order."""
    from pandas.api.extensions import no_default

    given = value is not no_default
    if isinstance(spec, str):
        if not given:
            raise ProgramError(f"{where}: give value= (what the pattern's matches become)")
        return [(None, spec, value)]
    if isinstance(spec, (list, tuple)):
        if not given:
            raise ProgramError(f"{where}: give value= (what the patterns' matches become)")
        if isinstance(value, (list, tuple)):
            if len(value) != len(spec):
                raise ProgramError(f"{where}: {len(spec)} patterns but {len(value)} values")
            return [(None, pattern, new) for pattern, new in zip(spec, value)]
        return [(None, pattern, value) for pattern in spec]
    if isinstance(spec, dict):
        if given:  # {column: pattern}: that column's matches become value
            if not frame:
                raise ProgramError(f"{where}: a Series takes {{pattern: replacement}} (without value=)")
            return [([column], pattern, value) for column, pattern in spec.items()]
        if frame and spec and all(isinstance(v, dict) for v in spec.values()):  # {column: {pattern: replacement}}
            return [([column], pattern, new) for column, inner in spec.items() for pattern, new in inner.items()]
        return [(None, pattern, new) for pattern, new in spec.items()]
    raise ProgramError(f"{where}: the patterns must be text, a list or a dict (found a {type(spec).__name__})")

