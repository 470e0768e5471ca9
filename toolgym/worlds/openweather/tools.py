"""The OpenWeather endpoints as typed tools, with the real API's response shapes.

Each tool answers one endpoint (``/data/2.5/weather``, ``/data/2.5/forecast``,
``/data/2.5/air_pollution``, ``/data/2.5/air_pollution/forecast``, ``/geo/1.0/direct``) with
the JSON body the real API returns, or raises :class:`ApiError` with its error body
(``{"cod": "404", "message": "city not found"}`` and the like).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal
from xml.sax.saxutils import escape

from toolgym.worlds.openweather.world import OpenWeatherWorld, Sample
from toolgym.worlds.rest.service import ApiError
from toolgym.worlds.tools import READ, Toolkit, tool

Units = Literal["standard", "metric", "imperial"]
Mode = Literal["json", "xml"]
Lang = Literal["en", "fr", "zh_cn", "it", "de", "ru", "ja", "nl"]
APP = "OpenWeather"
FORECAST_STEPS = 40  # 5 days of 3-hour steps
AIR_FORECAST_HOURS = 96


def error_body(status: int, message: str) -> dict:
    """OpenWeather's error body (``cod`` as a string, as the real API sends it)."""
    return {"cod": str(status), "message": message}


class OpenWeatherTools(Toolkit):
    """Current weather, 5-day forecast, air pollution and direct geocoding."""

    world: OpenWeatherWorld

    @tool("current_weather", kind=READ, app=APP, injected=("api_key",))
    def current_weather(self, api_key: str | None, q: str | None = None, zip: str | None = None,
                        lat: float | None = None, lon: float | None = None, units: Units = "standard",
                        mode: Mode = "json", lang: Lang = "en") -> dict | str:
        """Current weather at a place given by city name, zip code or coordinates.

        Args:
            api_key: The caller's API key (the ``appid`` parameter).
            q: City name, optionally with state and country codes: "reno", "reno,nv,us".
            zip: Zip code, optionally with a country code: "94024" or "94024,us".
            lat: Latitude in degrees (-90 to 90), with lon.
            lon: Longitude in degrees (-180 to 180), with lat.
            units: "standard" (Kelvin), "metric" (Celsius) or "imperial" (Fahrenheit, mph).
            mode: Response format, "json" or "xml".
            lang: Language of the weather description.
        """
        self._check_key(api_key)
        place = self._place(q, zip, lat, lon)
        now = self.world.unix_now()
        sample = self.world.weather(place["lat"], place["lon"], now)
        sunrise, sunset = _sun(place["lat"], place["lon"], now)
        sys = {"country": place["country"]} if place["country"] else {}
        body = {
            "coord": {"lon": place["lon"], "lat": place["lat"]},
            "weather": [_condition(sample, lang)],
            "base": "stations",
            "main": _main(sample, units),
            "visibility": sample.visibility,
            "wind": _wind(sample, units, gust=False),
            "clouds": {"all": sample.clouds},
            "dt": now,
            "sys": {**sys, "sunrise": sunrise, "sunset": sunset},
            "timezone": place["timezone"],
            "id": place["id"],
            "name": place["name"],
            "cod": 200,
        }
        return _xml("current", body) if mode == "xml" else body

    @tool("forecast", kind=READ, app=APP, injected=("api_key",))
    def forecast(self, api_key: str | None, q: str | None = None, zip: str | None = None,
                 lat: float | None = None, lon: float | None = None, units: Units = "standard",
                 mode: Mode = "json", lang: Lang = "en", cnt: int | None = None) -> dict | str:
        """5-day forecast in 3-hour steps at a place given by city name, zip code or coordinates.

        Args:
            api_key: The caller's API key (the ``appid`` parameter).
            q: City name, optionally with state and country codes.
            zip: Zip code, optionally with a country code.
            lat: Latitude in degrees (-90 to 90), with lon.
            lon: Longitude in degrees (-180 to 180), with lat.
            units: "standard" (Kelvin), "metric" (Celsius) or "imperial" (Fahrenheit, mph).
            mode: Response format, "json" or "xml".
            lang: Language of the weather descriptions.
            cnt: Number of 3-hour steps to return (1 to 40, all 40 by default).
        """
        self._check_key(api_key)
        if cnt is not None and cnt < 1:
            raise ApiError(400, error_body(400, f"{cnt} is not a valid cnt: it must be at least 1"))
        place = self._place(q, zip, lat, lon)
        now = self.world.unix_now()
        first = (now // 10800 + 1) * 10800
        steps = []
        for k in range(min(cnt or FORECAST_STEPS, FORECAST_STEPS)):
            ts = first + k * 10800
            sample = self.world.weather(place["lat"], place["lon"], ts)
            main = _main(sample, units)
            main.update(sea_level=main["pressure"], grnd_level=main["pressure"] - 3, temp_kf=0)
            steps.append({
                "dt": ts, "main": main, "weather": [_condition(sample, lang)],
                "clouds": {"all": sample.clouds}, "wind": _wind(sample, units, gust=True),
                "visibility": sample.visibility, "pop": sample.pop,
                "sys": {"pod": "d" if sample.daylight else "n"},
                "dt_txt": datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
            })
        sunrise, sunset = _sun(place["lat"], place["lon"], now)
        body = {
            "cod": "200", "message": 0, "cnt": len(steps), "list": steps,
            "city": {"id": place["id"], "name": place["name"],
                     "coord": {"lat": place["lat"], "lon": place["lon"]}, "country": place["country"],
                     "population": place["population"], "timezone": place["timezone"],
                     "sunrise": sunrise, "sunset": sunset},
        }
        return _xml("weatherdata", body) if mode == "xml" else body

    @tool("air_pollution", kind=READ, app=APP, injected=("api_key",))
    def air_pollution(self, api_key: str | None, lat: float | None = None, lon: float | None = None) -> dict:
        """Current air pollution (air quality index and pollutant concentrations) at coordinates.

        Args:
            api_key: The caller's API key (the ``appid`` parameter).
            lat: Latitude in degrees (-90 to 90).
            lon: Longitude in degrees (-180 to 180).
        """
        self._check_key(api_key)
        lat, lon = self._coordinates(lat, lon)
        hour = self.world.unix_now() // 3600 * 3600
        return {"coord": {"lon": lon, "lat": lat}, "list": [self._air(lat, lon, hour)]}

    @tool("air_pollution_forecast", kind=READ, app=APP, injected=("api_key",))
    def air_pollution_forecast(self, api_key: str | None, lat: float | None = None,
                               lon: float | None = None) -> dict:
        """Hourly air pollution forecast for the next four days at coordinates.

        Args:
            api_key: The caller's API key (the ``appid`` parameter).
            lat: Latitude in degrees (-90 to 90).
            lon: Longitude in degrees (-180 to 180).
        """
        self._check_key(api_key)
        lat, lon = self._coordinates(lat, lon)
        hour = self.world.unix_now() // 3600 * 3600
        return {"coord": {"lon": lon, "lat": lat},
                "list": [self._air(lat, lon, hour + 3600 * k) for k in range(AIR_FORECAST_HOURS)]}

    @tool("geocode_direct", kind=READ, app=APP, injected=("api_key",))
    def geocode_direct(self, api_key: str | None, q: str | None = None, limit: int = 5) -> list[dict]:
        """Coordinates of the places with a given name, most populous first.

        Args:
            api_key: The caller's API key (the ``appid`` parameter).
            q: City name, optionally with state and country codes.
            limit: Most places to return (1 to 5).
        """
        self._check_key(api_key)
        if not q or not q.strip():
            raise ApiError(400, error_body(400, "Nothing to geocode"))
        if limit < 1:
            raise ApiError(400, error_body(400, f"{limit} is not a valid limit: it must be at least 1"))
        result = []
        for city in self._cities(q)[:min(limit, 5)]:
            entry = {"name": city.name, "local_names": {"en": city.name}, "lat": city.lat, "lon": city.lon,
                     "country": city.country}
            if city.state:
                entry["state"] = city.state
            result.append(entry)
        return result

    # -- helpers ----------------------------------------------------------------------------
    def _check_key(self, api_key: str | None) -> None:
        if api_key != self.world.aux["api_key"]:
            raise ApiError(401, {"cod": 401, "message": "Invalid API key. Please see "
                                 "https://openweathermap.org/faq#error401 for more info."})

    def _coordinates(self, lat: float | None, lon: float | None) -> tuple[float, float]:
        if lat is None or lon is None:
            raise ApiError(400, error_body(400, "Nothing to geocode"))
        if not -90 <= lat <= 90:
            raise ApiError(400, error_body(400, "wrong latitude"))
        if not -180 <= lon <= 180:
            raise ApiError(400, error_body(400, "wrong longitude"))
        return round(lat, 4), round(lon, 4)

    def _cities(self, q: str):
        parts = [p.strip() for p in q.split(",")]
        if len(parts) > 3 or not parts[0]:
            return []
        state = parts[1] if len(parts) == 3 else None
        country = parts[-1] if len(parts) >= 2 else None
        return self.world.cities_named(parts[0], state, country)

    def _place(self, q: str | None, zip: str | None, lat: float | None, lon: float | None) -> dict:
        given = [name for name, v in (("q", q), ("zip", zip), ("lat/lon", lat if lat is not None else lon))
                 if v is not None]
        if not given:
            raise ApiError(400, error_body(400, "Nothing to geocode"))
        if len(given) > 1:
            raise ApiError(400, error_body(400, f"give one location, not {' and '.join(given)}"))
        if q is not None:
            cities = self._cities(q)
            if not cities:
                raise ApiError(404, error_body(404, "city not found"))
            c = cities[0]
            return {"id": c.id, "name": c.name, "country": c.country, "lat": c.lat, "lon": c.lon,
                    "population": c.population, "timezone": c.timezone}
        if zip is not None:
            code, _, country = zip.partition(",")
            area = self.world.zip_code(code, country or "US")
            if area is None:
                raise ApiError(404, error_body(404, "city not found"))
            return {"id": 0, "name": area.name, "country": area.country, "lat": area.lat, "lon": area.lon,
                    "population": 0, "timezone": area.timezone}
        lat, lon = self._coordinates(lat, lon)
        city = self.world.nearest_city(lat, lon)
        if city is None:
            return {"id": 0, "name": "", "country": "", "lat": lat, "lon": lon, "population": 0,
                    "timezone": round(lon / 15) * 3600}
        return {"id": city.id, "name": city.name, "country": city.country, "lat": lat, "lon": lon,
                "population": city.population, "timezone": city.timezone}

    def _air(self, lat: float, lon: float, ts: int) -> dict:
        air = self.world.air(lat, lon, ts)
        return {"main": {"aqi": air.aqi}, "components": air.components, "dt": ts}


def _temperature(celsius: float, units: str) -> float:
    if units == "metric":
        return round(celsius, 2)
    if units == "imperial":
        return round(celsius * 9 / 5 + 32, 2)
    return round(celsius + 273.15, 2)


def _main(s: Sample, units: str) -> dict:
    return {"temp": _temperature(s.temp, units), "feels_like": _temperature(s.feels_like, units),
            "temp_min": _temperature(s.temp_min, units), "temp_max": _temperature(s.temp_max, units),
            "pressure": s.pressure, "humidity": s.humidity}


def _wind(s: Sample, units: str, gust: bool) -> dict:
    factor = 2.23694 if units == "imperial" else 1.0
    wind = {"speed": round(s.wind_speed * factor, 2), "deg": s.wind_deg}
    if gust:
        wind["gust"] = round(s.wind_gust * factor, 2)
    return wind


def _condition(s: Sample, lang: str) -> dict:
    c = s.condition
    return {"id": c.id, "main": c.main, "description": c.descriptions[lang],
            "icon": c.icon + ("d" if s.daylight else "n")}


def _sun(lat: float, lon: float, ts: int) -> tuple[int, int]:
    """Approximate sunrise and sunset (Unix time) of the day of ``ts`` (near the equinox)."""
    noon = ts // 86400 * 86400 + int((12 - lon / 15) * 3600)
    half_day = int(6 * 3600 + 1800 * lat / 90)
    return noon - half_day, noon + half_day


def _xml(root: str, value) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root}>{_xml_items(value)}</{root}>'


def _xml_items(value) -> str:
    if isinstance(value, dict):
        return "".join(f"<{k}>{_xml_items(v)}</{k}>" for k, v in value.items())
    if isinstance(value, list):
        return "".join(f"<item>{_xml_items(v)}</item>" for v in value)
    return escape(str(value))
