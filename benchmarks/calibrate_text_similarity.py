"""Derive each comparator's thresholds from the hand-written pairs (prints accuracy per threshold).

Run: .venv/bin/python benchmarks/calibrate_text_similarity.py
"""

import json
from importlib.resources import files

from toolgym.envs.common.text_similarity import LexicalSimilarity, SentenceEmbeddingSimilarity

pairs = json.loads(files("toolgym").joinpath("assets/text_similarity_pairs.json").read_text())


def best_threshold(sim, rows):
    """The midpoint of the widest gap between scores among the thresholds of best accuracy."""
    scored = sorted((sim.score(a, b), label) for a, b, label in rows)
    cuts = [(lo + hi) / 2 for (lo, _), (hi, _) in zip(scored, scored[1:])]

    def accuracy(t):
        return sum((s >= t) == bool(label) for s, label in scored) / len(scored)

    gaps = {(lo + hi) / 2: hi - lo for (lo, _), (hi, _) in zip(scored, scored[1:])}
    best = max(cuts, key=lambda t: (accuracy(t), gaps[t]))
    return best, accuracy(best)


for sim in (LexicalSimilarity(), SentenceEmbeddingSimilarity()):
    for kind in ("short", "long"):
        t, acc = best_threshold(sim, pairs[kind])
        print(f"{sim.name:8s} {kind:5s} best threshold {t:.3f} (accuracy {acc:.3f}); "
              f"in use {sim.thresholds[kind]} (accuracy {sum((sim.score(a, b) >= sim.thresholds[kind]) == bool(l) for a, b, l in pairs[kind]) / len(pairs[kind]):.3f})")
