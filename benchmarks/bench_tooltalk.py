"""ToolTalk-v0 speed and memory: import, make, reset, step, full oracle passes, memory per env.

Run: .venv/bin/python benchmarks/bench_tooltalk.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import tracemalloc


def timed_subprocess(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def oracle_pass(env, task_ids) -> tuple[float, int, float]:
    from toolgym.agents import OracleAgent
    agent, steps, successes = OracleAgent(env), 0, 0.0
    start = time.perf_counter()
    for task_id in task_ids:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            obs, reward, done, _, info = env.step(agent.act(obs, info))
            steps += 1
        successes += info["metrics"]["success"]
    return time.perf_counter() - start, steps, successes / len(task_ids)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA", "../shared/data"))
    args = parser.parse_args()

    imp = min(timed_subprocess("import time; t=time.perf_counter(); import toolgym; print(time.perf_counter()-t)")
              for _ in range(3))
    heavy = subprocess.run([sys.executable, "-c", "import sys, toolgym; print(sorted(m for m in ('torch','transformers','pybullet') if m in sys.modules))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    make = "import time; t=time.perf_counter(); import gymnasium as gym, toolgym; gym.make('ToolTalk-v0'); print(time.perf_counter()-t)"
    cold = timed_subprocess(f"import os; os.environ['TOOLGYM_CACHE'] = ''; {make}")
    timed_subprocess(make)  # fills the task-set cache
    warm = min(timed_subprocess(make) for _ in range(3))
    print(f"import toolgym: {imp * 1000:.0f} ms (heavy modules imported: {heavy})")
    print(f"import + gym.make('ToolTalk-v0') built-in, fresh process: {warm * 1000:.0f} ms "
          f"({cold * 1000:.0f} ms generating the task set without the cache)")
    if os.path.isdir(args.data_dir):
        make_official = timed_subprocess(
            f"import time; t=time.perf_counter(); import gymnasium as gym, toolgym; "
            f"gym.make('ToolTalk-v0', tasks='official', data_dir={args.data_dir!r}); print(time.perf_counter()-t)")
        print(f"import + gym.make('ToolTalk-v0', tasks='official'), fresh process: {make_official * 1000:.0f} ms")

    import gymnasium as gym
    import toolgym  # noqa: F401

    env = gym.make("ToolTalk-v0")
    ids = env.unwrapped.task_ids()
    n = 300
    start = time.perf_counter()
    for i in range(n):
        env.reset(seed=i, options={"task_id": ids[i % len(ids)]})
    print(f"reset: {(time.perf_counter() - start) / n * 1e3:.2f} ms")
    world = env.unwrapped.world
    start = time.perf_counter()
    for _ in range(n):
        snap = world.snapshot()
    snapshot_ms = (time.perf_counter() - start) / n * 1e3
    start = time.perf_counter()
    for _ in range(n):
        world.restore(snap)
    print(f"world.snapshot(): {snapshot_ms:.3f} ms, world.restore(): {(time.perf_counter() - start) / n * 1e3:.3f} ms "
          f"({len(snap.database) // 1024} KiB database image)")
    env.reset(seed=0, options={"task_id": "alarm-swap-0"})
    start = time.perf_counter()
    for _ in range(19):
        env.step({"name": "FindAlarms", "arguments": {}})
    print(f"step (tool call): {(time.perf_counter() - start) / 19 * 1e3:.2f} ms")

    sets = [("built-in", env, ids)]
    if os.path.isdir(args.data_dir):
        official = gym.make("ToolTalk-v0", tasks="official", data_dir=args.data_dir)
        oids = official.unwrapped.task_ids()
        sets.append(("official hard", official, [t for t in oids if official.unwrapped.task_split(t) == "hard"]))
        sets.append(("official easy+hard", official, oids))
    for name, e, task_ids in sets:
        oracle_pass(e, task_ids)  # warm caches
        seconds, steps, success = min((oracle_pass(e, task_ids) for _ in range(3)), key=lambda r: r[0])
        print(f"oracle pass {name}: {len(task_ids)} conversations, {steps} steps, {seconds:.3f} s "
              f"({seconds / steps * 1e3:.2f} ms/step), success {success:.3f}")

    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    extra = [gym.make("ToolTalk-v0") for _ in range(10)]
    for e in extra:
        e.reset(seed=0)
    after = tracemalloc.take_snapshot()
    per_env = sum(s.size_diff for s in after.compare_to(before, "filename")) / len(extra)
    print(f"memory per additional env (task set shared): {per_env / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
