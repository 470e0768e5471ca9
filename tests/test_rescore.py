"""``toolgym rescore``: τ-bench and τ²-bench trajectory files replayed through toolgym's envs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import toolgym
from toolgym.eval import rescore as rescore_module
from toolgym.eval.cli import main
from toolgym.eval.rescore import TextStep, ToolStep, read_runs

DATA = Path(__file__).parent / "data" / "rescore"
TAU2_FILE = DATA / "tau2_mock_results.json"
TAU_BENCH_FILE = DATA / "tau_bench_gpt-4o-airline_excerpt.json"


def rescore(capsys, *args):
    code = main(["rescore", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out: str) -> dict[str, list[str]]:
    """The per-run rows of the table by run number, split on runs of two or more spaces."""
    import re
    rows = {}
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0].isdigit() and len(cells) >= 7:
            rows[cells[0]] = cells
    return rows


def test_a_tau2_file_reproduces_its_recorded_rewards_and_pass_k(official_data, tmp_path, capsys, monkeypatch):
    out = tmp_path / "rescored.jsonl"
    code, table, err = rescore(capsys, TAU2_FILE, "--format", "tau2", "--data-dir", official_data, "--out", out)
    assert code == 0 and err == ""
    assert "4 run(s) in tau2 format, replayed in Tau2-v0: 4 agree; 5 of 5 recorded tool outputs equal" in table
    rows = table_rows(table)
    assert [(r[2], r[3], r[4], r[5], r[6]) for r in rows.values()] == [
        ("create_task_1", "0", "1", "1", "agree"), ("create_task_1", "1", "0", "0", "agree"),
        ("update_task_1", "0", "1", "1", "agree"), ("update_task_1", "1", "0", "0", "agree")]
    assert "mock      recorded  50.0      0.0" in table and "mock      toolgym   50.0      0.0" in table
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    records, summary = lines[:-1], lines[-1]
    rewards = [r["metrics"]["reward"] for r in records]
    assert rewards == [r["rescore"]["recorded_reward"] for r in records] == [1, 0, 1, 0]
    failed = records[1]  # the run that wrote the wrong title: DB and ACTION fail in both
    assert failed["metrics"]["failed"] == ["DB"] and failed["rescore"]["recorded"] == {"db": 0.0, "action": 0.0,
                                                                                        "communicate": 1.0}
    assert failed["metrics"]["action"] == 0.0 and failed["rescore"]["differing"] == []
    assert records[3]["metrics"]["termination"] == "agent_stop"
    assert all(r["rescore"]["first_tool_difference"] is None for r in records)
    assert summary["pass^k"] == summary["recorded_pass^k"] == {"mock": {"pass^1": 0.5, "pass^2": 0.0}}
    monkeypatch.setenv("TOOLGYM_DATA", str(official_data))
    assert main(["report", str(out)]) == 0 and "base      4    50.0" in capsys.readouterr().out


def test_an_edited_tool_output_and_reward_are_named_in_the_table(official_data, tmp_path, capsys):
    results = json.loads(TAU2_FILE.read_text())
    edited = copy.deepcopy(results)
    update = edited["simulations"][2]["messages"]
    assert update[5]["role"] == "tool" and '"status": "completed"' in update[5]["content"]
    update[5]["content"] = update[5]["content"].replace('"completed"', '"pending"')
    created = edited["simulations"][0]["reward_info"]
    created.update(reward=0.0, db_check={"db_match": False, "db_reward": 0.0})
    created["reward_breakdown"]["DB"] = 0.0
    edited["simulations"][3]["termination_reason"] = "max_steps"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited))
    code, table, _ = rescore(capsys, path, "--format", "tau2", "--data-dir", official_data)
    rows = table_rows(table)
    assert code == 0 and ": 3 agree, 1 differ; 4 of 5 recorded tool outputs equal" in table
    assert rows["1"][6:8] == ["differ", "db (toolgym 1, recorded 0)"]
    assert rows["3"][4:] == ["1", "1", "agree", "-", "step 2 (update_task_status, called in message 4)"]
    assert rows["4"][6:] == ["agree", "termination (toolgym agent_stop, recorded max_steps)", "-"]
    records, _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    found = records[2]["rescore"]["first_tool_difference"]
    assert found["requestor"] == "assistant" and '"pending"' in found["recorded"] and '"completed"' in found["toolgym"]


def test_the_tau_bench_reader_maps_each_run_to_taubench(official_data):
    runs = read_runs(TAU_BENCH_FILE, "tau-bench")
    raw = json.loads(TAU_BENCH_FILE.read_text())
    assert [(r.task_id, r.trial, r.reward) for r in runs] == [(str(x["task_id"]), x["trial"], x["reward"]) for x in raw]
    assert {r.env_id for r in runs} == {"TauBench-v0"} and {r.domain for r in runs} == {"airline"}
    assert runs[0].reset_options == {"task_index": 1}
    assert runs[0].env_kwargs == {"domain": "airline", "tasks": "official", "split": "test"}
    assert [r.components for r in runs] == [{"r_actions": 0.0}, {"r_outputs": 1.0}, {"r_actions": 1.0},
                                            {"r_outputs": 0.0}, {"r_actions": 1.0}, {}]  # the last ran out of steps
    first = raw[0]["traj"]
    assert runs[0].user_turns == [m["content"] for m in first if m["role"] == "user"]
    tool_steps = [s for s in runs[0].steps if isinstance(s, ToolStep)]
    recorded = [m for m in first if m["role"] == "tool"]
    assert [(s.name, s.output) for s in tool_steps] == [(m["name"], m["content"]) for m in recorded]
    assert len(runs[-1].steps) == 30  # τ-bench's max_num_steps
    assert read_runs(TAU_BENCH_FILE, "tau-bench", domain="retail", split="train")[0].env_kwargs["split"] == "train"


def test_the_tau_bench_reader_reads_react_trajectories(tmp_path):
    traj = [{"role": "system", "content": "# Retail agent policy\n..."},
            {"role": "user", "content": "I want to return my order."},
            {"role": "assistant", "content": 'Thought:\nFind the user.\nAction:\n{"name": "find_user_id_by_email", '
                                             '"arguments": {"email": "a@b.c"}}'},
            {"role": "user", "content": "API output: yusuf_rossi_9620"},
            {"role": "assistant", "content": 'Thought:\nAsk.\nAction:\n{"name": "respond", "arguments": '
                                             '{"content": "Which order?"}}'},
            {"role": "user", "content": "#W2378156 ###STOP###"}]
    path = tmp_path / "react.json"
    path.write_text(json.dumps([{"task_id": 3, "trial": 0, "reward": 0.0, "info": {}, "traj": traj}]))
    (run,) = read_runs(path, "tau-bench")
    assert run.domain == "retail" and run.user_turns == ["I want to return my order.", "#W2378156 ###STOP###"]
    assert run.steps == [ToolStep("find_user_id_by_email", {"email": "a@b.c"}, "yusuf_rossi_9620", 2),
                         TextStep("Which order?", 4)]


def test_a_reused_call_id_pairs_each_call_with_the_output_that_follows_it(tmp_path):
    # τ-bench's published gpt-4o airline file reuses call ids within a run (49 of its 200 runs).
    def call(name, arguments):
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}

    traj = [{"role": "system", "content": "# Airline Agent Policy\n..."},
            {"role": "user", "content": "Hi, I am mia_li_3668."},
            call("get_user_details", {"user_id": "mia_li_3668"}),
            {"role": "tool", "tool_call_id": "call_1", "name": "get_user_details", "content": '{"name": "Mia"}'},
            call("calculate", {"expression": "200 + 55"}),
            {"role": "tool", "tool_call_id": "call_1", "name": "calculate", "content": "255.0"},
            call("think", {"thought": "no output was recorded for this one"}),
            {"role": "assistant", "content": "Done."}]
    path = tmp_path / "reused.json"
    path.write_text(json.dumps([{"task_id": 0, "trial": 0, "reward": 0.0, "info": {}, "traj": traj}]))
    (run,) = read_runs(path, "tau-bench")
    assert [(s.name, s.output) for s in run.steps if isinstance(s, ToolStep)] == [
        ("get_user_details", '{"name": "Mia"}'), ("calculate", "255.0"), ("think", None)]


def test_a_tau_bench_file_reproduces_its_recorded_rewards(official_data, tmp_path, capsys):
    if "TauBench-v0" not in toolgym.ENV_IDS:
        pytest.skip("TauBench-v0 is not registered in this toolgym")
    code, table, _ = rescore(capsys, TAU_BENCH_FILE, "--format", "tau-bench", "--data-dir", official_data)
    assert code == 0 and "6 run(s) in tau-bench format, replayed in TauBench-v0: 6 agree" in table


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


MALFORMED = {
    "not JSON": ("tau2", "{not json", "not JSON"),
    "not UTF-8": ("tau2", b"\xff\xfe{}", "not UTF-8"),
    "a list for tau2": ("tau2", "[]", "not τ²-bench results: a JSON object with 'simulations', got a JSON list"),
    "no simulations": ("tau2", '{"info": {}}', "not τ²-bench results: simulations: Field required"),
    "messages of the wrong type": ("tau2", '{"simulations": [{"task_id": "1", "messages": "hi"}]}',
                                   "simulations.0.messages: Input should be a valid list"),
    "a domain that is code": ("tau2", json.dumps({"info": {"environment_info": {"domain_name": "os:system"}},
                                                  "simulations": []}), "not one of Tau2-v0's domains"),
    "no domain": ("tau2", '{"simulations": []}', "pass --domain"),
    "a message history that is no list": ("tau2", '{"tasks": [{"id": "1", "initial_state": {"message_history": 5}}], '
                                                  '"simulations": []}', "tasks.0.initial_state.message_history"),
    "nested too deeply": ("tau2", _deep(100_000), "nested deeper than 400 levels"),
    "nested too deeply inside a run": ("tau2", '{"simulations": [{"task_id": "1", "messages": [], "reward_info": '
                                               f'{{"info": {_deep(500)}}}}}]}}', "nested deeper than 400 levels"),
    "an object for tau-bench": ("tau-bench", '{"simulations": []}', "a JSON list of runs"),
    "a task id that is text": ("tau-bench", '[{"task_id": "x", "reward": 1, "traj": []}]', "0.task_id"),
    "no policy to read the domain from": ("tau-bench", '[{"task_id": 1, "reward": 1, "traj": []}]',
                                          "pass --domain"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_file_ends_with_one_error_line(name, tmp_path, capsys):
    file_format, content, expected = MALFORMED[name]
    path = tmp_path / "results.json"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    code, out, err = rescore(capsys, path, "--format", file_format)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"toolgym: error: {path}: ") and expected in err, err


def test_a_file_that_is_missing_or_too_large_ends_with_one_error_line(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "missing.json"
    code, _, err = rescore(capsys, missing, "--format", "tau2")
    assert code == 2 and err == f"toolgym: error: {missing}: cannot read it (No such file or directory)\n"
    monkeypatch.setattr(rescore_module, "MAX_FILE_BYTES", 1024)
    path = tmp_path / "big.json"
    path.write_text(" " * 2048 + "{}")
    code, _, err = rescore(capsys, path, "--format", "tau2")
    assert code == 2 and err.count("\n") == 1 and "larger than" in err


def test_runs_the_env_cannot_replay_are_errors_not_crashes(official_data, tmp_path, capsys):
    results = json.loads(TAU2_FILE.read_text())
    for simulation in results["simulations"]:
        simulation["task_id"] = "no_such_task"
    path = tmp_path / "unknown_tasks.json"
    path.write_text(json.dumps(results))
    code, out, err = rescore(capsys, path, "--format", "tau2", "--data-dir", official_data)
    assert code == 1 and "4 error" in out and "no_such_task" in out
    assert err.count("\n") == 1 and err.startswith(f"toolgym: error: {path}: no run could be replayed")


def tau2_messages(trajectory: list[dict]) -> list[dict]:
    """A Tau2-v0 episode's messages (``info["trajectory"]``) written as τ²-bench writes them."""
    messages = []
    for message in trajectory:
        if message.get("tool_calls"):
            messages.append({"role": message["role"], "content": None, "tool_calls": [
                {"id": c["id"], "name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"]),
                 "requestor": message["role"]} for c in message["tool_calls"]]})
        elif message["role"] == "tool":
            messages.append({"role": "tool", "id": message["tool_call_id"], "content": message["content"],
                             "requestor": message.get("requestor", "assistant"),
                             "error": message["content"].startswith("Error")})
        else:
            messages.append({"role": message["role"], "content": message["content"], "tool_calls": None})
    return messages


