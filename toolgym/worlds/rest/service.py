"""A simulated REST service: HTTP requests routed to the typed tools of a world.

Each route maps a method and a path pattern to one tool of a :class:`~toolgym.worlds.tools.Toolkit`.
The tool's arguments are the path's named groups, the query parameters the tool knows
(unknown ones are ignored, as real services do) and, for a JSON body, its fields. A tool
answers with the response body, or raises :class:`ApiError` with a status and an error body;
argument validation errors become ``400`` responses. Failing calls change nothing.

The routes also give the service's function-calling interface: one OpenAI-style schema per
route (:meth:`RestService.tool_schemas`), and the curl command a call of one of those
functions stands for (:meth:`RestService.curl_for_call`), so that a tool call is judged
exactly as the request it makes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from urllib.parse import quote, quote_plus

from toolgym.worlds.rest.curl import CurlError, HttpRequest
from toolgym.worlds.tools import Toolkit, ToolError

JSON = "application/json"
_PATH_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
# Characters a curl command may not hold unquoted (see toolgym.worlds.rest.curl), written as
# JSON escapes in a request body so that the body still means the same.
_BODY_ESCAPES = {"'": "\\u0027", "$": "\\u0024", "`": "\\u0060"}


class ApiError(ToolError):
    """An HTTP error response raised by a tool."""

    def __init__(self, status: int, body: Any):
        self.status = status
        self.body = body
        super().__init__(json.dumps({"status": status, "body": body}))

    @staticmethod
    def decode(message: str) -> tuple[int, Any] | None:
        """The status and body of an ApiError's message, or None for any other error text."""
        try:
            value = json.loads(message)
        except ValueError:
            return None
        if isinstance(value, dict) and set(value) == {"status", "body"} and isinstance(value["status"], int):
            return value["status"], value["body"]
        return None


@dataclass(frozen=True)
class HttpResponse:
    """A response: status 0 means the request never reached the service."""

    status: int
    body: Any
    content_type: str = JSON

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def text(self) -> str:
        if isinstance(self.body, str):
            return self.body
        return json.dumps(self.body, ensure_ascii=False)

    def to_dict(self) -> dict:
        return {"status": self.status, "content_type": self.content_type, "body": self.body}


@dataclass(frozen=True)
class Route:
    """``method`` + ``path`` (a regex with named groups, matched in full) -> ``tool``."""

    method: str
    path: str
    tool: str
    json_body: bool = False


