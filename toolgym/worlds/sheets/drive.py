"""A simulated Google Drive API v3 ``files`` resource over the Sheets world's spreadsheets.

:class:`DriveService` answers the Drive calls gspread 6 makes (``Client.create``, ``copy``,
``open`` by title, ``openall``, ``list_spreadsheet_files``, ``del_spreadsheet``, ``export``,
``import_csv``, ``list_permissions``, ``insert_permission``, ``remove_permission`` and so
``Spreadsheet.share``)::

    POST   /drive/v3/files                         files.create (a spreadsheet with one Sheet1)
    GET    /drive/v3/files                         files.list (q, pageSize, pageToken, fields)
    GET    /drive/v3/files/{id}                    files.get (fields)
    DELETE /drive/v3/files/{id}                    files.delete
    POST   /drive/v3/files/{id}/copy               files.copy
    GET    /drive/v3/files/{id}/export             files.export (text/csv, text/tab-separated-values)
    GET    /drive/v3/files/{id}/comments           comments.list (no comments are simulated)
    GET    /drive/v3/files/{id}/permissions        permissions.list
    POST   /drive/v3/files/{id}/permissions        permissions.create
    DELETE /drive/v3/files/{id}/permissions/{pid}  permissions.delete
    PUT    /upload/drive/v2/files/{id}             files.update with CSV media (import_csv)

Every file is a spreadsheet; folders are ids in ``parents`` only (``'root'`` is My Drive).
Ids come from the world's seed and a counter, times from the world's clock, so a world is
deterministic. ``q`` understands conjunctions (``and``) of ``name = '...'``, ``name
contains '...'``, ``mimeType = '...'`` (also ``!=``), ``trashed = true|false``, ``'id' in
parents`` and gspread's ``parents in "id"``; anything else is Drive's 400 ``Invalid Value``.
Exports other than CSV and TSV (PDF, XLSX, ODS, zipped HTML) are a 400 naming the type. A
request the service does not simulate is answered in the API's error shape, and a failing
request changes nothing.
"""

from __future__ import annotations

import base64
import copy
import csv
import hashlib
import io
import re
from typing import Any
from urllib.parse import unquote

from sqlalchemy import delete, insert, select

from toolgym.worlds.sheets.a1 import bounds_label
from toolgym.worlds.sheets.api import (OWNER_EMAIL, ApiError, check_user_value, filter_fields, parse_fields,
                                       parse_user_entered)
from toolgym.worlds.sheets.models import Cell, Permission, Sheet, Spreadsheet

SPREADSHEET_MIME = "application/vnd.google-apps.spreadsheet"
FOLDER_MIME = "application/vnd.google-apps.folder"
#: The account the world's programs act as: the owner of every spreadsheet.
OWNER = {"kind": "drive#permission", "id": "00000000000000000001", "type": "user", "role": "owner",
         "emailAddress": OWNER_EMAIL, "displayName": "toolgym agent",
         "deleted": False, "pendingOwner": False}
EXPORTS = {"text/csv": ",", "text/tab-separated-values": "\t"}
ROLES = ("owner", "organizer", "fileOrganizer", "writer", "commenter", "reader")
TYPES = ("user", "group", "domain", "anyone")
DEFAULT_FILE_FIELDS = [["kind"], ["id"], ["name"], ["mimeType"]]


def file_time(world) -> str:
    """The world's clock in RFC 3339, as Drive writes times."""
    return world.clock.now().strftime("%Y-%m-%dT%H:%M:%S.000Z")