def test_a_dual_control_run_replays_the_users_own_tool_calls(official_data, tmp_path):
    import gymnasium as gym

    from toolgym.agents import play_oracle

    env = gym.make("Tau2-v0", domain="telecom", tasks="official", data_dir=str(official_data)).unwrapped
    task_id = env.task_ids()[0]
    total, info, _ = play_oracle(env, task_id)
    messages = tau2_messages(info["trajectory"])
    user_outputs = [n for n, m in enumerate(messages) if m["role"] == "tool" and m["requestor"] == "user"]
    assert total == 1.0 and user_outputs
    simulation = {"task_id": task_id, "trial": 0, "messages": messages, "termination_reason": "user_stop",
                  "reward_info": {"reward": 1.0, "reward_breakdown": {"ENV_ASSERTION": 1.0, "ACTION": 1.0}}}
    results = {"info": {"environment_info": {"domain_name": "telecom-workflow"}}, "tasks": [],
               "simulations": [simulation]}  # telecom with the workflow policy: same tasks, tools and grading
    path = tmp_path / "telecom.json"
    path.write_text(json.dumps(results))
    (record,), _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    assert record["rescore"]["verdict"] == "agree" and record["rescore"]["first_tool_difference"] is None
    calls = sum(len(m["tool_calls"]) for m in messages if m.get("tool_calls"))
    assert record["rescore"]["tool_outputs"] == {"compared": calls, "equal": calls}
    assert record["metrics"]["env_assertion"] == record["metrics"]["action"] == 1.0
    messages[user_outputs[0]]["content"] = "Airplane Mode is now ON."
    path.write_text(json.dumps(results))
    (record,), _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    found = record["rescore"]["first_tool_difference"]
    assert found["requestor"] == "user" and found["recorded"] == "Airplane Mode is now ON."
    assert found["tool"] == messages[user_outputs[0] - 1]["tool_calls"][0]["name"]


