"""ToolLLM's API retriever: from an instruction to the relevant APIs of the whole RapidAPI catalogue.

- :class:`BM25Retriever`: the BM25 baseline (``bm25s``, the ``[retrieval]`` extra).
- :class:`DenseRetriever`: a sentence-transformers bi-encoder (the packaged all-MiniLM-L6-v2 by
  default, the ``[embeddings]`` extra), fine-tuned by :func:`fine_tune` with in-batch negatives
  on instruction -> API pairs of the training tools only (:func:`training_pairs`), never the
  held-out tools or categories, as ToolLLM trains its retriever.
- :func:`ndcg_at_k` and :func:`evaluate_retriever`: NDCG@1/3/5 per test group, the paper's Table 2.
- :class:`RetrievedAPIs`: ToolLLM-v0 offering the retrieved top-k APIs instead of the task's own
  (the paper's "retrieved APIs" setting; relevant-API recall is still measured on the task's).

Documents are ToolLLM's fields of an API: category, tool, API name, description and parameters.
Retrieval is deterministic: ties in score keep catalogue order.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from toolgym.worlds.embeddings import load_minilm

#: Instructions per training group of :func:`training_pairs` (training tools only).
TRAINING_SIZES = {"G1_instruction": 120, "G2_instruction": 60, "G3_instruction": 40}


def api_document(api) -> str:
    """The text ToolLLM's retriever indexes for an API (an ``ApiInfo`` of a ``RapidAPIWorld``)."""
    params = ", ".join(f"{p['name']} ({p['type']}): {p.get('description') or ''}".strip()
                       for p in api.required + api.optional)
    return (f"category: {api.category}. tool: {api.tool_name}. api: {api.name}. {api.description} "
            f"parameters: {params or 'none'}")


def catalogue(world, api_ids: Iterable[int] | None = None) -> tuple[list[int], list[str]]:
    """Every API of the world (or only ``api_ids``): ids (ascending) and their documents."""
    world._load_apis()
    ids = sorted(world._apis if api_ids is None else set(api_ids))
    return ids, [api_document(world.api(i)) for i in ids]


def relevant_api_ids(world, task) -> set[int]:
    """The ids of a task's relevant APIs (its ``relevant`` (tool, API) pairs among its APIs)."""
    wanted = set(task.relevant)
    return {a for a in task.api_ids if (world.api(a).tool_name, world.api(a).name) in wanted}


class BM25Retriever:
    """BM25 (``bm25s``, Lucene's variant) over the documents of every API of ``world`` (or of ``api_ids``)."""

    def __init__(self, world, api_ids: Iterable[int] | None = None):
        import bm25s

        self._bm25s = bm25s
        self.ids, documents = catalogue(world, api_ids)
        self.index = bm25s.BM25()
        self.index.index(bm25s.tokenize(documents, stopwords="en", show_progress=False), show_progress=False)

    def retrieve(self, queries: Sequence[str], k: int = 5) -> list[list[int]]:
        """The ``k`` best API ids of each query, best first."""
        k = min(k, len(self.ids))
        tokens = self._bm25s.tokenize(list(queries), stopwords="en", show_progress=False)
        docs, _ = self.index.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [[self.ids[int(d)] for d in row] for row in docs]


class DenseRetriever:
    """A bi-encoder: cosine similarity of normalised sentence embeddings of query and API document.

    Args:
        world: The RapidAPIWorld whose catalogue is searched.
        model: A SentenceTransformer, a path, or None for the packaged MiniLM.
        device: ``cpu`` or ``cuda``.
        batch_size: Documents encoded per batch.
        api_ids: Search only these APIs (default: the whole catalogue).
    """

    def __init__(self, world, model: Any = None, device: str = "cpu", batch_size: int = 128,
                 api_ids: Iterable[int] | None = None):
        self.model = load_minilm(model, device)
        self.ids, documents = catalogue(world, api_ids)
        self.embeddings = self._encode(documents, batch_size)

    def _encode(self, texts: Sequence[str], batch_size: int = 128) -> np.ndarray:
        return self.model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    def retrieve(self, queries: Sequence[str], k: int = 5) -> list[list[int]]:
        """The ``k`` best API ids of each query, best first."""
        k = min(k, len(self.ids))
        scores = self._encode(queries) @ self.embeddings.T
        # a stable sort of the negated scores: equal scores keep catalogue order
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[self.ids[int(i)] for i in row] for row in order]


