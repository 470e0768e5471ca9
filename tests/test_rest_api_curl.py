"""The REST simulator core: curl parsing, routing, and the ToolBench prompt module."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgym.envs.common.toolbench_prompt import _bm25_scores, prompt_info, retrieve_demos, system_prompt, tokenize
from toolgym.worlds.demos import Demo
from toolgym.worlds.rest import CurlError, parse_curl

OW = "https://api.openweathermap.org/data/2.5/weather"


# -- curl parsing ---------------------------------------------------------------------------
def test_parse_get_with_query_placeholders_and_plus():
    request = parse_curl(f"curl -X GET '{OW}?q=port+st.+lucie&appid={{API_KEY}}&lang=zh_cn'", {"API_KEY": "K"})
    assert request.method == "GET"
    assert request.host == "api.openweathermap.org"
    assert request.path == "/data/2.5/weather"
    assert request.params() == {"q": "port st. lucie", "appid": "K", "lang": "zh_cn"}
    assert request.body is None


def test_percent_twenty_and_plus_decode_alike():
    a = parse_curl(f"curl '{OW}?q=long%20beach'")
    b = parse_curl(f"curl '{OW}?q=long+beach'")
    assert a.params() == b.params() == {"q": "long beach"}


def test_post_body_headers_and_implicit_method():
    request = parse_curl("curl 'https://api.thecatapi.com/v1/votes' -H 'x-api-key: {API_KEY}' "
                         "--data '{\"image_id\":\"alp\", \"value\":1}'", {"API_KEY": "secret"})
    assert request.method == "POST"  # data without -X means POST, as curl does
    assert request.headers == {"x-api-key": "secret"}
    assert request.body == '{"image_id":"alp", "value":1}'


def test_get_flag_moves_data_into_query():
    request = parse_curl(f"curl -G '{OW}' -d q=reno --data-urlencode 'lang=de' -XGET")
    assert request.method == "GET"
    assert request.params() == {"q": "reno", "lang": "de"}
    assert request.body is None


@pytest.mark.parametrize("command, reason", [
    (f"curl '{OW}?q=reno' | jq .", "shell operator '|'"),
    (f"curl '{OW}?q=reno' > out.json", "shell operator '>'"),
    (f"curl '{OW}?q=reno'; rm -rf /", "shell operator ';'"),
    (f"curl '{OW}?q=reno' && curl '{OW}?q=rome'", "shell operator '&&'"),
    (f"curl {OW}?q=reno&appid=1", "shell operator '&'"),  # unquoted & is a background job
    (f"curl '{OW}?q=$(whoami)'", "shell substitution"),
    (f"curl '{OW}?q=reno'\ncurl '{OW}?q=rome'", "one curl command on one line"),
    (f"wget '{OW}?q=reno'", "not a curl command"),
    ("Action: I would call the API", "not a curl command"),
    (f"curl -o /tmp/x '{OW}?q=reno'", "unsupported curl option '-o'"),
    (f"curl '{OW}?q=reno", "No closing quotation"),
    ("curl -X GET", "no URL"),
    (f"curl '{OW}' '{OW}'", "expected one URL, got 2"),
    ("curl 'ftp://example.com/file'", "malformed URL"),
    ("", "empty command"),
])
def test_rejected_commands(command, reason):
    with pytest.raises(CurlError, match=reason.replace("(", r"\(").replace("$", r"\$")):
        parse_curl(command)


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.text(max_size=120),
    st.builds(lambda parts: "curl " + " ".join(parts), st.lists(st.sampled_from(
        ["-X", "GET", "POST", "-H", "'x: y'", "-d", "'{}'", "|", ";", "'", '"', "--data", f"'{OW}?q=a'",
         "-G", "$x", "&", "{API_KEY}", "\\", "--url", "-XDELETE", "%zz", "=="]), max_size=8)),
))
def test_parse_curl_only_raises_curl_error(text):
    try:
        parse_curl(text, {"API_KEY": "K"})
    except CurlError:
        pass


# -- ToolBench prompt -----------------------------------------------------------------------
POOL = [Demo("What's the air pollution now at lat 1 lon 2?", "curl A"),
        Demo("How is the weather in Paris today?", "curl B"),
        Demo("Get the coordinates of Reno.", "curl C"),
        Demo("Weather forecast for Paris tomorrow", "curl D")]


def test_retrieve_demos_ranks_by_bm25_and_breaks_ties_by_pool_order():
    assert retrieve_demos("weather in paris today", POOL, k=1) == [POOL[1]]
    assert retrieve_demos("paris forecast for tomorrow", POOL, k=2) == [POOL[3], POOL[0]]
    assert retrieve_demos("coordinates reno", POOL, k=1) == [POOL[2]]
    assert retrieve_demos("zzz unknown words", POOL, k=3) == POOL[:3]  # all score 0: pool order
    assert retrieve_demos("anything", POOL, k=0) == []


def test_own_bm25_matches_rank_bm25():
    rank_bm25 = pytest.importorskip("rank_bm25")
    docs = [tokenize(d.text()) for d in POOL]
    query = tokenize("weather in paris today at reno")
    expected = list(rank_bm25.BM25Okapi(docs).get_scores(query))
    assert _bm25_scores(query, docs) == pytest.approx(expected)


def test_system_prompt_layout():
    text = system_prompt("Goal.", "# doc\ncurl x", [Demo("q1", "a1")])
    assert text == ("Goal.\n\nI have the following set of API:\n\n# doc\ncurl x\n-------------\n"
                    "I have the following set of examples:\n\nTask: q1\nAction:\na1\n\n-------------\n")


def test_prompt_info_messages():
    info = prompt_info("Goal.", "# doc", POOL, "Weather in Paris?", k=1)
    assert info["demos"] == [{"query": POOL[1].query, "action": "curl B"}]
    assert info["messages"][0] == {"role": "system", "content": info["system_prompt"]}
    assert info["messages"][1] == {"role": "user", "content": "Task: Weather in Paris?\nAction:\n"}
    assert info["api_docs"] == "# doc"


def test_long_commands_are_refused_quickly():
    # shlex is quadratic in a token's length: a 1 MB URL took 77 s before the length bound
    command = f"curl -X GET '{OW}?q=" + "a" * 1_000_000 + "'"
    start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
    with pytest.raises(CurlError, match="at most 16384 are accepted"):
        parse_curl(command)
    assert time.process_time() - start < 1.0
    at_limit = f"curl -X GET '{OW}?q=" + "a" * (16_384 - len(f"curl -X GET '{OW}?q='")) + "'"
    assert len(at_limit) == 16_384 and parse_curl(at_limit).params()["q"].startswith("aaa")