def test_nl_assertions_take_the_recorded_verdict_without_a_judge(official_data, tmp_path, capsys):
    import gymnasium as gym

    from toolgym.agents import play_oracle

    env = gym.make("Tau2-v0", domain="retail", tasks="official", data_dir=str(official_data)).unwrapped
    criteria = {t: env.task_data.tasks[t]["evaluation_criteria"] for t in env.task_ids()}
    task_id = next(t for t, c in criteria.items() if "NL_ASSERTION" in c["reward_basis"] and c.get("nl_assertions"))
    _, info, _ = play_oracle(env, task_id)
    assert info["metrics"]["unscored"] == ["NL_ASSERTION"] and info["metrics"]["reward_without_judge"] == 1.0
    simulations = [{"task_id": task_id, "trial": trial, "messages": tau2_messages(info["trajectory"]),
                    "termination_reason": "user_stop", "reward_info": {
                        "reward": float(met), "reward_breakdown": {"DB": 1.0, "COMMUNICATE": 1.0,
                                                                   "NL_ASSERTION": float(met)},
                        "nl_assertions": [{"nl_assertion": "The agent was polite.", "met": met,
                                           "justification": "..."}]}}
                   for trial, met in enumerate((True, False))]
    path = tmp_path / "retail.json"
    path.write_text(json.dumps({"info": {"environment_info": {"domain_name": "retail"}}, "simulations": simulations}))
    code, table, _ = rescore(capsys, path, "--format", "tau2", "--data-dir", official_data)
    rows = table_rows(table)
    assert code == 0 and [r[4:7] for r in rows.values()] == [["1", "1 (NL as recorded)", "agree"],
                                                              ["0", "0 (NL as recorded)", "agree"]]
    assert "retail    toolgym   50.0      0.0" in table
    code, _, err = rescore(capsys, TAU_BENCH_FILE, "--format", "tau-bench", "--judge", "hf:some/model")
    assert code == 2 and err == "toolgym: error: --judge scores τ²'s NL assertions; τ-bench runs have none\n"


