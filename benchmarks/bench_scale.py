"""Scale: make times, resets and steps per second, memory per env and over many resets, vector
envs against a plain loop, WebShop at up to 1,000,000 products, ToolLLM's snapshots, AppBench's
make and the program interpreter against CPython (issue 29's figures), as Markdown.

    .venv/bin/python benchmarks/bench_scale.py [--long] [--out FILE] [--only SECTION ...] [--resets N]

The short mode (``make bench``) runs each measurement small: 2,000 resets, a 20,000-product
WebShop. ``--long`` runs the issue's sizes: 100,000 resets, 1,000,000 products (minutes to
build once; the build is kept in ``$TOOLGYM_CACHE``, or a temporary folder when that is unset).
Every make runs in a fresh process: the table of every env with an empty cache folder (cold)
and then over the filled one (warm); WebShop, ToolLLM and the resets share ``$TOOLGYM_CACHE``
(a new temporary folder when unset), where the first make is the cold one. Ratios are
measured side by side in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import toolgym

ROOT = Path(__file__).resolve().parents[1]
ENV_KWARGS = {"ToolLLM-v0": {}, "WebShop-v0": {}}
SECTIONS = ("envs", "resets", "vector", "webshop", "toolllm", "appbench")


def run_python(code: str, cache: str, timeout: float = 1800) -> dict:
    """Run ``code`` in a fresh interpreter (cache folder ``cache``); it prints one JSON object last."""
    env = {**os.environ, "TOOLGYM_CACHE": cache, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


MAKE_AND_RUN = """
import json, sys, time
start = time.perf_counter()
import gymnasium as gym, toolgym
imported = time.perf_counter()
env = gym.make({env_id!r}, **{kwargs!r})
made = time.perf_counter()
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
result = {{"import_s": imported - start, "make_s": made - imported, "rss_mb": rss()}}
if {measure}:
    u = env.unwrapped
    env.reset(seed=0)
    start = time.perf_counter()
    for seed in range({resets}):
        env.reset(seed=seed)
    result["resets_per_s"] = {resets} / (time.perf_counter() - start)
    steps, spent, seed = 0, 0.0, 0
    while steps < {steps}:
        env.reset(seed=seed)
        seed += 1
        done = False
        while not done and steps < {steps}:
            action = u.oracle_action()
            start = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action if action is not None else "")
            spent += time.perf_counter() - start
            steps += 1
            done = terminated or truncated
    result["steps_per_s"] = steps / spent
    result["rss_after_mb"] = rss()
print(json.dumps(result))
"""


def envs_table(short: bool) -> str:
    rows = ["| env | make cold (s) | make warm (s) | import (s) | resets/s | steps/s | RSS per env (MB) |",
            "|---|---|---|---|---|---|---|"]
    resets, steps = (50, 100) if short else (500, 1000)
    for env_id in toolgym.ENV_IDS:
        kwargs = ENV_KWARGS.get(env_id, {})
        with tempfile.TemporaryDirectory() as cache:
            cold = run_python(MAKE_AND_RUN.format(env_id=env_id, kwargs=kwargs, measure=False, resets=0, steps=0),
                              cache)
            warm = run_python(MAKE_AND_RUN.format(env_id=env_id, kwargs=kwargs, measure=True, resets=resets,
                                                  steps=steps), cache)
        if "error" in cold or "error" in warm:
            rows.append(f"| {env_id} | {cold.get('error', '')} {warm.get('error', '')} |||||")
            continue
        rows.append(f"| {env_id} | {cold['make_s']:.2f} | {warm['make_s']:.2f} | {warm['import_s']:.2f} | "
                    f"{warm['resets_per_s']:.0f} | {warm['steps_per_s']:.0f} | {warm['rss_after_mb']:.0f} |")
    return ("## Every env\n\nmake: `gym.make` in a fresh process after `import toolgym` (cold: empty cache "
            "folder; warm: filled); resets/s and steps/s: the oracle, in that process; RSS: the process's "
            "resident memory after the runs (Python and toolgym included).\n\n" + "\n".join(rows))


RESET_MEMORY = """
import json, time, gymnasium as gym, toolgym
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
env = gym.make({env_id!r})
for seed in range(200):
    env.reset(seed=seed)
