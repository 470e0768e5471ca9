"""A gymnasium env whose episodes run on a ``toolgym serve --protocol openenv`` server.

    >>> import toolgym.remote
    >>> env = toolgym.remote.make("http://127.0.0.1:8000", "ToolTalk-v0")
    >>> observation, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
    >>> observation, reward, terminated, truncated, info = env.step("...")

The episode equals a local ``gym.make`` one for the same seed and actions: the same
observations, rewards, ``terminated``/``truncated`` and ``info`` (its JSON-safe entries, which
are all of them in toolgym's envs). The connection is OpenEnv's ``EnvClient`` (one WebSocket
session per env); it needs the ``serve`` extra.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import gymnasium as gym
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from toolgym.envs.common.spaces import TextSpace


class RemoteError(RuntimeError):
    """The server answered a message with an error (full, timed out, closed, refused)."""


class ToolgymClient(EnvClient[Any, dict, dict]):
    """OpenEnv's async client for a toolgym server: actions are the env's, results plain dicts."""

    def _step_payload(self, action: Any) -> dict:
        return {"action": action}

    def _parse_result(self, payload: dict) -> StepResult[dict]:
        return StepResult(observation=payload.get("observation", {}), reward=payload.get("reward"),
                          done=payload.get("done", False))

    def _parse_state(self, payload: dict) -> dict:
        return payload


def describe(url: str, timeout_s: float = 10.0) -> dict:
    """The server's ``GET /toolgym``: env id, arguments, task ids, limits.

    Raises:
        ConnectionError: Nothing answers at ``url``, or it is not a toolgym server.
    """
    address = url.rstrip("/").replace("ws://", "http://", 1).replace("wss://", "https://", 1)
    try:
        with urllib.request.urlopen(f"{address}/toolgym", timeout=timeout_s) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ConnectionError(f"{url}: no toolgym OpenEnv server answers there ({exc}); start one with "
                              f"`toolgym serve ENV_ID --protocol openenv --port PORT`") from exc


class RemoteEnv(gym.Env):
    """A served env's session as a gymnasium env; :func:`make` builds it.

    ``task_ids()``, ``env_id``, ``task_set``, ``split``, ``scoring``, ``mode`` and
    ``table_columns`` are the served env's, so ``toolgym eval --env-url`` runs the local
    evaluator unchanged; ``oracle_action()`` works when the server runs with ``--oracle``.
    """

    metadata = {"render_modes": []}

    def __init__(self, url: str, description: dict, message_timeout_s: float = 60.0):
        from toolgym.registry import env_class

        self.url = url
        self.env_id = description["env_id"]
        self.task_set, self.split = description["task_set"], description["split"]
        self.scoring, self.mode = description["scoring"], description["mode"]
        self.data_dir = None
        self.table_columns = env_class(self.env_id).table_columns
        self._task_ids = list(description["task_ids"])
        self._oracle_served = description["oracle"]
        self._oracle_action = None
        self.task_id = None
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self._client = ToolgymClient(base_url=url, message_timeout_s=message_timeout_s).sync()

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Reset the served env; an argument it refuses raises ValueError with the server's message."""
        super().reset(seed=seed)
        data = {key: value for key, value in (("seed", seed), ("options", options)) if value is not None}
        try:
            result = self._call(self._client.reset, **data)
        except RemoteError as exc:
            raise ValueError(str(exc)) from None
        self.task_id = result["info"].get("task_id")
        return result["observation"], result["info"]

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        result = self._call(self._client.step, action)
        return result["observation"], result["reward"], result["terminated"], result["truncated"], result["info"]

    def oracle_action(self) -> Any:
        """The oracle's next action, as the server sent it with the last result."""
        if not self._oracle_served:
            raise ValueError(f"{self.url} does not send the oracle's actions: start the server with --oracle")
        return self._oracle_action

    def _call(self, method, *args, **kwargs) -> dict:
        try:
            result = method(*args, **kwargs)
        except RuntimeError as exc:
            if str(exc).startswith("Server error:"):
                raise RemoteError(f"{self.url}: {str(exc).removeprefix('Server error: ')}") from None
            raise
        payload = {**result.observation, "reward": result.reward}
        self._oracle_action = payload.get("oracle_action")
        return payload

    def close(self) -> None:
        self._client.close()


def make(url: str, env_id: str, message_timeout_s: float = 60.0, **kwargs: Any) -> RemoteEnv:
    """A session with the server at ``url``, checked to serve ``env_id`` with ``kwargs``.

    The server's env arguments are set when it starts (``toolgym serve ENV_ID --split ...``);
    ``kwargs`` are checked against them, not sent, so a client cannot make the server read
    files or build worlds of its choosing.

    Raises:
        ConnectionError: No toolgym server at ``url``.
        ValueError: The server serves another env, or the same env with other arguments.
    """
    description = describe(url)
    if description["env_id"] != env_id:
        raise ValueError(f"{url} serves {description['env_id']}, not {env_id}")
    served = {"tasks": description["task_set"], "split": description["split"], "scoring": description["scoring"],
              "mode": description["mode"], **description["env_kwargs"]}
    different = {key: (value, served.get(key)) for key, value in kwargs.items() if served.get(key) != value}
    if different:
        details = ", ".join(f"{key}={want!r} (server: {have!r})" for key, (want, have) in different.items())
        raise ValueError(f"{url} serves {env_id} with other arguments: {details}; start a server with them")
    return RemoteEnv(url, description, message_timeout_s)
