"""τ³'s retrieval configs (``retrieval.py``'s ``RETRIEVAL_VARIANTS``): which tools each gives the
agent and which prompt template it fills, and the configs toolgym refuses and why."""

from __future__ import annotations

from dataclasses import dataclass


class RetrievalUnavailable(ValueError):
    """A retrieval config toolgym cannot run (an API it needs, a missing extra); ``str()`` says why."""


#: τ³'s default variant is ``alltools`` (BM25 + dense search through OpenAI's embedding API + the
#: shell); it needs that API, so toolgym's default is ``bm25`` (see ``alltools`` for the offline one).
DEFAULT_RETRIEVAL_CONFIG = "bm25"

MINILM_NAME = "all-MiniLM-L6-v2 (sentence-transformers)"
#: How the prompt is filled (τ³'s ``standard_prompt``, ``full_kb_prompt``, ``golden_prompt``).
STANDARD, FULL_KB, GOLDEN = "standard", "full_kb", "golden"


@dataclass(frozen=True)
class RetrievalConfig:
    """One config: its tools (by kind), its prompt template and how that is filled."""

    name: str
    template: str
    prompt: str = STANDARD
    kb_search: str | None = None  # "bm25" or "minilm": the KB_search tool's backend
    grep: bool = False
    shell: bool = False
    shell_writes: bool = False
    all_tools: bool = False  # KB_search_bm25 + KB_search_dense (MiniLM) + shell
    #: (τ³'s words, toolgym's): the template names τ³'s embedding model where toolgym runs MiniLM
    model_named: tuple[str, str] | None = None
    #: toolgym's own wording of the knowledge section, for a bank without τ³'s templates
    own_text: str = ""


_SHELL_TEXT = ("Use the `shell` tool to explore the knowledge base: its documents are Markdown files in the "
               "current directory, listed in INDEX.md; `ls`, `cat`, `head`, `tail`, `grep`, `find`, `wc`, "
               "`sort` and `uniq` work, with pipes.")

CONFIGS: dict[str, RetrievalConfig] = {c.name: c for c in (
    RetrievalConfig("no_knowledge", "no_knowledge"),
    RetrievalConfig("full_kb", "full_kb", prompt=FULL_KB,
                    own_text="The whole knowledge base follows; use it to answer and to decide what to do."),
    RetrievalConfig("golden_retrieval", "required_docs", prompt=GOLDEN,
                    own_text="The documents you need for this customer's request follow."),
    RetrievalConfig("bm25", "classic_rag_bm25_no_grep", kb_search="bm25",
                    own_text="Search the knowledge base with the `KB_search` tool (BM25)."),
    RetrievalConfig("bm25_grep", "classic_rag_bm25", kb_search="bm25", grep=True,
                    own_text="Search the knowledge base with the `KB_search` tool (BM25) and the `grep` tool."),
    RetrievalConfig("grep_only", "grep_only", grep=True,
                    own_text="Search the knowledge base with the `grep` tool (regular expressions)."),
    RetrievalConfig("minilm_embeddings", "classic_rag_openai_no_grep", kb_search="minilm",
                    model_named=("OpenAI text-embedding-3-large", MINILM_NAME),
                    own_text="Search the knowledge base with the `KB_search` tool (dense embeddings)."),
    RetrievalConfig("minilm_embeddings_grep", "classic_rag", kb_search="minilm", grep=True,
                    own_text="Search the knowledge base with the `KB_search` tool (dense embeddings) and the "
                             "`grep` tool."),
    RetrievalConfig("terminal_use", "agentic_search", shell=True, own_text=_SHELL_TEXT),
    RetrievalConfig("terminal_use_write", "agentic_search_write", shell=True, shell_writes=True,
                    own_text=_SHELL_TEXT + " You may also write files there (`echo ... > notes.md`, `touch`, "
                                           "`mkdir`, `rm`); they last for the conversation."),
    RetrievalConfig("alltools", "all_tools", all_tools=True, shell=True,
                    own_text="Search the knowledge base with `KB_search_bm25` (BM25), `KB_search_dense` "
                             "(dense embeddings; both take `k`, default 10) and the `shell` tool. "
                             + _SHELL_TEXT),
)}

_EMBEDDING_API = ("needs {what} (an embedding API toolgym does not call); run minilm_embeddings{grep} for "
                  "the same tools with the packaged all-MiniLM-L6-v2 model, or bm25{grep}")
_RERANKER = ("reranks KB_search's results with an LLM judge (τ³'s pointwise_llm_reranker, an API call per "
             "document) that toolgym does not run; run {base} for the same search without the reranker")

#: τ³'s configs that need an API, and why each is refused.
REFUSED: dict[str, str] = {
    "openai_embeddings": _EMBEDDING_API.format(what="OpenAI's text-embedding-3-large", grep=""),
    "openai_embeddings_grep": _EMBEDDING_API.format(what="OpenAI's text-embedding-3-large", grep="_grep"),
    "qwen_embeddings": _EMBEDDING_API.format(what="Qwen3-Embedding-8B through OpenRouter", grep=""),
    "qwen_embeddings_grep": _EMBEDDING_API.format(what="Qwen3-Embedding-8B through OpenRouter", grep="_grep"),
    "alltools-qwen": ("searches with Qwen3-Embedding-8B through OpenRouter (an embedding API toolgym does not "
                      "call); run alltools for BM25, dense search with the packaged all-MiniLM-L6-v2 and the "
                      "shell"),
    "bm25_reranker": _RERANKER.format(base="bm25"),
    "bm25_reranker_grep": _RERANKER.format(base="bm25_grep"),
    "openai_embeddings_reranker": _RERANKER.format(base="minilm_embeddings"),
    "openai_embeddings_reranker_grep": _RERANKER.format(base="minilm_embeddings_grep"),
    "qwen_embeddings_reranker": _RERANKER.format(base="minilm_embeddings"),
    "qwen_embeddings_reranker_grep": _RERANKER.format(base="minilm_embeddings_grep"),
}

#: The offline config with the same tools as a refused one (what each refusal suggests): a τ³ run of
#: a refused config replays under it, its search answers not comparable.
OFFLINE_ALTERNATIVE: dict[str, str] = {
    "openai_embeddings": "minilm_embeddings", "openai_embeddings_grep": "minilm_embeddings_grep",
    "qwen_embeddings": "minilm_embeddings", "qwen_embeddings_grep": "minilm_embeddings_grep",
    "alltools-qwen": "alltools", "bm25_reranker": "bm25", "bm25_reranker_grep": "bm25_grep",
    "openai_embeddings_reranker": "minilm_embeddings", "openai_embeddings_reranker_grep": "minilm_embeddings_grep",
    "qwen_embeddings_reranker": "minilm_embeddings", "qwen_embeddings_reranker_grep": "minilm_embeddings_grep",
}

#: τ³'s alias of a variant name.
ALIASES = {"AllTools": "alltools"}

RETRIEVAL_CONFIGS: tuple[str, ...] = tuple(CONFIGS) + tuple(REFUSED)
