"""``rescore --format tau2`` on τ³ files (issue 50 item 4): each run's task as the file holds it is
compared with today's task of its id by digest, and a line says how many runs were graded on
older versions; banking_knowledge runs replay under the file's retrieval config."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from toolgym.eval import rescore as rescore_module
from toolgym.eval.cli import main
from toolgym.eval.rescore import task_digest

TAU2_FILE = Path(__file__).parent / "data" / "rescore" / "tau2_mock_results.json"


def rescore(capsys, path, *flags):
    code = main(["rescore", str(path), "--format", "tau2", *map(str, flags)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_of_todays_tasks_says_so(official_data, capsys):
    code, out, _ = rescore(capsys, TAU2_FILE, "--data-dir", official_data)
    assert code == 0
    assert out.splitlines()[1] == "task versions: all 4 compared run(s) ran on today's version of their task"


def test_runs_on_an_older_task_version_are_counted_and_fresh_tasks_is_named(official_data, tmp_path, capsys):
    results = json.loads(TAU2_FILE.read_text())
    results["tasks"][0]["evaluation_criteria"]["communicate_info"] = ["a fact τ³ has since dropped"]
    path = tmp_path / "older.json"
    path.write_text(json.dumps(results))
    code, out, _ = rescore(capsys, path, "--data-dir", official_data)
    assert code == 0
    assert out.splitlines()[1] == (
        "task versions: 2 of 4 compared run(s) differ from today's task of their id by digest: 2 run(s) graded on "
        "older task versions, the ones the file holds (as τ²'s evaluate-trajs grades; --fresh-tasks grades against "
        "today's)")
    records, _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    assert [r["task_changed"] for r in records] == [True, True, False, False]
    code, out, _ = rescore(capsys, path, "--data-dir", official_data, "--fresh-tasks")
    assert out.splitlines()[1] == (
        "task versions: 2 of 4 compared run(s) differ from today's task of their id by digest: 2 run(s) graded "
        "against today's task versions (--fresh-tasks), not the older ones they ran on")


def test_the_digest_reads_a_task_as_taus_model_keeps_it(official_data):
    """A results file holds its tasks as τ²'s models dump them: every default, nulls, and history
    messages with timestamps and audio fields. That is the same version as the task file's."""
    tasks = json.loads((official_data / "tau2bench/tau2/domains/mock/tasks.json").read_text())
    task = next(t for t in tasks if t["id"] == "update_task_with_message_history")
    dumped = copy.deepcopy(task)
    dumped.pop("annotations", None)
    dumped.update(ticket=None, issues=None, required_documents=None, user_tools=None)
    criteria = dumped["evaluation_criteria"]
    criteria.update(env_assertions=None, communicate_info=None, reward_basis=["DB", "COMMUNICATE"])
    for action in criteria["actions"]:
        action.update(requestor="assistant", compare_args=None)
    state = dumped["initial_state"]
    state.update(initialization_data=None, initialization_actions=None)
    for message in state["message_history"]:
        message.update(timestamp="2026-11-29T10:19:30.497398", is_audio=False, cost=None, usage=None)
        message.setdefault("tool_calls", None)
    assert task_digest(dumped) == task_digest(task)
    criteria["actions"][0]["arguments"]["status"] = "pending"  # a fix to the ground truth is a new version
    assert task_digest(dumped) != task_digest(task)
    dropped = {**task, "initial_state": {**task["initial_state"], "initialization_data": {"users": {"u": 1}}}}
    assert task_digest(dropped) == task_digest(task)  # τ²'s InitializationData keeps agent_data and user_data only


def test_banking_knowledge_runs_replay_under_the_files_retrieval_config(official_data, tmp_path, capsys):
    exported = tmp_path / "banking.json"
    assert main(["eval", "Tau2-v0", "--tasks", "official", "--data-dir", str(official_data), "--agent", "oracle",
                 "--env-kwarg", "domain=banking_knowledge", "--env-kwarg", "retrieval_config=grep_only",
                 "--episodes", "3", "--out", str(tmp_path / "run.jsonl"), "--save-as", f"tau2:{exported}"]) == 0
    results = json.loads(exported.read_text())
    assert results["info"]["retrieval_config"] == "grep_only"  # τ³'s Info field
    capsys.readouterr()
    code, out, _ = rescore(capsys, exported, "--data-dir", official_data)
    assert code == 0 and "3 run(s) in tau2 format, replayed in Tau2-v0: 3 agree" in out
    assert "retrieval:" not in out
    results["info"]["retrieval_config"] = "bm25_reranker"  # an LLM reranker: replayed without it
    refused = tmp_path / "reranked.json"
    refused.write_text(json.dumps(results))
    code, out, _ = rescore(capsys, refused, "--data-dir", official_data)
    assert code == 0 and "3 agree" in out
    assert ("retrieval: the runs used bm25_reranker, which toolgym does not run; replayed under bm25 (the same "
            "tools offline)") in out
    assert rescore_module.replay_retrieval_config(None)[0] == "alltools"  # τ³'s default when the file names none
