"""What toolgym's HTTP servers share: bounded concurrency and the checks of a request's head.

:class:`BoundedHTTPServer` is the standard library's threading server with two limits added.
At most ``max_connections`` connections are served at once; one more is answered at once with
``503 Service Unavailable`` and ``Retry-After`` (by the handler's :meth:`BoundedHandler.refuse_busy`)
instead of waiting or being reset. The listen backlog (``backlog``, at least ``max_connections``)
holds a burst of clients until the accept loop takes them: a connection that overflows the
kernel's queue is reset by it, before the server could answer (the standard library's backlog
of 5 reset most of 400 clients arriving at once). Every
connection has the handler's ``timeout`` for each read, so an idle or slow client holds one
slot for at most that long and never blocks another visitor.

:func:`content_length` reads the ``Content-Length`` header strictly: a missing, negative,
non-numeric or repeated one is an :class:`HttpError`, as is one over the server's body limit.

:func:`foreign_host` is the DNS-rebinding check of every server bound to loopback: the rule the
MCP SDK applies to toolgym's MCP server (a ``Host`` of ``127.0.0.1``, ``localhost`` or ``[::1]``
with a port; an ``Origin``, when sent, ``http://`` one of the same), so that a page of another
site whose name was rebound to 127.0.0.1 cannot read or drive the server through a visitor's
browser. :func:`loopback_refusal` applies it to the standard library's servers (the viewer, the
WebShop site), :class:`LoopbackHostCheck` to an ASGI app (the OpenEnv server).
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RETRY_AFTER_S = 1
LISTEN_BACKLOG = 1024  # the kernel caps it at net.core.somaxconn (4096 on current Linux)
BUSY_TIMEOUT_S = 2.0  # a refused connection's read timeout: enough to read its head, never to hold on


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is a loopback address ("" and 0.0.0.0 are not)."""
    try:
        infos = socket.getaddrinfo(host, None) if host else []
    except socket.gaierror:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


