"""``toolgym serve ENV_ID --protocol mcp``: a world per MCP session, its tools as MCP tools.

Each session (the stdio process, or one Streamable HTTP session) gets its own env. The tools
listed are the current task's ``info["tools"]``, with the same names, descriptions and input
schemas, plus four of toolgym's own:

- ``toolgym_reset(task_id | task_index, seed)``: start a task (the first task, seed 0, is
  started when a session first needs one);
- ``toolgym_act(action)``: any other action the env takes (a text reply to the user, a
  program, a curl command, a WebShop ``click[...]``; the program envs in single-step mode
  take their whole program this way);
- ``toolgym_task()``: the task id and its first observation;
- ``toolgym_score()``: whether the episode ended, its return so far and the metrics.

A call of an env tool is the env step ``{"name": tool, "arguments": arguments}``; its text is
the env's observation and ``isError`` is set when the env's ``info`` reports an error, so
results and errors are the env's own. The server keeps a world per session, so over
Streamable HTTP it speaks the MCP versions with sessions (the initialize handshake) and a
request without a session is told so; over stdio the process is the session. Limits: sessions (``max_sessions``), request body size, time per call
(``step_timeout_s``), idle sessions closed after ``idle_timeout_s``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from toolgym.registry import make_env
from toolgym.serve.wire import ServeLimits, json_safe_info, warm_up

RESET, ACT, TASK, SCORE = "toolgym_reset", "toolgym_act", "toolgym_task", "toolgym_score"
CONTROL_TOOLS = [
    types.Tool(name=RESET, description="Start a task in this session's world (a fresh world): by task_id or "
                                       "task_index, with a seed (default 0). Returns the first observation; "
                                       "list the tools again afterwards, they are the task's.",
               input_schema={"type": "object", "properties": {
                   "task_id": {"type": "string", "description": "a task id of the env"},
                   "task_index": {"type": "integer", "description": "a position in the env's task list"},
                   "seed": {"type": "integer", "description": "the reset seed (default 0)"}}}),
    types.Tool(name=ACT, description="Take an action that is not one tool call: a text reply to the user, a "
                                     "program, a curl command, a WebShop click[...]. Returns the env's observation.",
               input_schema={"type": "object", "properties": {
                   "action": {"type": ["string", "object"], "description": "the action, as env.step takes it"}},
                   "required": ["action"]}),
    types.Tool(name=TASK, description="The current task: its id and its first observation.",
               input_schema={"type": "object", "properties": {}}),
    types.Tool(name=SCORE, description="The episode's score: whether it ended, the return so far and, at the "
                                       "end, the benchmark's metrics (success among them).",
               input_schema={"type": "object", "properties": {}}),
]


@dataclass
class World:
    """One session's env and episode."""

    env: Any
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_used: float = field(default_factory=time.monotonic)
    task_id: str | None = None
    first_observation: str = ""
    tools: list[dict] = field(default_factory=list)
    episode_return: float = 0.0
    done: bool = False
    metrics: dict | None = None


