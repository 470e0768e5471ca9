"""Provenance in every result: the run header's ``provenance`` for every env, digests that follow
the official files' bytes, ``report``'s warnings for differing runs and ``toolgym data check``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import toolgym
from toolgym.eval.cli import main
from toolgym.eval.provenance import provenance_warnings, source_commit
from toolgym.eval.runner import read_results, run_header
from toolgym.registry import env_class, make_env

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
OFFICIAL_ENVS = [env_id for env_id in toolgym.ENV_IDS if env_class(env_id).official_layouts()]


def header_of(env_id: str, **env_kwargs) -> dict:
    env = make_env(env_id, env_kwargs)
    try:
        return run_header(env_id, env, "oracle", 0, env_kwargs, None)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", toolgym.ENV_IDS)
def test_every_env_records_the_provenance_of_its_built_in_tasks(env_id):
    provenance = header_of(env_id)["provenance"]
    assert set(provenance) == {"toolgym", "commit", "tasks_source", "tasks_digest"}
    assert provenance["toolgym"] == toolgym.__version__
    assert provenance["tasks_source"] == "built-in"
    assert DIGEST.fullmatch(provenance["tasks_digest"])
    assert header_of(env_id)["provenance"] == provenance  # another env, the same tasks: the same digest


def test_the_built_in_digest_follows_the_generated_tasks():
    assert header_of("CatAPI-v0")["provenance"]["tasks_digest"] != \
        header_of("CatAPI-v0", world_seed=1)["provenance"]["tasks_digest"]
    assert header_of("ToolTalk-v0")["provenance"]["tasks_digest"] != \
        header_of("ToolTalk-v0", split="easy")["provenance"]["tasks_digest"]


def _has_official_data(env_id: str, root: Path) -> bool:
    return any(all(ok for _, ok in layout.check(root)[1])
               for layouts in env_class(env_id).official_layouts().values() for layout in layouts)


@pytest.mark.parametrize("env_id", OFFICIAL_ENVS)
def test_every_env_records_the_digest_of_the_official_files_it_read(env_id, official_data):
    if not _has_official_data(env_id, official_data):
        pytest.skip(f"no official data for {env_id} under {official_data}")
    provenance = header_of(env_id, tasks="official", data_dir=str(official_data))["provenance"]
    assert set(provenance) == {"toolgym", "commit", "tasks_source", "tasks_digest", "data_dir"}
    assert provenance["tasks_source"] == "official" and DIGEST.fullmatch(provenance["tasks_digest"])
    assert Path(provenance["data_dir"]).is_relative_to(official_data)
    assert header_of(env_id, tasks="official", data_dir=str(official_data))["provenance"] == provenance


def _cat_api_copy(official_data: Path, root: Path) -> Path:
    folder = root / "sambanova" / "the_cat_api"
    folder.mkdir(parents=True)
    shutil.copy(official_data / "sambanova" / "the_cat_api" / "test.jsonl", folder / "test.jsonl")
    return folder / "test.jsonl"


def test_the_official_digest_changes_with_one_byte_and_not_with_the_folder(official_data, tmp_path):
    if not (official_data / "sambanova" / "the_cat_api" / "test.jsonl").is_file():
        pytest.skip("no official CatAPI data")
    copied = _cat_api_copy(official_data, tmp_path)

    def digest(root: Path) -> str:
        return header_of("CatAPI-v0", tasks="official", data_dir=str(root))["provenance"]["tasks_digest"]

    shared, first = digest(official_data), digest(tmp_path)
    assert first == shared == digest(tmp_path)  # the files' names and bytes decide, not where they are
    data = bytearray(copied.read_bytes())
    at = data.index(b'"prompt"') + len(b'"prompt": "') + 1
    data[at] = ord(chr(data[at]).swapcase()) if chr(data[at]).isalpha() else ord("x")
    copied.write_bytes(bytes(data))
    assert digest(tmp_path) != first


def test_report_warns_on_stderr_when_runs_differ_and_keeps_the_tables(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out, seed in ((a, "0"), (b, "1")):
        assert main(["eval", "CatAPI-v0", "--agent", "oracle", "--episodes", "2", "--no-progress", "--out", str(out),
                     "--env-kwarg", f"world_seed={seed}"]) == 0
    capsys.readouterr()
    assert main(["report", str(a)]) == 0 and main(["report", str(b)]) == 0
    alone = capsys.readouterr()
    assert "warning" not in alone.err

    assert main(["report", str(a), str(b)]) == 0
    both = capsys.readouterr()
    assert both.out == alone.out  # the tables as each file's own
    digests = [read_results(path)[0]["provenance"]["tasks_digest"] for path in (a, b)]
    assert both.err.splitlines() == [f"warning: runs differ in tasks_digest: {digests[0]} ({a}) vs {digests[1]} ({b})"]

    assert main(["report", str(a), str(a)]) == 0
    assert capsys.readouterr().err == ""


def test_provenance_warnings_name_each_differing_key_and_runs_without_provenance():
    base = {"toolgym": "0.1.0", "commit": None, "tasks_source": "official", "tasks_digest": "sha256:ab",
            "data_dir": "/d/tau2bench"}
    other = {**base, "commit": "c" * 40, "tasks_digest": "sha256:cd"}
    assert provenance_warnings([("A", {"provenance": base}), ("B", {"provenance": other})]) == [
        f"warning: runs differ in commit: null (A) vs {'c' * 40} (B)",
        "warning: runs differ in tasks_digest: sha256:ab (A) vs sha256:cd (B)"]
    assert provenance_warnings([("A", {"provenance": base}), ("B", {"provenance": dict(base)})]) == []
    assert provenance_warnings([("A", {"provenance": base}), ("old", {})]) == [
        "warning: old records no provenance (written by an older toolgym): its task data is unknown"]
    # a results file is untrusted: a value cannot write lines of its own to the terminal
    hostile = {**base, "data_dir": "/x\n\x1b[2Jwarning: fake"}
    lines = provenance_warnings([("A", {"provenance": base}), ("B", {"provenance": hostile})])
    assert len(lines) == 1 and "\n" not in lines[0] and "\x1b" not in lines[0]


def test_a_results_file_with_nested_provenance_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"env": "CatAPI-v0", "task_id": "0", "provenance": {"tasks_digest": {"x": [1]}}}) + "\n")
    with pytest.raises(ValueError, match=r"r.jsonl:1: provenance.tasks_digest"):
        read_results(path)


def test_the_commit_is_read_from_the_git_files():
    repo = Path(toolgym.__file__).resolve().parents[1]
    if shutil.which("git") is None or not (repo / ".git").exists():
        pytest.skip("toolgym's source tree is not a git checkout")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    assert source_commit() == head.stdout.strip()


def test_data_check_passes_on_the_shared_data_with_the_runs_digest(official_data, capsys):
    if not (official_data / "tooltalk").is_dir():
        pytest.skip("no official ToolTalk data")
    assert main(["data", "check", "ToolTalk-v0", "--data-dir", str(official_data)]) == 0
    out = capsys.readouterr().out
    assert "present  easy/*.json (28 files)" in out and "present  tooltalk/*.json (50 files)" in out
    assert "microsoft/ToolTalk" in out and out.rstrip().endswith(f"ToolTalk-v0: complete in {official_data}")
    run = header_of("ToolTalk-v0", tasks="official", data_dir=str(official_data))["provenance"]
    assert f"digest: {run['tasks_digest']}" in out  # a run of every split reads what data check digests


def test_data_check_checks_every_domain(official_data, capsys):
    if not (official_data / "tau2bench").is_dir():
        pytest.skip("no official τ² data")
    assert main(["data", "check", "Tau2-v0", "--data-dir", str(official_data)]) == 0
    out = capsys.readouterr().out
    assert all(f"Tau2-v0 {domain}: τ²-bench {domain}" in out for domain in ("airline", "retail", "telecom", "mock"))


def test_data_check_names_a_missing_file_and_its_source(official_data, tmp_path, capsys):
    if not (official_data / "appbench").is_dir():
        pytest.skip("no official AppBench data")
    shutil.copytree(official_data / "appbench", tmp_path / "appbench", ignore=shutil.ignore_patterns("sgd"))
    (tmp_path / "appbench" / "test_ms.json").unlink()
    assert main(["data", "check", "AppBench-v0", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"folder: {tmp_path / 'appbench'}" in out
    assert "present  test_ss.json" in out and "MISSING  test_ms.json" in out
    assert "missing test_ms.json: get it from ruleGreen/AppBench on GitHub" in out
    assert out.rstrip().endswith(f"AppBench-v0: incomplete in {tmp_path}")


def test_data_check_errors_and_envs_without_official_data(tmp_path, capsys):
    assert main(["data", "check", "Nope-v0", "--data-dir", str(tmp_path)]) == 2
    assert "toolgym: error: unknown env id 'Nope-v0'" in capsys.readouterr().err
    assert main(["data", "check", "ToolTalk-v0", "--data-dir", str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err == f"toolgym: error: data check ToolTalk-v0: {tmp_path / 'absent'}: no such folder\n"
    (tmp_path / "file").write_text("x")
    assert main(["data", "check", "ToolTalk-v0", "--data-dir", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["data", "check", "Tabletop-v0"]) == 0
    assert capsys.readouterr().out == "Tabletop-v0 has no official data: its tasks are built-in only\n"


def test_rescored_records_carry_the_provenance_of_the_official_data_replayed(official_data, tmp_path, capsys):
    if not (official_data / "tau2bench").is_dir():
        pytest.skip("no official τ² data")
    out = tmp_path / "rescored.jsonl"
    results = Path(__file__).parent / "data" / "rescore" / "tau2_mock_results.json"
    assert main(["rescore", str(results), "--format", "tau2", "--data-dir", str(official_data), "--out", str(out)]) == 0
    run = header_of("Tau2-v0", domain="mock", tasks="official", data_dir=str(official_data))["provenance"]
    assert run["data_dir"] == str(official_data / "tau2bench")
    assert [record["provenance"] for record in read_results(out)] == [run] * 4


def test_a_run_on_a_served_env_records_the_servers_task_data(serve_app):
    pytest.importorskip("fastapi")
    from toolgym.remote import make as make_remote
    from toolgym.serve.openenv_app import build_app

    env = make_remote(serve_app(build_app("CatAPI-v0", {"world_seed": 1})), "CatAPI-v0", world_seed=1)
    try:
        provenance = run_header("CatAPI-v0", env, "oracle", 0, {"world_seed": 1}, None)["provenance"]
    finally:
        env.close()
    assert provenance == header_of("CatAPI-v0", world_seed=1)["provenance"]


def test_an_env_whose_tasks_have_no_json_form_runs_with_a_warning_and_no_digest():
    from toolgym.envs.example import ExampleEnv

    class CallableTasks(ExampleEnv):
        def task_records(self):
            return {"0": lambda: None}

    env = CallableTasks()
    with pytest.warns(UserWarning, match=r"Example-v0: no digest of its built-in tasks \(no canonical JSON form "
                                         r"for function\); override task_records\(\)"):
        assert env.tasks_provenance() == {"tasks_source": "built-in", "tasks_digest": None}


def _worktree_whose_head_is(tmp_path: Path, make_head) -> Path:
    """A checkout whose ``.git`` file points (``gitdir:``) to a folder whose HEAD ``make_head`` makes."""
    git_dir = tmp_path / "gitdir"
    git_dir.mkdir(parents=True)
    make_head(git_dir / "HEAD")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
    return checkout


@pytest.mark.timeout(60)  # a reader that waits on the FIFO fails here instead of hanging the suite
@pytest.mark.parametrize("make_head", [os.mkfifo, lambda head: head.symlink_to("/dev/zero")],
                         ids=["FIFO HEAD", "HEAD -> /dev/zero"])
def test_the_commit_reader_refuses_a_fifo_or_device_head_at_once(tmp_path, make_head):
    from toolgym.eval.provenance import commit_of

    checkout = _worktree_whose_head_is(tmp_path, make_head)
    assert commit_of(checkout) is None
    sha = "a" * 40
    good = _worktree_whose_head_is(tmp_path / "good", lambda head: head.write_text(sha + "\n"))
    assert commit_of(good) == sha


def test_provenance_values_are_compared_in_full_and_shown_escaped():
    long = "x" * 90
    differ_late = provenance_warnings([("a", {"provenance": {"data_dir": long + "1"}}),
                                       ("b", {"provenance": {"data_dir": long + "2"}})])
    assert len(differ_late) == 1 and "runs differ in data_dir" in differ_late[0]
    unprintable = provenance_warnings([("a", {"provenance": {"tasks_source": "built-in\x00"}}),
                                       ("b", {"provenance": {"tasks_source": "built-in\x01"}})])
    assert len(unprintable) == 1 and "built-in\\x00 (a) vs built-in\\x01 (b)" in unprintable[0]
    hostile = provenance_warnings([("a\x1b[2J", {"provenance": {"k\x07": "\x1b]0;x\x07"}}),
                                   ("b", {"provenance": {"k\x07": "y"}})])
    assert hostile == ["warning: runs differ in k\\x07: \\x1b]0;x\\x07 (a\\x1b[2J) vs y (b)"]
