"""``toolgym serve WebShop-v0``: the shop in a browser, a session of its own for every visitor.

WebShop collected its human demonstrations this way. ``GET /`` (``?task_id=...`` picks the
goal) opens a session, an env of its own made from the served env's spec, and redirects to
the session's pages, in WebShop's URL scheme with the session id in the path:

- ``/<session>``: the search page;
- ``/search_results/<session>/<keywords>/<page>``;
- ``/item_page/<session>/<asin>/<keywords>/<page>/<options>``;
- ``/item_sub_page/<session>/<asin>/<keywords>/<page>/<sub page>/<options>``;
- ``/done/<session>/<asin>/<options>``: the reward and its parts (type, attributes, options,
  price), and what the goal asked for.

Every page has the goal instruction at the top and follows the layout of WebShop's templates
(search box; result cards with image, title and price; item page with option buttons and
Description / Features / Reviews tabs). The forms post ``search[...]`` to
``/<session>/search`` (field ``search_query``) and ``click[...]`` to
``/<session>/click/<button>``, as the env's ``html`` pages do; each post steps the session's
env, which redirects to the page of its new state (a URL of an older state, the browser's back
button, redirects there too). A page is drawn from the state, page and products of the env's
shop session (:class:`~toolgym.worlds.webshop.session.WebShopSession`), the one its tools move.
``/static/webshop.css`` is ``toolgym/assets/webshop.css``;
``/images/<asin>.svg`` a picture of the product's type in its colour, drawn from the product.

Limits (:mod:`toolgym.serving`): connections are served on threads, at most ``max_connections``
at once (more are a 503 with ``Retry-After``), each with ``ShopHandler.timeout`` (10 s) of
silence before it is closed, so an idle client never blocks another visitor; a form body is at
most :data:`MAX_BODY` bytes (413), and a missing or malformed ``Content-Length`` is a 411 or 400.
At most ``max_sessions`` sessions live at once; a session idle for ``idle_s`` seconds is freed
(its URLs then answer 404 with a link to a new one), and a visitor over the limit gets a 503.
The server binds 127.0.0.1 unless told otherwise; bound to loopback, it answers a request whose
``Host`` is not 127.0.0.1, localhost or [::1] with a port with 421, and one whose ``Origin`` is a
page of another site with 403 (:func:`toolgym.serving.loopback_refusal`), so a page of another
site cannot reach the shop through a name rebound to 127.0.0.1, nor post its forms.

The pages are Jinja2 templates, autoescaped, under ``toolgym/assets/templates/webshop/``.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from urllib.parse import parse_qs, quote, unquote, urlparse

import gymnasium as gym

from toolgym.serving import (BoundedHandler, BoundedHTTPServer, HttpError, content_length, drain, is_loopback,
                             loopback_refusal)
from toolgym.templating import render as render_template
from toolgym.worlds.webshop.pages import END_BUTTON, SUB_PAGES

MAX_BODY = 10_000
MAX_CONNECTIONS = 32
MAX_SESSIONS = 64
IDLE_S = 1800.0


@dataclass
class ShopSession:
    """One visitor's episode: an env of its own, its lock, and what the next page should say."""

    id: str
    env: gym.Env
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0
    note: str = ""  # why the last action changed nothing, shown once
    metrics: dict | None = None


class Shop:
    """The sessions of a server: made on demand from ``spec``, freed after ``idle_s`` idle seconds."""

    def __init__(self, spec, max_sessions: int = MAX_SESSIONS, idle_s: float = IDLE_S, clock=time.monotonic):
        self.spec = spec
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self.clock = clock
        self.sessions: dict[str, ShopSession] = {}
        self._lock = threading.Lock()

    def open(self, task_id: str | None) -> ShopSession:
        """A new session on ``task_id`` (any goal when None); KeyError/ValueError for an unknown one,
        HttpError 503 when ``max_sessions`` are open and none is idle."""
        with self._lock:
            self._free_idle()
            if len(self.sessions) >= self.max_sessions:
                raise HttpError(503, f"the shop has {self.max_sessions} visitors; retry in a minute",
                                {"Retry-After": "60"})
            session_id = secrets.token_urlsafe(9)
            # not idle while it is being made: its place is held, and idleness starts once it can be used
            session = self.sessions[session_id] = ShopSession(session_id, None, last_used=math.inf)
        try:
            session.env = gym.make(self.spec)
            session.env.reset(options={"task_id": task_id} if task_id else None)
        except Exception:
            with self._lock:
                self.sessions.pop(session_id, None)
            raise
        with self._lock:
            session.last_used = self.clock()
        return session

    def get(self, session_id: str) -> ShopSession | None:
        with self._lock:
            self._free_idle()
            session = self.sessions.get(session_id)
            if session is not None and session.env is not None:
                session.last_used = self.clock()
                return session
        return None

    def _free_idle(self) -> None:
        now = self.clock()
        for session_id in [s for s, v in self.sessions.items() if now - v.last_used > self.idle_s]:
            session = self.sessions.pop(session_id)
            if session.env is not None:
                session.env.close()


