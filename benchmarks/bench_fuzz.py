"""Fuzz every env with 10,000 adversarial actions; print worst step time and peak memory.

    python benchmarks/bench_fuzz.py [ACTIONS] [ENV_ID ...]

Actions are the oracle's, mutated by :class:`toolgym.agents.fuzz.FuzzAgent`. Peak memory is
the Python heap peak of the worst single step (tracemalloc), so it measures what one action
can make the env allocate; tracemalloc also slows every step by about 2x, which makes the
step times upper bounds.
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import toolgym
from toolgym.agents.fuzz import fuzz_run

ENV_KWARGS = {"AppBench-v0": {"tasks_per_category": 50}}


def main() -> None:
    actions = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    env_ids = sys.argv[2:] or list(toolgym.ENV_IDS)
    print(f"{'env':16s} {'mode':12s} {'steps':>6s} {'episodes':>8s} {'worst step':>11s} {'peak MiB':>9s} "
          f"{'exceptions':>10s} {'total':>7s}", flush=True)
    for env_id in env_ids:
        for mode in load_env_creator(gym.spec(env_id).entry_point).modes or (None,):
            env = gym.make(env_id, **ENV_KWARGS.get(env_id, {}), **({"mode": mode} if mode else {}))
            start = time.perf_counter()
            stats = fuzz_run(env, actions, seed=0)
            total = time.perf_counter() - start
            print(f"{env_id:16s} {mode or '-':12s} {stats['steps']:6d} {stats['episodes']:8d} "
                  f"{1000 * stats['worst_step_s']:9.1f}ms {stats['peak_bytes'] / 2**20:9.1f} "
                  f"{len(stats['exceptions']):10d} {total:6.1f}s", flush=True)
            for line in stats["exceptions"][:5]:
                print("    ", line)


if __name__ == "__main__":
    main()
