"""``toolgym serve WebShop-v0``: the shop's ``html`` pages in a browser, for a person to shop.

WebShop collected its human demonstrations this way. The server holds one env in
``observation_mode="html"``; ``GET /`` starts an episode (``?task_id=...`` picks the goal) and
shows the search page; the pages' forms post to ``/<task>/search`` (field ``search_query``) and
``/<task>/click/<button>``, which step the env and redirect to ``/page``. The done page shows
the reward and the metrics. It binds to 127.0.0.1 by default and is meant for one person.

Limits (:mod:`toolgym.serving`): connections are served on threads, at most ``max_connections``
at once (more are a 503 with ``Retry-After``), each with ``ShopHandler.timeout`` (10 s) of
silence before it is closed, so an idle client never blocks another visitor; a form body is at
most :data:`MAX_BODY` bytes (413), and a missing or malformed ``Content-Length`` is a 411 or 400.
"""

from __future__ import annotations

import html
import json
import threading
from urllib.parse import parse_qs, unquote, urlparse

from toolgym.serving import BoundedHandler, BoundedHTTPServer, HttpError, content_length, drain

MAX_BODY = 10_000
MAX_CONNECTIONS = 32


def make_server(env, host: str = "127.0.0.1", port: int = 3000,
                max_connections: int = MAX_CONNECTIONS) -> BoundedHTTPServer:
    """An HTTP server over ``env`` (a WebShop-v0 env made with ``observation_mode="html"``)."""
    base = env.unwrapped
    if getattr(base, "observation_mode", None) != "html":
        raise ValueError("toolgym serve: the env must be made with observation_mode='html'")
    lock = threading.Lock()
    state = {"page": "", "footer": ""}

    def start(task_id: str | None) -> None:
        options = {"task_id": task_id} if task_id else None
        obs, info = env.reset(options=options)
        state.update(page=obs, footer=f"<p><small>task {html.escape(str(info['task_id']))}</small></p>")

    class ShopHandler(BoundedHandler):
        def log_message(self, format, *args):  # quiet
            pass

        def _send(self, status: int, body: str, location: str | None = None,
                  headers: dict[str, str] | None = None) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urlparse(self.path)
            with lock:
                if url.path == "/":
                    task = parse_qs(url.query).get("task_id", [None])[0]
                    try:
                        start(task)
                    except (KeyError, ValueError) as error:
                        return self._send(404, f"<p>{html.escape(str(error))}</p>")
                    return self._send(303, "", location="/page")
                if url.path == "/page":
                    if not state["page"]:
                        start(None)
                    return self._send(200, state["page"].replace("</body>", state["footer"] + "</body>"))
            self._send(404, "<p>not found</p>")

        def refuse_busy(self) -> None:
            self._send(503, "<p>The shop is busy; retry in a moment.</p>", headers={"Retry-After": "1"})

        def do_POST(self):
            try:
                length = content_length(self, MAX_BODY)
            except HttpError as error:  # the body is not read: the connection cannot carry another request
                self.close_connection = True
                self._send(error.status, f"<p>{html.escape(error.message)}</p>", headers=error.headers)
                drain(self.connection, 1.0)
                return
            body = self.rfile.read(length)
            if len(body) < length:  # the client stopped sending (or timed out): nobody to answer
                self.close_connection = True
                return
            try:
                form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=20)
            except ValueError:  # more fields than any of the shop's forms has
                return self._send(400, "<p>the form has too many fields</p>")
            parts = urlparse(self.path).path.split("/")
            if len(parts) >= 3 and parts[2] == "search":
                action = f"search[{form.get('search_query', [''])[0]}]"
            elif len(parts) >= 4 and parts[2] == "click":
                action = f"click[{unquote('/'.join(parts[3:]))}]"
            else:
                return self._send(404, "<p>not found</p>")
            with lock:
                if not state["page"]:
                    start(None)
                if base._done:
                    return self._send(303, "", location="/")
                obs, reward, terminated, truncated, info = env.step(action)
                note = f"<p><b>{html.escape(info['error'])}</b></p>" if "error" in info else ""
                page = obs if "error" not in info else base._observation
                footer = f"<p><small>task {html.escape(str(base.task_id))}, step {base._steps}</small></p>"
                if terminated or truncated:
                    footer += (f"<h3>Score {info['metrics']['score']:.3f}</h3><pre>"
                               f"{html.escape(json.dumps(info['metrics'], indent=1))}</pre>"
                               '<p><a href="/">another episode</a></p>')
                state.update(page=page, footer=note + footer)
            self._send(303, "", location="/page")

    return BoundedHTTPServer((host, port), ShopHandler, max_connections)


def serve(env, host: str = "127.0.0.1", port: int = 3000) -> None:
    server = make_server(env, host, port)
    print(f"WebShop on http://{host}:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    finally:
        server.server_close()
