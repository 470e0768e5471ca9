"""Where a run's results come from: the provenance its records carry (toolgym's version and
commit, the task data's source and digest) and the warnings printed when compared runs differ."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from collections.abc import Iterable

import gymnasium as gym

import toolgym
from toolgym.untrusted import KIB, MIB, escape, read_bytes

#: The keys of ``record["provenance"]``, in the order warnings name them.
PROVENANCE_KEYS = ("toolgym", "commit", "tasks_source", "tasks_digest", "data_dir")
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
#: The most read of one of ``.git``'s small files (HEAD, a ref, ``commondir``, a worktree's ``.git``).
MAX_GIT_FILE = 4 * KIB
#: The most read of ``packed-refs`` (one line per branch and tag).
MAX_PACKED_REFS = 16 * MIB


@functools.cache
def source_commit() -> str | None:
    """The git commit of toolgym's source tree when it is a git checkout (a worktree too), else None.

    Read from ``.git``'s files (HEAD, the ref it names, packed-refs) as untrusted
    (:func:`toolgym.untrusted.read_bytes`: regular files only, bounded): no subprocess, and any
    unreadable or unexpected file (a FIFO, a device) gives None, never an error or a wait.
    """
    return commit_of(Path(toolgym.__file__).resolve().parents[1])


def commit_of(checkout: Path) -> str | None:
    """The commit of the git checkout ``checkout`` as :func:`source_commit` reads it, or None."""
    try:
        dot_git = checkout / ".git"
        git_dir = dot_git
        if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
            text = _git_text(dot_git)
            if not text.startswith("gitdir:"):
                return None
            git_dir = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
        if not git_dir.is_dir():
            return None
        common = git_dir
        if (git_dir / "commondir").is_file():  # a worktree's refs live in the main repository
            common = (git_dir / _git_text(git_dir / "commondir")).resolve()
        head = _git_text(git_dir / "HEAD")
        if not head.startswith("ref:"):
            return head if _SHA.fullmatch(head) else None  # a detached HEAD
        ref = head.removeprefix("ref:").strip()
        if ".." in ref.split("/"):
            return None
        for folder in (git_dir, common):
            if (folder / ref).is_file():
                sha = _git_text(folder / ref)
                return sha if _SHA.fullmatch(sha) else None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in _git_text(packed, MAX_PACKED_REFS).splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _SHA.fullmatch(sha):
                    return sha
    except (OSError, ValueError):
        pass
    return None


def _git_text(path: Path, limit: int = MAX_GIT_FILE) -> str:
    """A small file of ``.git`` (HEAD, a ref, commondir), stripped; ValueError for a file that is
    not a regular one or is too large."""
    return read_bytes(path, limit, "git file").decode("utf-8", errors="replace").strip()


def run_provenance(env: gym.Env) -> dict:
    """``record["provenance"]`` of a run on ``env``: :data:`PROVENANCE_KEYS` (``data_dir`` for
    official data only). An env outside toolgym's base without ``tasks_provenance`` gets its
    task set's name and no digest."""
    base = env.unwrapped
    describe = getattr(base, "tasks_provenance", None)
    tasks = (describe() if callable(describe)
             else {"tasks_source": getattr(base, "task_set", None), "tasks_digest": None})
    return {"toolgym": toolgym.__version__, "commit": source_commit(), **tasks}


def provenance_warnings(runs: Iterable[tuple[str, dict]]) -> list[str]:
    """One line per provenance key that differs between the runs ``(name, first record)``:
    ``warning: runs differ in KEY: VALUE (NAME) vs VALUE (NAME)``. A run whose records carry
    no provenance (written before toolgym recorded it) is said once. Values are compared in
    full (two that differ after the shown 80 characters, or only in unprintable ones, differ);
    keys, values and names are shown escaped (:func:`toolgym.untrusted.escape`)."""
    named = [(name, record.get("provenance")) for name, record in runs]
    lines = [f"warning: {escape(name)} records no provenance (written by an older toolgym): its task data is unknown"
             for name, provenance in named if not isinstance(provenance, dict)]
    known = [(name, provenance) for name, provenance in named if isinstance(provenance, dict)]
    keys = [*PROVENANCE_KEYS, *sorted({k for _, p in known for k in p} - set(PROVENANCE_KEYS))]
    for key in keys:
        values = [(name, p.get(key)) for name, p in known]
        if len({json.dumps(value, sort_keys=True, default=str) for _, value in values}) > 1:
            lines.append(f"warning: runs differ in {_text(key)}: "
                         + " vs ".join(f"{_text(value)} ({escape(name)})" for name, value in values))
    return lines


def _text(value) -> str:
    """A provenance value for one line of a terminal (a results file may hold anything there)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = escape(text[:200])
    return text if len(text) <= 80 else text[:77] + "..."
