"""batchUpdate requests and spreadsheet parts beyond the tasks' own: hidden sheets, tab colors,
gridlines, time zone and locale, the theme, named and protected ranges, dimension sizes,
hiding and groups, data validation, copy/cut paste, duplicated and copied sheets, notes and
Drive's modifiedTime; each checked against the API's response shapes."""

from __future__ import annotations

import pytest

pytest.importorskip("gspread")

import gspread  # noqa: E402

from toolgym.worlds.sheets.world import SheetsWorld  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def base():
    world = SheetsWorld()
    world.add_spreadsheet("r", "Requests", [["Name", "Score"], ["Ann", 3], ["Ben", 5]], sheet_id=910, row_count=20,
                          column_count=6)
    world.add_spreadsheet("other", "Other", [["x"]], sheet_id=920, row_count=5, column_count=5)
    world.session.commit()
    return world, world.snapshot()


@pytest.fixture
def book(base):
    world, snap = base
    world.restore(snap)
    return world.client().open_by_key("r")


def sheet_meta(book, index: int = 0) -> dict:
    return book.fetch_sheet_metadata()["sheets"][index]


def test_sheet_properties_hidden_tab_color_gridlines(book):
    with pytest.raises(gspread.exceptions.APIError, match="can't hide all the sheets"):
        book.sheet1.hide()
    other = book.add_worksheet("Second", 5, 5)
    other.hide()
    assert sheet_meta(book, 1)["properties"]["hidden"] is True
    assert [w.title for w in book.worksheets(exclude_hidden=True)] == ["Sheet1"] and len(book.worksheets()) == 2
    other.show()
    assert "hidden" not in sheet_meta(book, 1)["properties"]
    book.sheet1.update_tab_color("#FF8000")
    properties = sheet_meta(book)["properties"]
    assert properties["tabColorStyle"]["rgbColor"]["red"] == 1 and properties["tabColor"]["red"] == 1
    book.sheet1.clear_tab_color()
    assert "tabColorStyle" not in sheet_meta(book)["properties"]
    book.sheet1.hide_gridlines()
    assert sheet_meta(book)["properties"]["gridProperties"]["hideGridlines"] is True


def test_spreadsheet_properties_time_zone_locale_theme(book):
    book.update_timezone("Europe/Paris")
    book.update_locale("fr_FR")
    properties = book.fetch_sheet_metadata()["properties"]
    assert (properties["timeZone"], properties["locale"]) == ("Europe/Paris", "fr_FR")
    theme = properties["spreadsheetTheme"]
    assert theme["primaryFontFamily"] == "Arial" and [c["colorType"] for c in theme["themeColors"]] == [
        "TEXT", "BACKGROUND", "ACCENT1", "ACCENT2", "ACCENT3", "ACCENT4", "ACCENT5", "ACCENT6", "LINK"]
    with pytest.raises(gspread.exceptions.APIError, match="Invalid timeZone"):
        book.update_timezone("../etc")


def test_named_ranges(book):
    book.sheet1.define_named_range("A1:B2", "Head")
    named = book.fetch_sheet_metadata(params={"fields": "namedRanges"})["namedRanges"]
    assert named == [{"namedRangeId": named[0]["namedRangeId"], "name": "Head",
                      "range": {"sheetId": 910, "startRowIndex": 0, "endRowIndex": 2, "startColumnIndex": 0,
                                "endColumnIndex": 2}}]
    assert book.values_get("Head")["values"] == [["Name", "Score"], ["Ann", "3"]]
    with pytest.raises(gspread.exceptions.APIError, match="already exists"):
        book.sheet1.define_named_range("C1", "head")
    book.sheet1.delete_named_range(named[0]["namedRangeId"])
    assert "namedRanges" not in book.fetch_sheet_metadata()


def test_protected_ranges(book):
    book.sheet1.add_protected_range("A1:B2", ["editor@example.org"], description="head")
    protected = sheet_meta(book)["protectedRanges"]
    assert protected == [{"protectedRangeId": protected[0]["protectedRangeId"],
                          "range": {"sheetId": 910, "startRowIndex": 0, "endRowIndex": 2, "startColumnIndex": 0,
                                    "endColumnIndex": 2},
                          "requestingUserCanEdit": True, "description": "head",
                          "editors": {"users": ["agent@toolgym.iam.gserviceaccount.com", "editor@example.org"]}}]
    book.sheet1.delete_protected_range(protected[0]["protectedRangeId"])
    assert "protectedRanges" not in sheet_meta(book)


def test_dimension_sizes_hiding_auto_resize_and_groups(book):
    ws = book.sheet1
    ws.update_acell("A1", "A" * 50)
    params = {"fields": "sheets.data.columnMetadata,sheets.data.rowMetadata"}
    data = book.fetch_sheet_metadata(params=params)["sheets"][0]["data"][0]
    assert data["columnMetadata"][0] == {"pixelSize": 100} and data["rowMetadata"][0] == {"pixelSize": 21}
    ws.columns_auto_resize(0, 1)
    ws.hide_rows(1, 2)
    data = book.fetch_sheet_metadata(params=params)["sheets"][0]["data"][0]
    assert data["columnMetadata"][0]["pixelSize"] == 7 * 50 + 10
    assert data["rowMetadata"][1] == {"pixelSize": 21, "hiddenByUser": True}
    ws.unhide_rows(1, 2)
    ws.add_dimension_group_rows(0, 4)
    ws.add_dimension_group_rows(1, 3)
    assert [(g["range"]["startIndex"], g["range"]["endIndex"], g["depth"]) for g in ws.list_dimension_group_rows()] \
        == [(0, 4, 1), (1, 3, 2)]
    ws.delete_dimension_group_rows(0, 4)
    ws.delete_dimension_group_rows(1, 3)
    assert ws.list_dimension_group_rows() == []
    assert "rowMetadata" not in book.fetch_sheet_metadata()["sheets"][0]  # only with the grid data


