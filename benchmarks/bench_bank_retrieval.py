"""banking_knowledge's KB searches on τ³'s official tasks: how many of a task's required documents
BM25 (τ³'s ``KB_search``) and the packaged MiniLM (toolgym's stand-in for τ³'s embedding APIs) rank
in their top 10, the task's user instructions as the query.

    python benchmarks/bench_bank_retrieval.py [--data-dir ../shared/data] [--device cpu]

Prints the mean recall@10 over the tasks that name required documents, and the seconds the dense
index took to build (all 698 documents; minutes on a small CPU). The query is a stand-in for what an
agent would search for (the instructions are the user's side of the task), so the numbers compare
the two searches with each other, not with an agent's searches.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from toolgym.worlds.embeddings import load_minilm
from toolgym.worlds.tau2.banking_knowledge.knowledge import KnowledgeBase, search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    root = Path(args.data_dir) / "tau2bench" / "tau2" / "domains" / "banking_knowledge"
    kb = KnowledgeBase.from_documents(json.loads(path.read_text())
                                      for path in sorted((root / "documents").glob("*.json")))
    tasks = json.loads((root / "tasks.json").read_text())
    started = time.perf_counter()
    dense = search.dense_index(kb, load_minilm(device=args.device))
    built = time.perf_counter() - started
    recalls: dict[str, list[float]] = {"bm25": [], "minilm": []}
    for task in tasks:
        wanted = {doc.id for doc in map(kb.find, task.get("required_documents") or []) if doc is not None}
        if not wanted:
            continue
        instructions = task["user_scenario"]["instructions"]
        query = instructions if isinstance(instructions, str) else json.dumps(instructions)
        for name, results in (("bm25", search.bm25_search(kb, query)), ("minilm", dense.search(query))):
            recalls[name].append(len(wanted & {doc for doc, _ in results}) / len(wanted))
    for name, values in recalls.items():
        print(f"{name}: mean recall@10 {sum(values) / len(values):.3f} over {len(values)} tasks")
    print(f"dense index: {len(kb)} documents in {built:.0f} s on {args.device}")


if __name__ == "__main__":
    main()
