"""ToolLLM-v0 speed and memory: catalogue build time and size, calls per second, snapshots.

Run: .venv/bin/python benchmarks/bench_toolllm.py [--data-dir ../shared/data] [--sizes small,medium,full]

Builds run in fresh processes with the world cache off (``TOOLGYM_CACHE=''``), so they measure
generation (or reading the official files), not a cached copy. Memory is the process's peak
resident set growth over a bare import, and the size of the world's database image.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

BUILD = r"""
import json, os, resource, sys, time
import toolgym
from toolgym.worlds.rapidapi import RapidAPIWorld
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
size, data_dir = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if size == "official":
    from toolgym.envs.toolllm.tasks import load_official
    data = load_official("ToolLLM-v0", data_dir, None)
    world = RapidAPIWorld(documents=data.documents)
else:
    world = RapidAPIWorld(catalogue_size=size)
build = time.perf_counter() - start
world._load_apis()
raw = world.sql()
counts = {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("categories", "tools", "apis", "entities")}
snap = world.snapshot()  # the first one also commits and warms up
start = time.perf_counter()
for _ in range(5):
    snap = world.snapshot()
snapshot_s = (time.perf_counter() - start) / 5
start = time.perf_counter()
for _ in range(20):
    world.restore(snap)
restore_s = (time.perf_counter() - start) / 20
tasks_s = None
if size != "official":
    from toolgym.worlds.rapidapi.tasks import builtin_tasks
    start = time.perf_counter()
    builtin_tasks(world)
    tasks_s = time.perf_counter() - start
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps({"build_s": build, "counts": counts, "image_mb": len(snap.database) / 2**20, "rss_mb": rss,
                  "snapshot_ms": 1000 * snapshot_s, "restore_ms": 1000 * restore_s, "tasks_s": tasks_s}))
"""


def calls_per_second(world, seconds: float = 2.0) -> float:
    """Valid calls of read APIs (every API in turn, example arguments) per second."""
    from toolgym.worlds.rapidapi.world import example_arguments
    world._load_apis()
    apis = [a for a in world._apis.values() if a.kind not in ("create", "update", "delete")]
    requests = [(a.id, example_arguments(a)) for a in apis]
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for api_id, arguments in requests[done % len(requests):][:200]:
            world.call(api_id, arguments).observation()
            done += 1
    return done / (time.perf_counter() - start)


def env_steps_per_second(env) -> tuple[float, float]:
    """Oracle steps per second over every task, and the pass rate."""
    base = env.unwrapped
    steps, passed, start = 0, 0.0, time.perf_counter()
    for task_id in base.task_ids():
        env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            _, reward, terminated, truncated, info = env.step(base.oracle_action())
            steps += 1
            done = terminated or truncated
        passed += info["metrics"]["pass"] or 0.0
    return steps / (time.perf_counter() - start), passed / len(base.task_ids())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA", "../shared/data"))
    parser.add_argument("--sizes", default="small,medium,full")
    args = parser.parse_args()
    env_vars = {**os.environ, "TOOLGYM_CACHE": ""}

    make = ("import time; t=time.perf_counter(); import gymnasium as gym, toolgym; gym.make('ToolLLM-v0'); "
            "print(time.perf_counter()-t)")
    fresh = min(float(subprocess.run([sys.executable, "-c", make], capture_output=True, text=True, check=True,
                                     env=env_vars).stdout.split()[-1]) for _ in range(2))
    print(f"import + gym.make('ToolLLM-v0') (small catalogue, 765 tasks), fresh process, no cache: {fresh * 1000:.0f} ms")

    sizes = [s for s in args.sizes.split(",") if s]
    if os.path.isdir(args.data_dir):
        sizes.append("official")
    print(f"{'catalogue':10s} {'build':>8s} {'tools':>6s} {'APIs':>7s} {'entities':>9s} {'image MB':>9s} "
          f"{'RSS MB':>7s} {'snapshot':>9s} {'restore':>8s} {'tasks':>7s}")
    for size in sizes:
        out = subprocess.run([sys.executable, "-c", BUILD, size, args.data_dir], capture_output=True, text=True,
                             env=env_vars)
        if out.returncode:
            print(f"{size:10s} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(out.stdout.splitlines()[-1])
        c = r["counts"]
        tasks = f"{r['tasks_s']:6.2f}s" if r["tasks_s"] is not None else "      -"
        print(f"{size:10s} {r['build_s']:7.2f}s {c['tools']:6d} {c['apis']:7d} {c['entities']:9d} "
              f"{r['image_mb']:9.1f} {r['rss_mb']:7.0f} {r['snapshot_ms']:7.1f}ms {r['restore_ms']:6.1f}ms {tasks}")

    import gymnasium as gym
    import toolgym  # noqa: F401
    from toolgym.worlds.rapidapi import RapidAPIWorld

    for size in ("small", "full") if "full" in sizes else ("small",):
        world = RapidAPIWorld(catalogue_size=size)
        print(f"world calls/s, generated {size}: {calls_per_second(world):,.0f}")
    env = gym.make("ToolLLM-v0")
    rate, passed = env_steps_per_second(env)
    print(f"env oracle steps/s, built-in (765 tasks): {rate:,.0f} (pass rate {passed:.3f})")
    base = env.unwrapped
    base.reset(seed=0, options={"task_id": base.task_ids()[0]})
    start = time.perf_counter()
    for _ in range(200):
        base.restore(base.snapshot())
    print(f"env snapshot + restore (small catalogue): {(time.perf_counter() - start) / 200 * 1000:.2f} ms")
    if os.path.isdir(args.data_dir):
        official = gym.make("ToolLLM-v0", tasks="official", data_dir=args.data_dir)
        print(f"world calls/s, official (2,490 APIs): {calls_per_second(official.unwrapped.world):,.0f}")
        rate, _ = env_steps_per_second(official)
        print(f"env oracle steps/s, official (765 queries; unscored): {rate:,.0f}")


if __name__ == "__main__":
    main()
