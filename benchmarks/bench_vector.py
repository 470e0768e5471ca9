"""Vector envs: oracle episodes per second, ``gym.make_vec`` sync vs async vs toolgym's default, at N = 1, 2, 4.

Modes: ``sync``; ``async``, gymnasium's (the whole ``info`` pickled each step); ``toolgym``, the
default ``make_vec`` (``toolgym.envs.common.vector``: one process when a step is cheap, else workers
that send ``info`` as deltas; the line says which ran and why). ``--dear`` adds each env with every
step made to cost 5 ms more of CPU (a busy loop), the case worker processes are for. The ratio
column is the default's episodes per second over sync's at the largest N.

    python benchmarks/bench_vector.py [--episodes 24] [--envs CatAPI-v0 ToolTalk-v0 ...] [--dear]

Every sub-env plays the oracle; an episode counts when its sub-env terminates (the vector
env resets it on the next step, gymnasium's default next-step autoreset). Each cell first plays
one episode untimed (models loaded, caches warm), then the clock runs.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym

import toolgym
from toolgym.envs.common.vector import vector_env_from_fns

ENV_KWARGS = {"AppBench-v0": {"tasks_per_category": 5}}
DEFAULT_ENVS = ("CatAPI-v0", "HomeSearch-v0", "AppBench-v0", "ToolTalk-v0")
DEAR_STEP_SECONDS = 0.005
SIZES = (1, 2, 4)


class DearSteps(gym.Wrapper):
    """Each step costs ``DEAR_STEP_SECONDS`` more of CPU."""

    def step(self, action):
        end = time.process_time() + DEAR_STEP_SECONDS
        while time.process_time() < end:
            pass
        return self.env.step(action)


def _make(env_id: str, dear: bool):
    env = gym.make(env_id, **ENV_KWARGS.get(env_id, {}))
    return DearSteps(env) if dear else env


def _vector(env_id: str, mode: str, num_envs: int, dear: bool):
    fns = [lambda: _make(env_id, dear) for _ in range(num_envs)]
    if mode == "toolgym":
        return vector_env_from_fns(fns)
    return gym.vector.SyncVectorEnv(fns) if mode == "sync" else gym.vector.AsyncVectorEnv(fns)


def _play(envs, episodes: int) -> int:
    done = 0
    while done < episodes:
        actions = tuple(a if a is not None else "" for a in envs.call("oracle_action"))
        _, _, terminated, truncated, _ = envs.step(actions)
        done += int((terminated | truncated).sum())
    return done


def episodes_per_second(env_id: str, mode: str, num_envs: int, episodes: int, dear: bool) -> tuple[float, str]:
    envs = _vector(env_id, mode, num_envs, dear)
    try:
        envs.reset(seed=0)
        _play(envs, 1)
        start = time.perf_counter()
        done = _play(envs, episodes)
        return done / (time.perf_counter() - start), getattr(envs, "vectorization_reason", "")
    finally:
        envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--envs", nargs="+", default=[e for e in DEFAULT_ENVS if e in toolgym.ENV_IDS])
    parser.add_argument("--dear", action="store_true", help=f"also each env with {DEAR_STEP_SECONDS * 1000:g} ms steps")
    args = parser.parse_args()
    print(f"oracle episodes/s on {os.cpu_count()} CPUs ({args.episodes} episodes per cell)")
    print(f"{'env':24s} {'mode':7s} " + " ".join(f"N={n:<6d}" for n in SIZES) + " default/sync  what the default ran")
    for env_id in args.envs:
        for dear in (False, True) if args.dear else (False,):
            label = env_id + (" +5ms" if dear else "")
            rows = {}
            for mode in ("sync", "async", "toolgym"):
                cells = [episodes_per_second(env_id, mode, n, args.episodes, dear) for n in SIZES]
                rows[mode] = cells
                ratio = f"{cells[-1][0] / rows['sync'][-1][0]:.2f}" if mode == "toolgym" else ""
                reason = cells[-1][1] if mode == "toolgym" else ""
                print(f"{label:24s} {mode:7s} " + " ".join(f"{c:<8.1f}" for c, _ in cells) + f" {ratio:12s}  {reason}",
                      flush=True)


if __name__ == "__main__":
    main()
