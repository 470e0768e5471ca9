"""The API selection complexity score (Xu et al. 2023, appendix D).

How hard is it to pick the right API calls for a test task when the prompt shows ``k``
demonstrations from a pool? Each task and each demonstration is the sequence of API calls of
its ground truth. For a test sequence ``t`` and a set ``X`` of ``k`` demonstrations drawn
uniformly from the pool ``D``:

    (1)  c(t, X) = min_{x in X} d(t, x)
    (2)  score(T, D, k) = 1/|T| * sum_{t in T} E_{X subset D, |X| = k} [ c(t, X) ]
    (3)  E_X [ c(t, X) ] = sum_{i=1}^{n} d_(i) * C(n - i, k - 1) / C(n, k)

where ``d`` is the edit distance between call sequences (insert, delete or substitute one
call), ``n = |D|`` and ``d_(1) <= ... <= d_(n)`` are the distances from ``t`` to the pool in
ascending order: ``d_(i)`` is the minimum exactly when the ``i``-th closest demonstration is
drawn and none closer, which ``C(n - i, k - 1)`` of the ``C(n, k)`` sets do. The
order-insensitive variant replaces ``d`` by the reversed F1 of the two calls' multisets,

    (5)  d_F1(t, x) = 1 - F1(t, x),   F1 = 2 |t ∩ x| / (|t| + |x|).

A score of 0 means every test task's calls appear verbatim in any demonstration; higher
means more calls to add, drop or change. ``WORKED_EXAMPLE`` is a small case worked by hand.
"""

from __future__ import annotations

from collections import Counter
from math import comb
from collections.abc import Callable, Sequence

Calls = Sequence[str]


def edit_distance(a: Calls, b: Calls) -> int:
    """Levenshtein distance between two call sequences (each edit costs 1)."""
    previous = list(range(len(b) + 1))
    for i, call in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (call != other)))
        previous = current
    return previous[-1]


def reversed_f1(a: Calls, b: Calls) -> float:
    """1 - F1 between the multisets of calls (eq. 5); 0 for two empty sequences."""
    if not a and not b:
        return 0.0
    hits = sum((Counter(a) & Counter(b)).values())
    return 1 - 2 * hits / (len(a) + len(b))


DISTANCES: dict[str, Callable[[Calls, Calls], float]] = {"edit": edit_distance, "reversed_f1": reversed_f1}


def expected_min_distance(distances: Sequence[float], k: int) -> float:
    """E over the k-subsets of the pool of the smallest distance in the subset (eq. 3).

    With ``k`` at least the pool size every demonstration is shown: the minimum over all.
    """
    if not distances:
        raise ValueError("the demonstration pool is empty")
    if k < 1:
        raise ValueError("k must be at least 1")
    ordered = sorted(distances)
    n = len(ordered)
    if k >= n:
        return float(ordered[0])
    total = comb(n, k)
    return sum(d * comb(n - i, k - 1) for i, d in enumerate(ordered, 1)) / total


def complexity_score(tests: Sequence[Calls], demos: Sequence[Calls], k: int = 3,
                     distance: str = "edit") -> float:
    """The task set's API selection complexity (eq. 2) under ``distance`` (``edit`` | ``reversed_f1``)."""
    if not tests:
        raise ValueError("the test set is empty")
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {tuple(DISTANCES)}, got {distance!r}")
    d = DISTANCES[distance]
    return sum(expected_min_distance([d(t, x) for x in demos], k) for t in tests) / len(tests)


# A case small enough to check by hand. Pool x1 = [a, b], x2 = [a, c], x3 = [b, c, d]; test
# t = [a, b, d]; k = 2. Edit distances 1 (insert d), 2 (b->c, drop d), 2 (drop a, insert c).
# The three 2-subsets have minima 1, 1, 2: expectation 4/3, and eq. 3 gives
# 1 * C(2,1)/C(3,2) + 2 * C(1,1)/C(3,2) + 2 * C(0,1)/C(3,2) = 2/3 + 2/3 + 0 = 4/3.
# Reversed F1: 1 - 2*2/5 = 1/5, 1 - 2*1/5 = 3/5, 1 - 2*2/6 = 1/3; sorted 1/5, 1/3, 3/5:
# 1/5 * 2/3 + 1/3 * 1/3 + 3/5 * 0 = 2/15 + 1/9 = 11/45.
WORKED_EXAMPLE = {
    "tests": [["a", "b", "d"]],
    "demos": [["a", "b"], ["a", "c"], ["b", "c", "d"]],
    "k": 2,
    "edit": 4 / 3,
    "reversed_f1": 11 / 45,
}


def env_complexity(env, k: int = 3) -> dict:
    """Both scores for an env whose ``unwrapped`` has ``api_call_sequences()``."""
    base = env.unwrapped
    if not hasattr(base, "api_call_sequences"):
        raise ValueError(f"{base.env_id or type(base).__name__} does not expose api_call_sequences(), "
                         f"so its API selection complexity cannot be computed")
    sequences = base.api_call_sequences()
    tests, demos = sequences["tests"], sequences["demos"]
    return {"env": base.env_id, "task_set": base.task_set, "tests": len(tests), "demos": len(demos), "k": k,
            "edit": complexity_score(tests, demos, k, "edit"),
            "reversed_f1": complexity_score(tests, demos, k, "reversed_f1")}
