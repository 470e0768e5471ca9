"""Training on toolgym envs with TRL (the ``[train]`` extra).

- :func:`build_prompt_dataset`: an env's tasks as a prompt dataset in the env's own prompt
  format (chat messages), with the task id of every row.
- :class:`EnvReward`: a reward function with TRL's signature for single-step envs: each
  completion is played on a fresh env and scored with the episode return (or a metric, or a
  sum of metrics: :func:`metric_value`).
- :func:`make_rollout_func`: a ``rollout_func`` for TRL's ``GRPOTrainer`` on multi-turn envs:
  whole episodes with the trainer's model through the lockstep runner, as one token sequence
  each, with the env's tokens masked out and the episode return as ``env_reward``;
  :func:`env_reward` hands that to the trainer.
- :func:`environment_factory`: TRL's environment interface (``GRPOTrainer(environment_factory=...)``):
  the env's tools as the model's tools, the env's return as ``get_reward``.
- :func:`score_completion_tokens_only`: TRL's fused LM head projects only the completion
  tokens on a CPU too, as it does on GPUs (otherwise 43% of a CPU GRPO step on HomeSearch).

Importing this package imports neither torch nor TRL; the functions do, when called.
"""

from toolgym.train.dataset import build_prompt_dataset, prompt_key
from toolgym.train.environment import environment_factory
from toolgym.train.lm_head import score_completion_tokens_only
from toolgym.train.rewards import EnvReward, env_reward, metric_value
from toolgym.train.rollout import TrainerModelBackend, make_rollout_func

__all__ = ["build_prompt_dataset", "prompt_key", "EnvReward", "env_reward", "metric_value", "make_rollout_func",
           "environment_factory", "TrainerModelBackend", "score_completion_tokens_only"]
