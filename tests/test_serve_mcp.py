"""`toolgym serve --protocol mcp`: the env's tools over MCP, driven by the mcp SDK's own client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import gymnasium as gym
import pytest

import toolgym

pytest.importorskip("mcp")
httpx = pytest.importorskip("httpx")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from toolgym.serve.mcp_app import build_http_app, build_server  # noqa: E402
from toolgym.serve.wire import ServeLimits  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def play_oracle_over_mcp(client, env_id: str, task_id: str, seed: int) -> dict:
    """Play the local oracle's actions as MCP tool calls; assert each result equals the local step."""
    local = gym.make(env_id)
    observation, info = local.reset(seed=seed, options={"task_id": task_id})
    started = await client.call_tool("toolgym_reset", {"task_id": task_id, "seed": seed})
    assert started.content[0].text == observation and not started.is_error
    listed = await client.list_tools()
    schemas = {tool.name: (tool.description, tool.input_schema) for tool in listed.tools}
    for tool in info.get("tools") or []:  # the same schemas as info["tools"]
        function = tool["function"]
        assert schemas[function["name"]] == (function.get("description"), function.get("parameters"))
    for _ in range(100):
        action = local.unwrapped.oracle_action()
        if isinstance(action, dict) and set(action) == {"name", "arguments"}:
            result = await client.call_tool(action["name"], action["arguments"])
        else:
            result = await client.call_tool("toolgym_act", {"action": action})
        observation, reward, terminated, truncated, info = local.step(action)
        assert result.content[0].text == observation
        assert result.structured_content["reward"] == reward
        assert (result.structured_content["terminated"], result.structured_content["truncated"]) == (terminated,
                                                                                                     truncated)
        if terminated or truncated:
            break
    score = (await client.call_tool("toolgym_score", {})).structured_content
    assert score["done"] and score["metrics"] == info["metrics"]
    task = (await client.call_tool("toolgym_task", {})).structured_content
    assert task["task_id"] == task_id
    local.close()
    return score


@pytest.mark.parametrize("env_id", toolgym.ENV_IDS)
def test_mcp_episode_equals_the_local_one(env_id):
    server, worlds = build_server(env_id)
    task_id = gym.make(env_id).unwrapped.task_ids()[-1]

    async def main():
        async with Client(server, mode="legacy") as client:
            return await play_oracle_over_mcp(client, env_id, task_id, seed=3)

    score = anyio.run(main)
    assert score["metrics"]["success"] == 1
    worlds.close()


def test_streamable_http_sessions_have_their_own_worlds(serve_app):
    app, worlds = build_http_app("ToolTalk-v0")
    url = serve_app(app) + "/mcp"
    task_ids = gym.make("ToolTalk-v0").unwrapped.task_ids()

    async def main():
        async with Client(url) as one, Client(url) as two:
            score = await play_oracle_over_mcp(one, "ToolTalk-v0", task_ids[0], seed=0)
            assert score["return"] == 1.0 and score["metrics"]["success"] == 1.0
            # The second session never reset: its world still holds the first task, unplayed.
            untouched = (await two.call_tool("toolgym_score", {})).structured_content
            assert untouched == {"task_id": task_ids[0], "done": False, "return": 0.0, "metrics": None}
            await play_oracle_over_mcp(two, "ToolTalk-v0", task_ids[7], seed=1)

    anyio.run(main)
    assert len(worlds) == 2


def test_env_errors_come_back_as_the_env_gives_them():
    server, _ = build_server("ToolTalk-v0")

    async def main():
        async with Client(server, mode="legacy") as client:
            unknown = await client.call_tool("NoSuchTool", {"x": 1})
            local = gym.make("ToolTalk-v0")
            local.reset(seed=0, options={"task_index": 0})
            observation, *_ = local.step({"name": "NoSuchTool", "arguments": {"x": 1}})
            assert unknown.content[0].text == observation
            bad_task = await client.call_tool("toolgym_reset", {"task_id": "nope"})
            assert bad_task.is_error and "unknown task_id 'nope'" in bad_task.structured_content["error"]
            bad_option = await client.call_tool("toolgym_reset", {"speed": 2})
            assert bad_option.is_error and "not ['speed']" in bad_option.structured_content["error"]
            no_action = await client.call_tool("toolgym_act", {})
            assert no_action.is_error and "needs an 'action'" in no_action.structured_content["error"]

    anyio.run(main)


