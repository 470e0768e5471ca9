"""OpenWeather: a simulated weather REST API over seeded places and a weather model."""

from toolgym.worlds.openweather.service import HOST, openweather_service
from toolgym.worlds.openweather.tools import OpenWeatherTools
from toolgym.worlds.openweather.world import API_KEY, OpenWeatherWorld

__all__ = ["API_KEY", "HOST", "OpenWeatherTools", "OpenWeatherWorld", "openweather_service"]
