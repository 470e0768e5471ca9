"""ToolTalk-v0 speed and memory: import, make, reset, step, full oracle passes, memory per env;
with ``--original``, oracle passes side by side with ToolTalk's own simulator.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/microsoft/ToolTalk (``git clone`` it anywhere). Both sides then play the
official conversations of that checkout's ``data/`` with a perfect predictor, in this process,
alternating, and the median time of a full pass per split is printed with the ratio:

- the original: ``ToolExecutor.run_conversation`` with a ground-truth predictor, then
  ``evaluate_predictions``, per conversation file, as its ``tests/test_oracle.py`` does. Its
  text embedding (sent2vec, which downloads a model) is replaced by a constant vector, so a
  free-text comparison costs a dot product;
- toolgym: ``reset`` and ``step`` of ``ToolTalk-v0`` (``tasks="official"``, the lexical text
  comparator, which identical texts never reach) driven by ``OracleAgent``.

Every pass must succeed on every conversation, or the script stops.

Run: .venv/bin/python benchmarks/bench_tooltalk.py [--data-dir ../shared/data] [--original /path/to/ToolTalk]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
import types
from pathlib import Path

import numpy as np

ORIGINAL_SPLITS = {"easy": "easy", "hard": "tooltalk"}  # toolgym's split -> the original's folder


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
    parser.add_argument("--original", type=Path, help="a checkout of microsoft/ToolTalk, to compare with")
    parser.add_argument("--reps", type=int, default=11, help="with --original: alternating passes per side and split")
    args = parser.parse_args()
    if args.original is not None:
        compare_with_original(args.original, args.reps)

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


# -- side by side with the original -------------------------------------------------------
def stub_sent2vec() -> None:
    """Install a ``sent2vec.vectorizer`` whose vectors are all the same unit vector."""

    class Vectorizer:
        def __init__(self):
            self.vectors: list = []

        def run(self, texts: list[str]) -> None:
            self.vectors = [np.ones(8) / np.sqrt(8) for _ in texts]

    module = types.ModuleType("sent2vec.vectorizer")
    module.Vectorizer = Vectorizer
    sys.modules["sent2vec"] = types.ModuleType("sent2vec")
    sys.modules["sent2vec.vectorizer"] = module


class GroundTruthPredictor:
    """The original's predictor interface: the next ground-truth call of the current turn,
    then the turn's reply. The turn is found by counting the user and assistant messages in
    the history the simulator passes; the calls made in it, by counting the api entries after them."""

    def __init__(self, conversation: dict):
        self.turns = conversation["conversation"]

    def __call__(self, metadata: dict, history: list[dict]) -> dict:
        turn_index = sum(entry["role"] in ("user", "assistant") for entry in history)
        calls_made = 0
        for entry in reversed(history):
            if entry["role"] != "api":
                break
            calls_made += 1
        turn = self.turns[turn_index]
        apis = turn.get("apis", [])
        if calls_made == len(apis):
            return {"role": "assistant", "text": turn["text"]}
        request = apis[calls_made]["request"]
        parameters = {k: copy.deepcopy(v) for k, v in request["parameters"].items() if k != "session_token"}
        return {"role": "api", "request": {"api_name": request["api_name"], "parameters": parameters}}


def original_pass(executor, texts: list[str]) -> float:
    """Seconds of the original's oracle pass over the conversation files' ``texts``."""
    start = time.perf_counter()
    for text in texts:
        conversation = json.loads(text)
        played = executor.run_conversation(conversation, GroundTruthPredictor(conversation))
        if not executor.evaluate_predictions(played)["metrics"]["success"]:
            raise SystemExit(f"the original's oracle failed on {conversation['name']}")
    return time.perf_counter() - start


def compare_with_original(checkout: Path, reps: int) -> None:
    """Print the median oracle pass of each official split, the original's and toolgym's."""
    data = checkout / "data"
    if not (checkout / "src" / "tooltalk").is_dir() or not (data / "databases").is_dir():
        raise SystemExit(f"{checkout} is not a ToolTalk checkout (no src/tooltalk/ and data/databases/): "
                         "git clone https://github.com/microsoft/ToolTalk and pass its folder")
    stub_sent2vec()
    sys.path.insert(0, str(checkout / "src"))
    from tooltalk.evaluation.tool_executor import ToolExecutor

    import gymnasium as gym

    import toolgym  # noqa: F401

    executor = ToolExecutor(init_database_dir=str(data / "databases"))
    print(f"{'split':<6} {'conversations':>13} {'original (ms)':>14} {'toolgym (ms)':>13} {'toolgym faster':>15}")
    for split, folder in ORIGINAL_SPLITS.items():
        texts = [path.read_text(encoding="utf-8") for path in sorted((data / folder).glob("*.json"))]
        env = gym.make("ToolTalk-v0", tasks="official", data_dir=str(data), split=split, text_similarity="lexical")
        task_ids = env.unwrapped.task_ids()
        if len(task_ids) != len(texts):
            raise SystemExit(f"{split}: toolgym read {len(task_ids)} conversations, the original {len(texts)}")
        original_pass(executor, texts), oracle_pass(env, task_ids)  # warm-up
        original, ours = [], []
        for _ in range(reps):
            original.append(original_pass(executor, texts))
            seconds, _, success = oracle_pass(env, task_ids)
            if success != 1.0:
                raise SystemExit(f"{split}: toolgym's oracle failed on a conversation")
            ours.append(seconds)
        a, b = statistics.median(original), statistics.median(ours)
        print(f"{split:<6} {len(texts):>13} {a * 1000:>14.1f} {b * 1000:>13.1f} {a / b:>14.2f}x")
    print()


if __name__ == "__main__":
    main()
