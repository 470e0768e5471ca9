"""Two runs on the same tasks, compared task by task: ``toolgym compare RUN_A.jsonl RUN_B.jsonl``.

Each run's success rate per category (the records' ``split``: BFCL's category, τ's domain
split) and overall, with McNemar's exact test on the tasks where the runs disagree. The
records are paired by env, category, task id and trial; a task in one file only is counted
and left out. A record without metrics (an episode that failed) counts as not solved, as in
the runs' own tables.

McNemar's exact test: of the ``b + c`` discordant tasks (solved by A only: ``b``; by B
only: ``c``), "the runs are equally good" makes each a fair coin's toss, so the two-sided p
is twice the binomial tail of ``min(b, c)`` (at most 1). It needs no large sample, which a
category of 50 items is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from toolgym.eval.runcard import printable_line
from toolgym.eval.tables import text_table

#: The overall row's name.
ALL = "all"


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided p of McNemar's exact test with ``b`` and ``c`` discordant pairs (1.0 when
    there are none): ``min(1, 2 * P[X <= min(b, c)])`` with ``X ~ Binomial(b + c, 1/2)``."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2 ** n)


@dataclass(frozen=True)
class PairedCategory:
    """One category's paired outcomes: tasks in both runs, solved by each, and by one only."""

    category: str
    tasks: int
    solved_a: int
    solved_b: int
    only_a: int
    only_b: int

    @property
    def p_value(self) -> float:
        return mcnemar_exact(self.only_a, self.only_b)


def _outcomes(records: Sequence[dict]) -> dict[tuple, bool]:
    """Success per (env, category, task id, trial); a task recorded twice keeps its last record."""
    return {(str(r.get("env")), str(r.get("split") or ALL), str(r.get("task_id")), r.get("trial") or 0):
            bool((r.get("metrics") or {}).get("success")) for r in records}


def paired_categories(records_a: Sequence[dict], records_b: Sequence[dict]) -> tuple[list[PairedCategory], int, int]:
    """Per category (in the order A first has them) and overall, the paired outcomes; and how
    many tasks only A and only B hold."""
    a, b = _outcomes(records_a), _outcomes(records_b)
    shared = [key for key in a if key in b]
    groups: dict[str, list[tuple]] = {}
    for key in shared:
        groups.setdefault(key[1], []).append(key)
    if len(groups) > 1:
        groups[ALL] = shared
    rows = [PairedCategory(category, len(keys), sum(a[k] for k in keys), sum(b[k] for k in keys),
                           sum(a[k] and not b[k] for k in keys), sum(b[k] and not a[k] for k in keys))
            for category, keys in groups.items()]
    return rows, len(a.keys() - b.keys()), len(b.keys() - a.keys())


def compare_lines(name_a: str, records_a: Sequence[dict], name_b: str, records_b: Sequence[dict]) -> list[str]:
    """The comparison table: accuracy of A and B per category, the tasks only one solved, and
    McNemar's exact p; then the tasks left out for being in one file only."""
    rows, only_in_a, only_in_b = paired_categories(records_a, records_b)
    if not rows:
        raise ValueError(f"{name_a} and {name_b} share no task (paired by env, category, task id and trial)")
    head = ["category", "tasks", "A acc", "B acc", "A only", "B only", "McNemar p"]
    body = [[row.category, str(row.tasks), f"{100 * row.solved_a / row.tasks:.1f}",
             f"{100 * row.solved_b / row.tasks:.1f}", str(row.only_a), str(row.only_b), f"{row.p_value:.4g}"]
            for row in rows]
    lines = [f"A: {name_a}", f"B: {name_b}", *text_table(head, body)]
    if only_in_a or only_in_b:
        lines.append(f"left out: {only_in_a} task(s) only in A, {only_in_b} only in B")
    return [printable_line(line) for line in lines]
