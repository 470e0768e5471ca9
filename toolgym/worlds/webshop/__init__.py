"""WebShop's world: a seeded product catalogue in WebShop's schema, its search, its pages and its reward."""

from toolgym.worlds.webshop.world import WebShopWorld, webshop_dict

__all__ = ["WebShopWorld", "webshop_dict"]