class Worlds:
    """The sessions' worlds: made when a session first needs one, closed when idle too long."""

    def __init__(self, env_id: str, env_kwargs: dict, limits: ServeLimits):
        self.env_id, self.env_kwargs, self.limits = env_id, env_kwargs, limits
        self._worlds: dict[str, World] = {}
        self._guard = threading.Lock()
        #: The ids of the transport's open sessions (Streamable HTTP), so ended sessions' worlds are freed.
        self.live_sessions = None

    def __len__(self) -> int:
        return len(self._worlds)

    def get(self, key: str) -> World:
        """The world of session ``key``, made (and reset to the first task) when new.

        Raises:
            MCPError: The server already holds ``max_sessions`` worlds.
        """
        with self._guard:
            self._close_idle()
            world = self._worlds.get(key)
            if world is None:
                self._close_ended()
                if len(self._worlds) >= self.limits.max_sessions:
                    raise MCPError(types.INTERNAL_ERROR, f"the server is full: {len(self._worlds)} sessions of at "
                                                         f"most {self.limits.max_sessions}; try again later")
                world = self._worlds[key] = World(make_env(self.env_id, self.env_kwargs))
                reset_world(world, {"task_index": 0}, 0)
            world.last_used = time.monotonic()
            return world

    def _close_idle(self) -> None:
        now = time.monotonic()
        for key in [k for k, w in self._worlds.items() if now - w.last_used > self.limits.idle_timeout_s]:
            self._worlds.pop(key).env.close()

    def abandon(self, key: str) -> None:
        """Forget session ``key``'s world (a call on it overran); the session's next call starts a fresh one."""
        with self._guard:
            self._worlds.pop(key, None)

    def _close_ended(self) -> None:
        if self.live_sessions is not None:
            live = set(self.live_sessions())
            for key in [k for k in self._worlds if k not in live]:
                self._worlds.pop(key).env.close()

    def close(self) -> None:
        with self._guard:
            for world in self._worlds.values():
                world.env.close()
            self._worlds.clear()


def reset_world(world: World, options: dict, seed: int) -> str:
    observation, info = world.env.reset(seed=seed, options=options)
    world.task_id, world.first_observation = info.get("task_id"), observation
    world.tools = list(info.get("tools") or [])
    world.episode_return, world.done, world.metrics = 0.0, False, None
    return observation


def step_world(world: World, action: Any) -> types.CallToolResult:
    observation, reward, terminated, truncated, info = world.env.step(action)
    ended = bool(terminated or truncated)
    if not world.done:
        world.episode_return += float(reward)
        world.done = ended
        world.metrics = json_safe_info({"metrics": info.get("metrics")}).get("metrics") if ended else None
    structured = {"observation": observation, "reward": float(reward), "terminated": bool(terminated),
                  "truncated": bool(truncated)}
    if ended and world.metrics is not None:
        structured["metrics"] = world.metrics
    return types.CallToolResult(content=[types.TextContent(type="text", text=observation)],
                                structured_content=structured, is_error=bool(info.get("error")))


def _json_result(value: dict, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(value))],
                                structured_content=value, is_error=is_error)


def _session_key(ctx) -> str:
    if ctx.request is None:
        return "stdio"  # the process is the session
    key = ctx.request.headers.get("mcp-session-id")
    if not key:
        raise MCPError(types.INVALID_REQUEST, "this server keeps a world per session: connect with the initialize "
                                              "handshake (an MCP session), e.g. mcp.Client(url, mode='legacy')")
    return key


