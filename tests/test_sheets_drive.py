"""The simulated Drive API v3 as gspread uses it: files (create, copy, list with q and paging,
get, delete, export, CSV import) and permissions (share, list, remove), each response checked
field by field against the shapes Drive answers, and the error shapes of what it refuses."""

from __future__ import annotations

import gspread
import pytest

pytest.importorskip("gspread")

from toolgym.worlds.sheets.drive import OWNER, SPREADSHEET_MIME  # noqa: E402
from toolgym.worlds.sheets.world import SheetsWorld  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def base():
    world = SheetsWorld()
    world.add_spreadsheet("seeded", "Seeded", [["Name", "Score"], ["Ann", 3]], sheet_id=900, row_count=10, column_count=4)
    world.session.commit()
    return world, world.snapshot()


@pytest.fixture
def client(base):
    world, snap = base
    world.restore(snap)
    return world.client()


def drive(client, method: str, path: str, **kwargs):
    return client.http_client.session.request(method, "https://www.googleapis.com/drive/v3/" + path, **kwargs)


def test_create_opens_a_spreadsheet_with_one_sheet(client):
    spreadsheet = client.create("Budget")
    assert len(spreadsheet.id) == 44 and spreadsheet.title == "Budget"
    sheet = spreadsheet.sheet1
    assert (sheet.title, sheet.row_count, sheet.col_count, sheet.id) == ("Sheet1", 1000, 26, 0)
    metadata = client.get_file_drive_metadata(spreadsheet.id)
    assert metadata == {"id": spreadsheet.id, "name": "Budget", "createdTime": "2023-09-11T09:00:00.000Z",
                        "modifiedTime": "2023-09-11T09:00:00.000Z"}
    again = client.create("Budget")  # new ids (the world's: the same seed gives the same ones)
    assert again.id != spreadsheet.id and again.sheet1.id not in (0, 900)
    response = drive(client, "POST", "files", json={"name": "Plain", "mimeType": SPREADSHEET_MIME})
    assert response.json() == {"kind": "drive#file", "id": response.json()["id"], "name": "Plain",
                               "mimeType": SPREADSHEET_MIME}


def test_copy_keeps_the_cells_and_formulas_under_new_ids(client):
    source = client.open_by_key("seeded")
    source.sheet1.update([["=B2*2"]], "C2", raw=False)
    source.sheet1.format("A1", {"textFormat": {"bold": True}})
    copied = client.copy("seeded", copy_comments=True)
    assert copied.title == "Copy of Seeded" and copied.id != "seeded"
    assert copied.sheet1.get_all_values() == [["Name", "Score", ""], ["Ann", "3", "6"]]
    assert copied.sheet1.acell("C2", value_render_option="FORMULA").value == "=B2*2"
    assert copied.sheet1.id != source.sheet1.id
    copied.sheet1.update_acell("B2", 10)  # the copy is its own
    assert copied.sheet1.acell("C2").value == "20" and source.sheet1.acell("C2").value == "6"
    named = client.copy("seeded", title="Named copy", copy_comments=False)
    assert named.title == "Named copy"


def test_open_by_title_openall_and_list_with_q_and_paging(client):
    for title in ("Alpha", "Beta", "Alpha"):
        client.create(title)
    generated = {s.title for s in client.openall()} - {"Seeded", "Alpha", "Beta"}  # the world's own tables
    assert {f["name"] for f in client.list_spreadsheet_files()} == {"Seeded", "Alpha", "Beta"} | generated
    assert len(client.list_spreadsheet_files(title="Alpha")) == 2
    assert client.open("Beta").title == "Beta"
    with pytest.raises(gspread.SpreadsheetNotFound):
        client.open("Gamma")
    assert sorted(s.title for s in client.openall() if s.title not in generated) == ["Alpha", "Alpha", "Beta",
                                                                                     "Seeded"]
    query = "name contains 'alph' and trashed = false and mimeType = 'application/vnd.google-apps.spreadsheet'"
    first = drive(client, "GET", "files", params={"pageSize": 1, "q": query}).json()
    assert set(first) == {"kind", "incompleteSearch", "files", "nextPageToken"} and len(first["files"]) == 1
    assert set(first["files"][0]) == {"kind", "id", "name", "mimeType"}
    rest = drive(client, "GET", "files", params={"pageSize": 1, "pageToken": first["nextPageToken"], "q": query}).json()
    assert "nextPageToken" not in rest and [f["name"] for f in first["files"] + rest["files"]] == ["Alpha", "Alpha"]
    folder = drive(client, "GET", "files", params={"q": "'root' in parents and mimeType != 'x'",
                                                   "fields": "files(id,parents)"}).json()
    assert all(f["parents"] == ["root"] and set(f) == {"id", "parents"} for f in folder["files"])
    bad = drive(client, "GET", "files", params={"q": "modifiedTime > '2020-01-01'"})
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_delete_removes_the_file_and_its_sheets(client, base):
    spreadsheet = client.create("Doomed")
    spreadsheet.sheet1.update_acell("A1", "x")
    client.del_spreadsheet(spreadsheet.id)
    with pytest.raises(gspread.SpreadsheetNotFound):
        client.open_by_key(spreadsheet.id)
    response = drive(client, "DELETE", f"files/{spreadsheet.id}")
    assert response.status_code == 404 and response.json()["error"] == {
        "code": 404, "message": f"File not found: {spreadsheet.id}.", "status": "NOT_FOUND"}
    assert client.open_by_key("seeded").sheet1.acell("A2").value == "Ann"


