"""The ``toolgym`` command and its file formats (results JSONL, replay JSONL)."""

from __future__ import annotations

import json
import subprocess
import sys


from toolgym.eval.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    assert "ToolTalk-v0" in capsys.readouterr().out


def test_eval_oracle_writes_results(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", "ToolTalk-v0", "--agent", "oracle", "--episodes", "3", "--out", str(out),
                 "--no-progress", "--env-kwarg", "text_similarity=lexical"]) == 0
    table = capsys.readouterr().out
    assert "Success" in table and "Incorrect action rate" in table and "100.0" in table
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3
    r = records[0]
    assert r["env"] == "ToolTalk-v0" and r["task_set"] == "built-in" and r["task_id"] == "AddAlarm-easy"
    assert set(r["metrics"]) >= {"precision", "recall", "incorrect_action_rate", "success", "soft_success",
                                 "predictions", "ground_truths", "matches", "actions", "incorrect_actions"}
    assert all({"action", "observation", "reward"} <= set(step) for step in r["trajectory"])
    assert r["return"] == r["metrics"]["success"] == 1.0


def test_eval_replay_file(tmp_path, capsys):
    replay = tmp_path / "replay.jsonl"
    lines = [
        {"task_id": "AddAlarm-easy", "actions": [{"name": "AddAlarm", "arguments": {"time": "00:01:00"}}, "Done."]},
        {"task_id": "not-in-this-run", "actions": ["hello"]},
        {"task_id": "GetReminders-easy", "actions": [{"name": "GetReminders", "arguments": {}}, "Here they are."]},
    ]
    replay.write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    out = tmp_path / "r.jsonl"
    code = main(["eval", "ToolTalk-v0", "--agent", f"replay:{replay}", "--split", "easy", "--out", str(out),
                 "--no-progress", "--env-kwarg", "text_similarity=lexical"])
    assert code == 0
    records = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(records) == 28
    assert records["AddAlarm-easy"]["metrics"]["success"] == 0.0  # wrong time: an incorrect action
    assert records["AddAlarm-easy"]["metrics"]["incorrect_actions"] == 1
    assert records["GetReminders-easy"]["metrics"]["success"] == 1.0
    missing = records["SendEmail-easy"]
    assert missing["metrics"] is None and "no replay actions" in missing["error"]
    assert "26 episode(s) ended with an error" in capsys.readouterr().out


def test_common_flags_are_understood_or_rejected(capsys):
    assert main(["eval", "ToolTalk-v0", "--agent", "oracle", "--mode", "plan", "--no-progress"]) == 2
    assert "has no modes" in capsys.readouterr().err
    assert main(["eval", "ToolTalk-v0", "--agent", "nobody", "--no-progress"]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_console_script_and_play():
    play = subprocess.run([sys.executable, "-m", "toolgym.eval.cli", "play", "ToolTalk-v0", "--task-id",
                           "GetReminders-easy", "--env-kwarg", "text_similarity=lexical"],
                          input='GetReminders()\nHere they are.\n', capture_output=True, text=True, timeout=60)
    assert play.returncode == 0, play.stderr
    assert "GetReminders(" in play.stdout and '"reminders"' in play.stdout
    assert "episode over; return 1.0" in play.stdout and '"success": 1.0' in play.stdout


def test_play_reads_multi_line_programs():
    play = subprocess.run([sys.executable, "-m", "toolgym.eval.cli", "play", "HomeSearch-v0", "--task-id", "0"],
                          input='API.set_location("Palo Alto")\\\nAPI.search()\n', capture_output=True,
                          text=True, timeout=60)
    assert play.returncode == 0, play.stderr
    assert '"num_statements": 2' in play.stdout and '"executable": 1' in play.stdout
