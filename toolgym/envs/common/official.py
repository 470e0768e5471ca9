"""Official data: where an env finds its benchmark's files, and readers that name the file and line."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from toolgym.untrusted import (MIB, UntrustedFileError, json_shape_problem, open_regular, read_json_lines,
                               read_text)


#: The largest official file read (τ²'s telecom tasks.json, the largest released, is 14 MB).
MAX_OFFICIAL_FILE = 64 * MIB


class OfficialDataError(ValueError):
    """An official data file that does not hold what the benchmark's format has."""


@dataclass(frozen=True)
class OfficialLayout:
    """Which official files an env reads, and where they may sit under ``data_dir``.

    The task-loading rule of every env: ``data_dir`` (or ``$TOOLGYM_DATA``) names the data
    root (the folder that holds ``<benchmark>/``), the benchmark's own folder or, for a
    benchmark with a folder per task, that task's folder. The env reads the first of
    ``data_dir``, ``data_dir/<task>``, ``data_dir/<benchmark>`` and
    ``data_dir/<benchmark>/<task>`` that holds every expected file. The expected files decide,
    not folder names: ToolTalk's hard split is ``tooltalk/tooltalk/``, a folder named like the
    benchmark that is not the benchmark's folder.

    Attributes:
        name: The benchmark's name, for messages ("ToolTalk").
        benchmark: The benchmark's folder under the data root ("tooltalk", "sambanova").
        expected: Glob patterns relative to the data folder; each must match a file.
        split_expected: More patterns per official split: a run of one split needs its own,
            a run of every split needs them all.
        task: The task's folder inside the benchmark's folder ("open_weather"), if any.
        also_reads: Patterns of files the env reads when they are there (a policy, the answers):
            not required, but part of the data's digest and listed by ``toolgym data check``.
        source: Where the files come from upstream (repository or package, and release), for
            ``toolgym data check`` to say where a missing file can be found.
    """

    name: str
    benchmark: str
    expected: tuple[str, ...] = ()
    split_expected: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    task: str | None = None
    also_reads: tuple[str, ...] = ()
    source: str = ""

    def expected_files(self, split: str | None = None) -> tuple[str, ...]:
        """The patterns a folder must match to serve ``split`` (every split when None)."""
        splits = [split] if split is not None else list(self.split_expected)
        return self.expected + tuple(p for s in splits for p in self.split_expected.get(s, ()))

    def candidates(self, root: Path) -> list[Path]:
        """The folders tried for the data root or benchmark folder ``root``, in order."""
        task = [root / self.task] if self.task else []
        benchmark_task = [root / self.benchmark / self.task] if self.task else []
        return [root, *task, root / self.benchmark, *benchmark_task]

    def locate(self, env_id: str, data_dir: str | os.PathLike | None, split: str | None = None) -> Path:
        """The folder that holds the official files ``split`` needs.

        Args:
            env_id: The env, for messages.
            data_dir: The ``data_dir`` argument; ``$TOOLGYM_DATA`` when None.
            split: The requested official split, or None for all of them.

        Raises:
            ValueError: Neither ``data_dir`` nor ``$TOOLGYM_DATA`` is given.
            FileNotFoundError: No candidate folder holds every expected file; the message lists
                each folder tried and what it lacks.
        """
        source, root = "data_dir", data_dir
        if root is None:
            source, root = "$TOOLGYM_DATA", os.environ.get("TOOLGYM_DATA")
        if not root:
            raise ValueError(
                f"{env_id}: tasks='official' needs the official data: pass data_dir=... or set TOOLGYM_DATA "
                f"to the folder that holds '{self.benchmark}/'.")
        root = Path(root).expanduser()
        expected = self.expected_files(split)
        tried = []
        for folder in self.candidates(root):
            if not folder.is_dir():
                tried.append(f"  {folder}: no such folder")
                continue
            missing = [pattern for pattern in expected if next(folder.glob(pattern), None) is None]
            if not missing:
                return folder
            tried.append(f"  {folder}: no {', '.join(missing)}")
        own_folder = f"{self.benchmark}/{self.task}" if self.task else self.benchmark
        raise FileNotFoundError(
            f"{env_id}: no official {self.name} data in {source}={str(root)!r}. Tried:\n" + "\n".join(tried) +
            f"\nExpected one folder with {', '.join(expected)}. Pass the data root (the folder that holds "
            f"'{self.benchmark}/') or the '{own_folder}/' folder itself.")

    def files(self, folder: Path, split: str | None = None) -> list[str]:
        """The files under ``folder`` that a run of ``split`` reads (expected and ``also_reads``),
        as sorted paths relative to ``folder``."""
        found = {path for pattern in (*self.expected_files(split), *self.also_reads)
                 for path in folder.glob(pattern) if path.is_file()}
        return sorted(path.relative_to(folder).as_posix() for path in found)

    def digest(self, folder: Path, split: str | None = None) -> str:
        """``sha256:<hex>`` over the name and bytes of each file :meth:`files` lists: two folders
        with equal digests hold the same data for ``split``."""
        digest = hashlib.sha256()
        for name in self.files(folder, split):
            digest.update(f"{name}\0{file_sha256(folder / name)}\0".encode())
        return f"sha256:{digest.hexdigest()}"

    def check(self, root: Path, split: str | None = None) -> tuple[Path, list[tuple[str, bool]]]:
        """The candidate folder under ``root`` closest to complete, with each expected pattern
        and whether it matches a file there (the first complete folder, as :meth:`locate` finds)."""
        best: tuple[int, Path, list[tuple[str, bool]]] | None = None
        for folder in self.candidates(root):
            if not folder.is_dir():
                continue
            found = [(pattern, next((p for p in folder.glob(pattern) if p.is_file()), None) is not None)
                     for pattern in self.expected_files(split)]
            present = sum(ok for _, ok in found)
            if best is None or present >= best[0]:  # on a tie the deeper folder: the benchmark's over the root
                best = (present, folder, found)
            if present == len(found):
                break
        if best is None:
            return root, [(pattern, False) for pattern in self.expected_files(split)]
        return best[1], best[2]

    def check_not_empty(self, env_id: str, folder: Path, count: int, split: str | None = None) -> None:
        """Raise when the files read from ``folder`` held no task of ``split``.

        Raises:
            OfficialDataError: ``count`` is 0.
        """
        if count == 0:
            of_split = f" of split {split!r}" if split is not None else ""
            raise OfficialDataError(
                f"{env_id}: the official {self.name} data in {folder} has no tasks{of_split} "
                f"(read {', '.join(self.expected_files(split))}); the files are empty or truncated: "
                f"download them again.")


