"""The documentation: the MkDocs site builds in strict mode (no broken link, every env a page),
the README stays short with its two Quickstart commands, and the cheap commands the docs show
run as written."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import toolgym
from toolgym.eval.cli import main

ROOT = Path(__file__).resolve().parents[1]
# Commands of the docs cheap enough to run in the suite (the oracle on small task sets, listings).
CHEAP = re.compile(r"^toolgym (list|eval (Example|ToolTalk|CatAPI|OpenWeather)-v0 --agent (oracle|random)\b(?!.*--env-url))")


def test_the_site_builds_strictly_with_a_page_per_env(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600,
                           env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert built.returncode == 0, built.stderr[-3000:]
    for env_id in toolgym.ENV_IDS:
        page = (tmp_path / "site" / "envs" / env_id / "index.html").read_text()
        assert f"Reference: <code>" in page, env_id  # the env's docstring, from the code
    cli = (tmp_path / "site" / "cli" / "index.html").read_text()
    assert all(f"toolgym {name}" in cli for name in ("eval", "report", "view", "serve", "rescore"))


def test_every_env_has_a_page_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    for env_id in toolgym.ENV_IDS:
        assert (ROOT / "docs" / "envs" / f"{env_id}.md").is_file() and f"envs/{env_id}.md" in nav, env_id


def test_the_readme_is_short_with_the_two_quickstart_commands():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    quickstart = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```[^\n]*\n(.*?)```", quickstart, flags=re.S)
    assert blocks == ["make eval\nmake test\n"]


def documented_commands() -> list[str]:
    commands = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```[^\n]*\n(.*?)```", page.read_text(), flags=re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if CHEAP.match(command) and "..." not in command and "[" not in command:
                    commands.append(command)
    return sorted(set(commands))


def test_the_cheap_commands_of_the_docs_run_as_written(tmp_path, capsys, monkeypatch):
    commands = documented_commands()
    assert "toolgym list" in commands
    monkeypatch.chdir(tmp_path)  # where a command's --out lands
    for command in commands:
        argv = shlex.split(command)[1:]
        if argv[0] == "eval" and "--episodes" not in argv:
            argv += ["--episodes", "2"]  # the whole task set is make eval's job
        assert main([*argv, "--no-progress"] if argv[0] == "eval" else argv) == 0, command
        capsys.readouterr()
