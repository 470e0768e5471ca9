"""The Home Search world: the listings table and the criteria of the search being built."""

from __future__ import annotations

from toolgym.worlds.base import World
from toolgym.worlds.homesearch.data_model import Base, generate_listings
from toolgym.worlds.homesearch.tools import HomeSearchAPI


class HomeSearchWorld(World):
    """Seeded listings; ``aux["criteria"]`` holds the criteria set so far (empty at the start),
    ``aux["defaults"]`` those of them that ``search()`` filled in."""

    Base = Base
    generator_modules = ("toolgym.worlds.api_programs.places",)

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.aux = {"criteria": {}, "defaults": {}}
        self.api = HomeSearchAPI(self)

    def populate(self) -> None:
        generate_listings(self.session, self.seed)
