"""A ``rollout_func`` for TRL's GRPOTrainer: whole multi-turn episodes with the trainer's model."""

from __future__ import annotations

from collections.abc import Sequence

from toolgym.agents.llm.agent import LLMAgent
from toolgym.llm.backends import SamplingParams, TransformersBackend
from toolgym.llm.backends.hf_transformers import PREFIX_CACHE_MB, PrefixCache
from toolgym.eval.runner import MAX_STEPS, run_header
from toolgym.registry import make_env
from toolgym.eval.rollouts import episode_from_record, play_batched
from toolgym.train.dataset import prompt_key
from toolgym.train.rewards import metric_value


class TrainerModelBackend(TransformersBackend):
    """:class:`TransformersBackend` over a model and tokenizer already in memory (the trainer's).

    It sets the attributes :meth:`TransformersBackend.__init__` sets, from the model instead
    of a folder. Generation runs with the model in eval mode and puts back the mode it found.
    """

    def __init__(self, model, tokenizer, model_id: str = "trainer", prefill: str = "auto"):
        import torch

        self.torch = torch
        self.model_id = model_id
        self.model = model
        self.tokenizer = tokenizer
        self.device = str(next(model.parameters()).device)
        self.dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
        self._read_model()
        self.max_batch_tokens = 65536
        self.max_padding = None
        self.prefill = prefill if prefill != "auto" else ("batch" if self.device.startswith("cuda") else "rows")
        # Caches of this backend's prompts only: a backend is made per training step, as the weights change.
        self.prefix_cache = PrefixCache(PREFIX_CACHE_MB * 2 ** 20)
        # The weights change at every step: no preallocated, compiled decoding cache.
        self.static_cache = False
        self.compile = False

    def generate(self, requests, sampling, prompt_ids=None):
        training = self.model.training
        padding_side = self.tokenizer.padding_side
        self.model.eval()
        self.tokenizer.padding_side = "left"  # generation pads on the left; the trainer's setting comes back
        try:
            return super().generate(requests, sampling, prompt_ids=prompt_ids)
        finally:
            self.tokenizer.padding_side = padding_side
            self.model.train(training)


def make_rollout_func(env_id: str, dataset, env_kwargs: dict | None = None, seed: int = 0,
                      batch_size: int = 8, max_steps: int = MAX_STEPS, prompt_format: str | None = None,
                      parser: str | None = None, metric: str | None = None):
    """A ``rollout_func(prompts, trainer)`` that plays each prompt's task as a whole episode.

    Each prompt (TRL passes one per completion: a GRPO group is its prompt repeated) is looked
    up in ``dataset`` (from :func:`~toolgym.train.build_prompt_dataset`) for its task, and the
    episodes are played ``batch_size`` at a time with the trainer's model, sampling with the
    trainer's ``temperature`` / ``top_p`` (a torch seed per training step) and at most
    ``max_completion_length`` tokens per turn.
    Prompts are token chains (:class:`~toolgym.eval.rollouts.TokenChain`), so an episode is one
    sequence: ``prompt_ids`` the first prompt, ``completion_ids`` everything after it, with
    ``env_mask`` 1 on exactly the model's tokens and ``logprobs`` (the model's, 0 on env
    tokens), and ``env_reward`` the episode return (or ``metric``), for
    :func:`~toolgym.train.env_reward`.

    Args:
        env_id: A toolgym env id.
        dataset: The prompt dataset the trainer draws from (rows with ``prompt`` and ``task_id``).
        env_kwargs: Keywords of ``gym.make``, as for the dataset.
        seed: The seed of every reset.
        batch_size: Episodes stepped together (one generate call per step).
        max_steps: Steps after which an episode is cut.
        prompt_format: The agent's prompt format; default: the env's.
        parser: The agent's parser; default: the format's, else the env's.
        metric: A key of the final ``info["metrics"]`` (or keys joined by ``+``, summed) to
            use instead of the return, for partial credit (e.g. ``stated_f1+draft_f1`` of
            HomeSearch's statements); an episode cut before it ends scores 0.
    """
    env_kwargs = dict(env_kwargs or {})
    task_of = {prompt_key(row["prompt"]): row["task_id"] for row in dataset}
    probe = make_env(env_id, env_kwargs)

    def rollout_func(prompts: Sequence[list[dict]], trainer) -> dict:
        model = trainer.accelerator.unwrap_model(trainer.model)
        backend = TrainerModelBackend(model, trainer.processing_class)
        args = trainer.args
        # Sampled (a group's completions must differ for GRPO to compare them), from a stream
        # seeded per step: reproducible, and no step repeats another's samples.
        sampling = SamplingParams(temperature=args.temperature, top_p=args.top_p,
                                  max_new_tokens=args.max_completion_length,
                                  seed=seed * 1_000_003 + trainer.state.global_step)
        agent = LLMAgent(backend, env=probe, prompt_format=prompt_format, parser=parser, sampling=sampling)
        jobs = [task_of[prompt_key(p)] for p in prompts]
        header = run_header(env_id, probe, "trainer", seed, env_kwargs, agent)
        records = play_batched(env_id, env_kwargs, agent, jobs, header, seed, batch_size, chain=True,
                               max_steps=max_steps)
        out: dict[str, list] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
                                "env_reward": []}
        for record in records:
            episode = episode_from_record(record)
            segments = episode.segments()
            if len(segments) != 1:
                raise RuntimeError(f"{env_id} task {episode.task_id}: a chained episode gave {len(segments)} "
                                   f"sequences; {record.get('error') or 'no model turn'}")
            segment = segments[0]
            out["prompt_ids"].append(segment.prompt_ids)
            out["completion_ids"].append(segment.completion_ids)
            out["logprobs"].append(segment.completion_logprobs)
            out["env_mask"].append(segment.completion_mask)
            if metric is None:
                out["env_reward"].append(episode.episode_return)
            else:
                out["env_reward"].append(metric_value(episode.metrics, metric))
        return out

    return rollout_func
