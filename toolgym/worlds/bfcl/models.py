"""The tables of BFCL's stateful APIs, and the column type that keeps BFCL's values exact.

BFCL grades a turn by comparing each API's attributes with the ground truth's, and writes its
results with ``json.dumps`` and ``str``: a ticket's key order, ``10`` against ``10.0``, a tweet
id ``3`` against ``"3"`` and a tuple against a list all show in a verdict or a result text. The
official scenarios also hold records of any shape (a ticket ``{"ticket_001": {...}}``, an
order ``{"B": ..., "u": ..., "y": ...}``). So each record is one row holding the record as the
scenario gives it, in an :class:`ExactJSON` column, with a ``position`` column for the order
BFCL keeps (list order, dict insertion order); columns the APIs look rows up by sit beside it.
Each API's scalar attributes (counters, the logged-in user, the vehicle's gauges) are rows of
:class:`Setting`.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from toolgym.worlds import jsontext


class Base(DeclarativeBase):
    pass


def encode(value: Any) -> Any:
    """``value`` as plain JSON that :func:`decode` turns back into an equal value of the same types.

    Strings, numbers, booleans and ``None`` stay as they are (JSON keeps ``1`` and ``1.0`` apart);
    every container is tagged, so a dict keeps its key types and order and a tuple stays a tuple.
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    if type(value) is list:
        return {"l": [encode(item) for item in value]}
    if type(value) is dict:
        return {"d": [[encode(key), encode(item)] for key, item in value.items()]}
    if type(value) is tuple:
        return {"t": [encode(item) for item in value]}
    if type(value) in (set, frozenset):
        return {"s": [encode(item) for item in value], "frozen": type(value) is frozenset}
    if value is Ellipsis:  # BFCL's long-context watch list holds one
        return {"e": None}
    raise TypeError(f"BFCL state cannot hold a {type(value).__name__}")


