"""Reports a researcher can cite (issue 47): every table says what the run was and whether its
number is leaderboard-comparable; BFCL's overall columns; report --data-dir; --trials --resume."""

from __future__ import annotations

import json

import pytest

import toolgym  # noqa: F401 - registers the envs
from toolgym.eval.cli import main
from toolgym.eval.runcard import comparability, header_lines, run_card
from toolgym.eval.view import paper_tables


def _tau2_record(**changes) -> dict:
    """A record of the run the τ² leaderboard makes: official base tasks, an LLM user, τ²'s
    profile, 4 trials, τ²'s caps, the released evaluator's scoring."""
    record = {"env": "Tau2-v0", "task_id": "0", "split": "base", "task_set": "official", "agent": "openai:URL#m",
              "model": "m", "prompt_format": "tau2", "scoring": "paper_compat", "trials": 4, "trial": 0,
              "env_kwargs": {"domain": "retail", "tasks": "official", "scoring": "paper_compat",
                             "user": "llm:openai:http://127.0.0.1:8000/v1#gpt-4.1"},
              "provenance": {"tasks_source": "official", "tasks_digest": "sha256:0123456789abcdef0123"},
              "metrics": {"reward": 1.0, "success": 1}}
    for key, value in changes.items():
        if key == "env_kwargs":
            record["env_kwargs"] = {**record["env_kwargs"], **value}
        else:
            record[key] = value
    return record


def test_a_run_as_the_leaderboard_makes_it_is_comparable():
    card = run_card([_tau2_record()])
    assert comparability(card, tasks_total=1) == []
    run, verdict = header_lines(card, tasks_total=1)
    assert run == ("run: domain retail, split base, tasks official sha256:0123456789ab, user llm (gpt-4.1), "
                   "agent openai:URL#m, profile tau2, scoring paper_compat, trials 4, caps max_steps 200, "
                   "max_messages 200, max_errors 10")
    assert verdict == "leaderboard-comparable: yes"


@pytest.mark.parametrize("changes, reason", [
    ({"env_kwargs": {"user": "scripted"}},
     "scripted user (the original's user is an LLM: --env-kwarg user=llm:openai:URL#MODEL)"),
    ({"env_kwargs": {"max_steps": 30}}, "max_steps 30 (the original's: 200)"),
    ({"env_kwargs": {"max_messages": None}}, "max_messages none (the original's: 200)"),
    ({"env_kwargs": {"solo_mode": True, "user": "scripted"}},
     "solo mode (the leaderboard's runs have a user; compare with τ³'s solo-mode runs)"),
    ({"trials": 1}, "1 trial(s) per task (the leaderboard's: 4, --trials 4)"),
    ({"prompt_format": "chat"}, "agent protocol profile chat (the original's requests: --prompt-format tau2)"),
    ({"scoring": "paper"}, "scoring=paper (the published numbers are the released evaluator's: --scoring "
                           "paper_compat)"),
    ({"provenance": {"tasks_source": "built-in"}}, "built-in tasks (the published numbers are on the official "
                                                   "ones: --tasks official)"),
    ({"env_kwargs": {"split": "test"}}, "split test (the leaderboard's: base)"),
    ({"model": None, "agent": "oracle", "prompt_format": None}, "agent oracle is not a model"),
    ({"error": "backend failed"}, "1 episode(s) ended with an error"),
    ({"metrics": {"reward": 0.0, "success": 0, "unscored": ["NL_ASSERTION"]}},
     "1 episode(s) not fully graded (no judge for their NL assertions)"),
])
def test_each_difference_from_the_original_is_a_reason(changes, reason):
    assert comparability(run_card([_tau2_record(**changes)]), tasks_total=1) == [reason]


def test_a_solo_run_says_it_has_no_user():
    run, _ = header_lines(run_card([_tau2_record(env_kwargs={"solo_mode": True, "domain": "telecom"})]), tasks_total=1)
    assert "domain telecom, split base, tasks official sha256:0123456789ab, user none (solo mode), agent" in run


def test_a_subset_of_the_tasks_is_a_reason():
    assert comparability(run_card([_tau2_record()]), tasks_total=50) == ["1 of 50 tasks run"]


def test_a_results_file_cannot_break_the_header_lines():
    card = run_card([_tau2_record(agent="x\x1b[2Jy", model={"a": 1}, trials="4", env_kwargs={"domain": "d" * 10_000},
                                  provenance={"tasks_source": "official", "tasks_digest": ["not", "text"]})])
    run, verdict = header_lines(card)
    assert "x?[2Jy" in run and "\x1b" not in run + verdict and 'model {"a": 1}' in run
    assert f"domain {'d' * 200}..., split" in run  # a setting is cut to 200 characters
    assert "1 trial(s) per task" in verdict  # a trials field that is not a number counts as none


