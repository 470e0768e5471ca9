"""``toolgym export`` / ``eval --save-as``: the originals' result files, and rescore reading them back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgym.eval import rescore as rescore_module
from toolgym.eval.cli import main
from toolgym.eval.export import export_records, tau2_messages
from toolgym.eval.runner import evaluate, read_results


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def oracle_run(tmp_path, capsys, official_data, env_id: str, *flags) -> Path:
    out = tmp_path / "run.jsonl"
    code, _, err = run(capsys, "eval", env_id, "--tasks", "official", "--data-dir", official_data, "--agent", "oracle",
                       "--out", out, "--no-progress", *flags)
    assert code == 0, err
    return out


@pytest.mark.parametrize("domain, flags", [("mock", ("--trials", "2")),
                                           ("telecom", ("--split", "small", "--episodes", "3"))])
def test_a_tau2_export_is_taus_results_and_rescores_to_the_runs_rewards(domain, flags, official_data, tmp_path,
                                                                        capsys):
    out = tmp_path / "tau2.json"
    results_file = oracle_run(tmp_path, capsys, official_data, "Tau2-v0", "--env-kwarg", f"domain={domain}",
                              "--save-as", f"tau2:{out}", *flags)
    records = read_results(results_file)
    results = json.loads(out.read_text())
    assert results["info"]["environment_info"]["domain_name"] == domain
    assert results["info"]["max_steps"] == 200 and results["info"]["max_errors"] == 10
    assert [t["id"] for t in results["tasks"]] == list(dict.fromkeys(r["task_id"] for r in records))
    simulations = results["simulations"]
    assert [(s["task_id"], s["trial"], s["reward_info"]["reward"]) for s in simulations] == [
        (r["task_id"], r.get("trial", 0), r["metrics"]["reward"]) for r in records]
    assert all(s["termination_reason"] == r["metrics"]["termination"] for s, r in zip(simulations, records))
    assert simulations[0]["messages"][0] == {"role": "assistant", "content": "Hi! How can I help you today?",
                                             "tool_calls": None, "turn_idx": 0}
    if domain == "telecom":  # the user's own calls and their results, as τ² writes them
        user_calls = [m for s in simulations for m in s["messages"] if m["role"] == "user" and m["tool_calls"]]
        assert user_calls and all(c["requestor"] == "user" for m in user_calls for c in m["tool_calls"])
        assert any(m["role"] == "tool" and m["requestor"] == "user" for s in simulations for m in s["messages"])
    rescored, _ = rescore_module.rescore(out, "tau2", data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in rescored] == ["agree"] * len(records)
    assert [r["rescore"]["reward"] for r in rescored] == [r["metrics"]["reward"] for r in records]
    assert all(r["rescore"]["first_tool_difference"] is None for r in rescored)


def test_tau2_messages_and_reward_info_are_taus_shapes():
    conversation = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_users", "arguments": "{\"k\": 1}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_users", "content": "Error: no such user",
         "requestor": "assistant"}]
    assert tau2_messages(conversation) == [
        {"role": "assistant", "content": None, "turn_idx": 0,
         "tool_calls": [{"id": "call_1", "name": "get_users", "arguments": {"k": 1}, "requestor": "assistant"}]},
        {"id": "call_1", "role": "tool", "content": "Error: no such user", "requestor": "assistant", "error": True,
         "turn_idx": 1}]
    from toolgym.eval.export import tau2_reward_info

    metrics = {"db": 1.0, "communicate": 0.0, "action": 1.0, "reward": 0.0, "basis": ["DB", "COMMUNICATE"]}
    assert tau2_reward_info(metrics) == {"reward": 0.0, "reward_basis": ["DB", "COMMUNICATE"],
                                         "reward_breakdown": {"DB": 1.0, "COMMUNICATE": 0.0},
                                         "db_check": {"db_match": True, "db_reward": 1.0}}


def test_a_tau_bench_export_is_v1s_results_list_and_rescores_to_the_runs_rewards(official_data, tmp_path, capsys):
    results_file = oracle_run(tmp_path, capsys, official_data, "TauBench-v0", "--env-kwarg", "domain=retail",
                              "--episodes", "3")
    out = tmp_path / "tau_bench.json"
    code, printed, _ = run(capsys, "export", results_file, "--format", "tau-bench", "--out", out,
                           "--data-dir", official_data)
    assert code == 0 and printed == f"{out}: τ-bench results, 3 run(s) of retail's test split\n"
    runs = json.loads(out.read_text())
    assert [(r["task_id"], r["trial"], r["reward"]) for r in runs] == [(0, 0, 1.0), (1, 0, 1.0), (2, 0, 1.0)]
    first = runs[0]
    assert first["traj"][0]["role"] == "system" and first["traj"][0]["content"].startswith("# Retail agent policy")
    assert first["traj"][1]["role"] == "user"  # v1 has no greeting
    assert set(first["info"]["task"]) == {"user_id", "actions", "instruction", "outputs"}
    assert [r["info"]["reward_info"]["info"] for r in runs] == [
        {"r_outputs": 1.0, "outputs": {output: True for output in r["info"]["task"]["outputs"]}}
        if r["info"]["task"]["outputs"] else {"r_actions": 1.0, "gt_data_hash": ""} for r in runs]
    rescored, _ = rescore_module.rescore(out, "tau-bench", data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in rescored] == ["agree"] * 3
    assert sum(r["rescore"]["tool_outputs"]["compared"] for r in rescored) > 0


def test_a_bfcl_export_is_bfcls_layout_in_both_modes(official_data, tmp_path):
    records = []
    for category, episodes in (("simple_python", 2), ("multi_turn_miss_func", 1), ("irrelevance", 1)):
        kept, _ = evaluate("BFCL-v0", "oracle", {"tasks": "official", "category": category,
                                                  "data_dir": str(official_data)}, episodes=episodes, progress=False)
        records += kept
    out = tmp_path / "bfcl"
    message = export_records(records, "bfcl", out)
    assert message.splitlines()[0].startswith(
        f"{out}: BFCL result files of 3 categories for model gpt-4.1-2025-04-14-FC (score with: "
        f"BFCL_PROJECT_ROOT={out} bfcl evaluate")
    result = out / "result" / "gpt-4.1-2025-04-14-FC"
    single = [json.loads(line) for line in (result / "non_live" / "BFCL_v4_simple_python_result.json").open()]
    assert single[0] == {"id": "simple_python_0", "result": [
        {"calculate_triangle_area": '{"base": 10, "height": 5, "unit": "units"}'}]}
    multi_file = result / "multi_turn" / "BFCL_v4_multi_turn_miss_func_result.json"
    (multi,) = [json.loads(line) for line in multi_file.open()]
    turns = multi["result"]
    assert len(turns) == 5 and all(turn[-1] == "" for turn in turns)  # each turn ends with an answer of no call
    assert turns[0][0][0] == {"cd": '{"folder": "document"}'}
    score = (out / "score" / "gpt-4.1-2025-04-14-FC" / "non_live" / "BFCL_v4_simple_python_score.json").read_text()
    assert json.loads(score.splitlines()[0]) == {"accuracy": 1.0, "correct_count": 2, "total_count": 2}
    overall = json.loads((out / "score" / "gpt-4.1-2025-04-14-FC" / "data_overall.json").read_text())
    board = overall["leaderboard"]  # toolgym.envs.bfcl.leaderboard's columns: a category not run counts 0
    assert board["Overall Acc"] == pytest.approx((10 * (1 / 3) / 4 + 10 * 0.5 + 30 * 0.25) / 100)
    assert board["Multi Turn Acc"] == 0.25 and board["Irrelevance Detection"] == board["Non-Live AST Acc"] == "N/A"
    assert overall["categories"]["simple_python"] == {"accuracy": 1.0, "correct_count": 2, "total_count": 2}
    assert "BFCL leaderboard columns" in message and "Overall Acc" in message
    rescored, runs = rescore_module.rescore(out, "bfcl", data_dir=str(official_data))
    assert [(r.domain, r.task_id, r.reward) for r in runs] == [
        ("multi_turn_miss_func", "multi_turn_miss_func_0", 1.0), ("irrelevance", "irrelevance_0", 1.0),
        ("simple_python", "simple_python_0", 1.0), ("simple_python", "simple_python_1", 1.0)]
    assert [r["rescore"]["verdict"] for r in rescored] == ["agree"] * 4 and rescored[0]["scoring"] == "paper_compat"
    score_file = out / "score" / "gpt-4.1-2025-04-14-FC" / "non_live" / "BFCL_v4_simple_python_score.json"
    with score_file.open("a") as failed:
        failed.write(json.dumps({"id": "simple_python_1", "valid": False}) + "\n")  # BFCL's verdict: failed
    rescored, _ = rescore_module.rescore(out, "bfcl", data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in rescored] == ["agree", "agree", "agree", "differ"]
    export_records(records, "bfcl", tmp_path / "prompting", str(official_data), bfcl_model="gpt-4.1-2025-04-14")
    prompted = tmp_path / "prompting" / "result" / "gpt-4.1-2025-04-14" / "non_live"
    lines = [json.loads(line)["result"] for line in (prompted / "BFCL_v4_simple_python_result.json").open()]
    assert lines == ["[calculate_triangle_area(base=10, height=5, unit='units')]",
                     "[math.factorial(number=5)]"]  # BFCL's own name, with its dot


def test_what_cannot_be_exported_is_one_error_line(official_data, tmp_path, capsys):
    builtin = tmp_path / "builtin.jsonl"
    assert run(capsys, "eval", "Tau2-v0", "--env-kwarg", "domain=mock", "--agent", "oracle", "--out", builtin,
               "--no-progress")[0] == 0
    code, _, err = run(capsys, "export", builtin, "--format", "tau2", "--out", tmp_path / "x.json")
    assert code == 2 and err == (f"toolgym: error: {builtin}: only runs of official tasks (--tasks official) can be "
                                 f"exported: the original's tools grade against its own task files\n")
    code, _, err = run(capsys, "export", builtin, "--format", "bfcl", "--out", tmp_path / "x")
    assert code == 2 and err == f"toolgym: error: {builtin}: the bfcl format holds BFCL-v0 runs, not Tau2-v0\n"
    code, _, err = run(capsys, "eval", "Tau2-v0", "--agent", "oracle", "--save-as", "tau2:x.json")
    assert code == 2 and err == "toolgym: error: --save-as exports the run's results file: give --out too\n"
    code, _, err = run(capsys, "eval", "Tau2-v0", "--agent", "oracle", "--out", tmp_path / "o.jsonl",
                       "--save-as", "csv:x")
    assert code == 2 and "give FORMAT:PATH with FORMAT one of tau-bench, tau2, bfcl" in err
    official = oracle_run(tmp_path, capsys, official_data, "Tau2-v0", "--env-kwarg", "domain=mock", "--episodes", "1",
                          "--overwrite")
    (record,) = read_results(official)
    record["conversation"] = [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 5}}]}]
    official.write_text(json.dumps(record) + "\n")
    code, _, err = run(capsys, "export", official, "--format", "tau2", "--out", tmp_path / "x.json")
    assert code == 2 and err.count("\n") == 1 and "create_task_1: conversation is not a list of chat messages" in err
    del record["conversation"]  # a record written before records kept the conversation
    official.write_text(json.dumps(record) + "\n")
    code, _, err = run(capsys, "export", official, "--format", "tau2", "--out", tmp_path / "x.json")
    assert code == 2 and "record has no 'conversation'" in err and not (tmp_path / "x.json").exists()


def test_a_bfcl_folder_rescore_cannot_read_is_one_error_line(tmp_path, capsys):
    code, _, err = run(capsys, "rescore", tmp_path, "--format", "bfcl")
    assert code == 2 and err == (f"toolgym: error: {tmp_path}: expected BFCL's result/<model>/ with one model, "
                                 f"found none\n")
    results = tmp_path / "result" / "some-model-FC" / "non_live"
    results.mkdir(parents=True)
    (results / "BFCL_v4_simple_python_result.json").write_text('{"id": "simple_python_0", "result": []}\n')
    code, _, err = run(capsys, "rescore", tmp_path, "--format", "bfcl")
    assert code == 2 and "no score file" in err and err.count("\n") == 1
    scores = tmp_path / "score" / "some-model-FC" / "non_live"
    scores.mkdir(parents=True)
    (scores / "BFCL_v4_simple_python_score.json").write_text('{"accuracy": 0.0}\n')
    (results / "BFCL_v4_simple_python_result.json").write_text('{"id": "simple_python_0", "result": [}\n')
    code, _, err = run(capsys, "rescore", tmp_path, "--format", "bfcl")
    assert code == 2 and err.endswith("BFCL_v4_simple_python_result.json: line 1 is not JSON\n")
    (results / "BFCL_v4_simple_python_result.json").write_text('{"result": []}\n')
    code, _, err = run(capsys, "rescore", tmp_path, "--format", "bfcl")
    assert code == 2 and "not a BFCL result file: line 1: id: Field required" in err
