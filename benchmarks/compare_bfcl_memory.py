"""BFCL-v0's memory backends and answer checker against BFCL's own, call by call and item by item.

The original is not a dependency: ``--original`` is a checkout of
https://github.com/ShishirPatil/gorilla (or its ``berkeley-function-call-leaderboard/`` folder).
From it come ``memory_kv.py``, ``memory_vector.py``, ``memory_rec_sum.py`` (the ``MemoryAPI_*``
classes) and ``agentic_checker.py``. Stand-ins take the place of what they import but do not
use here: ``bfcl_eval.utils`` (snapshot paths, unused without snapshot files), ``overrides``
(a decorator) when not installed, and ``faiss`` when not installed (an exact inner-product
index with ids, which is what ``IndexIDMap(IndexFlatIP)`` computes). BFCL loads
``SentenceTransformer("all-MiniLM-L6-v2")``; the stand-in loader gives it the packaged copy of
that model, so both sides embed with the same weights and nothing is downloaded.

1. Backends: for each backend a seeded stream of calls (adds, duplicates, bad keys, too-long
   entries, full tiers, removes, replaces and updates of present and absent entries, clears,
   key searches, retrievals by key, by similarity and in full) runs on BFCL's class (its result
   text as BFCL's executor writes it) and on :class:`toolgym.worlds.bfcl.memory.MemoryWorld`;
   after every call the result texts, the snapshot (``_flush_memory_to_local_file``'s content)
   and the system-prompt text (``_dump_core_memory_to_context``) are compared. Similarity
   scores may differ by 1e-6 (float32 sums in a different order), and entries of equal score
   (equal texts, or texts the model reads alike once it cuts them at 256 tokens) may come in
   another order or be cut at ``top_k`` differently: BFCL's float32 scores of those differ in
   their last bits with their place in the index, which decides there.
2. Checker: for every official memory item, answers built from its possible answers (the
   oracle's, each one inside a sentence, glued to a letter, with a symbol before it, in upper
   case, with its spaces removed, and a wrong one) are judged by BFCL's ``agentic_checker`` and
   by toolgym's :func:`toolgym.envs.bfcl.memory.check_answer` under ``paper_compat``.

Usage::

    python benchmarks/compare_bfcl_memory.py --original ~/gorilla --data-dir ../shared/data

Measured (gorilla 6ea5797, 2026-03-23; faiss not installed, so its stand-in): 600 calls per
backend, every result text, snapshot and system-prompt memory equal (kv, vector, rec_sum);
1,552 answers over the 155 official memory items, every verdict equal.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import random
import sys
import types
from pathlib import Path

import numpy as np

from toolgym.envs.bfcl.memory import check_answer, load_memory_tasks, minilm_encoder
from toolgym.envs.common.official import OfficialLayout
from toolgym.worlds.bfcl.memory import BACKENDS, MemoryWorld

SOURCE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"


class _ExactIndex:
    """faiss's IndexIDMap over IndexFlatIP: exact inner products, ids kept beside the vectors."""

    def __init__(self, *_):
        self.ids: list[int] = []
        self.vectors: list[np.ndarray] = []

    def add_with_ids(self, vectors, ids):
        self.vectors += [np.asarray(v, dtype=np.float32) for v in vectors]
        self.ids += [int(i) for i in ids]

    def remove_ids(self, ids):
        drop = {int(i) for i in ids}
        kept = [k for k, i in enumerate(self.ids) if i not in drop]
        self.ids, self.vectors = [self.ids[k] for k in kept], [self.vectors[k] for k in kept]

    def reset(self):
        self.ids, self.vectors = [], []

    def search(self, query, k):
        scores = np.stack(self.vectors) @ np.asarray(query, dtype=np.float32)[0]
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]
        return (np.array([[scores[i] for i in order]], dtype=np.float32),
                np.array([[self.ids[i] for i in order]], dtype=np.int64))


