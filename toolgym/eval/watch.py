"""What a live run waits on, on its progress bar: the server backends' requests in flight, answers,
retries and last error, looked at every :data:`WATCH_INTERVAL_S` from a thread of its own, and a
line on stderr when a server's first request outlives its timeout. Every runner (batched,
sequential, ``--env-url``) shows the same (:func:`watching`)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

import gymnasium as gym
from tqdm import tqdm

#: Seconds between two looks at a server backend's requests (in flight, retries, last error).
WATCH_INTERVAL_S = 1.0


def request_backends(agent, envs: list[gym.Env]) -> list:
    """The server backends a run waits on (those with ``progress()``): the agent's, and each
    env's LLM user's and judge's (a remote env's are on its server: none here)."""
    found = {}
    for env in envs:
        base = env.unwrapped
        for backend in (getattr(agent, "backend", None), getattr(getattr(base, "user", None), "backend", None),
                        getattr(base, "judge", None)):
            if callable(getattr(backend, "progress", None)):
                found[id(backend)] = backend
    return list(found.values())


def request_counters(backends: list) -> dict:
    """The backends' ``progress()`` summed (the first last error, the agent's before the users')."""
    each = [b.progress() for b in backends]
    return {"in_flight": sum(c["in_flight"] for c in each), "answered": sum(c["answered"] for c in each),
            "retries": sum(c["retries"] for c in each),
            "last_error": next((c["last_error"] for c in each if c.get("last_error")), None)}


def requests_text(counters: dict) -> str:
    """A server backend's requests in a few words: in flight, answered, retries, the last error."""
    text = (f"{counters['in_flight']} request(s) in flight, {counters['answered']} answered, "
            f"{counters['retries']} retries")
    if counters.get("last_error"):
        error = "".join(c if c.isprintable() else "?" for c in counters["last_error"])
        text += f", last error: {error[:120]}"
    return text


def slow_server_text(backend, waiting_s: float) -> str:
    """What to say when the first request has outlived the backend's timeout."""
    return (f"toolgym: no answer from {backend.base_url} after {waiting_s:.0f}s: the first request outlived the "
            f"timeout ({backend.timeout:g}s) and is retried. The server may be slow (a model on a CPU, a cold "
            f"start): raise the timeout with --backend-kwarg timeout=SECONDS")


class Watcher:
    """The thread of :func:`watching`; :meth:`stop` ends it (before the bar closes: a last postfix
    would print it again)."""

    def __init__(self, backends: list, bar, prefix: Callable[[], str]):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(backends, bar, prefix), daemon=True,
                                        name="toolgym-requests")
        if backends:
            self._thread.start()

    def _watch(self, backends: list, bar, prefix: Callable[[], str]) -> None:
        warned: set[str] = set()
        while not self._stop.wait(WATCH_INTERVAL_S):
            bar.set_postfix_str(prefix() + requests_text(request_counters(backends)))
            for backend in backends:
                waiting = backend.progress().get("waiting_s")
                if backend.base_url not in warned and waiting is not None and waiting > backend.timeout:
                    tqdm.write(slow_server_text(backend, waiting), file=sys.stderr)
                    warned.add(backend.base_url)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def watching(backends: list, bar, prefix: Callable[[], str] = lambda: "") -> Watcher:
    """Until the returned watcher's ``stop()``: the backends' requests on ``bar``'s postfix after
    ``prefix()`` (a run waiting on a server shows what it waits for), and once per server, on
    stderr even without a bar, that it is slow when its first request outlives the timeout.
    Nothing is started without backends."""
    return Watcher(backends, bar, prefix)