def test_a_tau_bench_run_replays_through_a_stand_in_env(official_data, tmp_path):
    """τ-bench's tool-calling format read and replayed, with Tau2-v0's mock domain standing in
    for TauBench-v0 (the reader's runs are retargeted; the replay is the one every format uses)."""
    call = {"id": "call_1", "type": "function",
            "function": {"name": "update_task_status", "arguments": '{"task_id": "task_1", "status": "completed"}'}}
    output = '{"task_id": "task_1", "title": "Test task", "description": "A test task", "status": "completed"}'
    traj = [{"role": "system", "content": "# Retail agent policy"},
            {"role": "user", "content": "Please mark task_1 as completed."},
            {"role": "assistant", "content": "Sure.", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "name": "update_task_status", "content": output},
            {"role": "assistant", "content": "task_1 is completed."},
            {"role": "user", "content": "Thanks! ###STOP###"}]
    path = tmp_path / "tau_bench.json"
    path.write_text(json.dumps([{"task_id": 3, "trial": trial, "reward": 1.0, "traj": traj,
                                 "info": {"reward_info": {"reward": 1.0, "info": {"r_actions": True}}}}
                                for trial in range(2)]))
    runs = read_runs(path, "tau-bench")
    assert runs[0].steps == [ToolStep("update_task_status", {"task_id": "task_1", "status": "completed"}, output, 2),
                             TextStep("task_1 is completed.", 4)] and runs[0].components == {"r_actions": 1.0}
    for run in runs:
        run.env_id, run.env_kwargs = "Tau2-v0", {"domain": "mock", "tasks": "official"}
        run.reset_options = {"task_id": "update_task_1"}
    records = rescore_module.rescore_runs(runs, str(path), data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in records] == ["agree", "agree"]
    assert records[0]["rescore"]["tool_outputs"] == {"compared": 1, "equal": 1}
    assert records[0]["agent"] == "recorded:tau_bench.json" and records[0]["trials"] == 2


