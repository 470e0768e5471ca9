"""The simulated Sheets API v4: each request kind against hand-written expected sheets,
formulas against hand-computed values, formats through gspread-formatting, error shapes."""

from __future__ import annotations

import pytest

pytest.importorskip("gspread")
pytest.importorskip("gspread_dataframe")

import gspread  # noqa: E402
from gspread_dataframe import get_as_dataframe, set_with_dataframe  # noqa: E402

from toolgym.worlds.sheets.api import format_number, parse_fields, parse_user_entered, pivot_table  # noqa: E402
from toolgym.worlds.sheets.world import SheetsWorld  # noqa: E402

ROWS = [["Name", "Team", "Score", "Games"], ["Ann", "Red", 30, 3], ["Ben", "Blue", 10, 2], ["Cy", "Red", 20, 4]]


@pytest.fixture(scope="module")
def base_world():
    world = SheetsWorld()
    world.add_spreadsheet("t1", "Test", ROWS, sheet_id=900, row_count=10, column_count=6)
    world.session.commit()
    return world, world.snapshot()


@pytest.fixture
def ws(base_world):
    world, snap = base_world
    world.restore(snap)
    return world.client().open_by_key("t1").sheet1


def values(ws):
    return ws.get_all_values()


def test_values_get_trims_and_formats(ws):
    assert values(ws) == [["Name", "Team", "Score", "Games"], ["Ann", "Red", "30", "3"], ["Ben", "Blue", "10", "2"],
                          ["Cy", "Red", "20", "4"]]
    assert ws.get("C2:D3") == [["30", "3"], ["10", "2"]]
    assert ws.col_values(1) == ["Name", "Ann", "Ben", "Cy"]
    assert ws.get_all_records()[1] == {"Name": "Ben", "Team": "Blue", "Score": 10, "Games": 2}


def test_update_user_entered_and_raw(ws):
    ws.update([["5", "=1+1"]], "E1:F1", raw=True)
    ws.update([["5", "=1+1"]], "E2:F2", raw=False)
    assert ws.get("E1:F2", value_render_option="UNFORMATTED_VALUE") == [["5", "=1+1"], [5, 2]]


def test_formulas_hand_computed(ws):
    ws.update([["=SUM(C2:C4)", "=AVERAGE(C2:C4)", "=MAX(C2:C4)-MIN(C2:C4)", "=COUNTIF(B2:B4,\"Red\")",
                "=SUMIF(B2:B4,\"Red\",C2:C4)", "=IF(C2>C3,\"up\",\"down\")"]], "A6:F6", raw=False)
    ws.update([["=ROUND(C2/7,2)", "=A6*2", "=COUNT(A1:D4)", "=1/0"]], "A7:D7", raw=False)
    got = ws.get("A6:F7", value_render_option="UNFORMATTED_VALUE")
    assert got == [[60, 20, 20, 2, 50, "up"], [4.29, 120, 6, "#DIV/0!"]]
    ws.update_acell("C2", 100)  # dependents recompute
    assert ws.acell("A6").value == "130" and ws.acell("B7").value == "260"


def test_insert_and_delete_rows_shift_formulas(ws):
    ws.update_acell("C5", "=SUM(C2:C4)")
    ws.insert_row(["Dee", "Blue", 5, 1], 3)
    assert ws.row_values(3) == ["Dee", "Blue", "5", "1"]
    assert ws.acell("C6", value_render_option="FORMULA").value == "=SUM(C2:C5)"
    assert ws.acell("C6").value == "65"
    ws.delete_rows(2)
    assert ws.col_values(1) == ["Name", "Dee", "Ben", "Cy"]
    assert ws.acell("C5", value_render_option="FORMULA").value == "=SUM(C2:C4)"
    assert ws.row_count == 10


def test_columns_insert_delete(ws):
    ws.insert_cols([["ID", 1, 2, 3]], 1)
    assert ws.row_values(1) == ["ID", "Name", "Team", "Score", "Games"]
    ws.delete_columns(2, 3)
    assert values(ws)[1] == ["1", "30", "3"]


def test_append_row_and_add_rows(ws):
    ws.append_row(["Dan", "Blue", 7, 1])
    assert values(ws)[-1] == ["Dan", "Blue", "7", "1"]
    ws.add_rows(3)  # gspread appends with INSERT_ROWS: the appended row was inserted (10 + 1 + 3)
    assert ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]["properties"]["gridProperties"]["rowCount"] == 14


