"""Search over the catalogue: BM25 (``bm25s``) over the text WebShop indexes.

WebShop indexes each product with Lucene (pyserini) as ``Title, Description, the first bullet
point, "name: v1, v2, and name: ..."`` lower-cased (``search_engine/convert_product_file_format.py``)
and returns the top 50. Here the same text is indexed with ``bm25s`` (Okapi BM25, k1 1.2,
b 0.75 as Lucene's defaults; words of two or more letters or digits, English stop words removed,
no stemming). Results are the documents with a positive score, best first, ties in catalogue
order, so a search is a pure function of the catalogue and the query.
"""

from __future__ import annotations

import numpy as np

SEARCH_RETURN_N = 50


def document_text(title: str, description: str, bullet_points: list[str], options: dict[str, list[str]]) -> str:
    """The text WebShop indexes for a product."""
    option_text = ", and ".join(f"{name}: {', '.join(values)}" for name, values in options.items())
    first_bullet = bullet_points[0] if bullet_points else ""
    return " ".join([title, description, first_bullet, option_text]).lower()


class ProductSearch:
    """A BM25 index of product texts; :meth:`search` gives the asins of the top hits."""

    def __init__(self, asins: list[str], texts: list[str]):
        import bm25s
        from bm25s.tokenization import Tokenizer

        self.asins = list(asins)
        self.tokenizer = Tokenizer(stopwords="english")
        corpus = self.tokenizer.tokenize(texts, return_as="ids", show_progress=False)
        self.retriever = bm25s.BM25(k1=1.2, b=0.75)
        self.retriever.index(corpus, show_progress=False)
        self._empty = self.tokenizer.get_vocab_dict().get("", -1)
        self._cache: dict[str, list[str]] = {}

    def search(self, keywords: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """The asins of the ``k`` best products for ``keywords`` (fewer when fewer match)."""
        cached = self._cache.get(keywords)
        if cached is not None:
            return cached[:k]
        ids = self.tokenizer.tokenize([keywords], update_vocab=False, return_as="ids", show_progress=False)[0]
        ids = [i for i in ids if i != self._empty]  # bm25s answers a query of unknown words with ""
        if not ids:
            hits: list[str] = []
        else:
            scores = self.retriever.get_scores(ids)
            positive = np.flatnonzero(scores > 0)
            if len(positive) > k:
                top = positive[np.argpartition(-scores[positive], k - 1)[:k]]
                threshold = scores[top].min()  # keep every tie of the k-th score, then order by catalogue
                positive = positive[scores[positive] >= threshold]
            order = positive[np.lexsort((positive, -scores[positive]))][:k]
            hits = [self.asins[i] for i in order]
        if len(self._cache) < 10_000:
            self._cache[keywords] = hits
        return hits