def _mock_file(tmp_path, results: dict, name: str = "edited.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(results))
    return path


def test_runs_are_graded_against_the_files_task_unless_fresh_tasks(official_data, tmp_path):
    # τ²'s evaluate-trajs grades against the task the file holds; --fresh-tasks against today's.
    results = json.loads(TAU2_FILE.read_text())
    criteria = results["tasks"][0]["evaluation_criteria"]  # create_task_1, graded on DB and COMMUNICATE
    criteria["communicate_info"] = ["a fact the agent never said"]
    path = _mock_file(tmp_path, results)
    records, _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in records] == ["differ", "agree", "agree", "agree"]
    assert records[0]["metrics"]["communicate"] == 0.0 and records[0]["graded_against"] == "the file's"
    records, _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data), fresh_tasks=True)
    assert [r["rescore"]["verdict"] for r in records] == ["agree"] * 4 and records[0]["graded_against"] == "today's"


def test_a_renumbered_task_is_found_from_the_files_reward_info(official_data, tmp_path, capsys):
    # The file's τ² called create_task_1 "update_task_1": its reward_info checked create_task's action.
    results = json.loads(TAU2_FILE.read_text())
    results["tasks"] = [dict(results["tasks"][0], id="update_task_1")]
    results["simulations"] = results["simulations"][:2]
    for simulation in results["simulations"]:
        simulation["task_id"] = "update_task_1"
    path = _mock_file(tmp_path, results)
    code, table, _ = rescore(capsys, path, "--format", "tau2", "--data-dir", official_data, "--fresh-tasks")
    assert code == 0 and ": 2 agree;" in table
    assert "graded against the file's (renumbered: its reward_info checked that task's actions)" in table
    today = {"a": {"id": "a", "evaluation_criteria": {"actions": [{"name": "x", "arguments": {"k": 1}}]}},
             "b": {"id": "b", "evaluation_criteria": {"actions": [{"name": "y", "arguments": {}}]}}}
    run = rescore_module.RecordedRun("Tau2-v0", "mock", "a", 0, {}, [], [], [], 1.0, {},
                                     recorded_actions=[("y", {})])
    assert rescore_module.grading_task(run, today) == (today["b"], "today's b (renumbered: its reward_info "
                                                                     "checked that task's actions)")
    run.recorded_actions = [("x", {"k": 1})]
    assert rescore_module.grading_task(run, today) == (today["a"], "today's")


