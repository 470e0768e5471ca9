"""API documentation of the simulated REST services, in the paper's prompt format."""

from __future__ import annotations

_OW = "https://api.openweathermap.org"
_OPTIONAL = """units: (optional) Units of measurement. 'standard' (default), 'metric' and 'imperial' units are available.
mode: (optional) Response format. 'json' format is used by default. To get data in 'xml' format use mode=xml.
lang: (optional) Language of the weather description. 'en' for English (default); 'fr' for French; 'zh_cn' for simplified Chinese; 'it' for Italian; 'de' for German; 'ru' for Russian; 'ja' for Japanese; 'nl' for Dutch."""
_KEY = "appid: (required) Your unique API key."


def _weather_doc(what: str, path: str, where: str, location: str, location_doc: str, extra: str = "") -> str:
    return (f"# Get the {what} data in {where}\n"
            f"curl -X GET '{_OW}{path}?{location}&appid={{API_KEY}}{{optional_params}}'\n\n"
            f"Parameters:\n{location_doc}\n{_KEY}\n{_OPTIONAL}{extra}\n")


_CITY = "q: (required) City name in lower case, spaces written as '+'."
_ZIP = "zip: (required) Zip code."
_COORD = "lat, lon: (required) Geographical coordinates (latitude, longitude)."
_CNT = "\ncnt: (optional) Number of 3-hour timestamps to return (at most 40)."

OPENWEATHER_DOCS = "\n".join([
    _weather_doc("current weather", "/data/2.5/weather", "{city}", "q={city}", _CITY),
    _weather_doc("current weather", "/data/2.5/weather", "{zipcode} area", "zip={zipcode}", _ZIP),
    _weather_doc("current weather", "/data/2.5/weather", "location with latitude={lat}, longitude={lon}",
                 "lat={lat}&lon={lon}", _COORD),
    _weather_doc("weather forecast", "/data/2.5/forecast", "{city}", "q={city}", _CITY, _CNT),
    _weather_doc("weather forecast", "/data/2.5/forecast", "{zipcode} area", "zip={zipcode}", _ZIP, _CNT),
    _weather_doc("weather forecast", "/data/2.5/forecast", "location with latitude={lat}, longitude={lon}",
                 "lat={lat}&lon={lon}", _COORD, _CNT),
    "# Get the current air pollution data in location with latitude={lat}, longitude={lon}\n"
    f"curl -X GET '{_OW}/data/2.5/air_pollution?lat={{lat}}&lon={{lon}}&appid={{API_KEY}}'\n\n"
    f"Parameters:\n{_COORD}\n{_KEY}\n",
    "# Get the forecast air pollution data in location with latitude={lat}, longitude={lon}\n"
    f"curl -X GET '{_OW}/data/2.5/air_pollution/forecast?lat={{lat}}&lon={{lon}}&appid={{API_KEY}}'\n\n"
    f"Parameters:\n{_COORD}\n{_KEY}\n",
    "# Get up to 'k' geographical coordinates of locations named 'city_name'\n"
    f"curl -X GET '{_OW}/geo/1.0/direct?q={{city_name}}&limit={{k}}&appid={{API_KEY}}'\n\n"
    f"Parameters:\nq: (required) City name in lower case, spaces written as '+'.\n"
    f"limit: (optional) Number of locations in the response (up to 5).\n{_KEY}\n",
])

_CAT = "https://api.thecatapi.com/v1"
CATAPI_DOCS = "\n".join([
    "# Delete the image with id {image_id} from the list of favorites\n"
    f"curl -X DELETE '{_CAT}/favourites/{{image_id}}'\n",
    "# Add the image with id {image_id} to the list of favorites\n"
    f"curl -X POST '{_CAT}/favourites' --data '{{\"image_id\":\"{{image_id}}\"}}'\n",
    "# Get the list of favorite cat images.\n"
    f"curl -X GET '{_CAT}/favourites'\n",
    "# Vote up the image with id {image_id}\n"
    f"curl -X POST '{_CAT}/votes' --data '{{\"image_id\":\"{{image_id}}\", \"value\":1}}'\n",
    "# Vote down the image with id {image_id}\n"
    f"curl -X POST '{_CAT}/votes' --data '{{\"image_id\":\"{{image_id}}\", \"value\":-1}}'\n",
    "# Search for cat images, with optional requirements: image size, image type, search order, number of "
    "results, and cat breeds\n"
    f"curl -X GET '{_CAT}/images/search?{{parameters}}'\n\n"
    "Parameters:\n"
    "size: (optional) Image size: 'thumb', 'small', 'med' (default) or 'full'.\n"
    "mime_types: (optional) Comma-separated image types among 'jpg', 'png' and 'gif'.\n"
    "order: (optional) 'RANDOM' (default), 'ASC' or 'DESC'.\n"
    "limit: (optional) Number of images to return, 1 (default) to 100.\n"
    "page: (optional) Page of results for 'ASC' and 'DESC' order, from 0.\n"
    "breeds: (optional) Comma-separated breed ids, e.g. 'beng,abys'.\n",
])
