"""The served WebShop in a real browser: Debian's chromium, driven headless by playwright (the
``browser`` extra). Two visitors shop an oracle episode each at the same time, interleaved, and
each gets their own reward. Skipped only where no browser can be had; ``.ci/run`` installs it."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import gymnasium as gym
import pytest

import toolgym  # noqa: F401  (registers the envs)

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def shop():
    from toolgym.envs.webshop.serve import make_server

    env = gym.make("WebShop-v0", observation_mode="html")
    server = make_server(env, port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server, env
    server.shutdown()
    server.server_close()


def act(page, action: str) -> None:
    """Do ``search[...]`` or ``click[...]`` the way a person would: type and press, or press the button."""
    kind, argument = action[:-1].split("[", 1)
    if kind == "search":
        page.fill("#search_input", argument)
        page.click('[data-click="search"]')
    else:
        page.click(f"[data-click={json.dumps(argument)}]")
    page.wait_for_load_state()


def test_two_visitors_shop_an_oracle_episode_each_at_once(browser, shop, tmp_path):
    server, env = shop
    root = f"http://127.0.0.1:{server.server_address[1]}"
    task_ids = env.unwrapped.task_ids()[:2]
    pages = [browser.new_context().new_page() for _ in task_ids]  # two contexts: two visitors, no shared cookies
    envs = []
    for page, task_id in zip(pages, task_ids):
        page.goto(f"{root}/?task_id={task_id}")
        session_id = page.url.rsplit("/", 1)[1]
        envs.append(server.shop.sessions[session_id].env.unwrapped)
        assert page.inner_text("#instruction-text") == f"Instruction:\n{envs[-1].goal['instruction_text']}"
    done = [False, False]
    while not all(done):
        for k, (page, base) in enumerate(zip(pages, envs)):
            if done[k]:
                continue
            action = base.oracle_action()
            act(page, action)
            if action == "click[buy now]":
                done[k] = True
    for page, base in zip(pages, envs):
        assert "/done/" in page.url and page.inner_text("#reward") == "1.000"
        assert base.task_id in page.inner_text("footer")
        assert page.locator(".reward tr").count() == 5  # the header and type, attributes, options, price
    assert envs[0].task_id != envs[1].task_id and envs[0].goal["asin"] in pages[0].url
    shots = Path(os.environ.get("TOOLGYM_SCREENSHOTS", tmp_path))
    pages[0].screenshot(path=str(shots / "webshop-done.png"), full_page=True)


def test_the_pages_look_like_webshop(browser, shop, tmp_path):
    """Search box, result cards with image, title and price, an item page with option buttons and tabs."""
    server, env = shop
    shots = Path(os.environ.get("TOOLGYM_SCREENSHOTS", tmp_path))
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/?task_id={env.unwrapped.task_ids()[0]}")
    base = server.shop.sessions[page.url.rsplit("/", 1)[1]].env.unwrapped
    assert page.locator("h1.logo").inner_text() == "WebShop" and page.locator("#search_input").is_visible()
    page.screenshot(path=str(shots / "webshop-search.png"))
    act(page, base.oracle_action())
    cards = page.locator("li.card")
    assert cards.count() == 10 and "Total results" in page.inner_text(".count")
    first = cards.nth(0)
    assert first.locator("img.thumb").evaluate("img => img.naturalWidth") > 0  # the SVG picture loaded
    assert first.locator(".price").inner_text().startswith("$")
    page.screenshot(path=str(shots / "webshop-results.png"))
    while "/item_page/" not in page.url:
        act(page, base.oracle_action())
    assert page.locator("img.large").evaluate("img => img.naturalWidth") > 0
    assert [t.inner_text() for t in page.locator(".tabs button").all()] == ["Description", "Features", "Reviews"]
    option = page.locator("button.opt").first
    value = option.get_attribute("data-click")
    option.click()
    page.wait_for_load_state()
    assert page.locator(f"button.opt.chosen[data-click={json.dumps(value)}]").count() == 1
    page.screenshot(path=str(shots / "webshop-item.png"), full_page=True)


def test_hostile_text_on_the_shop_pages_is_text(browser, shop):
    """A visitor's click on a button named with markup (the page says it is not a button) and a
    search for markup: the pages show the text, and no script of it runs. The shop by its
    ``localhost`` name, which its Host check accepts."""
    server, env = shop
    page = browser.new_context().new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"http://localhost:{server.server_address[1]}/?task_id={env.unwrapped.task_ids()[0]}")
    hostile = "</h4><!--<script>window.owned = 1</script><img src=x onerror=\"window.owned = 1\"> & co"
    page.evaluate("""([hostile, session]) => {
        const form = document.createElement("form");
        form.method = "post";
        form.action = "/" + session + "/click/" + encodeURIComponent(hostile);
        document.body.append(form);
        form.submit();
    }""", [hostile, page.url.rsplit("/", 1)[1]])
    page.wait_for_selector("p.note")
    note = page.text_content("p.note")  # the env cuts a long action short
    assert note.startswith(f"Invalid action: {hostile[:60]!r}"[:-1]) and note.endswith("is not a button on this page")
    act(page, f"search[{hostile}]")
    assert "/search_results/" in page.url and "Total results" in page.inner_text(".count")
    assert page.evaluate("window.owned") is None and page.locator("img:not(.thumb)").count() == 0 and errors == []