# -- the pages ------------------------------------------------------------------------------
def state_path(session: ShopSession) -> str:
    """The URL of the session's current page, in WebShop's scheme."""
    state, sid = session.env.unwrapped.shop.state, quote(session.id, safe="")
    keywords = quote(state["keywords"] or "", safe="") or "-"
    options = quote(json.dumps(state["options"], sort_keys=True), safe="")
    page = "done" if session.metrics is not None else state["page"]
    if page == "search":
        return f"/{sid}"
    if page == "results":
        return f"/search_results/{sid}/{keywords}/{state['page_no']}"
    asin = quote(state["asin"] or "", safe="") or "-"
    if page == "item":
        return f"/item_page/{sid}/{asin}/{keywords}/{state['page_no']}/{options}"
    if page == "sub":
        return f"/item_sub_page/{sid}/{asin}/{keywords}/{state['page_no']}/{quote(state['sub'])}/{options}"
    return f"/done/{sid}/{asin}/{options}"


def render(session: ShopSession) -> str:
    """The browser page of the session's current state."""
    base = session.env.unwrapped
    shop = base.shop
    state, page = shop.state, shop.page
    note, session.note = session.note, ""  # shown once
    kind = "done" if session.metrics is not None else page.kind
    context = {"session_id": session.id, "goal": base.goal, "note": note, "kind": kind, "state": state,
               "task_id": base.task_id, "steps": base._steps, "max_steps": base.max_steps}
    if kind == "results":
        context["total"] = next(t for r, t in page.nodes if r == "text" and t.startswith("Page "))
        links = [i for i, (role, _) in enumerate(page.nodes) if role == "link"]
        context["cards"] = [{"asin": asin, "title": title, "price": price, "visited": asin in page.visited}
                            for asin, title, price in ([text for _, text in page.nodes[i:i + 3]] for i in links)]
    elif kind in ("item", "sub"):
        context.update(product=shop.product(state["asin"]), sub_pages=SUB_PAGES, end_button=END_BUTTON,
                       sub_texts=[text for role, text in page.nodes[4:] if role == "text"])
    elif kind == "done":
        context.update(done_context(session))
    return render_template("webshop/page.html", **context)


def done_context(session: ShopSession) -> dict:
    """What the done page shows: what was bought, the reward, its parts and what the goal asked for."""
    base = session.env.unwrapped
    shop, goal = base.shop, base.goal
    state = shop.state
    metrics = session.metrics or base._metrics()
    details = state.get("details") or {}
    purchased = state["page"] == "done"  # else the step limit ran out before Buy Now
    wanted = goal["goal_options"]
    wanted_text = ", ".join(f"{k}: {v}" for k, v in wanted.items()) if isinstance(wanted, dict) else ", ".join(wanted)
    parts = [("Type", details.get("r_type"), None, f"{goal['query']} ({goal['product_category']})"),
             ("Attributes", details.get("r_att"), details.get("w_att"), ", ".join(goal["attributes"]) or "none"),
             ("Options", details.get("r_option"), details.get("w_option"), wanted_text or "none"),
             ("Price", details.get("r_price"), details.get("w_price"), f"at most ${goal['price_upper']:.2f}")]
    bought = shop.product(state["asin"]) if purchased and state.get("asin") else None
    return {"purchased": purchased, "bought": bought, "score": metrics["score"], "parts": parts,
            "chosen": ", ".join(f"{k}: {v}" for k, v in state["options"].items()) or "none"}


COLOURS = {"black": "#222222", "white": "#f4f4f4", "red": "#c62828", "blue": "#1565c0", "green": "#2e7d32",
           "yellow": "#f9a825", "pink": "#ec407a", "purple": "#6a1b9a", "grey": "#9e9e9e", "gray": "#9e9e9e",
           "brown": "#6d4c41", "orange": "#ef6c00", "navy": "#1a237e", "beige": "#d7ccc8", "gold": "#c9a227",
           "silver": "#b0bec5", "natural": "#c8a165", "clear": "#b3e5fc", "ivory": "#fffff0"}


def product_svg(product: dict) -> str:
    """A deterministic picture of ``product`` (the template ``webshop/product.svg``): its category's
    outline in its first colour option (or, without one, a colour drawn from its asin), and its
    query word."""
    colour = None
    for values in [v for name, v in product["options"].items() if "color" in name.lower()]:
        for value in values:
            colour = next((hexa for word, hexa in COLOURS.items() if word in value.lower()), None)
            if colour:
                break
        if colour:
            break
    if colour is None:
        hue = int(hashlib.sha256(product["asin"].encode()).hexdigest()[:4], 16) % 360
        colour = f"hsl({hue}, 55%, 50%)"
    label = str(product.get("query") or "")[:18]
    return render_template("webshop/product.svg", colour=colour, category=product.get("category"), label=label)


def stylesheet() -> bytes:
    return resources.files("toolgym").joinpath("assets/webshop.css").read_bytes()


