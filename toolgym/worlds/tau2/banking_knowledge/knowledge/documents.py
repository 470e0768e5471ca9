"""The knowledge base's documents, and the files τ³'s shell sandbox exports them as."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: Bounds on what a knowledge base may hold (τ³'s: 698 documents, 2.9 MB).
MAX_DOCUMENTS = 20_000
MAX_DOCUMENT_CHARS = 1_000_000
MAX_KNOWLEDGE_CHARS = 50_000_000
INDEX_FILE = "INDEX.md"


@dataclass(frozen=True)
class Document:
    """One document of τ³'s ``documents/*.json``: ``{"id", "title", "content"}``."""

    id: str
    title: str
    content: str


def _text(value: Any, field: str, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: {field} must be a string, got {type(value).__name__}")
    if len(value) > MAX_DOCUMENT_CHARS:
        raise ValueError(f"{where}: {field} is longer than {MAX_DOCUMENT_CHARS} characters")
    return value


def sandbox_file_name(doc_id: str) -> str:
    """The file τ³'s sandbox writes a document to (``SandboxManager._sanitize_filename`` + ``.md``)."""
    safe = doc_id.replace("/", "_").replace("\\", "_").replace("..", "_")
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in safe)
    return safe[:255] + ".md"


class KnowledgeBase:
    """The documents, in the order τ³'s ``KnowledgeBase.documents`` holds them.

    τ³ loads ``documents/*.json`` in its file system's directory order (``Path.glob``), keyed by id:
    a later document with an id already seen replaces the earlier one's text and keeps its place.
    :meth:`from_documents` takes the order it is given; that order decides the full-KB prompt's
    order and which of two equal BM25 or grep scores is listed first, so give file-name order for
    a reproducible run (toolgym's official loader does).
    """

    def __init__(self, documents: Iterable[Document]):
        by_id: dict[str, Document] = {}
        for doc in documents:
            by_id[doc.id] = doc
        self.documents: dict[str, Document] = by_id
        self._files: dict[str, str] | None = None
        #: Search indexes built from these documents, by kind (BM25, a dense model's), built once.
        self.indexes: dict[str, object] = {}

    @classmethod
    def from_documents(cls, documents: Iterable[Mapping[str, Any]]) -> KnowledgeBase:
        """From τ³'s document dicts; a malformed one is a ``ValueError`` naming it."""
        docs: list[Document] = []
        total = 0
        for position, raw in enumerate(documents):
            where = f"document {position}"
            if position >= MAX_DOCUMENTS:
                raise ValueError(f"more than {MAX_DOCUMENTS} documents")
            if not isinstance(raw, Mapping):
                raise ValueError(f"{where}: must be an object with id, title and content")
            doc_id = _text(raw.get("id"), "id", where)
            where = f"document {doc_id[:80]!r}"
            doc = Document(id=doc_id, title=_text(raw.get("title"), "title", where),
                           content=_text(raw.get("content"), "content", where))
            total += len(doc.content) + len(doc.title)
            if total > MAX_KNOWLEDGE_CHARS:
                raise ValueError(f"the documents hold more than {MAX_KNOWLEDGE_CHARS} characters")
            docs.append(doc)
        return cls(docs)

    def __len__(self) -> int:
        return len(self.documents)

    def all(self) -> list[Document]:
        return list(self.documents.values())

    def find(self, reference: str) -> Document | None:
        """A document by title (the last of that title), else by id: how τ³'s golden retrieval
        reads a task's ``required_documents``."""
        by_title = None
        for doc in self.documents.values():
            if doc.title == reference:
                by_title = doc
        return by_title or self.documents.get(reference)

    def files(self) -> dict[str, str]:
        """The knowledge base as τ³'s shell sandbox lays it out: file name -> text.

        ``SandboxManager.export_documents(file_format="md")``: each document as
        ``<sanitised id>.md`` holding ``# {title}\\n\\n{content}`` (no final newline added; a later
        document whose name sanitises the same overwrites the file), and ``INDEX.md`` listing the
        documents sorted by id.
        """
        if self._files is None:
            files: dict[str, str] = {}
            for doc in self.documents.values():
                files[sandbox_file_name(doc.id)] = f"# {doc.title}\n\n{doc.content}"
            lines = ["# Knowledge Base Index\n\n", f"**Total documents:** {len(self.documents)}\n\n",
                     "## Documents\n\n"]
            for doc in sorted(self.documents.values(), key=lambda d: d.id):
                lines.append(f"- **{sandbox_file_name(doc.id)}** - {doc.title}\n")
            files[INDEX_FILE] = "".join(lines)
            self._files = files
        return self._files
