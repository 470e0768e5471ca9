"""Ray scale-out: episodes/s of the local runner vs ``--ray`` with 2 workers, and Ray's cost per episode.

    python benchmarks/bench_ray.py [--env CatAPI-v0] [--episodes 108] [--agent oracle]

Throughput counts a whole ``evaluate`` / ``evaluate_ray`` call (for Ray: starting the
actors, which import toolgym and make their env, and streaming records to the driver) after
``ray.init``. The per-episode overhead is the time of one episode played through one warm
actor (submit, run, return the record) minus the same episode played in-process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import ray

from toolgym.eval.ray_runner import EpisodeWorker, evaluate_ray
from toolgym.eval.runner import evaluate, run_episode, select_tasks
from toolgym.registry import make_env


def per_episode_seconds(play, task_ids, repeats: int = 3) -> float:
    """The median over ``repeats`` passes of the mean time per episode."""
    passes = []
    for _ in range(repeats):
        start = time.perf_counter()
        for task_id in task_ids:
            play(task_id)
        passes.append((time.perf_counter() - start) / len(task_ids))
    return statistics.median(passes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="CatAPI-v0")
    parser.add_argument("--agent", default="oracle")
    parser.add_argument("--episodes", type=int, default=None, help="default: the whole task set")
    args = parser.parse_args()

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"{args.env}, agent {args.agent}, {os.cpu_count()} CPUs; ray.init {time.perf_counter() - start:.1f}s")

    records, _ = evaluate(args.env, args.agent, episodes=args.episodes, progress=False)  # warm caches
    start = time.perf_counter()
    records, _ = evaluate(args.env, args.agent, episodes=args.episodes, progress=False)
    local = len(records) / (time.perf_counter() - start)
    start = time.perf_counter()
    records, _, stats = evaluate_ray(args.env, args.agent, episodes=args.episodes, progress=False, num_workers=2)
    remote = len(records) / (time.perf_counter() - start)
    print(f"episodes/s: local {local:.1f}, Ray with 2 workers {remote:.1f} ({len(records)} episodes, "
          f"actor start included: {stats['seconds']:.1f}s in evaluate_ray)")

    env = make_env(args.env)
    task_ids = select_tasks(env)[:20]
    from toolgym.agents import make_agent
    agent = make_agent(args.agent, env)
    in_process = per_episode_seconds(lambda t: run_episode(env, agent, t, 0), task_ids)
    actor = ray.remote(num_cpus=1)(EpisodeWorker).remote(args.env, {}, args.agent, 0, {})
    ray.get(actor.ping.remote())
    through_ray = per_episode_seconds(lambda t: ray.get(actor.run.remote(t)), task_ids)
    start = time.perf_counter()
    for _ in range(200):
        ray.get(actor.ping.remote())
    round_trip = (time.perf_counter() - start) / 200
    print(f"an empty call to a warm actor: {1e3 * round_trip:.2f} ms")
    print(f"per episode: in-process {1e3 * in_process:.2f} ms, through a warm Ray actor {1e3 * through_ray:.2f} ms: "
          f"Ray overhead {1e3 * (through_ray - in_process):.2f} ms/episode")
    ray.shutdown()


if __name__ == "__main__":
    main()
