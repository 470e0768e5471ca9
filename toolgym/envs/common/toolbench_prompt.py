"""Prompt material of the SambaNova ToolBench tasks (Xu et al. 2023).

The paper prompts a model with a system prompt (Figure 5) made of a goal, the API
documentation and k demonstrations retrieved with BM25 from a pool, followed by the task
and the ``Action:`` cue. This module builds those pieces so that every ToolBench env exposes
them in ``info["prompt"]`` and ``info["messages"]`` the same way.

Layout (the original ``test.py`` template, with the goal in front)::

    {goal}

    I have the following set of API:

    {api_docs}
    -------------
    I have the following set of examples:

    Task: {demo query}
    Action:
    {demo action}

    -------------

and the user turn ``Task: {query}\\nAction:\\n``.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import asdict

from toolgym.worlds.demos import Demo

SEPARATOR = "-------------"
_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _bm25_scores(query: list[str], docs: list[list[str]], k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25) -> list[float]:
    """Okapi BM25 (the rank_bm25 ``BM25Okapi`` formula, used when that package is absent)."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df = Counter(t for d in docs for t in set(d))
    idf = {t: math.log(n - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    idf = {t: (v if v >= 0 else floor) for t, v in idf.items()}
    scores = []
    for doc in docs:
        tf = Counter(doc)
        norm = k1 * (1 - b + b * len(doc) / avgdl) if avgdl else k1
        scores.append(sum(idf.get(t, 0.0) * tf[t] * (k1 + 1) / (tf[t] + norm) for t in query if t in tf))
    return scores


def retrieve_demos(query: str, pool: list[Demo], k: int = 3, gold: Collection[str] = ()) -> list[Demo]:
    """The ``k`` demonstrations of ``pool`` with the highest BM25 score for ``query``.

    Each demonstration is indexed by its whole prompt text (task and action), as the
    original indexes its example files. Ties keep pool order, so the result is deterministic.
    A demonstration with the task's own query or one of its ``gold`` actions is never shown: a
    model could copy the answer from its prompt.
    """
    if k <= 0 or not pool:
        return []
    scores = _index(tuple(pool))(tokenize(query))
    # Rounded so that both implementations break ties alike despite last-bit differences.
    order = sorted(range(len(pool)), key=lambda i: (-round(scores[i], 9), i))
    shown = [pool[i] for i in order if pool[i].query != query and pool[i].action not in gold]
    return shown[:k]


@functools.lru_cache(maxsize=16)
def _index(pool: tuple[Demo, ...]) -> Callable[[list[str]], list[float]]:
    """The BM25 scorer of a pool: query terms -> one score per demonstration. Built once per
    pool (an env retrieves from the same pool at every reset)."""
    docs = [tokenize(d.text()) for d in pool]
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        return lambda terms: _bm25_scores(terms, docs)
    bm25 = BM25Okapi(docs)
    return lambda terms: [float(s) for s in bm25.get_scores(terms)]


def system_prompt(goal: str, api_docs: str, demos: list[Demo]) -> str:
    """The paper's system prompt: goal, API list, demonstrations (each block closed by a rule)."""
    parts = [goal.strip(), ""]
    if api_docs.strip():
        parts += ["I have the following set of API:", "", api_docs.rstrip("\n"), SEPARATOR]
    if demos:
        parts += ["I have the following set of examples:", ""]
        parts += [d.text() for d in demos]
        parts += [SEPARATOR]
    return "\n".join(parts) + "\n"


def user_prompt(query: str) -> str:
    """The task turn that ends with the ``Action:`` cue the model completes."""
    return f"Task: {query}\nAction:\n"


def prompt_info(goal: str, api_docs: str, pool: list[Demo], query: str, k: int = 3,
                gold: Collection[str] = ()) -> dict:
    """Everything an LLM agent needs to build the paper's k-shot prompt for ``query``, whose
    ground-truth actions are ``gold`` (no demonstration shows the query or one of them).

    Returns:
        ``system_prompt``, ``demos`` (dicts with ``query``/``action``), ``api_docs`` and
        ``messages`` (the system prompt and the user's task turn, role/content dicts).
    """
    demos = retrieve_demos(query, pool, k, gold)
    system = system_prompt(goal, api_docs, demos)
    return {
        "system_prompt": system,
        "demos": [asdict(d) for d in demos],
        "api_docs": api_docs,
        "messages": [{"role": "system", "content": system},
                     {"role": "user", "content": user_prompt(query)}],
    }