def import_original(path: Path) -> tuple[dict[str, type], object]:
    """BFCL's three memory classes and its agentic checker, with stand-ins for what they import."""
    root = path / "berkeley-function-call-leaderboard" if (path / "berkeley-function-call-leaderboard").is_dir() \
        else path
    if not (root / "bfcl_eval").is_dir():
        raise SystemExit(f"--original {path}: no bfcl_eval/ in it or in its berkeley-function-call-leaderboard/")
    sys.path.insert(0, str(root))
    utils = types.ModuleType("bfcl_eval.utils")
    utils.get_directory_structure_by_id = lambda test_id: test_id
    utils.is_first_memory_prereq_entry = lambda test_id: True
    utils.is_memory_prereq = lambda test_id: False
    sys.modules["bfcl_eval.utils"] = utils
    if importlib.util.find_spec("overrides") is None:
        sys.modules["overrides"] = types.SimpleNamespace(final=lambda f: f)
    import sentence_transformers  # before the faiss stand-in: its imports look for faiss themselves

    if importlib.util.find_spec("faiss") is None:
        sys.modules["faiss"] = types.SimpleNamespace(IndexFlatIP=_ExactIndex, IndexIDMap=lambda flat: _ExactIndex())

    from toolgym.envs.common.text_similarity import shared_sentence_model

    packaged = shared_sentence_model(None, "cpu")  # loaded before the loader is stood in for
    original_loader = sentence_transformers.SentenceTransformer
    sentence_transformers.SentenceTransformer = lambda name, device="cpu": packaged
    try:
        classes = {backend: getattr(importlib.import_module(f"{SOURCE}.memory_{backend}"), f"MemoryAPI_{backend}")
                   for backend in BACKENDS}
    finally:
        sentence_transformers.SentenceTransformer = original_loader
    checker = importlib.import_module("bfcl_eval.eval_checker.agentic_eval.agentic_checker").agentic_checker
    return classes, checker


def bfcl_result(instance, name: str, arguments: dict) -> str:
    """A call on BFCL's class, written as BFCL's executor writes results."""
    try:
        value = getattr(instance, name)(**arguments)
    except Exception as exc:  # noqa: BLE001 - the executor shows every exception as text
        return f"Error during execution: {exc}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def bfcl_snapshot(instance, backend: str) -> dict:
    if backend == "rec_sum":
        return {"memory": instance.memory}
    if backend == "kv":
        return {"core_memory": instance.core_memory, "archival_memory": instance.archival_memory}
    return json.loads(json.dumps({"core_memory": instance.core_memory.export(),
                                  "archival_memory": instance.archival_memory.export()}))


WORDS = ["name", "city", "dog", "allergy", "job", "exam", "budget", "trip", "doctor", "coffee", "sister", "rent"]


def call_stream(backend: str, rng: random.Random, count: int) -> list[tuple[str, dict]]:
    """Seeded calls of one backend, edge cases included."""
    def key() -> str:
        return rng.choice(["_".join(rng.sample(WORDS, rng.randint(1, 2))), "Bad Key", "x1", "a_1", "UPPER"])

    def text() -> str:
        return rng.choice([" ".join(rng.choices(WORDS, k=rng.randint(1, 8))), "x" * rng.choice([299, 301, 2001]), ""])

    calls = []
    for _ in range(count):
        tier = rng.choice(["core", "archival"])
        if backend == "kv":
            op = rng.choices(["add", "remove", "replace", "clear", "retrieve", "list_keys", "key_search",
                              "retrieve_all"], weights=[8, 2, 2, 0.3, 2, 1, 2, 1])[0]
            if op == "retrieve_all" and tier == "archival":
                op = "list_keys"
            arguments = {"add": lambda: {"key": key(), "value": text()}, "remove": lambda: {"key": key()},
                         "replace": lambda: {"key": key(), "value": text()}, "clear": dict,
                         "retrieve": lambda: {"key": key()}, "list_keys": dict,
                         "key_search": lambda: {"query": " ".join(rng.sample(WORDS, 2)), "k": rng.randint(1, 6)},
                         "retrieve_all": dict}[op]()
        elif backend == "vector":
            op = rng.choices(["add", "remove", "update", "clear", "retrieve", "retrieve_all"],
                             weights=[8, 2, 2, 0.3, 3, 1])[0]
            arguments = {"add": lambda: {"text": text()}, "remove": lambda: {"vec_id": rng.randint(0, 12)},
                         "update": lambda: {"vec_id": rng.randint(0, 12), "new_text": text()}, "clear": dict,
                         "retrieve": lambda: {"query": " ".join(rng.sample(WORDS, 3)), "top_k": rng.randint(1, 8)},
                         "retrieve_all": dict}[op]()
        else:
            tier = ""
            op = rng.choices(["append", "update", "clear", "replace", "retrieve"], weights=[6, 1, 0.3, 3, 2])[0]
            arguments = {"append": lambda: {"text": text()}, "update": lambda: {"text": text()}, "clear": dict,
                         "replace": lambda: {"old_text": rng.choice(WORDS), "new_text": rng.choice(WORDS)},
                         "retrieve": dict}[op]()
        calls.append((f"{tier}_memory_{op}" if tier else f"memory_{op}", arguments))
    return calls


