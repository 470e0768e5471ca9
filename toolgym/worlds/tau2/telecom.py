"""τ²-bench's telecom domain: a carrier's customers, lines, plans and bills, and the user's phone.

Dual control: the agent has the carrier's tools (``TelecomTools``), the user has the phone's
(``TelecomUserTools``): checking the status bar, toggling airplane mode, data, roaming and so
on. The world keeps both databases: the carrier's tables, and the phone (``device``) with the
user's surroundings in the ``user_state`` table. After every tool call :meth:`TelecomWorld.sync`
carries the line's state to the phone and a paid bill back to the carrier, as τ²-bench's
``TelecomEnvironment.sync_tools`` does. The phone's rules (network search, speed test, MMS)
are τ²-bench's ``user_tools.py``; today is 2025-02-25.
"""

from __future__ import annotations

import copy
import enum
import json
from datetime import date, timedelta
from collections.abc import Callable
from typing import Any, Literal

import pydantic
from sqlalchemy.orm import DeclarativeBase

from toolgym.worlds.tau2.common import TRANSFER_RESULT, Tau2Toolkit
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld
from toolgym.worlds.tools import ACTION, READ, ToolError, ToolResult, tool

TODAY = date(2025, 2, 25)
NETWORK_MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
MODE_TECHNOLOGY = {"4g_only": "4G", "3g_only": "3G", "2g_only": "2G"}
DEFAULT_APN = {"apn_name": "internet", "reset_at_reboot": False, "mms_apn": "mms",
               "mmsc_url": "http://mms.carrier.com/mms/wapenc", "mms_proxy": None, "mms_port": None}


# τ²'s types of the phone's settings (``user_data_model.py``), names and all: the user tools'
# schemas are derived from them, as τ²'s are.
class NetworkModePreference(str, enum.Enum):
    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class APNNames(str, enum.Enum):
    INTERNET = "internet"
    BROKEN = "broken"


class APNSettings(pydantic.BaseModel):
    """Represents the configuration for a single Access Point Name (APN)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    apn_name: APNNames = pydantic.Field(APNNames.INTERNET, description="The name identifier for the APN connection.")
    reset_at_reboot: bool = pydantic.Field(
        False, description="Whether the APN settings will be reset at the next reboot.")
    mms_apn: str | None = pydantic.Field(
        "mms", description="Specific APN name used for MMS traffic, if different from general data.")
    mmsc_url: str | None = pydantic.Field(
        "http://mms.carrier.com/mms/wapenc",
        description="The URL of the Multimedia Messaging Service Center (MMSC). Crucial for MMS.")
    mms_proxy: str | None = pydantic.Field(
        None, description="The proxy server address required for MMS traffic on some networks.")
    mms_port: int | None = pydantic.Field(
        None, description="The proxy server port required for MMS traffic on some networks.")


DEFAULT_DEVICE = {
    "sim_card_status": "active", "sim_card_missing": False, "airplane_mode": False,
    "network_signal_strength": "good", "network_technology_connected": "5G", "network_connection_status": "connected",
    "battery_level": 80, "data_enabled": True, "roaming_enabled": False, "network_mode_preference": "4g_5g_preferred",
    "active_apn_settings": DEFAULT_APN, "wifi_enabled": False, "wifi_connected": False, "wifi_ssid": None,
    "wifi_signal_strength": "none", "wifi_calling_enabled": False, "wifi_calling_mms_over_wifi": False,
    "data_saver_mode": False, "vpn_enabled_setting": False, "vpn_connected": False, "vpn_details": None,
    "app_statuses": {"messaging": {"app_name": "messaging", "permissions": {"sms": True, "storage": True, "phone": True,
                                                                             "network": False}},
                     "browser": {"app_name": "browser", "permissions": {"sms": False, "storage": True, "phone": False,
                                                                         "network": True}}}}
DEFAULT_SURROUNDINGS = {"name": None, "phone_number": None, "is_abroad": False, "roaming_allowed": False,
                        "signal_strength": {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"},
                        "mobile_data_usage_exceeded": False, "line_active": True, "payment_request": None}
GOOD_VPN = {"server_address": "192.168.1.1", "protocol": "OpenVPN", "server_performance": "excellent"}
SPEED_RANGES = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0), "5G": (50.0, 500.0), "none": (0.0, 0.0)}
SIGNAL_FACTORS = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0, "none": 0.0}
SPEED_ADVICE = {"Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
                "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
                "Fair": "Connection is okay for web browsing and some standard definition streaming.",
                "Good": "Connection is good for most activities, including HD streaming.",
                "Excellent": "Connection is very fast."}
#: Rows written between two syncs that the second follows in Python (past this many it reads the rows).
MAX_JOURNAL = 64
_MISSING = object()


class Base(DeclarativeBase):
    pass


class Plan(DocumentRow, Base):
    __tablename__ = "plans"


class Device(DocumentRow, Base):
    __tablename__ = "devices"


class Line(DocumentRow, Base):
    __tablename__ = "lines"


class Customer(DocumentRow, Base):
    __tablename__ = "customers"


class Bill(DocumentRow, Base):
    __tablename__ = "bills"


class UserState(DocumentRow, Base):
    """The user's side: ``device`` (the phone) and ``surroundings`` (where the user is, the line's state)."""

    __tablename__ = "user_state"


_REQUIRED = object()
#: τ²'s telecom records (its ``data_model.py``): each field in its model's order, with the value an
#: unset one takes (null for an unset optional one: τ²'s tools return the records whole).
RECORD_FIELDS = {
    "plans": {"plan_id": _REQUIRED, "name": _REQUIRED, "data_limit_gb": _REQUIRED, "price_per_month": _REQUIRED,
              "data_refueling_price_per_gb": _REQUIRED},
    "devices": {"device_id": _REQUIRED, "device_type": _REQUIRED, "model": _REQUIRED, "imei": None,
                "is_esim_capable": _REQUIRED, "activated": False, "activation_date": None,
                "last_esim_transfer_date": None},
    "lines": {"line_id": _REQUIRED, "phone_number": _REQUIRED, "status": "Pending Activation", "plan_id": _REQUIRED,
              "device_id": None, "data_used_gb": 0.0, "data_refueling_gb": 0.0, "roaming_enabled": False,
              "contract_end_date": None, "last_plan_change_date": None, "last_sim_replacement_date": None,
              "suspension_start_date": None},
    "customers": {"customer_id": _REQUIRED, "full_name": _REQUIRED, "date_of_birth": _REQUIRED, "email": _REQUIRED,
                  "phone_number": _REQUIRED, "address": _REQUIRED, "account_status": "Pending Verification",
                  "payment_methods": [], "line_ids": [], "bill_ids": [], "created_at": "2025-01-01",
                  "last_extension_date": None, "goodwill_credit_used_this_year": 0.0},
    "bills": {"bill_id": _REQUIRED, "customer_id": _REQUIRED, "period_start": _REQUIRED, "period_end": _REQUIRED,
              "issue_date": _REQUIRED, "total_due": _REQUIRED, "due_date": _REQUIRED, "line_items": [],
              "status": "Draft"},
}
#: The fields τ² types as floats (an integer in the TOML is read as one) and as datetimes, which its
#: tools' output writes as ``str(datetime)``: a space between date and time, not ``T``.
FLOAT_FIELDS = {"data_limit_gb", "price_per_month", "data_refueling_price_per_gb", "data_used_gb",
                "data_refueling_gb", "goodwill_credit_used_this_year", "total_due", "amount"}
DATETIME_FIELDS = {"activation_date", "last_esim_transfer_date", "created_at"}


def tau2_record(table: str, record: dict) -> dict:
    """``record`` as τ²'s model of ``table`` holds it: every field in the model's order (unset ones
    as their default), floats as floats, datetimes written as τ² writes them."""
    out = {field: copy.deepcopy(record.get(field, default)) for field, default in RECORD_FIELDS[table].items()
           if field in record or default is not _REQUIRED}
    out.update((key, value) for key, value in record.items() if key not in out)  # τ² would refuse these
    for item in [out, *(out.get("line_items") or ())]:
        for field in FLOAT_FIELDS & item.keys():
            if isinstance(item[field], int) and not isinstance(item[field], bool):
                item[field] = float(item[field])
        for field in DATETIME_FIELDS & item.keys():
            if isinstance(item[field], str) and len(item[field]) > 10:
                item[field] = item[field].replace("T", " ", 1)
    return out


class _EnumRepr(str):
    """A text that a dict's repr shows as it is (an enum member's repr in τ²'s printed dicts)."""

    def __repr__(self) -> str:
        return str(self)


