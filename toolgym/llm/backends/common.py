"""What every backend shares: the request and completion types, the :class:`Backend` protocol,
the one error a backend raises, and the cut at stop strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol
from collections.abc import Callable, Sequence


@dataclass(frozen=True)
class SamplingParams:
    """Decoding settings. ``temperature=0`` is greedy decoding.

    A field that is None is not sent to a server (``openai:``): the server's default holds. The
    local ``hf:`` backend uses ``top_p`` 1.0 and ``max_new_tokens`` :data:`DEFAULT_MAX_NEW_TOKENS`
    for them.
    """

    temperature: float | None = 0.0
    top_p: float | None = None
    max_new_tokens: int | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def describe(self) -> dict:
        return {"temperature": self.temperature, "top_p": self.top_p, "max_new_tokens": self.max_new_tokens,
                "stop": list(self.stop), "seed": self.seed}


#: The most new tokens of a completion of a local model when the sampling settings name none.
DEFAULT_MAX_NEW_TOKENS = 512


@dataclass
class ChatRequest:
    """One prompt: chat messages, the tool schemas to offer (or None) and extra stop strings.

    The messages are sent as given (a server's tool-call ids kept, tool messages as the prompt
    format builds them); a backend adds only the model and what the request says. A benchmark's
    protocol (``toolgym/envs/<benchmark>/protocol.py``) sets the rest: ``tool_choice`` (sent
    only when not None), ``body`` (request-body fields sent exactly as given, merged last: a
    ``seed``, ``{"temperature": 0.001, "store": False}``) and ``api`` (``"chat"``: chat
    completions; ``"responses"``: the Responses API).

    ``complete`` tells when a completion already holds the whole action its parser reads (the
    agent's :data:`toolgym.agents.llm.parsers.ACTION_COMPLETE`: a curl line that has ended); a
    backend that can stop a row on it does (hf), others rely on ``stop``.

    ``tool_choice``: OpenAI's (``"auto"``, ``"none"``, ``"required"``, or
    ``{"type": "function", "function": {"name": ...}}``; a function's name alone is taken as that
    too by the hf backend, which decodes calls under a grammar: :mod:`toolgym.llm.constrained`).
    """

    messages: list[dict]
    tools: list[dict] | None = None
    stop: tuple[str, ...] = ()
    complete: Callable[[str], bool] | None = None
    tool_choice: str | dict | None = None
    body: dict | None = None
    api: str = "chat"


@dataclass
class Completion:
    """What a backend returns for one request; ``error`` is set when the request failed for good.

    ``message`` is what the server answered as it sent it, for protocols that send the model's own
    turns back: the chat completion's message (a dict), or the Responses API's ``output`` items (a
    list); None from local backends."""

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: str | None = None
    error: str | None = None
    message: dict | list | None = None

    def record(self) -> dict:
        """The trajectory's ``llm`` entry for the step this completion produced."""
        out = {"text": self.text, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
               "prompt_token_ids": self.prompt_token_ids, "completion_token_ids": self.completion_token_ids,
               "logprobs": self.logprobs, "finish_reason": self.finish_reason}
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        if self.error:
            out["error"] = self.error
        return out


class Backend(Protocol):
    name: str

    def generate(self, requests: Sequence[ChatRequest], sampling: SamplingParams) -> list[Completion]: ...

    def describe(self) -> dict: ...


class BackendError(RuntimeError):
    """A backend that cannot answer: a model that cannot be loaded, or a server request that
    failed for good (after the retries). The message is one short line without credentials."""


def _cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """The text before the first stop string (stop strings are not part of the output)."""
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)