before, start = rss(), time.perf_counter()
for seed in range({count}):
    env.reset(seed=seed)
print(json.dumps({{"grown_mb": rss() - before, "seconds": time.perf_counter() - start}}))
"""


def resets_table(short: bool, cache: str, count: int | None = None) -> str:
    count = count or (2_000 if short else 100_000)
    rows = [f"| env | resets | RSS growth (MB) | per reset (bytes) | scaled to 100,000 resets (MB) | resets/s |",
            "|---|---|---|---|---|---|"]
    for env_id in ("Tabletop-v0", "ToolLLM-v0", "WebShop-v0", "ToolTalk-v0"):
        result = run_python(RESET_MEMORY.format(env_id=env_id, count=count), cache, timeout=4 * 3600)
        if "error" in result:
            rows.append(f"| {env_id} | {result['error']} |||||")
            continue
        per = result["grown_mb"] * 2**20 / count
        rows.append(f"| {env_id} | {count:,} | {result['grown_mb']:.1f} | {per:.0f} | {per * 100_000 / 2**20:.1f} | "
                    f"{count / result['seconds']:.0f} |")
    return ("## Memory over resets\n\nResident memory growth over the resets after 200 warm-up ones (goal: under "
            "10 MB per 100,000 resets).\n\n" + "\n".join(rows))


def vector_table(short: bool) -> str:
    import pickle

    import gymnasium as gym

    from toolgym.envs.common.vector import InfoDeltas

    # Bytes a worker sends a ToolTalk step: gymnasium's whole info against toolgym's delta.
    env = InfoDeltas(gym.make("ToolTalk-v0"))
    whole, delta = [], []
    for seed in range(10 if short else 78):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            *_, terminated, truncated, sent = env.step(env.unwrapped.oracle_action())
            done = terminated or truncated
            delta.append(len(pickle.dumps(sent)))
            whole.append(len(pickle.dumps(env.unwrapped._info())))
    lines = [f"ToolTalk, bytes a step sends: gymnasium's whole info {sum(whole) / len(whole):.0f} on average "
             f"(max {max(whole)}), toolgym's delta {sum(delta) / len(delta):.0f} (max {max(delta)}; the episode's "
             "last step carries its metrics).", "",
             "| env | plain loop (steps/s) | sync | gymnasium async | toolgym async | toolgym async / loop |",
             "|---|---|---|---|---|---|"]
    steps = 300 if short else 3000
    for env_id in ("ToolTalk-v0", "HomeSearch-v0", "Tabletop-v0"):
        n = steps // 10 if env_id == "Tabletop-v0" else steps
        loop = _loop_steps_per_s(env_id, n)
        cells = [_vector_steps_per_s(env_id, mode, n) for mode in ("sync", "async", None)]
        lines.append(f"| {env_id} | {loop:.0f} | " + " | ".join(f"{c:.0f}" for c in cells) + f" | {cells[2] / loop:.2f} |")
    return ("## Vector envs (2 workers)\n\nSteps per second of the whole vector env (both sub-envs' steps "
            "counted; a reset's time counts, not as a step), actions precomputed by each sub-env's oracle "
            "through `call`, which is not timed. The plain loop steps two envs in turn.\n\n"
            + "\n".join(lines))


def _loop_steps_per_s(env_id: str, steps: int) -> float:
    import gymnasium as gym

    envs = [gym.make(env_id) for _ in range(2)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    spent, done = 0.0, 0
    while done < steps:
        for i, env in enumerate(envs):
            action = env.unwrapped.oracle_action()
            start = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action if action is not None else "")
            if terminated or truncated:
                env.reset()
            spent += time.perf_counter() - start
            done += 1
    for env in envs:
        env.close()
    return done / spent


def _vector_steps_per_s(env_id: str, mode: str | None, steps: int) -> float:
    import gymnasium as gym

    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    try:
        envs.reset(seed=0)
        spent, done = 0.0, 0
        resetting = [False, False]
        while done < steps:
            actions = tuple(a if a is not None else "" for a in envs.call("oracle_action"))
            start = time.perf_counter()
            _, _, terminated, truncated, _ = envs.step(actions)
            spent += time.perf_counter() - start
            done += resetting.count(False)  # a sub-env that ended resets in this step instead (next-step autoreset)
            resetting = list(terminated | truncated)
        return done / spent
    finally:
        envs.close()


WEBSHOP = """
import json, time, random
start = time.perf_counter()
import gymnasium as gym, toolgym
import numpy as np
env = gym.make("WebShop-v0", num_products={n})
made = time.perf_counter() - start
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
result = {{"make_s": made, "rss_mb": rss()}}
if {search}:
    u = env.unwrapped
    goals = list(u.goal_set.goals.values())
    queries = [g["query"] for g in goals] + [g["instruction_text"] for g in goals]
    random.Random(0).shuffle(queries)
    times = []
    for query in queries[:300]:
        u.shop.search_engine._cache.clear()
        start = time.perf_counter()
        u.shop.search_engine.search(query)
        times.append((time.perf_counter() - start) * 1000)
    result.update(p50=float(np.percentile(times, 50)), p99=float(np.percentile(times, 99)), rss_search_mb=rss())
    env.reset(seed=0)
    start = time.perf_counter()
    for seed in range(200):
        env.reset(seed=seed)
    result["resets_per_s"] = 200 / (time.perf_counter() - start)
