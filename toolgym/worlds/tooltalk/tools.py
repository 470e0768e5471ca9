"""ToolTalk's 28 tools in 7 plugins, backed by the database (Farn & Shin 2023, appendix A).

Behaviour follows the original simulated tools: the same checks, error texts, response
shapes and generated ids (each tool draws its ids from its own ``Random(489)`` stream,
restarted with the conversation, as ToolTalk's executor does).

The models of ``data_model`` are the schema; the tools run plain SQL on the world's
connection (:meth:`~toolgym.worlds.base.World.sql`), which the world commits and rolls back,
because the ORM's statement compilation, identity map and object loading were three quarters
of a step's time. Writes store what the ORM stored (JSON columns as ``json.dumps`` text, ``None``
as ``'null'``), and a constraint violation fails the call with the ORM's error text.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from datetime import datetime, timedelta
from typing import Any, Literal, NamedTuple

from sqlalchemy.exc import DBAPIError

from toolgym.worlds.tools import ACTION, READ, ToolError, Toolkit, tool

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
ID_SEED = 489
SESSION = ("session_token",)

PLUGINS = {
    "AccountTools": "This API contains tools for account management.",
    "Alarm": "This API contains tools for managing alarms.",
    "Calendar": "This API lets a users manage events in their calendar.",
    "Email": "This API lets a user send and search emails.",
    "Message": "This API lets a user send and search messages.",
    "Reminder": "A suite of APIs for managing reminders for a TODO list.",
    "Weather": "Get weather information of a location.",
}


def valid_email(email: str) -> bool:
    return re.match(r"^[\w\-\d\.]+@[\w\-\d\.]+$", email) is not None


def valid_phone(phone: str) -> bool:
    return re.match(r"^\d{3}-\d{3}-\d{4}$", phone) is not None


class AccountRow(NamedTuple):
    """A row of the ``accounts`` table."""

    pk: int
    username: str
    password: str
    email: str
    phone: str | None
    name: str | None
    session_token: str | None
    verification_code: str | None


_ACCOUNT = f"SELECT {', '.join(AccountRow._fields)} FROM accounts"
_EVENT_FIELDS = ("event_id", "name", "event_type", "start_time", "end_time", "location", "description", "attendees")
_EMAIL_FIELDS = ("email_id", "date", "sender", "receivers", "subject", "body")
_MESSAGE_FIELDS = ("message_id", "timestamp", "sender", "message")
_REMINDER_FIELDS = ("reminder_id", "task", "due_date", "status")
_MONTHLY_FIELDS = ("min_temp", "max_temp", "record_min_temp", "record_max_temp", "avg_rainfall", "snow_days")


@functools.lru_cache(maxsize=8192)
def parse_time(text: str) -> datetime:
    """``text`` read with ``TIME_FORMAT`` (cached: searches read every record's date at every call)."""
    return datetime.strptime(text, TIME_FORMAT)


def _json_column(text: str | None) -> Any:
    """A JSON column's value as the ORM reads it back."""
    return None if text is None else json.loads(text)


def _num(x: float) -> int | float:
    """Integral temperatures read back as ints, as the original JSON stores them."""
    return int(x) if float(x).is_integer() else x


class ToolTalkTools(Toolkit):
    """The ToolTalk tools over a :class:`~toolgym.worlds.tooltalk.world.ToolTalkWorld`."""

    # -- helpers ---------------------------------------------------------------------------
    def _rows(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        return self.world.sql().execute(sql, parameters).fetchall()

    def _write(self, sql: str, parameters: tuple = ()) -> None:
        try:
            self.world.sql().execute(sql, parameters)
        except sqlite3.DatabaseError as error:  # the error (and its text) the ORM's flush raised
            raise DBAPIError.instance(sql, parameters, error, sqlite3.Error) from error

    def _new_id(self, tool_name: str, *hex_widths: int) -> str:
        rng = self.world.rng(tool_name, seed=ID_SEED)
        return "-".join(f"{rng.randint(0, 16 ** w - 1):0{w}x}" for w in hex_widths)

    def _user(self, session_token: str) -> AccountRow:
        rows = self._rows(f"{_ACCOUNT} WHERE session_token = ? LIMIT 1", (session_token,))
        if not rows or session_token is None:
            raise ToolError("Invalid session_token.")
        return AccountRow._make(rows[0])

    def _account(self, username: str) -> AccountRow | None:
        rows = self._rows(f"{_ACCOUNT} WHERE username = ? LIMIT 1", (username,))
        return AccountRow._make(rows[0]) if rows else None

    def _set_account(self, user: AccountRow, **values: str | None) -> None:
        columns = ", ".join(f"{column} = ?" for column in values)
        self._write(f"UPDATE accounts SET {columns} WHERE pk = ?", (*values.values(), user.pk))

    def _now(self) -> datetime:
        return self.world.clock.now()

    # -- AccountTools ----------------------------------------------------------------------
    @tool("ChangePassword", kind=ACTION, app="AccountTools", needs_login=True, injected=SESSION)
    def change_password(self, session_token: str, old_password: str, new_password: str) -> dict:
        """Changes the password of an account.

        Args:
            old_password: The old password of the user.
            new_password: The new password of the user.
        """
        user = self._user(session_token)
        if user.password != old_password:
            raise ToolError("The old password is incorrect.")
        self._set_account(user, password=new_password)
        return {"status": "success"}

    @tool("DeleteAccount", kind=ACTION, app="AccountTools", needs_login=True, injected=SESSION)
    def delete_account(self, session_token: str, password: str) -> dict:
        """Deletes a user's account, requires user to be logged in.

        Args:
            password: The password of the user.
        """
        user = self._user(session_token)
        if user.password != password:
            raise ToolError("The password is incorrect.")
        self._write("DELETE FROM accounts WHERE pk = ?", (user.pk,))
        return {"status": "success"}

    @tool("GetAccountInformation", kind=READ, app="AccountTools", needs_login=True, injected=SESSION)
    def get_account_information(self, session_token: str) -> dict:
        """Retrieves account information of logged in user."""
        user = self._user(session_token)
        return {"user": {"username": user.username, "email": user.email,
                         "phone": user.phone, "name": user.name}}

    @tool("LogoutUser", kind=ACTION, app="AccountTools", needs_login=True, injected=SESSION)
    def logout_user(self, session_token: str) -> dict:
        """Logs user out."""
        user = self._user(session_token)
        self._set_account(user, session_token=None)
        self.world.session_token = None
        return {"status": "success"}

    @tool("QueryUser", kind=READ, app="AccountTools", needs_login=True, injected=SESSION)
    def query_user(self, session_token: str, username: str | None = None,
                   email: str | None = None) -> dict:
        """Finds users given a username or email.

        Args:
            username: The username of the user, required if email is not supplied.
            email: The email of the user, required if username is not supplied. May match multiple users
        """
        self._user(session_token)
        if username is None and email is None:
            raise ToolError("You need to provide at least one of username and email.")
        if username is None:
            found = self._rows("SELECT username, email, phone, name FROM accounts WHERE email = ? ORDER BY pk", (email,))
        else:
            found = self._rows("SELECT username, email, phone, name FROM accounts WHERE username = ?", (username,))
        return {"users": [{"username": u, "email": e, "phone": p, "name": n} for u, e, p, n in found]}

    @tool("RegisterUser", kind=ACTION, app="AccountTools")
    def register_user(self, username: str, password: str, email: str, name: str | None = None,
                      phone: str | None = None) -> dict:
        """Register a new user.

        Args:
            username: The username of the user.
            password: The password of the user.
            email: The email of the user.
            name: The name of the user.
            phone: The phone of the user in the format xxx-xxx-xxxx.
        """
        if self._account(username) is not None:
            raise ToolError("The username already exists.")
        if not valid_email(email):
            raise ToolError("The email format is invalid.")
        if phone is not None and not valid_phone(phone):
            raise ToolError("The phone number format is invalid.")
        token = self._new_id("RegisterUser", 8, 4, 4)
        self._write("INSERT INTO accounts (username, password, email, phone, name, session_token) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (username, password, email, phone, name, token))
        self.world.session_token = token
        return {"session_token": token,
                "user": {"username": username, "email": email, "phone": phone, "name": name}}

    @tool("ResetPassword", kind=ACTION, app="AccountTools")
    def reset_password(self, username: str, verification_code: str, new_password: str) -> dict:
        """Resets the password of a user using a verification code.

        Args:
            username: The username of the user.
            verification_code: The 6 digit verification code sent to the user.
            new_password: The new password of the user.
        """
        user = self._account(username)
        if user is None:
            raise ToolError("The username does not exist.")
        if user.verification_code is None or user.verification_code != verification_code:
            raise ToolError("The verification code is incorrect.")
        self._set_account(user, password=new_password)
        return {"status": "success"}

    @tool("SendVerificationCode", kind=ACTION, app="AccountTools")
    def send_verification_code(self, username: str, email: str) -> dict:
        """Initiates a password reset for a user by sending a verification code to a backup email.

        Args:
            username: The username of the user.
            email: The email of the user.
        """
        user = self._account(username)
        if user is None:
            raise ToolError("The username does not exist.")
        if user.email != email:
            raise ToolError("The email is incorrect.")
        rng = self.world.rng("SendVerificationCode", seed=ID_SEED)
        self._set_account(user, verification_code=f"{rng.randint(0, 999999):06d}")
        return {"status": "success"}

    @tool("UpdateAccountInformation", kind=ACTION, app="AccountTools", needs_login=True, injected=SESSION)
    def update_account_information(self, session_token: str, password: str,
                                   new_email: str | None = None,
                                   new_phone_number: str | None = None,
                                   new_name: str | None = None) -> dict:
        """Updates account information of a user.

        Args:
            password: The password of the user.
            new_email: The new email of the user.
            new_phone_number: The new phone number of the user in the format xxx-xxx-xxxx.
            new_name: The new name of the user.
        """
        user = self._user(session_token)
        if user.password != password:
            raise ToolError("The password is incorrect.")
        if new_email is None and new_phone_number is None:
            raise ToolError("You need to provide at least one of new_email and new_phone_number.")
        if new_email is not None and not valid_email(new_email):
            raise ToolError("The email is invalid.")
        if new_phone_number is not None and not valid_phone(new_phone_number):
            raise ToolError("The phone number is invalid.")
        changes = {"email": new_email, "phone": new_phone_number, "name": new_name}
        self._set_account(user, **{column: value for column, value in changes.items() if value is not None})
        return {"status": "success"}

    @tool("UserLogin", kind=ACTION, app="AccountTools")
    def user_login(self, username: str, password: str) -> dict:
        """Logs in a user returns a token.

        Args:
            username: The username of the user.
            password: The password of the user.
        """
        user = self._account(username)
        if user is None:
            raise ToolError("The username does not exist.")
        if user.password != password:
            raise ToolError("The password is incorrect.")
        if user.session_token is not None:
            raise ToolError("The user is already logged in.")
        token = self._new_id("UserLogin", 8, 4, 4)
        self._set_account(user, session_token=token)
        self.world.session_token = token
        return {"session_token": token}

    # -- Alarm -----------------------------------------------------------------------------
    @tool("AddAlarm", kind=ACTION, app="Alarm", needs_login=True, injected=SESSION)
    def add_alarm(self, session_token: str, time: str) -> dict:
        """Adds an alarm for a set time.

        Args:
            time: The time for alarm. Format: %H:%M:%S
        """
        datetime.strptime(time, "%H:%M:%S")
        user = self._user(session_token)
        alarm_id = self._new_id("AddAlarm", 4, 4)
        self._write("INSERT INTO alarms (owner, alarm_id, time) VALUES (?, ?, ?)", (user.username, alarm_id, time))
        return {"alarm_id": alarm_id}

    @tool("DeleteAlarm", kind=ACTION, app="Alarm", needs_login=True, injected=SESSION)
    def delete_alarm(self, session_token: str, alarm_id: str) -> dict:
        """Deletes an alarm given an alarm_id.

        Args:
            alarm_id: 8 digit alarm ID.
        """
        user = self._user(session_token)
        alarm = self._rows("SELECT pk FROM alarms WHERE owner = ? AND alarm_id = ? LIMIT 1", (user.username, alarm_id))
        if not alarm:
            raise ToolError(f"Alarm {alarm_id} not found.")
        self._write("DELETE FROM alarms WHERE pk = ?", alarm[0])
        return {"status": "success"}

    @tool("FindAlarms", kind=READ, app="Alarm", needs_login=True, injected=SESSION)
    def find_alarms(self, session_token: str, start_range: str | None = None,
                    end_range: str | None = None) -> dict:
        """Finds alarms the user has set.

        Args:
            start_range: Optional starting time range to find alarms. Format: %H:%M:%S
            end_range: Optional ending time range to find alarms. Format: %H:%M:%S
        """
        user = self._user(session_token)
        alarms = self._rows("SELECT alarm_id, time FROM alarms WHERE owner = ? ORDER BY pk", (user.username,))
        if not alarms:
            return {"alarms": []}
        start = datetime.strptime(start_range, "%H:%M:%S") if start_range is not None else None
        end = datetime.strptime(end_range, "%H:%M:%S") if end_range is not None else None
        if start is not None and end is not None and start > end:
            raise ToolError("Start range must be earlier than end range.")
        found = []
        for alarm_id, time in alarms:
            at = datetime.strptime(time, "%H:%M:%S")
            if (start is None or at >= start) and (end is None or at <= end):
                found.append({"alarm_id": alarm_id, "time": time})
        return {"alarms": found}

    # -- Calendar --------------------------------------------------------------------------
    @tool("CreateEvent", kind=ACTION, app="Calendar", needs_login=True, injected=SESSION)
    def create_event(self, session_token: str, name: str, event_type: Literal["meeting", "event"],
                     start_time: str, end_time: str, description: str | None = None,
                     location: str | None = None, attendees: list[str] | None = None) -> dict:
        """Adds events to a user's calendar.

        Args:
            name: The name of the event.
            event_type: The type of the event, either 'meeting' or 'event'.
            start_time: The start time of the event, in the pattern of %Y-%m-%d %H:%M:%S
            end_time: The end time of the event, in the pattern of %Y-%m-%d %H:%M:%S.
            description: The description of the event, no more than 1024 characters.
            location: Optional, the location where the event is to be held.
            attendees: The attendees as an array of usernames. Required if event type is meeting.
        """
        if event_type == "meeting" and not attendees:
            raise ToolError("Meeting must have attendees.")
        user = self._user(session_token)
        start = parse_time(start_time)
        end = parse_time(end_time)
        if start > end:
            raise ToolError("Start time must be before end time.")
        if start < self._now() or end < self._now():
            raise ToolError("Start time and end time must be in the future.")
        if attendees is not None and user.username not in attendees:
            attendees = attendees + [user.username]
        event_id = self._new_id("CreateEvent", 8, 4)
        self._write("INSERT INTO events (owner, event_id, name, event_type, start_time, end_time, location, "
                    "description, attendees) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (user.username, event_id, name, event_type, start_time, end_time, location, description,
                     json.dumps(attendees)))
        return {"event_id": event_id}

    def _event(self, user: AccountRow, event_id: str) -> int:
        """The pk of the user's event ``event_id``."""
        event = self._rows("SELECT pk FROM events WHERE owner = ? AND event_id = ? LIMIT 1", (user.username, event_id))
        if not event:
            raise ToolError(f"Event {event_id} not found.")
        return event[0][0]

    @tool("DeleteEvent", kind=ACTION, app="Calendar", needs_login=True, injected=SESSION)
    def delete_event(self, session_token: str, event_id: str) -> dict:
        """Deletes events from a user's calendar.

        Args:
            event_id: The id of the event to be deleted.
        """
        user = self._user(session_token)
        self._write("DELETE FROM events WHERE pk = ?", (self._event(user, event_id),))
        return {"status": "success"}

    @tool("ModifyEvent", kind=ACTION, app="Calendar", needs_login=True, injected=SESSION)
    def modify_event(self, session_token: str, event_id: str, new_name: str | None = None,
                     new_start_time: str | None = None, new_end_time: str | None = None,
                     new_description: str | None = None, new_location: str | None = None,
                     new_attendees: list[str] | None = None) -> dict:
        """Allows modification of an existing event.

        Args:
            event_id: The id of the event to be modified.
            new_name: The new name of the event.
            new_start_time: The new start time of the event.
            new_end_time: The new end time of the event. Required if new_start_time is provided.
            new_description: The new description of the event.
            new_location: The new location of the event.
            new_attendees: The new attendees of the event. Array of usernames.
        """
        user = self._user(session_token)
        event = self._event(user, event_id)
        changes: dict[str, str | None] = {}
        if new_name is not None:
            changes["name"] = new_name
        if new_start_time is not None:
            if new_end_time is None:
                raise ToolError("new_end_time must be provided if new_start_time is provided.")
            start = parse_time(new_start_time)
            end = parse_time(new_end_time)
            if start > end:
                raise ToolError("Start time must be before end time.")
            if start < self._now() or end < self._now():
                raise ToolError("Start time and end time must be in the future.")
            changes["start_time"] = new_start_time
        if new_end_time is not None:
            if new_start_time is None:
                raise ToolError("new_start_time must be provided if new_end_time is provided.")
            changes["end_time"] = new_end_time
        if new_description is not None:
            changes["description"] = new_description
        if new_location is not None:
            changes["location"] = new_location
        if new_attendees is not None:
            if user.username not in new_attendees:
                new_attendees = new_attendees + [user.username]
            changes["attendees"] = json.dumps(new_attendees)
        if changes:
            columns = ", ".join(f"{column} = ?" for column in changes)
            self._write(f"UPDATE events SET {columns} WHERE pk = ?", (*changes.values(), event))
        return {"status": "success"}

    @tool("QueryCalendar", kind=READ, app="Calendar", needs_login=True, injected=SESSION)
    def query_calendar(self, session_token: str, start_time: str, end_time: str) -> dict:
        """Query for events that occur in a time range.

        Args:
            start_time: The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S
            end_time: The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S
        """
        user = self._user(session_token)
        events = [dict(zip(_EVENT_FIELDS, row)) for row in self._rows(
            f"SELECT {', '.join(_EVENT_FIELDS)} FROM events WHERE owner = ? ORDER BY pk", (user.username,))]
        if not events:
            raise ToolError(f"User {user.username} has no events.")
        start = parse_time(start_time)
        end = parse_time(end_time)
        if start > end:
            raise ToolError("Start time must be before end time.")
        found = []
        for event in events:
            ev_start = parse_time(event["start_time"])
            ev_end = parse_time(event["end_time"])
            if start <= ev_start <= end or start <= ev_end <= end or (ev_start <= start and ev_end >= end):
                event["attendees"] = _json_column(event["attendees"])
                found.append(event)
        return {"events": found}

    # -- Email -----------------------------------------------------------------------------
    @tool("SearchInbox", kind=READ, app="Email", needs_login=True, injected=SESSION)
    def search_inbox(self, session_token: str, query: str | None = None,
                     match_type: str | None = "any", sender: str | None = None,
                     start_date: str | None = None, end_date: str | None = None) -> dict:
        """Searches for emails matching filters returning 5 most recent results.

        Args:
            query: Query containing keywords to search for.
            match_type: Whether to match any or all keywords. Defaults to any.
            sender: The email address of the sender.
            start_date: Starting time to search for, in the pattern of %Y-%m-%d %H:%M:%S.
            end_date: End time to search for, in the pattern of %Y-%m-%d %H:%M:%S.
        """
        user = self._user(session_token)
        emails = [dict(zip(_EMAIL_FIELDS, row)) for row in self._rows(
            f"SELECT {', '.join(_EMAIL_FIELDS)} FROM emails WHERE owner = ? ORDER BY pk", (user.username,))]
        if not emails:
            return {"emails": []}
        for email in emails:
            email["receivers"] = list(json.loads(email["receivers"]))
        found = self._search(emails, "date", lambda e: e["body"] + "\n" + e["subject"],
                             query, match_type, sender, start_date, end_date)
        return {"emails": found}

    def _search(self, records, date_key, text_of, query, match_type, sender, start_date, end_date):
        if query is None and sender is None and start_date is None and end_date is None:
            raise ToolError("At least one of query, sender, start_date, end_date must be provided.")
        if match_type not in ("any", "all"):
            raise ToolError('match_type must be either "any" or "all".')
        start = parse_time(start_date) if start_date is not None else None
        end = parse_time(end_date) if end_date is not None else None
        if start is not None and end is not None and start > end:
            raise ToolError("Start date must be earlier than end date.")
        keywords = query.lower().split() if query else None
        found = []
        for record in records:
            at = parse_time(record[date_key])
            if at > self._now():
                continue  # not yet received
            if sender is not None and sender != record["sender"]:
                continue
            if (start is not None and at < start) or (end is not None and at > end):
                continue
            if keywords is not None:
                text = text_of(record).lower()
                hits = [k in text for k in keywords]
                if not (any(hits) if match_type == "any" else all(hits)):
                    continue
            found.append(record)
        found.sort(key=lambda r: parse_time(r[date_key]), reverse=True)
        return found[:5]

    @tool("SendEmail", kind=ACTION, app="Email", needs_login=True, injected=SESSION)
    def send_email(self, session_token: str, to: list[str], subject: str, body: str) -> dict:
        """Sends an email on behalf of a given user.

        Args:
            to: Receiving addresses of the email.
            subject: The subject of the email.
            body: The content of the email.
        """
        user = self._user(session_token)
        for address in to:
            if not valid_email(address):
                raise ToolError(f"{address} is not a valid email address.")
        email_id = self._new_id("SendEmail", 2, 4, 8)
        self.world.outbox.append({"email_id": email_id, "sender": user.email, "receivers": list(to),
                                  "subject": subject, "body": body,
                                  "date": self._now().strftime(TIME_FORMAT)})
        return {"email_id": email_id}

    # -- Message ---------------------------------------------------------------------------
    @tool("SearchMessages", kind=READ, app="Message", needs_login=True, injected=SESSION)
    def search_messages(self, session_token: str, query: str | None = None,
                        match_type: str | None = "any", sender: str | None = None,
                        start_date: str | None = None, end_date: str | None = None) -> dict:
        """Searches messages matching filters returning 5 most recent results.

        Args:
            query: Query containing keywords to search for.
            match_type: Whether to match any or all keywords. Defaults to any.
            sender: Username of the sender.
            start_date: Starting time to search for, in the pattern of %Y-%m-%d %H:%M:%S.
            end_date: End time to search for, in the pattern of %Y-%m-%d %H:%M:%S.
        """
        user = self._user(session_token)
        messages = [dict(zip(_MESSAGE_FIELDS, row)) for row in self._rows(
            f"SELECT {', '.join(_MESSAGE_FIELDS)} FROM messages WHERE owner = ? ORDER BY pk", (user.username,))]
        if not messages:
            return {"messages": []}
        found = self._search(messages, "timestamp", lambda m: m["message"],
                             query, match_type, sender, start_date, end_date)
        return {"messages": found}

    @tool("SendMessage", kind=ACTION, app="Message", needs_login=True, injected=SESSION)
    def send_message(self, session_token: str, receiver: str, message: str) -> dict:
        """Sends a message to another user.

        Args:
            receiver: The receiver's username.
            message: The message.
        """
        user = self._user(session_token)
        if message == "":
            raise ToolError("Message cannot be empty.")
        message_id = self._new_id("SendMessage", 8, 8)
        self.world.outbox.append({"message_id": message_id, "sender": user.username,
                                  "receiver": receiver, "message": message,
                                  "timestamp": self._now().strftime(TIME_FORMAT)})
        return {"message_id": message_id}

    # -- Reminder --------------------------------------------------------------------------
    @tool("AddReminder", kind=ACTION, app="Reminder", needs_login=True, injected=SESSION)
    def add_reminder(self, session_token: str, task: str, due_date: str | None = None) -> dict:
        """Add a reminder.

        Args:
            task: The task to be reminded of.
            due_date: Optional date the task is due, in the format of %Y-%m-%d %H:%M:%S.
        """
        user = self._user(session_token)
        if due_date is not None:
            try:
                parse_time(due_date)
            except ValueError:
                raise ToolError(f"Invalid due_date: {due_date}") from None
        reminder_id = self._new_id("AddReminder", 2, 4)
        self._write("INSERT INTO reminders (owner, reminder_id, task, due_date, status) VALUES (?, ?, ?, ?, ?)",
                    (user.username, reminder_id, task, due_date, "pending"))
        return {"reminder_id": reminder_id}

    def _reminder(self, user: AccountRow, reminder_id: str) -> tuple[int, str]:
        """The pk and status of the user's reminder ``reminder_id``."""
        reminder = self._rows("SELECT pk, status FROM reminders WHERE owner = ? AND reminder_id = ? LIMIT 1",
                              (user.username, reminder_id))
        if not reminder:
            raise ToolError(f"Reminder {reminder_id} not found in database")
        return reminder[0]

    @tool("CompleteReminder", kind=ACTION, app="Reminder", needs_login=True, injected=SESSION)
    def complete_reminder(self, session_token: str, reminder_id: str) -> dict:
        """Complete a reminder.

        Args:
            reminder_id: The reminder_id of the reminder to be completed.
        """
        pk, status = self._reminder(self._user(session_token), reminder_id)
        if status == "complete":
            raise ToolError(f"Reminder {reminder_id} already completed")
        self._write("UPDATE reminders SET status = ? WHERE pk = ?", ("complete", pk))
        return {"status": "success"}

    @tool("DeleteReminder", kind=ACTION, app="Reminder", needs_login=True, injected=SESSION)
    def delete_reminder(self, session_token: str, reminder_id: str) -> dict:
        """Delete a reminder.

        Args:
            reminder_id: The reminder_id of the reminder to be deleted.
        """
        pk, _ = self._reminder(self._user(session_token), reminder_id)
        self._write("DELETE FROM reminders WHERE pk = ?", (pk,))
        return {"status": "success"}

    @tool("GetReminders", kind=READ, app="Reminder", needs_login=True, injected=SESSION)
    def get_reminders(self, session_token: str) -> dict:
        """Get a list of reminders."""
        user = self._user(session_token)
        reminders = self._rows(f"SELECT {', '.join(_REMINDER_FIELDS)} FROM reminders WHERE owner = ? ORDER BY pk",
                               (user.username,))
        return {"reminders": [dict(zip(_REMINDER_FIELDS, row)) for row in reminders]}

    # -- Weather ---------------------------------------------------------------------------
    def _daily(self, location: str, date) -> dict:
        rows = self._rows("SELECT date, high, low, conditions FROM weather WHERE location = ? AND date = ? LIMIT 1",
                          (location, date.isoformat()))
        if not rows:
            raise ToolError(f"No weather data for {location} on {date.isoformat()}")
        day, high, low, conditions = rows[0]
        return {"date": day, "high": _num(high), "low": _num(low), "conditions": conditions}

    def _known_location(self, location: str) -> str:
        location = location.lower().strip()
        if not self._rows("SELECT pk FROM weather WHERE location = ? LIMIT 1", (location,)):
            raise ToolError(f"Location {location} not found in database")
        return location

    @tool("CurrentWeather", kind=READ, app="Weather")
    def current_weather(self, location: str) -> dict:
        """Get the current weather of a location.

        Args:
            location: The location to get the weather of.
        """
        location = self._known_location(location)
        return {"weather": self._daily(location, self._now().date())}

    @tool("ForecastWeather", kind=READ, app="Weather")
    def forecast_weather(self, location: str) -> dict:
        """Get the 3-day forecast weather of a location.

        Args:
            location: The location to get the weather of.
        """
        location = self._known_location(location)
        today = self._now().date()
        return {"forecast": [self._daily(location, today + timedelta(days=i)) for i in (1, 2, 3)]}

    @tool("HistoricWeather", kind=READ, app="Weather")
    def historic_weather(self, location: str, month: str) -> dict:
        """Get historic weather information of a location by month.

        Args:
            location: The location to get the weather of.
            month: The month to get weather of as a full name.
        """
        location = location.lower().strip()
        rows = self._rows(f"SELECT month, {', '.join(_MONTHLY_FIELDS)} FROM historic_weather WHERE location = ?",
                          (location,))
        if not rows:
            raise ToolError(f"Location {location} not found in database")
        month = month.lower()
        for row_month, *values in rows:
            if row_month == month:
                weather = dict(zip(_MONTHLY_FIELDS, values))
                return {"weather": {k: v if k == "snow_days" else _num(v) for k, v in weather.items()}}
        raise ToolError(f"Historic weather data for {location} missing for month {month}")