def test_eval_report_and_view_print_the_same_card(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "Tau2-v0", "--env-kwarg", "domain=mock", "--agent", "oracle", "--episodes", "2",
                 "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    title = printed.index("Tau2-v0 (built-in tasks, scoring=paper)")
    run, verdict = printed[title + 1:title + 3]
    assert run.startswith("run: domain mock, split base, tasks built-in sha256:")
    assert run.endswith("user scripted, agent oracle, profile -, scoring paper, trials 1, caps max_steps 200, "
                        "max_messages 200, max_errors 10")
    assert verdict == ("leaderboard-comparable: no: built-in tasks (the published numbers are on the official ones: "
                       "--tasks official); 2 of 3 tasks run; agent oracle is not a model; scripted user (the "
                       "original's user is an LLM: --env-kwarg user=llm:openai:URL#MODEL); 1 trial(s) per task (the "
                       "leaderboard's: 4, --trials 4); scoring=paper (the published numbers are the released "
                       "evaluator's: --scoring paper_compat)")
    assert main(["report", str(out)]) == 0
    reported = capsys.readouterr().out.splitlines()
    assert run in reported and verdict in reported
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert paper_tables(records)[0]["card"] == [run, verdict.replace("2 of 3 tasks run; ", "")]


def test_an_env_without_a_leaderboard_says_so(tmp_path, capsys):
    assert main(["eval", "OpenWeather-v0", "--agent", "oracle", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert ("comparable with the paper's numbers: no: built-in tasks (the published numbers are on the official "
            "ones: --tasks official); agent oracle is not a model; scoring=paper (the published numbers are the "
            "released evaluator's: --scoring paper_compat)\n") in printed


def test_trials_resume_plays_only_the_missing_trials(tmp_path, capsys):
    out = tmp_path / "trials.jsonl"
    command = ["eval", "Tau2-v0", "--env-kwarg", "domain=mock", "--agent", f"{__name__}:CountingOracle",
               "--trials", "2", "--no-progress", "--out", str(out)]
    assert main(command) == 0
    full = [json.loads(line) for line in out.read_text().splitlines()]
    tasks = [r["task_id"] for r in full[:3]]
    assert [(r["task_id"], r["trial"]) for r in full[:-1]] == [(t, k) for k in (0, 1) for t in tasks]
    # an interrupted run: the first three episodes written, and half of the fourth line
    out.write_text("".join(json.dumps(r) + "\n" for r in full[:3]) + json.dumps(full[3])[:40])
    CountingOracle.played.clear()
    capsys.readouterr()
    assert main(command) == 2 and "--resume" in capsys.readouterr().err  # an existing file is not replaced
    assert main([*command, "--resume"]) == 0
    assert CountingOracle.played == [(t, 1) for t in tasks]  # trial 1 only, reset with seed 0 + 1
    resumed = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["task_id"], r["trial"]) for r in resumed[:-1]] == [(r["task_id"], r["trial"]) for r in full[:-1]]
    assert resumed[-1]["pass^k"] == full[-1]["pass^k"] == {"base": {"pass^1": 1.0, "pass^2": 1.0}}
    assert main([*command[:-2], "--trials", "3", "--out", str(out), "--resume"]) == 2
    assert "other settings (trials; trials: 2 there, 3 now)" in capsys.readouterr().err


class CountingOracle:
    """The oracle, noting the (task, trial) of each episode it plays (trial = the reset seed)."""

    played: list[tuple[str, int]] = []

    def __init__(self, env):
        self.env = env.unwrapped

    def reset(self, observation, info):
        CountingOracle.played.append((info["task_id"], self.env._np_random_seed))

    def act(self, observation, info):
        return self.env.oracle_action()


def test_tau2_official_tasks_are_the_base_subset(official_data):
    import gymnasium as gym

    env = gym.make("Tau2-v0", domain="retail", tasks="official", data_dir=str(official_data)).unwrapped
    assert {env.task_split(t) for t in env.task_ids()} == {"base"} and len(env.task_ids()) == 114


def _bfcl_records(outcomes: dict[str, list[int]], agent: str = "openai:URL#m") -> list[dict]:
    """Records of one run of BFCL-v0's built-in tasks over the categories of ``outcomes``."""
    return [{"env": "BFCL-v0", "task_id": f"{category}_{i}", "split": category, "task_set": "built-in",
             "agent": agent, "model": "m", "prompt_format": "bfcl-fc", "scoring": "paper_compat", "seed": 0,
             "env_kwargs": {"category": list(outcomes), "scoring": "paper_compat"}, "metrics": {"success": ok}}
            for category, results in outcomes.items() for i, ok in enumerate(results)]


# Two files of one model: BFCL's columns over both, categories not run counted 0 with their full item count.
FILE_A = {"simple_python": [1, 1, 1, 0], "simple_java": [1, 0], "multiple": [1]}
FILE_B = {"live_simple": [1, 0], "live_multiple": [1, 1, 1], "irrelevance": [1], "multi_turn_base": [1, 0],
          "simple_python": []}  # a category with built-in tasks, for report to make the env


def test_bfcl_overall_is_computed_as_the_leaderboard_computes_it():
    from toolgym.envs.bfcl.leaderboard import category_counts, leaderboard_columns

    columns = leaderboard_columns(category_counts(_bfcl_records(FILE_A) + _bfcl_records(FILE_B)))
    simple = (0.75 + 0.5 + 0) / 3
    non_live = (simple + 1.0 + 0 + 0) / 4
    live = (0.5 * 2 + 1.0 * 3 + 0 * 16 + 0 * 24) / (2 + 3 + 16 + 24)  # weighted by items
    multi_turn, irrelevance = 0.5 / 4, (1.0 + 0) / 2
    assert columns["Non-Live Simple AST"].accuracy == pytest.approx(simple)
    assert columns["Live Acc"].accuracy == pytest.approx(live) and columns["Live Acc"].shown is not None
    assert columns["Non-Live AST Acc"].accuracy == pytest.approx(non_live)
    assert columns["Non-Live AST Acc"].shown is None  # BFCL's overall table shows N/A for it
    assert columns["Multi Turn Acc"].shown == pytest.approx(multi_turn)
    assert columns["Irrelevance Detection"].accuracy == 0.5 and columns["Relevance Detection"].shown is None
    assert columns["Agentic Acc"].shown == 0.0
    overall = (10 * non_live + 10 * live + 10 * irrelevance + 30 * multi_turn + 40 * 0) / 100
    assert columns["Overall Acc"].shown == pytest.approx(overall)
    perfect = leaderboard_columns({c: (n, n) for c, n in __import__(
        "toolgym.envs.bfcl.leaderboard", fromlist=["ENTRY_COUNTS"]).ENTRY_COUNTS.items()})
    assert {c: s.shown for c, s in perfect.items()} == {c: 1.0 for c in perfect}


def test_report_prints_bfcl_columns_across_files(tmp_path, capsys):
    paths = []
    for name, outcomes in (("a", FILE_A), ("b", FILE_B)):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in _bfcl_records(outcomes)))
    assert main(["report", *map(str, paths)]) == 0
    printed = capsys.readouterr().out.splitlines()
    start = printed.index(next(line for line in printed if line.startswith("BFCL leaderboard columns")))
    head, _, row, verdict = printed[start + 1:start + 5]
    assert head.split()[:4] == ["agent", "n", "categories", "Overall"]
    assert row.split() == ["openai:URL#m", "15", "7", "13.18", "N/A", "8.89", "12.50", "0.00", "N/A", "N/A", "N/A"]
    assert verdict.startswith("openai:URL#m: leaderboard-comparable: no: built-in tasks")
    assert verdict.endswith("15 of 22 leaderboard categories not run (Overall counts them 0): simple_javascript, "
                            "parallel, parallel_multiple, live_parallel, ...")


