"""Metric helpers and the description of a paper-style results table."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from collections.abc import Hashable, Iterable, Sequence


def safe_div(num: float, den: float, empty: float = 0.0) -> float:
    return num / den if den else empty


def multiset_hits(predicted: Iterable[Hashable], truth: Iterable[Hashable]) -> int:
    """Size of the multiset intersection."""
    return sum((Counter(predicted) & Counter(truth)).values())


def f1(hits: float, n_pred: float, n_true: float) -> float:
    p, r = safe_div(hits, n_pred), safe_div(hits, n_true)
    return safe_div(2 * p * r, p + r)


@dataclass(frozen=True)
class Column:
    """One column of a paper table (an env's ``table_columns``).

    Attributes:
        title: The column's heading.
        kind: ``"mean"`` averages ``keys[0]`` over the episodes; ``"ratio"`` divides the sums of
            two count keys (a micro-average); ``"f1"`` is the F1 of the summed hits, predicted and
            true counts (three keys); ``"sum"`` adds ``keys[0]`` up.
        keys: The ``info["metrics"]`` keys the column reads.
        percent: Print the value ×100 (a rate such as success). Set it False for a column that
            is not a fraction (a mean count of turns, a score already on 0-100): with the default
            a mean of 3.2 turns would print as 320.0.
    """

    title: str
    kind: str  # "mean" | "ratio" | "f1" | "sum"
    keys: tuple[str, ...]
    percent: bool = True

    def value(self, rows: Sequence[dict]) -> float:
        if self.kind == "mean":
            return safe_div(sum(float(r[self.keys[0]]) for r in rows), len(rows))
        sums = [sum(float(r.get(k, 0)) for r in rows) for k in self.keys]
        if self.kind == "ratio":
            return safe_div(sums[0], sums[1])
        if self.kind == "f1":
            return f1(*sums)
        if self.kind == "sum":
            return sums[0]
        raise ValueError(f"unknown column kind {self.kind}")
