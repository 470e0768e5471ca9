"""The shared LLM agent: backends, prompt formats, tool-call parsers.

``make_agent("hf:Qwen/Qwen2.5-7B-Instruct", env)`` or ``make_agent("openai:http://host:8000/v1#model", env)``
build an :class:`LLMAgent`. Importing this package does not import torch or transformers;
only creating a :class:`TransformersBackend` does.
"""

from __future__ import annotations

from toolgym.agents.llm.agent import LLMAgent, Step
from toolgym.agents.llm.backends import (BackendError, ChatRequest, Completion, OpenAICompatibleBackend,
                                         SamplingParams, TransformersBackend)
from toolgym.agents.llm.parsers import PARSERS, get_parser
from toolgym.agents.llm.prompts import prompt_formats

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


def make_llm_agent(kind: str, arg: str, env, options: dict) -> LLMAgent:
    """The ``AGENT_FACTORIES`` entry for ``hf:`` and ``openai:``.

    ``options``: ``temperature``, ``top_p``, ``max_new_tokens``, ``seed`` (decoding),
    ``prompt_format``, ``parser``, ``max_concurrency`` (openai) and ``backend_kwargs``.
    """
    backend_kwargs = dict(options.get("backend_kwargs") or {})
    if kind == "openai" and options.get("max_concurrency") is not None:
        backend_kwargs["max_concurrency"] = options["max_concurrency"]
    sampling = SamplingParams(**{k: options[k] for k in SAMPLING_KEYS if options.get(k) is not None})
    return LLMAgent(make_backend(kind, arg, **backend_kwargs), env=env, prompt_format=options.get("prompt_format"),
                    parser=options.get("parser"), sampling=sampling)


__all__ = ["LLMAgent", "Step", "BackendError", "ChatRequest", "Completion", "OpenAICompatibleBackend",
           "SamplingParams", "TransformersBackend", "PARSERS", "get_parser", "prompt_formats",
           "make_backend", "make_llm_agent"]
