"""Vector envs: oracle episodes per second, ``gym.make_vec`` sync vs async, at N = 1, 2, 4.

Modes: ``sync``; ``async``, gymnasium's (the whole ``info`` pickled each step); ``toolgym``, the
default ``make_vec`` (``toolgym.envs.common.vector``: ``info`` as deltas).

    python benchmarks/bench_vector.py [--episodes 24] [--envs CatAPI-v0 ToolTalk-v0 ...]

Every sub-env plays the oracle; an episode counts when its sub-env terminates (the vector
env resets it on the next step, gymnasium's default next-step autoreset). The clock runs from
the first reset, so making the envs (worker processes for async) is not counted.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym

import toolgym

ENV_KWARGS = {"AppBench-v0": {"tasks_per_category": 5}}
DEFAULT_ENVS = ("CatAPI-v0", "HomeSearch-v0", "AppBench-v0", "ToolTalk-v0")


def episodes_per_second(env_id: str, mode: str, num_envs: int, episodes: int) -> float:
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=None if mode == "toolgym" else mode,
                        **ENV_KWARGS.get(env_id, {}))
    try:
        start = time.perf_counter()
        envs.reset(seed=0)
        done = 0
        while done < episodes:
            actions = tuple(a if a is not None else "" for a in envs.call("oracle_action"))
            _, _, terminated, truncated, _ = envs.step(actions)
            done += int((terminated | truncated).sum())
        return done / (time.perf_counter() - start)
    finally:
        envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--envs", nargs="+", default=[e for e in DEFAULT_ENVS if e in toolgym.ENV_IDS])
    args = parser.parse_args()
    print(f"oracle episodes/s on {os.cpu_count()} CPUs ({args.episodes} episodes per cell)")
    print(f"{'env':16s} {'mode':7s} " + " ".join(f"N={n:<6d}" for n in (1, 2, 4)))
    for env_id in args.envs:
        for mode in ("sync", "async", "toolgym"):
            cells = [episodes_per_second(env_id, mode, n, args.episodes) for n in (1, 2, 4)]
            print(f"{env_id:16s} {mode:7s} " + " ".join(f"{c:<8.1f}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
