"""``toolgym serve WebShop-v0`` under hostile and concurrent clients: bad heads, idle sockets,
more connections than it serves. Each test has a timeout: a server that stops answering fails it."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import urllib.response

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)


@contextlib.contextmanager
def shop_server(**kwargs):
    """The port of ``toolgym serve``'s server over a WebShop env, in a thread of this process."""
    from toolgym.envs.webshop.serve import make_server

    env = gym.make("WebShop-v0", observation_mode="html")
    server = make_server(env, port=0, **kwargs)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    SERVERS[server.server_address[1]] = server
    try:
        yield server.server_address[1], env
    finally:
        SERVERS.pop(server.server_address[1], None)
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def raw_http(port: int, data: bytes) -> tuple[int, str]:
    """Status and body of the answer to hand-written request bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read().decode()


def shop_page(port: int) -> str:
    """A new session's first page."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
        return response.read().decode()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("length, status, says", [
    (b"-1", 400, "the Content-Length header must be one non-negative integer"),
    (b"abc", 400, "the Content-Length header must be one non-negative integer"),
    (b"1e3", 400, "the Content-Length header must be one non-negative integer"),
    (b"99999999999999999999", 413, "the body is 99999999999999999999 bytes; this server takes at most 10000"),
    (None, 411, "a Content-Length header is required"),
])
def test_serve_refuses_a_bad_content_length_without_reading_the_stream(length, status, says):
    with shop_server() as (port, env):
        head = (b"POST /t/search HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
                + (b"Content-Length: " + length + b"\r\n" if length else b""))
        answer, text = raw_http(port, head + b"\r\nsearch_query=x" + b"y" * 50_000)
        # answered from the head: a server reading the 10**20 declared bytes would never answer 413
        assert answer == status and f'<p class="note">{says}</p>' in text
        assert 'id="search_input"' in shop_page(port)  # and the shop goes on


@pytest.mark.timeout(60)
def test_serve_answers_other_visitors_while_a_client_idles():
    with shop_server() as (port, _):
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        # then silence
        idle[0].sendall(b"POST /t/search HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 100\r\n\r\nsearch_q" % port)
        assert 'id="search_input"' in shop_page(port)
        # answered while the idle ones still hold their places (for 10 s): counted by the server, not the clock
        assert SERVERS[port].active_connections >= len(idle)
        for sock in idle:
            sock.close()


@pytest.mark.timeout(60)
def test_serve_over_its_connection_limit_answers_503_with_retry_after():
    with shop_server(max_connections=1) as (port, _):
        holder = socket.create_connection(("127.0.0.1", port), timeout=10)  # takes the one slot
        deadline = time.monotonic() + 30  # a wait for the server, generous: it fails only on a hang
        while SERVERS[port].active_connections < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(urllib.error.HTTPError) as refused:
            shop_page(port)
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "1"
        holder.close()
        deadline = time.monotonic() + 30  # a wait for the server, generous: it fails only on a hang
        while True:  # the slot is free again once the server sees the holder close
            try:
                assert 'id="search_input"' in shop_page(port)
                break
            except urllib.error.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.05)


@pytest.mark.timeout(60)
def test_serve_refuses_a_form_with_too_many_fields():
    with shop_server() as (port, env):
        body = b"&".join(b"f%d=1" % i for i in range(50))
        head = b"POST /t/search HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: %d\r\n\r\n" % (port, len(body))
        status, text = raw_http(port, head + body)
        assert status == 400 and '<p class="note">the form has too many fields</p>' in text


def post(port: int, path: str, form: dict | None = None) -> urllib.response.addinfourl:
    data = urllib.parse.urlencode(form or {}).encode()
    return urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data), timeout=10)


@pytest.mark.timeout(60)
def test_each_visitor_has_a_session_of_their_own():
    with shop_server() as (port, env):
        first, second = (urllib.request.urlopen(f"http://127.0.0.1:{port}/?task_id={t}", timeout=10)
                         for t in env.unwrapped.task_ids()[:2])
        ids = [r.url.rsplit("/", 1)[1] for r in (first, second)]
        assert ids[0] != ids[1]
        response = post(port, f"/{ids[0]}/search", {"search_query": "tea"})
        assert response.url == f"http://127.0.0.1:{port}/search_results/{ids[0]}/tea/1"
        assert "Total results" in response.read().decode()
        sessions = {i: s.env.unwrapped for i, s in env_sessions(port).items()}
        assert sessions[ids[0]].shop.state["page"] == "results" and sessions[ids[1]].shop.state["page"] == "search"
        # the other visitor's URL still shows their search page, and an old URL redirects to the current one
        assert 'id="search_input"' in urllib.request.urlopen(f"http://127.0.0.1:{port}/{ids[1]}", timeout=10).read().decode()
        stale = urllib.request.urlopen(f"http://127.0.0.1:{port}/{ids[0]}", timeout=10)
        assert stale.url == f"http://127.0.0.1:{port}/search_results/{ids[0]}/tea/1"
        bad = post(port, f"/{ids[0]}/click/no%20such%20button")  # an invalid action: the page says why
        assert "Invalid action: &#39;no such button&#39; is not a button on this page" in bad.read().decode()


