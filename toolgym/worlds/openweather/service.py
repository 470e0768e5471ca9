"""The OpenWeather REST service: ``api.openweathermap.org`` routed to OpenWeatherTools."""

from __future__ import annotations

from toolgym.worlds.openweather.tools import OpenWeatherTools, error_body
from toolgym.worlds.openweather.world import OpenWeatherWorld
from toolgym.worlds.rest import RestService, Route

HOST = "api.openweathermap.org"
ROUTES = [
    Route("GET", "/data/2.5/weather", "current_weather"),
    Route("GET", "/data/2.5/forecast", "forecast"),
    Route("GET", "/data/2.5/air_pollution", "air_pollution"),
    Route("GET", "/data/2.5/air_pollution/forecast", "air_pollution_forecast"),
    Route("GET", "/geo/1.0/direct", "geocode_direct"),
]


def openweather_service(world: OpenWeatherWorld) -> RestService:
    """The service over ``world``; the API key is the ``appid`` query parameter."""
    return RestService(OpenWeatherTools(world), HOST, ROUTES, error_body,
                       credential=lambda request: request.params().get("appid"))
