"""The WebShop catalogue table, in WebShop's product schema (``load_products``' fields)."""

from __future__ import annotations

from sqlalchemy import JSON, Float, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import Record


class WebShopBase(DeclarativeBase):
    pass


class Product(Record, WebShopBase):
    """One product. Column names follow WebShop's product dict where it has one.

    ``name`` is WebShop's ``name`` / ``Title``; ``pricing`` the one or two numbers of the
    price tag ``price_tag`` ("$x" or "$x to $y"); ``price`` the price a purchase costs (WebShop
    draws it uniformly from a range); ``options`` ``{name: [values]}``; ``title_nouns`` the nouns
    of the name (NOUN / PROPN tokens, lower-cased) that the reward's title score compares;
    ``instruction`` / ``instruction_attributes`` the synthetic instruction of the product
    (WebShop's ``items_ins_v2`` entry), from which the goals are made.
    """

    __tablename__ = "products"

    asin: Mapped[str] = mapped_column(String, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)  # catalogue order (WebShop's items_shuffle order)
    name: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text)
    bullet_points: Mapped[list] = mapped_column(JSON)
    category: Mapped[str] = mapped_column(String)
    product_category: Mapped[str] = mapped_column(String)
    query: Mapped[str] = mapped_column(String)
    pricing: Mapped[list] = mapped_column(JSON)
    price_tag: Mapped[str] = mapped_column(String)
    price: Mapped[float] = mapped_column(Float)
    options: Mapped[dict] = mapped_column(JSON)
    attributes: Mapped[list] = mapped_column(JSON)
    reviews: Mapped[list] = mapped_column(JSON)
    rating: Mapped[str] = mapped_column(String)
    main_image: Mapped[str] = mapped_column(String)
    title_nouns: Mapped[list] = mapped_column(JSON)
    instruction: Mapped[str | None] = mapped_column(Text, nullable=True)
    instruction_attributes: Mapped[list | None] = mapped_column(JSON, nullable=True)