SERVERS: dict = {}


def env_sessions(port: int) -> dict:
    return SERVERS[port].shop.sessions


@pytest.mark.timeout(60)
def test_idle_sessions_are_freed_and_the_session_limit_is_a_503():
    now = [0.0]  # the shop's clock, moved by hand: a loaded machine's pauses must not free a session early
    with shop_server(max_sessions=2, idle_s=30) as (port, _):
        SERVERS[port].shop.clock = lambda: now[0]
        first = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).url
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        with pytest.raises(urllib.error.HTTPError) as full:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        assert full.value.code == 503 and full.value.headers["Retry-After"] == "60"
        assert "the shop has 2 visitors; retry in a minute" in full.value.read().decode()
        now[0] += 31
        assert 'id="search_input"' in shop_page(port)  # the idle ones were freed to make room
        assert len(env_sessions(port)) == 1
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(first, timeout=10)
        assert gone.value.code == 404 and "This session has ended" in gone.value.read().decode()


@pytest.mark.timeout(60)
def test_product_images_are_svg_pictures_drawn_from_the_product():
    with shop_server() as (port, env):
        asin = env.unwrapped.goal_set.goals[env.unwrapped.task_ids()[0]]["asin"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/images/{asin}.svg", timeout=10) as response:
            assert response.headers["Content-Type"] == "image/svg+xml"
            picture = response.read().decode()
        assert picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
        assert picture == urllib.request.urlopen(f"http://127.0.0.1:{port}/images/{asin}.svg", timeout=10).read().decode()
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/images/NOPE.svg", timeout=10)
        assert missing.value.code == 404
        css = urllib.request.urlopen(f"http://127.0.0.1:{port}/static/webshop.css", timeout=10)
        assert css.headers["Content-Type"].startswith("text/css") and b".card" in css.read()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("headers, refused", [
    (["Host: 127.0.0.1:{port}"], None), (["Host: localhost:{port}"], None), (["Host: [::1]:{port}"], None),
    (["Host: localhost:{port}", "Origin: http://127.0.0.1:{port}"], None),
    (["Host: rebound.example:{port}"], 421), (["Host: rebound.example"], 421), (["Host: localhost"], 421),
    (["Host: 127.0.0.1:{port}@rebound.example"], 421), ([], 421), (["Host: 127.0.0.1:{port}", "Host: localhost:{port}"], 421),
    (["Host: 127.0.0.1:{port}", "Origin: http://rebound.example:{port}"], 403),
    (["Host: 127.0.0.1:{port}", "Origin: https://127.0.0.1:{port}", "Origin: http://127.0.0.1:{port}"], 403),
])
def test_serve_answers_only_its_loopback_names(headers, refused):
    """A page whose name was rebound to 127.0.0.1 (DNS rebinding), or another site's page, neither
    opens a session nor drives one."""
    why = {421: "this server answers requests for 127.0.0.1, localhost or [::1] with its port only",
           403: "this server answers pages of its own origin only"}
    with shop_server() as (port, env):
        lines = "".join(h.format(port=port) + "\r\n" for h in headers).encode()
        task = env.unwrapped.task_ids()[0].encode()
        answer, text = raw_http(port, b"GET /?task_id=%s HTTP/1.1\r\n%s\r\n" % (task, lines))
        assert answer == (refused or 303) and len(env_sessions(port)) == (0 if refused else 1)
        visitor = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).url.rsplit("/", 1)[1]
        body = b"search_query=tea"
        answer, text = raw_http(port, b"POST /%s/search HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s"
                                % (visitor.encode(), lines, len(body), body))
        assert answer == (refused or 303)
        assert env_sessions(port)[visitor].env.unwrapped.shop.state["page"] == ("search" if refused else "results")
        if refused:
            assert f'<p class="note">{why[refused]}</p>' in text
