"""Regular expressions from the agent, run in linear time: Python's syntax (τ³'s ``grep`` tool) and
GNU grep's basic and extended syntax (the shell's ``grep``) are parsed and rewritten for RE2.

Python's ``re`` backtracks, so a pattern such as ``(a+)+b`` can take exponential time; the agent's
patterns are therefore parsed with Python's own parser (the meaning Python gives them) and run on
RE2 (``google-re2``), which matches leftmost-first like Python, so the same matches are found.
What RE2 cannot run (back-references, look-around, atomic groups, possessive repeats,
conditionals) is refused with :class:`UnsupportedPattern`. Known differences, for the rare
pattern they touch: ``\\b``/``\\B`` treat only ASCII letters, digits and ``_`` as word characters
(and ``\\B`` matches an empty text, which Python's does not);
``$`` without MULTILINE matches only at the very end (Python's also before a final newline);
RE2 allows counted repeats up to 1000; where a pattern matches the empty string, Python may take a
non-empty match at the place of an empty one (``|0`` finds ``0`` after the empty match before it),
which RE2 does not, so the count can be lower.
"""

from __future__ import annotations

import re
import warnings

try:  # Python 3.11+
    from re import _constants as sre
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

import re2

MAX_PATTERN_CHARS = 10_000
MAX_NESTING = 100
MAX_RE2_REPEAT = 1000
#: Python's Unicode ``\\s`` (``str.isspace``), as an RE2 class body.
_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_WORD = r"\p{L}\p{N}_"
_DIGIT = r"\p{Nd}"
_ASCII = {sre.CATEGORY_DIGIT: "0-9", sre.CATEGORY_WORD: "0-9A-Za-z_", sre.CATEGORY_SPACE: r"\t\n\x0b\x0c\r "}


class UnsupportedPattern(ValueError):
    """A pattern toolgym does not run; ``str()`` says why."""


def _char(code: int) -> str:
    return f"\\x{{{code:x}}}"


def _category(category, ascii_only: bool) -> tuple[str, bool]:
    """(class body, negated) of a ``\\d``/``\\w``/``\\s`` category."""
    name = str(category).replace("CATEGORY_", "").replace("UNI_", "").replace("LOC_", "")
    negated = name.startswith("NOT_")
    base = name.removeprefix("NOT_")
    if base == "LINEBREAK":
        return r"\n", negated
    key = {"DIGIT": sre.CATEGORY_DIGIT, "WORD": sre.CATEGORY_WORD, "SPACE": sre.CATEGORY_SPACE}[base]
    if ascii_only:
        return _ASCII[key], negated
    return {"DIGIT": _DIGIT, "WORD": _WORD, "SPACE": _SPACE}[base], negated


def _case(text: str, flags: int) -> str:
    return f"(?i:{text})" if flags & re.IGNORECASE else text