print(json.dumps(result))
"""


def webshop_table(short: bool, cache: str) -> str:
    n = 20_000 if short else 1_000_000
    cold = run_python(WEBSHOP.format(n=n, search=False), cache, timeout=4 * 3600)
    warm = [run_python(WEBSHOP.format(n=n, search=True), cache) for _ in range(2)]
    if "error" in cold or any("error" in w for w in warm):
        return f"## WebShop at {n:,} products\n\n{cold.get('error', '')} {[w.get('error') for w in warm]}"
    last = warm[-1]
    return (f"## WebShop at {n:,} products\n\nmake in a fresh process, `import` included (cold: the catalogue "
            "file, goals and index built into the cache folder; warm: read from it). Search: 300 uncached queries "
            "(goal queries and instruction texts).\n\n"
            "| make cold (s) | make warm (s) | RSS after make (MB) | RSS after searches (MB) | search p50 (ms) | "
            "search p99 (ms) | resets/s |\n|---|---|---|---|---|---|---|\n"
            f"| {cold['make_s']:.1f} | {min(w['make_s'] for w in warm):.2f} | {last['rss_mb']:.0f} | "
            f"{last['rss_search_mb']:.0f} | {last['p50']:.1f} | {last['p99']:.1f} | {last['resets_per_s']:.0f} |")


TOOLLLM = """
import json, time
import gymnasium as gym, toolgym
import toolgym.envs.toolllm
start = time.perf_counter()
env = gym.make("ToolLLM-v0", catalogue_size="full")
made = time.perf_counter() - start
u = env.unwrapped
task = next(t for t in u.tasks.values() if t.group.startswith("G1") and t.query.startswith("Add a new"))
start = time.perf_counter()
env.reset(seed=0, options={"task_id": task.query_id})
first_reset = time.perf_counter() - start
initial = u.snapshot()
env.step(u.oracle_action())
start = time.perf_counter()
for _ in range(100):
    snap = u.snapshot()
snapshot_ms = (time.perf_counter() - start) * 10
start = time.perf_counter()
for _ in range(50):
    u.restore(initial)
    u.restore(snap)
restore_ms = (time.perf_counter() - start) * 10
image = len(u.world.database_image())
print(json.dumps({"make_s": made, "first_reset_s": first_reset, "snapshot_ms": snapshot_ms, "restore_ms": restore_ms,
                  "changed_rows": len(snap.world.entities), "image_mb": image / 2**20}))
