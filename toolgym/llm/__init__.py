"""Model clients, the layer below the envs: backends (a local transformers or GGUF model, any
OpenAI-compatible server, the tiny test model), chat requests, sampling and token usage. The
agents' policies, the envs' simulated users and judges, and the LLM server all use them.

Importing this package does not import torch or transformers; creating a
:class:`TransformersBackend` does.
"""

from __future__ import annotations

from toolgym.llm.backends import (Backend, BackendError, ChatRequest, Completion, OpenAICompatibleBackend,
                                  SamplingParams, TransformersBackend)

SAMPLING_KEYS = ("temperature", "top_p", "max_new_tokens", "seed")


def make_backend(kind: str, arg: str, **kwargs):
    """``hf`` + model id or path, or ``openai`` + ``URL[#MODEL]``; kwargs go to the backend.

    ``hf`` loads from disk only (a local folder or the Hugging Face cache) unless
    ``download=True``. A model or server that cannot be reached raises :class:`BackendError`
    with a one-line message.
    """
    if kind == "hf":
        if not arg:
            raise ValueError("hf: needs a model id or path, e.g. hf:Qwen/Qwen2.5-7B-Instruct")
        return TransformersBackend(arg, **kwargs)
    if kind == "openai":
        url, _, model = arg.partition("#")
        if not url:
            raise ValueError("openai: needs a server URL, e.g. openai:http://localhost:8000/v1#my-model")
        return OpenAICompatibleBackend(url, model=model or None, **kwargs)
    raise ValueError(f"unknown LLM backend {kind!r}")


__all__ = ["Backend", "BackendError", "ChatRequest", "Completion", "OpenAICompatibleBackend", "SamplingParams",
           "TransformersBackend", "SAMPLING_KEYS", "make_backend"]
