"""What a step may not do, checked with :func:`sys.addaudithook`, and what it may cost.

``with no_escapes():`` collects the audit events of the code inside it and fails the test if any
of them started a process, touched a socket, wrote or removed a file, or read a file that is not
part of Python's own imports (modules under ``sys.path``) or of the toolgym package::

    from tests.audit_guard import bounded_step, no_escapes

    with no_escapes():
        env.step(action)
    observation, *_ = bounded_step(env, action)  # also < 1 s of CPU, < 256 MB of peak memory growth

Audit hooks cannot be removed, so one hook is installed (on first use) and reports to the
recorders that are active; outside a ``no_escapes`` block it does nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import resource
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import toolgym

PACKAGE = Path(toolgym.__file__).resolve().parent
#: Files Python's import system reads (a module loaded on first use is not the step's doing).
MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd", ".pth")
_FORBIDDEN_PREFIXES = ("subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
                       "os.kill", "os.remove", "os.unlink", "os.rename", "os.rmdir", "os.mkdir", "os.chmod",
                       "os.chown", "os.truncate", "os.symlink", "os.link", "shutil.", "socket.", "http.client.",
                       "urllib.", "ftplib.", "smtplib.", "webbrowser.", "ctypes.dlopen", "pty.", "winreg.")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_recorders: list[list[str]] = []
_installed = False


def _module_roots() -> list[Path]:
    roots = []
    for entry in sys.path:
        try:
            roots.append(Path(entry or ".").resolve())
        except OSError:
            continue
    return roots


def _allowed_read(path: Any) -> bool:
    if isinstance(path, int):  # a file descriptor already open
        return True
    try:
        resolved = Path(os.fsdecode(path)).resolve()
    except (TypeError, ValueError, OSError):
        return False
    if resolved.is_relative_to(PACKAGE):
        return True
    return resolved.suffix in MODULE_SUFFIXES and any(resolved.is_relative_to(root) for root in _module_roots())


def _is_write(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _hook(event: str, args: tuple) -> None:
    if not _recorders:
        return
    problem = None
    if event.startswith(_FORBIDDEN_PREFIXES):
        problem = f"{event}{args!r:.200}"
    elif event == "open":
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if _is_write(mode, flags):
            problem = f"write {path!r:.200}"
        elif not _allowed_read(path):
            problem = f"read {path!r:.200}"
    elif event == "sqlite3.connect" and args and args[0] not in (":memory:", "", b":memory:"):
        problem = f"sqlite3.connect {args[0]!r:.200}"
    if problem is not None:
        for recorder in _recorders:
            recorder.append(problem)


@contextlib.contextmanager
def no_escapes() -> Iterator[list[str]]:
    """Fail (AssertionError) if the code inside starts a process, uses a socket, writes a file or
    reads one outside the package and Python's modules."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    recorder: list[str] = []
    _recorders.append(recorder)
    try:
        yield recorder
    finally:
        _recorders.remove(recorder)
    assert not recorder, f"the step escaped its sandbox: {recorder[:5]}"


class _PeakMemory:
    """The peak resident memory of the process while it is active: the kernel's high-water mark
    when the code inside raised it, else the highest of samples taken every 2 ms
    (tracemalloc would slow pandas code down several times over). Linux only."""

    def __enter__(self) -> _PeakMemory:
        self._statm = os.open("/proc/self/statm", os.O_RDONLY)  # read with pread: no audit event per sample
        self.start = self.peak = self._rss()
        self.high_water = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _rss(self) -> int:
        return int(os.pread(self._statm, 200, 0).split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, self._rss())

    def __exit__(self, *exc_info: Any) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self._statm)
        high_water = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        if high_water > self.high_water:
            self.peak = max(self.peak, high_water)

    @property
    def growth(self) -> int:
        return self.peak - self.start


def bounded_step(env: Any, action: Any, seconds: float = 1.0, megabytes: int = 256) -> tuple:
    """``env.step(action)`` under :func:`no_escapes`, asserting it took under ``seconds`` of this
    process's CPU time (the hostile steps take 0.2 s at most; a busy machine stretches the wall
    clock, not the CPU time) and its peak resident memory grew by under ``megabytes``."""
    with _PeakMemory() as memory:
        start = time.process_time()
        with no_escapes():
            result = env.step(action)
        elapsed = time.process_time() - start
    assert elapsed < seconds, f"the step took {elapsed:.2f} s of CPU: {str(action)[:120]!r}"
    assert memory.growth < megabytes * 2**20, \
        f"the step's memory peaked {memory.growth / 2**20:.0f} MB higher: {str(action)[:120]!r}"
    return result