class RestService:
    """Routes requests for one host to a toolkit's tools.

    Args:
        toolkit: The tools bound to the world.
        host: The host name the service answers (others cannot be resolved).
        routes: The service's routes.
        error_body: Builds the service's error body from a status and a message.
        credential: Reads the API key from a request (None when absent); tools get it as the
            injected argument ``api_key``.
    """

    def __init__(self, toolkit: Toolkit, host: str, routes: list[Route],
                 error_body: Callable[[int, str], Any], credential: Callable[[HttpRequest], str | None]):
        self.toolkit = toolkit
        self.host = host
        self.routes = [(r, re.compile(r.path)) for r in routes]
        self.error_body = error_body
        self.credential = credential

    def handle(self, request: HttpRequest) -> HttpResponse:
        if request.host != self.host:
            return HttpResponse(0, f"curl: (6) Could not resolve host: {request.host}", "text/plain")
        matched = [(route, m) for route, pattern in self.routes
                   if (m := pattern.fullmatch(request.path.rstrip("/") or "/"))]
        if not matched:
            return self._error(404, f"no such endpoint: {request.path}")
        for route, m in matched:
            if route.method == request.method:
                return self._call(route, m.groupdict(), request)
        allowed = sorted({route.method for route, _ in matched})
        return self._error(405, f"method {request.method} not allowed for {request.path} "
                                f"(use {', '.join(allowed)})")

    def tool_schemas(self) -> list[dict]:
        """One OpenAI function schema per route: the tool's parameters (path parameters
        included, the API key left out) and a description that names the HTTP request."""
        schemas = []
        for route, _ in self.routes:
            schema = self.toolkit.specs[route.tool].schema()
            fn = schema["function"]
            fn["description"] = f"{fn['description']} ({route.method} https://{self.host}{_display_path(route.path)})"
            schemas.append(schema)
        return schemas

    def curl_for_call(self, name: str, arguments: Any, key_query: dict[str, str] | None = None) -> str:
        """The curl command a call of the route tool ``name`` stands for.

        Path parameters go into the path, the other arguments into the query string (or, for
        a route with a JSON body, into the body); ``None`` values are left out and a list
        becomes a comma-separated value.

        Args:
            name: A tool of :meth:`tool_schemas`.
            arguments: Its arguments, a dict.
            key_query: Query parameters the command carries besides the arguments (the API
                key's), written as they are, last.

        Raises:
            CurlError: For an unknown tool, unknown or missing arguments, or a value that is
                not a string, number or list of them.
        """
        route = next((r for r, _ in self.routes if r.tool == name), None)
        if route is None:
            known = ", ".join(r.tool for r, _ in self.routes)
            raise CurlError(f"unknown tool {name!r}; the tools are {known}")
        if not isinstance(arguments, dict):
            raise CurlError(f"the arguments of {name} must be a JSON object, not {type(arguments).__name__}")
        parameters = self.toolkit.specs[name].parameters
        unknown = sorted(str(k) for k in arguments if k not in parameters)
        if unknown:
            raise CurlError(f"unknown argument(s) of {name}: {', '.join(unknown)} (known: {', '.join(parameters)})")
        values = {k: v for k, v in arguments.items() if v is not None}
        path = route.path
        for group in re.compile(route.path).groupindex:
            value = _text(name, group, values.pop(group, ""))
            if not value:
                raise CurlError(f"{name} needs the argument {group!r}")
            path = _PATH_GROUP.sub(lambda _: quote(value, safe=""), path, count=1)
        url = f"https://{self.host}{path}"
        command = f"curl -X {route.method} "
        if route.json_body:
            for key, value in values.items():
                _text(name, key, value)  # checks the type
            body = json.dumps(values, ensure_ascii=False)
            body = "".join(_BODY_ESCAPES.get(c, c) for c in body)
            query = "&".join(f"{k}={v}" for k, v in (key_query or {}).items())
            return command + f"'{url}{'?' + query if query else ''}' --data '{body}'"
        pairs = [f"{k}={quote_plus(_text(name, k, v), safe=',')}" for k, v in values.items()]
        pairs += [f"{k}={v}" for k, v in (key_query or {}).items()]
        return command + f"'{url}{'?' + '&'.join(pairs) if pairs else ''}'"

    def call_signature(self, request: HttpRequest) -> str | None:
        """The API a request calls, as ``Tool(param,...)`` with the query parameters it sets."""
        for route, pattern in self.routes:
            if route.method == request.method and pattern.fullmatch(request.path.rstrip("/") or "/"):
                known = set(self.toolkit.specs[route.tool].parameters)
                return f"{route.tool}({','.join(sorted(k for k in request.params() if k in known))})"
        return None

    def _call(self, route: Route, path_args: dict, request: HttpRequest) -> HttpResponse:
        spec = self.toolkit.specs[route.tool]
        known = set(spec.parameters)
        args = {k: v for k, v in request.params().items() if k in known}
        if route.json_body:
            if not request.body:
                return self._error(400, "the request needs a JSON body")
            try:
                body = json.loads(request.body)
            except (ValueError, RecursionError):
                return self._error(400, f"the body is not valid JSON: {request.body[:200]!r}")
            if not isinstance(body, dict):
                return self._error(400, "the JSON body must be an object")
            args.update({k: v for k, v in body.items() if k in known})
        args.update(path_args)
        result = self.toolkit.call(route.tool, args, injected={"api_key": self.credential(request)})
        if result.ok:
            body = result.response
            return HttpResponse(200, body, "application/xml" if isinstance(body, str) else JSON)
        decoded = ApiError.decode(result.error)
        if decoded is not None:
            return HttpResponse(decoded[0], decoded[1], JSON if not isinstance(decoded[1], str) else "text/plain")
        return self._error(400, result.error.removeprefix(f"Invalid arguments for {route.tool}: "))

    def _error(self, status: int, message: str) -> HttpResponse:
        body = self.error_body(status, message)
        return HttpResponse(status, body, "text/plain" if isinstance(body, str) else JSON)


def _display_path(pattern: str) -> str:
    """A route's path pattern as documentation writes it: ``/v1/favourites/{favourite_id}``."""
    return _PATH_GROUP.sub(lambda m: "{" + m.group(1) + "}", pattern)


def _text(tool: str, key: str, value: Any) -> str:
    """An argument's value as it is written in a URL."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        return ",".join(_text(tool, key, v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise CurlError(f"argument {key!r} of {tool} must be a string, a number or a list of them, "
                    f"not {type(value).__name__}")
