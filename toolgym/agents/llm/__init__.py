"""The shared LLM agent: prompt formats and tool-call parsers over a model client of
:mod:`toolgym.llm`.

``make_agent("hf:Qwen/Qwen2.5-7B-Instruct", env)`` or ``make_agent("openai:http://host:8000/v1#model", env)``
build an :class:`LLMAgent`. Importing this package does not import torch or transformers;
only creating a :class:`~toolgym.llm.TransformersBackend` does.
"""

from __future__ import annotations

from toolgym.agents.llm.agent import LLMAgent, Step
from toolgym.agents.llm.parsers import PARSERS, get_parser
from toolgym.agents.llm.prompts import prompt_formats
from toolgym.agents.llm.react import ReActFormat  # defines the react format
from toolgym.llm import SAMPLING_KEYS, SamplingParams, make_backend


def make_llm_agent(kind: str, arg: str, env, options: dict) -> LLMAgent:
    """The ``AGENT_FACTORIES`` entry for ``hf:`` and ``openai:``.

    ``options``: ``temperature``, ``top_p``, ``max_new_tokens``, ``seed`` (decoding),
    ``prompt_format``, ``parser``, ``tool_choice``, ``max_concurrency`` (openai) and ``backend_kwargs``.
    """
    backend_kwargs = dict(options.get("backend_kwargs") or {})
    if kind == "openai" and options.get("max_concurrency") is not None:
        backend_kwargs["max_concurrency"] = options["max_concurrency"]
    sampling = SamplingParams(**{k: options[k] for k in SAMPLING_KEYS if options.get(k) is not None})
    return LLMAgent(make_backend(kind, arg, **backend_kwargs), env=env, prompt_format=options.get("prompt_format"),
                    parser=options.get("parser"), sampling=sampling, tool_choice=options.get("tool_choice"))


__all__ = ["LLMAgent", "Step", "PARSERS", "get_parser", "prompt_formats", "ReActFormat", "make_llm_agent"]
