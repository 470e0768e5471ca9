"""Fidelity of the simulated Sheets API to Google's, as gspread sees it: the responses of the
values calls, batchUpdate's replies, spreadsheets.get's skeleton, dates and errors, each checked
field by field against the shapes of the API reference (written here, not taken from gspread's
tests). Drive's files and the other batchUpdate requests have their own files
(test_sheets_drive.py, test_sheets_requests.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("gspread")

import gspread  # noqa: E402

from toolgym.worlds.sheets.world import SheetsWorld  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def base():
    world = SheetsWorld()
    world.add_spreadsheet("fid", "Fidelity", [["Name", "Score"], ["Ann", 3], ["Ben", 5]], sheet_id=930, row_count=20,
                          column_count=6)
    world.session.commit()
    return world, world.snapshot()


@pytest.fixture
def book(base):
    world, snap = base
    world.restore(snap)
    return world.client().open_by_key("fid")


def api_error(call) -> tuple[int, dict]:
    with pytest.raises(gspread.exceptions.APIError) as caught:
        call()
    return caught.value.response.status_code, caught.value.response.json()


def test_values_update_and_its_values_in_the_response(book):
    assert book.sheet1.update([["Cy", 7]], "A4:B4") == {
        "spreadsheetId": "fid", "updatedRange": "Sheet1!A4:B4", "updatedRows": 1, "updatedColumns": 2,
        "updatedCells": 2}
    reply = book.values_update("Sheet1!C1", params={"valueInputOption": "USER_ENTERED",
                                                    "includeValuesInResponse": True}, body={"values": [["=B2*2"]]})
    assert reply == {"spreadsheetId": "fid", "updatedRange": "Sheet1!C1", "updatedRows": 1, "updatedColumns": 1,
                     "updatedCells": 1,
                     "updatedData": {"range": "Sheet1!C1", "majorDimension": "ROWS", "values": [["6"]]}}


def test_values_get_trims_names_the_grid_and_renders_three_ways(book):
    book.sheet1.update_acell("C1", "=B2*2")
    # A sheet's name alone is its whole grid; trailing empty cells are left out of each row.
    assert book.values_get("Sheet1") == {"range": "Sheet1!A1:F20", "majorDimension": "ROWS",
                                         "values": [["Name", "Score", "6"], ["Ann", "3"], ["Ben", "5"]]}
    # An empty range has no "values" at all.
    assert book.values_get("Sheet1!E1:F2") == {"range": "Sheet1!E1:F2", "majorDimension": "ROWS"}
    assert book.values_get("Sheet1!A1:B3", params={"majorDimension": "COLUMNS"})["values"] == [
        ["Name", "Ann", "Ben"], ["Score", "3", "5"]]
    unformatted = book.values_get("Sheet1!B1:C2", params={"valueRenderOption": "UNFORMATTED_VALUE"})["values"]
    assert unformatted == [["Score", 6], [3]] and all(type(v) is int for v in (unformatted[0][1], unformatted[1][0]))
    assert book.values_get("Sheet1!C1", params={"valueRenderOption": "FORMULA"})["values"] == [["=B2*2"]]


def test_append_clear_and_batch_get_shapes(book):
    reply = book.sheet1.append_row(["Di", 9])
    assert set(reply) == {"spreadsheetId", "tableRange", "updates"}
    assert reply["updates"] == {"spreadsheetId": "fid", "updatedRange": "Sheet1!A4:B4", "updatedRows": 1,
                                "updatedColumns": 2, "updatedCells": 2}
    assert reply["tableRange"].startswith("Sheet1!A1:") and reply["tableRange"].endswith("3")
    assert book.values_clear("Sheet1!B4") == {"spreadsheetId": "fid", "clearedRange": "Sheet1!B4"}
    assert book.sheet1.batch_clear(["A4", "C1:D2"]) == {"spreadsheetId": "fid",
                                                        "clearedRanges": ["Sheet1!A4", "Sheet1!C1:D2"]}
    assert book.values_batch_get(["Sheet1!A1:A2", "Sheet1!F9"]) == {"spreadsheetId": "fid", "valueRanges": [
        {"range": "Sheet1!A1:A2", "majorDimension": "ROWS", "values": [["Name"], ["Ann"]]},
        {"range": "Sheet1!F9", "majorDimension": "ROWS"}]}


def test_batch_update_answers_one_reply_per_request(book):
    reply = book.batch_update({"requests": [
        {"repeatCell": {"range": {"sheetId": 930, "startRowIndex": 0, "endRowIndex": 1},
                        "cell": {"userEnteredFormat": {"textFormat": {"bold": True}}},
                        "fields": "userEnteredFormat.textFormat.bold"}},
        {"addSheet": {"properties": {"title": "New"}}}]})
    assert set(reply) == {"spreadsheetId", "replies"} and reply["replies"][0] == {}
    properties = reply["replies"][1]["addSheet"]["properties"]
    assert set(properties) == {"sheetId", "title", "index", "sheetType", "gridProperties"}
    assert (properties["title"], properties["index"], properties["sheetType"], properties["gridProperties"]) == (
        "New", 1, "GRID", {"rowCount": 1000, "columnCount": 26})
    named = book.sheet1.define_named_range("A1:B2", "Pair")["replies"][0]["addNamedRange"]["namedRange"]
    assert set(named) == {"namedRangeId", "name", "range"} and isinstance(named["namedRangeId"], str)
    assert named["range"] == {"sheetId": 930, "startRowIndex": 0, "endRowIndex": 2, "startColumnIndex": 0,
                              "endColumnIndex": 2}
    assert book.list_named_ranges() == [named]


def test_spreadsheets_get_skeleton_and_zeros_left_out(book):
    meta = book.fetch_sheet_metadata()
    assert set(meta) == {"spreadsheetId", "properties", "sheets", "spreadsheetUrl"}
    assert meta["spreadsheetUrl"] == "https://docs.google.com/spreadsheets/d/fid/edit"
    assert {k: meta["properties"][k] for k in ("title", "locale", "autoRecalc", "timeZone")} == {
        "title": "Fidelity", "locale": "en_US", "autoRecalc": "ON_CHANGE", "timeZone": "Etc/GMT"}
    assert meta["sheets"] == [{"properties": {"sheetId": 930, "title": "Sheet1", "index": 0, "sheetType": "GRID",
                                              "gridProperties": {"rowCount": 20, "columnCount": 6}}}]
    book.sheet1.freeze(rows=1)  # frozen counts appear once they are not zero
    grid = book.fetch_sheet_metadata()["sheets"][0]["properties"]["gridProperties"]
    assert grid == {"rowCount": 20, "columnCount": 6, "frozenRowCount": 1}


def test_dates_render_as_serial_numbers_or_their_format(book):
    book.sheet1.update_acell("D1", "2024-03-15")
    assert book.values_get("Sheet1!D1")["values"] == [["2024-03-15"]]
    serial = book.values_get("Sheet1!D1", params={"valueRenderOption": "UNFORMATTED_VALUE",
                                                  "dateTimeRenderOption": "SERIAL_NUMBER"})
    assert serial["values"] == [[45366]]
    text = book.values_get("Sheet1!D1", params={"valueRenderOption": "UNFORMATTED_VALUE",
                                                "dateTimeRenderOption": "FORMATTED_STRING"})
    assert text["values"] == [["2024-03-15"]]
    cell = book.fetch_sheet_metadata({"includeGridData": "true", "ranges": "Sheet1!D1"})
    data = cell["sheets"][0]["data"][0]["rowData"][0]["values"][0]
    assert data["userEnteredValue"] == {"numberValue": 45366} and data["formattedValue"] == "2024-03-15"
    assert data["userEnteredFormat"]["numberFormat"] == {"type": "DATE", "pattern": "yyyy-mm-dd"}


def test_errors_have_the_api_shape_and_quote_the_range(book):
    assert api_error(lambda: book.values_get("Nope!A1")) == (400, {"error": {
        "code": 400, "message": "Unable to parse range: Nope!A1", "status": "INVALID_ARGUMENT"}})
    status, body = api_error(lambda: book.batch_update({"requests": [{"addChart": {}}]}))
    assert status == 400 and set(body["error"]) == {"code", "message", "status"}
    assert body["error"]["status"] == "INVALID_ARGUMENT" and "addChart" in body["error"]["message"]
    book.sheet1.update_acell("E1", "=B2/0")
    assert book.values_get("Sheet1!E1")["values"] == [["#DIV/0!"]]
    grid = book.fetch_sheet_metadata({"includeGridData": "true", "ranges": "Sheet1!E1"})
    effective = grid["sheets"][0]["data"][0]["rowData"][0]["values"][0]["effectiveValue"]
    assert effective == {"errorValue": {"type": "DIVIDE_BY_ZERO", "message": "Function DIVIDE parameter 2 cannot be "
                                                                             "zero."}}
