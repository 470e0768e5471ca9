"""Trip Booking data: seeded trip tickets (flight, train, bus, cruise) and hotel rooms."""

from __future__ import annotations

import random
from datetime import date, timedelta
from functools import lru_cache

from sqlalchemy import Integer, String, insert
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from toolgym.worlds.api_programs.places import US_CITIES
from toolgym.worlds.base import Record

TRANSPORTATION = ("flight", "train", "bus", "cruise")
ROOM_TYPES = ("King Bed", "Queen Bed", "Double", "Luxury")
NUM_ROUND_TRIPS = 800
HOTELS_PER_CITY = 3
FIRST_DAY = date(2023, 1, 1)
DAYS = 365
# (low, high) adult fare in dollars per means of transportation
FARES = {"flight": (120, 900), "train": (40, 300), "bus": (15, 150), "cruise": (300, 2500)}
ROOM_PRICES = {"Double": (60, 180), "Queen Bed": (80, 220), "King Bed": (100, 300), "Luxury": (250, 800)}


class Base(DeclarativeBase):
    pass


class Ticket(Record, Base):
    """A one-way trip on one day; ``date`` is ISO ``YYYY-MM-DD``."""

    __tablename__ = "tickets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    transportation: Mapped[str] = mapped_column(String)
    origin: Mapped[str] = mapped_column(String, index=True)
    destination: Mapped[str] = mapped_column(String)
    date: Mapped[str] = mapped_column(String)
    departure_time: Mapped[str] = mapped_column(String)
    adult_price: Mapped[int] = mapped_column(Integer)
    child_price: Mapped[int] = mapped_column(Integer)
    seats_available: Mapped[int] = mapped_column(Integer)


class HotelRoom(Record, Base):
    """The rooms of one type in one hotel, at a price per night."""

    __tablename__ = "hotel_rooms"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hotel: Mapped[str] = mapped_column(String)
    city: Mapped[str] = mapped_column(String, index=True)
    room_type: Mapped[str] = mapped_column(String)
    price: Mapped[int] = mapped_column(Integer)
    rooms_available: Mapped[int] = mapped_column(Integer)


def generate_trips(session: Session, seed: int) -> None:
    """Fill both tables from ``seed``: round trips (an outbound and a return ticket) and hotels."""
    tickets, rooms = _rows(seed)
    session.execute(insert(Ticket), [dict(r) for r in tickets])
    session.execute(insert(HotelRoom), [dict(r) for r in rooms])
    session.commit()


@lru_cache(maxsize=4)
def _rows(seed: int) -> tuple[tuple[dict, ...], tuple[dict, ...]]:
    rng = random.Random(seed)
    from faker import Faker  # imported here: only generating needs it, and it is slow to import

    fake = Faker("en_US")
    fake.seed_instance(seed)
    tickets = []
    for _ in range(NUM_ROUND_TRIPS):
        transportation = rng.choice(TRANSPORTATION)
        origin, destination = rng.sample(US_CITIES, 2)
        leave = FIRST_DAY + timedelta(days=rng.randrange(DAYS - 20))
        back = leave + timedelta(days=rng.randint(1, 14))
        low, high = FARES[transportation]
        for frm, to, day in ((origin, destination, leave), (destination, origin, back)):
            fare = rng.randint(low, high)
            tickets.append({
                "transportation": transportation, "origin": frm, "destination": to, "date": day.isoformat(),
                "departure_time": f"{rng.randint(5, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}",
                "adult_price": fare, "child_price": fare * rng.randint(50, 90) // 100,
                "seats_available": rng.randint(1, 12),
            })
    rooms = []
    for city in US_CITIES:
        for _ in range(HOTELS_PER_CITY):
            hotel = f"{fake.last_name()} {rng.choice(('Hotel', 'Inn', 'Suites', 'Lodge', 'Resort'))}"
            for room_type in ROOM_TYPES:
                low, high = ROOM_PRICES[room_type]
                rooms.append({"hotel": hotel, "city": city, "room_type": room_type,
                              "price": rng.randint(low, high), "rooms_available": rng.randint(1, 6)})
    return tuple(tickets), tuple(rooms)
