"""The ToolTalk world: accounts, alarms, calendars, mail, messages, reminders and weather."""

from __future__ import annotations

from toolgym.worlds.base import World
from toolgym.worlds.tools import ToolResult
from toolgym.worlds.tooltalk.data_model import (
    Account, Alarm, Base, DailyWeather, Email, Event, Message, MonthlyWeather, Reminder,
)
from toolgym.worlds.tooltalk.tools import ToolTalkTools, parse_time


class ToolTalkWorld(World):
    """ToolTalk's databases plus the client's login session.

    The session (``session_token``) is the token of the user the assistant acts for; tools that
    need a logged-in user receive it from the world, never from the agent.
    """

    Base = Base

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.aux = {"session_token": None, "outbox": []}
        self.tools = ToolTalkTools(self)

    @property
    def session_token(self) -> str | None:
        return self.aux["session_token"]

    @session_token.setter
    def session_token(self, token: str | None) -> None:
        self.aux["session_token"] = token

    @property
    def outbox(self) -> list:
        """Emails and messages sent during the episode (the original keeps no copy)."""
        return self.aux["outbox"]

    def execute(self, name: str, arguments) -> ToolResult:
        """Run a tool as the logged-in client: the session token is injected, never trusted."""
        spec = self.tools.specs.get(name) if isinstance(name, str) else None
        if spec is not None and spec.needs_login:
            if self.session_token is None:
                return ToolResult(name=name, arguments=arguments if isinstance(arguments, dict) else {},
                                  is_action=spec.is_action, error="User is not logged in")
            return self.tools.call(name, arguments, injected={"session_token": self.session_token})
        return self.tools.call(name, arguments)

    def begin_conversation(self, metadata: dict, user: dict | None) -> None:
        """Set clock, session and id streams as ToolTalk does at the start of every turn."""
        self.clock.set(parse_time(metadata["timestamp"]))
        self.reset_rngs()
        self.aux = {"session_token": None, "outbox": []}
        user = user or {}
        db = self.sql()  # plain SQL: this runs at every reset and every turn of every episode
        account = None
        if "username" in user:
            account = db.execute("SELECT pk FROM accounts WHERE username = ?", (user["username"],)).fetchone()
        if account is not None and user.get("session_token"):
            db.execute("UPDATE accounts SET session_token = ? WHERE pk = ?", (user["session_token"], account[0]))
            self.session_token = user["session_token"]
        if account is not None and user.get("verification_code"):
            db.execute("UPDATE accounts SET verification_code = ? WHERE pk = ?", (user["verification_code"], account[0]))
        self.commit()

    # -- loading ---------------------------------------------------------------------------
    def load_databases(self, data: dict[str, dict]) -> None:
        """Fill the tables from ToolTalk's ``databases/*.json`` contents, keyed by file stem."""
        s = self.session
        for username, a in data.get("Account", {}).items():
            s.add(Account(username=username, password=a["password"], email=a["email"], phone=a.get("phone"),
                          name=a.get("name"), session_token=a.get("session_token"),
                          verification_code=a.get("verification_code")))
        for owner, alarms in data.get("Alarm", {}).items():
            for a in alarms.values():
                s.add(Alarm(owner=owner, alarm_id=a["alarm_id"], time=a["time"]))
        for owner, events in data.get("Calendar", {}).items():
            for e in events.values():
                s.add(Event(owner=owner, **{k: e.get(k) for k in (
                    "event_id", "name", "event_type", "start_time", "end_time", "location",
                    "description", "attendees")}))
        for owner, emails in data.get("Email", {}).items():
            for e in emails.values():
                s.add(Email(owner=owner, **{k: e[k] for k in (
                    "email_id", "date", "sender", "receivers", "subject", "body")}))
        for owner, messages in data.get("Message", {}).items():
            for m in messages.values():
                s.add(Message(owner=owner, **{k: m[k] for k in ("message_id", "timestamp", "sender", "message")}))
        for owner, reminders in data.get("Reminder", {}).items():
            for r in reminders.values():
                s.add(Reminder(owner=owner, **{k: r[k] for k in ("reminder_id", "task", "due_date", "status")}))
        for location, days in data.get("Weather", {}).items():
            for d in days.values():
                s.add(DailyWeather(location=location.lower(), **{k: d[k] for k in ("date", "high", "low", "conditions")}))
        for location, months in data.get("HistoricWeather", {}).items():
            for month, m in months.items():
                s.add(MonthlyWeather(location=location.lower(), month=month.lower(), **m))
        s.commit()
