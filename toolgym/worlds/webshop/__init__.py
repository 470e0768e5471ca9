"""WebShop's world: a seeded product catalogue in WebShop's schema, its search, its pages, a
shopper's session with its tools, and its reward."""

from toolgym.worlds.webshop.session import WebShopSession
from toolgym.worlds.webshop.world import WebShopWorld, webshop_dict

__all__ = ["WebShopSession", "WebShopWorld", "webshop_dict"]
