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
_ANCHORS = frozenset({"^", "$", r"\b", r"\B", r"\A", r"\Z"})
_GNU_ESCAPES = {"<": r"\b", ">": r"\b", "b": r"\b", "B": r"\B", "w": r"\w", "W": r"\W", "s": r"\s",
                "S": r"\S", "`": r"\A", "'": r"\Z"}


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """A POSIX bracket expression at ``pattern[start] == "["``: (Python class, index after it)."""
    close = pattern.find("]", start + 2)
    if pattern.startswith("[:", start) and close > 0 and pattern[close - 1] == ":":
        raise re.error("character class syntax is [[:space:]], not [:space:]")
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


def _interval(pattern: str, i: int, closing: str) -> tuple[str, int] | None:
    """The body of an interval ``{m,n}`` whose ``{`` ends just before ``pattern[i]``, and the index after
    its ``closing``; None when what follows is not one (GNU then reads the brace literally in ERE)."""
    end = pattern.find(closing, i)
    body = pattern[i:end] if end >= 0 else ""
    if end < 0 or not body or body.count(",") > 1 or not all(c.isdigit() or c == "," for c in body) \
            or body == ",":
        return None
    low, _, high = body.partition(",")
    if low and high and int(high) < int(low):
        raise re.error("Invalid content of \\{\\}")
    return body, end + len(closing)


def posix_to_python(pattern: str, extended: bool, warnings: list[str] | None = None) -> str:
    """GNU grep's basic (``extended=False``) or extended regular expression in Python's syntax.

    Read as GNU grep 3 reads it: its extensions (``\\<``, ``\\>``, ``\\w``, ``\\s``, ``\\b``, and in
    basic syntax ``\\+``, ``\\?``, ``\\|``), a repetition at the start of an extended expression
    ignored with a warning (appended to ``warnings``), an unmatched ``)`` or a brace that opens no
    interval taken literally, a basic interval at the start taken literally. POSIX classes
    (``[[:alpha:]]``) are ASCII.

    Raises:
        re.error: GNU grep rejects the pattern too (its message is :func:`gnu_message`'s).
        UnsupportedPattern: equivalence classes or collating symbols.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsupportedPattern(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    warnings = [] if warnings is None else warnings
    out: list[str] = []  # atoms: a repetition sign applies to the last one (a closed group is one atom)
    repeated: list[bool] = []
    opens: list[int] = []  # where each open group's atoms begin
    i = 0
    at_start = True  # where a repetition sign does not repeat: the start, after "(", "|" or an anchor

    repeats_nothing = False
    closed = 0  # groups closed so far: what a back-reference may name

    def atom(text: str) -> None:
        nonlocal repeats_nothing
        out.append(text)
        repeated.append(False)
        repeats_nothing = False

    def repeat(sign: str, shown: str) -> None:
        nonlocal at_start, repeats_nothing
        if repeats_nothing:  # a repetition of a dropped interval: nothing again, and no warning
            return
        if at_start and not extended:  # a basic expression's leading repetition sign is literal
            atom(re.escape(sign) if len(sign) == 1 else re.escape("{" + sign[1:-1] + "}"))
            at_start = False
            return
        if at_start:
            warnings.append(f"{shown} at start of expression")
            if not (out and out[-1] in _ANCHORS):  # nothing to repeat: GNU drops the sign
                repeats_nothing = shown == "{...}"  # and, after an interval, what follows it unsaid
                return
        # GNU stacks repetitions (a*{2}) and repeats anchors (^*); Python needs a group around them
        if repeated[-1] or out[-1] in _ANCHORS:
            out[-1] = f"(?:{out[-1]})"
        out[-1] += sign
        repeated[-1] = True

    def open_group() -> None:
        nonlocal at_start
        opens.append(len(out))
        atom("(")
        at_start = True

    def close_group() -> None:
        nonlocal at_start, closed
        closed += 1
        begin = opens.pop()
        merged = "".join(out[begin:]) + ")"
        del out[begin:], repeated[begin:]
        atom(merged)
        at_start = False

    while i < len(pattern):
        c = pattern[i]
        if c == "[":
            if i + 1 >= len(pattern):
                raise re.error("Invalid regular expression")
            text, i = _bracket(pattern, i)
            atom(text)
            at_start = False
            continue
        if c == "\\":
            if i + 1 >= len(pattern):
                raise re.error("Trailing backslash")
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}|+?":
                if nxt == "{" and at_start:  # nothing to repeat: a brace
                    atom(re.escape(nxt))
                    at_start = False
                elif nxt == "{":
                    interval = _interval(pattern, i, "\\}")
                    if interval is None:
                        raise re.error("Unmatched \\{")
                    body, i = interval
                    repeat("{" + body + "}", "{...}")
                elif nxt in "+?":
                    repeat(nxt, nxt)
                elif nxt == "(":
                    open_group()
                elif nxt == ")":
                    if not opens:
                        raise re.error("Unmatched ) or \\)")
                    close_group()
                elif nxt == "|":
                    atom("|")
                    at_start = True
                else:  # a "\\}" that closes no interval is a brace
                    atom(re.escape(nxt))
                    at_start = False
                continue
            if nxt in _GNU_ESCAPES:
                atom(_GNU_ESCAPES[nxt])
                # an anchor (\\< \\> \\b \\B \\` \\') leaves a following repetition at the start
                at_start = at_start and nxt in "<>bB`'"
                continue
            elif nxt.isdigit() and nxt != "0":
                if int(nxt) > closed:
                    raise re.error("invalid group reference")
                atom("\\" + nxt)
            else:
                atom(re.escape(nxt))
            at_start = False
            continue
        if c == "*" or (extended and c in "+?"):
            repeat(c, c)
        elif extended and c == "{":
            interval = _interval(pattern, i + 1, "}")
            if interval is None:
                atom(re.escape(c))
                at_start = False
            else:
                body, i = interval
                repeat("{" + body + "}", "{...}")
                continue
        elif extended and c == "(":
            open_group()
        elif extended and c == ")":
            if opens:
                close_group()
            else:
                atom(re.escape(c))
                at_start = False
        elif extended and c == "|":
            atom("|")
            at_start = True
        elif c == "^":
            atom("^" if extended or at_start else re.escape(c))
        elif c == "$":
            rest = pattern[i + 1:]
            if extended or not rest or rest.startswith("\\)") or rest.startswith("\\|"):
                atom("$")
                at_start = at_start and extended
            else:
                atom(re.escape(c))
                at_start = False
        else:
            atom("." if c == "." else re.escape(c))
            at_start = False
        i += 1
    if opens:
        raise re.error("Unmatched ( or \\(")
    return "".join(out)


def gnu_message(message: str) -> str:
    """GNU grep's words for a pattern error Python's parser found instead."""
    if "unterminated character set" in message:
        return "Unmatched [, [^, [:, [., or [="
    if "missing )" in message:
        return "Unmatched ( or \\("
    if "unbalanced parenthesis" in message:
        return "Unmatched ) or \\)"
    if "min repeat greater than max repeat" in message:
        return "Invalid content of \\{\\}"
    if "bad escape (end of pattern)" in message:
        return "Trailing backslash"
    if "invalid group reference" in message:
        return "Invalid back reference"
    if "nothing to repeat" in message or "multiple repeat" in message:
        return "Invalid preceding regular expression"
    return message