class HttpError(Exception):
    """A request answered with an error status; ``headers`` go with it (``Retry-After``, ...)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


_LOOPBACK = r"(?:127\.0\.0\.1|localhost|\[::1\]):\d{1,5}"
_LOOPBACK_HOST = re.compile(_LOOPBACK, re.ASCII | re.IGNORECASE)
_LOOPBACK_ORIGIN = re.compile("http://" + _LOOPBACK, re.ASCII | re.IGNORECASE)


def loopback_refusal(headers) -> HttpError | None:
    """Why a server bound to loopback refuses a request with these (``email.message``) headers,
    by :func:`foreign_host`'s rule: 421 unless there is one loopback ``Host``, 403 for a foreign
    ``Origin``; None when it may be served."""
    hosts, origins = headers.get_all("Host") or [], headers.get_all("Origin") or []
    if len(hosts) != 1 or foreign_host(hosts[0].strip()) is not None:
        return HttpError(421, "this server answers requests for 127.0.0.1, localhost or [::1] with its port only")
    if len(origins) > 1 or (origins and foreign_host(hosts[0].strip(), origins[0].strip()) is not None):
        return HttpError(403, "this server answers pages of its own origin only")
    return None


def content_length(handler: BaseHTTPRequestHandler, limit: int) -> int:
    """The request's body length: one non-negative integer no larger than ``limit``.

    Raises:
        HttpError: 411 without a Content-Length (or with chunked encoding), 400 for one that
            is not one non-negative integer, 413 for one over ``limit``.
    """
    if handler.headers.get("Transfer-Encoding"):
        raise HttpError(411, "send the body with a Content-Length (chunked transfer encoding is not supported)")
    values = set(handler.headers.get_all("Content-Length") or [])
    if not values:
        raise HttpError(411, "a Content-Length header is required")
    raw = values.pop().strip()
    if values or not (raw.isascii() and raw.isdigit()):
        raise HttpError(400, "the Content-Length header must be one non-negative integer")
    length = int(raw)
    if length > limit:
        raise HttpError(413, f"the body is {length} bytes; this server takes at most {limit}")
    return length


def drain(connection: socket.socket, linger_s: float, limit: int = 1 << 20) -> None:
    """Read and drop what the client still sends (at most ``limit`` bytes, for ``linger_s``
    seconds), so that closing the socket does not reset a connection whose answer is unread."""
    deadline = time.monotonic() + linger_s
    try:
        connection.shutdown(socket.SHUT_WR)
        while limit > 0 and (left := deadline - time.monotonic()) > 0:
            connection.settimeout(left)
            chunk = connection.recv(min(limit, 65536))
            if not chunk:
                break
            limit -= len(chunk)
    except OSError:  # timed out or gone: it closes either way
        pass


class BoundedHandler(BaseHTTPRequestHandler):
    """A handler for :class:`BoundedHTTPServer`: with ``busy`` set it answers every request with
    :meth:`refuse_busy` and closes the connection."""

    timeout = 10.0  # seconds a client may stay silent before its connection is closed
    busy = False

    def refuse_busy(self) -> None:
        """Answer 503 with Retry-After (handlers with their own error format override this)."""
        body = b"The server is busy; retry later.\n"
        self.send_response(503)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Retry-After", str(RETRY_AFTER_S))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if self.busy:
            self.close_connection = True
            try:
                self.refuse_busy()
                self.wfile.flush()
            except OSError:
                pass
            drain(self.connection, BUSY_TIMEOUT_S)
            return False
        return True


class BoundedHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that serves at most ``max_connections`` connections at once and
    answers the others with 503 + Retry-After (see the module docstring).

    Args:
        address: ``(host, port)``; port 0 picks a free one.
        handler: A :class:`BoundedHandler` subclass.
        max_connections: Connections served at once.
        backlog: Connections the kernel queues until they are accepted (raised to
            ``max_connections`` if below it).
    """

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BoundedHandler], max_connections: int = 64,
                 backlog: int = LISTEN_BACKLOG):
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections}")
        self.max_connections = max_connections
        self.request_queue_size = max(backlog, max_connections)  # read by server_activate's listen()
        self._slots = threading.BoundedSemaphore(max_connections)
        self._active_lock = threading.Lock()
        self._active = 0
        self._busy_handler = type(f"Busy{handler.__name__}", (handler,),
                                  {"busy": True, "timeout": min(handler.timeout or BUSY_TIMEOUT_S, BUSY_TIMEOUT_S)})
        super().__init__(address, handler)

    @property
    def active_connections(self) -> int:
        """Connections being served now (refused ones not counted)."""
        return self._active

    def process_request(self, request, client_address) -> None:
        served = self._slots.acquire(blocking=False)
        if served:
            with self._active_lock:
                self._active += 1
        threading.Thread(target=self._serve, args=(request, client_address, served), daemon=True,
                         name="toolgym-http").start()

    def _serve(self, request, client_address, served: bool) -> None:
        try:
            (self.RequestHandlerClass if served else self._busy_handler)(request, client_address, self)
        except Exception:  # noqa: BLE001 - one connection's failure is logged, the server goes on
            self.handle_error(request, client_address)
        finally:
            if served:
                with self._active_lock:
                    self._active -= 1
                self._slots.release()
            self.shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        import sys

        if isinstance(sys.exception(), OSError):  # the client went away or stopped sending: nothing to report
            return
        super().handle_error(request, client_address)


def foreign_host(host: str | None, origin: str | None = None) -> str | None:
    """Why a request to a loopback-bound server is refused, or None when it may be served.

    ``host`` is the request's ``Host`` header: ``127.0.0.1``, ``localhost`` or ``[::1]`` with a
    port (any case). ``origin``, when the browser sends one, must be ``http://`` one of them with
    a port. Servers answer a refusal with 421 (a bad Host) or 403 (a bad Origin), before reading
    the body.
    """
    if not host or not _LOOPBACK_HOST.fullmatch(host):
        return f"the Host header {host!r} is not this loopback server's name (127.0.0.1, localhost or [::1] " \
               f"with its port)"
    if origin is not None and not _LOOPBACK_ORIGIN.fullmatch(origin):
        return f"the Origin {origin!r} is not a page of this loopback server"
    return None


class LoopbackHostCheck:
    """ASGI middleware for a server bound to loopback: a request or WebSocket whose ``Host`` or
    ``Origin`` is not loopback (see :func:`foreign_host`) is refused before the app sees it.
    HTTP gets 421 or 403 with ``{"detail": why}``; a WebSocket handshake gets 403."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {}
        for key, value in scope.get("headers") or ():
            headers.setdefault(key.lower(), value.decode("latin-1"))
        why = foreign_host(headers.get(b"host"), headers.get(b"origin"))
        if why is None:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = json.dumps({"detail": why}).encode()
        await send({"type": "http.response.start", "status": 421 if "Host" in why else 403,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