"""


def toolllm_table(cache: str) -> str:
    run_python(TOOLLLM, cache)  # fills the cache
    result = run_python(TOOLLLM, cache)
    if "error" in result:
        return f"## ToolLLM full catalogue\n\n{result['error']}"
    return ("## ToolLLM full catalogue\n\nmake after the imports, warm cache; a snapshot after one write "
            "(the restore figure is one restore, alternating between the episode's start and that snapshot).\n\n"
            "| make warm (s) | first reset (s) | snapshot (ms) | restore (ms) | rows in a snapshot | database image (MB) |\n"
            "|---|---|---|---|---|---|\n"
            f"| {result['make_s']:.2f} | {result['first_reset_s']:.2f} | {result['snapshot_ms']:.3f} | "
            f"{result['restore_ms']:.3f} | {result['changed_rows']} | {result['image_mb']:.1f} |")


INTERPRETER = """
import json, os, time
import gymnasium as gym, toolgym
from toolgym.worlds.api_programs.toolkit import Date, Loc
REPEATS = 5  # each program's time is its fastest of these runs, on each side: a 2-core machine shared
             # with other work stalls a run of a millisecond now and then
result = {}
for env_id in ("HomeSearch-v0", "TripBooking-v0"):
    env = gym.make(env_id, tasks="official", data_dir=os.environ.get("TOOLGYM_DATA"))
    u = env.unwrapped
    interpreted = cpython = 0.0
    task_ids = u.task_ids()
    for task_id in task_ids:
        fastest_interpreted = fastest_cpython = float("inf")
        for _ in range(REPEATS):
            env.reset(options={"task_id": task_id})
            program = u.oracle_action()
            interpreter = u._new_interpreter()
            start = time.perf_counter()
            interpreter.run(interpreter.check(program))
            fastest_interpreted = min(fastest_interpreted, time.perf_counter() - start)
            env.reset(options={"task_id": task_id})
            invoke = u.world.api.invoke
            class Api:
                def __getattr__(self, name):
                    return lambda *args, **kwargs: invoke(name, list(args), kwargs)
            namespace = {"API": Api(), "Loc": Loc, "Date": Date}
            start = time.perf_counter()
            exec(compile(program, "<program>", "exec"), namespace)
            fastest_cpython = min(fastest_cpython, time.perf_counter() - start)
        interpreted += fastest_interpreted
        cpython += fastest_cpython
    result[env_id] = {"programs": len(task_ids), "ratio": interpreted / cpython}
print(json.dumps(result))
"""


def appbench_table(cache_root: str) -> str:
    with tempfile.TemporaryDirectory() as cache:
        cold = run_python(MAKE_AND_RUN.format(env_id="AppBench-v0", kwargs={}, measure=False, resets=0, steps=0),
                          cache)
    interpreter = run_python(INTERPRETER, cache_root)
    lines = [f"AppBench-v0 cold make: {cold.get('make_s', float('nan')):.2f} s (fresh process, empty cache).", ""]
    if "error" in interpreter:
        lines.append(f"Interpreter against CPython exec: {interpreter['error']}")
    else:
        lines += ["Each side's time is the sum over the programs of each one's fastest of 5 runs (check and run; "
                  "compile and exec).", "",
                  "| official programs | count | interpreter / CPython exec |", "|---|---|---|"]
        lines += [f"| {env_id} | {r['programs']} | {r['ratio']:.2f} |" for env_id, r in interpreter.items()]
    return "## AppBench and the program interpreter\n\n" + "\n".join(lines)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs ({cpu}), "
            f"load average {load:.1f} at the start, toolgym {toolgym.__version__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="the issue's sizes (hours on 2 cores)")
    parser.add_argument("--out", type=Path, help="write the Markdown here too")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--resets", type=int, help="resets of the memory-over-resets table (2,000 short, 100,000 long)")
    args = parser.parse_args()
    short = not args.long
    cache = os.environ.get("TOOLGYM_CACHE") or tempfile.mkdtemp(prefix="toolgym-bench-")
    parts = [f"# Scale ({'short' if short else 'long'} mode)\n\nMachine: {machine()}."]
    for section in args.only:
        started = time.perf_counter()
        if section == "envs":
            parts.append(envs_table(short))
        elif section == "resets":
            parts.append(resets_table(short, cache, args.resets))
        elif section == "vector":
            parts.append(vector_table(short))
        elif section == "webshop":
            parts.append(webshop_table(short, cache))
        elif section == "toolllm":
            parts.append(toolllm_table(cache))
        elif section == "appbench":
            parts.append(appbench_table(cache))
        print(parts[-1] + f"\n\n({time.perf_counter() - started:.0f} s)\n", flush=True)
    if args.out:
        args.out.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
