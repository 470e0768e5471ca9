"""Reward functions with TRL's signature: ``f(prompts, completions, **columns) -> list[float]``."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence

from toolgym.agents.llm.parsers import get_parser
from toolgym.agents.llm.prompts import defaults_for, make_prompt_format
from toolgym.registry import make_env


def completion_text(completion) -> str:
    """The text of a TRL completion: a string, or chat messages (the assistant's contents joined)."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content") or "" for m in completion if m.get("role", "assistant") == "assistant")


def metric_value(metrics: dict | None, metric: str) -> float:
    """The value of ``metric`` in an episode's final ``info["metrics"]``: one key, or keys joined
    by ``+`` for their sum (``stated_f1+draft_f1``); a key that is missing counts 0."""
    return float(sum((metrics or {}).get(key) or 0.0 for key in metric.split("+")))


class EnvReward:
    """Scores each completion by playing it on a fresh env: the episode return, or one metric.

    For single-step envs (a curl command, a program, a plan): the completion is parsed with the
    env's parser (as :class:`~toolgym.agents.llm.LLMAgent` parses it), its actions are taken
    in order until the episode ends, and the reward is the return (or ``metric`` from the
    final ``info["metrics"]``). An episode that does not end with the completion's actions is
    scored with the rewards it got (its metric counts 0).

    Completions are scored in parallel, ``workers`` at a time; every worker thread has its
    own env instances and resets one before each completion, so completions of a GRPO group
    share no state and the scores do not depend on the order or the number of workers.

    Args:
        env_id: A toolgym env id.
        env_kwargs: Keywords of ``gym.make``, as for the dataset.
        seed: The seed of every reset (the dataset's).
        metric: A key of ``info["metrics"]`` (or keys joined by ``+``, summed; see
            :func:`metric_value`) to use instead of the return (e.g. ``key_f1`` for a denser
            signal on the ToolBench REST envs).
        parser: A parser name; default: the prompt format's, else the env's.
        workers: Completions scored at once.
        prompt_format: The prompt format the dataset was built with (default: the env's); its
            parser reads the completions, as the LLM agent's does.
    """

    def __init__(self, env_id: str, env_kwargs: dict | None = None, seed: int = 0, metric: str | None = None,
                 parser: str | None = None, workers: int = 4, prompt_format: str | None = None):
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})
        self.seed = seed
        self.metric = metric
        probe = make_env(env_id, self.env_kwargs)
        fmt_name, env_parser = defaults_for(probe)
        self.parse = get_parser(parser or make_prompt_format(prompt_format or fmt_name).parser or env_parser)
        self.workers = max(1, int(workers))
        self._local = threading.local()
        self._pool: ThreadPoolExecutor | None = None  # kept, so that its threads keep their envs
        self.__name__ = f"{env_id.split('-')[0].lower()}_{metric or 'return'}"  # TRL logs rewards under it

    def _env(self):
        env = getattr(self._local, "env", None)
        if env is None:
            env = self._local.env = make_env(self.env_id, self.env_kwargs)
        return env

    def score(self, task_id: str, text: str) -> float:
        """The reward of one completion on one task."""
        env = self._env()
        _, info = env.reset(seed=self.seed, options={"task_id": str(task_id)})
        names = [t["function"]["name"] for t in info.get("tools") or [] if "function" in t]
        total, ended = 0.0, False
        for action in self.parse(text, [], names) or [""]:
            _, reward, terminated, truncated, info = env.step(action)
            total += reward
            if terminated or truncated:
                ended = True
                break
        if self.metric is None:
            return float(total)
        return metric_value(info.get("metrics"), self.metric) if ended else 0.0

    def __call__(self, prompts: Sequence, completions: Sequence, task_id: Sequence[str], **kwargs) -> list[float]:
        texts = [completion_text(c) for c in completions]
        if self.workers == 1 or len(texts) == 1:
            return [self.score(t, x) for t, x in zip(task_id, texts)]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="toolgym-reward")
        return list(self._pool.map(self.score, task_id, texts))


def env_reward(completions: Sequence, env_reward: Sequence[float], **kwargs) -> list[float]:
    """The episode returns a :func:`~toolgym.train.make_rollout_func` rollout recorded."""
    return [float(r) for r in env_reward]
