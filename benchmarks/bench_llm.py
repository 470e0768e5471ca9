"""Batched vs sequential LLM rollouts: episodes/s and tokens/s (ToolTalk-v0 by default).

Runs the batched lockstep runner with batch sizes 1 (sequential: one episode, one generate
call at a time), 8 and 32 over the same episodes with greedy decoding, on the tiny random
Llama model (CPU) or on a real model (``--model PATH_OR_ID``, e.g. on a GPU)::

    python benchmarks/bench_llm.py [--env ToolTalk-v0] [--episodes 32] [--max-new-tokens 16] [--model ...]

Prints one row per batch size and the speed-up over batch size 1, and checks that every batch
size took exactly the same actions. On a small shared CPU, ``OMP_NUM_THREADS=1`` gives stable
numbers (two torch threads competing with other processes slow down erratically).
"""

from __future__ import annotations

import argparse
import json
import tempfile

import gymnasium as gym

import toolgym  # noqa: F401  (registers the envs)
from toolgym.agents.llm import LLMAgent
from toolgym.llm import SamplingParams, TransformersBackend
from toolgym.llm.tiny import build_tiny_model
from toolgym.eval.batch import evaluate_batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="ToolTalk-v0")
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--batch-sizes", default="1,8,32")
    parser.add_argument("--model", help="a model id or path (default: the tiny random model)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--max-batch-tokens", type=int, default=65536)
    args = parser.parse_args()

    env = gym.make(args.env)
    model = args.model
    if model is None:  # the tokenizer learns the env's prompt text, as a real one knows its language
        _, info = env.reset(seed=0, options={"task_id": env.unwrapped.task_ids()[0]})
        corpus = [json.dumps(t) for t in info.get("tools") or []] * 3 + [m["content"] for m in info["messages"]]
        model = str(build_tiny_model(tempfile.mkdtemp(prefix="tiny-llm-"), seed=3, corpus=corpus))
    backend = TransformersBackend(model, device=args.device, dtype=args.dtype, max_batch_tokens=args.max_batch_tokens)
    sampling = SamplingParams(max_new_tokens=args.max_new_tokens)
    print(f"{args.env}, {args.episodes} episodes, greedy, max_new_tokens={args.max_new_tokens}, "
          f"model={'tiny random Llama' if args.model is None else model}, device={backend.device}, "
          f"max_batch_tokens={args.max_batch_tokens}")
    backend.generate([], sampling)
    print(f"{'batch':>5} {'seconds':>8} {'episodes/s':>10} {'tokens/s':>9} {'prompt tok/s':>12} {'calls':>6} "
          f"{'speed-up':>8}")
    baseline, reference = None, None
    for batch_size in (int(b) for b in args.batch_sizes.split(",")):
        agent = LLMAgent(backend, env=env, sampling=sampling)
        records, _, stats = evaluate_batched(args.env, agent, f"hf:{model}", episodes=args.episodes, progress=False,
                                             batch_size=batch_size)
        seconds = stats["seconds"]  # the rollouts, without building the env instances
        actions = [[s["action"] for s in r["trajectory"]] for r in records]
        reference = reference or actions
        same = "" if actions == reference else "  (actions differ from batch size 1!)"
        baseline = baseline or seconds
        print(f"{batch_size:>5} {seconds:>8.2f} {len(records) / seconds:>10.2f} "
              f"{stats['completion_tokens'] / seconds:>9.1f} {stats['prompt_tokens'] / seconds:>12.0f} "
              f"{stats['generate_calls']:>6} {baseline / seconds:>7.2f}x{same}")


if __name__ == "__main__":
    main()