# -- the server -----------------------------------------------------------------------------
def make_server(env, host: str = "127.0.0.1", port: int = 3000, max_connections: int = MAX_CONNECTIONS,
                max_sessions: int = MAX_SESSIONS, idle_s: float = IDLE_S) -> BoundedHTTPServer:
    """An HTTP server whose every session is an env made like ``env`` (a WebShop-v0 env made
    with ``gym.make(..., observation_mode="html")``); the server's :class:`Shop` is ``server.shop``."""
    base = env.unwrapped
    if getattr(base, "observation_mode", None) != "html" or env.spec is None:
        raise ValueError("toolgym serve: the env must be made with gym.make(..., observation_mode='html')")
    shop = Shop(env.spec, max_sessions=max_sessions, idle_s=idle_s)
    loopback = is_loopback(host)  # then the Host header is checked (DNS rebinding), as the MCP server does
    css = stylesheet()
    catalogue_lock = threading.Lock()  # the served env's world answers the image requests, one at a time

    class ShopHandler(BoundedHandler):
        def log_message(self, format, *args):  # quiet
            pass

        def _send(self, status: int, body: str | bytes, location: str | None = None,
                  headers: dict[str, str] | None = None, content_type: str = "text/html; charset=utf-8") -> None:
            data = body.encode("utf-8") if isinstance(body, str) else body
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, render_template("webshop/error.html", message=message), headers=headers)

        def refuse_busy(self) -> None:
            self._error(503, "The shop is busy; retry in a moment.", {"Retry-After": "1"})

        def parse_request(self) -> bool:
            if not super().parse_request():
                return False
            refusal = loopback_refusal(self.headers) if loopback else None
            if refusal is not None:  # a rebound name or another site's page: answered before any work
                self.close_connection = True
                self._error(refusal.status, refusal.message)
                drain(self.connection, 1.0)
                return False
            return True

        def do_GET(self):
            url = urlparse(self.path)
            parts = [unquote(p) for p in url.path.split("/")[1:]]
            if url.path == "/":
                task = parse_qs(url.query).get("task_id", [None])[0]
                try:
                    session = shop.open(task)
                except HttpError as error:
                    return self._error(error.status, error.message, error.headers)
                except (KeyError, ValueError) as error:
                    return self._error(404, f"no task {task!r} ({error})")
                return self._send(303, "", location=state_path(session))
            if url.path == "/static/webshop.css":
                return self._send(200, css, content_type="text/css; charset=utf-8")
            if len(parts) == 2 and parts[0] == "images" and parts[1].endswith(".svg"):
                with catalogue_lock:
                    product = base.shop.product(parts[1][:-4])
                if product is None:
                    return self._error(404, "no such product")
                return self._send(200, product_svg(product), content_type="image/svg+xml",
                                  headers={"Cache-Control": "max-age=86400"})
            routes = ("search_results", "item_page", "item_sub_page", "done")
            session_id = parts[1] if len(parts) > 1 and parts[0] in routes else parts[0] if len(parts) == 1 else None
            session = shop.get(session_id) if session_id else None
            if session is None:
                return self._error(404, "This session has ended (sessions idle for a while are freed) or never "
                                        "existed.")
            with session.lock:
                where = state_path(session)
                if url.path != where:
                    return self._send(303, "", location=where)
                self._send(200, render(session))

        def do_POST(self):
            try:
                length = content_length(self, MAX_BODY)
            except HttpError as error:  # the body is not read: the connection cannot carry another request
                self.close_connection = True
                self._error(error.status, error.message, error.headers)
                drain(self.connection, 1.0)
                return
            body = self.rfile.read(length)
            if len(body) < length:  # the client stopped sending (or timed out): nobody to answer
                self.close_connection = True
                return
            try:
                form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=20)
            except ValueError:  # more fields than any of the shop's forms has
                return self._error(400, "the form has too many fields")
            parts = urlparse(self.path).path.split("/")
            if len(parts) == 3 and parts[2] == "search":
                action = f"search[{form.get('search_query', [''])[0]}]"
            elif len(parts) == 4 and parts[2] == "click":
                action = f"click[{unquote(parts[3])}]"
            else:
                return self._error(404, "no such page")
            session = shop.get(unquote(parts[1]))
            if session is None:
                return self._error(404, "This session has ended (sessions idle for a while are freed) or never "
                                        "existed.")
            with session.lock:
                if session.metrics is None:
                    *_, terminated, truncated, info = session.env.step(action)
                    session.note = f"Invalid action: {info['error']}" if "error" in info else ""
                    if terminated or truncated:
                        session.metrics = info["metrics"]
                where = state_path(session)
            self._send(303, "", location=where)

    server = BoundedHTTPServer((host, port), ShopHandler, max_connections)
    server.shop = shop
    return server


def serve(env, host: str = "127.0.0.1", port: int = 3000) -> None:
    server = make_server(env, host, port)
    if not is_loopback(host):
        print(f"warning: serving on {host!r}: other machines can reach the shop (it has no login)", flush=True)
    print(f"WebShop on http://{host}:{server.server_address[1]}/ (a session per visitor; Ctrl-C stops)")
    try:
        server.serve_forever()
    finally:
        server.server_close()