def test_export_csv_and_tsv_and_a_clear_400_for_the_rest(client):
    sheet = client.open_by_key("seeded").sheet1
    sheet.update([["a,b", 1.5]], "A3")
    assert client.export("seeded", gspread.utils.ExportFormat.CSV) == b'Name,Score\r\nAnn,3\r\n"a,b",1.5'
    assert client.export("seeded", gspread.utils.ExportFormat.TSV) == b"Name\tScore\r\nAnn\t3\r\na,b\t1.5"
    with pytest.raises(gspread.exceptions.APIError) as error:
        client.export("seeded", gspread.utils.ExportFormat.PDF)
    assert error.value.response.status_code == 400
    assert "exports text/csv and text/tab-separated-values, not 'application/pdf'" in str(error.value)


def test_import_csv_replaces_the_sheets(client):
    spreadsheet = client.open_by_key("seeded")
    spreadsheet.add_worksheet("Extra", 5, 5)
    client.import_csv("seeded", "x,y\n1,=1+1\n")
    sheets = spreadsheet.worksheets()  # Drive's conversion names the sheet after the file
    assert [(w.title, w.row_count, w.col_count) for w in sheets] == [("Seeded", 1000, 26)]
    assert sheets[0].get_all_values() == [["x", "y"], ["1", "2"]]
    for data, message in [("=" + "1+" * 600 + "1", "at most 1000 characters"),
                          ("\n".join(f"=A1+{i}" for i in range(2000)), "recalculation work")]:
        with pytest.raises(gspread.exceptions.APIError, match=message):
            client.import_csv("seeded", data)
    assert sheets[0].get_all_values() == [["x", "y"], ["1", "2"]]


def test_share_list_and_remove_permissions(client):
    spreadsheet = client.open_by_key("seeded")
    spreadsheet.share("Otto@Example.org", perm_type="user", role="writer", notify=False)
    spreadsheet.share(None, perm_type="anyone", role="reader", with_link=True)
    permissions = spreadsheet.list_permissions()
    assert permissions[0] == OWNER
    user = next(p for p in permissions if p["type"] == "user" and p["role"] == "writer")
    assert user["emailAddress"] == "otto@example.org" and len(user["id"]) == 20
    anyone = next(p for p in permissions if p["type"] == "anyone")
    assert anyone == {"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "reader",
                      "allowFileDiscovery": False}
    spreadsheet.share("otto@example.org", perm_type="user", role="reader", notify=False)  # a new role, not a new row
    assert [p["role"] for p in spreadsheet.list_permissions() if p["type"] == "user"] == ["owner", "reader"]
    spreadsheet.remove_permissions("otto@example.org")
    assert [p["type"] for p in spreadsheet.list_permissions()] == ["user", "anyone"]
    with pytest.raises(gspread.exceptions.APIError) as error:
        spreadsheet.share("x@example.org", perm_type="user", role="owner", notify=False)
    assert error.value.response.status_code == 403 and "transferOwnership" in str(error.value)
    with pytest.raises(gspread.exceptions.APIError) as error:
        client.remove_permission("seeded", OWNER["id"])
    assert "owner of a file cannot be removed" in str(error.value)


def test_requests_it_does_not_simulate_are_api_errors_and_change_nothing(client, base):
    world = base[0]
    before = world.state_hash()
    for method, path, kwargs in [("PATCH", "files/seeded", {"json": {"name": "x"}}),
                                 ("GET", "files/missing", {}),
                                 ("POST", "files", {"json": {"name": "f", "mimeType": "application/vnd.google-apps.folder"}}),
                                 ("POST", "files", {"data": b"{bad", "headers": {"Content-Type": "application/json"}}),
                                 ("POST", "files/seeded/permissions", {"json": {"type": "robot", "role": "reader"}}),
                                 ("GET", "files", {"params": {"pageSize": "0"}}),
                                 ("GET", "about", {})]:
        response = drive(client, method, path, **kwargs)
        error = response.json()["error"]
        assert response.status_code in (400, 403, 404) and set(error) == {"code", "message", "status"}, (path, error)
    assert world.state_hash() == before
