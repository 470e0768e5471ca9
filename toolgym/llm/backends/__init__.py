"""Language-model backends: a local transformers model, or any OpenAI-compatible server.

Both take a batch of :class:`ChatRequest` and return one :class:`Completion` per request, with
the text, native tool calls (servers only), token counts and, where available, token ids and
log-probabilities, so that RL code never has to re-tokenize. torch and transformers are imported
only by :class:`TransformersBackend` (the ``[llm]`` extra).
"""

from __future__ import annotations

from toolgym.llm.backends.common import Backend, BackendError, ChatRequest, Completion, SamplingParams
from toolgym.llm.backends.hf_transformers import TransformersBackend
from toolgym.llm.backends.openai_compatible import OpenAICompatibleBackend

__all__ = ["Backend", "BackendError", "ChatRequest", "Completion", "OpenAICompatibleBackend", "SamplingParams",
           "TransformersBackend"]