def test_sort(ws):
    ws.sort((3, "des"), range="A2:D4")
    assert ws.col_values(1) == ["Name", "Ann", "Cy", "Ben"]
    ws.sort((2, "asc"), (1, "des"), range="A2:D4")
    assert ws.col_values(1) == ["Name", "Ben", "Cy", "Ann"]


def test_merge_keeps_top_left_and_unmerge(ws):
    ws.merge_cells("A2:B3")
    assert values(ws)[1:3] == [["Ann", "", "30", "3"], ["", "", "10", "2"]]
    meta = ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]
    assert meta["merges"] == [{"sheetId": 900, "startRowIndex": 1, "endRowIndex": 3, "startColumnIndex": 0,
                               "endColumnIndex": 2}]
    ws.unmerge_cells("A2:B3")
    assert "merges" not in ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]


def test_basic_filter_freeze_and_sheets(ws):
    ws.set_basic_filter("A1:D4")
    ws.freeze(rows=1)
    sheet = ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]
    assert sheet["basicFilter"]["range"] == {"sheetId": 900, "startRowIndex": 0, "endRowIndex": 4,
                                             "startColumnIndex": 0, "endColumnIndex": 4}
    assert sheet["properties"]["gridProperties"]["frozenRowCount"] == 1
    ws.clear_basic_filter()
    assert "basicFilter" not in ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]
    new = ws.spreadsheet.add_worksheet("Two", 5, 5)
    new.update([["=Sheet1!C2+1"]], "A1", raw=False)
    assert new.acell("A1").value == "31"
    assert [w.title for w in ws.spreadsheet.worksheets()] == ["Sheet1", "Two"]
    ws.spreadsheet.del_worksheet(new)
    assert len(ws.spreadsheet.worksheets()) == 1


def test_clear_and_batch(ws):
    ws.batch_update([{"range": "A5", "values": [["x"]]}, {"range": "B5", "values": [["=2*3"]]}],
                    value_input_option="USER_ENTERED")
    assert ws.row_values(5) == ["x", "6"]
    ws.batch_clear(["A5:B5"])
    assert len(values(ws)) == 4
    ws.clear()
    assert values(ws) == [[]]  # what gspread makes of an empty sheet


def test_formats_through_gspread_formatting(ws):
    from gspread_formatting import CellFormat, TextFormat, format_cell_range, get_effective_format

    ws.format("A1:D1", {"textFormat": {"bold": True}, "backgroundColor": {"red": 1, "green": 1, "blue": 0}})
    fmt = get_effective_format(ws, "B1")
    assert fmt.textFormat.bold is True and fmt.backgroundColor.blue == 0 and fmt.textFormat.italic is False
    assert get_effective_format(ws, "B2").textFormat.bold is False
    format_cell_range(ws, "C2:C4", CellFormat(numberFormat={"type": "CURRENCY", "pattern": "$#,##0.00"},
                                              textFormat=TextFormat(italic=True)))
    assert ws.acell("C2").value == "$30.00"
    assert get_effective_format(ws, "C3").textFormat.italic is True
    assert ws.acell("C2", value_render_option="UNFORMATTED_VALUE").value == 30


def test_pivot_table_output(ws):
    body = {"requests": [{"updateCells": {
        "rows": [{"values": [{"pivotTable": {
            "source": {"sheetId": 900, "startRowIndex": 0, "endRowIndex": 4, "startColumnIndex": 0,
                       "endColumnIndex": 4},
            "rows": [{"sourceColumnOffset": 1, "showTotals": True, "sortOrder": "ASCENDING"}],
            "values": [{"summarizeFunction": "SUM", "sourceColumnOffset": 2}]}}]}],
        "start": {"sheetId": 900, "rowIndex": 5, "columnIndex": 0}, "fields": "pivotTable"}}]}
    ws.spreadsheet.batch_update(body)
    assert ws.get("A6:B9") == [["Team", "SUM of Score"], ["Blue", "10"], ["Red", "50"], ["Grand Total", "60"]]