def test_bad_requests_unknown_sessions_and_a_full_server_get_clear_errors(serve_app):
    app, worlds = build_http_app("CatAPI-v0", limits=ServeLimits(max_sessions=2, max_message_bytes=5000))
    url = serve_app(app) + "/mcp"

    async def main():
        async with Client(url) as first:
            before = await first.call_tool("toolgym_task", {})
            async with httpx.AsyncClient(timeout=30) as http:
                unknown = await http.post(url, headers={**HEADERS, "mcp-session-id": "no-such-session"}, json={
                    "jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                assert unknown.status_code == 404 and "Session not found" in unknown.text
                malformed = await http.post(url, headers=HEADERS, content=b"{not json")
                assert malformed.status_code == 400 and "Parse error" in malformed.text
                oversized = await http.post(url, headers=HEADERS, content=b"x" * 10_000)
                assert oversized.status_code == 413
            async with Client(url) as second:
                await second.call_tool("toolgym_reset", {"task_index": 3})
                with pytest.RaisesGroup(pytest.RaisesGroup(pytest.RaisesExc(MCPError, match="Too many open sessions"))):
                    async with Client(url) as third:  # the SDK's own answer to one session too many
                        await third.call_tool("toolgym_task", {})
            after = await first.call_tool("toolgym_task", {})
            assert after.structured_content == before.structured_content
            async with Client(url) as replacement:  # the second session ended: its place and world are freed
                await replacement.call_tool("toolgym_task", {})
            assert len(worlds) == 2

    anyio.run(main)


def test_cli_serves_mcp_over_stdio():
    """`toolgym serve ToolTalk-v0 --protocol mcp`, launched by the SDK's stdio client."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "toolgym.eval.cli", "serve", "ToolTalk-v0",
                                                                 "--protocol", "mcp"],
                                   env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    task_id = gym.make("ToolTalk-v0").unwrapped.task_ids()[2]

    async def main():
        with anyio.fail_after(120):
            async with Client(params) as client:
                return await play_oracle_over_mcp(client, "ToolTalk-v0", task_id, seed=0)

    assert anyio.run(main)["metrics"]["success"] == 1


def test_a_call_past_the_time_limit_is_answered_and_its_world_replaced(monkeypatch):
    import time

    from toolgym.serve import mcp_app

    class SlowOnRequest(gym.Wrapper):
        def step(self, action):
            if action == "slow":
                time.sleep(2.5)
            return self.env.step(action)

    make = mcp_app.make_env
    monkeypatch.setattr(mcp_app, "make_env", lambda env_id, kwargs: SlowOnRequest(make(env_id, kwargs)))
    server, worlds = build_server("CatAPI-v0", limits=ServeLimits(step_timeout_s=1.0))

    async def main():
        async with Client(server, mode="legacy") as client:
            await client.call_tool("toolgym_reset", {"task_index": 2})
            with pytest.raises(MCPError, match="ran past the server's limit of 1 s; this session's world was "
                                               "abandoned"):
                await client.call_tool("toolgym_act", {"action": "slow"})
            fresh = (await client.call_tool("toolgym_task", {})).structured_content
            assert fresh["task_id"] == gym.make("CatAPI-v0").unwrapped.task_ids()[0]  # a new world, first task
            done = await client.call_tool("toolgym_act", {"action": "curl https://api.thecatapi.com/v1/votes"})
            assert done.structured_content["terminated"] is True

    anyio.run(main)
