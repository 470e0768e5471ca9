"""No regular expression in the package has a quantifier inside a repeated part (issue 46).

Python's ``re`` backtracks: ``(a+)+``, ``(\\s*x)*`` or ``(?:[^,]+,?)*`` can take time exponential
in the text they fail on, and the package runs its patterns on model output and official files.
This test finds every pattern the package compiles or matches with (a constant given to
``re.compile``/``match``/``search``/``fullmatch``/``sub``/``subn``/``findall``/``finditer``/
``split``, directly or through a module-level name) and reads its structure with Python's own
regular-expression parser, so that a quantifier under a repetition is found wherever it sits
(in groups, alternatives, lookarounds). A pattern that needs such a shape is written as a linear
parser instead (docs/development.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

try:
    from re import _constants as constants, _parser as parser  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as constants  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

PACKAGE = Path(__file__).resolve().parent.parent / "toolgym"
RE_FUNCTIONS = {"compile", "match", "search", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
REPEATS = (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT) \
    if hasattr(constants, "POSSESSIVE_REPEAT") else (constants.MAX_REPEAT, constants.MIN_REPEAT)
# A repeat that never gives back what it took (``*+``) cannot backtrack into its body.
BACKTRACKING = (constants.MAX_REPEAT, constants.MIN_REPEAT)


def _children(op, value) -> list:
    """The sub-patterns directly inside one parsed item."""
    if op in REPEATS:
        return [value[2]]
    if op is constants.SUBPATTERN:
        return [value[-1]]
    if op is constants.BRANCH:
        return list(value[1])
    if op in (constants.ASSERT, constants.ASSERT_NOT):
        return [value[1]]
    if op is constants.GROUPREF_EXISTS:
        return [branch for branch in value[1:] if branch is not None]
    if getattr(constants, "ATOMIC_GROUP", None) is op:
        return [value]
    return []


def _repeats(pattern) -> list:
    """Every repeat (op, (min, max, body)) in a parsed pattern, at any depth."""
    found, pending = [], [pattern]
    while pending:
        for op, value in pending.pop():
            if op in REPEATS:
                found.append((op, value))
            pending += _children(op, value)
    return found


def nested_quantifiers(pattern: str, flags: int = 0) -> list[str]:
    """The repeated parts of ``pattern`` that hold a quantifier of their own: one that may take
    more than one match and a varying number of them (``\\d{3}`` is a fixed text, ``\\d+`` is not)."""
    problems = []
    for op, (_, most, body) in _repeats(parser.parse(pattern, flags)):
        if op in BACKTRACKING and most > 1 and any(inner_most > 1 and inner_least != inner_most
                                                   for _, (inner_least, inner_most, _) in _repeats(body)):
            problems.append(f"a repeat of {most if most != constants.MAXREPEAT else 'any number'} holding a quantifier")
    return problems


def _constant_text(node, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def _verbose(call: ast.Call) -> int:
    """``re.VERBOSE`` when the call passes it (the one flag that changes how a pattern parses)."""
    import re

    verbose = any(isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re"
                  and node.attr in ("X", "VERBOSE") for node in ast.walk(call))
    return re.VERBOSE if verbose else 0


def package_patterns() -> list[tuple[str, int, str, int]]:
    """(file, line, pattern, flags) of every constant pattern the package hands to ``re``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" \
                    and node.func.attr in RE_FUNCTIONS and node.args:
                text = _constant_text(node.args[0], names)
                if text is not None:
                    found.append((str(path.relative_to(PACKAGE.parent)), node.lineno, text, _verbose(node)))
    return found


def test_the_checker_finds_nested_quantifiers_by_structure():
    for pattern in (r"(a+)+", r"(\s*x)*", r"(?:[^,]+,?)*", r"(?:x|(?=(y*)))+z", r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]"):
        assert nested_quantifiers(pattern), pattern
    for pattern in (r"a+b*", r"(ab)+", r"(?:a|b?)*", r"[(+*)]+", r"\(a+\)*", r"(?:x\d?)+", r"(,\d{3})+"):
        assert not nested_quantifiers(pattern), pattern


def test_no_pattern_of_the_package_nests_quantifiers():
    patterns = package_patterns()
    assert len(patterns) > 50  # the scan finds the package's patterns
    offending = [f"{file}:{line}: {pattern!r}: {', '.join(problems)}" for file, line, pattern, flags in patterns
                 if (problems := nested_quantifiers(pattern, flags))]
    assert offending == []
