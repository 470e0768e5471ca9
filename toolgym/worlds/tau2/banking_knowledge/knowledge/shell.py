"""A simulated shell over the knowledge base, in place of τ³'s sandboxed bash (``SandboxManager``).

τ³ exports the documents as Markdown files into a fresh folder (``<id>.md`` and ``INDEX.md``, see
:meth:`KnowledgeBase.files`) and runs each ``shell`` command with bash inside Anthropic's sandbox
runtime, after refusing commands that look like escapes (``..``, ``~``, ``$HOME``, absolute paths
after a space). toolgym never starts a process: the command is tokenised as bash reads words
(quotes, backslashes, unquoted globs; a hand-written lexer because ``shlex`` forgets which
characters were quoted, which decides what a glob is), and run by Python versions of the
utilities the prompt names, over the files in memory. Each command line starts afresh in the
knowledge-base folder, as τ³'s does.

What runs, with GNU's output text: ``ls`` (-1 -a -A -l -h -r -S -t), ``cat`` (-n), ``head`` and
``tail`` (-n N, -N, -c N, ``-n +N``), ``grep`` (-i -n -r -R -l -L -c -w -x -v -o -h -H -q -s
-E -F -G -e -m, -A/-B/-C, --include/--exclude), ``find`` (-name -iname -type -maxdepth), ``wc``
(-l -w -c -m), ``sort`` (-r -n -u -f), ``uniq`` (-c -d -u -i), ``sed`` (-n -E -e, ``p d q =
s///``, line, ``$`` and ``/regex/`` addresses and ranges), ``xargs`` (-n), ``echo``, ``pwd``,
``true``, ``false``, ``cd`` (to ``.``; elsewhere it fails as bash's or says moving is not
simulated); joined by ``|``, ``&&``, ``||``, ``;`` and newlines, with ``<``, ``>``, ``>>``,
``2>``, ``2>&1``, ``/dev/null`` and here-documents (``<< 'EOF'``). Anything else (``awk``,
``cut``, loops, variables, command substitution, subshells) is an error that says it is not
simulated (exit status 127).

Differences from a real shell, for what does run: directory listings (``ls``, ``find``,
``grep -r``) are in byte order, where a real one lists ``find``'s and ``grep -r``'s files in the
file system's order; ``\\<`` and ``\\>`` are both read as ``\\b`` (exact where they stand next to
a word character, as in ``\\<fee\\>``); ``ls -l`` shows τ³'s sanitised owner and date
(``kb_user  kb_group``, ``Jan  1 00:00``) and folders as 4096 bytes; POSIX classes
(``[[:alpha:]]``) are ASCII; regular expressions run on RE2 (:mod:`.patterns`): back-references
are refused; ``pwd`` prints ``/knowledge_base``; the stages of a pipeline write stderr in order
(bash's run at once and interleave).

``terminal_use`` is read-only as τ³'s sandbox is: a write fails with ``Read-only file system``.
``terminal_use_write`` keeps what the agent writes (``>``, ``>>``, ``touch``, ``mkdir``, ``rm``,
``sed -i``, ``uniq``'s output operand) in memory for the episode (the world's ``aux``), never on
disk. Work is bounded (:data:`MAX_WORK` characters read, so a command line costs at most that
much), and so is output (:data:`MAX_OUTPUT`).
"""

from __future__ import annotations

import fnmatch
import math
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

import re2

from toolgym.worlds.tau2.banking_knowledge.knowledge.documents import KnowledgeBase
from toolgym.worlds.tau2.banking_knowledge.knowledge.patterns import (
    UnsupportedPattern,
    compile_python,
    gnu_message,
    posix_to_python,
)

MAX_COMMAND_CHARS = 10_000
MAX_WORDS = 2_000
MAX_COMMANDS = 32
#: Characters all the utilities of one command line may read, together (the whole KB is ~3 M).
MAX_WORK = 50_000_000
#: Characters one command line may print.
MAX_OUTPUT = 5_000_000
ROOT = "/knowledge_base"
#: Where a writing shell keeps its files in the state it is given (the world's ``aux``).
STATE_KEY = "knowledge_shell"
NOT_SIMULATED = 127
SUPPORTED = "ls, cat, head, tail, grep, find, wc, sort, uniq, sed, xargs, echo, cd ., pwd, true, false"
_USER, _GROUP, _DATE = "kb_user", "kb_group", "Jan  1 00:00"  # τ³'s sanitised ls -l fields
_DIR_SIZE = 4096
_SINGLE_QUOTED = re.compile(r"'[^']*'")
_DOUBLE_QUOTED = re.compile(r'"[^"]*"')
_ABSOLUTE = re.compile(r"(?:^|[\s;|&])(/[a-zA-Z][^\s;|&]*)")
_OPERATORS = ("&&", "||", ";", "|", "&")


class ShellError(Exception):
    """A failure bash reports on stderr: ``(message, status)``."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.message = message
        self.status = status


class LimitExceeded(Exception):
    """The command line read or printed more than the shell allows."""


def escape_problem(command: str) -> str | None:
    """τ³'s ``SandboxManager._has_escape_pattern``: what blocks ``command``, or None."""
    stripped = _SINGLE_QUOTED.sub('""', command)
    stripped = _DOUBLE_QUOTED.sub('""', stripped)
    if ".." in stripped:
        return ".."
    absolute = _ABSOLUTE.search(stripped)
    if absolute:
        return f"absolute path: {absolute.group(1)}"
    if stripped.strip().startswith("/"):
        return "absolute path at start"
    if "~" in stripped:
        return "~"
    if "$HOME" in stripped or "${HOME}" in stripped:
        return "$HOME"
    return None


# -- words ------------------------------------------------------------------------------------

@dataclass
class Word:
    """A shell word: its text, and which characters came unquoted (for globbing)."""

    text: str = ""
    unquoted: list[bool] = field(default_factory=list)
    started: bool = False
    here_document: bool = False  # the body of a ``<<`` here-document: stdin's text, not a file name

    def add(self, text: str, quoted: bool) -> None:
        self.text += text
        self.unquoted += [not quoted] * len(text)
        self.started = True

    def is_glob(self) -> bool:
        return any(flag and c in "*?[" for c, flag in zip(self.text, self.unquoted))

    def glob_pattern(self) -> str:
        # quoted wildcard characters become one-character sets, which fnmatch reads literally
        return "".join(f"[{c}]" if not flag and c in "*?[" else c for c, flag in zip(self.text, self.unquoted))


@dataclass
class Redirect:
    fd: int  # 0 stdin, 1 stdout, 2 stderr
    target: Word | None  # None with ``to_fd``
    append: bool = False
    to_fd: int | None = None


