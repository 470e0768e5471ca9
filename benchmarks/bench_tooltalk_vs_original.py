"""ToolTalk-v0 against ToolTalk's own simulator: one oracle pass over each official split.

The original is not a dependency: pass a checkout of https://github.com/microsoft/ToolTalk
(``git clone`` it anywhere). Both sides play the same conversations from that checkout's
``data/`` with a perfect predictor, in one process, alternating, and the script prints the
median time of a full pass per split and the ratio:

- the original: ``ToolExecutor.run_conversation`` with an oracle predictor, then
  ``evaluate_predictions``, per conversation file, as its ``tests/test_oracle.py`` does. Its
  text embedding (sent2vec, which downloads a model) is replaced by a constant vector, so
  free-text comparisons cost a dot product;
- toolgym: ``reset`` and ``step`` of ``ToolTalk-v0`` (``tasks="official"``, the lexical text
  comparator, which identical texts never reach) driven by ``OracleAgent``.

Each pass must score success on every conversation, or the script stops.

Run: .venv/bin/python benchmarks/bench_tooltalk_vs_original.py --original /path/to/ToolTalk [--reps 11]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
import types
from pathlib import Path

import numpy as np

SPLITS = {"easy": "easy", "hard": "tooltalk"}  # toolgym's split -> the original's folder


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
    the history the simulator passes; the calls made in it, by counting its api entries."""

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
    start = time.perf_counter()
    for text in texts:
        conversation = json.loads(text)
        played = executor.run_conversation(conversation, GroundTruthPredictor(conversation))
        if not executor.evaluate_predictions(played)["metrics"]["success"]:
            raise SystemExit(f"the original's oracle failed on {conversation['name']}")
    return time.perf_counter() - start


def toolgym_pass(env, agent, task_ids: list[str]) -> float:
    start = time.perf_counter()
    for task_id in task_ids:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            obs, _, done, _, info = env.step(agent.act(obs, info))
        if info["metrics"]["success"] != 1.0:
            raise SystemExit(f"toolgym's oracle failed on {task_id}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--original", required=True, type=Path, help="a checkout of microsoft/ToolTalk")
    parser.add_argument("--reps", type=int, default=11, help="alternating passes per side and split")
    args = parser.parse_args()
    data = args.original / "data"
    if not (args.original / "src" / "tooltalk").is_dir() or not (data / "databases").is_dir():
        raise SystemExit(f"{args.original} is not a ToolTalk checkout (no src/tooltalk/ and data/databases/): "
                         "git clone https://github.com/microsoft/ToolTalk and pass its folder")

    stub_sent2vec()
    sys.path.insert(0, str(args.original / "src"))
    from tooltalk.evaluation.tool_executor import ToolExecutor

    import gymnasium as gym

    import toolgym  # noqa: F401
    from toolgym.agents import OracleAgent

    executor = ToolExecutor(init_database_dir=str(data / "databases"))
    print(f"{'split':<6} {'conversations':>13} {'original (ms)':>14} {'toolgym (ms)':>13} {'toolgym faster':>15}")
    for split, folder in SPLITS.items():
        texts = [path.read_text(encoding="utf-8") for path in sorted((data / folder).glob("*.json"))]
        env = gym.make("ToolTalk-v0", tasks="official", data_dir=str(data), split=split,
                       text_similarity="lexical").unwrapped
        agent, task_ids = OracleAgent(env), env.task_ids()
        if len(task_ids) != len(texts):
            raise SystemExit(f"{split}: toolgym read {len(task_ids)} conversations, the original {len(texts)}")
        original_pass(executor, texts), toolgym_pass(env, agent, task_ids)  # warm-up
        original, ours = [], []
        for _ in range(args.reps):
            original.append(original_pass(executor, texts))
            ours.append(toolgym_pass(env, agent, task_ids))
        a, b = statistics.median(original), statistics.median(ours)
        print(f"{split:<6} {len(texts):>13} {a * 1000:>14.1f} {b * 1000:>13.1f} {a / b:>14.2f}x")


if __name__ == "__main__":
    main()