def test_pivot_with_columns():
    table = [["R", "C", "V"], ["a", "x", 1.0], ["a", "y", 2.0], ["b", "x", 4.0]]
    out = pivot_table(table, {"rows": [{"sourceColumnOffset": 0}], "columns": [{"sourceColumnOffset": 1}],
                              "values": [{"sourceColumnOffset": 2, "summarizeFunction": "SUM"}]})
    assert out[(0, 0)] == "SUM of V" and out[(1, 1)] == "x" and out[(1, 3)] == "Grand Total"
    assert out[(2, 1)] == 1.0 and out[(2, 2)] == 2.0 and out[(3, 1)] == 4.0 and (3, 2) not in out
    assert out[(4, 3)] == 7.0


def test_dataframe_round_trip_equals_plain_gspread(base_world):
    world, snap = base_world
    world.restore(snap)
    ws = world.client().open_by_key("t1").sheet1
    ws.update_acell("C3", 99)
    by_gspread = get_as_dataframe(ws, evaluate_formulas=True)
    world.restore(snap)
    ws = world.client().open_by_key("t1").sheet1
    df = get_as_dataframe(ws)
    df.loc[df["Name"] == "Ben", "Score"] = 99
    set_with_dataframe(ws, df)
    assert get_as_dataframe(ws, evaluate_formulas=True).equals(by_gspread)


def test_error_shapes(ws, base_world):
    with pytest.raises(gspread.exceptions.APIError) as err:
        ws.update([[1]], "Z1")
    assert err.value.response.status_code == 400 and "exceeds grid limits" in err.value.response.json()["error"][
        "message"]
    assert err.value.response.json()["error"]["status"] == "INVALID_ARGUMENT"
    with pytest.raises(gspread.exceptions.APIError) as err:
        ws.spreadsheet.batch_update({"requests": [{"noSuchRequest": {}}]})
    assert "unsupported request type" in str(err.value)
    with pytest.raises(gspread.exceptions.APIError):
        ws.spreadsheet.batch_update({"requests": [{"mergeCells": {"range": {"sheetId": 900, "startRowIndex": 0,
                                                                            "endRowIndex": 1}}},
                                                  {"deleteDimension": "bad"}]})
    assert "merges" not in ws.spreadsheet.fetch_sheet_metadata()["sheets"][0]  # the batch rolled back
    with pytest.raises(gspread.exceptions.SpreadsheetNotFound):  # gspread's name for the API's 404
        base_world[0].client().open_by_key("missing")
    with pytest.raises(gspread.exceptions.APIError) as err:
        ws.resize(rows=10_000, cols=100)
    assert "limit" in str(err.value)
    for url in ("https://oauth2.googleapis.com/token", "https://www.googleapis.com/gmail/v1/users/me/messages",
                "https://example.com/"):
        response = ws.client.session.get(url)
        assert response.status_code == 403  # no network: every host but the simulated APIs is refused


def test_quota(base_world):
    world, snap = base_world
    world.restore(snap)
    ws = world.client().open_by_key("t1").sheet1
    world.service.quota = 2
    try:
        ws.acell("A1")
        ws.acell("A1")
        with pytest.raises(gspread.exceptions.APIError) as err:
            ws.acell("A1")
        assert err.value.response.status_code == 429
    finally:
        world.service.quota = None


def test_helpers():
    assert parse_user_entered("1,234.5") == {"numberValue": 1234.5}
    assert parse_user_entered("12%") == {"numberValue": 0.12}
    assert parse_user_entered("'007") == {"stringValue": "007"}
    assert parse_user_entered("TRUE") == {"boolValue": True}
    assert format_number(1234.5, {"type": "NUMBER", "pattern": "#,##0.00"}) == "1,234.50"
    assert format_number(0.256, {"type": "PERCENT", "pattern": "0.0%"}) == "25.6%"
    assert format_number(-3.0, {"type": "CURRENCY", "pattern": "$#,##0"}) == "-$3"
    assert parse_fields("userEnteredFormat(textFormat,backgroundColor)") == [
        ["userEnteredFormat", "textFormat"], ["userEnteredFormat", "backgroundColor"]]


def test_a_field_mask_nested_past_the_bound_is_an_api_error_not_a_recursion_error():
    """3,000 nested parentheses (6 KB of a request) raised RecursionError (issue 46)."""
    from toolgym.worlds.sheets.api.common import ApiError

    assert parse_fields("a(" * 32 + "b" + ")" * 32) == [["a"] * 32 + ["b"]]
    with pytest.raises(ApiError, match="^Invalid field mask: it nests more than 32 levels of parentheses$"):
        parse_fields("a(" * 3000 + "b" + ")" * 3000)
