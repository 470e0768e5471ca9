"""Tree search overhead per LLM call on ToolLLM-v0: everything a decision costs except generation.

    python benchmarks/bench_search.py [--catalogue-size small|medium|full] [--tasks 16] [--batch-size 8]

A backend that answers instantly (a call of an unknown function, so that every chain runs into
the step limit and DFSDT branches and backtracks through its whole budget) drives the shared
``LLMAgent``; what is timed is prompt building, parsing, env steps, snapshots, restores and
the search's bookkeeping. The baseline is the same agent stepping the env without a search.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import toolgym  # noqa: F401
from toolgym.agents.llm import LLMAgent
from toolgym.llm.backends import Completion
from toolgym.agents.search import parse_strategy, run_searches


class InstantBackend:
    """Answers every request at once with a call of a function no env offers."""

    name = "instant"

    def generate(self, requests, sampling):
        return [Completion(text='{"name": "not_a_function", "arguments": {}}', prompt_tokens=0, completion_tokens=0)
                for _ in requests]

    def describe(self) -> dict:
        return {"backend": self.name, "model": None}


def plain_steps(env, agent, task_ids: list[str]) -> tuple[int, float]:
    steps, start = 0, time.perf_counter()
    for task_id in task_ids:
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        agent.reset(observation, info)
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
            steps += 1
            done = terminated or truncated
    return steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalogue-size", default="small")
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    start = time.perf_counter()
    envs = [gym.make("ToolLLM-v0", catalogue_size=args.catalogue_size) for _ in range(args.batch_size)]
    print(f"{args.batch_size} ToolLLM-v0 env(s), {args.catalogue_size} catalogue, made in "
          f"{time.perf_counter() - start:.1f}s")
    task_ids = envs[0].unwrapped.task_ids()[:: max(1, len(envs[0].unwrapped.task_ids()) // args.tasks)][:args.tasks]
    agent = LLMAgent(InstantBackend(), env=envs[0])
    run_searches(envs, agent, parse_strategy("dfsdt", max_llm_calls=20), task_ids)  # warm caches up
    steps, seconds = plain_steps(envs[0], agent, task_ids)
    base = 1000 * seconds / steps
    print(f"no search:  {steps} steps, {base:.2f} ms per LLM call")
    for name in ("react", "react@3", "dfsdt"):
        stats: dict = {}
        start = time.perf_counter()
        results = run_searches(envs, agent, parse_strategy(name), task_ids, stats=stats)
        seconds = time.perf_counter() - start
        calls = sum(r.llm_calls for r in results.values())
        restores = sum(r.restores for r in results.values())
        per_call = 1000 * seconds / calls
        print(f"{name:10s} {calls} LLM calls, {restores} restores, {stats['policy_calls']} batched calls: "
              f"{per_call:.2f} ms per LLM call ({per_call - base:+.2f} ms over no search)")


if __name__ == "__main__":
    main()
