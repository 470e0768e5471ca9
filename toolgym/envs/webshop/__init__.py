"""WebShop-v0: WebShop's shop (pages, actions, reward) over a generated or the official catalogue."""

from toolgym.envs.webshop.env import WebShopEnv

__all__ = ["WebShopEnv"]
