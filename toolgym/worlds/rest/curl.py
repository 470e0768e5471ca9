"""Read a ``curl`` command line into an HTTP request, without ever running a shell.

The command is split with :mod:`shlex` in POSIX mode, with the shell's control characters
(``| & ; < > ( )``) split out as their own tokens, so that a pipe, a redirection, a
background job or a second command shows up as an operator token and is rejected. Command
and variable substitution (`````, ``$``) and line breaks are rejected before splitting.
Only the options a REST call needs are understood; any other option is an error. Commands
longer than :data:`MAX_COMMAND_CHARS` are refused before splitting, since :mod:`shlex` takes
time quadratic in the length of a token.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote_plus, urlsplit

_OPERATOR_CHARS = "|&;<>()"
_FLAGS = {"-s", "--silent", "-S", "--show-error", "-L", "--location", "-k", "--insecure",
          "--compressed", "-g", "--globoff"}
_IGNORED_WITH_VALUE = {"-A", "--user-agent", "-m", "--max-time", "--connect-timeout"}
_DATA = {"-d", "--data", "--data-raw", "--data-binary", "--data-ascii"}
MAX_FIELDS = 100
# Web servers refuse request lines beyond about 8 KiB (HTTP 414); twice that leaves room for
# bodies while keeping the split fast (about 20 ms at the limit).
MAX_COMMAND_CHARS = 16_384


class CurlError(ValueError):
    """The text is not one curl command this simulator can send; the message says why."""


@dataclass(frozen=True)
class HttpRequest:
    """An HTTP request read from a curl command (placeholders already filled in)."""

    method: str
    url: str
    scheme: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    body: str | None = None

    def params(self) -> dict[str, str]:
        """The query parameters; of a repeated name the first value counts."""
        params: dict[str, str] = {}
        for key, value in self.query:
            params.setdefault(key, value)
        return params


def parse_curl(text: object, placeholders: dict[str, str] | None = None) -> HttpRequest:
    """Parse one curl command.

    Args:
        text: The command, e.g. ``curl -X GET 'https://host/path?q=a+b&appid={API_KEY}'``.
        placeholders: Values of ``{NAME}`` placeholders in the URL, headers and body.

    Raises:
        CurlError: If the text is not exactly one supported curl command.
    """
    if not isinstance(text, str):
        raise CurlError(f"a curl command is a string, not {type(text).__name__}")
    if len(text) > MAX_COMMAND_CHARS:
        raise CurlError(f"the command is {len(text)} characters long; at most {MAX_COMMAND_CHARS} are accepted")
    command = text.strip()
    if not command:
        raise CurlError("empty command: expected one curl command")
    if "\n" in command or "\r" in command:
        raise CurlError("expected exactly one curl command on one line")
    if "`" in command or "$" in command:
        raise CurlError("shell substitution (` or $) is not allowed in a curl command")
    if "\x00" in command:
        raise CurlError("NUL characters are not allowed")
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise CurlError(f"cannot split the command: {exc}") from None
    operators = [t for t in tokens if t and set(t) <= set(_OPERATOR_CHARS)]
    if operators:
        raise CurlError(f"shell operator {operators[0]!r} is not allowed: send a single curl command "
                        f"(no pipes, redirections or further commands)")
    if not tokens or tokens[0] != "curl":
        raise CurlError(f"not a curl command: it starts with {tokens[0]!r}" if tokens else "empty command")
    return _read_options(tokens[1:], placeholders or {})


def _read_options(args: list[str], placeholders: dict[str, str]) -> HttpRequest:
    method = None
    urls: list[str] = []
    headers: dict[str, str] = {}
    data: list[str] = []
    as_query = False
    i = 0

    def value_of(option: str) -> str:
        if i + 1 >= len(args):
            raise CurlError(f"option {option} needs a value")
        return args[i + 1]

    while i < len(args):
        arg = args[i]
        if arg.startswith("-X") and len(arg) > 2:  # -XPOST
            method, i = arg[2:], i + 1
        elif arg in ("-X", "--request"):
            method, i = value_of(arg), i + 2
        elif arg in ("-H", "--header"):
            name, sep, value = value_of(arg).partition(":")
            if not sep or not name.strip() or any(c.isspace() for c in name.strip()):
                raise CurlError(f"malformed header {value_of(arg)!r}: expected 'Name: value'")
            headers[name.strip().lower()] = _fill(value.strip(), placeholders)
            i += 2
        elif arg in _DATA:
            data.append(_fill(value_of(arg), placeholders))
            i += 2
        elif arg == "--data-urlencode":
            name, sep, value = value_of(arg).rpartition("=")
            data.append(f"{name}{sep}{quote_plus(_fill(value, placeholders))}")
            i += 2
        elif arg == "--url":
            urls.append(value_of(arg))
            i += 2
        elif arg in ("-G", "--get"):
            as_query, i = True, i + 1
        elif arg in _FLAGS:
            i += 1
        elif arg in _IGNORED_WITH_VALUE:
            value_of(arg)
            i += 2
        elif arg.startswith("-") and arg != "-":
            raise CurlError(f"unsupported curl option {arg!r}")
        else:
            urls.append(arg)
            i += 1
    if len(urls) != 1:
        raise CurlError("no URL in the command" if not urls else f"expected one URL, got {len(urls)}")
    body = "&".join(data) if data else None
    if method is None:
        method = "GET" if body is None or as_query else "POST"
    method = method.upper()
    if not method.isalpha():
        raise CurlError(f"malformed HTTP method {method!r}")
    url = _fill(urls[0], placeholders)
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise CurlError(f"malformed URL {url!r}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CurlError(f"malformed URL {url!r}: expected http(s)://host/path")
    query = parts.query
    if as_query and body is not None:
        query, body = "&".join(q for q in (query, body) if q), None
    try:
        pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError as exc:
        raise CurlError(f"malformed query string: {exc}") from None
    return HttpRequest(method=method, url=url, scheme=parts.scheme, host=parts.hostname.lower(),
                       path=parts.path or "/", query=tuple(pairs), headers=headers, body=body)


def _fill(text: str, placeholders: dict[str, str]) -> str:
    for name, value in placeholders.items():
        text = text.replace("{" + name + "}", value)
    return text
