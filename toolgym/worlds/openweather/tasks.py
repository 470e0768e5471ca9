"""Built-in OpenWeather tasks: the paper's nine call types from query templates."""

from __future__ import annotations

import random

from toolgym.worlds.demos import Demo
from toolgym.worlds.openweather.places import CITIES, ZIP_CODES
from toolgym.worlds.rest.tasks import RestTask, TaskSet

BASE = "https://api.openweathermap.org"
LANGUAGE_NAMES = {"en": "English", "fr": "French", "zh_cn": "simplified Chinese", "it": "Italian",
                  "de": "German", "ru": "Russian", "ja": "Japanese", "nl": "Dutch"}
CALL_TYPES = ("current_city", "current_zip", "current_coord", "forecast_city", "forecast_zip",
              "forecast_coord", "air_now", "air_forecast", "geocode")

TEMPLATES = {
    "current_city": ["How's the weather right now in {place}?", "What's the humidity and wind speed today in {place}?",
                     "Please tell me the current weather in {place}.", "How's the temperature at the moment in {place}?"],
    "current_zip": ["Get the weather report for today in {place}.", "How's visibility and humidity in {place} right now?",
                    "What's the current weather in area {place}?", "How's the weather outside in {place}?"],
    "current_coord": ["How's the weather now at the place with latitude = {lat} and longitute = {lon}?",
                      "Tell me the weather now where longitute is {lon} and latitude is {lat}.",
                      "Give me a current weather report for the location with (longitute, latitude) = ({lon}, {lat}).",
                      "What's the temperature right now at latitude {lat}, longitute {lon}?"],
    "forecast_city": ["What will the weather be like in the coming days in {place}?",
                      "Could you retrieve the weather forecast data for {place}?",
                      "How's the weather for the next 5 days in {place}?",
                      "Please tell me the future weather in {place}."],
    "forecast_zip": ["Do you know what the weather will be like tomorrow in area {place}?",
                     "I'd like to know the future weather in {place}.",
                     "What's the temperature forecast for the upcoming days in {place}?",
                     "Can you tell me what the weather will be like in the following days in {place}?"],
    "forecast_coord": ["Please update me with the weather in the coming days at the location with "
                       "(longitute, latitude) = ({lon}, {lat}).",
                       "Give me the weather forecast at the place where latitude = {lat} and longitute = {lon}.",
                       "What's the forecast for the week ahead at longitute {lon} and latitude {lat}?",
                       "Retrieve the weather data for the next 5 days at latitude {lat}, longitute {lon}."],
    "air_now": ["What's the current air pollution level at the location with longitute {lon} and latitude {lat}?",
                "Please give me the air quality data at latitude {lat} and longitute {lon} at this moment.",
                "How polluted is the air right now where latitude is {lat} and longitute is {lon}?",
                "Tell me the air quality now at (longitute, latitude) = ({lon}, {lat})."],
    "air_forecast": ["What's the air pollution forecast for the coming days at longitute {lon} and latitude {lat}?",
                     "Tell me the future air pollution level at the location with latitude = {lat} and longitute = {lon}.",
                     "How will the air quality be tomorrow where longitute is {lon} and latitude is {lat}?",
                     "Give me the air pollution forecast at latitude {lat}, longitute {lon}."],
    "geocode": ["Get at most {limit} geographical coordinate results for '{place}'.",
                "Please return {limit} sets of geo-coordinates of locations called {place}.",
                "Retrieve up to {limit} geo-coordinates of any place named {place}.",
                "Get the geographical coordinates of {place}. Restrict the number of responses to {limit}."],
}


def builtin_openweather(seed: int = 0, per_type: int = 12, demos_per_type: int = 2) -> TaskSet:
    """``per_type`` tasks of each of the nine call types (108 by default) and a demo pool."""
    rng = random.Random(f"openweather-tasks-{seed}")
    tasks = {}
    for n in range(per_type * len(CALL_TYPES)):
        query, action = _example(rng, CALL_TYPES[n % len(CALL_TYPES)])
        tasks[str(n)] = RestTask(task_id=str(n), query=query, action=action)
    demo_rng = random.Random(f"openweather-demos-{seed}")
    seen = {t.query for t in tasks.values()}
    demos = []
    for call_type in CALL_TYPES:
        count = 0
        while count < demos_per_type:
            query, action = _example(demo_rng, call_type)
            if query not in seen:
                seen.add(query)
                demos.append(Demo(query, action))
                count += 1
    return TaskSet(tasks=tasks, demos=demos)


def _endpoint(call_type: str) -> str:
    path = {"current": "/data/2.5/weather", "forecast": "/data/2.5/forecast", "air_now": "/data/2.5/air_pollution",
            "air_forecast": "/data/2.5/air_pollution/forecast", "geocode": "/geo/1.0/direct"}
    key = call_type if call_type in path else call_type.split("_")[0]
    return f"curl -X GET '{BASE}{path[key]}"


def _example(rng: random.Random, call_type: str) -> tuple[str, str]:
    template = rng.choice(TEMPLATES[call_type])
    lat, lon = f"{rng.uniform(-85, 85):.1f}", f"{rng.uniform(-179, 179):.1f}"
    if call_type.endswith("city"):
        name = rng.choice(CITIES)[0]
        place, location = name, "q=" + name.lower().replace(" ", "+")
    elif call_type.endswith("zip"):
        code = rng.choice(ZIP_CODES)[0]
        place, location = code, f"zip={code}"
    else:
        place, location = "", f"lat={lat}&lon={lon}"
    if call_type == "geocode":
        name = rng.choice([c[0] for c in CITIES])
        limit = rng.randint(1, 5)
        query = template.format(place=name, limit=limit)
        return query, f"{_endpoint(call_type)}?q={name.lower().replace(' ', '+')}&limit={limit}&appid={{API_KEY}}'"
    query = template.format(place=place, lat=lat, lon=lon)
    params = ""
    if call_type.startswith(("current", "forecast")):
        query, params = _options(rng, query)
    return query, f"{_endpoint(call_type)}?{location}&appid={{API_KEY}}{params}'"


def _options(rng: random.Random, query: str) -> tuple[str, str]:
    """Optional units / mode / lang, each mentioned in the query when it is in the request."""
    units = rng.choice((None, None, "standard", "metric", "imperial"))
    mode = rng.choice((None, None, "json"))
    lang = rng.choice((None, None, None, *LANGUAGE_NAMES))
    wishes, params = [], ""
    if units:
        wishes.append(f"temperatures in {units} units")
        params += f"&units={units}"
    if mode:
        wishes.append("a json-format response")
        params += "&mode=json"
    if lang:
        wishes.append(f"the description in {LANGUAGE_NAMES[lang]}")
        params += f"&lang={lang}"
    if wishes:
        query += " I'd like " + (", ".join(wishes[:-1]) + " and " if len(wishes) > 1 else "") + wishes[-1] + "."
    return query, params