def test_a_task_in_no_split_of_today_replays_from_the_file(official_data, tmp_path):
    # A telecom `small` file, or any task the default split lacks: the file's task is played whole.
    results = json.loads(TAU2_FILE.read_text())
    results["tasks"][1]["id"] = "only_in_this_file"
    for simulation in results["simulations"][2:]:
        simulation["task_id"] = "only_in_this_file"
    records, _ = rescore_module.rescore(_mock_file(tmp_path, results), "tau2", data_dir=str(official_data))
    assert [r["rescore"]["verdict"] for r in records] == ["agree"] * 4 and records[2]["task_id"] == "only_in_this_file"


def test_tau2_outputs_pair_with_the_call_before_them_when_ids_repeat(tmp_path):
    messages = [{"role": "assistant", "content": "Hi! How can I help you today?"},
                {"role": "user", "content": "Two tasks, please."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "name": "get_users", "arguments": {}},
                    {"id": "call_1", "name": "create_task", "arguments": {"user_id": "user_1", "title": "A"}}]},
                {"role": "tool", "id": "call_1", "content": "users"},
                {"role": "tool", "id": "call_1", "content": "task A"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "name": "create_task", "arguments": {"user_id": "user_1", "title": "B"}}]},
                {"role": "tool", "id": "call_1", "content": "task B"},
                {"role": "assistant", "content": "Done."}]
    path = _mock_file(tmp_path, {"info": {"environment_info": {"domain_name": "mock"}},
                                 "simulations": [{"task_id": "create_task_1", "messages": messages}]})
    (run,) = read_runs(path, "tau2")
    assert [(s.name, s.output) for s in run.steps if isinstance(s, ToolStep)] == [
        ("get_users", "users"), ("create_task", "task A"), ("create_task", "task B")]


def test_a_run_whose_user_stopped_at_once_is_scored(official_data, tmp_path):
    messages = [{"role": "assistant", "content": "Hi! How can I help you today?"},
                {"role": "user", "content": "###STOP###"}]
    simulations = [{"task_id": "create_task_1", "messages": messages, "termination_reason": "user_stop",
                    "reward_info": {"reward": 0.0, "reward_breakdown": {"DB": 0.0, "COMMUNICATE": 1.0}}}]
    path = _mock_file(tmp_path, {"info": {"environment_info": {"domain_name": "mock"}}, "simulations": simulations})
    (record,), _ = rescore_module.rescore(path, "tau2", data_dir=str(official_data))
    comparison = record["rescore"]
    assert comparison["verdict"] == "agree" and comparison["differing"] == [] and comparison["reward"] == 0.0
    assert record["metrics"]["db"] == 0.0 and comparison["termination"] == "user_stop"


def test_unscored_runs_are_left_out_of_pass_k():
    runs = [rescore_module.RecordedRun("Tau2-v0", "retail", task, 0, {}, [], [], [], 1.0, {})
            for task in ("1", "2")]
    records = [{"rescore": {"verdict": "unscored", "reward": 0.0}}, {"rescore": {"verdict": "agree", "reward": 1.0}}]
    ours, recorded = rescore_module.pass_hat_rows(records, runs)
    assert ours == [("retail", "2", 1.0)] and recorded == [("retail", "2", 1.0)]
def test_control_characters_of_a_file_reach_the_terminal_escaped(official_data, tmp_path, capsys):
    results = json.loads(TAU2_FILE.read_text())
    results["simulations"][0]["task_id"] = "\x1b[2J\x07" + str(results["simulations"][0]["task_id"])
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(results))
    code, table, err = rescore(capsys, path, "--format", "tau2", "--data-dir", official_data)
    assert "\x1b" not in table + err and "\x07" not in table + err
    assert code == 0 and "\\x1b[2J\\x07" in table_rows(table)["1"][2]