def tokenize(command: str, warnings: list[str] | None = None) -> list[Word | str]:
    """Bash's words and operators (``|``, ``||``, ``&&``, ``;``, ``&``, redirections as ``<``,
    ``>``, ``>>``, ``2>``, ``2>>``, ``&>``, ``2>&1``, ``>&2``); a newline separates like ``;``."""
    tokens: list[Word | str] = []
    word = Word()
    i, n = 0, len(command)
    pending: list[tuple[Word, str, bool, int]] = []  # here-documents whose bodies follow the line

    def bodies(i: int) -> int:
        """Read the pending here-documents' bodies from ``command[i]`` (a line's start) on."""
        for body, delimiter, strip_tabs, line_number in pending:
            lines = []
            closed = False
            while i < n:
                end = command.find("\n", i)
                line = command[i:] if end < 0 else command[i:end]
                i = n if end < 0 else end + 1
                if strip_tabs:
                    line = line.lstrip("\t")
                if line == delimiter:
                    closed = True
                    break
                lines.append(line + "\n")
            body.add("".join(lines), True)
            if not closed and warnings is not None:
                last = command.count("\n") + (0 if command.endswith("\n") else 1)
                warnings.append(f"bash: line {last}: warning: here-document at line {line_number} delimited by "
                                f"end-of-file (wanted `{delimiter}')\n")
        pending.clear()
        return i

    def finish() -> None:
        nonlocal word
        if word.started:
            tokens.append(word)
        word = Word()

    while i < n:
        c = command[i]
        if c in " \t":
            finish()
            i += 1
        elif c == "\n":
            finish()
            tokens.append(";")
            i = bodies(i + 1)
        elif c == "#" and not word.started:
            end = command.find("\n", i)
            i = n if end < 0 else end
        elif c == "'":
            end = command.find("'", i + 1)
            if end < 0:
                raise ShellError("bash: -c: line 1: unexpected EOF while looking for matching `''", 2)
            word.add(command[i + 1:end], True)
            i = end + 1
        elif c == '"':
            i += 1
            chunk = []
            while i < n and command[i] != '"':
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '$`"\\\n':
                    if command[i + 1] != "\n":
                        chunk.append(command[i + 1])
                    i += 2
                    continue
                if command[i] in "$`":
                    _expansion(command, i)
                chunk.append(command[i])
                i += 1
            if i >= n:
                raise ShellError('bash: -c: line 1: unexpected EOF while looking for matching `"\'', 2)
            word.add("".join(chunk), True)
            i += 1
        elif c == "\\":
            if i + 1 < n and command[i + 1] != "\n":
                word.add(command[i + 1], True)
            i += 2
        elif c in "$`":
            _expansion(command, i)
            word.add(c, False)
            i += 1
        elif c in "()":
            raise ShellError(f"subshells and grouping ({c}) are not simulated; run one command, or a "
                             "pipeline, at a time", NOT_SIMULATED)
        elif c in "|&;<>":
            digits = word.text if word.started and word.text.isdigit() and all(word.unquoted) else None
            if c in "<>" and digits is not None and digits in ("1", "2", "0"):
                word = Word()
                prefix = digits
            else:
                finish()
                prefix = ""
            op = c
            if command.startswith(c * 2, i) and c in "|&><":
                op = c * 2
            elif c == "&" and command.startswith("&>", i):
                op = "&>"
            i += len(op)
            if op in (">", ">>", "<") and command.startswith("&", i) and i + 1 < n and command[i + 1] in "012":
                op += "&" + command[i + 1]
                i += 2
            if op == "<<":
                strip_tabs = command.startswith("-", i)
                i += strip_tabs
                while i < n and command[i] in " \t":
                    i += 1
                start = i
                while i < n and command[i] not in " \t\n;|&<>()":
                    i += 1
                raw = command[start:i]
                delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
                if not delimiter:
                    raise ShellError("bash: -c: line 1: syntax error near unexpected token `newline'", 2)
                if raw == delimiter and any(mark in command[i:] for mark in ("$", "`")):
                    raise ShellError("an unquoted here-document expands $ and `, which is not simulated; "
                                     "quote its delimiter (<< 'EOF')", NOT_SIMULATED)
                body = Word(here_document=True)
                pending.append((body, delimiter, strip_tabs, command.count("\n", 0, i) + 1))
                tokens += ["<", body]
                continue
            tokens.append(prefix + op)
        else:
            word.add(c, False)
            i += 1
    finish()
    if pending:  # bash warns and takes the rest as the body; a one-line command has none
        bodies(n)
    return tokens


def _expansion(command: str, i: int) -> None:
    nxt = command[i + 1] if i + 1 < len(command) else ""
    if command[i] == "`" or nxt == "(" or nxt == "{" or nxt.isalnum() or nxt in "_?$!#*@-":
        raise ShellError("variables and command substitution ($, `) are not simulated", NOT_SIMULATED)


@dataclass
class Command:
    words: list[Word]
    redirects: list[Redirect]


def parse(tokens: list[Word | str]) -> list[tuple[str, list[Command]]]:
    """``[(connector, pipeline)]``: the connector (``""``, ``;``, ``&&``, ``||``) before each pipeline."""
    result: list[tuple[str, list[Command]]] = []
    connector = ""
    pipeline: list[Command] = []
    current = Command([], [])
    i = 0
    count = 0

    def syntax(near: str) -> ShellError:
        return ShellError(f"bash: -c: line 1: syntax error near unexpected token `{near}'", 2)

    while i < len(tokens):
        token = tokens[i]
        if isinstance(token, Word):
            current.words.append(token)
        elif token in ("|", "&&", "||", ";", "&"):
            if token == "&":
                raise ShellError("background jobs (&) are not simulated", NOT_SIMULATED)
            if not current.words and not current.redirects:
                raise syntax(token)
            pipeline.append(current)
            count += 1
            current = Command([], [])
            if token != "|":
                result.append((connector, pipeline))
                connector, pipeline = token, []
        else:
            fd = 2 if token.startswith("2") else 0 if token.startswith(("<", "0")) else 1
            op = token.lstrip("012")
            if "&" in op[1:]:
                current.redirects.append(Redirect(fd, None, to_fd=int(op[-1])))
            else:
                if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                    raise syntax(tokens[i + 1] if i + 1 < len(tokens) else "newline")
                target = tokens[i + 1]
                i += 1
                if op == "&>":
                    current.redirects.append(Redirect(1, target))
                    current.redirects.append(Redirect(2, None, to_fd=1))
                else:
                    current.redirects.append(Redirect(fd, target, append=op == ">>"))
        i += 1
        if count > MAX_COMMANDS:
            raise ShellError(f"more than {MAX_COMMANDS} commands in one line", 1)
    if current.words or current.redirects:
        pipeline.append(current)
    elif pipeline or connector in ("&&", "||", "|"):
        raise syntax(connector or "|")
    if pipeline:
        result.append((connector, pipeline))
    return result


# -- the file system ---------------------------------------------------------------------------

