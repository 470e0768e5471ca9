"""The one text-table function every results table goes through (eval, report, rescore)."""

from __future__ import annotations

from toolgym.eval.tables import text_table


def test_a_table_is_plain_left_aligned_text_without_trailing_spaces():
    lines = text_table(["subset", "n", "Success", "Incorrect action rate"],
                       [["easy", "28", "100.0", "0.0"], ["hard", "150", "96.7", "1.25"], ["all", "178", "97.2", ""]])
    assert lines == [
        "subset    n    Success    Incorrect action rate",
        "--------  ---  ---------  -----------------------",
        "easy      28   100.0      0.0",
        "hard      150  96.7       1.25",
        "all       178  97.2",
    ]


def test_cells_are_text_as_given_never_reparsed_as_numbers():
    # "1e3" and "007" stay as written; a number-parsing table would print 1000 and 7
    assert text_table(["id", "value"], [["007", "1e3"]])[2] == "007   1e3"
