"""The Trip Booking world: tickets, hotel rooms and the criteria of the search being built."""

from __future__ import annotations

from toolgym.worlds.base import World
from toolgym.worlds.tripbooking.data_model import Base, generate_trips
from toolgym.worlds.tripbooking.tools import TripBookingAPI


class TripBookingWorld(World):
    """Seeded tickets and hotels; ``aux["criteria"]`` holds the criteria set so far,
    ``aux["defaults"]`` those of them that ``search()`` filled in."""

    Base = Base
    generator_modules = ("toolgym.worlds.api_programs.places",)

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.aux = {"criteria": {}, "defaults": {}}
        self.api = TripBookingAPI(self)

    def populate(self) -> None:
        generate_trips(self.session, self.seed)
