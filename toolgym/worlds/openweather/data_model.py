"""Tables of the OpenWeather world: cities and zip codes with their coordinates."""

from __future__ import annotations

from sqlalchemy import Float, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class OpenWeatherBase(DeclarativeBase):
    pass


class City(OpenWeatherBase):
    """A named place that geocoding and weather by city name know."""

    __tablename__ = "cities"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # OpenWeather's city id
    name: Mapped[str] = mapped_column(String, index=True)
    name_key: Mapped[str] = mapped_column(String, index=True)  # lower-case name for look-ups
    state: Mapped[str | None] = mapped_column(String, nullable=True)  # US state code
    country: Mapped[str] = mapped_column(String)  # ISO 3166 alpha-2
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)
    population: Mapped[int] = mapped_column(Integer)
    timezone: Mapped[int] = mapped_column(Integer)  # shift from UTC in seconds


class ZipCode(OpenWeatherBase):
    """A postal code area that weather by zip code knows."""

    __tablename__ = "zip_codes"

    zip: Mapped[str] = mapped_column(String, primary_key=True)
    country: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)
    timezone: Mapped[int] = mapped_column(Integer)
