"""The OpenWeather world: seeded places plus a deterministic weather model.

Weather exists everywhere on Earth, not only at known places, so it is not a table: it is a
pure function of the world's seed, a coordinate (rounded to 0.01 degree) and a simulated
time slot. The same canonical request therefore always gets the same answer, and the
numbers are plausible (warmer near the equator, warmer in the afternoon).
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import select

from toolgym.worlds.base import World
from toolgym.worlds.openweather.data_model import City, OpenWeatherBase, ZipCode
from toolgym.worlds.openweather.places import CITIES, ZIP_CODES

API_KEY = "b1b15e88fa797225412429c1c50c122a1"
LANGUAGES = ("en", "fr", "zh_cn", "it", "de", "ru", "ja", "nl")


@dataclass(frozen=True)
class Condition:
    id: int
    main: str
    icon: str
    descriptions: dict[str, str]  # language -> description


def _condition(id: int, main: str, icon: str, *texts: str) -> Condition:
    return Condition(id, main, icon, dict(zip(LANGUAGES, texts)))


# Weighted by how often they are drawn; texts in the order of LANGUAGES.
CONDITIONS = (
    (_condition(800, "Clear", "01", "clear sky", "ciel dégagé", "晴", "cielo sereno", "Klarer Himmel",
                "ясно", "晴天", "onbewolkt"), 5),
    (_condition(801, "Clouds", "02", "few clouds", "peu nuageux", "少云", "poche nuvole", "Ein paar Wolken",
                "небольшая облачность", "薄い雲", "licht bewolkt"), 3),
    (_condition(802, "Clouds", "03", "scattered clouds", "partiellement nuageux", "多云", "nubi sparse",
                "Mäßig bewölkt", "переменная облачность", "雲", "verspreide bewolking"), 3),
    (_condition(803, "Clouds", "04", "broken clouds", "nuageux", "阴，多云", "nuvoloso",
                "Überwiegend bewölkt", "облачно с прояснениями", "曇りがち", "half bewolkt"), 2),
    (_condition(804, "Clouds", "04", "overcast clouds", "couvert", "阴", "cielo coperto", "Bedeckt",
                "пасмурно", "厚い雲", "zwaar bewolkt"), 2),
    (_condition(500, "Rain", "10", "light rain", "légère pluie", "小雨", "pioggia leggera", "Leichter Regen",
                "небольшой дождь", "小雨", "lichte regen"), 2),
    (_condition(501, "Rain", "10", "moderate rain", "pluie modérée", "中雨", "pioggia moderata",
                "Mäßiger Regen", "дождь", "適度な雨", "matige regen"), 1),
    (_condition(211, "Thunderstorm", "11", "thunderstorm", "orage", "雷阵雨", "temporale", "Gewitter",
                "гроза", "雷雨", "onweersbui"), 1),
    (_condition(701, "Mist", "50", "mist", "brume", "薄雾", "foschia", "trüb", "туман", "霧", "mist"), 1),
)
SNOW = _condition(600, "Snow", "13", "light snow", "légères chutes de neige", "小雪", "neve leggera",
                  "Leichter Schneefall", "небольшой снег", "小雪", "lichte sneeuw")


@dataclass(frozen=True)
class Sample:
    """The weather at one place and time, in SI units (°C, m/s, hPa, metres)."""

    temp: float
    feels_like: float
    temp_min: float
    temp_max: float
    pressure: int
    humidity: int
    visibility: int
    wind_speed: float
    wind_deg: int
    wind_gust: float
    clouds: int
    pop: float
    condition: Condition
    daylight: bool


@dataclass(frozen=True)
class AirSample:
    aqi: int
    components: dict[str, float]


class OpenWeatherWorld(World):
    """Places (cities, zip codes) in the database; weather from a seeded model."""

    Base = OpenWeatherBase
    generator_modules = ("toolgym.worlds.openweather.places",)

    def __init__(self, url: str = "sqlite://", seed: int = 0, now: datetime = datetime(2023, 9, 11, 9)):
        super().__init__(url=url, seed=seed, now=now)
        self.aux["api_key"] = API_KEY
        self._city_points: list[tuple[int, float, float]] | None = None  # (id, lat, lon) by id

    def populate(self) -> None:
        rng = random.Random(f"openweather-cities-{self.seed}")
        ids = rng.sample(range(4_000_000, 6_000_000), len(CITIES))
        with self.atomic():
            for city_id, (name, state, country, lat, lon, population, offset) in zip(ids, CITIES):
                self.session.add(City(id=city_id, name=name, name_key=name.lower(), state=state,
                                      country=country, lat=lat, lon=lon, population=population,
                                      timezone=offset * 3600))
            for code, name, lat, lon, offset in ZIP_CODES:
                self.session.add(ZipCode(zip=code, country="US", name=name, lat=lat, lon=lon,
                                         timezone=offset * 3600))

    # -- places ----------------------------------------------------------------------------
    def cities_named(self, name: str, state: str | None = None, country: str | None = None) -> list[City]:
        """Places called ``name`` (any case), most populous first."""
        query = select(City).where(City.name_key == name.strip().lower())
        if state:
            query = query.where(City.state == state.strip().upper())
        if country:
            query = query.where(City.country == country.strip().upper())
        return list(self.session.scalars(query.order_by(City.population.desc(), City.id)))

    def zip_code(self, code: str, country: str = "US") -> ZipCode | None:
        return self.session.get(ZipCode, (code.strip(), country.strip().upper()))

    def nearest_city(self, lat: float, lon: float, within_km: float = 50.0) -> City | None:
        if self._city_points is None:  # read once: the places never change (every tool only reads)
            self._city_points = self.sql().execute("SELECT id, lat, lon FROM cities ORDER BY id").fetchall()
        best, best_km = None, within_km
        for city_id, city_lat, city_lon in self._city_points:
            km = _distance_km(lat, lon, city_lat, city_lon)
            if km <= best_km:
                best, best_km = city_id, km
        return None if best is None else self.session.get(City, best)

    # -- weather model ----------------------------------------------------------------------
    def weather(self, lat: float, lon: float, ts: int) -> Sample:
        """The weather at a coordinate at Unix time ``ts`` (constant within 3-hour slots)."""
        return _weather(self.seed, lat, lon, ts // 10800 * 10800)

    def air(self, lat: float, lon: float, ts: int) -> AirSample:
        """Air pollutant concentrations (μg/m³) at a coordinate for the hour of ``ts``."""
        aqi, components = _air(self.seed, lat, lon, ts // 3600)
        return AirSample(aqi=aqi, components=dict(components))

    def unix_now(self) -> int:
        return int(self.clock.now().replace(tzinfo=timezone.utc).timestamp())


# The weather model is a pure function of (seed, coordinate, time slot); a forecast asks for
# 40 slots, each drawing from two sha256-seeded streams, so results are kept.
@functools.lru_cache(maxsize=1 << 16)
def _weather(seed: int, lat: float, lon: float, slot: int) -> Sample:
    """The weather of a 3-hour slot (starting at Unix time ``slot``) at a coordinate."""
    climate = _rng(seed, "climate", lat, lon, slot // 86400)
    here = _rng(seed, "weather", lat, lon, slot)
    local_hour = ((slot + 5400) / 3600 + lon / 15) % 24
    mean = 29 - 0.0075 * lat * lat + climate.uniform(-4, 4)
    temp = mean + 5 * math.cos(2 * math.pi * (local_hour - 15) / 24) + here.uniform(-1.5, 1.5)
    humidity = here.randint(25, 100)
    wind = round(here.uniform(0, 12), 2)
    condition = _weighted(here, CONDITIONS)
    if temp < 0 and condition.main in ("Rain", "Thunderstorm"):
        condition = SNOW
    clouds = {800: 0, 801: 20, 802: 40, 803: 75}.get(condition.id, 100) if condition.main != "Mist" else 90
    return Sample(
        temp=round(temp, 2),
        feels_like=round(temp - wind * 0.4 + (humidity - 50) * 0.03, 2),
        temp_min=round(temp - here.uniform(0, 2.5), 2),
        temp_max=round(temp + here.uniform(0, 2.5), 2),
        pressure=here.randint(990, 1035),
        humidity=humidity,
        visibility=10000 if condition.main in ("Clear", "Clouds") else here.randint(1500, 9000),
        wind_speed=wind,
        wind_deg=here.randint(0, 359),
        wind_gust=round(wind * here.uniform(1.1, 1.8), 2),
        clouds=clouds,
        pop=round(here.uniform(0.3, 1.0), 2) if condition.main in ("Rain", "Thunderstorm", "Snow") else 0,
        condition=condition,
        daylight=6 <= local_hour < 19,
    )


@functools.lru_cache(maxsize=1 << 16)
def _air(seed: int, lat: float, lon: float, hour: int) -> tuple[int, tuple[tuple[str, float], ...]]:
    """The AQI and the pollutant concentrations (name, value) at a coordinate in an hour."""
    r = _rng(seed, "air", lat, lon, hour)
    components = {"co": r.uniform(150, 600), "no": r.uniform(0, 6), "no2": r.uniform(0.3, 40),
                  "o3": r.uniform(10, 140), "so2": r.uniform(0.1, 15), "pm2_5": r.uniform(0.5, 60),
                  "pm10": r.uniform(1, 90), "nh3": r.uniform(0, 6)}
    components = {k: round(v, 2) for k, v in components.items()}
    aqi = 1 + sum(components["pm2_5"] > limit for limit in (10, 25, 50, 75))
    return aqi, tuple(components.items())


def _rng(seed: int, kind: str, lat: float, lon: float, bucket: int) -> random.Random:
    # + 0.0 makes -0.0 and 0.0 the same place.
    key = f"{seed}:{kind}:{round(lat, 2) + 0.0:.2f}:{round(lon, 2) + 0.0:.2f}:{bucket}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def _weighted(rng: random.Random, options):
    total = sum(w for _, w in options)
    pick = rng.uniform(0, total)
    for value, weight in options:
        pick -= weight
        if pick <= 0:
            return value
    return options[-1][0]


def _distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0 * 2 * math.asin(min(1.0, math.sqrt(a)))
