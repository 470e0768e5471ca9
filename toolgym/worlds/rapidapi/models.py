"""The RapidAPI catalogue and the entities behind its tools, as SQLAlchemy 2.0 models."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Category(Base):
    """A RapidAPI category ("Data", "Sports", ...)."""

    __tablename__ = "categories"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)


class Collection(Base):
    """A RapidAPI collection: tools of several categories grouped by use (ToolLLM's I3 instructions)."""

    __tablename__ = "collections"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    description: Mapped[str] = mapped_column(String, default="")


class Tool(Base):
    """A RapidAPI tool (a service with several APIs).

    ``split`` says which generalisation set the tool belongs to: ``train`` (seen tools),
    ``test_tool`` (held-out tools of seen categories), ``test_category`` (tools of held-out
    categories) or ``official`` (a StableToolBench tool). ``entity_kind`` names the kind of
    entity its APIs read and write (generated tools only).
    """

    __tablename__ = "tools"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String)
    standard_name: Mapped[str] = mapped_column(String, index=True)
    description: Mapped[str] = mapped_column(String, default="")
    category_id: Mapped[int] = mapped_column(ForeignKey("categories.id"), index=True)
    collection_id: Mapped[int | None] = mapped_column(ForeignKey("collections.id"), nullable=True)
    split: Mapped[str] = mapped_column(String, default="train")
    entity_kind: Mapped[str | None] = mapped_column(String, nullable=True)
    __table_args__ = (UniqueConstraint("category_id", "name"),)


class Api(Base):
    """One API of a tool, as ToolBench's API documents describe it.

    ``required_parameters`` / ``optional_parameters`` are lists of ``{"name", "type",
    "description", "default"}`` (ToolBench's fields; ``type`` one of STRING, NUMBER, BOOLEAN,
    ENUM, DATE (YYYY-MM-DD), ...) plus ``arg`` (the name in the function schema) and, for
    generated ENUM parameters, ``enum``. ``template_response`` is ToolBench's
    ``template_response``. ``kind`` is what a generated API does (``search``, ``details``,
    ``list_by``, ``top_by``, ``field``, ``create``, ``update``, ``delete``) or ``official``;
    ``field`` the entity field it is about.
    """

    __tablename__ = "apis"
    id: Mapped[int] = mapped_column(primary_key=True)
    tool_id: Mapped[int] = mapped_column(ForeignKey("tools.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    description: Mapped[str] = mapped_column(String, default="")
    method: Mapped[str] = mapped_column(String, default="GET")
    kind: Mapped[str] = mapped_column(String, default="official")
    field: Mapped[str | None] = mapped_column(String, nullable=True)
    required_parameters: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    optional_parameters: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    template_response: Mapped[Any] = mapped_column(JSON, nullable=True)


class Entity(Base):
    """A record behind a generated tool (a movie, a team, a recipe ...).

    ``key`` is the id the APIs show; ``data`` the entity's fields.
    """

    __tablename__ = "entities"
    id: Mapped[int] = mapped_column(primary_key=True)
    tool_id: Mapped[int] = mapped_column(ForeignKey("tools.id"))
    key: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    __table_args__ = (UniqueConstraint("tool_id", "key"), Index("ix_entities_tool_name", "tool_id", "name"))
