"""The Cat API: a simulated REST API over seeded cat images, favourites and votes."""

from toolgym.worlds.catapi.service import HOST, cat_service
from toolgym.worlds.catapi.tools import CatTools
from toolgym.worlds.catapi.world import API_KEY, BREEDS, CatWorld

__all__ = ["API_KEY", "BREEDS", "HOST", "CatTools", "CatWorld", "cat_service"]
