"""Tables of The Cat API world: breeds, images, and the account's favourites and votes."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class CatBase(DeclarativeBase):
    pass


class Breed(CatBase):
    __tablename__ = "breeds"

    id: Mapped[str] = mapped_column(String, primary_key=True)  # four letters, e.g. "abys"
    name: Mapped[str] = mapped_column(String)
    origin: Mapped[str] = mapped_column(String)
    life_span: Mapped[str] = mapped_column(String)


class Image(CatBase):
    __tablename__ = "images"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)  # upload order: ASC / DESC sort key
    mime: Mapped[str] = mapped_column(String)  # "jpg", "png" or "gif"
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)


class ImageBreed(CatBase):
    __tablename__ = "image_breeds"

    image_id: Mapped[str] = mapped_column(ForeignKey("images.id"), primary_key=True)
    breed_id: Mapped[str] = mapped_column(ForeignKey("breeds.id"), primary_key=True)


class Favourite(CatBase):
    __tablename__ = "favourites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(String)
    image_id: Mapped[str] = mapped_column(ForeignKey("images.id"))
    sub_id: Mapped[str | None] = mapped_column(String, nullable=True)
    created_at: Mapped[str] = mapped_column(String)


class Vote(CatBase):
    __tablename__ = "votes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(String)
    image_id: Mapped[str] = mapped_column(ForeignKey("images.id"))
    sub_id: Mapped[str | None] = mapped_column(String, nullable=True)
    value: Mapped[int] = mapped_column(Integer)
    country_code: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
