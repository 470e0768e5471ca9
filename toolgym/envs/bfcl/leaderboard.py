"""BFCL's leaderboard columns (Overall Acc, Non-Live, Live, Multi Turn, Agentic, Relevance and
Irrelevance Detection), computed from per-category accuracies as BFCL's ``generate_leaderboard_csv``
(``bfcl_eval/eval_checker/eval_runner_helper.py``) computes them: the one place toolgym does it.

BFCL's rules, kept here:

- a group is the unweighted mean of its members (Live AST: weighted by item count);
- a category that was not run counts 0, with its full item count (:data:`ENTRY_COUNTS`), and
  shows "N/A" in the columns made of it, except Overall Acc, Live Acc, Multi Turn Acc and Agentic
  Acc, which BFCL always shows as numbers (Non-Live AST Acc shows "N/A" in the overall table);
- Non-Live AST Acc and Live Acc leave out relevance and irrelevance, which have columns of their
  own; Irrelevance Detection is the unweighted mean of ``irrelevance`` and ``live_irrelevance``;
- Overall Acc weighs Non-Live 10, Live 10, Irrelevance 10, Multi Turn 30 and Agentic 40 (Agentic
  is the mean of Web Search and Memory; toolgym does not run web search, so a toolgym run's
  Overall counts it 0, as BFCL counts any category not run).

The non-scoring format_sensitivity category has a table of its own (``data_format_sensitivity.csv``):
:func:`format_sensitivity_stats` computes it as BFCL's ``format_sensitivity_runner`` does.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: Items per category in BFCL v4 (``bfcl-eval`` 2026.3.23), what BFCL counts for a category not run.
ENTRY_COUNTS = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200, "parallel": 200,
    "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258, "live_multiple": 1053, "live_parallel": 16,
    "live_parallel_multiple": 24, "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
    "multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200,
    "web_search_base": 100, "web_search_no_snippet": 100, "memory_kv": 155, "memory_vector": 155,
    "memory_rec_sum": 155,
}
#: Every scored category of the leaderboard, in BFCL's order.
LEADERBOARD_CATEGORIES = tuple(ENTRY_COUNTS)
#: The columns BFCL always shows as numbers, even when a member category was not run.
OVERALL_COLUMNS = ("Overall Acc", "Live Acc", "Multi Turn Acc", "Agentic Acc")
#: Overall Acc's weights (BFCL's ``calculate_percentage_weighted_accuracy`` normalises them).
OVERALL_WEIGHTS = {"Non-Live AST Acc": 10, "Live Acc": 10, "Irrelevance Detection": 10, "Multi Turn Acc": 30,
                   "Agentic Acc": 40}


@dataclass(frozen=True)
class Score:
    """One category's or column's accuracy (0 to 1), the items behind it, and whether a category
    it is made of was not run (BFCL then shows "N/A" unless it is an overall column)."""

    accuracy: float
    total_count: int
    missing: bool = False

    @property
    def shown(self) -> float | None:
        """The value BFCL's table shows: None for "N/A"."""
        return None if self.missing else self.accuracy


def category_scores(per_category: Mapping[str, tuple[int, int]]) -> dict[str, Score]:
    """Each leaderboard category's :class:`Score` from ``{category: (correct, total)}``; a category
    not given (or with no items) is missing: accuracy 0 over its :data:`ENTRY_COUNTS` items."""
    scores = {}
    for category in LEADERBOARD_CATEGORIES:
        correct, total = per_category.get(category, (0, 0))
        scores[category] = (Score(correct / total, total) if total
                            else Score(0.0, ENTRY_COUNTS[category], missing=True))
    return scores


def _unweighted(parts: Iterable[Score]) -> Score:
    parts = list(parts)
    return Score(sum(p.accuracy for p in parts) / len(parts), sum(p.total_count for p in parts),
                 any(p.missing for p in parts))


def _weighted(parts: Iterable[Score]) -> Score:
    parts = list(parts)
    total = sum(p.total_count for p in parts)
    return Score(sum(p.accuracy * p.total_count for p in parts) / total if total else 0.0, total,
                 any(p.missing for p in parts))


