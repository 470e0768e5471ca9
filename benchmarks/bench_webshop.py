"""WebShop-v0 at scale: world build, search latency (bm25s and rank-bm25 side by side), reset and
step times, memory, and the oracle's and a random agent's scores (run by hand).

    .venv/bin/python benchmarks/bench_webshop.py [--sizes 1000 100000] [--queries 300]

Search latencies are for uncached queries: the goals' queries and instruction texts.
Memory is the process's peak resident set growth while the world and index are built.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import statistics
import time

import gymnasium as gym
import numpy as np

import toolgym  # noqa: F401
from toolgym.worlds.webshop.search import BM25Index, ProductSearch, document_text
from toolgym.worlds.webshop.world import WebShopWorld


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def corpus(world: WebShopWorld) -> tuple[list[str], list[str]]:
    rows = world.all_rows("asin", "name", "description", "bullet_points", "options")
    return [r[0] for r in rows], [document_text(n, d, json.loads(b), json.loads(o)) for _, n, d, b, o in rows]


def time_queries(search, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        times.append((time.perf_counter() - start) * 1000)
    return times


def rank_bm25_search(asins: list[str], texts: list[str], tokenizer):
    from rank_bm25 import BM25Okapi

    vocab_tokens = [tokenizer(t) for t in texts]
    index = BM25Okapi(vocab_tokens, k1=1.2, b=0.75)

    def search(query: str) -> list[str]:
        scores = index.get_scores(tokenizer(query))
        top = np.argsort(-scores, kind="stable")[:50]
        return [asins[i] for i in top if scores[i] > 0]
    return search


def play(env, agent, episodes: int) -> tuple[float, float]:
    base = env.unwrapped
    scores = []
    for task_id in base.task_ids()[:episodes]:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent(base, info))
            done = terminated or truncated
        scores.append(info["metrics"]["score"])
    return 100 * statistics.mean(scores), 100 * statistics.mean(s == 1.0 for s in scores)


def random_valid_agent(rng: random.Random):
    """Uniform over WebShop's valid actions: search with the instruction, else any clickable."""
    def act(base, info):
        available = base.shop.available_actions()
        if available["has_search_bar"]:
            return f"search[{base.goal['instruction_text']}]"
        return f"click[{rng.choice([c for c in available['clickables'] if c != 'search'])}]"
    return act


def bench_size(size: int, n_queries: int, compare_rank_bm25: bool) -> None:
    print(f"\n== {size:,} products")
    gc.collect()
    rss0 = peak_rss_mb()
    start = time.perf_counter()
    env = gym.make("WebShop-v0", num_products=size, world_seed=1)
    make_s = time.perf_counter() - start
    base = env.unwrapped
    rss1 = peak_rss_mb()
    start = time.perf_counter()
    world = WebShopWorld(num_products=size, seed=1)  # a second world of this fingerprint copies the first
    copy_s = time.perf_counter() - start
    start = time.perf_counter()
    WebShopWorld(num_products=size, seed=2)  # another seed: generated and inserted afresh
    build_s = time.perf_counter() - start
    asins, texts = corpus(world)
    start = time.perf_counter()
    index = ProductSearch(BM25Index.build(asins, texts))
    index_s = time.perf_counter() - start
    print(f"make env {make_s:.2f} s (world build {build_s:.2f} s, bm25s index {index_s:.2f} s, world copy "
          f"{copy_s * 1000:.0f} ms); peak RSS growth {rss1 - rss0:.0f} MB (RSS {rss1:.0f} MB)")
    goals = list(base.goal_set.goals.values())
    queries = list(dict.fromkeys([g["query"] for g in goals] + [g["instruction_text"] for g in goals]))
    random.Random(0).shuffle(queries)
    queries = queries[:n_queries]

    def uncached(query: str):
        index._cache.clear()
        return index.search(query)
    times = time_queries(uncached, queries)
    print(f"bm25s search ({len(queries)} queries): p50 {percentile(times, 50):.2f} ms, "
          f"p99 {percentile(times, 99):.2f} ms, mean {statistics.mean(times):.2f} ms")
    if compare_rank_bm25:
        start = time.perf_counter()
        other = rank_bm25_search(asins, texts, index.query_words)
        build = time.perf_counter() - start
        sample = queries[:min(len(queries), 100 if size > 10_000 else len(queries))]
        times_other = time_queries(other, sample)
        overlap = statistics.mean(len(set(other(q)[:10]) & set(uncached(q)[:10])) / max(1, len(uncached(q)[:10]))
                                  for q in sample[:50])
        print(f"rank-bm25 ({len(sample)} queries): index {build:.2f} s, p50 {percentile(times_other, 50):.2f} ms, "
              f"p99 {percentile(times_other, 99):.2f} ms; top-10 overlap with bm25s {overlap:.2f}")
    reset_times, step_times = [], []
    for task_id in base.task_ids()[:100]:
        start = time.perf_counter()
        env.reset(seed=0, options={"task_id": task_id})
        reset_times.append((time.perf_counter() - start) * 1000)
        done = False
        while not done:
            action = base.oracle_action()
            start = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action)
            step_times.append((time.perf_counter() - start) * 1000)
            done = terminated or truncated
    print(f"reset p50 {percentile(reset_times, 50):.2f} ms; oracle step p50 {percentile(step_times, 50):.2f} ms, "
          f"p99 {percentile(step_times, 99):.2f} ms")
    oracle = play(env, lambda b, info: b.oracle_action(), 200)
    rand = play(env, random_valid_agent(random.Random(0)), 200)
    print(f"oracle score {oracle[0]:.1f} SR {oracle[1]:.1f}; random valid-action agent score {rand[0]:.1f} "
          f"SR {rand[1]:.1f} (200 goals)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-rank-bm25", action="store_true")
    args = parser.parse_args()
    for size in args.sizes:
        bench_size(size, args.queries, not args.no_rank_bm25)


if __name__ == "__main__":
    main()