def _same_result(ours: str, theirs: str) -> bool:
    """Equal, or equal up to float32 noise: rank by rank scores within 1e-6 and the same entry,
    except among entries of equal score (equal texts, or texts MiniLM reads alike once it cuts
    them at 256 tokens): BFCL's float32 scores of those differ in their last bits with their
    place in the index, which decides their order, and which of them a top_k cut keeps."""
    if ours == theirs:
        return True
    try:
        results = [json.loads(text)["result"] for text in (ours, theirs)]
    except (ValueError, KeyError, TypeError):
        return False
    if len(results[0]) != len(results[1]):
        return False
    scores = [r["similarity_score"] for r in results[0]]
    for rank, (a, b) in enumerate(zip(*results)):
        if abs(a["similarity_score"] - b["similarity_score"]) > 1e-6:
            return False
        tied = any(abs(score - scores[rank]) <= 1e-6 for other, score in enumerate(scores) if other != rank)
        if (a["id"], a["text"]) != (b["id"], b["text"]) and not tied and a["text"] != b["text"]:
            return False
    return True


def compare_backends(classes: dict, calls_per_backend: int, seed: int) -> dict[str, tuple[int, list]]:
    outcome = {}
    for backend in BACKENDS:
        rng = random.Random(f"{seed}-{backend}")
        theirs = classes[backend]()
        ours = MemoryWorld(backend, encoder=minilm_encoder)
        differences = []
        calls = call_stream(backend, rng, calls_per_backend)
        for index, (name, arguments) in enumerate(calls):
            a, b = ours.execute(name, dict(arguments)), bfcl_result(theirs, name, dict(arguments))
            if not _same_result(a, b):
                differences.append((index, name, "result", a[:200], b[:200]))
            if ours.export() != bfcl_snapshot(theirs, backend):
                differences.append((index, name, "snapshot", ours.export(), bfcl_snapshot(theirs, backend)))
                break
            if ours.context() != theirs._dump_core_memory_to_context():
                differences.append((index, name, "context", ours.context()[:200],
                                    theirs._dump_core_memory_to_context()[:200]))
        outcome[backend] = (len(calls), differences)
    return outcome


def answers_of(possible: list[str]) -> list[str]:
    first = possible[0]
    variants = [str({"answer": first, "context": "from memory"})]
    for answer in possible:
        variants += [f"I believe it is {answer}, if I remember well.", f"x{answer}", f"${answer}",
                     answer.upper(), answer.replace(" ", ""), f"({answer})"]
    variants.append("{'answer': 'I do not know', 'context': 'I do not know'}")
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--original", type=Path, required=True, help="a checkout of ShishirPatil/gorilla")
    parser.add_argument("--data-dir", default=None, help="the official data root or its bfcl/ folder")
    parser.add_argument("--calls", type=int, default=600, help="calls per backend")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    classes, agentic_checker = import_original(args.original)

    total_differences = 0
    for backend, (count, differences) in compare_backends(classes, args.calls, args.seed).items():
        total_differences += len(differences)
        print(f"memory_{backend}: {count} calls, {count - len({d[0] for d in differences})} equal "
              f"(result text, snapshot, system-prompt memory)")
        for difference in differences[:5]:
            print("  differs:", difference)

    folder = OfficialLayout(name="BFCL", benchmark="bfcl", expected=("BFCL_v4_memory.json",)).locate(
        "BFCL-v0", args.data_dir)
    judged = disagreed = 0
    for task in load_memory_tasks(folder, "memory_kv"):
        for response in answers_of(task.ground_truth):
            theirs = bool(agentic_checker(response, task.ground_truth)["valid"])
            ours = check_answer(response, task.ground_truth, compat=True)["valid"]
            judged += 1
            if theirs != ours:
                disagreed += 1
                print("  verdict differs:", task.id, repr(response[:80]), "bfcl", theirs, "toolgym", ours)
    print(f"agentic checker: {judged} answers over the official memory items, {judged - disagreed} verdicts agree")
    sys.exit(1 if total_differences or disagreed else 0)


if __name__ == "__main__":
    main()
