"""pass^k: how reliably an agent solves a task, from K trials of each (τ-bench's estimator).

For a task run ``n`` times with ``c`` successes, the chance that ``k`` trials drawn from the
``n`` all succeed is ``comb(c, k) / comb(n, k)``; pass^k is its mean over tasks. pass^1 is the
mean success rate; pass^k falls with k unless the agent is consistent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import comb


def pass_hat_k(outcomes: Mapping[str, Sequence[bool]], k: int) -> float:
    """Mean over tasks of comb(successes, k) / comb(trials, k); tasks with fewer than k trials
    are left out (0.0 when none has k)."""
    values = [comb(sum(map(bool, trials)), k) / comb(len(trials), k)
              for trials in outcomes.values() if len(trials) >= k]
    return sum(values) / len(values) if values else 0.0


def outcomes_by_subset(records: Iterable[dict]) -> dict[str, dict[str, list[bool]]]:
    """Scored records' success (``metrics["success"]``), per subset (split) and task; "all" too."""
    subsets: dict[str, dict[str, list[bool]]] = {}
    for record in records:
        metrics = record.get("metrics")
        if not metrics:
            continue
        success = bool(metrics.get("success", metrics.get("reward", 0)))
        for subset in (record.get("split") or "all", "all"):
            subsets.setdefault(subset, {}).setdefault(record["task_id"], []).append(success)
    if len(subsets) == 2 and "all" in subsets:  # one subset only: its row is the "all" row
        subsets = {name: tasks for name, tasks in subsets.items() if name != "all"}
    return subsets


def trials_of(records: Iterable[dict]) -> int:
    """The most trials any task of the records had (1 for a run without ``--trials``)."""
    counts: dict[str, int] = {}
    for record in records:
        if record.get("metrics"):
            counts[record["task_id"]] = counts.get(record["task_id"], 0) + 1
    return max(counts.values(), default=1)


def pass_hat_table(records: Iterable[dict]) -> dict[str, dict[str, float]]:
    """``{subset: {"pass^1": ..., ..., "pass^K": ...}}`` for K the records' trials per task."""
    records = list(records)
    trials = trials_of(records)
    return {subset: {f"pass^{k}": pass_hat_k(tasks, k) for k in range(1, trials + 1)}
            for subset, tasks in outcomes_by_subset(records).items()}
