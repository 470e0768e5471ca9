"""ToolTalk's databases as SQLAlchemy models: one table per database of the original.

Records keep ToolTalk's own string ids and formats (times as ``%Y-%m-%d %H:%M:%S``) so
responses are shaped exactly like the original tools' responses (the tools, in ``tools.py``,
read the rows with plain SQL and shape them). A surrogate ``pk`` keeps
insertion order, which the original's dict-backed databases expose in their results.
"""

from __future__ import annotations

from sqlalchemy import JSON, Float, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String, unique=True)
    password: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String)
    phone: Mapped[str | None] = mapped_column(String, nullable=True)
    name: Mapped[str | None] = mapped_column(String, nullable=True)
    session_token: Mapped[str | None] = mapped_column(String, nullable=True)
    verification_code: Mapped[str | None] = mapped_column(String, nullable=True)


class Alarm(Base):
    __tablename__ = "alarms"
    __table_args__ = (UniqueConstraint("owner", "alarm_id"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String, index=True)
    alarm_id: Mapped[str] = mapped_column(String)
    time: Mapped[str] = mapped_column(String)


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("owner", "event_id"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String, index=True)
    event_id: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)
    event_type: Mapped[str] = mapped_column(String)
    start_time: Mapped[str] = mapped_column(String)
    end_time: Mapped[str] = mapped_column(String)
    location: Mapped[str | None] = mapped_column(String, nullable=True)
    description: Mapped[str | None] = mapped_column(String, nullable=True)
    attendees: Mapped[list | None] = mapped_column(JSON, nullable=True)


class Email(Base):
    __tablename__ = "emails"
    __table_args__ = (UniqueConstraint("owner", "email_id"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String, index=True)
    email_id: Mapped[str] = mapped_column(String)
    date: Mapped[str] = mapped_column(String)
    sender: Mapped[str] = mapped_column(String)
    receivers: Mapped[list] = mapped_column(JSON)
    subject: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(String)


class Message(Base):
    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("owner", "message_id"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String, index=True)
    message_id: Mapped[str] = mapped_column(String)
    timestamp: Mapped[str] = mapped_column(String)
    sender: Mapped[str] = mapped_column(String)
    message: Mapped[str] = mapped_column(String)


class Reminder(Base):
    __tablename__ = "reminders"
    __table_args__ = (UniqueConstraint("owner", "reminder_id"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String, index=True)
    reminder_id: Mapped[str] = mapped_column(String)
    task: Mapped[str] = mapped_column(String)
    due_date: Mapped[str | None] = mapped_column(String, nullable=True)
    status: Mapped[str] = mapped_column(String)


class DailyWeather(Base):
    __tablename__ = "weather"
    __table_args__ = (UniqueConstraint("location", "date"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    location: Mapped[str] = mapped_column(String, index=True)  # lower-case, as looked up
    date: Mapped[str] = mapped_column(String)
    high: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    conditions: Mapped[str] = mapped_column(String)


class MonthlyWeather(Base):
    __tablename__ = "historic_weather"
    __table_args__ = (UniqueConstraint("location", "month"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    location: Mapped[str] = mapped_column(String, index=True)
    month: Mapped[str] = mapped_column(String)
    min_temp: Mapped[float] = mapped_column(Float)
    max_temp: Mapped[float] = mapped_column(Float)
    record_min_temp: Mapped[float] = mapped_column(Float)
    record_max_temp: Mapped[float] = mapped_column(Float)
    avg_rainfall: Mapped[float] = mapped_column(Float)
    snow_days: Mapped[int] = mapped_column(Integer)
