"""``toolgym view``: the page lists a results file's episodes with filters and pages, shows each
as a timeline with its world diff, puts another run beside it, and draws untrusted text as text.
Browser tests drive Debian's chromium with playwright (the browser extra), as test_serve_browser."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from toolgym.eval.cli import main
from toolgym.eval.view import Run, make_server, page

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
    assert main(["view", str(runs["oracle"]), "--against", str(runs["random"]), "--html", str(out)]) == 0
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


def test_against_puts_the_other_run_beside_each_episode(browser, runs, tmp_path):
    out = tmp_path / "against.html"
    out.write_text(page(runs["oracle"], runs["random"]))
    viewer = open_page(browser, out)
    header = [h.inner_text() for h in viewer.locator("#head th").all()]
    assert header[-2:] == ["other: success", "other: return"]
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
    start = time.process_time()  # this process's CPU time (building the page), which a busy machine does not inflate
    out.write_text(page(big))
    elapsed = time.process_time() - start
    viewer = open_page(browser, out)
    assert viewer.inner_text("#shown") == "10000 of 10000 episodes" and viewer.inner_text("#page") == "page 1 of 200"
    assert viewer.locator("#episodes tbody tr").count() == 50  # pages, not one giant DOM
    viewer.click("#next")
    assert viewer.inner_text("#page") == "page 2 of 200"
    assert elapsed < 20  # the browser's side is bounded by the paging above; benchmarks/bench_view.py times both
    document = out.read_text()
    assert document.count('"trajectory"') == 0 and document.count('\\"trajectory\\"') == 10_000  # records as strings