def leaderboard_columns(per_category: Mapping[str, tuple[int, int]]) -> dict[str, Score]:
    """BFCL's overall table (``data_overall.csv``'s score columns, in its order, with the agentic
    table's Agentic Acc after Multi Turn's) from ``{category: (correct, total)}``. A column of
    :data:`OVERALL_COLUMNS` is never missing."""
    c = category_scores(per_category)
    simple = _unweighted(c[k] for k in ("simple_python", "simple_java", "simple_javascript"))
    non_live = _unweighted([simple, c["multiple"], c["parallel"], c["parallel_multiple"]])
    live = _weighted(c[k] for k in ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"))
    multi_turn = _unweighted(c[k] for k in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                                            "multi_turn_long_context"))
    web_search = _unweighted(c[k] for k in ("web_search_base", "web_search_no_snippet"))
    memory = _unweighted(c[k] for k in ("memory_kv", "memory_vector", "memory_rec_sum"))
    agentic = _unweighted([web_search, memory])
    irrelevance = _unweighted([c["irrelevance"], c["live_irrelevance"]])
    columns = {
        "Non-Live AST Acc": non_live, "Non-Live Simple AST": simple, "Non-Live Multiple AST": c["multiple"],
        "Non-Live Parallel AST": c["parallel"], "Non-Live Parallel Multiple AST": c["parallel_multiple"],
        "Live Acc": live, "Live Simple AST": c["live_simple"], "Live Multiple AST": c["live_multiple"],
        "Live Parallel AST": c["live_parallel"], "Live Parallel Multiple AST": c["live_parallel_multiple"],
        "Multi Turn Acc": multi_turn, "Multi Turn Base": c["multi_turn_base"],
        "Multi Turn Miss Func": c["multi_turn_miss_func"], "Multi Turn Miss Param": c["multi_turn_miss_param"],
        "Multi Turn Long Context": c["multi_turn_long_context"], "Agentic Acc": agentic, "Web Search Acc": web_search,
        "Web Search Base": c["web_search_base"], "Web Search No Snippet": c["web_search_no_snippet"],
        "Memory Acc": memory, "Memory KV": c["memory_kv"], "Memory Vector": c["memory_vector"],
        "Memory Recursive Summarization": c["memory_rec_sum"], "Relevance Detection": c["live_relevance"],
        "Irrelevance Detection": irrelevance,
    }
    weight_sum = sum(OVERALL_WEIGHTS.values())
    overall = Score(sum(columns[k].accuracy * w for k, w in OVERALL_WEIGHTS.items()) / weight_sum,
                    sum(columns[k].total_count for k in OVERALL_WEIGHTS))
    columns = {"Overall Acc": overall, **columns}
    return {k: Score(v.accuracy, v.total_count) if k in OVERALL_COLUMNS else v for k, v in columns.items()}


def missing_categories(per_category: Mapping[str, tuple[int, int]]) -> list[str]:
    """The leaderboard's categories with no scored item in ``per_category``, in BFCL's order."""
    return [k for k in LEADERBOARD_CATEGORIES if not per_category.get(k, (0, 0))[1]]


def category_counts(records: Iterable[Mapping]) -> dict[str, tuple[int, int]]:
    """``{category: (correct, total)}`` of BFCL-v0 results records (a record's ``split`` is its
    category). An episode that ended with an error counts as wrong, as BFCL counts an entry whose
    answer failed; a record of another env is left out."""
    counts: dict[str, list[int]] = {}
    for record in records:
        if record.get("env") != "BFCL-v0" or not isinstance(record.get("split"), str):
            continue
        metrics = record.get("metrics") if isinstance(record.get("metrics"), Mapping) else {}
        correct = bool(metrics.get("success")) and not record.get("error")
        tally = counts.setdefault(record["split"], [0, 0])
        tally[0] += int(correct)
        tally[1] += 1
    return {category: (correct, total) for category, (correct, total) in counts.items()}


def format_sensitivity_stats(records: Iterable[Mapping]) -> dict | None:
    """BFCL's format_sensitivity statistics (``format_sensitivity_runner``, the score file's header)
    from BFCL-v0 records of that category: per configuration (the second part of the entry id)
    ``{"accuracy", "correct_count", "total_count"}`` in first-seen order, and across the
    configurations ``accuracy_max_delta`` and ``accuracy_std`` (percentage points, rounded to 2
    places; 0.0 with fewer than two configurations) and ``accuracy_variance`` (points squared).
    An episode that ended with an error counts as wrong. None without such records."""
    tallies: dict[str, list[int]] = {}
    for record in records:
        task_id = record.get("task_id")
        if record.get("env") != "BFCL-v0" or record.get("split") != "format_sensitivity" \
                or not isinstance(task_id, str) or task_id.count(":") != 2:
            continue
        metrics = record.get("metrics") if isinstance(record.get("metrics"), Mapping) else {}
        tally = tallies.setdefault(task_id.split(":")[1], [0, 0])
        tally[0] += int(bool(metrics.get("success")) and not record.get("error"))
        tally[1] += 1
    if not tallies:
        return None
    by_config = {config: {"accuracy": correct / total, "correct_count": correct, "total_count": total}
                 for config, (correct, total) in tallies.items()}
    accuracies = [v["accuracy"] for v in by_config.values()]
    several = len(accuracies) > 1
    return {"accuracy_max_delta": round((max(accuracies) - min(accuracies)) * 100, 2) if several else 0.0,
            "accuracy_variance": round(statistics.variance(accuracies) * 100**2, 2) if several else 0.0,
            "accuracy_std": round(statistics.stdev(accuracies) * 100, 2) if several else 0.0,
            **by_config}