def merged(record, update):
    """``update`` merged into ``record`` key by key (τ²-bench's update of a model with a dict)."""
    if isinstance(record, dict) and isinstance(update, dict):
        out = dict(record)
        for key, value in update.items():
            out[key] = merged(record.get(key), value)
        return out
    return copy.deepcopy(update)


class TelecomWorld(DocumentWorld):
    Base = Base
    tables = {"plans": Plan, "devices": Device, "lines": Line, "customers": Customer, "bills": Bill,
              "user_state": UserState}
    # The sync's state (see sync), here as defaults: put and commit run while the world is built.
    _basis: SyncBasis | None = None  # what the last sync read
    _journal: list | tuple = ()  # the rows put since it, while there is a basis
    _kept: int | None = None  # the journal's entries a rollback keeps
    _synced_at: int | None = None  # SQLite's change count at the last sync, while nothing changed since
    _holding = False  # call_synced's call: its commit waits for the sync's

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.tools = TelecomTools(self)
        self.user_tools = TelecomUserTools(self)

    def populate(self) -> None:
        from toolgym.worlds.tau2.tasks import telecom_database
        self.load_telecom(*telecom_database(self.seed))

    def load_telecom(self, carrier: dict[str, list[dict]], device: dict | None) -> None:
        """Fill the carrier's tables from τ²'s ``db.toml`` lists and the phone from ``user_db.toml``'s device."""
        keys = {"plans": "plan_id", "devices": "device_id", "lines": "line_id", "customers": "customer_id",
                "bills": "bill_id"}
        data = {table: {record[key]: tau2_record(table, record) for record in carrier.get(table) or []}
                for table, key in keys.items()}
        data["user_state"] = {"device": merged(DEFAULT_DEVICE, device or {}),
                              "surroundings": copy.deepcopy(DEFAULT_SURROUNDINGS)}
        self.load(data)

    def sync(self) -> None:
        """τ²-bench's ``sync_tools``: the line's status, roaming and data allowance to the phone's
        surroundings; a paid payment request to the carrier's bill; a bill awaiting payment to the phone.

        A sync reads only the database and a second one changes nothing, so none is made while
        nothing was written since the last (SQLite's count of changed rows has not moved, and no
        restore came between; see :meth:`rollback`): a read call costs no sync, as τ²'s costs it
        nothing, nor does a failed one.
        After a write, a sync starts from what the last one read (:class:`SyncBasis`) and the
        rows written since (:meth:`put` keeps them): four queries cost more than τ²'s whole call.
        It reads the rows again when a write it cannot follow came between (one SQLite counts
        but :meth:`put` did not make, a write to another customer or line, a changed phone
        number); a payment request the user paid is closed from the basis too (the bill read by
        its key), unless the last sync did not look up the phone's customer.
        """
        changes = self._sqlite.total_changes
        if self._synced_at == changes:
            return
        basis, journal = self._basis, self._journal
        self._basis, self._journal = None, []  # the writes below are the sync's own
        if basis is None or changes - basis.changes != len(journal) or not self._sync_known(basis, journal):
            basis = self._sync()
        if basis is not None:
            basis.changes = self._sqlite.total_changes
        self._basis = basis
        self._synced_at = self._sqlite.total_changes
        # the journal's entries a rollback keeps (see rollback): none are, nor the basis, while
        # writes made before or by this sync are uncommitted
        self._kept = None if self._sqlite.in_transaction else 0

    def _store(self, table: str, key: str, doc: str, record: Any) -> None:
        super()._store(table, key, doc, record)
        if self._basis is not None:
            if len(self._journal) >= MAX_JOURNAL or (table == "lines" and not isinstance(record, dict)):
                self._basis = None  # the next sync reads the rows again
            else:  # a line's fields are taken now (the record is as stored): parsing it again cost more
                self._journal.append((table, key, _line_fields(record) if table == "lines" else doc))

    def call_synced(self, tools: Tau2Toolkit, name: str, arguments: Any) -> ToolResult:
        """``tools.call(name, arguments)`` then a sync, committed together (one transaction, where
        each had its own: a commit costs more than the sync). A failing sync fails before it
        writes, so the call's writes are kept, as when each had its own transaction."""
        self._holding = True  # the call's commit (World.atomic's) waits for the sync's
        try:
            result = tools.call(name, arguments)
        finally:
            self._holding = False
        try:
            self.sync()
        except ToolError:
            pass  # nothing of the sync was written
        finally:
            self.commit()
        return result

    def commit(self) -> None:
        if self._holding:
            return
        super().commit()
        if self._basis is not None:
            self._kept = len(self._journal)

    def restore(self, snap) -> None:
        self._synced_at = self._basis = None  # another image: SQLite's count does not tell
        super().restore(snap)

    def rollback(self) -> None:
        """Undo the writes since the last commit. Where :meth:`put` made every one of them (SQLite's
        count says so), the last sync's basis and the committed writes since stay known, so a
        failed call costs no sync from the rows (none at all when nothing was committed since)."""
        basis, kept = self._basis, self._kept
        super().rollback()
        if basis is None or kept is None or self._sqlite.total_changes - basis.changes != len(self._journal):
            self._synced_at = self._basis = None  # SQLite's count does not go back: it cannot tell
            return
        basis.changes += len(self._journal) - kept  # the undone writes stay in SQLite's count
        del self._journal[kept:]
        self._synced_at = None if self._journal else self._sqlite.total_changes

    def _sync(self) -> SyncBasis | None:
        """The sync from the rows; what it read, for the next (None when the phone has no number)."""
        row = self.sql().execute("SELECT doc FROM user_state WHERE key = 'surroundings'").fetchone()
        if row is None:
            raise ToolError("no user state")
        before, surroundings = row[0], json.loads(row[0])
        phone = surroundings["phone_number"]
        if phone is None:
            return None
        # SQLite reads out the few fields it needs, no line or plan is parsed.
        row = self.sql().execute(
            "SELECT json_extract(l.doc, '$.status'), json_extract(l.doc, '$.roaming_enabled'), "
            "json_extract(l.doc, '$.data_used_gb'), json_extract(l.doc, '$.data_refueling_gb'), "
            "json_extract(l.doc, '$.plan_id'), json_extract(p.doc, '$.data_limit_gb'), p.key, l.key FROM lines AS l "
            "LEFT JOIN plans AS p ON p.key = json_extract(l.doc, '$.plan_id') "
            "WHERE json_extract(l.doc, '$.phone_number') = ? ORDER BY l.pk LIMIT 1", (phone,)).fetchone()
        if row is None:
            raise ToolError(f"Wrong scenario, line not found for phone number: {phone}")
        status, roaming, used, refueled, plan_id, limit, plan_found, line_key = row
        if plan_found is None:
            raise ToolError(f"Wrong scenario, invalid plan id ({plan_id})")
        basis = SyncBasis(phone, line_key, plan_id, (status, roaming, used, refueled), limit)
        surroundings["line_active"] = status == "Active"
        surroundings["roaming_allowed"] = bool(roaming)
        surroundings["mobile_data_usage_exceeded"] = used >= limit + (refueled or 0.0)
        # Every read that may fail comes before the first write: a failed sync writes nothing
        # (call_synced keeps the call's writes then). The customer is found from lines and
        # customers only, so reading it before the bill is paid reads the same.
        request, paid, customer = surroundings["payment_request"], None, None
        if request is not None and request["paid"]:
            paid = self.get("bills", request["bill_id"], f"Bill with ID {request['bill_id']} not found")
            paid["status"] = "Paid"
            surroundings["payment_request"] = None
        if surroundings["payment_request"] is None:
            customer_key, doc = self.tools.customer_by_phone(phone, "$")
            customer = json.loads(doc)
        if paid is not None:
            self.put("bills", paid["bill_id"], paid)
        if customer is not None:
            bill_ids = customer.get("bill_ids") or []
            rows = self.sql().execute(
                "SELECT key, json_extract(doc, '$.status'), json_extract(doc, '$.total_due') FROM bills "
                f"WHERE key IN ({', '.join('?' * len(bill_ids))})", bill_ids).fetchall()
            waiting = {key: due for key, status, due in rows if status == "Awaiting Payment"}
            first = next((bill_id for bill_id in bill_ids if bill_id in waiting), None)
            if first is not None:
                surroundings["payment_request"] = {"bill_id": first, "amount_due": waiting[first], "paid": False}
            basis.customer = (customer_key, customer.get("phone_number"), customer.get("line_ids"), bill_ids)
            basis.statuses = {key: status for key, status, _ in rows}
            if all(isinstance(bill_id, str) for bill_id in bill_ids):  # as the next sync would find it
                basis.awaiting = (basis.customer, basis.statuses, first)
        after = json.dumps(surroundings)
        if after != before:
            self.sql().execute("UPDATE user_state SET doc = ? WHERE key = 'surroundings'", (after,))
        basis.surroundings, basis.text = surroundings, after
        return basis

    def _sync_known(self, basis: SyncBasis, journal: list[tuple[str, str, Any]]) -> bool:
        """The sync from ``basis`` and the rows written since (``journal``: table, key, and the
        text stored or, for a line, its :func:`_line_fields`), as :meth:`_sync` would make it from
        the rows; False, having changed nothing, where only the rows can tell (see :meth:`sync`).
        A payment request to make reads its amount from the bill's row, as the rows' sync does; a paid
        one's bill is read by its key and written paid, as the rows' sync writes it."""
        surroundings, text, line, limit, customer, statuses = (basis.surroundings, basis.text, basis.line,
                                                               basis.limit, basis.customer, basis.statuses)
        for table, key, doc in journal:
            if table == "user_state":
                if key == "surroundings":
                    surroundings, text = self.shared(doc), doc
                elif key != "device":
                    return False
            elif table == "lines":
                if key != basis.line_key:
                    return False  # another line may now carry the phone's number
                phone, plan_id, *line = doc
                if phone != basis.phone or plan_id != basis.plan_id:
                    return False
            elif table == "plans":
                if key == basis.plan_id:
                    limit = json.loads(doc).get("data_limit_gb")
            elif table == "customers":
                if customer is None or key != customer[0]:
                    return False  # another customer may now be the phone's
                record = json.loads(doc)
                if (record.get("phone_number"), record.get("line_ids")) != customer[1:3]:
                    return False
                customer = (*customer[:3], record.get("bill_ids") or [])
            elif table == "bills":
                if statuses is basis.statuses:
                    statuses = dict(statuses)
                statuses[key] = _status(self.shared(doc))
            elif table != "devices":
                return False
        if not isinstance(surroundings, dict) or surroundings.get("phone_number", _MISSING) != basis.phone:
            return False
        request = surroundings.get("payment_request", _MISSING)
        due = None  # (bill id, amount) of a payment request to make
        paid = None  # (bill id, its stored text) of a paid request's bill, to be marked paid
        if isinstance(request, dict) and request.get("paid") is True and isinstance(request.get("bill_id"), str):
            # the user paid: the bill is marked paid and the request closed, as the rows' sync does
            # (it fails where that one would, from the rows)
            doc = self.text("bills", request["bill_id"])
            record = None if doc is None else self.shared(doc)
            if not isinstance(record, dict) or record.get("bill_id") != request["bill_id"]:
                return False
            paid, request = (request["bill_id"], doc), None
            statuses = {**statuses, paid[0]: "Paid"}
        if request is not None:
            if not isinstance(request, dict) or request.get("paid", True) is not False:
                return False  # not τ²'s request: the rows' sync reads it
        else:
            awaiting = basis.awaiting  # the customer's first bill awaiting payment, as the last sync found it
            if awaiting is None or awaiting[0] is not customer or awaiting[1] is not statuses:
                if customer is None or not all(isinstance(bill_id, str) for bill_id in customer[3]):
                    return False
                awaiting = (customer, statuses, next((bill_id for bill_id in customer[3]
                                                      if statuses.get(bill_id) == "Awaiting Payment"), None))
            first = awaiting[2]
            if first is not None:  # the amount as the rows' sync reads it
                row = self.sql().execute("SELECT json_extract(doc, '$.total_due') FROM bills WHERE key = ?",
                                         (first,)).fetchone()
                if row is None:
                    return False
                due = (first, row[0])
        status, roaming, used, refueled = line
        active, allowed, exceeded = status == "Active", bool(roaming), used >= limit + (refueled or 0.0)
        # bools are compared by identity: a stored 1 is not τ²'s true, and the rows' sync would rewrite it
        if paid is not None:
            self.put_changed("bills", paid[0], paid[1], _PAID)
        if (due is not None or paid is not None or surroundings.get("line_active", _MISSING) is not active
                or surroundings.get("roaming_allowed", _MISSING) is not allowed
                or surroundings.get("mobile_data_usage_exceeded", _MISSING) is not exceeded):
            # the same change recurs in every episode of a task: the new text is made once (read only)
            surroundings, text = self.derived(
                ("synced", text, active, allowed, exceeded, due, paid is not None), lambda: _with_text(_synced(
                    {**surroundings, "payment_request": None} if paid is not None else surroundings,
                    {"line_active": active, "roaming_allowed": allowed, "mobile_data_usage_exceeded": exceeded},
                    due)))
            self.sql().execute("UPDATE user_state SET doc = ? WHERE key = 'surroundings'", (text,))
        basis.surroundings, basis.text, basis.line, basis.limit, basis.customer, basis.statuses = (
            surroundings, text, line, limit, customer, statuses)
        if request is None:
            basis.awaiting = awaiting
        return True


