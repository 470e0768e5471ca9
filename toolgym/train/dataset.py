"""An env's tasks as a prompt dataset for TRL."""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolgym.agents.llm.prompts import EpisodeState, defaults_for, make_prompt_format
from toolgym.llm.chat import flatten_messages, tools_as_text
from toolgym.eval.runner import select_tasks
from toolgym.registry import make_env


def prompt_key(prompt: list[dict]) -> str:
    """A prompt's identity (its messages as canonical JSON), to find its task again."""
    return json.dumps(prompt, sort_keys=True, ensure_ascii=False)


def task_prompt(env, task_id: str, seed: int = 0, prompt_format: str | None = None) -> list[dict]:
    """The chat messages a model is first given for a task, in the env's prompt format.

    Tools offered natively are written into the system message and tool turns into plain
    turns, so that the prompt stands alone (TRL applies the chat template without per-row
    tools) and every row has the same simple ``{"role", "content"}`` schema.
    """
    _, info = env.reset(seed=seed, options={"task_id": task_id})
    fmt = make_prompt_format(prompt_format or defaults_for(env)[0])
    messages, tools = fmt.build(EpisodeState(task_id=task_id, info=info), info)
    return flatten_messages(tools_as_text(messages, tools) if tools else messages)


def build_prompt_dataset(env_id: str, env_kwargs: dict | None = None, episodes: int | None = None,
                         task_ids: Sequence[str] | None = None, seed: int = 0, prompt_format: str | None = None):
    """A ``datasets.Dataset`` with one row per task: ``prompt`` (chat messages) and ``task_id``.

    Args:
        env_id: A toolgym env id.
        env_kwargs: Keywords of ``gym.make`` (split, mode, ...).
        episodes: The first N tasks of the task set (default: all), unless ``task_ids``.
        task_ids: The tasks, in order.
        seed: The seed of the reset that builds each prompt (and of the episodes scored later).
        prompt_format: A name from ``toolgym.agents.llm.prompt_formats()``; default: the env's.

    The ``task_id`` column reaches TRL reward functions as a keyword (see :class:`EnvReward`).
    """
    from datasets import Dataset

    env = make_env(env_id, dict(env_kwargs or {}))
    ids = list(task_ids) if task_ids is not None else select_tasks(env, episodes)
    rows = [{"prompt": task_prompt(env, t, seed, prompt_format), "task_id": str(t)} for t in ids]
    return Dataset.from_list(rows)
