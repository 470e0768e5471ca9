"""What a live run under a benchmark's protocol profile does by default (issue 47): τ²'s 4 trials
with τ²'s per-trial seeds under ``tau2``, τ-bench's 1 under ``tau-bench``; ``--trials`` overrides."""

from __future__ import annotations

import pytest

pytest.importorskip("openai")

from tests.test_tau2_protocol import FIXTURE, recording_server  # noqa: E402
from toolgym.envs.tau2.protocol import trial_seeds  # noqa: E402
from toolgym.eval.cli import main  # noqa: E402
from toolgym.eval.runner import read_results  # noqa: E402


def run(url, official_data, tmp_path, *flags):
    out = tmp_path / "run.jsonl"
    code = main(["eval", "Tau2-v0", "--tasks", "official", "--data-dir", str(official_data), "--env-kwarg",
                 "domain=mock", "--agent", f"openai:{url}#m", "--episodes", "1", "--no-progress", "--out", str(out),
                 *flags])
    assert code == 0
    return [r for r in read_results(out) if "task_id" in r]


def test_the_tau2_profile_runs_tau2s_four_trials_with_tau2s_seeds(official_data, tmp_path, capsys):
    with recording_server([]) as (url, bodies):
        records = run(url, official_data, tmp_path)
    assert [(r["trial"], r["trials"]) for r in records] == [(0, 4), (1, 4), (2, 4), (3, 4)]
    # one request a trial (the server says ###STOP###), each with the seed τ²'s own code draws for it
    assert sorted(body["seed"] for body in bodies) == sorted(FIXTURE["trial_seeds"])
    assert "toolgym: 4 trials per task, as the leaderboard of the tau2 profile's benchmark runs them (--trials " \
        "sets it)" in capsys.readouterr().err


def test_trials_overrides_the_profiles_default(official_data, tmp_path, capsys):
    with recording_server([]) as (url, bodies):
        records = run(url, official_data, tmp_path, "--trials", "1")
    assert [r.get("trial", 0) for r in records] == [0] and [b["seed"] for b in bodies] == trial_seeds(1)
    assert "trials per task" not in capsys.readouterr().err


def test_a_run_without_the_profile_has_one_trial(official_data, tmp_path):
    with recording_server([]) as (url, bodies):
        records = run(url, official_data, tmp_path, "--prompt-format", "chat")
    assert len(records) == 1 and len(bodies) == 1 and "seed" not in bodies[0]


def test_the_tau_bench_profile_runs_one_trial(official_data, tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    with recording_server([]) as (url, bodies):
        assert main(["eval", "TauBench-v0", "--tasks", "official", "--data-dir", str(official_data), "--env-kwarg",
                     "domain=retail", "--agent", f"openai:{url}#m", "--episodes", "1", "--no-progress", "--out",
                     str(out)]) == 0
    records = [r for r in read_results(out) if "task_id" in r]
    assert len(records) == 1 and records[0]["prompt_format"] == "tau-bench" and records[0].get("trials", 1) == 1
    assert "trials per task" not in capsys.readouterr().err
