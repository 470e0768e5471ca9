"""The results-file rule shared by every runner (resume, overwrite, refuse), the record header
and ``toolgym report``."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import toolgym
import toolgym.eval.runner as runner
from toolgym.agents.llm import LLMAgent
from toolgym.llm import Completion
from toolgym.eval.batch import evaluate_batched
from toolgym.eval.cli import main

TOOLTALK = ["ToolTalk-v0", "--env-kwarg", "text_similarity=lexical", "--no-progress"]


def eval_tooltalk(out, *flags: str, agent: str = "oracle") -> int:
    return main(["eval", *TOOLTALK, "--agent", agent, "--out", str(out), *flags])


def lines(path) -> list[str]:
    return path.read_text().splitlines()


def test_existing_out_is_refused_without_resume_or_overwrite(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert eval_tooltalk(out, "--episodes", "2") == 0
    before = out.read_text()
    capsys.readouterr()
    assert eval_tooltalk(out, "--episodes", "3") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toolgym: error: {out} already holds results")
    assert "--resume" in err and "--overwrite" in err
    assert out.read_text() == before  # nothing truncated


def test_resume_skips_the_finished_episodes_of_a_non_llm_agent(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.jsonl"
    assert eval_tooltalk(out, "--episodes", "2") == 0
    first_two = lines(out)
    played = []
    real_run_episode = runner.run_episode
    monkeypatch.setattr(runner, "run_episode",
                        lambda env, agent, task_id, seed: played.append(task_id) or real_run_episode(env, agent,
                                                                                                     task_id, seed))
    assert eval_tooltalk(out, "--episodes", "4", "--resume") == 0
    assert played == ["FindAlarms-easy", "ChangePassword-easy"]  # the first two are not run again
    assert lines(out)[:2] == first_two and len(lines(out)) == 4
    assert [json.loads(line)["task_id"] for line in lines(out)] == [
        "AddAlarm-easy", "DeleteAlarm-easy", "FindAlarms-easy", "ChangePassword-easy"]
    assert "easy      4" in capsys.readouterr().out  # the table counts the kept episodes too


def test_resume_reruns_errored_episodes_and_drops_a_torn_line(tmp_path):
    out = tmp_path / "r.jsonl"
    assert eval_tooltalk(out, "--episodes", "3") == 0
    first, second, third = lines(out)
    errored = {**json.loads(second), "metrics": None, "error": "episode did not end within 500 steps"}
    out.write_text(first + "\n" + json.dumps(errored) + "\n" + third[: len(third) // 2])
    assert eval_tooltalk(out, "--episodes", "3", "--resume") == 0
    records = [json.loads(line) for line in lines(out)]  # every line parses: the torn one is gone
    assert [r["task_id"] for r in records] == ["AddAlarm-easy", "DeleteAlarm-easy", "FindAlarms-easy"]
    assert lines(out)[0] == first and all(r["metrics"]["success"] == 1.0 and "error" not in r for r in records)


def test_resume_refuses_a_file_of_other_settings(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert eval_tooltalk(out, "--episodes", "2") == 0
    before = out.read_text()
    capsys.readouterr()
    assert eval_tooltalk(out, "--episodes", "2", "--resume", agent="random") == 2
    err = capsys.readouterr().err
    assert "other settings (agent" in err and '"oracle" there, "random" now' in err and "--overwrite" in err
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--no-progress", "--out", str(out), "--resume"]) == 2
    assert "other settings (env" in capsys.readouterr().err
    assert out.read_text() == before


def test_overwrite_replaces_and_excludes_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    assert eval_tooltalk(out, "--episodes", "3") == 0
    assert eval_tooltalk(out, "--episodes", "1", "--overwrite") == 0
    assert len(lines(out)) == 1
    with pytest.raises(SystemExit) as exc:
        eval_tooltalk(out, "--resume", "--overwrite")
    assert exc.value.code == 2


def test_the_batched_runner_follows_the_same_rule(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"env": "ToolTalk-v0", "task_id": "AddAlarm-easy"}\n')

    class Silent:
        name = "silent"

        def describe(self):
            return {"backend": self.name, "model": "silent"}

        def generate(self, requests, sampling):
            return [Completion(text="") for _ in requests]

    with pytest.raises(ValueError, match="already holds results: pass --resume"):
        evaluate_batched("ToolTalk-v0", LLMAgent(Silent()), "silent", {"text_similarity": "lexical"}, episodes=1,
                         out=out, progress=False)
    assert lines(out) == ['{"env": "ToolTalk-v0", "task_id": "AddAlarm-easy"}']


def test_records_store_the_effective_scoring_and_mode(tmp_path):
    out = tmp_path / "h.jsonl"
    assert main(["eval", "HomeSearch-v0", "--agent", "oracle", "--episodes", "1", "--no-progress",
                 "--out", str(out)]) == 0
    record = json.loads(lines(out)[0])
    assert (record["scoring"], record["mode"], record["task_set"], record["env_kwargs"]) == (
        "paper", "single_step", "built-in", {})
    assert {"env", "task_set", "task_id", "split", "metrics", "trajectory", "return", "agent", "seed",
            "toolgym_version", "env_kwargs"} <= set(record)
    out = tmp_path / "t.jsonl"
    assert eval_tooltalk(out, "--episodes", "1", "--scoring", "paper_compat") == 0
    record = json.loads(lines(out)[0])
    assert record["scoring"] == "paper_compat" and record["mode"] is None


def test_report_reprints_the_table_of_eval(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--episodes", "4", "--no-progress",
                 "--out", str(out)]) == 0
    table = capsys.readouterr().out.split(f"{out}:")[0].strip()
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{out}: 4 episode(s), agent oracle, seed 0" in printed
    assert table in printed and "OpenWeather-v0 (built-in tasks, scoring=paper)" in table


@pytest.mark.parametrize("content, message", [
    ("", "holds no episode records"),
    ('{"env": "ToolTalk-v0", "task_id": "a"}\n{"env": \n', "r.jsonl:2: not a JSON line"),
    ('[1, 2]\n', "r.jsonl:1: not an episode record"),
])
def test_report_names_the_file_and_line_of_a_bad_file(tmp_path, capsys, content, message):
    out = tmp_path / "r.jsonl"
    out.write_text(content)
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolgym: error: ") and message in err and str(out) in err


@pytest.mark.parametrize("flag", ["--resume", "--overwrite"])
def test_resume_and_overwrite_need_out(capsys, flag):
    assert main(["eval", *TOOLTALK, "--agent", "oracle", flag]) == 2
    assert f"toolgym: error: {flag} needs --out" in capsys.readouterr().err


def test_report_of_an_official_run(official_data, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--tasks", "official", "--data-dir", str(official_data), "--agent",
                 "oracle", "--episodes", "3", "--no-progress", "--out", str(out)]) == 0
    record = json.loads(lines(out)[0])
    assert record["task_set"] == "official" and record["task_id"] == "0" and record["scoring"] == "paper"
    capsys.readouterr()
    assert main(["report", str(out)]) == 2  # the file names a folder: only its owner says to read it
    assert "env_kwargs names a path (data_dir)" in capsys.readouterr().err
    assert main(["report", str(out), "--trust-env-kwargs"]) == 0
    assert "OpenWeather-v0 (official tasks, scoring=paper)" in capsys.readouterr().out


# An action each env refuses or scores 0 (VirtualHome: a line that fails its precondition, whose
# metrics then carry first_failure as an object).
FAILING = {"VirtualHome-v0": "Agent.Grab(table)"}


@pytest.mark.parametrize("env_id", [e for e in toolgym.ENV_IDS if e != "Tabletop-v0"] + [
    pytest.param("Tabletop-v0", marks=pytest.mark.slow)])
def test_a_failed_episode_writes_a_record_that_reads_back(env_id, tmp_path):
    """Whatever the metrics of a failed episode hold, the results file they go to is readable
    (resume, report and judge read it back through the same checks)."""
    if env_id == "Tabletop-v0":
        pytest.importorskip("pybullet")
    task_id = select_first_task(env_id)
    replay = tmp_path / "actions.jsonl"
    replay.write_text(json.dumps({"task_id": task_id, "actions": [FAILING.get(env_id, "no action at all ###")]}))
    out = tmp_path / "r.jsonl"
    assert main(["eval", env_id, "--agent", f"replay:{replay}", "--episodes", "1", "--no-progress",
                 "--out", str(out)]) == 0
    records = [r for r in runner.read_results(out) if "task_id" in r]
    assert [r["task_id"] for r in records] == [task_id] and not records[0].get("error")
    assert records[0]["metrics"]["success"] == 0
    if env_id == "VirtualHome-v0":
        assert records[0]["metrics"]["first_failure"]["text"] == "Agent.Grab(table)"


def select_first_task(env_id: str) -> str:
    env = gym.make(env_id)
    try:
        return runner.select_tasks(env)[0]
    finally:
        env.close()