def decode(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "l" in value:
        return [decode(item) for item in value["l"]]
    if "d" in value:
        return {decode(key): decode(item) for key, item in value["d"]}
    if "t" in value:
        return tuple(decode(item) for item in value["t"])
    if "s" in value:
        return (frozenset if value["frozen"] else set)(decode(item) for item in value["s"])
    return ...


_write_json = jsontext.dumps()


def dump(value: Any) -> str:
    """``value`` as the text an :class:`ExactJSON` column holds."""
    return _write_json(encode(value))  # json.dumps's ASCII: a lone surrogate in a string still stores


def load(text: str | None) -> Any:
    """The value :func:`dump` wrote."""
    if text is None:
        return None
    # Most values are plain names and counters: read them without the JSON parser. A dumped
    # string without a backslash is ASCII with nothing escaped; a run of digits is an integer.
    if text[0] == '"' and "\\" not in text:
        return text[1:-1]
    if text.isdigit() and text.isascii():
        return int(text)
    return decode(json.loads(text))


class ExactJSON(TypeDecorator):
    """A JSON text column whose values come back with the Python types they went in with."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return dump(value)

    def process_result_value(self, value, dialect):
        return load(value)


class Setting(Base):
    """One scalar attribute of one API (``TicketAPI.ticket_counter``, ``VehicleControlAPI.fuelLevel``)."""

    __tablename__ = "settings"
    api: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[Any] = mapped_column(ExactJSON)


class Ticket(Base):
    """TicketAPI's ``ticket_queue``: one ticket record a row, in queue order."""

    __tablename__ = "tickets"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class Contact(Base):
    """MessageAPI's ``user_map``: a user's name and id, in the map's order."""

    __tablename__ = "contacts"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[Any] = mapped_column(ExactJSON)
    user_id: Mapped[Any] = mapped_column(ExactJSON)


class SentMessage(Base):
    """MessageAPI's ``inbox``: one ``{receiver_id: text}`` record a row, oldest first."""

    __tablename__ = "sent_messages"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class MessageId(Base):
    """MessageAPI's ``generated_ids``: the message ids drawn so far."""

    __tablename__ = "message_ids"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[Any] = mapped_column(ExactJSON)


class Tweet(Base):
    """TwitterAPI's ``tweets``: a tweet's id and record, in the dict's order."""

    __tablename__ = "tweets"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    tweet_id: Mapped[Any] = mapped_column(ExactJSON)
    record: Mapped[Any] = mapped_column(ExactJSON)


class CommentThread(Base):
    """TwitterAPI's ``comments`` keys: the tweet ids that have a list of comments."""

    __tablename__ = "comment_threads"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    tweet_id: Mapped[Any] = mapped_column(ExactJSON)


class Comment(Base):
    """One comment record of a thread, in the order it was made."""

    __tablename__ = "comments"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    thread: Mapped[int] = mapped_column(ExactJSON)  # a comment_threads position
    record: Mapped[Any] = mapped_column(ExactJSON)


class Retweeter(Base):
    """TwitterAPI's ``retweets`` keys: the users who have a list of retweets."""

    __tablename__ = "retweeters"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[Any] = mapped_column(ExactJSON)


class Retweet(Base):
    """One retweeted tweet id of a retweeter, in the order retweeted."""

    __tablename__ = "retweets"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    retweeter: Mapped[int] = mapped_column(ExactJSON)  # a retweeters position
    tweet_id: Mapped[Any] = mapped_column(ExactJSON)


class Follow(Base):
    """TwitterAPI's ``following_list``, in its order."""

    __tablename__ = "follows"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[Any] = mapped_column(ExactJSON)


class Order(Base):
    """TradingBot's ``orders``: an order's id and record, in the dict's order."""

    __tablename__ = "orders"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[Any] = mapped_column(ExactJSON)
    record: Mapped[Any] = mapped_column(ExactJSON)


class Stock(Base):
    """TradingBot's ``stocks``: a symbol and its quote record, in the dict's order."""

    __tablename__ = "stocks"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    symbol: Mapped[Any] = mapped_column(ExactJSON, index=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class WatchedStock(Base):
    """TradingBot's ``watch_list``, in its order."""

    __tablename__ = "watch_list"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    symbol: Mapped[Any] = mapped_column(ExactJSON)


class Transaction(Base):
    """TradingBot's ``transaction_history``: one deposit or withdrawal record a row, oldest first."""

    __tablename__ = "transactions"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class CreditCard(Base):
    """TravelAPI's ``credit_card_list``: a card id and its card record, in the dict's order."""

    __tablename__ = "credit_cards"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    card_id: Mapped[Any] = mapped_column(ExactJSON, index=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class Booking(Base):
    """TravelAPI's ``booking_record``: a booking id and its booking record, in the dict's order."""

    __tablename__ = "bookings"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    booking_id: Mapped[Any] = mapped_column(ExactJSON, index=True)
    record: Mapped[Any] = mapped_column(ExactJSON)


class Vehicle(Base):
    """VehicleControlAPI's car: one row, a column per gauge and switch under BFCL's attribute name.

    ``parkingBrakeForce``, ``slopeAngle`` and ``brakePedalForce`` are private attributes in BFCL
    (outside the state check); the others are compared.
    """

    __tablename__ = "vehicle"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    fuelLevel: Mapped[Any] = mapped_column(ExactJSON)
    batteryVoltage: Mapped[Any] = mapped_column(ExactJSON)
    engine_state: Mapped[Any] = mapped_column(ExactJSON)
    acTemperature: Mapped[Any] = mapped_column(ExactJSON)
    fanSpeed: Mapped[Any] = mapped_column(ExactJSON)
    acMode: Mapped[Any] = mapped_column(ExactJSON)
    humidityLevel: Mapped[Any] = mapped_column(ExactJSON)
    headLightStatus: Mapped[Any] = mapped_column(ExactJSON)
    parkingBrakeStatus: Mapped[Any] = mapped_column(ExactJSON)
    parkingBrakeForce: Mapped[Any] = mapped_column(ExactJSON)
    slopeAngle: Mapped[Any] = mapped_column(ExactJSON)
    brakePedalStatus: Mapped[Any] = mapped_column(ExactJSON)
    brakePedalForce: Mapped[Any] = mapped_column(ExactJSON)
    distanceToNextVehicle: Mapped[Any] = mapped_column(ExactJSON)
    cruiseStatus: Mapped[Any] = mapped_column(ExactJSON)
    destination: Mapped[Any] = mapped_column(ExactJSON)
    frontLeftTirePressure: Mapped[Any] = mapped_column(ExactJSON)
    frontRightTirePressure: Mapped[Any] = mapped_column(ExactJSON)
    rearLeftTirePressure: Mapped[Any] = mapped_column(ExactJSON)
    rearRightTirePressure: Mapped[Any] = mapped_column(ExactJSON)
    remainingUnlockedDoors: Mapped[Any] = mapped_column(ExactJSON)
    long_context: Mapped[Any] = mapped_column(ExactJSON)


class Door(Base):
    """VehicleControlAPI's ``doorStatus``: a door and whether it is locked, in the dict's order."""

    __tablename__ = "doors"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    door: Mapped[Any] = mapped_column(ExactJSON)
    status: Mapped[Any] = mapped_column(ExactJSON)


class Folder(Base):
    """GorillaFileSystem's directories: a name, the folder it was made in and the listing it shows.

    A listing is BFCL's ``contents`` dict, named by the folder that made it; BFCL's ``mv`` gives
    the moved folder's new node the very same dict, so two folders can show one listing.
    """

    __tablename__ = "folders"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)  # the folder's id
    name: Mapped[Any] = mapped_column(ExactJSON)
    parent: Mapped[Any] = mapped_column(ExactJSON)  # a folders position, None for the root
    listing: Mapped[Any] = mapped_column(ExactJSON)  # a folders position: whose contents it shows


class File(Base):
    """GorillaFileSystem's files. A file can sit in two listings (``cp`` of a folder shares them)."""

    __tablename__ = "files"
    position: Mapped[int] = mapped_column(Integer, primary_key=True)  # the file's id
    name: Mapped[Any] = mapped_column(ExactJSON)
    content: Mapped[Any] = mapped_column(ExactJSON)


class Entry(Base):
    """One name of a listing and the folder or file it holds, in the listing's order."""

    __tablename__ = "entries"
    __table_args__ = (Index("entries_by_name", "listing", "name"),)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    listing: Mapped[Any] = mapped_column(ExactJSON)
    name: Mapped[Any] = mapped_column(ExactJSON)
    folder: Mapped[Any] = mapped_column(ExactJSON)  # a folders position, or None
    file: Mapped[Any] = mapped_column(ExactJSON)  # a files position, or None