def _normal(path: str) -> str:
    """A path relative to the knowledge-base folder, ``""`` for the folder itself."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return "/".join(parts)


class Files:
    """The folder's files in memory: the exported documents, and over them what the agent wrote.

    What is written lives in ``state`` (the world's ``aux`` for the shell tool) under
    :data:`STATE_KEY`: it starts empty each episode, is undone with a failed call, and a
    read-only shell never touches it.
    """

    def __init__(self, kb: KnowledgeBase, writable: bool, state: dict | None = None):
        self.base = kb.files()
        self.writable = writable
        self.state = {} if state is None else state

    def _store(self, create: bool = False) -> dict | None:
        store = self.state.get(STATE_KEY)
        if store is None and create:
            store = self.state[STATE_KEY] = {"files": {}, "folders": {}}
        return store

    @property
    def written(self) -> dict[str, str | None]:
        """Files written over the exported ones; None: removed."""
        store = self._store()
        return store["files"] if store else {}

    @property
    def folders(self) -> dict[str, bool]:
        store = self._store()
        return store["folders"] if store else {}

    def put(self, key: str, text: str | None) -> None:
        self._store(create=True)["files"][key] = text

    def add_folder(self, key: str) -> None:
        self._store(create=True)["folders"][key] = True

    def drop_folder(self, key: str) -> None:
        self._store(create=True)["folders"].pop(key, None)

    def text(self, path: str) -> str | None:
        key = _normal(path)
        if key in self.written:
            return self.written[key]
        return self.base.get(key)

    def is_dir(self, path: str) -> bool:
        key = _normal(path)
        return key == "" or key in self.folders

    def names(self, folder: str = "") -> list[str]:
        """Entries directly in ``folder``, in byte order."""
        prefix = f"{folder}/" if folder else ""
        names = set()
        for key in [*self.base, *self.written, *self.folders]:
            exists = key in self.folders or self.text(key) is not None
            if exists and key.startswith(prefix) and key != folder:
                names.add(key[len(prefix):].split("/", 1)[0])
        return sorted(names, key=_byte_key)

    def walk(self, folder: str = "") -> list[str]:
        """Every path under ``folder`` (folders before their contents), in byte order."""
        out = []
        for name in self.names(folder):
            path = f"{folder}/{name}" if folder else name
            out.append(path)
            if path in self.folders:
                out += self.walk(path)
        return out

    def write(self, path: str, text: str, append: bool = False) -> None:
        key = _normal(path)
        if not self.writable:
            raise ShellError(f"bash: line 1: {path}: Read-only file system")
        if self.is_dir(key):
            raise ShellError(f"bash: line 1: {path}: Is a directory")
        parent = key.rsplit("/", 1)[0] if "/" in key else ""
        if not self.is_dir(parent):
            raise ShellError(f"bash: line 1: {path}: No such file or directory")
        old = self.text(key) if append else None
        self.put(key, (old or "") + text)


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+,:@%^=-")


def quote(name: str, always: bool = False) -> str:
    """A file name as GNU's messages show it: in single quotes when the shell would need them (or always)."""
    if not always and name and all(c in _PLAIN for c in name):
        return name
    return "'" + name.replace("'", "'\\''") + "'"


def _byte_key(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# -- running ----------------------------------------------------------------------------------

@dataclass
class Result:
    status: int = 0
    out: str = ""
    err: str = ""


class Shell:
    """One episode's shell: :meth:`run` a command line, get ``(status, stdout, stderr)`` as τ³'s
    ``SandboxManager.run_command`` returns them."""

    def __init__(self, kb: KnowledgeBase, allow_writes: bool = False, state: dict | None = None):
        self.kb = kb
        self.files = Files(kb, allow_writes, state)
        #: Characters read by the last command line (its cost; bounded by :data:`MAX_WORK`).
        self.work = 0
        self.utilities: dict[str, Callable[[list[str], str | None], Result]] = {
            "ls": self._ls, "cat": self._cat, "head": self._head, "tail": self._tail, "grep": self._grep,
            "find": self._find, "wc": self._wc, "sort": self._sort, "uniq": self._uniq, "echo": self._echo,
            "pwd": self._pwd, "true": lambda args, stdin: Result(), "false": lambda args, stdin: Result(1),
            "touch": self._touch, "mkdir": self._mkdir, "rm": self._rm, "sed": self._sed, "xargs": self._xargs,
            "cd": self._cd,
        }

    def run(self, command: str) -> tuple[int, str, str]:
        if not isinstance(command, str):
            raise TypeError(f"expected string or bytes-like object, got '{type(command).__name__}'")
        problem = escape_problem(command)
        if problem:
            return 1, "", f"Error: Command blocked - contains '{problem}' which could escape the sandbox"
        if len(command) > MAX_COMMAND_CHARS:
            return 1, "", f"Command failed: the command is longer than {MAX_COMMAND_CHARS} characters"
        self.work = 0
        try:
            warnings: list[str] = []
            tokens = tokenize(command, warnings)
            if sum(isinstance(token, Word) for token in tokens) > MAX_WORDS:
                return 1, "", f"Command failed: more than {MAX_WORDS} words"
            lines = parse(tokens)
        except ShellError as error:
            return error.status, "", error.message + "\n"
        out: list[str] = []
        err: list[str] = []
        status = 0
        try:
            for connector, pipeline in lines:
                if (connector == "&&" and status != 0) or (connector == "||" and status == 0):
                    continue
                status = self._pipeline(pipeline, out, err)
        except LimitExceeded as error:
            return 1, "".join(out)[:MAX_OUTPUT], f"Command failed: {error}"
        return status, "".join(out), "".join(warnings + err)

    def _read(self, text: str) -> str:
        self.work += len(text)
        if self.work > MAX_WORK:
            raise LimitExceeded(f"the command read more than {MAX_WORK} characters")
        return text

    def _pipeline(self, pipeline: list[Command], out: list[str], err: list[str]) -> int:
        stdin: str | None = None
        status = 0
        for position, command in enumerate(pipeline):
            last = position == len(pipeline) - 1
            result = self._command(command, stdin)
            status = result.status
            if result.err:
                err.append(result.err)
            if last:
                out.append(result.out)
                if sum(map(len, out)) > MAX_OUTPUT:
                    raise LimitExceeded(f"the output is longer than {MAX_OUTPUT} characters")
            else:
                stdin = result.out  # counted when the next utility reads it
        return status

    def _expand(self, words: list[Word]) -> list[str]:
        args: list[str] = []
        for word in words:
            if word.is_glob():
                matches = self._glob(word.glob_pattern())
                args += matches if matches else [word.text]
            else:
                args.append(word.text)
        return args

    def _glob(self, pattern: str) -> list[str]:
        folder, _, name = pattern.rpartition("/")
        folder_key = _normal(folder)
        if folder and not self.files.is_dir(folder_key):
            return []
        hidden_ok = name.startswith(".")
        names = [entry for entry in self.files.names(folder_key)
                 if (hidden_ok or not entry.startswith(".")) and fnmatch.fnmatchcase(entry, name)]
        return [f"{folder}/{entry}" if folder else entry for entry in names]

    def _command(self, command: Command, stdin: str | None) -> Result:
        args = self._expand(command.words)
        stdout_to: tuple[str, bool] | None = None
        discard_out = discard_err = err_to_out = False
        for redirect in command.redirects:
            if redirect.to_fd is not None:
                err_to_out = redirect.fd == 2 and redirect.to_fd == 1
                continue
            if redirect.target.here_document:
                stdin = self._read(redirect.target.text)
                continue
            target = self._expand([redirect.target])
            if len(target) != 1:
                return Result(1, "", f"bash: line 1: {redirect.target.text}: ambiguous redirect\n")
            path = target[0]
            if redirect.fd == 0:
                text = self.files.text(path) if path != "/dev/null" else ""
                if text is None:
                    return Result(1, "", f"bash: line 1: {path}: No such file or directory\n")
                stdin = self._read(text)
            elif path == "/dev/null":
                if redirect.fd == 1:
                    discard_out = True
                else:
                    discard_err = True
            elif redirect.fd == 1:
                try:
                    self.files.write(path, "", append=True)  # bash opens (creates) the file first
                except ShellError as error:
                    return Result(1, "", error.message + "\n")
                if not redirect.append:
                    self.files.put(_normal(path), "")
                stdout_to = (path, True)
            else:
                try:
                    self.files.write(path, "", append=True)
                except ShellError as error:
                    return Result(1, "", error.message + "\n")
        if not args:
            return Result()
        name, rest = args[0], args[1:]
        utility = self.utilities.get(name)
        if utility is None:
            return Result(NOT_SIMULATED, "", f"bash: line 1: {name}: not available in this simulated shell "
                                             f"(it runs {SUPPORTED})\n")
        result = self._call(name, rest, stdin)
        if err_to_out:
            result = Result(result.status, result.out + result.err, "")
        if discard_err:
            result.err = ""
        if discard_out:
            result.out = ""
        if stdout_to is not None:
            self.files.write(stdout_to[0], result.out, append=True)
            result.out = ""
        return result

    # -- the utilities --------------------------------------------------------------------------

    def _call(self, name: str, args: list[str], stdin: str | None) -> Result:
        try:
            return self.utilities[name](args, stdin)
        except ShellError as error:
            return Result(error.status, "", error.message + "\n")

    def _inputs(self, name: str, operands: list[str], stdin: str | None, missing: str,
                ) -> tuple[list[tuple[str, str]], list[str]]:
        """``[(operand, text)]`` of the readable operands (stdin for none or ``-``), and the error lines."""
        if not operands:
            operands = ["-"]
        texts, errors = [], []
        for operand in operands:
            if operand == "-":
                texts.append((operand, self._read(stdin or "")))
            elif self.files.is_dir(operand):
                errors.append(f"{name}: {quote(operand)}: Is a directory\n" if name != "head" and name != "tail"
                              else f"{name}: error reading '{operand}': Is a directory\n")
            else:
                text = self.files.text(operand) if operand != "/dev/null" else ""
                if text is None:
                    errors.append(missing.format(name=name, operand=quote(operand), always=quote(operand, always=True)))
                else:
                    texts.append((operand, self._read(text)))
        return texts, errors

    def _ls(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("ls", args, "1aAlhrStd", "", {"all": "a", "almost-all": "A",
                                                                "human-readable": "h", "reverse": "r"})
        flags = {flag for flag, _ in opts}
        long = "l" in flags
        operands = operands or ["."]
        errors, files, folders = [], [], []
        for operand in operands:
            if self.files.is_dir(operand) and "d" not in flags:
                folders.append(operand)
            elif self.files.text(operand) is not None or self.files.is_dir(operand):
                files.append(operand)
            else:
                errors.append(f"ls: cannot access {quote(operand, always=True)}: No such file or directory\n")
        out = []
        if files:
            out.append(self._ls_lines(files, flags, long, with_total=False))
        for position, folder in enumerate(sorted(folders, key=_byte_key)):
            names = [n for n in self.files.names(_normal(folder)) if "a" in flags or "A" in flags
                     or not n.startswith(".")]
            paths = [f"{_normal(folder)}/{n}" if _normal(folder) else n for n in names]
            listing = self._ls_lines(list(zip(names, paths)), flags, long, with_total=True,
                                     dots="a" in flags)
            if len(folders) + len(files) > 1 or errors:
                listing = f"{folder}:\n" + listing
            if out or position:
                listing = "\n" + listing
            out.append(listing)
        return Result(2 if errors else 0, "".join(out), "".join(errors))

    def _size(self, path: str) -> int:
        text = self.files.text(path)
        return _DIR_SIZE if text is None else len(text.encode("utf-8", "surrogatepass"))

    def _ls_lines(self, entries, flags: set[str], long: bool, with_total: bool, dots: bool = False) -> str:
        items = [(e, e) if isinstance(e, str) else e for e in entries]  # (shown name, path)
        items.sort(key=lambda item: _byte_key(item[0]))
        if "S" in flags:
            items.sort(key=lambda item: -self._size(item[1]))
        elif "t" in flags:
            order = {name: rank for rank, name in enumerate(self.files.base)}
            items.sort(key=lambda item: -order.get(item[1], len(order)))
        if dots:
            items = [(".", ""), ("..", "..")] + items
        if "r" in flags:
            items.reverse()
        if not long:
            return "".join(f"{name}\n" for name, _ in items)
        rows = []
        for name, path in items:
            folder = path == ".." or self.files.is_dir(path)
            links = (3 if path == ".." else 2 + sum(1 for n in self.files.names(_normal(path))
                                                    if self.files.is_dir(f"{path}/{n}"))) if folder else 1
            rows.append(("drwxr-xr-x" if folder else "-rw-r--r--", links, self._size(path) if not folder
                         else _DIR_SIZE, name))
        width = max((len(str(links)) for _, links, _, _ in rows), default=1)
        human = "h" in flags
        lines = [f"{mode} {links:>{width}} {_USER}  {_GROUP}  {_human(size) if human else size} {_DATE} {name}\n"
                 for mode, links, size, name in rows]
        if with_total:
            blocks = sum(4 * math.ceil(size / 4096) for _, _, size, _ in rows)
            lines.insert(0, f"total {_human(blocks * 1024) if human else blocks}\n")
        return "".join(lines)

    def _cat(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("cat", args, "n", "", {"number": "n"})
        texts, errors = self._inputs("cat", operands, stdin, "{name}: {operand}: No such file or directory\n")
        text = "".join(t for _, t in texts)
        if opts:
            lines = text.splitlines(keepends=True)
            text = "".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1))
        return Result(1 if errors else 0, text, "".join(errors))

    def _head_tail(self, name: str, args: list[str], stdin: str | None) -> Result:
        if name == "tail" and args and re.fullmatch(r"-[0-9]+", args[0]) \
                and sum(not a.startswith("-") or a == "-" for a in args[1:]) > 1:
            raise ShellError(f"tail: option used in invalid context -- {args[0][1:2]}")
        # -NUM is -n NUM, unless it is the value of -n or -c
        args = [f"-n{a[1:]}" if re.fullmatch(r"-[0-9]+", a) and (i == 0 or args[i - 1] not in ("-n", "-c"))
                else a for i, a in enumerate(args)]
        opts, operands = getopt(name, args, "qv", "nc", {"lines": "n", "bytes": "c", "quiet": "q"})
        count, unit, from_start = 10, "n", False
        for flag, value in opts:
            if flag in "nc":
                unit = flag
                from_start = value.startswith("+") and name == "tail"
                number = value.lstrip("+-")
                if not number.isdigit():
                    what = "lines" if flag == "n" else "bytes"
                    raise ShellError(f"{name}: invalid number of {what}: '{value}'")
                count = int(number)
        all_but = any(flag in "nc" and value.startswith("-") for flag, value in opts) and name == "head"
        texts, errors = self._inputs(name, operands, stdin,
                                     "{name}: cannot open {always} for reading: No such file or directory\n")
        headers = (len(operands) > 1 and "q" not in {f for f, _ in opts}) or "v" in {f for f, _ in opts}
        out = []
        for position, (operand, text) in enumerate(texts):
            if headers:
                shown = "standard input" if operand == "-" else operand
                out.append(("\n" if position else "") + f"==> {shown} <==\n")
            if unit == "c":
                data = text.encode("utf-8", "surrogatepass")
                if name == "head":
                    part = data[:-count] if all_but else data[:count]
                else:
                    part = data[count - 1:] if from_start else data[-count:] if count else b""
                out.append(part.decode("utf-8", "replace"))
                continue
            lines = text.splitlines(keepends=True)
            if name == "head":
                part = (lines[:-count] if count else lines) if all_but else lines[:count]
            else:
                part = lines[max(count - 1, 0):] if from_start else (lines[-count:] if count else [])
            out.append("".join(part))
        return Result(1 if errors else 0, "".join(out), "".join(errors))

    def _head(self, args: list[str], stdin: str | None) -> Result:
        return self._head_tail("head", args, stdin)

    def _tail(self, args: list[str], stdin: str | None) -> Result:
        return self._head_tail("tail", args, stdin)

    def _wc(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("wc", args, "lwcm", "", {"lines": "l", "words": "w", "bytes": "c", "chars": "m"})
        chosen = {flag for flag, _ in opts} or {"l", "w", "c"}
        texts, errors = self._inputs("wc", operands, stdin, "{name}: {operand}: No such file or directory\n")
        rows = []
        for operand, text in texts:
            counts = {"l": text.count("\n"), "w": len(text.split()), "m": len(text),
                      "c": len(text.encode("utf-8", "surrogatepass"))}
            rows.append(([counts[k] for k in "lwmc" if k in chosen], "" if operand == "-" and not operands
                         else operand))
        if len(operands) > 1:
            rows.append(([sum(r[0][i] for r in rows) for i in range(len(chosen))], "total"))
        # GNU's column width: the digits of the files' total size (7 at least when reading a pipe),
        # 1 for a single count of a single input
        if len(chosen) == 1 and len(operands or ["-"]) == 1:
            width = 1
        else:
            total = sum(len(text.encode("utf-8", "surrogatepass")) for operand, text in texts if operand != "-")
            width = max(len(str(total)), 7 if any(operand == "-" for operand, _ in texts) else 1)
        out = "".join(" ".join(f"{n:>{width}}" for n in numbers) + (f" {label}" if label else "") + "\n"
                      for numbers, label in rows)
        return Result(1 if errors else 0, out, "".join(errors))

    def _sort(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("sort", args, "rnuf", "", {"reverse": "r", "numeric-sort": "n", "unique": "u",
                                                           "ignore-case": "f"}, status=2)
        flags = {flag for flag, _ in opts}
        texts, errors = self._inputs("sort", operands, stdin, "{name}: cannot read: {operand}: No such file or "
                                                              "directory\n")
        if errors:
            return Result(2, "", errors[0])
        lines = [line for _, text in texts for line in text.splitlines()]

        def key(line: str):
            # the key, then (unless -u) GNU's last resort: the whole line's bytes
            main = _number(line) if "n" in flags else _byte_key(line.upper() if "f" in flags else line)
            return main if "u" in flags else (main, _byte_key(line))

        lines.sort(key=key, reverse="r" in flags)
        if "u" in flags:
            unique, seen = [], object()
            for line in lines:
                k = key(line)
                if k != seen:
                    unique.append(line)
                    seen = k
            lines = unique
        return Result(0, "".join(f"{line}\n" for line in lines), "")

    def _uniq(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("uniq", args, "cdui", "", {"count": "c", "repeated": "d", "unique": "u",
                                                           "ignore-case": "i"})
        flags = {flag for flag, _ in opts}
        if len(operands) > 2:
            raise ShellError(f"uniq: extra operand \u2018{operands[2]}\u2019\nTry 'uniq --help' for more information.")
        texts, errors = self._inputs("uniq", operands[:1], stdin, "{name}: {operand}: No such file or directory\n")
        if errors:
            return Result(1, "", errors[0])
        groups: list[list[str]] = []
        for line in (texts[0][1] if texts else "").splitlines():
            same = groups and ((groups[-1][0].lower() == line.lower()) if "i" in flags else groups[-1][0] == line)
            if same:
                groups[-1].append(line)
            else:
                groups.append([line])
        out = []
        for group in groups:
            if ("d" in flags and len(group) < 2) or ("u" in flags and len(group) > 1):
                continue
            out.append(f"{len(group):>7} {group[0]}\n" if "c" in flags else f"{group[0]}\n")
        if len(operands) == 2 and operands[1] != "-":  # uniq's second operand is where it writes
            try:
                self.files.write(operands[1], "".join(out))
            except ShellError as error:
                return Result(1, "", error.message.replace("bash: line 1: ", "uniq: ") + "\n")
            return Result()
        return Result(0, "".join(out), "")

    def _echo(self, args: list[str], stdin: str | None) -> Result:
        newline = True
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            newline = newline and "n" not in args[0]
            args = args[1:]
        return Result(0, " ".join(args) + ("\n" if newline else ""), "")

    def _cd(self, args: list[str], stdin: str | None) -> Result:
        """``cd .`` stays; a folder that is not there fails as bash's does; moving is not simulated."""
        if len(args) > 1:
            raise ShellError("bash: line 1: cd: too many arguments")
        target = args[0] if args else ""
        if target and _normal(target) == "":
            return Result()
        if target and not self.files.is_dir(target):
            reason = "Not a directory" if self.files.text(target) is not None else "No such file or directory"
            raise ShellError(f"bash: line 1: cd: {target}: {reason}")
        raise ShellError("cd: changing folder is not simulated; the documents are all in the current folder "
                         "(name a created folder in the paths instead)", NOT_SIMULATED)

    def _pwd(self, args: list[str], stdin: str | None) -> Result:
        return Result(0, ROOT + "\n", "")

    def _touch(self, args: list[str], stdin: str | None) -> Result:
        _, operands = getopt("touch", args, "", "")
        errors = []
        for operand in operands:
            if self.files.text(operand) is None and not self.files.is_dir(operand):
                try:
                    self.files.write(operand, "")
                except ShellError as error:
                    errors.append(error.message.replace("bash: line 1: ", "touch: cannot touch '", 1)
                                  .replace(f"{operand}: ", f"{operand}': ", 1) + "\n")
        return Result(1 if errors else 0, "", "".join(errors))

    def _mkdir(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("mkdir", args, "p", "")
        errors = []
        for operand in operands:
            key = _normal(operand)
            if not self.files.writable:
                errors.append(f"mkdir: cannot create directory '{operand}': Read-only file system\n")
            elif self.files.is_dir(key) or self.files.text(key) is not None:
                if not opts:
                    errors.append(f"mkdir: cannot create directory '{operand}': File exists\n")
            else:
                parts = key.split("/")
                for depth in range(1, len(parts) + 1):
                    folder = "/".join(parts[:depth])
                    if depth < len(parts) and not self.files.is_dir(folder) and not opts:
                        errors.append(f"mkdir: cannot create directory '{operand}': No such file or directory\n")
                        break
                    self.files.add_folder(folder)
        return Result(1 if errors else 0, "", "".join(errors))

    def _rm(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("rm", args, "rfRv", "")
        flags = {flag for flag, _ in opts}
        errors = []
        for operand in operands:
            key = _normal(operand)
            exists = self.files.text(key) is not None
            if not exists and not self.files.is_dir(key):
                if "f" not in flags:
                    errors.append(f"rm: cannot remove '{operand}': No such file or directory\n")
            elif not self.files.writable:
                errors.append(f"rm: cannot remove '{operand}': Read-only file system\n")
            elif not exists and not flags & {"r", "R"}:
                errors.append(f"rm: cannot remove '{operand}': Is a directory\n")
            elif exists:
                self.files.put(key, None)
            else:
                for path in self.files.walk(key):
                    if path in self.files.folders:
                        self.files.drop_folder(path)
                    else:
                        self.files.put(path, None)
                self.files.drop_folder(key)
        return Result(1 if errors else 0, "", "".join(errors))

    def _find(self, args: list[str], stdin: str | None) -> Result:
        starts = []
        while args and (not args[0].startswith("-") or args[0] == "-"):
            starts.append(args.pop(0))
        starts = starts or ["."]
        tests: list[Callable[[str, str, bool, int], bool]] = []
        max_depth, min_depth = None, 0
        while args:
            predicate = args.pop(0)
            if predicate in ("-print", "-print0"):
                continue
            if predicate not in ("-name", "-iname", "-type", "-maxdepth", "-mindepth"):
                if predicate in ("-o", "-or", "!", "-not", "(", ")", "-a", "-and"):
                    raise ShellError(f"find: the operator {predicate} is not simulated; use -name, -iname, "
                                     "-type and -maxdepth", NOT_SIMULATED)
                raise ShellError(f"find: unknown predicate `{predicate}'")
            if not args:
                raise ShellError(f"find: missing argument to `{predicate}'")
            value = args.pop(0)
            if predicate == "-name":
                tests.append(lambda name, path, folder, depth, v=value: fnmatch.fnmatchcase(name, v))
            elif predicate == "-iname":
                tests.append(lambda name, path, folder, depth, v=value.lower(): fnmatch.fnmatchcase(name.lower(), v))
            elif predicate == "-type":
                if value not in ("f", "d"):
                    raise ShellError(f"find: Unknown argument to -type: {value}")
                tests.append(lambda name, path, folder, depth, v=value: folder == (v == "d"))
            else:
                if not value.isdigit():
                    raise ShellError(f"find: Expected a positive decimal integer argument to {predicate}, but "
                                     f"got `{value}'")
                if predicate == "-maxdepth":
                    max_depth = int(value)
                else:
                    min_depth = int(value)
        out, errors = [], []
        for start in starts:
            key = _normal(start)
            if not self.files.is_dir(key) and self.files.text(key) is None:
                errors.append(f"find: \u2018{start}\u2019: No such file or directory\n")
                continue
            entries = [(start, start.rstrip("/").rsplit("/", 1)[-1] or start, self.files.is_dir(key), 0)]
            if self.files.is_dir(key):
                prefix = start if start.endswith("/") else start + "/"
                for path in self.files.walk(key):
                    relative = path[len(key) + 1:] if key else path
                    entries.append((prefix + relative, path.rsplit("/", 1)[-1], path in self.files.folders,
                                    relative.count("/") + 1))
            for shown, name, folder, depth in entries:
                if (max_depth is None or depth <= max_depth) and depth >= min_depth \
                        and all(test(name, shown, folder, depth) for test in tests):
                    out.append(shown + "\n")
        return Result(1 if errors else 0, "".join(out), "".join(errors))

    def _grep(self, args: list[str], stdin: str | None) -> Result:
        return Grep(self).run(args, stdin)

    def _xargs(self, args: list[str], stdin: str | None) -> Result:
        """``xargs [-n N] [command [args]]``: the command once per N words of stdin (all at once by default)."""
        size = None
        while args and args[0].startswith("-") and args[0] != "-":  # xargs' options come before the command
            flag = args.pop(0)
            if flag == "-n" and args:
                value = args.pop(0)
            elif flag.startswith("-n"):
                value = flag[2:]
            else:
                raise ShellError(f"xargs: invalid option -- '{flag[1:2]}'\nTry 'xargs --help' for more information.")
            if not value.isdigit() or int(value) < 1:
                raise ShellError(f"xargs: invalid number \"{value}\" for -n option")
            size = int(value)
        try:
            words = shlex.split(self._read(stdin or ""))
        except ValueError as error:
            raise ShellError(f"xargs: {error}") from None
        command = args or ["echo"]
        if command[0] == "xargs":  # one level: a chain of xargs would nest without bound
            raise ShellError("xargs: running xargs from xargs is not simulated", NOT_SIMULATED)
        if command[0] not in self.utilities:
            return Result(127, "", f"xargs: {command[0]}: not available in this simulated shell (it runs "
                                   f"{SUPPORTED})\n")
        # GNU xargs runs the command once even on empty input
        batches = [words[i:i + size] for i in range(0, len(words), size)] if size and words else [words]
        out, err, status = [], [], 0
        for batch in batches:
            result = self._call(command[0], command[1:] + batch, None)
            out.append(result.out)
            err.append(result.err)
            if result.status:
                status = 123
        return Result(status, "".join(out), "".join(err))

    def _sed(self, args: list[str], stdin: str | None) -> Result:
        return Sed(self).run(args, stdin)


def _number(line: str) -> float:
    """sort -n's key: the leading number (blanks, a minus sign, digits, one decimal point), else 0."""
    text = line.lstrip(" \t")
    end = 1 if text.startswith("-") else 0
    while end < len(text) and text[end].isascii() and text[end].isdigit():
        end += 1
    if end < len(text) and text[end] == ".":
        end += 1
        while end < len(text) and text[end].isascii() and text[end].isdigit():
            end += 1
    digits = text[:end]
    return float(digits) if any(c.isdigit() for c in digits) else 0.0


def _human(size: int) -> str:
    """GNU's ``-h``: powers of 1024, rounded up, one decimal below 10."""
    if size < 1024:
        return str(size)
    value = float(size)
    for suffix in "KMGTPE":
        value /= 1024
        if value < 1024 or suffix == "E":
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{suffix}"
            return f"{math.ceil(value)}{suffix}"
    return str(size)  # pragma: no cover


def getopt(name: str, args: list[str], flags: str, valued: str, longs: dict[str, str] | None = None,
           status: int = 1) -> tuple[list[tuple[str, str]], list[str]]:
    """GNU-style options (bundled, permuted, ``--``, ``--long[=value]``): ``([(flag, value)], operands)``."""
    longs = longs or {}
    opts: list[tuple[str, str]] = []
    operands: list[str] = []
    hint = f"Try '{name} --help' for more information.\n"
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands += args[i:]
            break
        if arg.startswith("--"):
            key, eq, value = arg[2:].partition("=")
            matches = [long for long in longs if long.startswith(key)]
            if key in longs:
                matches = [key]
            if len(matches) != 1:
                raise ShellError(f"{name}: unrecognized option '{arg}'\n{hint}".rstrip("\n"), status)
            flag = longs[matches[0]]
            if flag in valued and not eq:
                if i >= len(args):
                    raise ShellError(f"{name}: option '--{matches[0]}' requires an argument\n{hint}".rstrip("\n"),
                                     status)
                value = args[i]
                i += 1
            opts.append((flag, value))
        elif arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                flag = arg[j]
                if flag in valued:
                    value = arg[j + 1:]
                    if not value:
                        if i >= len(args):
                            raise ShellError(f"{name}: option requires an argument -- '{flag}'\n{hint}"
                                             .rstrip("\n"), status)
                        value = args[i]
                        i += 1
                    opts.append((flag, value))
                    break
                if flag not in flags:
                    raise ShellError(f"{name}: invalid option -- '{flag}'\n{hint}".rstrip("\n"), status)
                opts.append((flag, ""))
                j += 1
        else:
            operands.append(arg)
    return opts, operands


_GREP_LONGS = {
    "ignore-case": "i", "line-number": "n", "recursive": "r", "dereference-recursive": "R",
    "files-with-matches": "l", "files-without-match": "L", "count": "c", "word-regexp": "w",
    "line-regexp": "x", "invert-match": "v", "only-matching": "o", "no-filename": "h", "with-filename": "H",
    "quiet": "q", "silent": "q", "no-messages": "s", "extended-regexp": "E", "fixed-strings": "F",
    "basic-regexp": "G", "regexp": "e", "max-count": "m", "after-context": "A", "before-context": "B",
    "context": "C", "include": "include", "exclude": "exclude", "color": "color", "colour": "color",
    "text": "a", "binary-files": "binary-files",
}
_GREP_USAGE = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."


class Grep:
    """GNU grep over the shell's files."""

    def __init__(self, shell: Shell):
        self.shell = shell
        self.warnings: list[str] = []  # GNU's about the pattern, printed before anything else

    def _warned(self, text: str) -> str:
        return "".join(f"grep: warning: {warning}\n" for warning in self.warnings) + text

    def run(self, args: list[str], stdin: str | None) -> Result:
        numbered = []
        for arg in args:  # -NUM is -C NUM
            numbered += ["-C", arg[1:]] if re.fullmatch(r"-[0-9]+", arg) else [arg]
        try:
            opts, operands = getopt("grep", numbered, "inrRlLcwxvohHqsEFGaIyU", "eABCm", _GREP_LONGS, status=2)
        except ShellError as error:
            message = error.message.split("\n")[0]
            raise ShellError(f"{message}\n{_GREP_USAGE}", 2) from None
        flags = {flag for flag, _ in opts}
        patterns = [value for flag, value in opts if flag == "e"]
        if not patterns:
            if not operands:
                raise ShellError(_GREP_USAGE, 2)
            patterns = [operands.pop(0)]
        values = {flag: value for flag, value in opts}
        numbers = {}
        for flag in "ABCm":
            if flag in values:
                if not values[flag].isdigit():
                    what = "context length" if flag != "m" else "max count"
                    raise ShellError(f"grep: {values[flag]}: invalid {what} argument", 2)
                numbers[flag] = int(values[flag])
        after = numbers.get("A", numbers.get("C", 0))
        before = numbers.get("B", numbers.get("C", 0))
        max_count = numbers.get("m")
        regex = self._compile(patterns, flags)
        includes = [value for flag, value in opts if flag == "include"]
        excludes = [value for flag, value in opts if flag == "exclude"]
        recursive = bool(flags & {"r", "R"})

        # what to read: (shown name, text or None for a missing file)
        sources: list[tuple[str, str | None]] = []
        errors: list[str] = []
        show_names = len(operands) > 1
        if not operands and recursive:
            operands, implicit = ["."], True
        else:
            implicit = False
        files = self.shell.files
        for operand in operands or ["-"]:
            if operand == "-":
                sources.append(("(standard input)", stdin or ""))
            elif files.is_dir(operand):
                if not recursive:
                    errors.append(f"grep: {quote(operand)}: Is a directory\n")
                    continue
                show_names = True
                key = _normal(operand)
                prefix = "" if implicit else (operand if operand.endswith("/") else operand + "/")
                for path in files.walk(key):
                    if path in files.folders:
                        continue
                    base = path.rsplit("/", 1)[-1]
                    if includes and not any(fnmatch.fnmatchcase(base, g) for g in includes):
                        continue
                    if any(fnmatch.fnmatchcase(base, g) for g in excludes):
                        continue
                    relative = path[len(key) + 1:] if key else path
                    sources.append((prefix + relative, files.text(path)))
            else:
                text = files.text(operand) if operand != "/dev/null" else ""
                if text is None:
                    errors.append(f"grep: {quote(operand)}: No such file or directory\n")
                    continue
                sources.append((operand, text))
        if "H" in flags:
            show_names = True
        if "h" in flags:
            show_names = False

        out: list[str] = []
        selected_any = False
        last_printed: int | None = None  # for "--" between context groups, across files
        printed_any = False
        for shown, text in sources:
            text = self.shell._read(text or "")
            lines = text.split("\n")
            if text.endswith("\n") or text == "":
                lines.pop()
            invert = "v" in flags
            selected = []
            for number, line in enumerate(lines):
                if (regex.search(line) is not None) != invert:
                    selected.append(number)
                    if max_count is not None and len(selected) >= max_count:
                        break
            if selected:
                selected_any = True
            if "q" in flags:
                if selected_any:
                    return Result(0, "", self._warned(""))
                continue
            if "l" in flags or "L" in flags:
                if bool(selected) == ("l" in flags):
                    out.append(shown + "\n")
                continue
            if "c" in flags:
                out.append((f"{shown}:" if show_names else "") + f"{len(selected)}\n")
                continue
            prefix = f"{shown}" if show_names else ""

            def emit(number: int, separator: str, content: str) -> None:
                head = (prefix + separator if show_names else "") + (f"{number + 1}{separator}" if "n" in flags
                                                                      else "")
                out.append(head + content + "\n")

            if "o" in flags:
                if invert:
                    continue
                for number in selected:
                    for match in regex.finditer(lines[number]):
                        if match.end() > match.start():
                            emit(number, ":", match.group(0))
                continue
            shown_lines: dict[int, str] = {}
            for number in selected:
                for other in range(max(0, number - before), min(len(lines), number + after + 1)):
                    shown_lines.setdefault(other, "-")
                shown_lines[number] = ":"
            last_printed = None
            for number in sorted(shown_lines):
                if (before or after) and ((last_printed is None and printed_any)
                                          or (last_printed is not None and number > last_printed + 1)):
                    out.append("--\n")
                emit(number, shown_lines[number], lines[number])
                last_printed = number
                printed_any = True
            if sum(map(len, out)) > MAX_OUTPUT:
                raise LimitExceeded(f"the output is longer than {MAX_OUTPUT} characters")
        status = 0 if selected_any else 1  # -L too, since GNU grep 3.5
        if errors:
            status = 2
        return Result(status, "".join(out), self._warned("" if "s" in flags else "".join(errors)))

    def _compile(self, patterns: list[str], flags: set[str]):
        pieces = []
        for text in patterns:
            for pattern in text.split("\n"):
                if "F" in flags:
                    pieces.append(re.escape(pattern))
                else:
                    try:
                        pieces.append(posix_to_python(pattern, extended="E" in flags, warnings=self.warnings))
                    except re.error as error:  # GNU then says only what is wrong, no warnings
                        raise ShellError(f"grep: {gnu_message(str(error))}", 2) from None
                    except UnsupportedPattern as error:
                        raise ShellError(f"grep: {error}", 2) from None
        body = "|".join(f"(?:{piece})" for piece in pieces)
        if "x" in flags:
            body = f"^(?:{body})$"
        elif "w" in flags:
            body = rf"(?:^|\W)(?:{body})(?:\W|$)"
        try:
            return compile_python(body, re.IGNORECASE if flags & {"i", "y"} else 0)
        except re.error as error:
            raise ShellError(f"grep: {gnu_message(str(error))}", 2) from None
        except UnsupportedPattern as error:
            raise ShellError(f"grep: {error}", 2) from None


@dataclass
class _SedCommand:
    start: int | str | re2._Regexp | None  # a line number, "$", a regex, or None (every line)
    end: int | str | re2._Regexp | None
    negate: bool
    name: str  # p d q = s
    regex: re2._Regexp | None = None
    replacement: str = ""
    every: bool = False
    print_after: bool = False


class Sed:
    """GNU sed's common subset: ``-n``, ``-E``/``-r``, ``-e``, ``-i`` (a writing shell only), and
    scripts of ``[address[,address]][!]`` ``p``, ``d``, ``q``, ``=`` or ``s/regex/replacement/[gpi]``,
    addresses being line numbers, ``$`` or ``/regex/``."""

    def __init__(self, shell: Shell):
        self.shell = shell

    def run(self, args: list[str], stdin: str | None) -> Result:
        opts, operands = getopt("sed", args, "nErsi", "e", {"quiet": "n", "silent": "n", "regexp-extended": "E",
                                                             "expression": "e", "in-place": "i"})
        flags = {flag for flag, _ in opts}
        scripts = [value for flag, value in opts if flag == "e"]
        if not scripts:
            if not operands:
                raise ShellError("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...")
            scripts = [operands.pop(0)]
        extended = bool(flags & {"E", "r"})
        commands = [self._parse(part.strip(), extended) for script in scripts
                    for part in _split_script(script) if part.strip()]
        if "i" in flags:
            if not operands:
                raise ShellError("sed: no input files", 1)
            errors = []
            for operand in operands:
                text = self.shell.files.text(operand)
                if text is None:
                    errors.append(f"sed: can't read {operand}: No such file or directory\n")
                    continue
                if not self.shell.files.writable:
                    errors.append(f"sed: couldn't open temporary file {_parent(operand)}sedAbCdEf: "
                                  "Read-only file system\n")
                    continue
                self.shell.files.put(_normal(operand), self._apply(commands, [self.shell._read(text)], "n" in flags)[0])
            return Result(4 if errors and not self.shell.files.writable else 2 if errors else 0, "", "".join(errors))
        sources: list[tuple[str, str | None]] = []
        for operand in operands or ["-"]:
            text = (stdin or "") if operand == "-" else self.shell.files.text(operand)
            sources.append((operand, None if text is None else self.shell._read(text)))
        output, processed = self._apply(commands, [text for _, text in sources if text is not None], "n" in flags)
        # GNU sed opens a file when it needs its first line (reading one line ahead), so a missing file
        # after a q is never reported
        errors, lines_before = [], 0
        for operand, text in sources:
            if text is None:
                if processed >= lines_before:
                    errors.append(f"sed: can't read {quote(operand)}: No such file or directory\n")
            else:
                lines_before += len(text.splitlines())
        return Result(2 if errors else 0, output, "".join(errors))

    def _parse(self, text: str, extended: bool) -> _SedCommand:
        i = 0
        start = end = None
        start, i = self._address(text, i, extended)
        if start is not None and text.startswith(",", i):
            end, i = self._address(text, i + 1, extended)
            if end is None:
                raise ShellError("sed: -e expression #1, char %d: unexpected `,'" % (i + 1))
        while text.startswith(" ", i):
            i += 1
        negate = text.startswith("!", i)
        i += negate
        name = text[i:i + 1]
        if name in ("p", "d", "q", "="):
            if text[i + 1:].strip():
                raise ShellError(f"sed: -e expression #1, char {i + 2}: extra characters after command")
            return _SedCommand(start, end, negate, name)
        if name == "s" and len(text) > i + 1:
            delimiter = text[i + 1]
            parts, j = _delimited(text, i + 2, delimiter, 2)
            if parts is None:
                raise ShellError(f"sed: -e expression #1, char {len(text)}: unterminated `s' command")
            pattern, replacement = parts
            options = text[j:]
            if any(c not in "gpiI" for c in options):
                raise ShellError(f"sed: -e expression #1, char {len(text)}: unknown option to `s'")
            return _SedCommand(start, end, negate, "s", self._regex(pattern, extended, "i" in options.lower()),
                               replacement, every="g" in options, print_after="p" in options)
        if not name:
            raise ShellError(f"sed: -e expression #1, char {i}: missing command")
        raise ShellError(f"sed: the command {name!r} is not simulated (it runs p, d, q, = and s)", NOT_SIMULATED)

    def _address(self, text: str, i: int, extended: bool):
        if i < len(text) and text[i].isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            return int(text[i:j]), j
        if text.startswith("$", i):
            return "$", i + 1
        if text.startswith("/", i):
            parts, j = _delimited(text, i + 1, "/", 1)
            if parts is None:
                raise ShellError(f"sed: -e expression #1, char {len(text)}: unterminated address regex")
            return self._regex(parts[0], extended, False), j
        return None, i

    @staticmethod
    def _regex(pattern: str, extended: bool, ignore_case: bool) -> re2._Regexp:
        try:
            return compile_python(posix_to_python(pattern, extended), re.IGNORECASE if ignore_case else 0)
        except (re.error, UnsupportedPattern) as error:
            raise ShellError(f"sed: -e expression #1: {gnu_message(str(error))}") from None

    def _apply(self, commands: list[_SedCommand], texts: list[str], quiet: bool) -> tuple[str, int]:
        """The output, and the number of the last line read (where a ``q`` stopped, else the last)."""
        # one stream of lines; a file's end ends its last line, and only the last file's may lack a newline
        lines: list[str] = []
        for text in texts:
            part = text.split("\n")
            if text.endswith("\n") or text == "":
                part.pop()
            lines += part
        final_newline = not texts or texts[-1].endswith("\n") or texts[-1] == ""
        out: list[str] = []
        pending = False  # GNU sed writes the newline a last line lacked only if more output follows

        def emit(text: str, unterminated: bool = False) -> None:
            nonlocal pending
            out.append(("\n" if pending else "") + text + ("" if unterminated else "\n"))
            pending = unterminated

        active: dict[int, bool] = {}
        last = len(lines)
        for number, line in enumerate(lines, 1):
            unterminated = number == last and not final_newline
            deleted = quit_now = False
            for index, command in enumerate(commands):
                if not self._selects(command, index, number, last, line, active):
                    continue
                if command.name == "p":
                    emit(line, unterminated)
                elif command.name == "=":
                    emit(str(number))
                elif command.name == "d":
                    deleted = True
                    break
                elif command.name == "q":
                    quit_now = True
                    break
                else:
                    line, changed = _substitute(command, line)
                    if changed and command.print_after:
                        emit(line, unterminated)
            if not deleted and not quiet:
                emit(line, unterminated)
            if quit_now:
                return "".join(out), number
        return "".join(out), last

    @staticmethod
    def _selects(command: _SedCommand, index: int, number: int, last: int, line: str,
                 active: dict[int, bool]) -> bool:
        def hit(address) -> bool:
            if address == "$":
                return number == last
            if isinstance(address, int):
                return number == address
            return address.search(line) is not None

        if command.start is None:
            chosen = True
        elif command.end is None:
            chosen = hit(command.start)
        elif active.get(index):
            end = command.end
            if isinstance(end, int) and end <= number or not isinstance(end, int) and hit(end):
                active[index] = False
            chosen = True
        elif hit(command.start):
            end = command.end
            # a line-number end at or before the start closes the range at once
            active[index] = not (isinstance(end, int) and end <= number)
            chosen = True
        else:
            chosen = False
        return chosen != command.negate


def _split_script(script: str) -> list[str]:
    """A sed script's commands, split on ``;`` and newlines outside ``s`` and address delimiters."""
    parts, current, i = [], [], 0
    while i < len(script):
        c = script[i]
        if c in ";\n":
            parts.append("".join(current))
            current = []
            i += 1
            continue
        if c == "/" or (c == "s" and i + 1 < len(script)):
            if c == "s":
                delimiter = script[i + 1]
                fields, j = _delimited(script, i + 2, delimiter, 2)
            else:
                fields, j = _delimited(script, i + 1, "/", 1)
            if fields is None:
                current.append(script[i:])
                break
            current.append(script[i:j])
            i = j
            continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return parts


def _delimited(text: str, i: int, delimiter: str, count: int) -> tuple[list[str] | None, int]:
    """``count`` fields ended by ``delimiter`` from ``text[i]`` (a backslash escapes it): (fields, index after)."""
    fields, current = [], []
    while i < len(text) and len(fields) < count:
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            current.append(nxt if nxt == delimiter and delimiter != "/" or nxt == "/" and delimiter == "/"
                           else c + nxt)
            i += 2
            continue
        if c == delimiter:
            fields.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    return (fields, i) if len(fields) == count else (None, i)


def _substitute(command: _SedCommand, line: str) -> tuple[str, bool]:
    out, position, changed = [], 0, False
    for match in command.regex.finditer(line):
        out.append(line[position:match.start()])
        out.append(_expand(command.replacement, match))
        position = match.end()
        changed = True
        if not command.every:
            break
    out.append(line[position:])
    return "".join(out), changed


def _expand(replacement: str, match) -> str:
    """sed's replacement: ``&`` the match, ``\\N`` group N, ``\\n`` a newline, ``\\x`` x."""
    out, i = [], 0
    while i < len(replacement):
        c = replacement[i]
        if c == "&":
            out.append(match.group(0))
        elif c == "\\" and i + 1 < len(replacement):
            nxt = replacement[i + 1]
            i += 1
            if nxt.isdigit():
                try:
                    out.append(match.group(int(nxt)) or "")
                except IndexError:
                    raise ShellError(f"sed: -e expression #1: invalid reference \\{nxt} on `s' command's RHS") \
                        from None
            else:
                out.append("\n" if nxt == "n" else "\t" if nxt == "t" else nxt)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""
