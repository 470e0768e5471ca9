"""Making envs: third-party envs by entry point (``toolgym.envs``) and by ``module:Env-v0`` id
work in the CLI like toolgym's own, and a results file naming such an id is not trusted."""

from __future__ import annotations

import json
import textwrap

import pytest

from toolgym.eval.cli import main
from toolgym.registry import _plugin_ids, env_class, env_ids

PACKAGE = textwrap.dedent('''
    import gymnasium as gym
    from toolgym.envs.example import ExampleEnv


    class ThirdPartyEnv(ExampleEnv):
        """An env of a package outside toolgym."""


    gym.register(id="ThirdParty-v0", entry_point=ThirdPartyEnv, disable_env_checker=True, order_enforce=False)
''')


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """A package ``thirdparty_envs`` on the path that registers ThirdParty-v0 when imported, and an
    installed distribution declaring ``Plugged-v0`` in the ``toolgym.envs`` entry-point group."""
    (tmp_path / "thirdparty_envs").mkdir()
    (tmp_path / "thirdparty_envs" / "__init__.py").write_text(PACKAGE)
    info = tmp_path / "thirdparty_envs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-envs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[toolgym.envs]\nPlugged-v0 = thirdparty_envs:ThirdPartyEnv\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _plugin_ids.cache_clear()
    yield tmp_path
    _plugin_ids.cache_clear()


def test_a_module_qualified_id_runs_in_the_cli(third_party, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "thirdparty_envs:ThirdParty-v0", "--agent", "oracle", "--episodes", "2", "--no-progress",
                 "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["env"] for r in records] == ["thirdparty_envs:ThirdParty-v0"] * 2
    assert all(r["metrics"]["success"] == 1 for r in records)
    capsys.readouterr()
    # the file names a module: report imports it only when told the file is trusted
    assert main(["report", str(out)]) == 2
    assert "env may name code (env)" in capsys.readouterr().err
    assert main(["report", str(out), "--trust-env-kwargs"]) == 0


def test_an_entry_point_env_is_listed_and_runs(third_party, tmp_path, capsys):
    assert "Plugged-v0" in env_ids()
    assert env_class("Plugged-v0").__name__ == "ThirdPartyEnv"
    assert main(["list"]) == 0
    assert "Plugged-v0" in capsys.readouterr().out
    assert main(["eval", "Plugged-v0", "--agent", "oracle", "--episodes", "1", "--no-progress"]) == 0


def test_an_unknown_module_is_one_clear_error(capsys):
    assert main(["eval", "no_such_module_xyz:Env-v0", "--agent", "oracle"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolgym: error: env id 'no_such_module_xyz:Env-v0': ") and err.count("\n") == 1, err