def _line_result(message: str) -> Callable[[str], str]:
    """A function of a line's stored text ``line_doc`` that writes ``json.dumps({"message": message,
    "line": line})`` (τ²'s text of the result) from it: writing the line a second time cost a tenth of
    τ²'s whole call, and the message's part is written once."""
    head = f'{{"message": {json.dumps(message)}, "line": '
    return lambda line_doc: f"{head}{line_doc}}}"


_suspended_result = _line_result("Line suspended successfully. $5/month holding fee will apply.")
_resumed_result = _line_result("Line resumed successfully")


def _with_text(record: dict) -> tuple[dict, str]:
    return record, json.dumps(record)


def _synced(surroundings: dict, carried: dict, due: tuple | None) -> dict:
    """``surroundings`` with the line's state ``carried`` and a payment request for ``due`` (bill id,
    amount) when there is one, keys in the order the rows' sync sets them."""
    out = {**surroundings, **carried}
    if due is not None:
        out["payment_request"] = {"bill_id": due[0], "amount_due": due[1], "paid": False}
    return out


def _status(bill: Any) -> Any:
    """A bill's status as SQLite's ``json_extract(doc, '$.status')`` reads it (None when it has none)."""
    return bill.get("status") if isinstance(bill, dict) else None


def _line_fields(line: dict) -> tuple:
    """What a sync reads of a line: its phone number and plan, then its status, roaming and data."""
    get = line.get
    return (get("phone_number"), get("plan_id"), get("status"), get("roaming_enabled"), get("data_used_gb"),
            get("data_refueling_gb"))


