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
    """One column of a paper table.

    ``mean`` averages ``key`` over episodes; ``ratio`` divides the sums of two count keys
    (micro-average); ``f1`` is the F1 of summed hits / predicted / true counts.
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
