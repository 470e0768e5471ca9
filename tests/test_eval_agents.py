"""``--agent module:Class`` / ``path/to/file.py:Class`` and ``toolgym eval --help``."""

from __future__ import annotations

import argparse
import json
import textwrap

import pytest

import toolgym
from toolgym.eval.cli import build_parser, main

AGENTS = textwrap.dedent('''
    class GroundTruth:
        """Takes the env and plays its oracle."""

        def __init__(self, env):
            self.env = env.unwrapped

        def reset(self, observation, info):
            pass

        def act(self, observation, info):
            return self.env.oracle_action()


    class Mute:
        """Takes no argument and submits nothing."""

        def reset(self, observation, info):
            pass

        def act(self, observation, info):
            return ""


    class NoAct:
        def reset(self, observation, info):
            pass
''')


@pytest.fixture
def agents_file(tmp_path):
    path = tmp_path / "my_agents.py"
    path.write_text(AGENTS)
    return path


def test_an_agent_class_from_a_file_is_built_with_the_env(agents_file, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", f"{agents_file}:GroundTruth", "--episodes", "3",
                 "--no-progress", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "OpenWeather-v0 (built-in tasks" in table and "100.0" in table
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["metrics"]["success"] for r in records] == [1, 1, 1]
    assert records[0]["agent"] == f"{agents_file}:GroundTruth"


def test_an_agent_class_from_a_module_is_built_without_arguments(agents_file, monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(agents_file.parent))
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "my_agents:Mute", "--episodes", "2", "--no-progress",
                 "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["metrics"]["success"] for r in records] == [0, 0]
    assert [step["action"] for r in records for step in r["trajectory"]] == ["", ""]


@pytest.mark.parametrize("spec, message", [
    ("{file}:Missing", "has no class 'Missing'"),
    ("{file}:NoAct", "NoAct has no act method"),
    ("no_such_module_xyz:Agent", "cannot import 'no_such_module_xyz'"),
    ("{dir}/absent.py:Agent", "no file"),
    ("nobody", "unknown agent 'nobody'"),
])
def test_bad_agent_specs_are_one_line_errors(agents_file, capsys, spec, message):
    spec = spec.format(file=agents_file, dir=agents_file.parent)
    assert main(["eval", "OpenWeather-v0", "--agent", spec, "--episodes", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolgym: error: ") and message in err


def _options(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {a.dest}", a) for a in sub._actions)
        else:
            yield action.dest, action


def test_every_option_has_help_and_the_help_lists_the_envs(capsys):
    parser = build_parser()
    undocumented = [name for name, action in _options(parser)
                    if not isinstance(action, argparse._SubParsersAction) and not action.help]
    assert undocumented == []
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(env_id in text for env_id in toolgym.ENV_IDS)
    assert "path/to/file.py:Class" in text and "--resume" in text and "--overwrite" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "report" in capsys.readouterr().out