class SyncBasis:
    """What a telecom sync read (the phone's number and surroundings, its line, the plan's data
    limit, the customer with their bills' statuses), for the next to start from."""

    __slots__ = ("phone", "line_key", "plan_id", "line", "limit", "customer", "statuses", "awaiting", "surroundings",
                 "text", "changes")

    def __init__(self, phone: str, line_key: str, plan_id: Any, line: tuple, limit: Any):
        self.phone, self.line_key, self.plan_id, self.line, self.limit = phone, line_key, plan_id, line, limit
        #: (key, phone number, line ids, bill ids) of the phone's customer; None when the sync did not look
        self.customer: tuple | None = None
        self.statuses: dict = {}
        #: (customer, statuses, the first of the customer's bills awaiting payment or None), as a sync from
        #: this basis found it for that customer and those statuses; None when none did
        self.awaiting: tuple | None = None
        #: the phone's surroundings after the sync (read only) and their stored text
        self.surroundings: dict = {}
        self.text = ""
        #: SQLite's count of changed rows after the sync
        self.changes = -1


#: The line changes of the tools that only set fields (:meth:`DocumentWorld.put_changed`).
_ROAMING_ON = (("roaming_enabled", True),)
_ROAMING_OFF = (("roaming_enabled", False),)
_RESUMED = (("status", "Active"), ("suspension_start_date", None))
_PAID = (("status", "Paid"),)
_SUSPENDED = (("status", "Suspended"), ("suspension_start_date", TODAY.isoformat()))


