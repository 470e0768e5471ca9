"""BFCL's memory categories in ``toolgym export --format bfcl`` (issue 47): each question entry's
result is the one turn of its question chat's steps, as BFCL stores it (checked from outside:
``bfcl evaluate`` 2026.3.23 scores such an export of 12 entries per memory backend, a third of
them answered wrong, to toolgym's accuracy entry by entry)."""

from __future__ import annotations

import json

from toolgym.eval import rescore as rescore_module
from toolgym.eval.export import export_records
from toolgym.eval.rescore import BFCL_MEMORY_UNREPLAYED
from toolgym.eval.runner import evaluate

MODEL = "gpt-4.1-2025-04-14-FC"


def memory_records(official_data, category: str, episodes: int = 2) -> list[dict]:
    records, _ = evaluate("BFCL-v0", "oracle", {"tasks": "official", "category": category,
                                                "data_dir": str(official_data)}, episodes=episodes, progress=False)
    return records


def test_a_memory_result_is_the_questions_one_turn_of_steps(official_data, tmp_path):
    records = memory_records(official_data, "memory_kv") + memory_records(official_data, "memory_rec_sum", 1)
    out = tmp_path / "bfcl"
    message = export_records(records, "bfcl", out)
    assert "BFCL result files of 2 categories" in message and "not exported" not in message
    kv_file = out / "result" / MODEL / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_result.json"
    kv = [json.loads(line) for line in kv_file.open()]
    assert kv[0] == {"id": "memory_kv_0-customer-0", "result": [[
        [{"archival_memory_retrieve": '{"key": "memory_kv_0_customer_0"}'}],
        "{'answer': 'Michael', 'context': 'Recalled from my memory of our earlier conversations.'}"]]}
    for entry, record in zip(kv, records):
        steps = record["metrics"]["question_steps"]
        assert len(entry["result"]) == 1 and len(entry["result"][0]) == steps == 2
        assert len(record["trajectory"]) > 10 * steps  # the prerequisite conversations' steps are not in it
    rec_sum = out / "result" / MODEL / "agentic" / "memory" / "rec_sum" / "BFCL_v4_memory_rec_sum_result.json"
    assert [json.loads(line)["id"] for line in rec_sum.open()] == ["memory_rec_sum_0-customer-0"]
    score = out / "score" / MODEL / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_score.json"
    assert json.loads(score.read_text().splitlines()[0]) == {"accuracy": 1.0, "correct_count": 2, "total_count": 2}
    rescored, _ = rescore_module.rescore(out, "bfcl", data_dir=str(official_data))
    assert [(r["task_id"], r["rescore"]["verdict"], r["rescore"]["unscored"]) for r in rescored][:1] == [
        ("memory_kv_0-customer-0", "unscored", [BFCL_MEMORY_UNREPLAYED])]
    assert len(rescored) == 3


def test_records_without_question_steps_are_left_out(official_data, tmp_path):
    records = memory_records(official_data, "memory_vector", 1)
    del records[0]["metrics"]["question_steps"]  # written before the env counted them
    message = export_records(records + memory_records(official_data, "simple_python", 1), "bfcl", tmp_path / "b")
    assert message.splitlines()[0].endswith("; not exported: memory_vector")
