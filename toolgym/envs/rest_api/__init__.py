"""The SambaNova ToolBench REST tasks: OpenWeather-v0 and CatAPI-v0."""

from toolgym.envs.rest_api.env import CatAPIEnv, OpenWeatherEnv, RestApiEnv

__all__ = ["CatAPIEnv", "OpenWeatherEnv", "RestApiEnv"]
