"""Search over the catalogue: BM25 (``bm25s``) over the text WebShop indexes.

WebShop indexes each product with Lucene (pyserini) as ``Title, Description, the first bullet
point, "name: v1, v2, and name: ..."`` lower-cased (``search_engine/convert_product_file_format.py``)
and returns the top 50. Here the same text is indexed with ``bm25s`` (Okapi BM25, k1 1.2,
b 0.75 as Lucene's defaults; words of two or more letters or digits, English stop words removed,
no stemming). Results are the documents with a positive score, best first, ties in catalogue
order, so a search is a pure function of the catalogue and the query.

The index is a pure function of the catalogue, so it is kept in the on-disk cache
(:mod:`toolgym.worlds.cache`) as a folder of ``.npy`` files of plain arrays, keyed by the
world's fingerprint and the source of bm25s. They are memory-mapped (``mmap_mode="r"``, which
never unpickles): a later process reads no more than the pages its queries touch, and all
processes share them through the page cache (a million products' index is about 350 MB).
Indexing is bm25s's procedure and queries are answered with its query procedure (its
tokenizer's word lookup and its numpy scorer), both done here with numpy, so that no process
imports bm25s and scipy (a tenth of a second or more) beyond its stop-word list at a build;
the tests check the scores against bm25s's own, byte for byte.

Two layouts keep a search fast at a million products with the scores bm25s gives. A word
found in more than one product in :data:`DENSE_SHARE` is stored as a dense column (a score
for every product, 0 where it is absent): adding it is one vectorised sum, where scattering
its postings costs several times more, and adding 0 changes no float32 sum. And the top hits
are picked among the products scoring at least a threshold that a sample of the scores says
leaves enough of them (:func:`top_hits`), not among all the positive ones.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import tempfile
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from toolgym.worlds import cache

if TYPE_CHECKING:
    from toolgym.worlds.webshop.world import WebShopWorld

SEARCH_RETURN_N = 50
#: bm25s's tokenizer's default splitter: words of two or more letters or digits.
WORD_PATTERN = re.compile(r"(?u)\b\w\w+\b")
#: The bm25s modules whose source decides an index: its stop words, and the BM25 class, scoring and
#: tokenizer whose procedure :meth:`BM25Index.build` follows.
BM25S_SOURCES = ("__init__.py", "scoring.py", "tokenization.py", "stopwords.py")
#: The arrays of a stored index, one ``.npy`` file each.
ARRAYS = ("asins", "data", "indices", "indptr", "dense_words", "dense")
#: A word in more than this share of the products is stored as a dense column: at 1/4 a dense
#: column (4 bytes a product) is no larger than its postings (8 bytes each), and adds several
#: times faster.
DENSE_SHARE = 1 / 4
#: :func:`top_hits` takes its threshold from every ``SAMPLE_STRIDE``-th score, ranked to expect
#: ``SAMPLE_SURPLUS`` times the hits asked for above it.
SAMPLE_STRIDE, SAMPLE_SURPLUS = 25, 4
_SEARCHES: dict[str, ProductSearch] = {}  # world fingerprint -> search, per process


def document_text(title: str, description: str, bullet_points: list[str], options: dict[str, list[str]]) -> str:
    """The text WebShop indexes for a product."""
    option_text = ", and ".join(f"{name}: {', '.join(values)}" for name, values in options.items())
    first_bullet = bullet_points[0] if bullet_points else ""
    return " ".join([title, description, first_bullet, option_text]).lower()


@dataclass(frozen=True)
class BM25Index:
    """A catalogue's BM25 index as bm25s builds it: every (word, product) pair's term score.

    Attributes:
        asins: The products' asins (UTF-8 bytes), in catalogue order (product ``j`` is row ``j``
            of the scores).
        words: The vocabulary: ``words[i]`` has id ``i``, the column of its scores (``""``, when
            there, stands for an empty document, as in bm25s, and is never a query word).
        data: The term scores (float32), column after column.
        indices: The product of each score.
        indptr: Column ``i``'s scores are ``data[indptr[i]:indptr[i + 1]]`` (none for a dense word).
        dense_words: The ids of the words stored as dense columns, ascending.
        dense: Row ``r`` holds word ``dense_words[r]``'s score of every product (0 where absent).
    """

    asins: np.ndarray
    words: list[str]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    dense_words: np.ndarray
    dense: np.ndarray

    @classmethod
    def build(cls, asins: list[str], texts: Iterable[str]) -> BM25Index:
        """Index ``texts`` (read once), those of the products ``asins``, as bm25s does.

        bm25s's tokenizer (its word pattern, lower case, its English stop words; a document
        without a word is the one word ``""``) and its BM25 index (method ``lucene``, k1 1.2,
        b 0.75, float32 scores), computed with numpy over all (word, product) pairs at once
        instead of bm25s's loops over products: the same float64 operations in the same
        order, so the same float32 scores, several times faster and in a fraction of the memory.
        """
        from bm25s.stopwords import STOPWORDS_EN

        stopwords = frozenset(STOPWORDS_EN)
        vocabulary: dict[str, int] = {}
        tokens, lengths = array("i"), array("q")
        for text in texts:
            words = [w for w in WORD_PATTERN.findall(text.lower()) if w not in stopwords] or [""]
            for word in sorted(set(words).difference(vocabulary)):
                vocabulary[word] = len(vocabulary)
            tokens.extend(map(vocabulary.__getitem__, words))
            lengths.append(len(words))
        n_docs, n_words = len(lengths), len(vocabulary)
        doc_lengths = np.frombuffer(lengths, dtype=np.int64)
        # Each (word, product) pair once, with its count: sorted by word, then product (CSC order).
        pairs = np.frombuffer(tokens, dtype=np.int32).astype(np.int64)
        del tokens
        pairs *= n_docs
        pairs += np.repeat(np.arange(n_docs, dtype=np.int64), doc_lengths)
        pairs, counts = np.unique(pairs, return_counts=True)
        columns, docs = np.divmod(pairs, n_docs)
        del pairs
        doc_freqs = np.bincount(columns, minlength=n_words)
        idf = np.array([math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) if df else 0.0 for df in doc_freqs.tolist()],
                       dtype=np.float32)  # math.log per word, as bm25s: numpy's log may differ in the last bit
        k1, b, avg_doc_len = 1.2, 0.75, doc_lengths.mean()
        tf = counts.astype(np.float32).astype(np.float64)
        length_norm = k1 * ((1 - b) + b * doc_lengths.astype(np.float64) / avg_doc_len)
        scores = (idf[columns].astype(np.float64) * (tf / (length_norm[docs] + tf))).astype(np.float32)
        indptr = np.zeros(n_words + 1, dtype=np.int64)
        np.cumsum(doc_freqs, out=indptr[1:])
        return cls.from_columns(np.array([a.encode() for a in asins], dtype=bytes), list(vocabulary), scores,
                                docs.astype(np.int32), indptr)

    @classmethod
    def from_columns(cls, asins: np.ndarray, words: list[str], data: np.ndarray, indices: np.ndarray,
                     indptr: np.ndarray) -> BM25Index:
        """The index of bm25s's score columns, the words in more than :data:`DENSE_SHARE` of the products made dense."""
        counts = np.diff(indptr)
        dense_words = np.flatnonzero(counts > DENSE_SHARE * len(asins)).astype(np.int32)
        dense = np.zeros((len(dense_words), len(asins)), dtype=data.dtype)
        for row, column in enumerate(dense_words):
            start, end = indptr[column], indptr[column + 1]
            dense[row, indices[start:end]] = data[start:end]
        sparse = np.ones(len(data), dtype=bool)
        for column in dense_words:
            sparse[indptr[column]:indptr[column + 1]] = False
        kept = counts.copy()
        kept[dense_words] = 0
        sparse_indptr = np.zeros(len(indptr), dtype=indptr.dtype)
        np.cumsum(kept, out=sparse_indptr[1:])
        return cls(asins, words, data[sparse], indices[sparse], sparse_indptr, dense_words, dense)

    def write(self, folder: Path) -> None:
        """Store the index as ``folder``: one ``.npy`` file per array, the words as JSON.

        The files are written into a new folder that is then renamed into place, so processes
        racing to store one index never see a partial one; a failure only costs time.
        """
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        except OSError:
            return
        try:
            for name in ARRAYS:
                np.save(building / f"{name}.npy", getattr(self, name), allow_pickle=False)
            (building / "words.json").write_text(json.dumps(self.words), encoding="utf-8")
            os.rename(building, folder)  # fails when another process stored it first
        except OSError:
            pass
        finally:
            shutil.rmtree(building, ignore_errors=True)

    @classmethod
    def read(cls, folder: Path | None) -> BM25Index | None:
        """The index stored in ``folder`` by :meth:`write`, memory-mapped, or None when it is missing or unreadable."""
        if folder is None:
            return None
        try:
            arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS}
            words = json.loads((folder / "words.json").read_text(encoding="utf-8"))
        except (OSError, EOFError, TypeError, ValueError):
            return None
        if not (isinstance(words, list) and all(isinstance(w, str) for w in words)):
            return None
        index = cls(words=words, **arrays)
        if index.asins.dtype.kind != "S" or index.data.dtype != np.float32 or len(index.indptr) <= len(words):
            return None  # another layout, or a word without a column
        if not (index.indptr.ndim == index.indices.ndim == index.data.ndim == index.dense_words.ndim == 1):
            return None
        if index.dense.dtype != np.float32 or index.dense.shape != (len(index.dense_words), len(index.asins)):
            return None
        if index.dense_words.dtype.kind != "i" or not ((index.dense_words >= 0) & (index.dense_words < len(words))).all():
            return None
        return index if int(index.indptr[-1]) == len(index.data) == len(index.indices) else None


