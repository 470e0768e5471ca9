"""ToolLLM's API retriever on ToolLLM-v0: NDCG@1/3/5 per group (the paper's Table 2) and latency.

    python benchmarks/bench_retriever.py [--catalogue-size small] [--pairs-seed 1] [--epochs 1] [--train-layers N]
                                         [--device cpu]
                                         [--data-dir ../shared/data] [--latency-size full]

Prints, for the built-in tasks of a generated world: NDCG of BM25, of the packaged MiniLM as
it is, and of MiniLM fine-tuned with in-batch negatives on instruction -> API pairs of the
training tools only (``toolgym.agents.retriever.training_pairs``); for the official queries
(when the data is there), NDCG of BM25 over the 2,490 APIs they carry; and the latency of one
query against the whole ``--latency-size`` catalogue (``full``: 3,451 tools, ~16,800 APIs).
Dense latency is measured against an index of the full catalogue's size: with
``--encode-full`` the real documents are encoded (minutes on a CPU), otherwise the small
catalogue's embeddings are tiled to that size (the same matrix shape, so the same cost).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import gymnasium as gym
import numpy as np

import toolgym  # noqa: F401 - registers the envs
from toolgym.agents.retriever import (BM25Retriever, DenseRetriever, catalogue, evaluate_retriever, fine_tune,
                                      training_pairs)
from toolgym.worlds.rapidapi.world import RapidAPIWorld


def table(title: str, scores: dict[str, dict[int, float]]) -> None:
    print(f"\n{title}")
    print(f"{'group':16s} {'NDCG@1':>7s} {'NDCG@3':>7s} {'NDCG@5':>7s}")
    for group, by_k in scores.items():
        print(f"{group:16s} " + " ".join(f"{100 * by_k[k]:7.1f}" for k in (1, 3, 5)))


def latency(retrieve, queries: list[str], repeats: int = 3) -> tuple[float, float]:
    """Median and p95 milliseconds of one query."""
    times = []
    for _ in range(repeats):
        for query in queries:
            start = time.perf_counter()
            retrieve([query], k=5)
            times.append(1000 * (time.perf_counter() - start))
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalogue-size", default="small")
    parser.add_argument("--pairs-seed", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--train-layers", type=int, default=None,
                        help="fine-tune only the top N transformer layers (default: all)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data-dir", default=os.environ.get("TOOLGYM_DATA") or "../shared/data")
    parser.add_argument("--latency-size", default="full")
    parser.add_argument("--encode-full", action="store_true")
    args = parser.parse_args()

    env = gym.make("ToolLLM-v0", catalogue_size=args.catalogue_size)
    world, tasks = env.unwrapped.world, list(env.unwrapped.tasks.values())
    print(f"built-in: {len(tasks)} tasks, {len(catalogue(world)[0])} APIs ({args.catalogue_size} catalogue)")
    start = time.perf_counter()
    bm25 = BM25Retriever(world)
    table(f"BM25 (built-in; index {time.perf_counter() - start:.2f}s)", evaluate_retriever(bm25, world, tasks))
    start = time.perf_counter()
    raw = DenseRetriever(world, device=args.device)
    table(f"MiniLM, not fine-tuned (built-in; index {time.perf_counter() - start:.1f}s)",
          evaluate_retriever(raw, world, tasks))
    pairs = training_pairs(world, seed=args.pairs_seed, exclude=[t.query for t in tasks])
    start = time.perf_counter()
    model = fine_tune(pairs, epochs=args.epochs, device=args.device, train_layers=args.train_layers)
    tuned_seconds = time.perf_counter() - start
    dense = DenseRetriever(world, model=model, device=args.device)
    layers = "all layers" if args.train_layers is None else f"top {args.train_layers} layers"
    table(f"MiniLM fine-tuned ({layers}) on {len(pairs)} training-tool pairs, {args.epochs} epoch(s) in "
          f"{tuned_seconds:.1f}s (built-in)", evaluate_retriever(dense, world, tasks))

    try:
        official = gym.make("ToolLLM-v0", tasks="official", data_dir=args.data_dir)
    except (ValueError, FileNotFoundError) as exc:
        print(f"\nofficial queries skipped: {exc}")
    else:
        base = official.unwrapped
        queries = list(base.tasks.values())
        table(f"BM25 (official: {len(queries)} queries, {len(catalogue(base.world)[0])} APIs)",
              evaluate_retriever(BM25Retriever(base.world), base.world, queries))

    start = time.perf_counter()
    full = RapidAPIWorld(seed=0, catalogue_size=args.latency_size)
    ids, documents = catalogue(full)
    print(f"\nlatency over the {args.latency_size} catalogue ({len(ids)} APIs; world built in "
          f"{time.perf_counter() - start:.1f}s), top-5, one query at a time:")
    sample = [t.query for t in tasks[:: max(1, len(tasks) // 50)]]
    start = time.perf_counter()
    bm25_full = BM25Retriever(full)
    print(f"  BM25:  index {time.perf_counter() - start:.2f}s; query median {latency(bm25_full.retrieve, sample)[0]:.2f} "
          f"ms, p95 {latency(bm25_full.retrieve, sample)[1]:.2f} ms")
    if args.encode_full:
        start = time.perf_counter()
        dense_full = DenseRetriever(full, model=model, device=args.device)
        print(f"  dense: encoded {len(ids)} documents in {time.perf_counter() - start:.1f}s")
    else:
        dense_full = dense
        reps = -(-len(ids) // len(dense.ids))
        dense_full.embeddings = np.tile(dense.embeddings, (reps, 1))[:len(ids)]
        dense_full.ids = list(range(len(ids)))
    median, p95 = latency(dense_full.retrieve, sample)
    print(f"  dense: query median {median:.2f} ms, p95 {p95:.2f} ms (encode the query + scores against "
          f"{len(dense_full.ids)} embeddings{'' if args.encode_full else ', tiled'})")


if __name__ == "__main__":
    main()
