"""OpenWeather-v0 and CatAPI-v0: metrics with hand-computed expectations, oracle, official data."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolgym  # noqa: F401  (registers the envs)
from toolgym.envs.base import INVALID_ACTIONS
from toolgym.envs.rest_api.env import key_f1
from toolgym.eval.cli import main as cli_main
from toolgym.worlds.catapi.data_model import Favourite, Vote
from toolgym.worlds.rest.tasks import RestTask

OW = "https://api.openweathermap.org"
CAT = "https://api.thecatapi.com/v1"
# 13 top-level keys: coord weather base main visibility wind clouds dt sys timezone id name cod
CURRENT_KEYS = 13


@pytest.fixture(scope="module")
def weather_env():
    return gym.make("OpenWeather-v0").unwrapped


@pytest.fixture(scope="module")
def cat_env():
    return gym.make("CatAPI-v0").unwrapped


def play(env, task: RestTask, action, scoring: str = "paper"):
    """Run one episode of a hand-made task; returns (observation, reward, metrics), the metrics
    without ``invalid_actions`` (test_invalid_actions_are_commands_not_read checks it)."""
    env.task_data.tasks[task.task_id] = task
    env.scoring = scoring
    try:
        env.reset(options={"task_id": task.task_id})
        observation, reward, terminated, truncated, info = env.step(action)
    finally:
        env.scoring = "paper"
        del env.task_data.tasks[task.task_id]
        env._truths.pop(task.task_id)  # hand-made tasks reuse ids
    assert terminated and not truncated
    info["metrics"].pop(INVALID_ACTIONS)
    return observation, reward, info["metrics"]


def weather_task(query: str) -> RestTask:
    return RestTask("t-weather", "What's the weather in Reno in metric units?",
                    f"curl -X GET '{OW}/data/2.5/weather?{query}'")


def body(observation: str):
    status, _, text = observation.partition("\n")
    return json.loads(text)


# -- OpenWeather ------------------------------------------------------------------------------
def test_exact_and_reordered_requests_succeed(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    _, reward, m = play(weather_env, task, task.action)
    assert (reward, m) == (1.0, {"executable": 1, "success": 1, "key_f1": 1.0})
    # Same canonical request: parameter order, %20, an explicit default and an ignored extra
    # parameter do not change the response.
    same = f"curl '{OW}/data/2.5/weather?units=metric&lang=en&foo=bar&appid={{API_KEY}}&q=Reno'"
    assert play(weather_env, task, same)[2] == {"executable": 1, "success": 1, "key_f1": 1.0}


def test_wrong_units_changes_only_main(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    truth = body(play(weather_env, task, task.action)[0])
    observation, reward, m = play(weather_env, task, f"curl '{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}'")
    kelvin = body(observation)
    assert kelvin["main"]["temp"] == pytest.approx(truth["main"]["temp"] + 273.15, abs=0.011)
    assert reward == 0.0
    assert m == {"executable": 1, "success": 0, "key_f1": pytest.approx(12 / 13)}  # "main" differs
    imperial = f"curl '{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}&units=imperial'"
    observation, _, m = play(weather_env, task, imperial)
    assert body(observation)["main"]["temp"] == pytest.approx(truth["main"]["temp"] * 9 / 5 + 32, abs=0.011)
    assert m["key_f1"] == pytest.approx(11 / 13)  # imperial also gives the wind in mph: "main" and "wind" differ


def test_wrong_language_changes_only_the_description(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric&lang=de")
    truth = body(play(weather_env, task, task.action)[0])
    french = f"curl '{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}&units=metric&lang=fr'"
    observation, _, m = play(weather_env, task, french)
    assert body(observation)["weather"][0]["id"] == truth["weather"][0]["id"]
    assert body(observation)["weather"][0]["description"] != truth["weather"][0]["description"]
    assert m == {"executable": 1, "success": 0, "key_f1": pytest.approx(12 / 13)}


@pytest.mark.parametrize("action, status, message", [
    (f"curl '{OW}/data/2.5/weather?q=reno&units=metric'", 401, "Invalid API key"),  # missing key
    (f"curl '{OW}/data/2.5/weather?q=reno&appid=wrong'", 401, "Invalid API key"),
    (f"curl '{OW}/data/2.5/weather?appid={{API_KEY}}&units=metric'", 400, "Nothing to geocode"),  # missing q
    (f"curl '{OW}/data/2.5/weather?q=atlantis&appid={{API_KEY}}'", 404, "city not found"),
    (f"curl '{OW}/data/2.5/weather?zip=00000&appid={{API_KEY}}'", 404, "city not found"),
    (f"curl '{OW}/data/2.5/weather?lat=95&lon=10&appid={{API_KEY}}'", 400, "wrong latitude"),
    (f"curl '{OW}/data/2.5/weather?lat=10&appid={{API_KEY}}'", 400, "Nothing to geocode"),
    (f"curl '{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}&units=celsius'", 400, "units: Input should be"),
    (f"curl '{OW}/data/2.5/weather?q=reno&zip=89501&appid={{API_KEY}}'", 400, "give one location"),
    (f"curl -X POST '{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}'", 405, "method POST not allowed"),
    (f"curl '{OW}/data/3.0/weather?q=reno&appid={{API_KEY}}'", 404, "no such endpoint"),
])
def test_errors_are_not_executable(weather_env, action, status, message):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    observation, reward, m = play(weather_env, task, action)
    assert observation.startswith(f"HTTP {status}\n")
    assert message in observation
    assert (reward, m) == (0.0, {"executable": 0, "success": 0, "key_f1": 0.0})


def test_invalid_actions_are_commands_not_read(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    counts = {}
    for name, action in [("pipe", task.action + " | jq .main"), ("prose", "It is sunny in Reno."),
                         ("http 404", f"curl '{OW}/data/3.0/weather?q=reno&appid={{API_KEY}}'"),
                         ("right", task.action)]:
        weather_env.task_data.tasks[task.task_id] = task
        try:
            weather_env.reset(options={"task_id": task.task_id})
            counts[name] = weather_env.step(action)[4]["metrics"][INVALID_ACTIONS]
        finally:
            del weather_env.task_data.tasks[task.task_id]
            weather_env._truths.pop(task.task_id)
    # a request that was read and answered with an error is executable=0 but not invalid
    assert counts == {"pipe": 1, "prose": 1, "http 404": 0, "right": 0}


def test_pipe_and_other_text_are_not_executable(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    observation, _, m = play(weather_env, task, task.action + " | jq .main")
    assert observation.startswith("Not executable: shell operator '|'")
    assert m == {"executable": 0, "success": 0, "key_f1": 0.0}
    chatty = "Sure! Here it is:\n" + task.action
    assert play(weather_env, task, chatty)[2]["executable"] == 0
    # the released evaluator keeps the first curl line: paper_compat does the same
    assert play(weather_env, task, chatty, scoring="paper_compat")[2]["success"] == 1


def test_paper_compat_crashes_on_xml_and_unquoted_end(weather_env):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    xml = task.action[:-1] + "&mode=xml'"
    observation, _, m = play(weather_env, task, xml)
    assert observation.startswith("HTTP 200\n<?xml") and m["executable"] == 1 and m["success"] == 0
    assert play(weather_env, task, xml, scoring="paper_compat")[2]["executable"] == 0
    unquoted = f"curl -X GET \"{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}&units=metric\""
    assert play(weather_env, task, unquoted)[2]["success"] == 1
    assert play(weather_env, task, unquoted, scoring="paper_compat")[2]["executable"] == 0


def test_geocoding_limit_and_forecast_count(weather_env):
    task = RestTask("t-geo", "Coordinates of up to 3 places named Lakewood.",
                    f"curl -X GET '{OW}/geo/1.0/direct?q=lakewood&limit=3&appid={{API_KEY}}'")
    observation, _, m = play(weather_env, task, task.action)
    places = body(observation)
    assert [(p["name"], p["state"]) for p in places] == [("Lakewood", "CO"), ("Lakewood", "NJ"),
                                                          ("Lakewood", "CA")]  # most populous first
    # limit=2 returns the first two places: list positions 0 and 1 match, 2 is missing
    m = play(weather_env, task, task.action.replace("limit=3", "limit=2"))[2]
    assert m == {"executable": 1, "success": 0, "key_f1": pytest.approx(0.8)}  # P=1, R=2/3
    forecast = RestTask("t-fc", "Forecast", f"curl '{OW}/data/2.5/forecast?zip=94024&appid={{API_KEY}}&cnt=3'")
    data = body(play(weather_env, forecast, forecast.action)[0])
    assert data["cnt"] == 3 and len(data["list"]) == 3
    assert [e["dt"] - data["list"][0]["dt"] for e in data["list"]] == [0, 10800, 21600]


def test_builtin_tasks_and_prompt(weather_env):
    ids = weather_env.task_ids()
    assert len(ids) == 108 and len(weather_env.task_data.demos) == 18
    demo_queries = {d.query for d in weather_env.task_data.demos}
    assert not demo_queries & {t.query for t in weather_env.task_data.tasks.values()}
    _, info = weather_env.reset(options={"task_id": "0"})
    assert len(info["prompt"]["demos"]) == 3
    assert info["prompt"]["system_prompt"].count("\nTask: ") == 3
    assert "/data/2.5/air_pollution/forecast" in info["prompt"]["api_docs"]
    assert info["messages"][1]["content"].endswith("\nAction:\n")


# -- The Cat API ------------------------------------------------------------------------------
def test_add_favourite_changes_the_world(cat_env):
    task = RestTask("t-fav", "Add image abc to favourites",
                    f"curl -X POST '{CAT}/favourites' --data '{{\"image_id\":\"abc\"}}'",
                    setup=(("not_favourite", "abc"),))
    observation, reward, m = play(cat_env, task, task.action)
    assert reward == 1.0 and m == {"executable": 1, "success": 1, "key_f1": 1.0}
    assert body(observation)["message"] == "SUCCESS"
    rows = cat_env.world.session.query(Favourite).filter_by(image_id="abc").all()
    assert [r.id for r in rows] == [body(observation)["id"]]
    # adding an image that already is a favourite is an error, and changes nothing
    already = RestTask("t-fav2", "Add image abc to favourites", task.action, setup=(("favourite", "abc"),))
    observation, _, m = play(cat_env, already, already.action)
    assert observation.startswith("HTTP 400\nDUPLICATE_FAVOURITE") and m["executable"] == 0
    assert cat_env.world.session.query(Favourite).filter_by(image_id="abc").count() == 1
    # two --data parts are joined with "&", which is not JSON
    observation, _, m = play(cat_env, task, task.action + " -d 'x'")
    assert observation.startswith("HTTP 400\nthe body is not valid JSON") and m["executable"] == 0


@pytest.mark.parametrize("action, status, message", [
    (f"curl -X POST '{CAT}/favourites' --data '{{\"image_id\":\"no-such-image\"}}'", 400, "INVALID_IMAGE"),
    (f"curl -X POST '{CAT}/favourites' --data '{{\"image\":\"abc\"}}'", 400, "image_id: Field required"),
    (f"curl -X GET '{CAT}/favourites' --data '{{\"image_id\":\"abc\"}}'", 200, "SUCCESS"),  # GET ignores a body
    (f"curl -X PUT '{CAT}/favourites' --data '{{\"image_id\":\"abc\"}}'", 405, "method PUT not allowed"),
    (f"curl -X POST '{CAT}/favourites' -H 'x-api-key: nope' --data '{{\"image_id\":\"abc\"}}'", 401,
     "AUTHENTICATION_ERROR"),
])
def test_cat_errors(cat_env, action, status, message):
    task = RestTask("t-fav", "Add image abc to favourites",
                    f"curl -X POST '{CAT}/favourites' --data '{{\"image_id\":\"abc\"}}'",
                    setup=(("not_favourite", "abc"),))
    observation, _, m = play(cat_env, task, action)
    if status == 200:
        assert observation.startswith("HTTP 200") and m == {"executable": 1, "success": 0, "key_f1": 0.0}
        return
    assert observation.startswith(f"HTTP {status}\n") and message in observation
    assert m["executable"] == 0
    assert cat_env.world.session.query(Favourite).filter_by(image_id="abc").count() == 0


def test_vote_value_and_response(cat_env):
    task = RestTask("t-vote", "Vote down abc",
                    f"curl -X POST '{CAT}/votes' --data '{{\"image_id\":\"abc\", \"value\":-1}}'",
                    setup=(("image", "abc"),))
    observation, _, m = play(cat_env, task, task.action)
    vote = body(observation)
    assert (vote["message"], vote["image_id"], vote["value"]) == ("SUCCESS", "abc", -1)
    assert cat_env.world.session.get(Vote, vote["id"]).value == -1
    # voting up instead: 6 keys, "value" differs -> F1 5/6
    m = play(cat_env, task, task.action.replace('"value":-1', '"value":1'))[2]
    assert m == {"executable": 1, "success": 0, "key_f1": pytest.approx(5 / 6)}
    observation, _, m = play(cat_env, task, task.action.replace('"value":-1', '"value":2'))
    assert "INVALID_VALUE" in observation and m["executable"] == 0


def test_delete_is_compared_verbatim(cat_env):
    task = RestTask("t-del", "Remove dv0 from my favourites", f"curl -X DELETE '{CAT}/favourites/dv0'",
                    compare_string_only=True, setup=(("favourite", "dv0"),))
    assert play(cat_env, task, task.action)[2] == {"executable": 1, "success": 1, "key_f1": 1.0}
    assert cat_env.world.session.query(Favourite).filter_by(image_id="dv0").count() == 0
    spaced = f"curl  -X\tDELETE   '{CAT}/favourites/dv0'"
    assert play(cat_env, task, spaced)[2]["success"] == 1
    # same request, other quoting: executes fine but is not verbatim the ground truth
    double = f'curl -X DELETE "{CAT}/favourites/dv0"'
    assert play(cat_env, task, double)[2] == {"executable": 1, "success": 0, "key_f1": 0.0}
    # the released evaluator counts every mismatching DELETE as a crash
    assert play(cat_env, task, double, scoring="paper_compat")[2]["executable"] == 0
    observation, _, m = play(cat_env, task, f"curl -X DELETE '{CAT}/favourites/zzz9'")
    assert "NO_SUCH_FAVOURITE" in observation and m["executable"] == 0


def test_image_search_filters_order_and_random_seed(cat_env):
    action = f"curl '{CAT}/images/search?size=thumb&mime_types=gif&order=DESC&limit=3&breeds=beng,abys'"
    task = RestTask("t-search", "3 gif images of beng or abys cats, newest first", action)
    images = body(play(cat_env, task, action)[0])
    assert 0 < len(images) <= 3 and all(i["url"].endswith(".gif") for i in images)
    assert all({b["id"] for b in i["breeds"]} & {"beng", "abys"} for i in images)
    assert all(max(i["width"], i["height"]) <= 200 for i in images)
    asc = body(play(cat_env, task, action.replace("DESC", "ASC"))[0])
    assert play(cat_env, task, action.replace("DESC", "ASC"))[2]["success"] == 0 and asc != images
    random_task = RestTask("t-random", "3 random cats", f"curl '{CAT}/images/search?order=RANDOM&limit=3'")
    first = play(cat_env, random_task, random_task.action)
    assert first[2]["success"] == 1  # seeded: the ground truth on a copy of the state draws the same
    other = gym.make("CatAPI-v0").unwrapped
    assert play(other, random_task, random_task.action)[0] == first[0]


def test_key_f1_matches_the_original_definition():
    assert key_f1({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4}) == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert key_f1([1, 2], [1, 2, 3]) == pytest.approx(0.8)
    assert key_f1("<xml/>", "<xml/>") == 1.0


# -- rejected input never changes the world ---------------------------------------------------
_FRAGMENTS = ["curl", "-X", "POST", "DELETE", "GET", f"'{CAT}/favourites'", f"'{CAT}/votes'",
              f"'{CAT}/favourites/dv0'", "--data", "'{\"image_id\":\"dv0\"}'", "'{\"image_id\":1}'",
              "'{\"value\":7}'", "|", ";", ">", "'", "-H", "'x-api-key: bad'", "{API_KEY}", "$(id)",
              f"'{CAT}/images/search?limit=0'", f"'{CAT}/images/search?page=-1&order=up'", "\n"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.lists(st.sampled_from(_FRAGMENTS), max_size=7).map(" ".join), st.text(max_size=60),
                 st.dictionaries(st.text(max_size=5), st.integers(), max_size=2)))
def test_fuzzed_commands_never_raise_nor_change_state_when_rejected(cat_env, action):
    task = cat_env.task_data.tasks["0"]
    cat_env.reset(options={"task_id": task.task_id})
    before = cat_env.world.state_hash()
    observation, reward, terminated, truncated, info = cat_env.step(action)
    assert isinstance(observation, str) and terminated
    if info["metrics"]["executable"] == 0:
        assert cat_env.world.state_hash() == before


_WEATHER_FRAGMENTS = ["curl", "-X", "GET", "POST", f"'{OW}/data/2.5/weather?q=reno&appid={{API_KEY}}'",
                      f"'{OW}/data/2.5/forecast?lat=1e400&lon=-0&cnt=99999999999999999999&appid={{API_KEY}}'",
                      f"'{OW}/geo/1.0/direct?q=%ff%fe&limit=-3&appid={{API_KEY}}'", "'", "\\", "-G", "-d",
                      "q=,,,", f"'{OW}/data/2.5/air_pollution?lat=nan&lon=inf&appid={{API_KEY}}'", "&", "#"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_WEATHER_FRAGMENTS), max_size=6).map(" ".join))
def test_fuzzed_weather_commands_never_raise(weather_env, action):
    weather_env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = weather_env.step(action)
    assert terminated and info["metrics"]["executable"] in (0, 1)
    assert observation.startswith(("HTTP ", "Not executable: "))


# -- oracle, official data, tooling -------------------------------------------------------------
@pytest.mark.parametrize("env_id, n", [("OpenWeather-v0", 108), ("CatAPI-v0", 102)])
def test_oracle_scores_100_on_builtin(env_id, n):
    env = gym.make(env_id).unwrapped
    total = 0
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        total += env.step(env.oracle_action())[1]
    assert (len(env.task_ids()), total) == (n, n)


@pytest.mark.official
@pytest.mark.parametrize("env_id", ["OpenWeather-v0", "CatAPI-v0"])
@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
def test_oracle_scores_100_on_official(official_data, env_id, scoring):
    env = gym.make(env_id, tasks="official", data_dir=str(official_data), scoring=scoring).unwrapped
    assert env.task_ids() == [str(i) for i in range(100)]
    results = []
    for task_id in env.task_ids():
        env.reset(options={"task_id": task_id})
        results.append(env.step(env.oracle_action())[4]["metrics"])
    assert all(r == {"executable": 1, "success": 1, "key_f1": 1.0} for r in results)


def test_official_needs_data(monkeypatch):
    monkeypatch.delenv("TOOLGYM_DATA", raising=False)
    with pytest.raises(ValueError, match="needs the official data"):
        gym.make("CatAPI-v0", tasks="official")


@pytest.mark.parametrize("env_id", ["OpenWeather-v0", "CatAPI-v0"])
def test_two_envs_answer_the_same(env_id):
    a, b = gym.make(env_id).unwrapped, gym.make(env_id).unwrapped
    assert a.reset(seed=5)[0] == b.reset(seed=5)[0]
    assert a.step(a.oracle_action())[0] == b.step(b.oracle_action())[0]


def test_replay_through_the_cli(tmp_path, capsys):
    tasks = gym.make("CatAPI-v0").unwrapped.task_data.tasks
    lines = [{"task_id": "0", "actions": [tasks["0"].action]},
             {"task_id": "1", "actions": [tasks["1"].action + " | cat"]}]
    replay = tmp_path / "replay.jsonl"
    replay.write_text("\n".join(json.dumps(line) for line in lines))
    out = tmp_path / "results.jsonl"
    assert cli_main(["eval", "CatAPI-v0", "--agent", f"replay:{replay}", "--episodes", "2", "--out", str(out),
                     "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "Executable" in table and "Success" in table and "Key F1" in table
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["metrics"]["success"] for r in results] == [1, 0]
    assert results[1]["trajectory"][0]["observation"].startswith("Not executable: shell operator '|'")


# -- raw completions and tool calls ---------------------------------------------------------------
def play_info(env, task: RestTask, action, scoring: str = "paper") -> dict:
    """Like play, but returns the final info."""
    env.task_data.tasks[task.task_id] = task
    env.scoring = scoring
    try:
        env.reset(options={"task_id": task.task_id})
        info = env.step(action)[4]
        info["metrics"].pop(INVALID_ACTIONS)
        return info
    finally:
        env.scoring = "paper"
        del env.task_data.tasks[task.task_id]
        env._truths.pop(task.task_id)


@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
def test_the_prompted_action_cue_and_code_fences_are_accepted(weather_env, scoring):
    task = weather_task("q=reno&appid={API_KEY}&units=metric")
    for completion in (f"Action: {task.action}", f"Action:\n```bash\n{task.action}\n```",
                       f"{task.action}\n\nTask: What's the weather in Rome?\nAction:\ncurl -X GET 'x'"):
        info = play_info(weather_env, task, completion, scoring)
        assert info["metrics"]["success"] == 1 and info["command"] == task.action, completion


def test_tools_are_the_endpoints(weather_env, cat_env):
    _, info = weather_env.reset(options={"task_id": "0"})
    assert [t["function"]["name"] for t in info["tools"]] == [
        "current_weather", "forecast", "air_pollution", "air_pollution_forecast", "geocode_direct"]
    current = info["tools"][0]["function"]
    assert current["description"].endswith("(GET https://api.openweathermap.org/data/2.5/weather)")
    assert {"q", "zip", "lat", "lon", "units"} <= set(current["parameters"]["properties"])
    assert "api_key" not in current["parameters"]["properties"]
    _, info = cat_env.reset(options={"task_id": "0"})
    tools = {t["function"]["name"]: t["function"] for t in info["tools"]}
    assert list(tools) == ["search_images", "list_favourites", "add_favourite", "delete_favourite", "vote"]
    assert tools["delete_favourite"]["description"].endswith(
        "(DELETE https://api.thecatapi.com/v1/favourites/{favourite_id})")
    assert tools["vote"]["parameters"]["required"] == ["image_id", "value"]


@pytest.mark.parametrize("scoring", ["paper", "paper_compat"])
@pytest.mark.parametrize("action", [
    {"name": "current_weather", "arguments": {"q": "reno", "units": "metric"}},
    '{"name": "current_weather", "arguments": {"q": "reno", "units": "metric"}}',
    {"type": "function", "function": {"name": "current_weather", "arguments": '{"q": "reno", "units": "metric"}'}},
    'current_weather(q="reno", units="metric")',
    'Action: current_weather(q="reno", units="metric")',
])
def test_a_tool_call_is_judged_as_its_curl_command(weather_env, action, scoring):
    task = weather_task("q=reno&units=metric&appid={API_KEY}")
    info = play_info(weather_env, task, action, scoring)
    assert info["command"] == task.action
    assert info["metrics"] == {"executable": 1, "success": 1, "key_f1": 1.0}


def test_tool_calls_of_the_cat_api(cat_env):
    task = RestTask("t-del", "Remove dv0 from my favourites", f"curl -X DELETE '{CAT}/favourites/dv0'",
                    compare_string_only=True, setup=(("favourite", "dv0"),))
    call = {"name": "delete_favourite", "arguments": {"favourite_id": "dv0"}}
    for scoring in ("paper", "paper_compat"):  # also verbatim the ground truth
        assert play_info(cat_env, task, call, scoring)["metrics"] == {"executable": 1, "success": 1, "key_f1": 1.0}
    vote = RestTask("t-vote", "Vote up abc", f"curl -X POST '{CAT}/votes' --data '{{\"image_id\":\"abc\", \"value\":1}}'",
                    setup=(("image", "abc"),))
    info = play_info(cat_env, vote, 'vote(image_id="abc", value=1)')
    assert info["command"] == f"curl -X POST '{CAT}/votes' --data '{{\"image_id\": \"abc\", \"value\": 1}}'"
    assert info["metrics"]["success"] == 1
    search = RestTask("t-search", "3 gif images of beng or abys cats, newest first",
                      f"curl '{CAT}/images/search?mime_types=gif&order=DESC&limit=3&breeds=beng,abys'")
    call = {"name": "search_images", "arguments": {"mime_types": "gif", "order": "DESC", "limit": 3,
                                                   "breeds": ["beng", "abys"]}}
    assert play_info(cat_env, search, call)["metrics"]["success"] == 1


@pytest.mark.parametrize("action, error", [
    ({"name": "weather_now", "arguments": {"q": "reno"}}, "unknown tool 'weather_now'; the tools are current_weather"),
    ({"name": "current_weather", "arguments": {"city": "reno"}}, "unknown argument(s) of current_weather: city"),
    ({"name": "current_weather", "arguments": {"q": {"name": "reno"}}}, "argument 'q' of current_weather must be"),
    ({"name": "current_weather", "arguments": "q=reno"}, "arguments of current_weather must be a JSON object"),
    ('{"name": "current_weather", "arguments": {', "malformed JSON"),
    ('current_weather(q=reno)', "arguments of current_weather must be literals"),
])
def test_bad_tool_calls_are_not_executable(weather_env, action, error):
    task = weather_task("q=reno&units=metric&appid={API_KEY}")
    weather_env.task_data.tasks[task.task_id] = task
    try:
        weather_env.reset(options={"task_id": task.task_id})
        observation, reward, terminated, _, info = weather_env.step(action)
    finally:
        del weather_env.task_data.tasks[task.task_id]
        weather_env._truths.pop(task.task_id)
    assert observation.startswith("Not executable: ") and error in observation
    assert reward == 0.0 and terminated and info["metrics"]["executable"] == 0 and info["command"] is None


def test_tool_call_values_cannot_inject_shell_or_quotes(cat_env):
    task = RestTask("t-vote2", "Vote up abc", f"curl -X POST '{CAT}/votes' --data '{{\"image_id\":\"abc\", \"value\":1}}'",
                    setup=(("image", "abc"),))
    info = play_info(cat_env, task, {"name": "vote", "arguments": {"image_id": "a'b $(x) `y`", "value": 1}})
    assert info["command"].endswith("""--data '{"image_id": "a\\u0027b \\u0024(x) \\u0060y\\u0060", "value": 1}'""")
    assert info["metrics"]["executable"] == 0  # answered 404: no such image, as the same curl command
    observation = play_info(cat_env, task, {"name": "delete_favourite", "arguments": {"favourite_id": "../votes"}})
    assert observation["command"] == f"curl -X DELETE '{CAT}/favourites/..%2Fvotes'"
