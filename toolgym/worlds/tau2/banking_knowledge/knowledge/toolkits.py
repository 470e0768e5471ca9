"""The retrieval tools, as τ³'s retrieval mixins declare them (names, arguments, descriptions) and
word their outputs. Each reads ``self.world.knowledge`` (a :class:`KnowledgeBase`)."""

from __future__ import annotations

from toolgym.worlds.tau2.banking_knowledge.knowledge import search
from toolgym.worlds.tau2.banking_knowledge.knowledge.configs import RetrievalConfig
from toolgym.worlds.tau2.banking_knowledge.knowledge.documents import KnowledgeBase
from toolgym.worlds.tau2.banking_knowledge.knowledge.shell import Shell
from toolgym.worlds.tau2.common import Tau2Toolkit
from toolgym.worlds.tools import READ, tool

APP = "banking_knowledge"


class BM25SearchTools(Tau2Toolkit):
    """``KB_search`` over BM25 (τ³'s ``KBSearchMixin`` on a BM25 pipeline)."""

    @tool(kind=READ, app=APP)
    def KB_search(self, query: str) -> str:  # noqa: N802 - τ³'s name
        """Search the knowledge base for relevant documents.

        Args:
            query: The search query to find relevant documents

        Returns:
            Relevant document excerpts matching the query
        """
        kb = self.world.knowledge
        return search.kb_search_text(kb, search.bm25_search(kb, query))


class DenseSearchTools(Tau2Toolkit):
    """``KB_search`` over MiniLM embeddings (τ³'s ``KBSearchMixin`` on an embedding pipeline)."""

    @tool(kind=READ, app=APP)
    def KB_search(self, query: str) -> str:  # noqa: N802 - τ³'s name
        """Search the knowledge base for relevant documents.

        Args:
            query: The search query to find relevant documents

        Returns:
            Relevant document excerpts matching the query
        """
        kb = self.world.knowledge
        return search.kb_search_text(kb, search.dense_index(kb).search(query))


class GrepTools(Tau2Toolkit):
    """``grep`` (τ³'s ``GrepMixin``): documents ranked by case-insensitive regex matches."""

    @tool(kind=READ, app=APP)
    def grep(self, pattern: str) -> str:
        """Search for a regex pattern in all knowledge base documents.

        Returns documents ranked by number of matches, with full content.

        Args:
            pattern: The regex pattern to search for (e.g., 'credit.*card', 'fee|charge')

        Returns:
            Matching documents ranked by relevance (match count)
        """
        return search.grep_text(self.world.knowledge, pattern)


class AllToolsSearchTools(Tau2Toolkit):
    """``KB_search_bm25`` and ``KB_search_dense`` (τ³'s AllTools mixins), each taking ``k``."""

    @tool(kind=READ, app=APP)
    def KB_search_bm25(self, query: str, k: int = 10) -> str:  # noqa: N802 - τ³'s name
        """Search the knowledge base using BM25 sparse retrieval.

        Args:
            query: The search query to find relevant documents.
            k: Maximum number of documents to return (default 10).

        Returns:
            Relevant document excerpts matching the query.
        """
        kb = self.world.knowledge
        # τ³'s pipeline keeps its retriever's 10 and then cuts to k (a larger k still gives 10)
        return search.kb_search_text(kb, _cut(search.bm25_search(kb, query), k))

    @tool(kind=READ, app=APP)
    def KB_search_dense(self, query: str, k: int = 10) -> str:  # noqa: N802 - τ³'s name
        """Search the knowledge base using dense embedding retrieval.

        Args:
            query: The search query to find relevant documents.
            k: Maximum number of documents to return (default 10).

        Returns:
            Relevant document excerpts matching the query.
        """
        kb = self.world.knowledge
        return search.kb_search_text(kb, _cut(search.dense_index(kb).search(query), k))


def _cut(results: list, k) -> list:
    # τ³'s ``results[:top_k]`` when top_k is not None: Python's slice, negative and bool k included
    return results if k is None else results[:k]


class ShellTools(Tau2Toolkit):
    """``shell`` (τ³'s ``ShellMixin``), on a simulated read-only shell over the exported documents."""

    allow_writes = False

    @property
    def session(self) -> Shell:
        """A shell over the world's knowledge base; what it writes lives in the world's ``aux``, so
        it lasts for the episode and a failed call leaves nothing."""
        return Shell(self.world.knowledge, allow_writes=self.allow_writes, state=self.world.aux)

    @tool(kind=READ, app=APP)
    def shell(self, command: str) -> str:
        """Execute a shell command in the knowledge base directory.

        Use standard Unix utilities to explore and search the knowledge base files.
        Common commands: ls, cat, grep, head, tail, find, wc, awk, sed, etc.

        Args:
            command: The shell command to execute (e.g., "ls -la", "grep -r 'credit card' .", "cat INDEX.txt")

        Returns:
            The command output (stdout) or error message
        """
        code, stdout, stderr = self.session.run(command)
        if code != 0:
            # τ³'s ShellMixin: grep's "no match" status is not an error
            if code == 1 and "grep" in command and not stderr:
                return "No matches found."
            if stderr:
                return f"Error (exit code {code}): {stderr}"
            return f"Command failed with exit code {code}"
        return stdout if stdout else "(no output)"


class ShellWriteTools(ShellTools):
    """``shell`` for ``terminal_use_write``: what the agent writes lasts for the episode, in memory."""

    allow_writes = True


def for_config(spec: RetrievalConfig, kb: KnowledgeBase) -> tuple[type[Tau2Toolkit], ...]:
    """The toolkits of config ``spec``. The BM25 index is built over ``kb`` now; the dense one (minutes
    of CPU for τ³'s 698 documents on a small machine) at the first dense search, but a missing
    extra fails here."""
    toolkits: list[type[Tau2Toolkit]] = []
    if spec.all_tools or spec.kb_search == "bm25":
        search.bm25_index(kb)
    if spec.all_tools or spec.kb_search == "minilm":
        search.check_dense_available()
    if spec.all_tools:
        toolkits.append(AllToolsSearchTools)
    elif spec.kb_search == "bm25":
        toolkits.append(BM25SearchTools)
    elif spec.kb_search == "minilm":
        toolkits.append(DenseSearchTools)
    if spec.grep:
        toolkits.append(GrepTools)
    if spec.shell:
        toolkits.append(ShellWriteTools if spec.shell_writes else ShellTools)
    return tuple(toolkits)
