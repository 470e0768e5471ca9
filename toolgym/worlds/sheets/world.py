"""The Google Sheets world: seeded spreadsheets behind a simulated Sheets API v4 and Drive API v3."""

from __future__ import annotations

from sqlalchemy import insert

from toolgym.worlds.base import World
from toolgym.worlds.sheets import tasks as sheet_tasks
from toolgym.worlds.sheets.api import SheetsService, parse_raw
from toolgym.worlds.sheets.drive import DriveService
from toolgym.worlds.sheets.models import Cell, Sheet, SheetsBase, Spreadsheet

#: Grid size of a generated sheet (Sheets' default is 1000 x 26; smaller keeps reads cheap).
ROWS, COLUMNS = 50, 12


class SheetsWorld(World):
    """Spreadsheets with one generated table each (``tasks.TABLES``), served by :class:`SheetsService`.

    ``world.service`` answers Sheets REST requests, ``world.drive`` Drive's; ``world.client()``
    is a real ``gspread.Client`` talking to them (gspread imported on first use).
    """

    Base = SheetsBase
    generator_modules = ("toolgym.worlds.sheets.tasks",)

    def __init__(self, url: str = "sqlite://", seed: int = 0, **kwargs):
        super().__init__(url=url, seed=seed, **kwargs)
        self.service = SheetsService(self)
        self.drive = DriveService(self, self.service)
        self._client = None

    def populate(self) -> None:
        for number, (key, (title, rows)) in enumerate(sheet_tasks.make_tables(self.seed).items()):
            self.add_spreadsheet(key, title, rows, sheet_id=number + 1)
        self.session.commit()

    def add_spreadsheet(self, key: str, title: str, rows: list[list], sheet_id: int, sheet_title: str = "Sheet1",
                        row_count: int = ROWS, column_count: int = COLUMNS) -> None:
        """A spreadsheet with one sheet holding ``rows`` from A1 (values as RAW input)."""
        now = self.clock.now().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        self.session.add(Spreadsheet(id=key, title=title, locale="en_US", time_zone="Etc/GMT", next_sheet_id=1,
                                     created_time=now, modified_time=now, parents=["root"], trashed=False))
        self.session.add(Sheet(sheet_id=sheet_id, spreadsheet_id=key, title=sheet_title, index=0, row_count=row_count,
                               column_count=column_count, frozen_rows=0, frozen_columns=0, merges=[],
                               basic_filter=None))
        self.session.flush()
        cells = [{"sheet_id": sheet_id, "row": r, "col": c, "value": parse_raw(v), "format": None, "pivot": None}
                 for r, row in enumerate(rows) for c, v in enumerate(row) if parse_raw(v) is not None]
        if cells:
            self.session.execute(insert(Cell), cells)

    def restore(self, snap) -> None:
        super().restore(snap)
        if hasattr(self, "service"):
            self.service.forget()  # its loaded grids belong to the replaced database

    def client(self):
        """A ``gspread.Client`` answered by this world's service (the same one for the world's life)."""
        if self._client is None:
            from toolgym.worlds.sheets.transport import make_client

            self._client = make_client(self.service, self.drive)
        return self._client