def test_data_validation_is_kept_and_strict_rules_refuse_values(book):
    ws = book.sheet1
    ws.add_validation("C1", gspread.utils.ValidationConditionType.one_of_list, ["y", "n"], strict=True)
    rule = book.fetch_sheet_metadata(params={"ranges": "C1", "fields": "sheets.data.rowData.values.dataValidation"})
    assert rule["sheets"][0]["data"][0]["rowData"][0]["values"][0]["dataValidation"] == {
        "condition": {"type": "ONE_OF_LIST", "values": [{"userEnteredValue": "y"}, {"userEnteredValue": "n"}]},
        "strict": True, "showCustomUi": False}
    with pytest.raises(gspread.exceptions.APIError, match="violates the cell's data validation rule"):
        ws.update([["X"]], "C1")
    ws.update([["y"]], "C1")
    assert ws.acell("C1").value == "y"


def test_copy_and_cut_paste(book):
    ws = book.sheet1
    ws.update([["=B2*2"]], "C2", raw=False)
    ws.copy_range("A2:C2", "A5:C5")
    assert ws.row_values(5) == ["Ann", "3", "6"] and ws.acell("C5", value_render_option="FORMULA").value == "=B5*2"
    ws.cut_range("A2:B2", "E1")
    assert ws.row_values(2)[:2] == ["", ""] and ws.get("E1:F1") == [["Ann", "3"]]


def test_duplicate_and_copy_to(book, base):
    ws = book.sheet1
    ws.format("A1", {"textFormat": {"bold": True}})
    duplicate = book.duplicate_sheet(ws.id, insert_sheet_index=1)
    assert duplicate.title == "Copy of Sheet1" and duplicate.index == 1
    assert duplicate.get_all_values() == ws.get_all_values()
    properties = ws.copy_to("other")
    assert properties["title"] == "Copy of Sheet1" and properties["index"] == 1
    other = base[0].client().open_by_key("other")
    assert other.worksheet("Copy of Sheet1").get_all_values() == ws.get_all_values()


def test_notes_merges_and_modified_time(book, base):
    ws = book.sheet1
    assert ws.get_notes() == [[]]
    ws.update_note("B2", "checked")
    assert ws.get_note("B2") == "checked" and ws.get_notes() == [[], ["", "checked"]]
    ws.merge_cells("A1:B2", merge_type="MERGE_ROWS")
    ws.merge_cells("A1:B2")  # a merge over whole merges replaces them
    assert sheet_meta(book)["merges"] == [{"sheetId": 910, "startRowIndex": 0, "endRowIndex": 2,
                                           "startColumnIndex": 0, "endColumnIndex": 2}]
    client = base[0].client()
    before = client.get_file_drive_metadata("r")["modifiedTime"]
    ws.update_acell("D1", "x")
    assert client.get_file_drive_metadata("r")["modifiedTime"] > before


def test_dates_are_serial_numbers_with_date_formats(book):
    ws = book.sheet1
    ws.update([["2020-01-01", "1/2/1999", "2020-01-01 13:45", "2020-02-30"]], "A3:D3", raw=False)
    unformatted = ws.get("A3:D3", value_render_option="UNFORMATTED_VALUE")
    assert unformatted == [[43831, 36162, 43831.572916666664, "2020-02-30"]]  # not a day: text
    strings = ws.get("A3:C3", value_render_option="UNFORMATTED_VALUE", date_time_render_option="FORMATTED_STRING")
    assert strings == [["2020-01-01", "1/2/1999", "2020-01-01 13:45:00"]]
    assert ws.get("A3:C3") == [["2020-01-01", "1/2/1999", "2020-01-01 13:45:00"]]
    formats = book.fetch_sheet_metadata(params={"ranges": "A3:C3",
                                                "fields": "sheets.data.rowData.values.userEnteredFormat"})
    cells = formats["sheets"][0]["data"][0]["rowData"][0]["values"]
    assert [c["userEnteredFormat"]["numberFormat"] for c in cells] == [
        {"type": "DATE", "pattern": "yyyy-mm-dd"}, {"type": "DATE", "pattern": "M/d/yyyy"},
        {"type": "DATE_TIME", "pattern": "yyyy-mm-dd H:mm:ss"}]
    ws.format("B2", {"numberFormat": {"type": "DATE", "pattern": "dddd, mmmm d, yyyy"}})
    ws.update_acell("B2", 43831.75)
    assert ws.acell("B2").value == "Wednesday, January 1, 2020"
    ws.format("B2", {"numberFormat": {"type": "TIME", "pattern": "h:mm am/pm"}})
    assert ws.acell("B2").value == "6:00 PM"


def test_typed_numbers_give_their_cells_sheets_formats(book):
    ws = book.sheet1
    ws.update([["2,000,000.01", "$1.50", "12.5%", "1,000", "12"]], "A4:E4", raw=False)
    assert ws.row_values(4) == ["2,000,000.01", "$1.50", "12.50%", "1,000", "12"]
    assert ws.get("A4:E4", value_render_option="UNFORMATTED_VALUE") == [[2000000.01, 1.5, 0.125, 1000, 12]]
    ws.format("F4", {"numberFormat": {"type": "NUMBER", "pattern": "0.0"}})
    ws.update([["1,234"]], "F4", raw=False)  # a cell's own number format stays
    assert ws.acell("F4").value == "1234.0"