def test_tau_tables_per_domain(tmp_path, capsys):
    paths = []
    for domain, successes in (("airline", [1, 1, 0, 1]), ("retail", [0, 0, 1, 1])):
        records = [_tau2_record(task_id=str(i // 2), trial=i % 2, trials=2, env_kwargs={"domain": domain},
                                metrics={"reward": float(ok), "reward_without_judge": float(ok), "success": ok})
                   for i, ok in enumerate(successes)]
        for record in records:
            record["env_kwargs"] = {"domain": domain, "scoring": "paper_compat"}
        paths.append(tmp_path / f"{domain}.jsonl")
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", *map(str, paths)]) == 0
    printed = capsys.readouterr().out.splitlines()
    start = printed.index("τ per domain")
    assert printed[start + 1].split() == ["env", "domain", "agent", "tasks", "reward", "pass^1", "pass^2"]
    # airline: task 0 passes twice, task 1 once; retail: task 0 never, task 1 twice
    assert printed[start + 3].split() == ["Tau2-v0", "airline", "openai:URL#m", "2", "75.0", "75.0", "50.0"]
    assert printed[start + 4].split() == ["Tau2-v0", "retail", "openai:URL#m", "2", "50.0", "50.0", "50.0"]


def test_report_data_dir_replaces_the_files_folder(official_data, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "OpenWeather-v0", "--tasks", "official", "--data-dir", str(official_data), "--agent",
                 "oracle", "--episodes", "3", "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    assert "pass --data-dir DIR, or --trust-env-kwargs" in capsys.readouterr().err
    assert main(["report", str(out), "--data-dir", str(official_data)]) == 0
    captured = capsys.readouterr()
    assert "OpenWeather-v0 (official tasks, scoring=paper)" in captured.out and not captured.err
    assert "3 of 100 tasks run" in captured.out  # the table counts the folder's tasks
    record = json.loads(out.read_text().splitlines()[0])
    record["provenance"]["tasks_digest"] = "sha256:other"
    out.write_text(json.dumps(record) + "\n")
    assert main(["report", str(out), "--data-dir", str(official_data)]) == 0
    assert "the run's tasks have digest sha256:other, the data in --data-dir sha256:" in capsys.readouterr().err