class ProductSearch:
    """Search over a :class:`BM25Index`: :meth:`search` gives the asins of the top hits.

    Args:
        index: The catalogue's index, built (:meth:`BM25Index.build`) or read from the cache.
    """

    def __init__(self, index: BM25Index):
        self.index = index
        self._word_ids = {word: i for i, word in enumerate(index.words)}
        self._dense_rows = {int(column): row for row, column in enumerate(index.dense_words)}
        self._cache: dict[str, list[str]] = {}

    def query_words(self, keywords: str) -> list[str]:
        """The words of ``keywords`` that the index holds, in order, as bm25s's tokenizer gives them.

        It keeps the lower-cased words that are in the vocabulary; stop words never are.
        """
        return [w for w in WORD_PATTERN.findall(keywords.lower()) if w in self._word_ids]

    def scores(self, keywords: str) -> np.ndarray | None:
        """Each product's BM25 score (float32) for ``keywords``, or None when no word of them is indexed.

        bm25s's numpy scorer: each query word's scores are added in query order, a repeated
        word's again (float32 sums depend on that order). A word's column names each product
        once, so the indexed ``+=`` adds what bm25s's ``np.add.at`` adds, many times faster; a
        dense column adds the same sums, and 0 to the other products.
        """
        words = self.query_words(keywords)
        if not words:
            return None
        index, scores = self.index, np.zeros(len(self.index.asins), dtype=np.float32)
        for word in words:
            column = self._word_ids[word]
            row = self._dense_rows.get(column)
            if row is not None:
                np.add(scores, index.dense[row], out=scores)
            else:
                start, end = index.indptr[column], index.indptr[column + 1]
                scores[index.indices[start:end]] += index.data[start:end]
        return scores

    def search(self, keywords: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """The asins of the ``k`` best products for ``keywords`` (fewer when fewer match).

        The top :data:`SEARCH_RETURN_N` (or ``k`` when more) are ranked and kept per query: a
        ranking's first ``k`` are the top ``k``.
        """
        cached = self._cache.get(keywords)
        if cached is not None and (k <= len(cached) or len(cached) < SEARCH_RETURN_N):
            return cached[:k]
        scores = self.scores(keywords)
        hits = [] if scores is None else [self.index.asins[i].decode()
                                          for i in top_hits(scores, max(k, SEARCH_RETURN_N))]
        if len(self._cache) < 10_000:
            self._cache[keywords] = hits
        return hits[:k]


def top_hits(scores: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` products of highest positive score (fewer when fewer score), best first, ties in catalogue order.

    The hits are among the products scoring at least ``threshold``, a score of the sample
    ``scores[::SAMPLE_STRIDE]`` that about ``SAMPLE_SURPLUS * k`` products reach. When at least
    ``k`` do, the ``k``-th best score is at least the threshold, so every hit, ties included,
    is among them; otherwise (rare, or few products score at all) all positive scores are ranked.
    """
    if k < 1:
        return np.zeros(0, dtype=np.intp)
    sample = scores[::SAMPLE_STRIDE]
    rank = -(-SAMPLE_SURPLUS * k // SAMPLE_STRIDE)
    candidates = None
    if len(sample) > rank:
        threshold = np.partition(sample, len(sample) - rank)[len(sample) - rank]
        if threshold > 0:
            candidates = np.flatnonzero(scores >= threshold)
    if candidates is None or len(candidates) < k:
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            top = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
            candidates = candidates[scores[candidates] >= scores[top].min()]  # every tie of the k-th score
    return candidates[np.lexsort((candidates, -scores[candidates]))][:k]


def catalogue_search(world: WebShopWorld) -> ProductSearch:
    """The search over ``world``'s catalogue: this process's, the cache's, or built (and cached)."""
    fingerprint = world.fingerprint()
    key = json.dumps(fingerprint, sort_keys=True)
    search = _SEARCHES.get(key)
    if search is not None:
        return search
    path = cache.entry_path("webshop-search", {"catalogue": fingerprint, "bm25s": _bm25s_digest()}, (__name__,),
                            suffix="")
    index = BM25Index.read(path)
    if index is None:
        asins: list[str] = []

        def texts():  # streamed: a million products' texts are never all in memory
            for asin, name, description, bullets, options in world.sql().execute(
                    "SELECT asin, name, description, bullet_points, options FROM products ORDER BY seq"):
                asins.append(asin)
                yield document_text(name, description, json.loads(bullets), json.loads(options))
        index = BM25Index.build(asins, texts())
        del asins
        if path is not None:
            if path.exists():  # an unreadable entry
                shutil.rmtree(path, ignore_errors=True)
            index.write(path)
            index = BM25Index.read(path) or index  # the mapped files: the built arrays are freed
    search = _SEARCHES[key] = ProductSearch(index)
    return search


def _bm25s_digest() -> str:
    """What stands for the bm25s version in a search entry's key: sha256 of :data:`BM25S_SOURCES`.

    "" without bm25s. The package is found, not imported: importing it imports scipy.
    """
    spec = importlib.util.find_spec("bm25s")
    if spec is None or spec.origin is None:
        return ""
    folder = Path(spec.origin).parent
    digest = hashlib.sha256()
    for name in BM25S_SOURCES:
        source = folder / name
        digest.update(name.encode())
        if source.is_file():
            digest.update(source.read_bytes())
    return digest.hexdigest()