class DriveService:
    """Answers Drive API requests against a :class:`SheetsWorld` (sharing its Sheets service's
    quota and caches). ``handle`` returns ``(status, body, content type)``: the body is a dict
    for JSON, bytes for an export."""

    _ROUTES = [
        ("POST", re.compile(r"^/drive/v3/files$"), "create"),
        ("GET", re.compile(r"^/drive/v3/files$"), "list"),
        ("GET", re.compile(r"^/drive/v3/files/([^/]+)$"), "get"),
        ("DELETE", re.compile(r"^/drive/v3/files/([^/]+)$"), "delete"),
        ("POST", re.compile(r"^/drive/v3/files/([^/]+)/copy$"), "copy"),
        ("GET", re.compile(r"^/drive/v3/files/([^/]+)/export$"), "export"),
        ("GET", re.compile(r"^/drive/v3/files/([^/]+)/comments$"), "comments"),
        ("GET", re.compile(r"^/drive/v3/files/([^/]+)/permissions$"), "permissions_list"),
        ("POST", re.compile(r"^/drive/v3/files/([^/]+)/permissions$"), "permissions_create"),
        ("DELETE", re.compile(r"^/drive/v3/files/([^/]+)/permissions/([^/]+)$"), "permissions_delete"),
        ("PUT", re.compile(r"^/upload/drive/v2/files/([^/]+)$"), "import_csv"),
    ]

    def __init__(self, world, sheets):
        self.world = world
        self.sheets = sheets

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               media: bytes | None = None) -> tuple[int, dict | bytes, str]:
        refused = self.sheets.spend_request()
        if refused is not None:
            return refused[0], refused[1], "application/json; charset=UTF-8"
        try:
            with self.world.atomic():  # one request, one atomic call (see SheetsService.handle)
                result = self._route(method.upper(), path, query, body, media)
        except ApiError as error:
            self.sheets.forget()
            return error.code, error.payload(), "application/json; charset=UTF-8"
        except Exception:  # noqa: BLE001 - a fault of the simulation: Google's answer to its own faults
            self.sheets.forget()
            return 500, ApiError("Internal error encountered.", 500).payload(), "application/json; charset=UTF-8"
        self.sheets.forget()  # files were made or removed under the Sheets service's caches
        if isinstance(result, tuple):  # an export: its bytes and their type
            return 200, result[0], result[1]
        if result is None:
            return 204, b"", "text/html"
        return 200, result, "application/json; charset=UTF-8"

    def _route(self, method: str, path: str, query: dict, body: Any, media: bytes | None) -> Any:
        if body is not None and not isinstance(body, dict):
            raise ApiError("Invalid JSON payload received. Expected an object.")
        for verb, pattern, name in self._ROUTES:
            match = pattern.match(path)
            if match and verb == method:
                args = [unquote(group) for group in match.groups()]
                if name == "import_csv":
                    return self.import_csv(args[0], query, media)
                return getattr(self, name)(*args, query=query, body=body or {})
        raise ApiError(f"Method {method} {path} is not supported by the simulated Drive API.", 404)

    # -- files -------------------------------------------------------------------------------
    def file(self, file_id: str, trashed_too: bool = True) -> Spreadsheet:
        spreadsheet = self.world.session.get(Spreadsheet, file_id)
        if spreadsheet is None or (spreadsheet.trashed and not trashed_too):
            raise ApiError(f"File not found: {file_id}.", 404)
        return spreadsheet

    def resource(self, spreadsheet: Spreadsheet) -> dict:
        return {"kind": "drive#file", "id": spreadsheet.id, "name": spreadsheet.title, "mimeType": SPREADSHEET_MIME,
                "parents": list(spreadsheet.parents or ["root"]), "createdTime": spreadsheet.created_time,
                "modifiedTime": spreadsheet.modified_time, "trashed": bool(spreadsheet.trashed),
                "starred": False, "ownedByMe": True, "owners": [{k: OWNER[k] for k in ("kind", "displayName",
                                                                                       "emailAddress")}],
                "webViewLink": f"https://docs.google.com/spreadsheets/d/{spreadsheet.id}/edit?usp=drivesdk"}

    def _shaped(self, spreadsheet: Spreadsheet, query: dict) -> dict:
        fields = _param(query, "fields", "")
        return filter_fields(self.resource(spreadsheet), parse_fields(fields) if fields else DEFAULT_FILE_FIELDS)

    def new_id(self) -> str:
        """A file id from the world's seed and a counter (44 characters of [A-Za-z0-9_-], as Drive's)."""
        number = 0
        while True:
            digest = hashlib.sha256(f"toolgym-drive:{self.world.seed}:{number}".encode()).digest()
            file_id = "1" + base64.urlsafe_b64encode(digest).decode().rstrip("=")[:43]
            if self.world.session.get(Spreadsheet, file_id) is None:
                return file_id
            number += 1

    def free_sheet_id(self, preferred: int) -> int:
        while self.world.session.get(Sheet, preferred) is not None:
            preferred += 1
        return preferred

    def _new_spreadsheet(self, name: Any, body: dict) -> Spreadsheet:
        mime = body.get("mimeType", SPREADSHEET_MIME)
        if mime != SPREADSHEET_MIME:
            raise ApiError(f"The simulated Drive API holds spreadsheets only; mimeType {str(mime)[:80]!r} is not "
                           f"simulated.")
        parents = body.get("parents", ["root"])
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents) or len(parents) > 1:
            raise ApiError("Invalid parents: a list of one folder id.")
        if not isinstance(name, str) or len(name) > 1000:
            raise ApiError("Invalid name: a text of at most 1,000 characters.")
        now = file_time(self.world)
        spreadsheet = Spreadsheet(id=self.new_id(), title=name, locale="en_US", time_zone="Etc/GMT", next_sheet_id=1,
                                  created_time=now, modified_time=now, parents=parents, trashed=False)
        self.world.session.add(spreadsheet)
        self.world.session.flush()
        return spreadsheet

    def create(self, query: dict, body: dict) -> dict:
        spreadsheet = self._new_spreadsheet(body.get("name", "Untitled spreadsheet"), body)
        self.world.session.add(Sheet(sheet_id=self.free_sheet_id(0), spreadsheet_id=spreadsheet.id, title="Sheet1",
                                     index=0, row_count=1000, column_count=26, frozen_rows=0, frozen_columns=0,
                                     merges=[], basic_filter=None))
        self.world.session.flush()
        return self._shaped(spreadsheet, query)

    def get(self, file_id: str, query: dict, body: dict) -> dict:
        return self._shaped(self.file(file_id), query)

    def delete(self, file_id: str, query: dict, body: dict) -> None:
        spreadsheet = self.file(file_id)
        session = self.world.session
        sheet_ids = list(session.scalars(select(Sheet.sheet_id).where(Sheet.spreadsheet_id == file_id)))
        session.execute(delete(Cell).where(Cell.sheet_id.in_(sheet_ids)))
        session.execute(delete(Sheet).where(Sheet.spreadsheet_id == file_id))
        session.execute(delete(Permission).where(Permission.spreadsheet_id == file_id))
        session.delete(spreadsheet)
        session.flush()

    def copy(self, file_id: str, query: dict, body: dict) -> dict:
        source = self.file(file_id)
        name = body.get("name") or f"Copy of {source.title}"
        copied = self._new_spreadsheet(name, {"parents": body.get("parents", list(source.parents or ["root"])),
                                              "mimeType": body.get("mimeType", SPREADSHEET_MIME)})
        copied.locale, copied.time_zone = source.locale, source.time_zone
        session = self.world.session
        sheets = sorted(session.scalars(select(Sheet).where(Sheet.spreadsheet_id == file_id)), key=lambda s: s.index)
        new_ids = {}
        for sheet in sheets:  # Sheets keeps the sheet ids; the world's ids are unique, so each takes the next free one
            new_ids[sheet.sheet_id] = self.free_sheet_id(sheet.sheet_id)
            session.add(Sheet(**{**sheet.to_dict(), "sheet_id": new_ids[sheet.sheet_id], "spreadsheet_id": copied.id,
                                 "merges": copy.deepcopy(sheet.merges),
                                 "basic_filter": copy.deepcopy(sheet.basic_filter)}))
            session.flush()
        for sheet in sheets:
            rows = []
            for cell in session.scalars(select(Cell).where(Cell.sheet_id == sheet.sheet_id)):
                pivot = copy.deepcopy(cell.pivot)
                if pivot and isinstance(pivot.get("source"), dict) and pivot["source"].get("sheetId") in new_ids:
                    pivot["source"]["sheetId"] = new_ids[pivot["source"]["sheetId"]]
                rows.append({"sheet_id": new_ids[sheet.sheet_id], "row": cell.row, "col": cell.col,
                             "value": copy.deepcopy(cell.value), "format": copy.deepcopy(cell.format), "pivot": pivot,
                             "extra": copy.deepcopy(cell.extra)})
            if rows:
                session.execute(insert(Cell), rows)
        session.flush()
        return self._shaped(copied, query)

    def list(self, query: dict, body: dict) -> dict:
        conditions = parse_query(_param(query, "q", ""))
        try:
            size = int(_param(query, "pageSize", "100"))
            start = int(_param(query, "pageToken", "") or 0)
        except ValueError:
            raise ApiError("Invalid Value") from None
        if not 1 <= size <= 1000 or start < 0:
            raise ApiError("Invalid Value")
        files = [s for s in self.world.session.scalars(select(Spreadsheet))
                 if all(condition(self.resource(s)) for condition in conditions)]
        files.sort(key=lambda s: (s.modified_time, s.id), reverse=True)  # Drive's default: most recently modified first
        page = files[start:start + size]
        result: dict = {"kind": "drive#fileList", "incompleteSearch": False,
                        "files": [self.resource(s) for s in page]}
        if start + size < len(files):
            result["nextPageToken"] = str(start + size)
        fields = _param(query, "fields", "")
        paths = parse_fields(fields) if fields else [["kind"], ["incompleteSearch"], ["nextPageToken"]] + [
            ["files", *path] for path in DEFAULT_FILE_FIELDS]
        return filter_fields(result, paths)

    # -- export and import ---------------------------------------------------------------------
    def export(self, file_id: str, query: dict, body: dict) -> tuple[bytes, str]:
        spreadsheet = self.file(file_id)
        mime = _param(query, "mimeType", "")
        if mime not in EXPORTS:
            raise ApiError(f"The requested conversion is not supported: the simulated Drive API exports "
                           f"{' and '.join(EXPORTS)}, not {mime[:80]!r}.")
        first = self.sheets.sheets(spreadsheet)[0]  # Drive exports the first sheet to CSV and TSV
        values = self.sheets.value_range(first, (0, first.row_count, 0, first.column_count), "FORMATTED_VALUE",
                                         "ROWS").get("values", [])
        out = io.StringIO()
        writer = csv.writer(out, delimiter=EXPORTS[mime], lineterminator="\r\n")
        width = max((len(row) for row in values), default=0)
        for row in values:
            writer.writerow(row + [""] * (width - len(row)))
        return out.getvalue().removesuffix("\r\n").encode("utf-8"), mime

    def import_csv(self, file_id: str, query: dict, media: bytes | None) -> dict:
        """Drive v2's media upload with convert=True: the CSV replaces the spreadsheet's sheets."""
        spreadsheet = self.file(file_id)
        text = (media or b"").decode("utf-8", errors="replace")
        rows = list(csv.reader(io.StringIO(text)))
        height, width = len(rows), max((len(r) for r in rows), default=0)
        session = self.world.session
        sheets = self.sheets.sheets(spreadsheet)
        for sheet in sheets[1:]:
            session.execute(delete(Cell).where(Cell.sheet_id == sheet.sheet_id))
            session.delete(sheet)
        first = sheets[0]  # Drive's conversion names the sheet after the file, in a grid of at least 1000 x 26
        session.execute(delete(Cell).where(Cell.sheet_id == first.sheet_id))
        first.index, first.row_count, first.column_count = 0, max(height, 1000), max(width, 26)
        first.title = spreadsheet.title
        first.merges, first.basic_filter, first.frozen_rows, first.frozen_columns = [], None, 0, 0
        self.sheets.check_size(spreadsheet, 0)
        cells = [{"sheet_id": first.sheet_id, "row": r, "col": c,
                  "value": check_user_value(parse_user_entered(v), f"media[{r}][{c}]"), "format": None, "pivot": None,
                  "extra": None} for r, row in enumerate(rows) for c, v in enumerate(row) if v != ""]
        if cells:
            session.execute(insert(Cell), cells)
        spreadsheet.modified_time = file_time(self.world)
        session.flush()
        self.sheets.forget()
        self.sheets.check_recalculation(spreadsheet)  # the CSV's formulas within the budget, as any write
        return {"kind": "drive#file", "id": spreadsheet.id, "title": spreadsheet.title, "mimeType": SPREADSHEET_MIME,
                "updatedRange": bounds_label(0, max(height, 1), 0, max(width, 1))}

    def comments(self, file_id: str, query: dict, body: dict) -> dict:
        self.file(file_id)
        fields = _param(query, "fields", "")
        result = {"kind": "drive#commentList", "comments": []}
        return filter_fields(result, parse_fields(fields)) if fields else result

    # -- permissions -------------------------------------------------------------------------------
    def permission_resource(self, permission: Permission) -> dict:
        resource = {"kind": "drive#permission", "id": permission.id, "type": permission.type, "role": permission.role}
        if permission.type in ("user", "group"):
            resource.update(emailAddress=permission.email_address, displayName=permission.email_address.split("@")[0],
                            deleted=False, pendingOwner=False)
        elif permission.type == "domain":
            resource.update(domain=permission.domain, displayName=permission.domain,
                            allowFileDiscovery=not permission.with_link)
        else:
            resource.update(allowFileDiscovery=not permission.with_link)
        return resource

    def permissions_list(self, file_id: str, query: dict, body: dict) -> dict:
        self.file(file_id)
        rows = self.world.session.scalars(select(Permission).where(Permission.spreadsheet_id == file_id))
        shared = [self.permission_resource(p) for p in sorted(rows, key=lambda p: p.id)]
        result = {"kind": "drive#permissionList", "permissions": [dict(OWNER), *shared]}
        fields = _param(query, "fields", "")
        return filter_fields(result, parse_fields(fields)) if fields else result

    def permissions_create(self, file_id: str, query: dict, body: dict) -> dict:
        spreadsheet = self.file(file_id)
        kind, role = body.get("type"), body.get("role")
        if kind not in TYPES:
            raise ApiError(f"Invalid permission type: {str(kind)[:40]!r} (one of {', '.join(TYPES)}).")
        if role not in ROLES:
            raise ApiError(f"Invalid permission role: {str(role)[:40]!r} (one of {', '.join(ROLES)}).")
        if role == "owner" and _param(query, "transferOwnership", "false").lower() != "true":
            raise ApiError("The transferOwnership parameter must be enabled when the permission role is 'owner'.", 403)
        if role == "owner":
            raise ApiError("The simulated Drive API does not transfer ownership.", 403)
        email = body.get("emailAddress") if kind in ("user", "group") else None
        domain = body.get("domain") if kind == "domain" else None
        if kind in ("user", "group") and not (isinstance(email, str)
                                              and re.fullmatch(r"[^@\s]{1,64}@[^@\s]{1,255}", email)):
            raise ApiError("Invalid sharing request: an emailAddress is required for a user or group.")
        if kind == "domain" and not (isinstance(domain, str) and re.fullmatch(r"[A-Za-z0-9.-]{1,255}", domain)):
            raise ApiError("Invalid sharing request: a domain is required for a domain permission.")
        with_link = bool(body.get("withLink", False)) or body.get("allowFileDiscovery") is False
        if kind == "anyone":
            permission_id = "anyoneWithLink" if with_link else "anyone"
        else:
            key = (email or domain).lower()
            permission_id = str(int(hashlib.sha256(key.encode()).hexdigest(), 16))[:20]
        session = self.world.session
        permission = session.get(Permission, (spreadsheet.id, permission_id))
        if permission is None:
            permission = Permission(spreadsheet_id=spreadsheet.id, id=permission_id, type=kind, role=role,
                                    email_address=email.lower() if email else None, domain=domain, with_link=with_link)
            session.add(permission)
        else:  # sharing again with the same account changes its role, as in Drive
            permission.role = role
        session.flush()
        result = self.permission_resource(permission)
        fields = _param(query, "fields", "")
        return filter_fields(result, parse_fields(fields)) if fields else {
            k: result[k] for k in ("kind", "id", "type", "role") if k in result}

    def permissions_delete(self, file_id: str, permission_id: str, query: dict, body: dict) -> None:
        self.file(file_id)
        if permission_id == OWNER["id"]:
            raise ApiError("The owner of a file cannot be removed.", 403)
        permission = self.world.session.get(Permission, (file_id, permission_id))
        if permission is None:
            raise ApiError(f"Permission not found: {permission_id}.", 404)
        self.world.session.delete(permission)
        self.world.session.flush()


