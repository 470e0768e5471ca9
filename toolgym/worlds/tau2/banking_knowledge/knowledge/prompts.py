"""The agent's system prompt of each retrieval config: τ³'s templates (the data's ``prompts/``
folder) filled as ``retrieval.py``'s ``build_policy`` fills them, or toolgym's own short wording
for a bank that comes without them (the built-in banks)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from toolgym.untrusted import read_text
from toolgym.worlds.tau2.banking_knowledge.knowledge.documents import KnowledgeBase

MAX_TEMPLATE_BYTES = 1_000_000
MAX_TEMPLATES = 200
COMPONENT = re.compile(r"\{\{component:(\w+)\}\}")
FULL_KNOWLEDGE_BASE = re.compile(r"\{\{full_knowledge_base\}\}")
#: What τ³'s golden retrieval writes when none of the task's required documents is found.
NO_DOCUMENTS = "(No documents provided)"


def load_templates(prompts_dir: str | os.PathLike) -> dict[str, str]:
    """The data's ``prompts/*.md`` (``"name"``) and ``prompts/components/*.md`` (``"components/name"``).

    Read as τ³ reads them (``Path.read_text``: UTF-8, universal newlines), each bounded in bytes.
    """
    root = Path(prompts_dir)
    templates: dict[str, str] = {}
    for folder, prefix in ((root, ""), (root / "components", "components/")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            if len(templates) >= MAX_TEMPLATES:
                raise ValueError(f"{root}: more than {MAX_TEMPLATES} prompt templates")
            text = read_text(path, MAX_TEMPLATE_BYTES, "prompt template")
            templates[prefix + path.stem] = text.replace("\r\n", "\n").replace("\r", "\n")
    return templates


def full_knowledge_base(kb: KnowledgeBase) -> str:
    """τ³'s ``format_full_knowledge_base``: every document as ``## title``, content, ``---`` between."""
    return "\n\n---\n\n".join(f"## {doc.title}\n\n{doc.content}" for doc in kb.all())


def required_documents(kb: KnowledgeBase, task: Mapping | None) -> str:
    """τ³'s ``golden_prompt`` text: the task's ``required_documents`` (titles, else ids) found in the KB."""
    references = (task.get("required_documents") or []) if task else []
    found = [kb.find(ref) for ref in references if isinstance(ref, str)]
    parts = [f"## {doc.title}\n\n{doc.content}" for doc in found if doc is not None]
    return "\n\n---\n\n".join(parts) if parts else NO_DOCUMENTS


def fill(templates: Mapping[str, str], name: str, kb: KnowledgeBase | None, *,
         policy_header: str | None = None) -> str:
    """τ³'s ``load_prompt_template``: components in, then the full KB where ``kb`` is given.

    ``policy_header``, when given, stands in for the ``policy_header`` component (a bank with its
    own policy over τ³'s templates).
    """
    if name not in templates:
        raise ValueError(f"prompt template {name}.md is missing from the prompts folder")

    def component(match: re.Match) -> str:
        key = match.group(1)
        if key == "policy_header" and policy_header is not None:
            return policy_header
        if f"components/{key}" not in templates:
            raise ValueError(f"prompt component {key}.md is missing from the prompts folder")
        return templates[f"components/{key}"]

    content = COMPONENT.sub(component, templates[name])
    if kb is not None and FULL_KNOWLEDGE_BASE.search(content):
        # τ³ passes the KB text to re.sub as the replacement template (escapes in it are read as
        # re.sub reads them); so does toolgym, for the same prompt
        content = FULL_KNOWLEDGE_BASE.sub(full_knowledge_base(kb), content)
    return content
