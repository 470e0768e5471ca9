"""The tables of the simulated Google Sheets service (and of Drive's view of its files).

A spreadsheet has sheets; a sheet has its grid properties, its merges and its basic filter;
a cell holds what the user entered (``userEnteredValue``, in the API's shape, e.g.
``{"numberValue": 3}`` or ``{"formulaValue": "=SUM(A1:A3)"}``), its user-entered format
its note and data validation rule (``extra``) and, for the anchor of a pivot table, the pivot
table's definition. Effective values
(formula results, pivot table output) and effective formats are derived when read.
Rows and columns are 0-based, as in the API's ``GridRange``.
"""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import Record


class SheetsBase(DeclarativeBase):
    pass


class Spreadsheet(SheetsBase, Record):
    """A spreadsheet, and the Drive file it is (its times, folders, whether it is in the trash)."""

    __tablename__ = "spreadsheets"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String)
    locale: Mapped[str] = mapped_column(String, default="en_US")
    time_zone: Mapped[str] = mapped_column(String, default="Etc/GMT")
    next_sheet_id: Mapped[int] = mapped_column(Integer, default=1)
    created_time: Mapped[str] = mapped_column(String, default="")  # RFC 3339, from the world's clock
    modified_time: Mapped[str] = mapped_column(String, default="")
    parents: Mapped[list] = mapped_column(JSON, default=list)  # folder ids ('root': My Drive)
    trashed: Mapped[bool] = mapped_column(Boolean, default=False)
    named_ranges: Mapped[list] = mapped_column(JSON, default=list)  # NamedRange dicts of the API
    next_object_id: Mapped[int] = mapped_column(Integer, default=1)  # ids of protected ranges, named ranges


class Permission(SheetsBase, Record):
    """Who may open a spreadsheet (a Drive permission): a user, group, domain or anyone, with a role."""

    __tablename__ = "permissions"

    spreadsheet_id: Mapped[str] = mapped_column(ForeignKey("spreadsheets.id"), primary_key=True)
    id: Mapped[str] = mapped_column(String, primary_key=True)
    type: Mapped[str] = mapped_column(String)  # user, group, domain, anyone
    role: Mapped[str] = mapped_column(String)  # owner, writer, commenter, reader
    email_address: Mapped[str | None] = mapped_column(String, nullable=True)
    domain: Mapped[str | None] = mapped_column(String, nullable=True)
    with_link: Mapped[bool] = mapped_column(Boolean, default=False)


class Sheet(SheetsBase, Record):
    __tablename__ = "sheets"

    sheet_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    spreadsheet_id: Mapped[str] = mapped_column(ForeignKey("spreadsheets.id"), index=True)
    title: Mapped[str] = mapped_column(String)
    index: Mapped[int] = mapped_column(Integer)
    row_count: Mapped[int] = mapped_column(Integer, default=1000)
    column_count: Mapped[int] = mapped_column(Integer, default=26)
    frozen_rows: Mapped[int] = mapped_column(Integer, default=0)
    frozen_columns: Mapped[int] = mapped_column(Integer, default=0)
    merges: Mapped[list] = mapped_column(JSON, default=list)  # GridRange dicts without sheetId
    basic_filter: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    tab_color: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # a ColorStyle
    hide_gridlines: Mapped[bool] = mapped_column(Boolean, default=False)
    # {"ROWS"|"COLUMNS": {"<index>": {"hiddenByUser": bool, "pixelSize": int}}}: what differs from the default
    dimensions: Mapped[dict] = mapped_column(JSON, default=dict)
    groups: Mapped[list] = mapped_column(JSON, default=list)  # DimensionGroup dicts (rowGroups, columnGroups)
    protected_ranges: Mapped[list] = mapped_column(JSON, default=list)  # ProtectedRange dicts


class Cell(SheetsBase, Record):
    __tablename__ = "cells"

    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets.sheet_id"), primary_key=True)
    row: Mapped[int] = mapped_column(Integer, primary_key=True)
    col: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # userEnteredValue
    format: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # userEnteredFormat
    pivot: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # pivotTable anchored here
    extra: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # note, dataValidation