def _param(query: dict, name: str, default: str) -> str:
    values = query.get(name)
    return values[-1] if values else default


_TERM = re.compile(r"""\s*(?:
    (?P<field>name|mimeType|trashed|fullText)\s*(?P<op>=|!=|contains)\s*(?P<value>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|true|false)
  | (?P<id>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s+in\s+parents
  | parents\s+in\s+(?P<parent>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
)\s*""", re.VERBOSE)


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def parse_query(q: str) -> list:
    """A Drive ``q`` -> conditions on a file resource (all must hold)."""
    if len(q) > 2000:
        raise ApiError("Invalid Value: q is too long.")
    conditions = []
    for term in re.split(r"\s+and\s+", q.strip()) if q.strip() else []:
        match = _TERM.fullmatch(term)
        if not match:
            raise ApiError(f"Invalid Value: the simulated Drive API does not understand the query term {term[:80]!r}.")
        if match.group("id") or match.group("parent"):
            folder = _unquote(match.group("id") or match.group("parent"))
            conditions.append(lambda f, folder=folder: folder in f["parents"])
            continue
        field, op, value = match.group("field"), match.group("op"), match.group("value")
        if field == "trashed":
            if value not in ("true", "false") or op == "contains":
                raise ApiError("Invalid Value: trashed = true or false.")
            wanted = value == "true"
            conditions.append(lambda f, wanted=wanted, op=op: (f["trashed"] == wanted) == (op == "="))
            continue
        if value in ("true", "false"):
            raise ApiError(f"Invalid Value: {field} takes a quoted text.")
        text = _unquote(value)
        key = "name" if field in ("name", "fullText") else "mimeType"
        if op == "contains":
            conditions.append(lambda f, key=key, text=text: text.lower() in f[key].lower())
        else:
            conditions.append(lambda f, key=key, text=text, op=op: (f[key] == text) == (op == "="))
    return conditions
