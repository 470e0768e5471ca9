"""Supervised fine-tuning on an env's oracle demonstrations (``toolgym demos``) with TRL.

The first step of the recipe in docs/training.md (SFT, then GRPO with
``examples/grpo_toolgym.py --model OUTPUT/model``, then ``toolgym eval`` on the official items)::

    python examples/sft_demos.py --env BFCL-v0 --env-kwarg split=train \\
        --env-kwarg 'category=["simple_python","multiple","parallel","parallel_multiple","irrelevance"]' \\
        --episodes 2000 --model smollm2-135m-instruct --output-dir runs/bfcl-sft

Each step is resumable: the demonstrations file (``OUTPUT/demos.jsonl``) is written once and
reused; training continues from the last checkpoint in ``OUTPUT/checkpoints``; the trained model
(``OUTPUT/model``, LoRA adapters merged into the weights) is a plain folder that ``hf:`` loads.
``--model`` is anything ``hf:`` takes (a packaged model, a ``.gguf`` file, a folder) or ``tiny``
(a random model built here: the fast smoke run). ``--device cuda`` trains on a GPU.

A model whose chat template renders no tools (SmolLM2) is trained on what the ``hf:`` backend
will send it: the tool docs in the system message, the answer's calls as one JSON list, the
loss on the last assistant message only (:func:`toolgym.train.demos.plain_chat_example`).
Templates that render tools (Qwen's, the tiny model's) get the conversations as they are.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolgym.eval.cli import parse_kwarg


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", required=True, help="a toolgym env id with an oracle")
    p.add_argument("--env-kwarg", action="append", type=parse_kwarg, default=[], metavar="KEY=VALUE")
    p.add_argument("--episodes", type=int, default=1000, help="demonstrations to train on (default 1000)")
    p.add_argument("--model", default="tiny", help="tiny, a packaged model, a .gguf file or a model folder")
    p.add_argument("--output-dir", required=True, help="demonstrations, checkpoints and the trained model")
    p.add_argument("--epochs", type=float, default=1.0, help="passes over the demonstrations (default 1)")
    p.add_argument("--max-steps", type=int, default=-1, help="stop after this many steps (default: the epochs)")
    p.add_argument("--save-steps", type=int, default=100, help="steps between checkpoints (default 100)")
    p.add_argument("--batch-size", type=int, default=8, help="conversations per step (default 8)")
    p.add_argument("--micro-batch-size", type=int,
                   help="conversations per forward pass, a step's gradient summed over batch-size / "
                        "micro-batch-size passes: the same training, less memory (default: 1 on a CPU, where "
                        "unpadded passes are also faster, the batch size on a GPU)")
    p.add_argument("--learning-rate", type=float, default=2e-4, help="default 2e-4")
    p.add_argument("--lora-rank", type=int, default=0, help="train LoRA adapters of this rank (default 0: every weight)")
    p.add_argument("--max-length", type=int, default=2048, help="tokens per conversation at most (default 2048)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="default cpu")
    p.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32",
                   help="weights of the model (default float32); bfloat16 with --lora-rank is several times "
                        "faster on CPUs with AVX-512 BF16 or AMX")
    p.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's)")
    p.add_argument("--seed", type=int, default=0)
    return p


def model_folder(name: str, output: Path, corpus: list[str], seed: int) -> Path:
    """A folder ``from_pretrained`` reads: a tiny random model, a packaged/GGUF model dequantised, or ``name``."""
    if name == "tiny":
        from toolgym.llm.tiny import build_tiny_model

        folder = output / "tiny-base"
        return folder if (folder / "config.json").exists() else build_tiny_model(folder, seed=seed, corpus=corpus)
    from toolgym.llm.gguf import dequantised_folder, find_gguf

    gguf = find_gguf(name)
    return dequantised_folder(gguf, "float32") if gguf is not None else Path(name)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import torch
    from datasets import load_dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.trainer_utils import get_last_checkpoint
    from trl import SFTConfig, SFTTrainer

    from toolgym.train.demos import plain_chat_example, write_demonstrations

    if args.threads:
        torch.set_num_threads(args.threads)
    output = Path(args.output_dir)
    output.mkdir(parents=True, exist_ok=True)
    demos = output / "demos.jsonl"
    if not demos.exists():  # written whole, then renamed: a half-written file is never reused
        partial = demos.with_suffix(".partial")
        count = write_demonstrations(partial, args.env, dict(args.env_kwarg), args.episodes, args.seed)
        partial.rename(demos)
        print(f"wrote {count} demonstrations to {demos}")
    final = output / "model"
    if (final / "config.json").exists():
        print(f"{final} is trained already")
        return 0
    lines = demos.read_text(encoding="utf-8").splitlines()
    base = model_folder(args.model, output, lines[:200], args.seed)
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=getattr(torch, args.dtype))
    peft_config = None
    if args.lora_rank:
        from peft import LoraConfig

        peft_config = LoraConfig(r=args.lora_rank, lora_alpha=2 * args.lora_rank, target_modules="all-linear",
                                 task_type="CAUSAL_LM")
    checkpoints = output / "checkpoints"
    micro = args.micro_batch_size or (1 if args.device == "cpu" else args.batch_size)
    if micro < 1 or args.batch_size % micro:
        raise SystemExit(f"--micro-batch-size {micro} must divide --batch-size {args.batch_size}")
    # Activations are recomputed only on a GPU: a CPU has the memory, and recomputing costs time.
    config = SFTConfig(output_dir=str(checkpoints), num_train_epochs=args.epochs, max_steps=args.max_steps,
                       per_device_train_batch_size=micro, gradient_accumulation_steps=args.batch_size // micro,
                       learning_rate=args.learning_rate,
                       max_length=args.max_length, logging_steps=min(10, args.save_steps),
                       save_steps=args.save_steps, save_total_limit=2,
                       report_to=[], seed=args.seed, use_cpu=args.device == "cpu",
                       bf16=args.device == "cuda", assistant_only_loss=False,
                       gradient_checkpointing=args.device == "cuda")
    dataset = load_dataset("json", data_files=str(demos), split="train")
    if "tools" not in (tokenizer.chat_template or ""):
        dataset = dataset.map(plain_chat_example, fn_kwargs={"chat_template": bool(tokenizer.chat_template)},
                              remove_columns=dataset.column_names)
    trainer = SFTTrainer(model=model, args=config, processing_class=tokenizer, peft_config=peft_config,
                         train_dataset=dataset)
    last = get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None
    trainer.train(resume_from_checkpoint=last)
    trained = trainer.model.merge_and_unload() if args.lora_rank else trainer.model
    trained.save_pretrained(final)
    tokenizer.save_pretrained(final)
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    print(f"trained {trainer.state.global_step} steps; loss {losses[0]:.3f} -> {losses[-1]:.3f}" if losses
          else f"trained {trainer.state.global_step} steps")
    print(f"evaluate: toolgym eval {args.env} --agent hf:{final} --prompt-format chat ...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