def build_server(env_id: str, env_kwargs: dict | None = None, limits: ServeLimits | None = None
                 ) -> tuple[Server, Worlds]:
    """The MCP server of ``env_id`` and its worlds.

    Raises:
        ValueError: The env id or its arguments are wrong (an env is made once here).
    """
    env_kwargs = dict(env_kwargs or {})
    limits = limits or ServeLimits()
    probe = make_env(env_id, env_kwargs)
    warm_up(probe)
    probe.close()
    worlds = Worlds(env_id, env_kwargs, limits)

    async def bounded(key: str, world: World, call, *args):
        async with world.lock:
            try:
                with anyio.fail_after(limits.step_timeout_s):
                    return await anyio.to_thread.run_sync(call, *args, abandon_on_cancel=True)
            except TimeoutError:
                # The call still runs on its thread: the world is left to it, never touched again.
                worlds.abandon(key)
                raise MCPError(types.INTERNAL_ERROR, f"the call ran past the server's limit of "
                                                     f"{limits.step_timeout_s:g} s; this session's world was "
                                                     f"abandoned and its next call starts a fresh one") from None

    async def list_tools(ctx, params) -> types.ListToolsResult:
        world = await anyio.to_thread.run_sync(worlds.get, _session_key(ctx))
        env_tools = [types.Tool(name=t["function"]["name"], description=t["function"].get("description"),
                                input_schema=t["function"].get("parameters") or {"type": "object"})
                     for t in world.tools]
        # ttl 0: the tools change with the task, so a client must not keep the list.
        return types.ListToolsResult(tools=env_tools + CONTROL_TOOLS, ttl_ms=0)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        key = _session_key(ctx)
        world = await anyio.to_thread.run_sync(worlds.get, key)
        name, arguments = params.name, dict(params.arguments or {})
        if name == RESET:
            options = {k: arguments[k] for k in ("task_id", "task_index") if k in arguments}
            unknown = sorted(set(arguments) - {"task_id", "task_index", "seed"})
            if unknown:
                return _json_result({"error": f"{RESET} takes task_id, task_index and seed, not {unknown}"}, True)
            try:
                observation = await bounded(key, world, reset_world, world, options, arguments.get("seed", 0))
            except (ValueError, KeyError, TypeError) as exc:
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
                return _json_result({"error": str(message)}, True)
            return types.CallToolResult(content=[types.TextContent(type="text", text=observation)],
                                        structured_content={"task_id": world.task_id, "observation": observation})
        if name == TASK:
            return _json_result({"task_id": world.task_id, "observation": world.first_observation})
        if name == SCORE:
            return _json_result({"task_id": world.task_id, "done": world.done, "return": world.episode_return,
                                 "metrics": world.metrics})
        if name == ACT:
            if "action" not in arguments:
                return _json_result({"error": f"{ACT} needs an 'action'"}, True)
            return await bounded(key, world, step_world, world, arguments["action"])
        # Any other name is a tool call; the env answers an unknown tool as it would locally.
        return await bounded(key, world, step_world, world, {"name": name, "arguments": arguments})

    server = Server(f"toolgym-{env_id}", version=_version(), on_list_tools=list_tools, on_call_tool=call_tool,
                    instructions=f"toolgym's {env_id}: one simulated world per session. {RESET} starts a task, "
                                 f"{TASK} shows it, {SCORE} scores the episode.")
    return server, worlds


def build_http_app(env_id: str, env_kwargs: dict | None = None, limits: ServeLimits | None = None,
                   host: str = "127.0.0.1"):
    """The Streamable HTTP app (at ``/mcp``) of ``env_id``'s MCP server, and its worlds.

    Over HTTP only the handshake versions have sessions, so ``server/discover`` (the
    2026-07-28 sessionless protocol's opening) is refused and clients fall back to
    ``initialize``. Over stdio the process is the session and every version is served.
    """
    limits = limits or ServeLimits()
    server, worlds = build_server(env_id, env_kwargs, limits)

    async def no_discover(ctx, params):
        raise MCPError(types.METHOD_NOT_FOUND, "this server keeps a world per session: it speaks the MCP versions "
                                               "with sessions (initialize)")

    server.add_request_handler("server/discover", types.RequestParams, no_discover)
    app = server.streamable_http_app(host=host, max_sessions=limits.max_sessions,
                                     session_idle_timeout=limits.idle_timeout_s,
                                     max_request_body_size=limits.max_message_bytes)
    # The SDK has no public hook for a session's end; its table of open sessions tells.
    worlds.live_sessions = lambda: list(server.session_manager._server_instances)
    return app, worlds


def _version() -> str:
    import toolgym

    return toolgym.__version__


def serve(env_id: str, env_kwargs: dict | None = None, host: str = "127.0.0.1", port: int | None = None,
          limits: ServeLimits | None = None) -> None:
    """Run the MCP server: over stdio when ``port`` is None, else Streamable HTTP at ``/mcp``."""
    limits = limits or ServeLimits()
    if port is None:
        server, worlds = build_server(env_id, env_kwargs, limits)
    else:
        app, worlds = build_http_app(env_id, env_kwargs, limits, host)
    try:
        if port is None:
            from mcp.server.stdio import stdio_server

            async def run_stdio():
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

            anyio.run(run_stdio)
        else:
            import uvicorn

            print(f"toolgym: serving {env_id} (MCP, Streamable HTTP) at http://{host}:{port}/mcp", flush=True)
            uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        worlds.close()
