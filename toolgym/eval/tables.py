"""Plain text tables for the terminal and for pasting into notes: one function, by ``tabulate``."""

from __future__ import annotations

from collections.abc import Sequence

from toolgym.untrusted import escape


def text_table(head: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a table: the header, a rule of dashes under each column, the rows.

    Cells are the strings given (numbers already formatted), left-aligned, with control characters
    escaped (a cell may come from a results file); columns are two spaces apart; no line ends in spaces.
    """
    from tabulate import tabulate

    text = tabulate([[escape(cell) for cell in row] for row in body], headers=[escape(cell) for cell in head],
                    tablefmt="simple", stralign="left", disable_numparse=True)
    return [line.rstrip() for line in text.splitlines()]
