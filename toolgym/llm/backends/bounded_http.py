"""The HTTP transport under the ``openai`` SDK's client: a server is an untrusted peer.

:class:`BoundedTransport` reads every answer whole before the SDK sees it, and bounds it: at
most ``max_bytes`` of body, all of it (connection, headers, body, any redirects) within one
deadline that a watchdog enforces by shutting the socket, so a server that trickles a byte at a
time cannot hold the caller past it. Redirects are followed here, not by the client, and only
within the same origin and keeping the method, so the key never leaves the configured server.
A redirect that is not followed is handed back as the 3xx answer, with the reason in the
response's ``toolgym_redirect_refused`` extension.

Imported only by :class:`~toolgym.llm.backends.openai_compatible.OpenAICompatibleBackend`:
``httpx2`` is the HTTP library of the ``openai`` SDK.
"""

from __future__ import annotations

import socket
import threading
import urllib.parse

import httpx2

MAX_REDIRECTS = 5
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class AnswerRefused(httpx2.TransportError):
    """An answer not read to its end: over the byte limit, or in an encoding not asked for."""


class BoundedTransport(httpx2.BaseTransport):
    """An :class:`httpx2.HTTPTransport` whose answers are read whole, bounded in bytes and time.

    Connections are not kept alive: every attempt opens its own, whose socket the deadline's
    watchdog can shut.

    Args:
        max_bytes: The most body bytes read of one answer.
        deadline_s: Seconds for one whole answer, from connecting to its last byte.
        max_connections: Connections open at once.
    """

    def __init__(self, max_bytes: int, deadline_s: float, max_connections: int):
        self.max_bytes = int(max_bytes)
        self.deadline_s = float(deadline_s)
        self._inner = httpx2.HTTPTransport(limits=httpx2.Limits(max_connections=max_connections,
                                                                max_keepalive_connections=0))

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        expired = threading.Event()
        sockets: list[socket.socket] = []
        lock = threading.Lock()

        def shut(sock: socket.socket) -> None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def trace(name: str, info: dict) -> None:
            if name == "connection.connect_tcp.complete" and info.get("return_value") is not None:
                sock = info["return_value"].get_extra_info("socket")
                if sock is not None:
                    with lock:
                        sockets.append(sock)
                        if expired.is_set():  # connected just as the deadline passed
                            shut(sock)

        def expire() -> None:
            with lock:
                expired.set()
                for sock in sockets:
                    shut(sock)

        watchdog = threading.Timer(self.deadline_s, expire)
        watchdog.daemon = True
        watchdog.start()
        first_url = str(request.url)
        try:
            for redirects in range(MAX_REDIRECTS + 1):
                request.extensions = {**request.extensions, "trace": trace}
                response = self._read_whole(request)
                if expired.is_set():
                    raise httpx2.ReadTimeout("deadline", request=request)
                refused = self._refused_redirect(request, response)
                if refused is None and response.status_code in REDIRECT_STATUS and redirects == MAX_REDIRECTS:
                    refused = f"{first_url}: more than {MAX_REDIRECTS} redirects"
                if refused is not None:
                    response.extensions = {**response.extensions, "toolgym_redirect_refused": refused}
                if refused is not None or response.status_code not in REDIRECT_STATUS:
                    return response
                target = urllib.parse.urljoin(str(request.url), response.headers["Location"])
                request = httpx2.Request(request.method, target, headers=request.headers, content=request.content,
                                         extensions=request.extensions)
            raise AssertionError("unreachable: the last redirect is refused")
        except httpx2.TransportError:
            if expired.is_set():
                raise httpx2.ReadTimeout(f"no whole answer within {self.deadline_s:g} s", request=request) from None
            raise
        finally:
            watchdog.cancel()

    def _read_whole(self, request: httpx2.Request) -> httpx2.Response:
        """The answer with its body read: at most ``max_bytes`` of it, in no encoding."""
        response = self._inner.handle_request(request)
        try:
            encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):  # asked for identity: a compressed body could be a bomb
                raise AnswerRefused(f"the answer came in Content-Encoding {encoding[:40]!r}, "
                                           "which was not asked for", request=request)
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                raise AnswerRefused(f"an answer of {int(declared)} bytes is over the limit of {self.max_bytes}; "
                                     "not read", request=request)
            body = bytearray()
            for chunk in response.stream:
                body += chunk
                if len(body) > self.max_bytes:
                    raise AnswerRefused(f"an answer of more than {self.max_bytes} bytes is over the limit; "
                                         "not read", request=request)
        finally:
            response.close()
        return httpx2.Response(response.status_code, headers=response.headers, content=bytes(body),
                               request=request, extensions=response.extensions)

    @staticmethod
    def _refused_redirect(request: httpx2.Request, response: httpx2.Response) -> str | None:
        """Why a redirect answer is not followed, or None (not a redirect, or one to follow)."""
        status = response.status_code
        if status not in REDIRECT_STATUS:
            return None
        url = str(request.url)
        location = response.headers.get("Location")
        if not location:
            return f"{url} answered HTTP {status} without a Location to go to"
        target = urllib.parse.urljoin(url, location)
        if _origin(target) != _origin(url):
            scheme, host, port = _origin(target)
            return (f"{url} redirects (HTTP {status}) to another origin, {scheme}://{host}:{port}; "
                    "not following it with the credentials: use the final URL as the base URL")
        if request.method != "GET" and status not in (307, 308):
            return (f"{url} redirects (HTTP {status}) to {target[:200]}, which would turn the {request.method} "
                    "into a GET; use the final URL as the base URL")
        return None

    def close(self) -> None:
        self._inner.close()


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # not a port number: matches no origin
        port = -1
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)
