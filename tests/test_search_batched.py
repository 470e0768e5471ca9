"""Batched DFSDT with a real (tiny, random) model: the trees of 8 tasks advanced together equal those
of one task at a time under greedy decoding."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

pytest.importorskip("transformers")

import toolgym  # noqa: F401,E402
from toolgym.agents.llm import LLMAgent  # noqa: E402
from toolgym.llm import SamplingParams, TransformersBackend  # noqa: E402
from toolgym.llm.tiny import build_tiny_model  # noqa: E402
from toolgym.agents.search import parse_strategy, run_search  # noqa: E402
from toolgym.eval.batch import evaluate_search  # noqa: E402

ENV = "ToolLLM-v0"
KWARGS = {"max_calls": 2}  # short chains: the tree branches often within a small budget
STRATEGY = parse_strategy("dfsdt", max_llm_calls=5)
TASK_IDS = gym.make(ENV).unwrapped.task_ids()[::90][:8]


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    env = gym.make(ENV)
    corpus = []
    for task_id in TASK_IDS:  # the prompts' own text, so that they are short in tokens
        info = env.reset(seed=0, options={"task_id": task_id})[1]
        corpus += [m["content"] for m in info["messages"]] + [json.dumps(t) for t in info["tools"]]
    path = build_tiny_model(tmp_path_factory.mktemp("tiny"), seed=5, corpus=corpus * 3, vocab_size=4096)
    return LLMAgent(TransformersBackend(str(path)), env=env, sampling=SamplingParams(max_new_tokens=6))


def test_batched_dfsdt_over_8_tasks_equals_one_at_a_time(agent, tmp_path):
    records, _, stats = evaluate_search(ENV, "hf:tiny", STRATEGY, agent=agent, env_kwargs=KWARGS, out=tmp_path / "r.jsonl",
                                        episodes=8, progress=False, batch_size=8)
    assert stats["generate_calls"] * 4 <= stats["llm_calls"]  # several trees per generate call
    assert sum(r["search"]["restores"] for r in records) > 0  # the trees really branched
    assert all(r["decoding"]["search"]["strategy"] == "dfsdt" and r["model"] for r in records)
    assert all(s["llm"]["completion_token_ids"] for r in records for s in r["trajectory"])
    env = gym.make(ENV, **KWARGS)
    for record in records:
        alone = run_search(env, agent, STRATEGY, record["task_id"])
        tree = {k: v for k, v in record["search"].items() if k not in ("strategy", "llm_calls", "chains", "restores")}
        assert tree == json.loads(json.dumps(alone.toolbench(), default=str))
        assert [s["llm"]["completion_token_ids"] for s in record["trajectory"]] == \
            [s["llm"]["completion_token_ids"] for s in alone.trajectory()]
