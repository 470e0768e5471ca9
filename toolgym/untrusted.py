"""Reading files toolgym does not control, and showing what they hold on a terminal.

Official benchmark data, results files and ``.git`` are data from anyone: a FIFO would block a
read forever, ``/dev/zero`` never ends, a 10^6-digit number or a 100,000-deep list exhausts the
parser, and an ESC in a task id rewrites the terminal. Every reader of such a file goes through
this module, which imports no other toolgym module so that every layer may use it:

- :func:`open_regular` opens only regular files (``O_NONBLOCK``, then ``fstat``: a FIFO, a
  device, a folder or a symlink to one is refused at once, never waited on), and
  :func:`read_bytes` / :func:`read_text` read at most the caller's limit for that kind of file;
- :func:`load_json` and :func:`read_json_lines` bound nesting depth and the number of lists and
  objects per byte before ``json.loads`` (a linear scan, no recursion), so that the values built
  stay within about 20 times the file's size, and turn every parse failure (Python's integer
  digit limit included) into one :class:`UntrustedFileError` naming the file;
- :func:`python_calls` finds the ``NAME(...)`` calls of a Python source file with a linear scan
  that bounds their nesting (unary, ``not``, ``lambda``, conditional and attribute chains), and
  parses each call alone, so memory follows the largest call, not the file;
- :func:`escape` makes text from such a file safe to print: control characters (C0 with ESC,
  BEL and CR, DEL, C1, the bidi and line-separator marks) become visible escapes.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
from collections.abc import Iterator
from typing import Any, BinaryIO

#: Lists and objects a JSON document may nest.
MAX_JSON_DEPTH = 400
#: At least this many bytes per list, and three times as many per object or dict (``[[],[],...]`` would
#: build 21 bytes of Python objects per byte, ``[{"a":1},...]`` 25); the benchmarks' densest files (BFCL's
#: answers) have 11 or more.
MIN_BYTES_PER_CONTAINER = 8
#: How many lists one object or dict counts for (Python's smallest dict is three times a list's size).
DICT_WEIGHT = 3
#: How deep an expression of a Python source file may nest (brackets and operator chains).
MAX_SOURCE_DEPTH = 100
KIB, MIB = 1024, 1024 * 1024


class UntrustedFileError(ValueError):
    """A file that was refused or could not be read; the message starts with the file's path."""


