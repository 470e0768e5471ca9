"""``toolgym view``: the page lists a results file's episodes with filters and pages, shows each
as a timeline with its world diff, puts another run beside it, and draws untrusted text as text.
Browser tests drive Debian's chromium with playwright (the browser extra), as test_serve_browser."""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from toolgym.eval.cli import main
from toolgym.eval.view import Run, compare, make_server, page, provenance_warnings

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Results files: ToolTalk by the oracle and by the random agent, and a file of three envs."""
    folder = tmp_path_factory.mktemp("runs")
    files = {}
    for name, env_id, kwargs, agent in [("oracle", "ToolTalk-v0", ["--env-kwarg", "text_similarity=lexical"], "oracle"),
                                        ("random", "ToolTalk-v0", ["--env-kwarg", "text_similarity=lexical"], "random"),
                                        ("appbench", "AppBench-v0", [], "oracle"),
                                        ("sheets", "GoogleSheets-v0", [], "oracle")]:
        files[name] = folder / f"{name}.jsonl"
        assert main(["eval", env_id, *kwargs, "--agent", agent, "--episodes", "12", "--no-progress",
                     "--out", str(files[name])]) == 0
    files["mixed"] = folder / "mixed.jsonl"
    files["mixed"].write_text("".join(files[k].read_text() for k in ("oracle", "appbench", "sheets")))
    return files


def open_page(browser, html_file):
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    viewer.goto(f"file://{html_file}")
    viewer.wait_for_selector("#episodes tbody tr")
    return viewer


def test_view_writes_one_static_page(runs, tmp_path, capsys):
    out = tmp_path / "view.html"
    assert main(["view", str(runs["oracle"]), str(runs["random"]), "--html", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    document = out.read_text()
    assert document.startswith("<!DOCTYPE html>") and document.count("</script>") == 2
    assert '"name": "oracle.jsonl"' in document and '"name": "random.jsonl"' in document


def test_records_carry_the_prompt_given_at_reset(runs):
    import gymnasium as gym

    record = json.loads(runs["appbench"].read_text().splitlines()[0])
    env = gym.make("AppBench-v0").unwrapped
    _, info = env.reset(seed=record["seed"], options={"task_id": record["task_id"]})
    assert record["prompt"] == {"messages": info["messages"], "tools": [t["function"]["name"] for t in info["tools"]]}
    sheets = json.loads(runs["sheets"].read_text().splitlines()[0])["prompt"]
    assert sheets["messages"][0]["role"] in ("system", "user") and sheets["messages"][-1]["content"]


def test_view_refuses_a_hostile_file_with_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"env": "ToolTalk-v0", "task_id": ["x"]}\n')
    assert main(["view", str(bad), "--html", str(tmp_path / "v.html")]) == 2
    assert capsys.readouterr().err.startswith(f"toolgym: error: {bad}:1: task_id: Input should be a valid string")
    assert not (tmp_path / "v.html").exists()


def test_view_serves_summaries_and_each_record_on_demand(runs, tmp_path):
    changing = tmp_path / "changing.jsonl"
    changing.write_bytes(runs["oracle"].read_bytes())
    lines = changing.read_text().splitlines()
    server = make_server([Run.read(changing)], port=0)
    assert server.server_address[0] == "127.0.0.1"
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        document = urllib.request.urlopen(f"{root}/", timeout=10).read().decode()
        assert '"name": "changing.jsonl"' in document and '"served": true' in document
        assert json.loads(lines[3])["trajectory"][0]["observation"][:40] not in document  # summaries only
        assert urllib.request.urlopen(f"{root}/record/0/3", timeout=10).read().decode() == lines[3]
        for missing in ("/other", "/record/0/12", "/record/1/0", "/record/0/-1", "/record/0/\u0661"):
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(f"{root}{urllib.parse.quote(missing)}", timeout=10)
            assert answer.value.code == 404, missing
        changing.write_text("\n".join(reversed(lines)) + "\n")  # another file now: refused, never misread
        with pytest.raises(urllib.error.HTTPError) as changed:
            urllib.request.urlopen(f"{root}/record/0/3", timeout=10)
        assert changed.value.code == 409 and changed.value.read() == b"the results file changed since view read it\n"
    finally:
        server.shutdown()
        server.server_close()


def test_records_are_found_where_the_checker_numbered_their_lines(runs, tmp_path):
    lines = runs["oracle"].read_text().splitlines()[:3]
    odd = tmp_path / "odd.jsonl"  # str.splitlines ends a line at a form feed too: numbering must agree
    odd.write_text("\x0c\n".join(lines) + "\r\n")
    run = Run.read(odd)
    assert [run.record_text(i) for i in range(3)] == lines
    assert [run.served_record(i) for i in range(3)] == lines


def test_served_viewer_fetches_the_episode_it_shows(browser, runs):
    server = make_server([Run.read(runs["oracle"]), Run.read(runs["random"])], port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        viewer = browser.new_page(viewport={"width": 1400, "height": 900})
        fetched = []
        viewer.on("request", lambda request: fetched.append(request.url.split("/", 3)[3]))
        viewer.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        viewer.wait_for_selector("#episodes tbody tr")
        assert viewer.inner_text("#shown") == "12 of 12 episodes" and fetched == [""]
        assert summary_facts(viewer, 0)["episodes"] == summary_facts(viewer, 1)["episodes"] == "12"  # served too
        wins = viewer.locator("#compare tbody td").all_text_contents()[2:]
        assert wins == ["12", "0", "0", "12"]  # the oracle beats the random agent on every task
        viewer.locator("#episodes tbody tr").nth(4).click()
        viewer.wait_for_selector("#detail .run h3")
        record = json.loads(runs["oracle"].read_text().splitlines()[4])
        assert fetched == ["", "record/0/4", "record/1/4"]
        assert record["trajectory"][-1]["observation"][:60] in viewer.inner_text("#detail")
    finally:
        server.shutdown()
        server.server_close()


def test_the_viewer_filters_pages_and_shows_a_timeline_with_the_world_diff(browser, runs, tmp_path):
    out = tmp_path / "mixed.html"
    out.write_text(page(runs["mixed"]))
    viewer = open_page(browser, out)
    assert viewer.inner_text("#shown") == "36 of 36 episodes"
    for env_id, table in [("ToolTalk-v0", "alarms"), ("AppBench-v0", None), ("GoogleSheets-v0", None)]:
        viewer.select_option("#f-env", env_id)
        assert viewer.inner_text("#shown") == "12 of 36 episodes"
        assert {r.inner_text() for r in viewer.locator("#episodes tbody td:nth-child(2)").all()} == {env_id}
        records = [json.loads(line) for line in runs["mixed"].read_text().splitlines()]
        changed = next(r for r in records if r["env"] == env_id and r["world_diff"])
        viewer.fill("#f-task", changed["task_id"])
        viewer.locator("#episodes tbody tr").first.click()
        detail = viewer.inner_text("#detail")
        assert changed["task_id"] in detail and "what the episode changed in the world" in detail
        for name, change in changed["world_diff"].items():
            counts = change["counts"]
            assert (f"{name}: {counts['added']} added, {counts['changed']} changed, {counts['deleted']} deleted"
                    in detail)
        if table:
            assert table in changed["world_diff"]
        steps = viewer.locator("#detail .step")
        assert steps.count() == len(changed["trajectory"])
        viewer.click("#detail .prompt summary")  # the prompt, folded above the first step
        shown_prompt = viewer.inner_text("#detail .prompt")
        assert changed["prompt"]["messages"][-1]["content"].strip().splitlines()[0] in shown_prompt
        assert all(name in shown_prompt for name in changed["prompt"]["tools"])
        viewer.fill("#f-task", "")
    viewer.select_option("#f-env", "")
    viewer.select_option("#f-success", "1")
    assert viewer.inner_text("#shown") == "36 of 36 episodes"  # the oracle succeeds everywhere
    viewer.select_option("#f-success", "0")
    assert viewer.inner_text("#shown") == "0 of 36 episodes"


def test_a_second_run_stands_beside_each_episode(browser, runs, tmp_path):
    out = tmp_path / "against.html"
    out.write_text(page(runs["oracle"], runs["random"]))
    viewer = open_page(browser, out)
    header = [h.inner_text() for h in viewer.locator("#head th").all()]
    assert header[-2:] == ["run 2: success", "run 2: return"]
    viewer.locator("#episodes tbody tr").nth(2).click()
    titles = [t.inner_text() for t in viewer.locator("#detail .run h3").all()]
    first = json.loads(runs["oracle"].read_text().splitlines()[2])["task_id"]
    assert titles == [f"oracle.jsonl: {first}", f"random.jsonl: {first}"]
    shots = Path(os.environ.get("TOOLGYM_SCREENSHOTS", tmp_path))
    viewer.screenshot(path=str(shots / "viewer.png"))


def test_untrusted_text_is_drawn_as_text(browser, runs, tmp_path):
    record = json.loads(runs["oracle"].read_text().splitlines()[0])
    record["task_id"] = "</script><script>document.title='owned'</script>"
    record["trajectory"][0]["observation"] = "<img src=x onerror=\"document.title='owned'\">"
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(json.dumps(record) + "\n")
    out = tmp_path / "hostile.html"
    out.write_text(page(hostile))
    viewer = open_page(browser, out)
    viewer.locator("#episodes tbody tr").first.click()
    assert viewer.title() == "toolgym view"
    assert record["task_id"] in viewer.inner_text("#episodes tbody")
    assert record["trajectory"][0]["observation"] in viewer.inner_text("#detail")


def test_ten_thousand_episodes_open_paged(browser, runs, tmp_path):
    lines = runs["oracle"].read_text().splitlines()
    big = tmp_path / "big.jsonl"
    with big.open("w") as file:
        for i in range(10_000):
            record = json.loads(lines[i % len(lines)])
            record["task_id"] = f"{record['task_id']}#{i}"
            file.write(json.dumps(record) + "\n")
    out = tmp_path / "big.html"
    out.write_text(page(big))  # how long it takes: benchmarks/bench_view.py (no wall-clock bound in a test)
    viewer = open_page(browser, out)
    assert viewer.inner_text("#shown") == "10000 of 10000 episodes" and viewer.inner_text("#page") == "page 1 of 200"
    assert viewer.locator("#episodes tbody tr").count() == 50  # pages, not one giant DOM
    viewer.click("#next")
    assert viewer.inner_text("#page") == "page 2 of 200"
    document = out.read_text()
    assert document.count('"trajectory"') == 0 and document.count('\\"trajectory\\"') == 10_000  # records as strings


# -- hostile results files (issue 38) -------------------------------------------------------------
HOSTILE = ["<!--<script>", "</script><script>window.owned = 1</script>", "a & b &amp; c",
           "<img src=x onerror=\"window.owned = 1\">", "'\"]]></script>-->", "<![CDATA[", "\u2028\u2029"]
# A success the list shows as text, and how: what a results file may hold where a number should be.
ODD_SUCCESS = [([1], "[1]"), ({"x": 1}, '{"x": 1}'), (10**400, "1" + "0" * 38 + "\u2026"), (float("nan"), "nan"),
               (float("inf"), "inf"), ("yes", '"yes"'), (2**53 + 1, str(2**53 + 1)), (True, "1"), (0.5, "0.5"),
               (1.0, "1"), (None, "")]


def hostile_file(runs, folder: Path) -> tuple[Path, list[dict]]:
    """A results file whose task ids, splits, agents, actions, observations, LLM completions, metrics
    and provenance hold HOSTILE text and whose successes are ODD_SUCCESS, built from AppBench
    episodes (its table reads no ``success``)."""
    base = [json.loads(line) for line in runs["appbench"].read_text().splitlines()]
    records = []
    for i, (success, _) in enumerate(ODD_SUCCESS):
        record = json.loads(json.dumps(base[i % len(base)]))
        text = HOSTILE[i % len(HOSTILE)]
        record["task_id"] = f"{i} {text}"
        record["trajectory"][0]["action"] = text
        record["trajectory"][0]["observation"] = f"observed {text}"
        record["metrics"] = {**record["metrics"], "success": success, text: text, "odd": success}
        record["return"] = 10**400 if i == 2 else float("nan") if i == 3 else record["return"]
        record["split"], record["agent"] = f"split {text}", f"agent {text}"
        record["trajectory"][0]["llm"] = {"text": text, "finish_reason": text, "completion_token_ids": [1]}
        record["usage"] = {"prompt_tokens": 2**60 if i == 0 else i, "completion_tokens": 1, "calls": 1}
        record["provenance"] = {"commit": text, text: text}
        records.append(record)
    path = folder / "hostile.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


def page_data(document: str) -> dict:
    """The JSON of the page's data element, checked to hold no character that HTML reads."""
    opening = '<script id="data" type="application/json">'
    start = document.index(opening) + len(opening)
    text = document[start:document.index("</script>", start)]
    assert not {"<", ">", "&"} & set(text)
    return json.loads(text)