def training_pairs(world, seed: int = 1, sizes: dict[str, int] | None = None,
                   exclude: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(instruction, API document) pairs of generated instructions over the training tools only.

    The instructions come from the built-in generator's ``*_instruction`` groups (training
    tools) with another seed than the test set's; ``exclude`` drops any instruction that is
    also a test instruction.
    """
    from toolgym.worlds.rapidapi.tasks import GROUP_SPLIT, builtin_tasks

    sizes = sizes or TRAINING_SIZES
    if any(GROUP_SPLIT[g] != "train" for g in sizes):
        raise ValueError("training pairs come from the training tools' groups (*_instruction) only")
    excluded = set(exclude)
    pairs = []
    for task in builtin_tasks(world, seed, sizes=sizes):
        if task.query in excluded:
            continue
        pairs += [(task.query, api_document(world.api(a))) for a in sorted(relevant_api_ids(world, task))]
    return pairs


def fine_tune(pairs: Sequence[tuple[str, str]], model: Any = None, epochs: int = 1, batch_size: int = 32,
              learning_rate: float = 5e-5, scale: float = 20.0, seed: int = 0, device: str = "cpu",
              train_layers: int | None = None):
    """Fine-tune a bi-encoder with in-batch negatives (MultipleNegativesRankingLoss) on (query, document) pairs.

    Every other document of a batch is a negative of a query; a batch never holds one document
    twice, so no positive is counted as a negative. Seeded: the same pairs give the same model.

    Args:
        train_layers: Train only the top N transformer layers (None: all weights). Fewer layers
            make a CPU fine-tune several times cheaper: no gradients flow below them.

    Returns:
        The fine-tuned SentenceTransformer (in eval mode).
    """
    import torch

    model = load_minilm(model, device)
    if train_layers is not None:
        layers = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList)][0]
        top = {id(p) for layer in list(layers)[len(layers) - train_layers:] for p in layer.parameters()}
        for parameter in model.parameters():
            parameter.requires_grad_(id(parameter) in top)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate)
    model.train()
    for _ in range(epochs):
        order = list(pairs)
        rng.shuffle(order)
        for batch in _batches_without_repeats(order, batch_size):
            q = _embed(model, [q for q, _ in batch])
            d = _embed(model, [d for _, d in batch])
            scores = scale * torch.nn.functional.normalize(q, dim=-1) @ torch.nn.functional.normalize(d, dim=-1).T
            loss = torch.nn.functional.cross_entropy(scores, torch.arange(len(batch), device=scores.device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    return model


def _embed(model, texts: list[str]):
    """Sentence embeddings with gradients (``encode`` runs without them)."""
    import torch

    features = model.tokenize(texts)
    return model({k: v.to(model.device) for k, v in features.items() if isinstance(v, torch.Tensor)})[
        "sentence_embedding"]


def _batches_without_repeats(pairs: list[tuple[str, str]], size: int) -> list[list[tuple[str, str]]]:
    batches: list[list[tuple[str, str]]] = []
    current, seen = [], set()
    for pair in pairs:
        if pair[1] in seen or len(current) == size:
            if len(current) > 1:
                batches.append(current)
            current, seen = [], set()
        current.append(pair)
        seen.add(pair[1])
    if len(current) > 1:
        batches.append(current)
    return batches


def ndcg_at_k(ranked: Sequence[int], relevant: set[int], k: int) -> float:
    """NDCG@k with binary relevance (ToolLLM's retriever metric); 0 when nothing is relevant."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, api in enumerate(ranked[:k]) if api in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def evaluate_retriever(retriever, world, tasks: Sequence, ks: Sequence[int] = (1, 3, 5)) -> dict[str, dict[int, float]]:
    """Mean NDCG@k per group (and ``all``) of a retriever on tasks, over the whole catalogue."""
    tasks = [t for t in tasks if relevant_api_ids(world, t)]
    ranked = retriever.retrieve([t.query for t in tasks], k=max(ks))
    groups: dict[str, list[tuple[list[int], set[int]]]] = {}
    for task, row in zip(tasks, ranked):
        groups.setdefault(task.group, []).append((row, relevant_api_ids(world, task)))
    groups["all"] = [item for items in list(groups.values()) for item in items]
    return {name: {k: sum(ndcg_at_k(r, rel, k) for r, rel in items) / len(items) for k in ks}
            for name, items in groups.items()}


class RetrievedAPIs(gym.Wrapper):
    """ToolLLM-v0 whose episodes offer the retriever's top ``k`` APIs for the instruction instead of the
    task's own API list (the paper's setting with the API retriever). The pass of a built-in
    task is unchanged (a required API that was not retrieved cannot be called, so the task
    fails); relevant-API recall counts the relevant APIs among those offered.
    """

    def __init__(self, env: gym.Env, retriever, k: int = 5):
        super().__init__(env)
        self.retriever, self.k = retriever, k
        base = env.unwrapped
        originals = dict(base.tasks)
        retrieved = retriever.retrieve([t.query for t in originals.values()], k=k) if originals else []
        self._retrieved = {task_id: tuple(ids) for task_id, ids in zip(originals, retrieved)}
        for task_id, task in originals.items():
            base.tasks[task_id] = dataclasses.replace(task, api_ids=self._retrieved[task_id])

    def retrieved(self, task_id: str) -> tuple[int, ...]:
        """The API ids offered for a task."""
        return self._retrieved[task_id]