class _Writer:
    def __init__(self, flags: int):
        self.flags = flags

    def items(self, items, flags: int) -> str:
        return "".join(self.item(op, av, flags) for op, av in items)

    def item(self, op, av, flags: int) -> str:
        ascii_only = bool(flags & re.ASCII)
        if op is sre.LITERAL:
            return _case(_char(av), flags)
        if op is sre.NOT_LITERAL:
            return _case(f"[^{_char(av)}]", flags)
        if op is sre.ANY:
            return "(?s:.)" if flags & re.DOTALL else r"[^\n]"
        if op is sre.IN:
            return self.charset(av, flags)
        if op is sre.CATEGORY:
            body, negated = _category(av, ascii_only)
            return f"[{'^' if negated else ''}{body}]"
        if op is sre.AT:
            return self.at(av, flags)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, high, sub = av
            if low > MAX_RE2_REPEAT or (high != sre.MAXREPEAT and high > MAX_RE2_REPEAT):
                raise UnsupportedPattern(f"a counted repeat above {MAX_RE2_REPEAT} is not supported")
            body = f"(?:{self.items(sub, flags)})"
            if high == sre.MAXREPEAT:
                count = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
            elif low == 0 and high == 1:
                count = "?"
            else:
                count = f"{{{low}}}" if low == high else f"{{{low},{high}}}"
            return body + count + ("?" if op is sre.MIN_REPEAT else "")
        if op is sre.SUBPATTERN:
            group, add, remove, sub = av
            # capturing groups keep their numbers (sed's \\1); RE2 finds the same matches either way
            return f"({'' if group else '?:'}{self.items(sub, (flags | add) & ~remove)})"
        if op is sre.BRANCH:
            return "(?:" + "|".join(self.items(alt, flags) for alt in av[1]) + ")"
        reason = {sre.GROUPREF: "back-references", sre.GROUPREF_EXISTS: "conditional groups",
                  sre.ASSERT: "look-around", sre.ASSERT_NOT: "look-around"}.get(op, str(op).lower())
        raise UnsupportedPattern(f"{reason} need a backtracking regex engine, which toolgym's grep does "
                                 "not run; rewrite the pattern without them")

    def charset(self, items, flags: int) -> str:
        ascii_only = bool(flags & re.ASCII)
        negate = False
        parts: list[str] = []
        negated_classes: list[str] = []
        for op, av in items:
            if op is sre.NEGATE:
                negate = True
            elif op is sre.LITERAL:
                parts.append(_char(av))
            elif op is sre.RANGE:
                parts.append(f"{_char(av[0])}-{_char(av[1])}")
            elif op is sre.CATEGORY:
                body, negated = _category(av, ascii_only)
                (negated_classes if negated else parts).append(body)
            else:  # pragma: no cover - Python's parser puts nothing else in a set
                raise UnsupportedPattern(f"{op} in a character set is not supported")
        if negated_classes and negate:
            raise UnsupportedPattern(r"a negated set holding \W, \D or \S is not supported")
        alternatives = [f"[{'^' if negate else ''}{''.join(parts)}]"] if parts or negate else []
        alternatives += [f"[^{body}]" for body in negated_classes]
        if not alternatives:  # pragma: no cover - an empty set does not parse
            raise UnsupportedPattern("an empty character set")
        text = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return _case(text, flags)

    def at(self, where, flags: int) -> str:
        multiline = bool(flags & re.MULTILINE)
        if where is sre.AT_BEGINNING:
            return "(?m:^)" if multiline else r"\A"
        if where is sre.AT_BEGINNING_STRING:
            return r"\A"
        if where is sre.AT_END:
            return "(?m:$)" if multiline else r"\z"
        if where is sre.AT_END_STRING:
            return r"\z"
        if where in (sre.AT_BOUNDARY, sre.AT_UNI_BOUNDARY, sre.AT_LOC_BOUNDARY):
            return r"\b"
        return r"\B"


def _nesting(pattern: str) -> int:
    """How deep the pattern's parentheses go (escaped ones aside), counted in one pass."""
    depth = deepest = 0
    escaped = False
    for c in pattern:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth = max(depth - 1, 0)
    return deepest