def test_hostile_text_is_escaped_in_the_page_data(runs, tmp_path):
    path, records = hostile_file(runs, tmp_path)
    document = page(path)
    data = page_data(document)
    assert document.count("</script>") == 2 and "<!--" not in document  # the data element and the script
    assert [s[0] for s in data["runs"][0]["summaries"]] == [r["task_id"] for r in records]
    shown = [json.loads(text) for text in data["runs"][0]["records"]]
    assert [s["trajectory"][0]["action"] for s in shown] == [r["trajectory"][0]["action"] for r in records]
    assert shown[0]["metrics"][HOSTILE[0]] == HOSTILE[0] and shown[5]["metrics"]["success"] == "yes"
    assert shown[4]["metrics"]["success"] == "inf" and shown[3]["return"] == "nan"  # what JSON.parse cannot hold
    served = page_data(page(path, served=True))  # the served page: summaries only, as safe
    assert [s[0] for s in served["runs"][0]["summaries"]] == [r["task_id"] for r in records]


def test_odd_metric_values_are_shown_as_text(runs, tmp_path, capsys):
    path, records = hostile_file(runs, tmp_path)
    run = Run.read(path)
    assert [s[4] for s in run.summaries] == [shown for _, shown in ODD_SUCCESS]
    assert run.summaries[2][5] == "1" + "0" * 38 + "\u2026" and run.summaries[3][5] == "nan"  # returns as text
    record = json.loads(run.record_text(2))  # what the browser parses: every number one it can hold
    assert record["metrics"]["odd"] == str(10**400) and json.loads(run.record_text(3))["metrics"]["odd"] == "nan"
    assert json.loads(run.record_text(6))["metrics"]["odd"] == str(2**53 + 1)
    assert json.loads(run.record_text(7))["metrics"]["odd"] is True  # a value a browser holds stays as it is
    out = tmp_path / "hostile.html"
    assert main(["view", str(path), "--html", str(out)]) == 0 and capsys.readouterr().out == f"wrote {out}\n"