def toolbench_layout(task: str, name: str | None = None, expected: tuple[str, ...] = ("test.jsonl",),
                     also_reads: tuple[str, ...] = ()) -> OfficialLayout:
    """Where SambaNova's ToolBench (Xu et al. 2023) keeps ``task``'s files: ``sambanova/<task>/``."""
    return OfficialLayout(name=name or f"ToolBench {task}", benchmark="sambanova", task=task, expected=expected,
                          also_reads=also_reads,
                          source=f"sambanova/toolbench on GitHub (Apache-2.0): download_resources.sh unpacks its "
                                 f"data.tar, which holds data/{task}/")


_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}  # (path, mtime_ns, size) -> sha256 hex, per process
# A file changed this recently may change again within its clock tick, keeping mtime and size (git's
# "racy" files): its digest is not kept.
_RACY_SECONDS = 2.0


def file_sha256(path: Path) -> str:
    """The sha256 (hex) of a file's bytes, computed once per process for each path, mtime and size."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key in _FILE_DIGESTS:
        return _FILE_DIGESTS[key]
    digest = hashlib.sha256()
    try:
        with open_regular(path) as file:  # a FIFO or device is refused, never waited on or read forever
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    except UntrustedFileError as error:
        raise OfficialDataError(str(error)) from None
    if time.time() - stat.st_mtime > _RACY_SECONDS:
        _FILE_DIGESTS[key] = digest.hexdigest()
    return digest.hexdigest()


def read_official_text(path: Path, limit: int = MAX_OFFICIAL_FILE) -> str:
    """An official text file (a policy, a wiki, TOML), read as untrusted (:func:`toolgym.untrusted.read_text`).

    Raises:
        OfficialDataError: The file is not a regular file, larger than ``limit`` or not UTF-8.
    """
    try:
        return read_text(path, limit, "benchmark file")
    except UntrustedFileError as error:
        raise OfficialDataError(str(error)) from None


def _loads(text: str, where: str, line: int | None = None) -> Any:
    """One JSON document of an official file, its shape checked first; errors name ``where``
    and the line (``line``: the file's line of a JSON Lines record)."""
    if problem := json_shape_problem(text):
        raise OfficialDataError(f"{where}{'' if line is None else f':{line}'}: {problem}; not a benchmark file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise OfficialDataError(f"{where}:{error.lineno if line is None else line}: invalid JSON: {error.msg} "
                                f"(column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # ValueError: an integer past Python's digit limit
        why = "nested too deeply" if isinstance(error, RecursionError) else str(error).split(";")[0]
        raise OfficialDataError(f"{where}{'' if line is None else f':{line}'}: invalid JSON: {why}") from None


def read_json(path: Path, limit: int = MAX_OFFICIAL_FILE) -> Any:
    """A JSON file's content, read as untrusted (:mod:`toolgym.untrusted`: a regular file of at
    most ``limit`` bytes, its nesting and size of values bounded).

    Raises:
        OfficialDataError: The file is refused or not UTF-8 JSON; the message names the file and line.
    """
    return _loads(read_official_text(path, limit), str(path))


def read_json_list(path: Path, items: str, limit: int = MAX_OFFICIAL_FILE) -> list:
    """A JSON file that holds a list of ``items`` (e.g. "samples").

    Raises:
        OfficialDataError: The file is not JSON, or not a list; the message names the file.
    """
    value = read_json(path, limit)
    if not isinstance(value, list):
        raise OfficialDataError(f"{path}: expected a JSON list of {items}, got {type(value).__name__}")
    return value


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """The records of a JSON Lines file as ``(line number from 1, record)``, blank lines skipped
    (read as untrusted, as :func:`read_json`).

    Raises:
        OfficialDataError: The file is refused or a line is not JSON; the message names the file and line.
    """
    try:
        lines = read_json_lines(path, MAX_OFFICIAL_FILE, "benchmark file")
    except UntrustedFileError as error:
        raise OfficialDataError(str(error)) from None
    return [(number, _loads(line, str(path), number)) for number, line in lines if line.strip()]


def require_key(record: Any, key: str, where: str) -> Any:
    """``record[key]`` of an official record.

    Args:
        record: A record read from an official file.
        key: The key the format requires.
        where: The record's place, for the message ("path/test.jsonl:12", "path: sample 3").

    Raises:
        OfficialDataError: ``record`` is not an object or lacks ``key``.
    """
    if not isinstance(record, dict):
        raise OfficialDataError(f"{where}: expected a JSON object with key {key!r}, got {type(record).__name__}")
    if key not in record:
        raise OfficialDataError(f"{where}: missing key {key!r}")
    return record[key]
