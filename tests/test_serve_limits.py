"""``toolgym serve WebShop-v0`` under hostile and concurrent clients: bad heads, idle sockets,
more connections than it serves. Each test has a timeout: a server that stops answering fails it."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.error
import urllib.request

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
    try:
        yield server.server_address[1], env
    finally:
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
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/page", timeout=10) as response:
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
        head = b"POST /t/search HTTP/1.1\r\nHost: x\r\n" + (b"Content-Length: " + length + b"\r\n" if length else b"")
        start = time.monotonic()
        assert raw_http(port, head + b"\r\nsearch_query=x" + b"y" * 50_000) == (status, f"<p>{says}</p>")
        assert time.monotonic() - start < 5  # answered from the head, not after the stream ends
        assert 'id="search_input"' in shop_page(port)  # and the shop goes on
        assert env.unwrapped._steps == 0


@pytest.mark.timeout(60)
def test_serve_answers_other_visitors_while_a_client_idles():
    with shop_server() as (port, _):
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        idle[0].sendall(b"POST /t/search HTTP/1.1\r\nContent-Length: 100\r\n\r\nsearch_q")  # then silence
        start = time.monotonic()
        assert 'id="search_input"' in shop_page(port) and time.monotonic() - start < 2
        for sock in idle:
            sock.close()


@pytest.mark.timeout(60)
def test_serve_over_its_connection_limit_answers_503_with_retry_after():
    with shop_server(max_connections=1) as (port, _):
        holder = socket.create_connection(("127.0.0.1", port), timeout=10)  # takes the one slot
        time.sleep(0.2)
        with pytest.raises(urllib.error.HTTPError) as refused:
            shop_page(port)
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "1"
        holder.close()
        deadline = time.monotonic() + 5
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
        status, text = raw_http(port, b"POST /t/search HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        assert (status, text) == (400, "<p>the form has too many fields</p>") and env.unwrapped._steps == 0