BAD_FILES = {
    "not JSON lines": b"task_id,env\nx,y\n",
    "JSON but a list": b"[1, 2]\n",
    "a task id of the wrong type": b'{"env": "AppBench-v0", "task_id": 7}\n',
    "metrics a list": b'{"env": "AppBench-v0", "task_id": "t", "metrics": [1]}\n',
    "a trajectory a number": b'{"env": "AppBench-v0", "task_id": "t", "trajectory": 3}\n',
    "nested too deeply": b'{"env": "AppBench-v0", "task_id": "t", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
    "a binary file": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
    "an empty file": b"",
    "an integer of 5000 digits": b'{"env": "AppBench-v0", "task_id": "t", "return": ' + b"9" * 5000 + b"}\n",
}


@pytest.mark.parametrize("what", [*BAD_FILES, "a missing file", "a folder"])
def test_a_bad_file_ends_view_with_one_error_line(what, tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    if what in BAD_FILES:
        path.write_bytes(BAD_FILES[what])
    elif what == "a folder":
        path.mkdir()
    out = tmp_path / "out.html"
    assert main(["view", str(path), "--html", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("toolgym: error: ") and captured.err.count("\n") == 1
    assert str(path) in captured.err and not out.exists()


def test_the_hostile_file_renders_every_row_and_runs_no_script(browser, runs, tmp_path):
    path, records = hostile_file(runs, tmp_path)
    out = tmp_path / "hostile.html"
    out.write_text(page(path))
    server = make_server([Run.read(path)], port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        for url in (f"file://{out}", f"http://127.0.0.1:{server.server_address[1]}/"):
            viewer = browser.new_page(viewport={"width": 1400, "height": 900})
            errors = []
            viewer.on("pageerror", lambda error: errors.append(str(error)))
            viewer.goto(url)
            viewer.wait_for_selector("#episodes tbody tr")
            rows = viewer.locator("#episodes tbody tr")
            assert viewer.inner_text("#shown") == f"{len(records)} of {len(records)} episodes"
            assert [r.locator("td").first.text_content() for r in rows.all()] == [r["task_id"] for r in records]
            assert [r.locator("td").nth(4).text_content() for r in rows.all()] == [shown for _, shown in ODD_SUCCESS]
            for i, record in enumerate(records):
                rows.nth(i).click()
                viewer.wait_for_selector(f"#detail .run h3:has-text({json.dumps(str(i))})")
                assert viewer.text_content("#detail .run h3") == f"hostile.jsonl: {record['task_id']}"
                assert viewer.text_content("#detail pre.action") == record["trajectory"][0]["action"]
                metrics = dict(zip(viewer.locator("#detail .metrics th").all_text_contents(),
                                   viewer.locator("#detail .metrics td").all_text_contents()))
                assert metrics[HOSTILE[i % len(HOSTILE)]] == HOSTILE[i % len(HOSTILE)]
            assert viewer.evaluate("window.owned") is None and viewer.title() == "toolgym view" and errors == []
            assert viewer.locator("#detail img, #episodes img, script").count() == 2  # the page's own two scripts
            viewer.close()
    finally:
        server.shutdown()
        server.server_close()


def raw_get(port: int, path: str, headers: list[str]) -> tuple[int, bytes]:
    """Status and body of a GET with exactly these header lines (a browser's, or a rebound page's)."""
    import http.client
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\n{''.join(h + chr(13) + chr(10) for h in headers)}\r\n".encode())
        response = http.client.HTTPResponse(sock)
        response.begin()
        if response.status != 200:  # refused: the server closes the connection
            assert response.headers["Connection"] == "close"
        return response.status, response.read()


@pytest.mark.parametrize("headers, status", [
    (["Host: 127.0.0.1:{port}"], 200), (["Host: localhost:{port}"], 200), (["Host: [::1]:{port}"], 200),
    (["Host: LOCALHOST:{port}", "Origin: http://localhost:{port}"], 200),
    (["Host: rebound.example:{port}"], 421), (["Host: rebound.example"], 421), (["Host: 127.0.0.1"], 421),
    (["Host: 127.0.0.1:{port}.rebound.example"], 421), (["Host: 127.0.0.1:x"], 421), ([], 421),
    (["Host: 127.0.0.1:{port}", "Host: rebound.example"], 421), (["Host: 127.0.0.2:{port}"], 421),
    (["Host: 127.0.0.1:{port}", "Origin: http://rebound.example"], 403),
    (["Host: 127.0.0.1:{port}", "Origin: null"], 403),
])
def test_served_viewer_answers_only_its_loopback_names(runs, headers, status):
    server = make_server([Run.read(runs["oracle"])], port=0)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        lines = [h.format(port=port) for h in headers]
        for path in ("/", "/record/0/0"):
            answer, body = raw_get(port, path, lines)
            assert answer == status, (path, lines)
            if status != 200:  # nothing of the results file
                assert body in (b"this server answers requests for 127.0.0.1, localhost or [::1] with its port only\n",
                                b"this server answers pages of its own origin only\n")
    finally:
        server.shutdown()
        server.server_close()


def test_records_of_odd_shapes_open_without_a_script_error(browser, runs, tmp_path):
    """Fields the reader does not type-check (steps, the world diff's parts, a step's LLM view, the
    prompt's messages) of any JSON shape: the episode opens and shows what it can."""
    record = json.loads(runs["appbench"].read_text().splitlines()[0])
    record["trajectory"] = [None, 3, "a step", [1], {"action": {"name": "x"}, "observation": None, "reward": "1",
                                                     "llm": {"logprobs": "abc", "token_ids": 5, "completion_tokens": []}},
                            {"action": "b", "llm": {"completion_token_ids": [1, 2], "logprobs": [None, "x"]}}]
    record["world_diff"] = {"t": {"counts": 3, "added": 5, "changed": [None, 1, {"key": 1}], "deleted": "row"},
                            "u": {}}
    record["prompt"] = {"messages": [None, 5, {"role": 1}], "tools": [1, {"x": None}]}
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(record) + "\n")
    out = tmp_path / "odd.html"
    out.write_text(page(path))
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    viewer.on("pageerror", lambda error: errors.append(str(error)))
    viewer.goto(f"file://{out}")
    viewer.wait_for_selector("#episodes tbody tr")
    viewer.locator("#episodes tbody tr").first.click()
    viewer.wait_for_selector("#detail .run h3")
    assert viewer.locator("#detail .step").count() == 6 and errors == []
    assert viewer.text_content("#detail .world-diff h4") == "t: 0 added, 0 changed, 0 deleted"
    assert viewer.locator("#detail .step").nth(5).locator(".tokens span").count() == 2


# -- the run explained (issue 41): summary, trials, completions, runs compared, charts --------------
PATTERN = {"AddAlarm-easy": 3, "DeleteAlarm-easy": 2, "FindAlarms-easy": 1, "ChangePassword-easy": 0}  # successes of 3
COMPLETION = "I will set the alarm.\nAction: AddAlarm <b>{task}</b> & more"


@pytest.fixture(scope="module")
def trial_runs(tmp_path_factory) -> dict:
    """``eval --trials 3`` runs of ToolTalk's first four tasks by the oracle and the random agent, and
    "known": the oracle's run rewritten so that its numbers are known: task t succeeds in its first
    PATTERN[t] trials, each step 1 holds an LLM call (completion text, finish reason, token ids,
    usage 100 in and 10 out), and one more episode ended with an error; the runs' provenance
    differs in ``commit`` only (abc123 in "known", def456 in the others)."""
    folder = tmp_path_factory.mktemp("trials")
    files = {}
    for agent in ("oracle", "random"):
        files[agent] = folder / f"{agent}3.jsonl"
        assert main(["eval", "ToolTalk-v0", "--env-kwarg", "text_similarity=lexical", "--agent", agent, "--trials",
                     "3", "--episodes", "4", "--no-progress", "--out", str(files[agent])]) == 0
    lines = files["oracle"].read_text().splitlines()
    records = [json.loads(line) for line in lines if '"summary": "pass^k"' not in line]
    assert sorted({r["task_id"] for r in records}) == sorted(PATTERN) and len(records) == 12
    for record in records:
        success = float(record["trial"] < PATTERN[record["task_id"]])
        record["metrics"]["success"] = record["return"] = success
        for k, step in enumerate(record["trajectory"]):
            step["reward"] = success if k == 0 else 0.0
        record["trajectory"][0]["llm"] = {
            "text": COMPLETION.format(task=record["task_id"]), "finish_reason": "stop", "prompt_tokens": 100,
            "completion_tokens": 10, "completion_token_ids": [1855, 92, 731], "logprobs": [-0.1, -2.0, -0.5]}
        record["usage"] = {"prompt_tokens": 100, "completion_tokens": 10, "calls": 1}
        record["provenance"] = {**record["provenance"], "commit": "abc123"}
    failed = {**records[3], "metrics": None, "trajectory": [], "return": 0.0, "error": "backend failed: boom"}
    del failed["trial"], failed["usage"]
    files["known"] = folder / "known.jsonl"
    files["known"].write_text("".join(json.dumps(r) + "\n" for r in records + [failed]))
    for agent in ("oracle", "random"):  # the same toolgym and tasks, another commit
        again = [json.loads(line) for line in files[agent].read_text().splitlines()]
        for record in again:
            if "provenance" in record:
                record["provenance"] = {**record["provenance"], "commit": "def456"}
        files[agent].write_text("".join(json.dumps(r) + "\n" for r in again))
    return files


def test_the_summary_holds_pass_k_trials_errors_and_tokens(trial_runs, capsys):
    summary = Run.read(trial_runs["known"]).summary
    assert (summary["episodes"], summary["trials"], summary["errors"]) == (13, 3, 1)
    # pass^k = mean over tasks of comb(c, k) / comb(3, k) for c = 3, 2, 1, 0 successes
    assert summary["passk"] == pytest.approx({"pass^1": 0.5, "pass^2": 1 / 3, "pass^3": 0.25})
    assert summary["tokens"] == {"in": 1200, "out": 120, "calls": 12, "episodes": 12}
    [table] = summary["tables"]
    assert table["title"] == "ToolTalk-v0 (built-in tasks, scoring=paper), agent oracle, seed 0"
    assert table["note"] == "1 episode(s) ended with an error and are not in the table"
    assert table["head"] == ["subset", "n", "Success", "Soft success", "Precision", "Recall", "Incorrect action rate",
                             "pass^1", "pass^2", "pass^3"]
    assert [row[:3] + row[-3:] for row in table["body"]] == [["easy", "12", "50.0", "50.0", "33.3", "25.0"]]
    assert main(["report", str(trial_runs["known"])]) == 0  # the same table as report prints
    printed = capsys.readouterr().out.splitlines()
    assert [line.split() for line in printed if line.startswith("easy")] == [table["body"][0]]
    assert printed[-2] == ("tokens: 1,200 in, 120 out over 12 episode(s) and 12 model call(s) "
                           "(100 in, 10 out per episode)")
    charts = summary["charts"]
    assert charts["subsets"] == [["easy", 6 / 13, 13]]  # the errored episode counts as a failure
    assert [point[0] for point in charts["rewards"]] == [1, 2, 3, 4]  # ChangePassword's four steps
    assert charts["rewards"][0] == [1, 0.5, 12] and charts["rewards"][3] == [4, 0.0, 3]
    assert len(charts["tokens"]) == 12 and charts["tokens"][0] == ["AddAlarm-easy", 100, 10]


def test_runs_are_compared_task_by_task(trial_runs):
    known, oracle, random = (Run.read(trial_runs[name]) for name in ("known", "oracle", "random"))
    assert compare([known, oracle]) == [{"a": 0, "b": 1, "wins": 0, "losses": 3, "ties": 1, "tasks": 4}]
    assert compare([known, oracle, random]) == [
        {"a": 0, "b": 1, "wins": 0, "losses": 3, "ties": 1, "tasks": 4},
        {"a": 0, "b": 2, "wins": 3, "losses": 0, "ties": 1, "tasks": 4},  # ChangePassword: 0 and 0 both
        {"a": 1, "b": 2, "wins": 4, "losses": 0, "ties": 0, "tasks": 4}]


COMMIT_WARNING = "warning: runs differ in commit: abc123 (known.jsonl) vs def456 (oracle3.jsonl) vs def456 (random3.jsonl)"


def test_runs_of_other_provenance_are_flagged(trial_runs, tmp_path):
    # The page says what `report` says of the same files (one rule: toolgym.eval.provenance).
    known, oracle, random = (Run.read(trial_runs[name]) for name in ("known", "oracle", "random"))
    assert provenance_warnings([known, oracle, random]) == [COMMIT_WARNING]
    assert provenance_warnings([oracle, random]) == [] and provenance_warnings([known, known]) == []
    record = json.loads(trial_runs["oracle"].read_text().splitlines()[0])
    other = tmp_path / "other.jsonl"
    for provenance, warnings in [
            ({**known.provenance, "tasks_digest": "sha256:00"},
             [f"warning: runs differ in tasks_digest: {known.provenance['tasks_digest']} (known.jsonl) "
              "vs sha256:00 (other.jsonl)"]),
            ({**known.provenance, "toolgym": 0.2},  # a value that is not a string, as JSON
             [f'warning: runs differ in toolgym: {known.provenance["toolgym"]} (known.jsonl) vs 0.2 (other.jsonl)']),
            (None, ["warning: other.jsonl records no provenance (written by an older toolgym): "
                    "its task data is unknown"])]:
        record["provenance"] = provenance
        other.write_text(json.dumps(record) + "\n")
        assert provenance_warnings([known, Run.read(other)]) == warnings


def test_the_page_carries_summaries_comparison_and_warnings(trial_runs):
    data = page_data(page(trial_runs["known"], trial_runs["oracle"], trial_runs["random"]))
    assert data["warnings"] == [COMMIT_WARNING]
    assert [(p["a"], p["b"], p["wins"]) for p in data["compare"]] == [(0, 1, 0), (0, 2, 3), (1, 2, 4)]
    assert [run["summary"]["trials"] for run in data["runs"]] == [3, 3, 3]
    assert data["rows"][:2] == [[0, 0, 0], [1, 1, 1]] and data["rows"][12] == [12, -1, -1]  # by env, task and trial
    served = page_data(page(trial_runs["known"], served=True))
    assert served["runs"][0]["summary"]["passk"] == pytest.approx({"pass^1": 0.5, "pass^2": 1 / 3, "pass^3": 0.25})


def summary_facts(viewer, run: int) -> dict:
    card = viewer.locator(".run-summary").nth(run)
    return dict(zip(card.locator(".facts th").all_text_contents(), card.locator(".facts td").all_text_contents()))


def test_a_trials_run_and_three_runs_side_by_side_in_the_browser(browser, trial_runs, tmp_path):
    out = tmp_path / "three.html"
    assert main(["view", str(trial_runs["known"]), str(trial_runs["oracle"]), str(trial_runs["random"]),
                 "--html", str(out)]) == 0
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    errors, asked = [], []
    viewer.on("pageerror", lambda error: errors.append(str(error)))
    viewer.on("request", lambda request: asked.append(request.url))
    viewer.goto(f"file://{out}")
    viewer.wait_for_selector("#episodes tbody tr")
    viewer.screenshot(path=str(Path(os.environ.get("TOOLGYM_SCREENSHOTS", tmp_path)) / "viewer-summary.png"))
    assert summary_facts(viewer, 0) == {"episodes": "13", "trials": "3", "errors": "1", "pass^1": "50.0",
                                        "pass^2": "33.3", "pass^3": "25.0", "tokens in": "1,200", "tokens out": "120",
                                        "model calls": "12"}
    assert summary_facts(viewer, 1)["pass^3"] == "100.0" and summary_facts(viewer, 2)["tokens"] == "no model played"
    known = viewer.locator(".run-summary").first
    assert known.locator("table.paper tbody td").all_text_contents()[:3] == ["easy", "12", "50.0"]
    assert known.locator(".paper-note").text_content() == "1 episode(s) ended with an error and are not in the table"
    charts = {name: known.locator(f'[data-chart="{name}"]') for name in
              ("success per subset", "mean reward per step", "tokens per episode")}
    assert charts["success per subset"].locator("rect.bar").count() == 1
    assert charts["mean reward per step"].locator("circle.point").count() == 4
    assert charts["tokens per episode"].locator("rect.bar").count() == 12
    assert viewer.locator(".run-summary").nth(2).locator('[data-chart="tokens per episode"] rect').count() == 0
    assert viewer.inner_text("#warnings") == COMMIT_WARNING
    wins = [row.locator("td").all_text_contents() for row in viewer.locator("#compare tbody tr").all()]
    assert wins == [["run 1: known.jsonl", "run 2: oracle3.jsonl", "0", "3", "1", "4"],
                    ["run 1: known.jsonl", "run 3: random3.jsonl", "3", "0", "1", "4"],
                    ["run 2: oracle3.jsonl", "run 3: random3.jsonl", "4", "0", "0", "4"]]
    head = viewer.locator("#head th").all_text_contents()
    assert head[7:] == ["trial", "run 2: success", "run 2: return", "run 3: success", "run 3: return"]
    viewer.select_option("#f-trial", "1")
    assert viewer.inner_text("#shown") == "4 of 13 episodes"
    assert viewer.locator("#episodes tbody td:nth-child(8)").all_text_contents() == ["1"] * 4
    viewer.locator("#episodes tbody tr").nth(1).click()  # DeleteAlarm, trial 1: succeeded in known
    viewer.wait_for_selector("#detail .run:nth-child(3) h3")
    assert viewer.locator("#detail .run h3").all_text_contents() == [
        "known.jsonl: DeleteAlarm-easy", "oracle3.jsonl: DeleteAlarm-easy", "random3.jsonl: DeleteAlarm-easy"]
    first = viewer.locator("#detail .run").first
    assert first.locator("pre.completion").text_content() == COMPLETION.format(task="DeleteAlarm-easy")
    assert first.locator(".finish-reason").text_content() == "stop"
    assert "trial 1" in first.locator("p.muted").first.text_content()
    tokens = first.locator(".tokens")
    assert not tokens.is_visible()  # token ids on demand
    first.locator(".token-ids summary").click()
    assert tokens.is_visible() and tokens.locator("span").all_text_contents() == ["1855", "92", "731"]
    assert first.locator("b").count() == 0 and errors == [] and asked == [f"file://{out}"]  # offline: no CDN


def test_hostile_summaries_and_provenance_are_drawn_as_text(browser, runs, tmp_path):
    path, records = hostile_file(runs, tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({**r, "provenance": {"commit": HOSTILE[1], HOSTILE[0]: "x"}}) + "\n"
                             for r in records))
    warnings = provenance_warnings([Run.read(path), Run.read(other)])
    assert warnings == [f"warning: runs differ in commit: {HOSTILE[0]} (hostile.jsonl) vs {HOSTILE[1]} (other.jsonl)",
                        f"warning: runs differ in {HOSTILE[0]}: {HOSTILE[0]} (hostile.jsonl) vs x (other.jsonl)"]
    out = tmp_path / "two.html"
    out.write_text(page(path, other))
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    viewer.on("pageerror", lambda error: errors.append(str(error)))
    viewer.goto(f"file://{out}")
    viewer.wait_for_selector("#episodes tbody tr")
    assert viewer.locator("#warnings p").all_text_contents() == warnings
    titles = viewer.locator(".run-summary").first.locator(".paper-title").all_text_contents()
    assert len(titles) == len(HOSTILE) and all(f"agent {text}" in " ".join(titles) for text in HOSTILE)
    assert summary_facts(viewer, 0)["tokens in"] == str(2**60 + sum(range(1, len(records))))  # past 2**53: as text
    bars = viewer.locator(".run-summary").first.locator('[data-chart="tokens per episode"] rect.bar title')
    assert bars.all_text_contents()[1] == f"1 {HOSTILE[1]}: 1 in, 1 out"
    viewer.locator("#episodes tbody tr").first.click()
    viewer.wait_for_selector("#detail .run h3")
    assert viewer.locator("#detail .run").first.locator("pre.completion").text_content() == HOSTILE[0]
    assert viewer.locator("#detail .run").first.locator(".finish-reason").text_content() == HOSTILE[0]
    assert viewer.evaluate("window.owned") is None and viewer.title() == "toolgym view" and errors == []
    assert viewer.locator("img, script").count() == 2  # the page's own two scripts


def test_a_model_run_of_three_trials_opens_with_its_completions(browser, tmp_path):
    """``eval --trials 3`` of toolgym's tiny random chat model (transformers), end to end: the page
    reads what the run recorded (trials, pass^k, tokens, each step's decoded text and finish reason)."""
    pytest.importorskip("transformers", reason="the models extra is not installed")
    from toolgym.llm.tiny import build_tiny_model

    model = build_tiny_model(tmp_path / "tiny", seed=3)
    results, out = tmp_path / "tiny3.jsonl", tmp_path / "tiny3.html"
    assert main(["eval", "ToolTalk-v0", "--env-kwarg", "text_similarity=lexical", "--agent", f"hf:{model}", "--trials",
                 "3", "--episodes", "2", "--max-new-tokens", "16", "--no-progress", "--out", str(results)]) == 0
    records = [json.loads(line) for line in results.read_text().splitlines() if '"summary": "pass^k"' not in line]
    assert len(records) == 6 and {r["trial"] for r in records} == {0, 1, 2}
    assert main(["view", str(results), "--html", str(out)]) == 0
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    viewer.goto(f"file://{out}")
    viewer.wait_for_selector("#episodes tbody tr")
    facts = summary_facts(viewer, 0)
    assert {k: facts[k] for k in ("episodes", "trials", "errors", "pass^1", "pass^3", "tokens out", "model calls")} == {
        "episodes": "6", "trials": "3", "errors": "0", "pass^1": "0.0", "pass^3": "0.0",
        "tokens out": f"{sum(r['usage']['completion_tokens'] for r in records):,}",
        "model calls": f"{sum(r['usage']['calls'] for r in records)}"}
    assert facts["tokens in"] == f"{sum(r['usage']['prompt_tokens'] for r in records):,}"
    assert viewer.locator('.run-summary [data-chart="tokens per episode"] rect.bar').count() == 6
    viewer.select_option("#f-trial", "2")
    assert viewer.inner_text("#shown") == "2 of 6 episodes"
    viewer.locator("#episodes tbody tr").first.click()
    viewer.wait_for_selector("#detail .run h3")
    shown = next(r for r in records if r["trial"] == 2)
    llm = shown["trajectory"][0]["llm"]
    assert viewer.locator("#detail pre.completion").first.text_content() == llm["text"]
    assert viewer.locator("#detail .finish-reason").first.text_content() == llm["finish_reason"]
    assert not viewer.locator("#detail .tokens").first.is_visible()


def test_a_negative_reward_is_drawn_below_the_zero_line(browser, runs, tmp_path):
    record = json.loads(runs["appbench"].read_text().splitlines()[0])
    record["trajectory"] = [{"action": "a", "observation": "o", "reward": reward} for reward in (-1.0, 0.5, 0.0)]
    path, out = tmp_path / "negative.jsonl", tmp_path / "negative.html"
    path.write_text(json.dumps(record) + "\n")
    out.write_text(page(path))
    viewer = open_page(browser, out)
    rewards = viewer.locator('[data-chart="mean reward per step"]')
    zero = float(rewards.locator("line.axis").first.get_attribute("y1"))
    heights = [float(c.get_attribute("cy")) for c in rewards.locator("circle.point").all()]
    assert len(heights) == 3 and heights[0] > zero > heights[1] and heights[2] == zero  # SVG's y grows downwards
    assert rewards.locator("text").all_text_contents()[:2] == ["0.500", "-1.000"]