class TelecomTools(Tau2Toolkit):
    """The carrier agent's tools (τ²-bench's ``TelecomTools``), with its setup and assertion functions."""

    world: TelecomWorld

    def _line(self, line_id: str) -> dict:
        return self.world.get("lines", line_id, f"Line with ID {line_id} not found")

    def _bill(self, bill_id: str) -> dict:
        return self.world.get("bills", bill_id, f"Bill with ID {bill_id} not found")

    def _plan(self, plan_id: str) -> dict:
        """The plan, the world's shared parse (the tools only read a plan)."""
        text = self.world.text("plans", plan_id)
        if text is None:
            raise ToolError(f"Plan with ID {plan_id} not found")
        return self.world.shared(text)

    def _target_line(self, customer_id: str, line_id: str) -> dict:
        return self._customer_line(customer_id, line_id)[1]

    def _customer_line(self, customer_id: str, line_id: str) -> tuple[dict, dict]:
        """(the customer, a copy of their line ``line_id``), as τ²'s ``_get_target_line`` checks them;
        the customer is the world's shared parse (see :meth:`_customer_line_doc`)."""
        customer, line_doc = self._customer_line_doc(customer_id, line_id)
        return customer, self.world.copy_of(line_doc)

    def _customer_line_doc(self, customer_id: str, line_id: str) -> tuple[dict, str]:
        """(the customer, their line ``line_id``'s stored text), as τ²'s ``_get_target_line`` checks them.

        The customer is the world's shared parse (:meth:`DocumentWorld.shared`): read it, never
        change it. Both records are read in one statement (each costs about what τ²'s whole
        ``enable_roaming`` does)."""
        if isinstance(customer_id, str) and isinstance(line_id, str):
            customer_doc, line_doc = self.world.sql().execute(
                'SELECT (SELECT doc FROM "customers" WHERE key = ?), (SELECT doc FROM "lines" WHERE key = ?)',
                (customer_id, line_id)).fetchone()
            if customer_doc is None:
                raise ToolError(f"Customer with ID {customer_id} not found")
            customer = self.world.shared(customer_doc)
            if line_id not in customer["line_ids"]:
                raise ToolError(f"Line {line_id} not found for customer {customer_id}")
            if line_doc is None:
                raise ToolError(f"Line with ID {line_id} not found")
            return customer, line_doc
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer["line_ids"]:
            raise ToolError(f"Line {line_id} not found for customer {customer_id}")
        self._line(line_id)  # fails as τ²'s lookup does
        return customer, self.world.text("lines", line_id)

    def _first_bill(self, bill_ids: list, status: str) -> tuple[str, str] | None:
        """(id, stored text) of the first of ``bill_ids`` whose bill has ``status``, or None, as
        τ²'s walk over the customer's bills finds it (a missing bill before it fails the same
        way): the texts are read in one statement, the statuses from the bills' shared parses (a
        statement a bill, or SQLite reading each status, cost more than τ²'s whole call)."""
        texts = [bill_id for bill_id in bill_ids if isinstance(bill_id, str)]
        rows = {key: (_status(self.world.shared(doc)), doc) for key, doc in self.world.sql().execute(
            f"SELECT key, doc FROM bills WHERE key IN ({', '.join('?' * len(texts))})", texts)} if texts else {}
        for bill_id in bill_ids:
            found, doc = rows.get(bill_id, (None, None)) if isinstance(bill_id, str) else (None, None)
            if found is None:  # no such bill, a key that is not text, or no status: τ²'s own failure
                found, doc = self._bill(bill_id)["status"], self.world.text("bills", bill_id)
            if found == status:
                return bill_id, doc
        return None

    @tool(kind=READ, app="telecom")
    def get_customer_by_phone(self, phone_number: str) -> dict:
        """Finds a customer by their primary contact or line phone number.

        Args:
            phone_number: The phone number to search for.
        """
        return json.loads(self.customer_by_phone(phone_number, "$")[1])

    def customer_by_phone(self, phone_number: str, path: str) -> tuple[str, Any]:
        """The first customer whose own number or one of whose lines' is ``phone_number``: its id
        and the value at JSON ``path`` of its record (as SQLite's ``json_extract`` gives it)."""
        row = self.world.sql().execute(
            "SELECT c.key, json_extract(c.doc, ?) FROM customers AS c WHERE json_extract(c.doc, '$.phone_number') = ? "
            "OR EXISTS (SELECT 1 FROM json_each(c.doc, '$.line_ids') AS i JOIN lines AS l ON l.key = i.value "
            "WHERE json_extract(l.doc, '$.phone_number') = ?) ORDER BY c.pk LIMIT 1",
            (path, phone_number, phone_number)).fetchone()
        if row is None:
            raise ToolError(f"Customer with phone number {phone_number} not found")
        return row

    @tool(kind=READ, app="telecom")
    def get_customer_by_id(self, customer_id: str) -> dict:
        """Retrieves a customer directly by their unique ID.

        Args:
            customer_id: The unique identifier of the customer.
        """
        return self.world.get("customers", customer_id, f"Customer with ID {customer_id} not found")

    @tool(kind=READ, app="telecom")
    def get_customer_by_name(self, full_name: str, dob: str) -> list:
        """Searches for customers by name and DOB. May return multiple matches if names are similar,
        DOB helps disambiguate.

        Args:
            full_name: The full name of the customer.
            dob: Date of birth for verification, in the format YYYY-MM-DD.
        """
        return [c for c in self.world.records("customers")
                if c["full_name"].lower() == full_name.lower() and c["date_of_birth"] == dob]

    @tool(kind=READ, app="telecom")
    def get_details_by_id(self, id: str) -> dict:
        """Retrieves the details for a given ID.
        The ID must be a valid ID for a Customer, Line, Device, Bill, or Plan.

        Args:
            id: The ID of the object to retrieve.
        """
        tables = {"L": ("lines", "Line"), "D": ("devices", "Device"), "B": ("bills", "Bill"),
                  "C": ("customers", "Customer"), "P": ("plans", "Plan")}
        if id[:1] not in tables:
            raise ToolError(f"Unknown ID format or type: {id}")
        table, name = tables[id[:1]]
        return self.world.get(table, id, f"{name} with ID {id} not found")

    @tool(kind=ACTION, app="telecom")
    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> str:
        """Suspends a specific line (max 6 months).
        Checks: Line status must be Active.
        Logic: Sets line status to Suspended, records suspension_start_date.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to suspend.
            reason: Reason for suspension.
        """
        line_doc = self._customer_line_doc(customer_id, line_id)[1]
        if self.world.shared(line_doc)["status"] != "Active":
            raise ToolError("Line must be active to suspend")
        return _suspended_result(self.world.put_changed("lines", line_id, line_doc, _SUSPENDED))

    @tool(kind=ACTION, app="telecom")
    def resume_line(self, customer_id: str, line_id: str) -> str:
        """Resumes a suspended line.
        Checks: Line status must be Suspended or Pending Activation.
        Logic: Sets line status to Active, clears suspension_start_date.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to resume.
        """
        line_doc = self._customer_line_doc(customer_id, line_id)[1]
        if self.world.shared(line_doc)["status"] not in ("Suspended", "Pending Activation"):
            raise ToolError("Line must be suspended to resume")
        return _resumed_result(self.world.put_changed("lines", line_id, line_doc, _RESUMED))

    @tool(kind=READ, app="telecom")
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list:
        """Retrieves a list of the customer's bills, most recent first.

        Args:
            customer_id: ID of the customer.
            limit: Maximum number of bills to return.
        """
        bills = [self._bill(bill_id) for bill_id in self.get_customer_by_id(customer_id)["bill_ids"]]
        return sorted(bills, key=lambda bill: bill["issue_date"], reverse=True)[:limit]

    @tool(kind=ACTION, app="telecom")
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        """Sends a payment request to the customer for a specific bill.
        Checks:
            - Customer exists
            - Bill exists and belongs to the customer
            - No other bills are already awaiting payment for this customer
        Logic: Sets bill status to AWAITING_PAYMENT and notifies customer.
        Warning: This method does not check if the bill is already PAID.
        Always check the bill status before calling this method.

        Args:
            customer_id: ID of the customer who owns the bill.
            bill_id: ID of the bill to send payment request for.
        """
        customer = self.get_customer_by_id(customer_id)
        if self._first_bill(customer["bill_ids"], "Awaiting Payment") is not None:
            raise ToolError("A bill is already awaiting payment for this customer")
        if bill_id not in customer["bill_ids"]:
            raise ToolError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._bill(bill_id)
        bill["status"] = "Awaiting Payment"
        self.world.put("bills", bill_id, bill)
        return f"Payment request sent to the customer for bill {bill_id}"

    @tool(kind=READ, app="telecom")
    def get_data_usage(self, customer_id: str, line_id: str) -> dict:
        """Retrieves current billing cycle data usage for a line, including data
        refueling amount, data limit, and cycle end date.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to check usage for.
        """
        line = self._target_line(customer_id, line_id)
        plan = self._plan(line["plan_id"])
        cycle_end = date(TODAY.year, TODAY.month + 1 if TODAY.month < 12 else 1, 1) - timedelta(days=1)
        # τ²'s environment writes the numbers of a plain-dict result as text ("2.0"); these are floats in its model
        return {"line_id": line_id, "data_used_gb": str(float(line["data_used_gb"])),
                "data_limit_gb": str(float(plan["data_limit_gb"])),
                "data_refueling_gb": str(float(line.get("data_refueling_gb", 0.0))),
                "cycle_end_date": cycle_end.isoformat()}

    @tool(kind=ACTION, app="telecom")
    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        """Enables international roaming on a line.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to enable roaming for.
        """
        line_doc = self._customer_line_doc(customer_id, line_id)[1]
        if self.world.shared(line_doc)["roaming_enabled"]:
            return "Roaming was already enabled"
        self.world.put_changed("lines", line_id, line_doc, _ROAMING_ON)
        return "Roaming enabled successfully"

    @tool(kind=ACTION, app="telecom")
    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        """Disables international roaming on a line.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to disable roaming for.
        """
        line_doc = self._customer_line_doc(customer_id, line_id)[1]
        if not self.world.shared(line_doc)["roaming_enabled"]:
            return "Roaming was already disabled"
        self.world.put_changed("lines", line_id, line_doc, _ROAMING_OFF)
        return "Roaming disabled successfully"

    @tool(kind=READ, app="telecom")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue.
        Only transfer if
         -  the user explicitly asks for a human agent
         -  given the policy and the available tools, you cannot solve the user's issue.

        Args:
            summary: A summary of the user's issue.
        """
        return TRANSFER_RESULT

    @tool(kind=ACTION, app="telecom")
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict:
        """Refuels data for a specific line, adding to the customer's bill.
        Checks: Line status must be Active, Customer owns the line.
        Logic: Adds data to the line and charges customer based on the plan's refueling rate.

        Args:
            customer_id: ID of the customer who owns the line.
            line_id: ID of the line to refuel data for.
            gb_amount: Amount of data to add in gigabytes.
        """
        customer, line = self._customer_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ToolError("Refuel amount must be positive")
        plan = self._plan(line["plan_id"])
        charge = gb_amount * plan["data_refueling_price_per_gb"]
        line["data_refueling_gb"] = line.get("data_refueling_gb", 0.0) + gb_amount
        self.world.put("lines", line_id, line)
        self._charge(customer_id, customer, charge,
                     f"Data refueling: {gb_amount} GB at ${plan['data_refueling_price_per_gb']}/GB")
        return {"message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
                "new_data_refueling_gb": str(float(line["data_refueling_gb"])), "charge": str(float(charge))}

    def _charge(self, customer_id: str, customer: dict, amount: float, description: str) -> None:
        """Add a line item to the draft bill of ``customer`` (their record as the call read it, read only),
        opening one for next month if there is none.

        τ²-bench names a new draft bill with a random uuid; here it is ``B`` and the customer id
        and the count of their bills, so that runs are deterministic.
        """
        found = self._first_bill(customer["bill_ids"], "Draft")
        draft = None if found is None else json.loads(found[1])
        if draft is None:
            start = (TODAY.replace(day=1) + timedelta(days=32)).replace(day=1)
            end = start.replace(month=start.month + 1 if start.month < 12 else 1,
                                year=start.year if start.month < 12 else start.year + 1) - timedelta(days=1)
            draft = {"bill_id": f"B{customer_id}{len(customer['bill_ids']) + 1:03d}", "customer_id": customer_id,
                     "period_start": start.isoformat(), "period_end": end.isoformat(), "issue_date": start.isoformat(),
                     "total_due": 0, "due_date": (start + timedelta(days=14)).isoformat(), "status": "Draft",
                     "line_items": []}
            customer = {**customer, "bill_ids": [*customer["bill_ids"], draft["bill_id"]]}  # a copy: it may be shared
            self.world.put("customers", customer_id, customer)
        draft["line_items"].append({"description": description, "amount": amount, "date": TODAY.isoformat(),
                                    "item_type": "Credit" if amount < 0 else "Charge"})
        draft["total_due"] += amount
        self.world.put("bills", draft["bill_id"], draft)

    # -- setup functions of the tasks' initial state (not tools) ------------------------------
    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        line = self._target_line(customer_id, line_id)
        line["data_used_gb"] = data_used_gb
        self.world.put("lines", line_id, line)
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(self, customer_id: str, line_id: str, new_bill_id: str,
                                      contract_ended: bool) -> str:
        line = self._line(line_id)
        if line["status"] != "Active":
            raise ToolError("Line must be active to suspend for unpaid bill")
        amount = self._plan(line["plan_id"])["price_per_month"]
        customer = self.get_customer_by_id(customer_id)
        if self._first_bill(customer["bill_ids"], "Overdue") is not None:
            raise ToolError("Customer already has an overdue bill")
        last_day = TODAY.replace(day=1) - timedelta(days=1)
        first_day = last_day.replace(day=1)
        self.world.put("bills", new_bill_id, {
            "bill_id": new_bill_id, "customer_id": customer_id, "period_start": first_day.isoformat(),
            "period_end": last_day.isoformat(), "issue_date": first_day.isoformat(), "total_due": amount,
            "due_date": (first_day + timedelta(days=14)).isoformat(), "status": "Overdue",
            "line_items": [{"description": f"Charge for line {line_id}", "amount": amount, "date": TODAY.isoformat(),
                            "item_type": "Charge"}]})
        customer["bill_ids"].append(new_bill_id)
        self.world.put("customers", customer_id, customer)
        line.update(status="Suspended", suspension_start_date=TODAY.isoformat())
        if contract_ended:
            line["contract_end_date"] = last_day.isoformat()
        self.world.put("lines", line_id, line)
        return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"

    # -- assertions ---------------------------------------------------------------------------
    def assert_data_refueling_amount(self, customer_id: str, line_id: str, expected_amount: float) -> bool:
        return abs(self._target_line(customer_id, line_id).get("data_refueling_gb", 0.0) - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: str) -> bool:
        return self._target_line(customer_id, line_id)["status"] == expected_status

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        return not self.world.has("bills", overdue_bill_id) or self._bill(overdue_bill_id)["status"] == "Paid"

    functions = ("set_data_usage", "suspend_line_for_overdue_bill", "enable_roaming", "disable_roaming")
    assertions = ("assert_data_refueling_amount", "assert_line_status", "assert_no_overdue_bill")


class Phone:
    """The phone and its surroundings as dicts, with τ²-bench's rules of the device."""

    def __init__(self, device: dict, surroundings: dict):
        self.device, self.surroundings = device, surroundings

    def sim_status(self) -> str:
        return "missing" if self.device["sim_card_missing"] else self.device["sim_card_status"]

    def no_service(self) -> None:
        self.device.update(network_connection_status="no_service", network_technology_connected="none",
                           network_signal_strength="none")

    def network_search(self) -> None:
        device, signal = self.device, self.surroundings["signal_strength"]
        if self.sim_status() == "active":
            device["network_connection_status"] = "connected"
            mode = device["network_mode_preference"]
            if mode == "4g_5g_preferred":
                technology = "4G" if signal.get("5G", "none") == "none" else "5G"
            else:
                technology = MODE_TECHNOLOGY.get(mode, "4G")
            device["network_technology_connected"] = technology
            device["network_signal_strength"] = signal.get(technology, "none")
        else:
            self.no_service()
        if (device["airplane_mode"] or device["active_apn_settings"]["apn_name"] == "broken"
                or not self.surroundings["line_active"]):
            self.no_service()

    def mobile_data_working(self) -> bool:
        device = self.device
        if device["airplane_mode"] or device["network_signal_strength"] == "none":
            return False
        if device["network_connection_status"] == "no_service":
            return False
        if self.surroundings["is_abroad"] and not (device["roaming_enabled"] and self.surroundings["roaming_allowed"]):
            return False
        return device["data_enabled"] and not self.surroundings["mobile_data_usage_exceeded"]

    def speed(self) -> tuple[float | None, str]:
        if not self.mobile_data_working():
            return None, "No Connection"
        device = self.device
        factor = 0.1 if (device["vpn_connected"] and device["vpn_details"]
                         and device["vpn_details"]["server_performance"] == "poor") else 1.0
        if device["data_saver_mode"]:
            factor *= 0.2
        low, high = SPEED_RANGES.get(device["network_technology_connected"], (0.0, 0.0))
        speed = round((low + high) / 2.0 * SIGNAL_FACTORS.get(device["network_signal_strength"], 0.0) * factor, 2)
        for limit, description in ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good")):
            if speed < limit:
                return speed, description
        return speed, "Excellent"

    def can_send_mms(self) -> bool:
        device = self.device
        if not self.mobile_data_working() or device["network_technology_connected"] == "2G":
            return False
        if device["wifi_calling_enabled"] and device["wifi_calling_mms_over_wifi"]:
            return False
        if device["active_apn_settings"]["mmsc_url"] is None:
            return False
        messaging = device["app_statuses"].get("messaging")
        return bool(messaging and messaging["permissions"]["storage"] and messaging["permissions"]["sms"])

    def status_bar(self) -> str:
        device = self.device
        shown = []
        if device["airplane_mode"]:
            shown.append("✈️ Airplane Mode")
        else:
            shown.append({"none": "📵 No Signal", "poor": "📶¹ Poor", "fair": "📶² Fair", "good": "📶³ Good",
                          "excellent": "📶⁴ Excellent"}.get(device["network_signal_strength"], "📵 No Signal"))
            connected = device["network_technology_connected"] != "none"
            if connected:
                shown.append(device["network_technology_connected"])
            if device["data_enabled"] and connected:
                shown.append("📱 Data Enabled")
                if device["data_saver_mode"]:
                    shown.append("🔽 Data Saver")
            else:
                shown.append("📵 Data Disabled")
        if device["wifi_enabled"] and device["wifi_connected"]:
            shown.append(f"📡 Connected to {device['wifi_ssid']}" if device["wifi_ssid"] else "📡 Enabled")
        if device["vpn_connected"]:
            shown.append("🔒 VPN Connected")
        shown.append(f"🔋 {device['battery_level']}%")
        return " | ".join(shown)

    def toggle_airplane_mode(self) -> bool:
        device = self.device
        was_on = device["airplane_mode"]
        device["airplane_mode"] = not was_on
        if was_on:
            device["network_connection_status"] = "searching"
        if not was_on or device["wifi_enabled"]:
            device.update(wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
        if not was_on and device["vpn_connected"]:
            device.update(vpn_connected=False, vpn_details=None)
        self.network_search()
        return device["airplane_mode"]

    def toggle(self, setting: str, search: bool = True) -> bool:
        self.device[setting] = not self.device[setting]
        if search:
            self.network_search()
        return self.device[setting]


class TelecomUserTools(Tau2Toolkit):
    """The user's phone (τ²-bench's ``TelecomUserTools``): tools the user calls, and the setup and
    assertion functions of the tasks."""

    world: TelecomWorld

    def _phone(self) -> Phone:
        return Phone(self.world.get("user_state", "device", "no device"),
                     self.world.get("user_state", "surroundings", "no surroundings"))

    def _save(self, phone: Phone) -> None:
        self.world.put("user_state", "device", phone.device)
        self.world.put("user_state", "surroundings", phone.surroundings)

    def _changed(self, change) -> str:
        """Run ``change(phone) -> message`` and save; the message and the status bar, as the phone shows them."""
        phone = self._phone()
        message = change(phone)
        self._save(phone)
        return f"{message}\nStatus Bar: {phone.status_bar()}"

    @tool(kind=READ, app="phone")
    def check_status_bar(self) -> str:
        """Shows what icons are currently visible in your phone's status bar (the area at the top of the screen). Displays network signal strength, mobile data status (enabled, disabled, data saver), Wi-Fi status, and battery level."""
        return f"Status Bar: {self._phone().status_bar()}"

    @tool(kind=READ, app="phone")
    def check_network_status(self) -> str:
        """Checks your phone's connection status to cellular networks and Wi-Fi. Shows airplane mode status, signal strength, network type, whether mobile data is enabled, and whether data roaming is enabled."""
        phone = self._phone()
        device = phone.device
        lines = [f"Airplane Mode: {'ON' if device['airplane_mode'] else 'OFF'}",
                 f"SIM Card Status: {phone.sim_status()}",
                 f"Cellular Connection: {device['network_connection_status']}",
                 f"Cellular Signal: {device['network_signal_strength']}",
                 f"Cellular Network Type: {device['network_technology_connected']}",
                 f"Mobile Data Enabled: {'Yes' if device['data_enabled'] else 'No'}",
                 f"Data Roaming Enabled: {'Yes' if device['roaming_enabled'] else 'No'}",
                 f"Wi-Fi Radio: {'ON' if device['wifi_enabled'] else 'OFF'}",
                 f"Wi-Fi Connected: {'Yes' if device['wifi_connected'] else 'No'}"]
        if device["wifi_connected"]:
            lines.append(f"Connected Wi-Fi Network: {device['wifi_ssid']}")
        return "\n".join(lines)

    @tool(kind=READ, app="phone")
    def check_network_mode_preference(self) -> str:
        """Shows the current network mode preference."""
        return f"Network Mode Preference: {self._phone().device['network_mode_preference']}"

    @tool(kind=ACTION, app="phone")
    def set_network_mode_preference(self, mode: NetworkModePreference | str) -> str:
        """Changes the type of cellular network your phone prefers to connect to (e.g., 5G, LTE/4G, 3G). Higher-speed networks (LTE/5G) provide faster data but may use more battery."""
        def change(phone: Phone) -> str:
            if mode not in NETWORK_MODES:
                return (f"Failed to set network mode: '{mode}' is not a valid option. Please use one of: "
                        f"{', '.join(NETWORK_MODES)}")
            phone.device["network_mode_preference"] = mode
            phone.network_search()
            return f"Preferred Network Mode set to: {mode}"
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def run_speed_test(self) -> str:
        """Measures your current internet connection speed (download speed). Provides information about connection quality and what activities it can support."""
        speed, description = self._phone().speed()
        if speed is None:
            return f"Speed test failed: {description}."
        return f"Speed Test Result: {speed:.2f} Mbps ({description}). {SPEED_ADVICE[description]}"

    @tool(kind=ACTION, app="phone")
    def toggle_airplane_mode(self) -> str:
        """Toggles Airplane Mode ON or OFF. When ON, it disconnects all wireless communications including cellular, Wi-Fi, and Bluetooth.
        Returns the new state of airplane_mode.
        """
        return self._changed(lambda phone: f"Airplane Mode is now {'ON' if phone.toggle_airplane_mode() else 'OFF'}.")

    @tool(kind=READ, app="phone")
    def check_sim_status(self) -> str:
        """Checks if your SIM card is working correctly and displays its current status. Shows if the SIM is active, missing, or locked with a PIN or PUK code."""
        return {"active": "Your SIM card is active and working.", "missing": "No SIM card detected in the phone.",
                "locked_pin": "The SIM card is locked with a PIN code.",
                "locked_puk": "The SIM card is locked with a PUK code."}[self._phone().sim_status()]

    @tool(kind=ACTION, app="phone")
    def reseat_sim_card(self) -> str:
        """Simulates removing and reinserting your SIM card. This can help resolve recognition issues."""
        def change(phone: Phone) -> str:
            phone.device["sim_card_missing"] = False
            phone.network_search()
            return "SIM card re-seated successfully."
        return self._changed(change)

    @tool(kind=ACTION, app="phone")
    def toggle_data(self) -> str:
        """Toggles your phone's mobile data connection ON or OFF. Controls whether your phone can use cellular data for internet access when Wi-Fi is unavailable.
        Returns the new data connection status.
        """
        return self._changed(lambda phone: f"Mobile Data is now {'ON' if phone.toggle('data_enabled') else 'OFF'}.")

    @tool(kind=ACTION, app="phone")
    def toggle_roaming(self) -> str:
        """Toggles Data Roaming ON or OFF. When ON, your phone can use data networks in areas outside your carrier's coverage.
        Returns the new data roaming status.
        """
        return self._changed(lambda phone: f"Data Roaming is now {'ON' if phone.toggle('roaming_enabled') else 'OFF'}.")

    @tool(kind=READ, app="phone")
    def check_data_restriction_status(self) -> str:
        """Checks if your phone has any data-limiting features active. Shows if Data Saver mode is on."""
        on = self._phone().device["data_saver_mode"]
        return "Data Saver mode is ON (limits data usage)." if on else "Data Saver mode is OFF."

    @tool(kind=ACTION, app="phone")
    def toggle_data_saver_mode(self) -> str:
        """Toggles Data Saver mode ON or OFF. When ON, it reduces data usage, which may affect data speed.
        Returns the new data saver mode status.
        """
        return self._changed(lambda phone: "Data Saver Mode is now "
                                           f"{'ON' if phone.toggle('data_saver_mode', search=False) else 'OFF'}.")

    @tool(kind=READ, app="phone")
    def check_apn_settings(self) -> str:
        """Checks the technical APN settings your phone uses to connect to your carrier's mobile data network. Shows current APN name and MMSC URL for picture messaging."""
        apn = self._phone().device["active_apn_settings"]
        return (f"Current APN Name: {apn['apn_name'] or 'Not Set'}\nMMSC URL (for picture messages): "
                f"{apn['mmsc_url'] or 'Not Set'}\n(These are technical settings, usually best left unchanged.)")

    @tool(kind=ACTION, app="phone")
    def set_apn_settings(self, apn_settings: APNSettings | dict) -> str:
        """Sets the APN settings for the phone."""
        try:  # τ²'s APNSettings(**apn_settings): the defaults for what is left out
            settings = APNSettings.model_validate(apn_settings).model_dump(mode="json")
        except pydantic.ValidationError as error:
            raise ToolError(str(error)) from None

        def change(phone: Phone) -> str:
            phone.device["active_apn_settings"] = settings
            phone.network_search()
            return f"APN settings set to: {settings['apn_name']}"
        return self._changed(change)

    @tool(kind=ACTION, app="phone")
    def reset_apn_settings(self) -> str:
        """Resets your APN settings to the default settings."""
        def change(phone: Phone) -> str:
            phone.device["active_apn_settings"]["reset_at_reboot"] = True
            phone.network_search()
            return "APN settings will reset at reboot."
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def check_wifi_status(self) -> str:
        """Checks your Wi-Fi connection status. Shows if Wi-Fi is turned on, which network you're connected to (if any), and the signal strength."""
        device = self._phone().device
        if not device["wifi_enabled"]:
            return "Wi-Fi is turned OFF."
        if device["wifi_connected"]:
            return f"Wi-Fi is ON and connected to '{device['wifi_ssid']}'. Signal strength: {device['wifi_signal_strength']}."
        return "Wi-Fi is ON but not connected to any network."

    @tool(kind=ACTION, app="phone")
    def toggle_wifi(self) -> str:
        """Toggles your phone's Wi-Fi radio ON or OFF. Controls whether your phone can discover and connect to wireless networks for internet access.
        Returns the new Wi-Fi status.
        """
        def change(phone: Phone) -> str:
            device = phone.device
            if device["airplane_mode"]:
                return "Cannot change Wi-Fi settings while Airplane Mode is ON."
            device["wifi_enabled"] = not device["wifi_enabled"]
            if not device["wifi_enabled"]:
                device.update(wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
            return f"Wi-Fi is now {'ON' if device['wifi_enabled'] else 'OFF'}."
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def check_wifi_calling_status(self) -> str:
        """Checks if Wi-Fi Calling is enabled on your device. This feature allows you to make and receive calls over a Wi-Fi network instead of using the cellular network."""
        return f"Wi-Fi Calling is currently turned {'ON' if self._phone().device['wifi_calling_enabled'] else 'OFF'}."

    @tool(kind=ACTION, app="phone")
    def toggle_wifi_calling(self) -> str:
        """Toggles Wi-Fi Calling ON or OFF. This feature allows you to make and receive calls over Wi-Fi instead of the cellular network, which can help in areas with weak cellular signal.
        Returns the new Wi-Fi Calling status.
        """
        return self._changed(lambda phone: "Wi-Fi Calling is now "
                                           f"{'ON' if phone.toggle('wifi_calling_enabled', search=False) else 'OFF'}.")

    @tool(kind=READ, app="phone")
    def check_vpn_status(self) -> str:
        """Checks if you're using a VPN (Virtual Private Network) connection. Shows if a VPN is active, connected, and displays any available connection details."""
        device = self._phone().device
        if device["vpn_connected"]:
            details = device["vpn_details"]
            if not details:
                return "VPN is ON and connected (no specific details available)."
            # τ² prints its VpnDetails' model_dump: the performance is its PerformanceLevel enum's repr
            performance = details.get("server_performance")
            shown = {**details, "server_performance": _EnumRepr(
                f"<PerformanceLevel.{str(performance).upper()}: {performance!r}>")} if isinstance(
                performance, str) else details
            return f"VPN is ON and connected. Details: {shown}"
        if device["vpn_enabled_setting"]:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    @tool(kind=ACTION, app="phone")
    def connect_vpn(self) -> str:
        """Connects to your VPN (Virtual Private Network)."""
        if self._phone().device["vpn_connected"]:
            return "VPN already connected."

        def change(phone: Phone) -> str:
            phone.device.update(vpn_connected=True, vpn_details=dict(GOOD_VPN))
            return "VPN connected successfully."
        return self._changed(change)

    @tool(kind=ACTION, app="phone")
    def disconnect_vpn(self) -> str:
        """Disconnects any active VPN (Virtual Private Network) connection. Stops routing your internet traffic through a VPN server, which might affect connection speed or access to content."""
        def change(phone: Phone) -> str:
            if not phone.device["vpn_connected"]:
                return "No active VPN connection to disconnect."
            phone.device.update(vpn_connected=False, vpn_details=None)
            return "VPN disconnected successfully."
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def check_installed_apps(self) -> str:
        """Returns the name of all installed apps on the phone."""
        return f"The following apps are installed on the phone: {', '.join(self._phone().device['app_statuses'])}"

    @tool(kind=READ, app="phone")
    def check_app_status(self, app_name: str) -> str:
        """Checks detailed information about a specific app. Shows its permissions and background data usage settings."""
        app = self._phone().device["app_statuses"].get(app_name)
        if app is None:
            return f"App '{app_name}' not found on this phone."
        granted = [name for name, allowed in app["permissions"].items() if allowed]
        lines = [f"Status for App: {app_name}"]
        lines += ([" - Permissions Granted:"] + [f"   - {p}" for p in granted]) if granted else [
            " - Permissions: None granted."]
        return "\n".join(lines)

    @tool(kind=READ, app="phone")
    def check_app_permissions(self, app_name: str) -> str:
        """Checks what permissions a specific app currently has. Shows if the app has access to features like storage, camera, location, etc."""
        app = self._phone().device["app_statuses"].get(app_name)
        if app is None:
            return f"App '{app_name}' not found on this phone."
        granted = [name for name, allowed in app["permissions"].items() if allowed]
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    @tool(kind=ACTION, app="phone")
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        """Gives a specific permission to an app (like access to storage, camera, or location). Required for some app functions to work properly.

        Args:
            app_name: The name of the app to grant the permission to.
            permission: The permission to grant, should be lowercase.
        """
        def change(phone: Phone) -> str:
            app = phone.device["app_statuses"].get(app_name)
            if app is None:
                return f"Error. App '{app_name}' not found. Cannot grant permission."
            name = permission.lower()
            if name not in app["permissions"]:
                return (f"Error. Permission '{name}' not tracked for app '{app_name}', available permissions: "
                        f"{list(app['permissions'])}")
            app["permissions"][name] = True
            return f"Success. Permission '{name}' granted to app '{app_name}'."
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def can_send_mms(self) -> str:
        """Checks if the default messaging app can send MMS messages."""
        return ("Your messaging app can send MMS messages." if self._phone().can_send_mms()
                else "Your messaging app cannot send MMS messages.")

    @tool(kind=ACTION, app="phone")
    def reboot_device(self) -> str:
        """Restarts your phone completely. This can help resolve many temporary software glitches by refreshing all running services and connections."""
        def change(phone: Phone) -> str:
            lines = []
            if phone.device["active_apn_settings"].get("reset_at_reboot"):
                lines.append("Resetting APN settings...")
                phone.device["active_apn_settings"] = dict(DEFAULT_APN)
            lines.append("Restarting network services...")
            phone.device["network_connection_status"] = "searching"
            phone.network_search()
            return "\n".join(lines)
        return self._changed(change)

    @tool(kind=READ, app="phone")
    def check_payment_request(self) -> str:
        """Checks if the agent has sent you a payment request."""
        request = self._phone().surroundings["payment_request"]
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request['bill_id']} of {request['amount_due']} USD."

    @tool(kind=ACTION, app="phone")
    def make_payment(self) -> str:
        """Makes a payment for the bill that the agent has sent you."""
        phone = self._phone()
        request = phone.surroundings["payment_request"]
        if request is None:
            return "You do not have a payment request."
        request["paid"] = True
        self._save(phone)
        return f"Payment of {request['amount_due']} USD has been made for bill {request['bill_id']}."

    # -- setup functions of the tasks' initial state (not tools) ------------------------------
    def _setup(self, change) -> str:
        phone = self._phone()
        message = change(phone)
        self._save(phone)
        return message

    def set_user_info(self, name: str, phone_number: str) -> None:
        self._setup(lambda phone: phone.surroundings.update(name=name, phone_number=phone_number))

    def set_user_location(self, abroad: bool) -> None:
        self._setup(lambda phone: phone.surroundings.update(is_abroad=abroad))

    def _force(self, setting: str, on: bool, search: bool = True):
        """τ²'s ``turn_*_on``/``_off``: toggle, and toggle back if that went the wrong way. The
        switch is always flipped at least once, so a toggle that searches the network searches
        even when the setting was already as asked."""
        def change(phone: Phone) -> None:
            if phone.toggle(setting, search) != on:
                phone.toggle(setting, search)
        return self._setup(change)

    def turn_roaming_on(self):
        return self._force("roaming_enabled", True)

    def turn_roaming_off(self):
        return self._force("roaming_enabled", False)

    def turn_data_off(self):
        return self._force("data_enabled", False)

    def turn_data_saver_mode_on(self):
        return self._force("data_saver_mode", True, search=False)

    def turn_airplane_mode_on(self):
        def change(phone: Phone) -> None:  # τ²'s: toggled at least once, as _force
            if not phone.toggle_airplane_mode():
                phone.toggle_airplane_mode()
        return self._setup(change)

    def simulate_network_search(self):
        return self._setup(lambda phone: phone.network_search())

    def unseat_sim_card(self):
        def change(phone: Phone) -> None:
            phone.device["sim_card_missing"] = True
            phone.network_search()
        return self._setup(change)

    def lock_sim_card(self, mode: Literal["pin", "puk"]):
        def change(phone: Phone) -> None:
            phone.device["sim_card_status"] = f"locked_{mode}"
            phone.network_search()
        return self._setup(change)

    def break_apn_settings(self):
        def change(phone: Phone) -> None:
            phone.device["active_apn_settings"]["apn_name"] = "broken"
            phone.network_search()
        return self._setup(change)

    def break_apn_mms_setting(self):
        return self._setup(lambda phone: phone.device["active_apn_settings"].update(mmsc_url=None))

    def break_vpn(self):
        return self._setup(lambda phone: phone.device.update(vpn_connected=True, vpn_details={
            **GOOD_VPN, "server_performance": "poor"}))

    def remove_app_permission(self, app_name: str, permission: str):
        def change(phone: Phone) -> None:
            app = phone.device["app_statuses"].get(app_name)
            if app is not None and permission.lower() in app["permissions"]:
                app["permissions"][permission.lower()] = False
        return self._setup(change)

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None):
        def change(phone: Phone) -> None:
            phone.device["wifi_calling_enabled"] = enabled
            if mms_over_wifi is not None:
                phone.device["wifi_calling_mms_over_wifi"] = mms_over_wifi
        return self._setup(change)

    # -- assertions ---------------------------------------------------------------------------
    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return self._phone().device["airplane_mode"] == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        return self._phone().device["network_connection_status"] == expected_status

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._phone().mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return self._phone().device["roaming_enabled"] == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return self._phone().device["data_saver_mode"] == expected_status

    def assert_internet_speed(self, expected_speed: float, expected_desc: str | None = None) -> bool:
        speed, description = self._phone().speed()
        speed = speed or 0.0
        return speed >= expected_speed and (expected_desc is None or description.lower() == expected_desc.lower())

    def assert_internet_not_excellent(self) -> bool:
        return self._phone().speed()[1].lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return self._phone().can_send_mms() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return self._phone().surroundings["mobile_data_usage_exceeded"] == expected_status

    functions = ("set_user_info", "set_user_location", "turn_roaming_on", "turn_roaming_off", "turn_data_off",
                 "turn_data_saver_mode_on", "turn_airplane_mode_on", "simulate_network_search", "unseat_sim_card",
                 "lock_sim_card", "break_apn_settings", "break_apn_mms_setting", "break_vpn", "remove_app_permission",
                 "set_wifi_calling", "set_network_mode_preference")
    assertions = ("assert_airplane_mode_status", "assert_service_status", "assert_mobile_data_status",
                  "assert_mobile_roaming_status", "assert_mobile_data_saver_mode_status", "assert_internet_speed",
                  "assert_internet_not_excellent", "assert_can_send_mms", "assert_mobile_data_usage_exceeded")