def compile_python(pattern: str, flags: int = 0) -> re2._Regexp:
    """``pattern`` as Python's ``re.compile(pattern, flags)`` reads it, compiled for RE2.

    Raises:
        re.error: Python does not read ``pattern`` (τ³ then searches for it literally).
        UnsupportedPattern: Python reads it but RE2 cannot run it, or it is too long.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsupportedPattern(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    if _nesting(pattern) > MAX_NESTING:
        raise UnsupportedPattern(f"the pattern nests groups more than {MAX_NESTING} deep")
    with warnings.catch_warnings():  # Python's hints about future set syntax are not the agent's business
        warnings.simplefilter("ignore", FutureWarning)
        parsed = sre_parse.parse(pattern, flags)
    flags = parsed.state.flags
    if flags & re.ASCII == 0:
        flags |= re.UNICODE
    text = _Writer(flags).items(parsed, flags)
    options = re2.Options()
    options.max_mem = 64 << 20
    try:
        return re2.compile(text, options)
    except re2.error as error:
        raise UnsupportedPattern(f"the pattern is too large to run ({error})") from None


def count_matches(regex: re2._Regexp, text: str) -> int:
    """How many matches ``re.findall`` returns (non-overlapping, empty ones too): at most ``len(text) + 1``."""
    count = 0
    previous_empty_at = -1
    for match in regex.finditer(text):
        start, end = match.span()
        # google-re2's finditer can find an empty match twice; Python never takes an empty match
        # where the previous empty one was
        if start == end:
            if start == previous_empty_at:
                continue
            previous_empty_at = start
        count += 1
    return count


_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9A-Za-z", "upper": "A-Z", "lower": "a-z",
    "space": r"\s", "blank": r" \t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "xdigit": "0-9A-Fa-f", "cntrl": r"\x00-\x1f\x7f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e",
}
_GNU_ESCAPES = {"<": r"\b", ">": r"\b", "b": r"\b", "B": r"\B", "w": r"\w", "W": r"\W", "s": r"\s",
                "S": r"\S", "`": r"\A", "'": r"\Z"}


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """A POSIX bracket expression at ``pattern[start] == "["``: (Python class, index after it)."""
    i = start + 1
    out = ["["]
    if i < len(pattern) and pattern[i] == "^":
        out.append("^")
        i += 1
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if c == "[" and i + 1 < len(pattern) and pattern[i + 1] in ":=.":
            kind = pattern[i + 1]
            end = pattern.find(kind + "]", i + 2)
            if end < 0:
                raise re.error("Unmatched [, [^, [:, [., or [=")
            name = pattern[i + 2:end]
            if kind != ":":
                raise UnsupportedPattern("equivalence classes and collating symbols are not supported")
            if name not in _POSIX_CLASSES:
                raise re.error("Invalid character class name")
            out.append(_POSIX_CLASSES[name])
            i = end + 2
            continue
        # a range's dash stays a dash; everything else is taken literally (a backslash too)
        out.append(c if c == "-" else re.escape(c))
        i += 1
    raise re.error("Unmatched [, [^, [:, [., or [=")


def posix_to_python(pattern: str, extended: bool) -> str:
    """GNU grep's basic (``extended=False``) or extended regular expression in Python's syntax.

    GNU's extensions are read as GNU reads them (``\\<``, ``\\>``, ``\\w``, ``\\s``, ``\\b``, and in
    basic syntax ``\\+``, ``\\?``, ``\\|``); POSIX classes (``[[:alpha:]]``) are ASCII.

    Raises:
        re.error: GNU grep would reject the pattern too (an unmatched bracket or parenthesis).
        UnsupportedPattern: equivalence classes or collating symbols.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsupportedPattern(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    out: list[str] = []
    i = 0
    at_start = True  # where a repetition sign is literal: the start, after a group opens or "|"
    while i < len(pattern):
        c = pattern[i]
        if c == "[":
            text, i = _bracket(pattern, i)
            out.append(text)
            at_start = False
            continue
        if c == "\\":
            if i + 1 >= len(pattern):
                raise re.error("Trailing backslash")
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}|+?":
                if nxt == "{":
                    end = pattern.find("\\}", i)
                    if end < 0:
                        raise re.error("Unmatched \\{")
                    out.append("{" + pattern[i:end] + "}")
                    i = end + 2
                elif nxt in "+?" and at_start:
                    out.append(re.escape(nxt))
                else:
                    out.append(nxt)
                at_start = nxt in "(|"
                continue
            if nxt in _GNU_ESCAPES:
                out.append(_GNU_ESCAPES[nxt])
            elif nxt.isdigit() and nxt != "0":
                out.append("\\" + nxt)
            else:
                out.append(re.escape(nxt))
            at_start = False
            continue
        if c == "*" or (extended and c in "+?"):
            out.append(re.escape(c) if at_start else c)
            at_start = False
        elif extended and c == "{":
            end = pattern.find("}", i)
            body = pattern[i + 1:end] if end > 0 else ""
            if end > 0 and body and all(ch.isdigit() or ch == "," for ch in body) and body.count(",") <= 1 \
                    and not at_start:
                out.append("{" + body + "}")
                i = end + 1
                continue
            out.append(re.escape(c))
            at_start = False
        elif extended and c in "()|":
            out.append(c)
            at_start = c != ")"
        elif c == "^":
            if extended or at_start:
                out.append("^")
            else:
                out.append(re.escape(c))
            at_start = not extended or at_start
        elif c == "$":
            rest = pattern[i + 1:]
            if extended or not rest or rest.startswith("\\)") or rest.startswith("\\|"):
                out.append("$")
            else:
                out.append(re.escape(c))
            at_start = False
        elif c == ".":
            out.append(".")
            at_start = False
        else:
            out.append(re.escape(c))
            at_start = False
        i += 1
    return "".join(out)
