"""Home Search data: a seeded table of homes for sale and for rent in US cities."""

from __future__ import annotations

import random
from functools import lru_cache

from sqlalchemy import Float, Integer, String, insert
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from toolgym.worlds.api_programs.places import US_CITIES
from toolgym.worlds.base import Record

BUY_HOME_TYPES = ("house", "townhouse", "condo", "land", "multi-family", "mobile", "co-op")
RENT_HOME_TYPES = ("house", "townhouse", "condo", "apartment")
LISTINGS_PER_CITY = 30


class Base(DeclarativeBase):
    pass


class Listing(Record, Base):
    """One home on the market; home types are lower-case as the API stores them."""

    __tablename__ = "listings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String)
    city: Mapped[str] = mapped_column(String, index=True)
    buy_or_rent: Mapped[str] = mapped_column(String)
    home_type: Mapped[str] = mapped_column(String)
    price: Mapped[int] = mapped_column(Integer)  # dollars; monthly rent for rentals
    square_feet: Mapped[int] = mapped_column(Integer)
    num_beds: Mapped[int] = mapped_column(Integer)
    num_baths: Mapped[float] = mapped_column(Float)
    num_garages: Mapped[int] = mapped_column(Integer)
    num_swimming_pools: Mapped[int] = mapped_column(Integer)
    floor_number: Mapped[int] = mapped_column(Integer)
    commute_time: Mapped[int] = mapped_column(Integer)  # minutes to the city centre
    num_balconies: Mapped[int] = mapped_column(Integer)


def generate_listings(session: Session, seed: int) -> None:
    """Fill the listings table: ``LISTINGS_PER_CITY`` homes per city, from ``seed``."""
    session.execute(insert(Listing), [dict(r) for r in _listing_rows(seed)])
    session.commit()


@lru_cache(maxsize=4)
def _listing_rows(seed: int) -> tuple[dict, ...]:
    rng = random.Random(seed)
    from faker import Faker  # imported here: only generating needs it, and it is slow to import

    fake = Faker("en_US")
    fake.seed_instance(seed)
    rows = []
    for city in US_CITIES:
        for _ in range(LISTINGS_PER_CITY):
            buy_or_rent = "buy" if rng.random() < 0.55 else "rent"
            home_type = rng.choice(BUY_HOME_TYPES if buy_or_rent == "buy" else RENT_HOME_TYPES)
            beds = 0 if home_type == "land" else rng.randint(1, 6)
            square_feet = rng.randint(600, 900) + 350 * beds + rng.randint(0, 20) * 25
            price = (square_feet * rng.randint(150, 600) // 1000 * 1000 if buy_or_rent == "buy"
                     else square_feet * rng.randint(12, 40) // 10 // 50 * 50)
            multi_storey = home_type in ("condo", "apartment", "co-op")
            no_amenities = multi_storey or home_type == "land"
            rows.append({
                "address": fake.street_address(), "city": city, "buy_or_rent": buy_or_rent,
                "home_type": home_type, "price": price, "square_feet": square_feet, "num_beds": beds,
                "num_baths": 0.0 if beds == 0 else max(1.0, rng.randint(2, 2 * beds + 1) / 2),
                "num_garages": 0 if no_amenities else rng.randint(0, 3),
                "num_swimming_pools": 0 if no_amenities else rng.choice((0, 0, 0, 1, 1, 2)),
                "floor_number": rng.randint(1, 30) if multi_storey else 1,
                "commute_time": rng.randint(5, 90),
                "num_balconies": rng.randint(0, 3) if beds else 0,
            })
    return tuple(rows)
