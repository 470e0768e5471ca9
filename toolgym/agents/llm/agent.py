"""LLMAgent: drives any toolgym env with any backend, one episode or many in lockstep.

The per-episode state lives in an :class:`EpisodeState`, so one agent serves many episodes at
once: the batched runner (:mod:`toolgym.eval.batch`) asks every live episode for its
request, makes one backend call for all of them, and hands each completion back. The
:class:`~toolgym.agents.base.Agent` protocol (``reset`` / ``act``) is the same thing with one
episode and a batch of one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Sequence

from toolgym.llm.backends import Backend, BackendError, ChatRequest, Completion, SamplingParams
from toolgym.agents.llm.parsers import ACTION_COMPLETE, get_parser
from toolgym.agents.llm.prompts import ChatFormat, EpisodeState, defaults_for, make_prompt_format


@dataclass
class Step:
    """One action of an episode and the ``llm`` record of the completion it came from."""

    action: Any
    llm: dict


class LLMAgent:
    """A language-model policy.

    Args:
        backend: A :class:`TransformersBackend`, :class:`OpenAICompatibleBackend` or anything
            with ``generate(requests, sampling)``.
        env: The env or its class (or None); picks the default prompt format and parser.
        prompt_format: A name from ``prompts.prompt_formats()``; default per env.
        parser: A name from ``parsers.PARSERS``; default: the format's, else the env's.
        sampling: Decoding settings.
        tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a tool's name (sent as OpenAI's
            ``{"type": "function", "function": {"name": ...}}``); None sends none. A local (hf)
            model decodes ``required`` and a name under a grammar of the tools' schemas
            (:mod:`toolgym.llm.constrained`); it needs a prompt format that offers the tools
            natively (chat, tooltalk).
    """

    def __init__(self, backend: Backend, env=None, prompt_format: str | None = None, parser: str | None = None,
                 sampling: SamplingParams | None = None, tool_choice: str | None = None):
        env_format, env_parser = defaults_for(env) if env is not None else ("chat", "tool_call")
        self.backend = backend
        self.format = make_prompt_format(prompt_format or env_format)
        if tool_choice not in (None, "auto", "none") and not isinstance(self.format, ChatFormat):
            raise ValueError(f"tool_choice={tool_choice!r} needs a prompt format that offers the env's tools "
                             f"natively (chat, tooltalk), not {self.format.name!r}")
        self.tool_choice = tool_choice
        self.parser_name = parser or self.format.parser or env_parser
        self.parse = get_parser(self.parser_name)
        self.sampling = sampling or SamplingParams()
        api = self.format.api
        if api not in getattr(backend, "apis", ("chat",)):
            raise ValueError(f"prompt format {self.format.name!r} sends {api!r} API requests, which the "
                             f"{getattr(backend, 'name', type(backend).__name__)} backend does not speak "
                             f"(an openai: server does)")
        if self.format.sampling is not None:  # a protocol profile sends its original's settings
            self.sampling = replace(self.sampling, **self.format.sampling)
        base = None if env is None else env if isinstance(env, type) else env.unwrapped
        # An env that grades a completion's calls together (BFCL's parallel calls) gets them as one action.
        self.calls_together = bool(getattr(base, "calls_in_one_action", False))
        self._episode: EpisodeState | None = None
        self.last_llm: dict | None = None

    def describe(self) -> dict:
        """Run settings for results files (no secrets)."""
        return {**self.backend.describe(), **self.format.describe(), "parser": self.parser_name,
                "decoding": self.sampling.describe(), "tool_choice": self.tool_choice}

    # -- many episodes ---------------------------------------------------------------------
    def start(self, observation: str, info: dict, trial: int = 0) -> EpisodeState:
        return EpisodeState(task_id=str(info.get("task_id")), info=info, trial=trial)

    def queued(self, state: EpisodeState) -> Step | None:
        """The next action of an earlier completion (several calls in one output), if any."""
        return state.queued.pop(0) if state.queued else None

    def request(self, state: EpisodeState, observation: str, info: dict) -> ChatRequest:
        state.info = info
        messages, tools = self.format.build(state, info)
        request = ChatRequest(messages=messages, tools=tools, stop=self.format.stop,
                              complete=ACTION_COMPLETE.get(self.parser_name), **self.format.request_fields(state, info))
        if self.tool_choice is not None:  # the run's --tool-choice over the protocol's
            request.tool_choice = (self.tool_choice if self.tool_choice in ("auto", "none", "required")
                                   else {"type": "function", "function": {"name": self.tool_choice}})
        return request

    def finish(self, state: EpisodeState, completion: Completion) -> Step:
        """The action for a completion; further calls in it are queued for the next steps."""
        llm = completion.record()
        state.replies.append(completion.message)
        if completion.error:
            return Step(action="", llm=llm)
        names = [t["function"]["name"] for t in state.info.get("tools") or [] if "function" in t]
        actions = self.parse(completion.text, completion.tool_calls, names) or [""]
        if self.calls_together and len(actions) > 1:
            actions = [actions]
        self.format.after_completion(state, completion.text, actions[0])
        state.queued.extend(Step(action=a, llm={"queued": True}) for a in actions[1:])
        return Step(action=actions[0], llm=llm)

    def step_batch(self, states: Sequence[EpisodeState], observations: Sequence[str],
                   infos: Sequence[dict]) -> list[Step]:
        """One action per episode: queued ones first, one backend call for the rest."""
        steps: list[Step | None] = [self.queued(s) for s in states]
        pending = [i for i, s in enumerate(steps) if s is None]
        requests = [self.request(states[i], observations[i], infos[i]) for i in pending]
        completions = self.backend.generate(requests, self.sampling)
        for i, completion in zip(pending, completions):
            steps[i] = self.finish(states[i], completion)
        return steps  # type: ignore[return-value]

    # -- the Agent protocol (one episode) --------------------------------------------------
    def reset(self, observation: str, info: dict) -> None:
        self._episode = self.start(observation, info)

    def act(self, observation: str, info: dict) -> Any:
        if self._episode is None:
            self.reset(observation, info)
        step = self.step_batch([self._episode], [observation], [info])[0]
        self.last_llm = step.llm
        if step.llm.get("error"):
            raise BackendError(step.llm["error"].removeprefix("BackendError: "))
        return step.action