def open_regular(path: str | os.PathLike, what: str = "file") -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file (a symlink is followed to one).

    Raises:
        UntrustedFileError: ``PATH: ...`` for a file that is missing, unreadable, or not a
            regular file: a FIFO (opened without blocking, then refused), a device, a folder,
            or a file of ``/proc`` or ``/sys``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise UntrustedFileError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UntrustedFileError(f"{path}: not a regular file ({_kind(mode)}); a {what} is a plain file")
        if os.path.realpath(path).startswith(("/proc/", "/sys/")):
            raise UntrustedFileError(f"{path}: a file of the kernel, not a {what}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file (:func:`open_regular`) of at most ``limit`` bytes.

    Raises:
        UntrustedFileError: ``PATH: ...`` as :func:`open_regular`, or for a file larger than ``limit``.
    """
    chunks, size = [], 0
    with open_regular(path, what) as file:
        try:  # in chunks: read(limit + 1) would allocate the whole limit at once
            while size <= limit and (chunk := file.read(min(limit + 1 - size, MIB))):
                chunks.append(chunk)
                size += len(chunk)
        except OSError as error:
            raise UntrustedFileError(f"{path}: cannot read it ({error.strerror or error})") from None
    if size > limit:
        raise UntrustedFileError(f"{path}: larger than {_size(limit)}, the most read for a {what}")
    return b"".join(chunks)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a plain file")


def _size(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit >= MIB and limit % MIB == 0 else f"{limit:,} bytes"


def read_text(path: str | os.PathLike, limit: int, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8.

    Raises:
        UntrustedFileError: as :func:`read_bytes`, or ``PATH: not UTF-8 text (...)``.
    """
    raw = read_bytes(path, limit, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UntrustedFileError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None


# A JSON string, or one bracket: the tokens the depth scan reads (the string's parts cannot overlap, so linear).
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)


def json_shape_problem(text: str, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why the JSON document ``text`` is refused before parsing (:func:`nested_deeper` than
    ``max_depth``, or :func:`too_many_containers`), else None."""
    if nested_deeper(text, max_depth):
        return f"nested deeper than {max_depth} levels"
    return too_many_containers(text)


def nested_deeper(text: str, limit: int) -> bool:
    """Whether lists and objects nest deeper than ``limit`` in a JSON text, read from the text
    (strings left out; linear, no recursion; a text with fewer brackets is not scanned)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def too_many_containers(text: str) -> str | None:
    """Why ``text`` holds too many lists and objects for its size (more than one list per
    :data:`MIN_BYTES_PER_CONTAINER` characters, an object counting :data:`DICT_WEIGHT`; strings
    left out), else None."""
    most = max(len(text) // MIN_BYTES_PER_CONTAINER, 64)
    if text.count("[") + DICT_WEIGHT * text.count("{") <= most:
        return None
    weights = {"[": 1, "{": DICT_WEIGHT}
    containers = sum(weights.get(match.group(), 0) for match in _JSON_TOKEN.finditer(text))
    if containers <= most:
        return None
    return (f"too many lists and objects for {len(text):,} characters (at most one list per "
            f"{MIN_BYTES_PER_CONTAINER}, an object counting {DICT_WEIGHT}, is read)")


def parse_json(text: str, where: str) -> Any:
    """``json.loads(text)`` for a text :func:`json_shape_problem` accepted.

    Raises:
        UntrustedFileError: ``WHERE: not JSON (...)``, also for an integer past Python's digit
            limit or nesting too deep for the stack.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UntrustedFileError(f"{where}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") \
            from None
    except RecursionError:
        raise UntrustedFileError(f"{where}: not JSON (nested too deeply)") from None
    except ValueError as error:  # an integer longer than sys.get_int_max_str_digits()
        raise UntrustedFileError(f"{where}: not JSON ({str(error).split(';')[0]})") from None


def load_json(path: str | os.PathLike, limit: int, what: str = "JSON file", max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The value of a JSON file read with :func:`read_text`, its shape checked first.

    Raises:
        UntrustedFileError: ``PATH: ...`` for each reason of :func:`read_text`,
            :func:`json_shape_problem` and :func:`parse_json`.
    """
    text = read_text(path, limit, what)
    if problem := json_shape_problem(text, max_depth):
        raise UntrustedFileError(f"{path}: {problem}; not a {what}")
    return parse_json(text, str(path))


def read_json_lines(path: str | os.PathLike, limit: int, what: str = "JSON Lines file",
                    max_depth: int = MAX_JSON_DEPTH) -> list[tuple[int, str]]:
    """The lines of a JSON Lines file as ``(line number from 1, text)`` (blank ones too, so that
    a caller may treat the last one apart), read with :func:`read_text`; the whole file's
    :func:`too_many_containers` and each line's :func:`nested_deeper` checked. Each line is then
    read with :func:`parse_json` or ``json.loads``.

    Raises:
        UntrustedFileError: ``PATH: ...``, or ``PATH:LINE: ...`` for a line nested too deeply.
    """
    text = read_text(path, limit, what)
    lines = list(enumerate(text.splitlines(), 1))
    for n, line in lines:
        if nested_deeper(line, max_depth):
            raise UntrustedFileError(f"{path}:{n}: nested deeper than {max_depth} levels; not a {what}")
    if problem := too_many_containers(text):
        raise UntrustedFileError(f"{path}: {problem}; not a {what}")
    return lines


# What the Python scan reads: a comment, a string's opening quote, a name, a bracket, a comma, a
# newline, or one operator character (numbers and spaces are skipped).
_PY_TOKEN = re.compile(r"#[^\n]*|[rRbBuUfF]{0,2}(?:'''|\"\"\"|'|\")|[A-Za-z_]\w*|[()\[\]{},\n]|[-+~*/%@&|^<>=!.:]")
_CHAIN_WORDS = frozenset({"not", "lambda", "if", "else", "and", "or", "in", "is", "await", "yield"})


def python_calls(source: str, names: frozenset[str], where: str, max_call: int,
                 max_depth: int = MAX_SOURCE_DEPTH) -> Iterator[tuple[int, ast.expr]]:
    """The calls ``NAME(...)`` of a Python source file whose ``NAME`` is in ``names``
    (outermost ones only), each parsed alone with ``ast`` and yielded as ``(line, call node)``
    with the file's line numbers (one call's tree at a time). Nothing else of the file is parsed.

    A linear scan first bounds how deep an expression nests, counting brackets and the chains
    that nest without them (operators, ``not``, ``lambda``, conditionals, attributes, calls and
    subscripts) since the last comma, so neither the parser nor a walk of its tree can run out
    of stack or memory; a call longer than ``max_call`` characters is refused, and so is a file
    with more than one bracket per :data:`MIN_BYTES_PER_CONTAINER` characters (the lists and
    dicts its literals build would outgrow it some 20 times; a brace counts :data:`DICT_WEIGHT`).

    Raises:
        UntrustedFileError: ``WHERE:LINE: ...`` for a string or bracket that does not end, an
            expression nested deeper than ``max_depth``, too many brackets, a call too long, or a
            call that is not Python.
    """
    brackets_left = max(len(source) // MIN_BYTES_PER_CONTAINER, 64)
    links = [0]  # per open bracket (and the statement): the chain links since its last comma
    depth = 1  # len(links) + sum(links): a bound on how deep the expression's tree is here
    line, position = 1, 0
    previous = ""  # the kind of the last token: "operand" (a name, string or closing bracket) or ""
    wanted: tuple[int, int] | None = None  # a wanted name just before: (offset, line)
    reading: tuple[int, int, int] | None = None  # the outer call being read: (offset, line, its bracket level)
    while (match := _PY_TOKEN.search(source, position)) is not None:
        token, position = match.group(), match.end()
        after_wanted, wanted = wanted, None
        if token == "\n":
            line += 1
            if len(links) == 1:  # a new statement
                depth -= links[0]
                links[0] = 0
            continue
        if token[0] == "#":
            continue
        if token[-1] in "'\"":
            quote = token[-3:] if token.endswith(("'''", '"""')) else token[-1]
            end = _string_end(source, position, quote)
            if end < 0:
                raise UntrustedFileError(f"{where}:{line}: a string that does not end")
            line += source.count("\n", position, end)
            position, previous = end, "operand"
            continue
        if token[0].isalpha() or token[0] == "_":
            if token not in _CHAIN_WORDS:
                if token in names and reading is None:
                    wanted = (match.start(), line)
                previous = "operand"
                continue
            links[-1] += 1
            depth += 1
            previous = ""
        elif token in "([{":
            brackets_left -= DICT_WEIGHT if token == "{" else 1
            if brackets_left < 0:
                raise UntrustedFileError(f"{where}:{line}: more than one bracket per {MIN_BYTES_PER_CONTAINER} "
                                         f"characters; too many to read")
            if previous == "operand":  # a call or subscript: one level more around what it applies to
                links[-1] += 1
                depth += 1
            if after_wanted is not None and token == "(":
                reading = (*after_wanted, len(links))
            links.append(0)
            depth += 1
            previous = ""
        elif token in ")]}":
            if len(links) > 1:
                depth -= links.pop() + 1
            if reading is not None and len(links) == reading[2]:
                yield _parse_call(source[reading[0]:position], reading[1], where, max_call)
                reading = None
            previous = "operand"
        elif token == ",":
            depth -= links[-1]
            links[-1] = 0
            previous = ""
        else:
            links[-1] += 1
            depth += 1
            previous = ""
        if depth > max_depth:
            raise UntrustedFileError(f"{where}:{line}: an expression nested deeper than {max_depth} levels")
    if len(links) > 1:
        raise UntrustedFileError(f"{where}:{line}: a bracket is never closed (is the file cut short?)")


def _string_end(source: str, position: int, quote: str) -> int:
    """The offset after the closing ``quote`` of a string whose body starts at ``position``, or -1.
    A quote or line end after an odd run of backslashes is escaped; a one-quote string ends at its line."""
    while True:
        found = source.find(quote, position)
        if found < 0:
            return -1
        if len(quote) == 1 and (newline := source.find("\n", position, found)) >= 0:
            if not _escaped(source, newline):
                return -1
            position = newline + 1
            continue
        if not _escaped(source, found):
            return found + len(quote)
        position = found + 1


def _escaped(source: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes."""
    run = 0
    while at - 1 - run >= 0 and source[at - 1 - run] == "\\":
        run += 1
    return run % 2 == 1


def _parse_call(text: str, line: int, where: str, max_call: int) -> tuple[int, ast.expr]:
    if len(text) > max_call:
        raise UntrustedFileError(f"{where}:{line}: a call of {len(text):,} characters, more than the "
                                 f"{max_call:,} read for one")
    try:
        node = ast.parse(text, filename=where, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        raise UntrustedFileError(f"{where}:{line}: not Python source: {error}") from None
    ast.increment_lineno(node, line - 1)
    return line, node


# C0 and C1 controls, DEL, and the marks that reorder or separate lines (bidi overrides, U+2028/9).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def escape(text: Any, keep_newlines: bool = False) -> str:
    """``text`` (``str()`` of anything else) with each control character (C0 including ESC, BEL
    and CR; DEL; C1) as a visible escape (``\\x1b``, ``\\n``), so printing it cannot move the
    cursor, clear the screen or ring the bell. ``keep_newlines`` keeps line feeds as they are."""
    text = text if isinstance(text, str) else str(text)

    def visible(match: re.Match) -> str:
        char = match.group()
        return char if keep_newlines and char == "\n" else repr(char)[1:-1]

    return _CONTROL.sub(visible, text)
