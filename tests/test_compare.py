"""`toolgym compare`: accuracy per category of two runs and McNemar's exact test on the paired tasks."""

from __future__ import annotations

import json

import pytest

from toolgym.eval.cli import main
from toolgym.eval.compare import mcnemar_exact


@pytest.mark.parametrize("b, c, p", [(10, 0, 0.001953125), (0, 10, 0.001953125), (10, 2, 0.03857421875),
                                     (5, 1, 0.21875), (3, 3, 1.0), (0, 0, 1.0), (1, 0, 1.0)])
def test_mcnemar_exact_on_known_tables(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)


def test_mcnemar_exact_is_scipys_two_sided_binomial_test():
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(22, 6), (17, 10), (13, 1), (40, 31), (0, 7)]:
        assert mcnemar_exact(b, c) == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def _records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_compare_pairs_tasks_by_category_and_tests_the_discordant_ones(tmp_path, capsys):
    oracle = tmp_path / "oracle.jsonl"
    assert main(["eval", "BFCL-v0", "--split", "train", "--agent", "oracle",
                 "--env-kwarg", 'category=["simple_python","irrelevance"]',
                 "--env-kwarg", "tasks_per_category=10", "--no-progress", "--out", str(oracle)]) == 0
    records = _records(oracle)
    assert len(records) == 20 and all(r["metrics"]["success"] == 1 for r in records)
    irrelevance = [r for r in records if r["split"] == "irrelevance"]
    # A: the oracle with two irrelevance tasks failed; B: every simple_python task failed, one irrelevance task missing
    run_a = [dict(r, metrics=dict(r["metrics"], success=0)) if r in irrelevance[:2] else r for r in records]
    run_b = [dict(r, metrics=dict(r["metrics"], success=0)) if r["split"] == "simple_python" else r
             for r in records if r is not irrelevance[-1]]
    _write(tmp_path / "a.jsonl", run_a)
    _write(tmp_path / "b.jsonl", run_b)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()
            if line.split() and line.split()[0] in ("simple_python", "irrelevance", "all")}
    assert rows["simple_python"] == ["10", "100.0", "0.0", "10", "0", "0.001953"]
    assert rows["irrelevance"] == ["9", "77.8", "100.0", "0", "2", "0.5"]
    assert rows["all"] == ["19", "89.5", "47.4", "10", "2", "0.03857"]


def test_compare_reports_what_it_left_out_and_refuses_unrelated_runs(tmp_path, capsys):
    oracle = tmp_path / "oracle.jsonl"
    assert main(["eval", "BFCL-v0", "--agent", "oracle", "--no-progress", "--out", str(oracle)]) == 0
    records = _records(oracle)
    _write(tmp_path / "fewer.jsonl", records[:4])
    capsys.readouterr()
    assert main(["compare", str(oracle), str(tmp_path / "fewer.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "left out: 2 task(s) only in A, 0 only in B" in out and "all" not in out.split()
    _write(tmp_path / "other.jsonl", [dict(r, task_id=r["task_id"] + "-x") for r in records])
    assert main(["compare", str(oracle), str(tmp_path / "other.jsonl")]) == 2
    assert "share no task" in capsys.readouterr().err
