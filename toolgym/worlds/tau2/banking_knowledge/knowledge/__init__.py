"""τ³'s knowledge retrieval for banking_knowledge: every retrieval config's tools and agent prompt.

The interface the domain codes against::

    from toolgym.worlds.tau2.banking_knowledge.knowledge import (
        RETRIEVAL_CONFIGS, DEFAULT_RETRIEVAL_CONFIG, RetrievalUnavailable, KnowledgeBase,
        build_retrieval, load_templates)

    kb = KnowledgeBase.from_documents(documents)          # τ³'s documents/*.json dicts, in file order
    retrieval = build_retrieval("bm25", kb, task, prompts_dir=".../banking_knowledge/prompts")
    retrieval.toolkits        # Tau2Toolkit classes; their tools read ``self.world.knowledge`` (the kb)
    retrieval.system_prompt() # τ³'s agent system prompt for the config, byte for byte

Where τ³ differs from the plain ``build_retrieval(config, kb, task)`` the brief sketched:
``build_retrieval`` takes ``prompts_dir`` (or already loaded ``templates``), the data's
``prompts/`` folder τ³ fills its templates from; without it (a built-in bank, which has no τ³
templates) the prompt is toolgym's own short wording after ``domain_policy``.
``system_prompt(domain_policy=None, task=None)``: ``task`` overrides the build's task
(``golden_retrieval`` inlines its required documents); ``domain_policy``, when given, stands in
for τ³'s ``policy_header`` component.

Configs (``RETRIEVAL_CONFIGS``) run offline and exactly as τ³'s, except where said:

- ``no_knowledge``, ``full_kb``, ``golden_retrieval``: no search tool; the prompt inlines nothing,
  every document, or the task's required documents.
- ``bm25``, ``bm25_grep``: ``KB_search``, BM25 by ``rank_bm25`` (the ``[retrieval]`` extra) over
  τ³'s tokenisation (lower case, split on white space): the same scores and ranks. ``grep_only``
  and the ``_grep`` variants: ``grep``, τ³'s regular expression (Python syntax, case-insensitive)
  counted in each document, run on RE2 (linear time): a pattern that needs backtracking
  (back-references, look-around) is answered with an error text; the rare patterns whose count
  can differ from Python's are listed in ``patterns.py``.
- ``minilm_embeddings``, ``minilm_embeddings_grep`` (toolgym's): τ³'s dense ``KB_search`` with the
  packaged all-MiniLM-L6-v2 (the ``[embeddings]`` extra) in place of OpenAI's
  text-embedding-3-large: the cosine scores differ (a 384-dimension model that reads the first 256
  word pieces of a document), so do the ranks. The prompt is τ³'s openai template with the model's
  name changed, and τ³'s generic ``classic_rag`` for the ``_grep`` one. The index is built at the
  first dense search (minutes of CPU for τ³'s 698 documents on a small machine); building the
  config only checks that the extra is installed.
- ``terminal_use``, ``terminal_use_write``: the ``shell`` tool, a simulated shell over the
  documents laid out as τ³'s sandbox exports them (see ``shell.py`` for what it runs and how its
  output may differ from a real one); the write variant keeps what it writes in the world's
  ``aux`` (so for the episode, undone with a failed call).
- ``alltools``: ``KB_search_bm25`` + ``KB_search_dense`` (MiniLM) + ``shell``; τ³'s prompt with
  the dense model named as the one toolgym runs.
- Every KB search output ends in τ³'s ``[Timing: ...]`` line; toolgym's says ``0ms`` (a measured
  time would make runs differ).
- Refused with the reason (``RetrievalUnavailable``): the configs that need an embedding API or an
  LLM reranker (``openai_embeddings*``, ``qwen_embeddings*``, ``alltools-qwen``, ``*_reranker*``).

τ³'s default config is ``alltools``, which needs OpenAI's embedding API; toolgym's default is
``bm25``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from toolgym.worlds.tau2.banking_knowledge.knowledge import prompts as _prompts
from toolgym.worlds.tau2.banking_knowledge.knowledge.configs import (
    ALIASES,
    CONFIGS,
    DEFAULT_RETRIEVAL_CONFIG,
    FULL_KB,
    GOLDEN,
    OFFLINE_ALTERNATIVE,
    REFUSED,
    RETRIEVAL_CONFIGS,
    RetrievalConfig,
    RetrievalUnavailable,
)
from toolgym.worlds.tau2.banking_knowledge.knowledge.documents import Document, KnowledgeBase
from toolgym.worlds.tau2.banking_knowledge.knowledge.prompts import load_templates
from toolgym.worlds.tau2.common import Tau2Toolkit

__all__ = ["DEFAULT_RETRIEVAL_CONFIG", "OFFLINE_ALTERNATIVE", "RETRIEVAL_CONFIGS", "Document", "KnowledgeBase",
           "Retrieval", "RetrievalUnavailable", "build_retrieval", "load_templates"]


@dataclass
class Retrieval:
    """One config built over one knowledge base: the agent's extra toolkits and its system prompt."""

    config: str
    kb: KnowledgeBase
    toolkits: tuple[type[Tau2Toolkit], ...]
    user_toolkits: tuple[type[Tau2Toolkit], ...]
    task: Mapping | None
    templates: Mapping[str, str] | None
    spec: RetrievalConfig

    def system_prompt(self, domain_policy: str | None = None, task: Mapping | None = None) -> str:
        """The agent's system prompt for this config (τ³'s ``build_policy``)."""
        task = task if task is not None else self.task
        spec = self.spec
        if self.templates is None:
            text = "\n\n".join(part for part in (domain_policy or "", spec.own_text) if part)
            if spec.prompt == FULL_KB:
                text += f"\n\n<knowledge_base>\n{_prompts.full_knowledge_base(self.kb)}\n</knowledge_base>"
            elif spec.prompt == GOLDEN:
                text += f"\n\n<required_documents>\n{_prompts.required_documents(self.kb, task)}\n</required_documents>"
            return text
        policy = _prompts.fill(self.templates, spec.template, self.kb if spec.prompt == FULL_KB else None,
                               policy_header=domain_policy)
        if spec.prompt == GOLDEN:
            policy = policy.replace("{{required_documents}}", _prompts.required_documents(self.kb, task))
        if spec.model_named is not None:
            theirs, ours = spec.model_named
            if theirs not in policy:
                raise ValueError(f"prompt template {spec.template}.md no longer names {theirs!r}")
            policy = policy.replace(theirs, ours)
        if spec.all_tools:
            # τ³'s format_all_tools_dense_instructions, for the model toolgym runs
            policy = policy.replace("{{all_tools_dense_instructions}}",
                                    "The `KB_search_dense` tool uses **sentence-transformers** with embedding "
                                    "model `all-MiniLM-L6-v2` for dense retrieval.")
        if not policy.strip():
            raise ValueError(f"Policy is empty for retrieval variant '{self.config}'. "
                             "Ensure the prompt template exists and is properly configured.")
        return policy


def build_retrieval(config: str, kb: KnowledgeBase, task: Mapping | None = None, *,
                    prompts_dir: str | os.PathLike | None = None,
                    templates: Mapping[str, str] | None = None) -> Retrieval:
    """Build retrieval config ``config`` over ``kb`` (its search indexes are built once per kb).

    Raises:
        RetrievalUnavailable: ``config`` needs an API, or an extra that is not installed.
        ValueError: an unknown config (naming the known ones).
    """
    from toolgym.worlds.tau2.banking_knowledge.knowledge import toolkits

    name = ALIASES.get(config, config) if isinstance(config, str) else config
    if name in REFUSED:
        raise RetrievalUnavailable(f"retrieval config {name!r} is not run by toolgym: it {REFUSED[name]}")
    if name not in CONFIGS:
        raise ValueError(f"Unknown retrieval config {config!r}; known: {', '.join(RETRIEVAL_CONFIGS)}")
    spec = CONFIGS[name]
    if templates is None and prompts_dir is not None:
        templates = load_templates(prompts_dir)
    return Retrieval(config=name, kb=kb, toolkits=toolkits.for_config(spec, kb), user_toolkits=(),
                     task=task, templates=templates, spec=spec)

