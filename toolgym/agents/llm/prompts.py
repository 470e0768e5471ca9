"""Prompt formats: how an env's ``info`` becomes the chat request a model sees.

Each format reproduces a paper's setup and names the parser that reads its outputs:

- ``chat``: the env's conversation (``info["messages"]``) with its tools offered natively
  (``info["tools"]``); the backend falls back to tool docs in the system message when the
  model's chat template or the server has no tool support.
- ``tooltalk``: ToolTalk's function-calling conversation. The env's messages already start
  with ToolTalk's system prompt (location, timestamp, username) and all 28 tool docs are
  offered, so this is ``chat`` under the paper's name.
- ``toolbench``: the SambaNova ToolBench system prompt of Figure 5 (goal, API docs, k BM25
  demonstrations; the env retrieves them, 3-shot by default) and the ``Task: ...\\nAction:``
  turn, from ``info["prompt"]``; stops before the model invents the next task.
- ``messages``: the env's messages as they are, without tools, for envs whose prompt already
  documents the API (AppBench's flat and hierarchical prompts of Tables 9 and 10 — choose
  with the env's ``prompting`` argument —, Tabletop's code-as-policies prompt).
- ``plain``: the conversation with the tool docs written into the system message and the
  model asked to answer a call as a JSON object.
- ``react``: Thought / Action / Action Input / Observation (see :mod:`toolgym.agents.llm.react`).
- ``bfcl-prompting`` (also ``bfcl``), ``bfcl-prompting-responses``, ``bfcl-fc``,
  ``bfcl-fc-responses``: BFCL's protocol profiles, what its OpenAI handlers send in prompting
  and function-calling mode through chat completions or the Responses API, byte for byte
  (:mod:`toolgym.envs.bfcl.protocol`); they fix the decoding settings to BFCL's. Their
  parsers pass the whole completion (or all native calls at once) as one action; in
  function calling (``bfcl-fc``) a text answer is never read as calls, as in BFCL.
- ``tau2``: τ²-bench's own agent request (:class:`Tau2Format`).
- ``tau-bench``: τ-bench v1's tool-calling agent (:class:`TauBenchFormat`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from toolgym.envs.bfcl import protocol as bfcl_protocol
from toolgym.llm.chat import flatten_messages, tools_as_text

# The line of the ToolBench system prompt that starts its demonstrations (toolgym.envs.common.toolbench_prompt).
DEMOS_HEADER = "I have the following set of examples:"

# Prompt formats by name, filled as their classes are defined (PromptFormat.__init_subclass__).
_FORMATS: dict[str, type[PromptFormat]] = {}


@dataclass
class EpisodeState:
    """What an agent remembers within one episode (prompt formats may keep notes in ``notes``)."""

    task_id: str
    info: dict
    queued: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    #: The server's answers of the episode's completions, in order (``Completion.message``; None
    #: where there is none): protocols that send the model's own turns back read them.
    replies: list = field(default_factory=list)
    trial: int = 0  # which trial of the task (a protocol's per-trial seed)


class PromptFormat:
    """Builds the chat request for the current step.

    ``parser`` names the parser its output needs, or None to use the env's (see ``defaults_for``).
    """

    name: ClassVar[str] = ""
    parser: ClassVar[str | None] = None
    stop: tuple[str, ...] = ()
    #: Decoding settings the protocol fixes (``SamplingParams`` fields; None: not sent), or None
    #: to keep the run's.
    sampling: ClassVar[dict | None] = None
    #: The API its requests go to: ``"chat"`` (chat completions) or ``"responses"``.
    api: ClassVar[str] = "chat"
    #: Trials per task of the original's leaderboard runs (``eval --trials``' default for an LLM agent
    #: under this profile).
    trials: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            _FORMATS[cls.name] = cls

    def build(self, state: EpisodeState, info: dict) -> tuple[list[dict], list[dict] | None]:
        """(messages, tools) for this step; tools None means none are offered natively."""
        raise NotImplementedError

    def request_fields(self, state: EpisodeState, info: dict) -> dict:
        """More fields of the step's :class:`~toolgym.llm.ChatRequest` (a protocol's
        ``tool_choice``, request ``body`` and ``api``); none by default."""
        return {}

    def after_completion(self, state: EpisodeState, text: str, action: Any) -> None:
        """Hook called with the model's text and the action taken (formats that keep notes)."""

    def describe(self) -> dict:
        return {"prompt_format": self.name}


class ChatFormat(PromptFormat):
    name = "chat"

    def build(self, state, info):
        return list(info.get("messages") or []), list(info.get("tools") or []) or None


class ToolTalkFormat(ChatFormat):
    name = "tooltalk"


class MessagesFormat(PromptFormat):
    name = "messages"

    def build(self, state, info):
        return list(info.get("messages") or []), None


class PlainFormat(PromptFormat):
    name = "plain"

    def build(self, state, info):
        messages = list(info.get("messages") or [])
        tools = info.get("tools") or []
        return flatten_messages(tools_as_text(messages, tools) if tools else messages), None


class ToolBenchFormat(PromptFormat):
    """SambaNova ToolBench's Figure 5 prompt for a chat model; the demos come from the env
    (``info["prompt"]``).

    The paper wrote goal, API docs and demonstrations into one text that a completion model
    continues after ``Action:``. A chat model given that text as a system message answers the
    task turn by starting a new ``Task:`` of its own (SmolLM2-135M-Instruct did, on every
    ToolBench env), so the demonstrations go in as chat turns instead: the system message
    keeps the goal and the API docs, each demonstration is a ``Task: ...\nAction:`` user turn
    answered by its action, then come the env's task turn and the turns since. The same
    content; ``--prompt-format messages`` sends the paper's single text unchanged. A
    demonstration with ``turns`` (a step mode's: one statement each, with what the env
    answered) becomes those turns, so the model sees the protocol it is asked to follow.
    """

    name = "toolbench"
    stop = ("\nTask:", "-------------")

    def build(self, state, info):
        prompt = info.get("prompt") or {}
        messages = list(prompt.get("messages") or info.get("messages") or [])
        if not messages:
            raise ValueError("the toolbench prompt format needs info['prompt'] from a ToolBench env")
        demos = prompt.get("demos") or []
        if not demos or messages[0].get("role") != "system":
            return messages, None
        system = messages[0]["content"].split(DEMOS_HEADER)[0].rstrip() + "\n"
        turns = []
        for demo in demos:
            turns.append({"role": "user", "content": f"Task: {demo['query']}\nAction:"})
            for turn in demo.get("turns") or [{"action": demo["action"], "observation": None}]:
                turns.append({"role": "assistant", "content": turn["action"].strip()})
                if turn["observation"] is not None:
                    turns.append({"role": "user", "content": turn["observation"]})
        return [{"role": "system", "content": system}, *turns, *messages[1:]], None


class BFCLPromptingFormat(PromptFormat):
    """BFCL's prompting mode as its OpenAI chat-completions handler sends it, byte for byte
    (:mod:`toolgym.envs.bfcl.protocol`): BFCL's system prompt with the hinted function docs, the
    model's answers as the server sent them, each step's results as one user turn naming the
    calls, temperature 0.001 and ``store: false``, nothing else."""

    name = "bfcl-prompting"
    parser = "bfcl"
    sampling = bfcl_protocol.SAMPLING
    function_calling = False
    api = "chat"

    def _conversation(self, state: EpisodeState | None) -> bfcl_protocol.Conversation:
        if state is None:
            return bfcl_protocol.Conversation(self.function_calling, self.api)
        return state.notes.setdefault("bfcl", bfcl_protocol.Conversation(self.function_calling, self.api))

    def build(self, state, info):
        conversation = self._conversation(state)
        tools = conversation.tools(info)
        return conversation.messages(info, state.replies if state is not None else []), tools

    def request_fields(self, state, info):
        return {"api": self.api, "body": dict(bfcl_protocol.BODY)}


class BFCLFormat(BFCLPromptingFormat):
    """``bfcl-prompting`` under its earlier name (results files and commands that name it)."""

    name = "bfcl"


class BFCLPromptingResponsesFormat(BFCLPromptingFormat):
    """BFCL's prompting mode through the Responses API (its handler for OpenAI's prompting entries)."""

    name = "bfcl-prompting-responses"
    api = "responses"


class BFCLFunctionCallingFormat(BFCLPromptingFormat):
    """BFCL's function-calling mode through chat completions: the tools as ``convert_to_tool``
    derives them, results as ``tool`` messages with the server's ``tool_call_id``."""

    name = "bfcl-fc"
    parser = "bfcl-fc"
    function_calling = True


class BFCLFunctionCallingResponsesFormat(BFCLFunctionCallingFormat):
    """BFCL's function-calling mode through the Responses API (BFCL's leaderboard entries of
    OpenAI models): ``input`` items, ``function_call_output`` items with the ``call_id``."""

    name = "bfcl-fc-responses"
    api = "responses"


class Tau2Format(PromptFormat):
    """τ²-bench's ``llm_agent`` request, as its harness sends it through litellm
    (:mod:`toolgym.envs.tau2.protocol`): τ²'s system prompt around the policy, the
    conversation in τ²'s message shape with the model's own tool-call ids, the tools as τ²
    derives them and in its order, ``tool_choice: "auto"``, the trial's seed. A whole turn (its
    text and all its calls) is one action, as τ²'s agent takes it. The default for Tau2-v0's
    official tasks."""

    name = "tau2"
    parser = "turn"
    trials = 4  # τ²'s leaderboard submissions: `tau2 run --num-trials 4` (its own default is 1; protocol.TRIALS)

    def build(self, state, info):
        from toolgym.envs.tau2.protocol import agent_messages, solo_tools, tools

        conversation = list(info.get("messages") or [])
        policy = conversation[0]["content"] if conversation and conversation[0].get("role") == "system" else ""
        solo = bool(info.get("solo_mode"))
        return (agent_messages(conversation, policy, solo=solo),
                solo_tools(info["domain"]) if solo else info.get("wire_tools") or tools(info["domain"]))

    def request_fields(self, state, info):
        from toolgym.envs.tau2.protocol import trial_seed

        # τ³'s solo agent must call a tool (its generate(..., tool_choice="required"))
        choice = "required" if info.get("solo_mode") else "auto"
        return {"tool_choice": choice, "body": {"seed": trial_seed(state.trial)}}


class TauBenchFormat(PromptFormat):
    """τ-bench (v1)'s tool-calling agent, as its ``run.py`` sends it through litellm
    (:mod:`toolgym.envs.taubench.protocol`): the wiki as the system message, the conversation
    from the user's first message with the model's own messages and call ids, v1's tools; the
    model's whole turn is the action (the env runs its first call, as v1). The default for
    TauBench-v0's official tasks."""

    name = "tau-bench"
    parser = "turn"

    def build(self, state, info):
        from toolgym.envs.taubench.protocol import agent_messages, tools

        return agent_messages(list(info.get("messages") or [])), tools(info["domain"])


def prompt_formats() -> dict[str, type[PromptFormat]]:
    """Every prompt format by name (each subclass of :class:`PromptFormat` with a name; the
    package imports the modules that define them)."""
    return dict(_FORMATS)


# env id -> (prompt format, parser) when neither is given; envs may also set the class
# attributes ``prompt_format`` / ``action_format``, which take precedence over this table.
ENV_DEFAULTS: dict[str, tuple[str, str]] = {
    "ToolTalk-v0": ("tooltalk", "tool_call"),
    "OpenWeather-v0": ("toolbench", "curl"),
    "CatAPI-v0": ("toolbench", "curl"),
    "HomeSearch-v0": ("toolbench", "program"),
    "TripBooking-v0": ("toolbench", "program"),
    "AppBench-v0": ("messages", "plan"),
    "Tabletop-v0": ("messages", "program"),
    "BFCL-v0": ("bfcl", "bfcl"),
}


def defaults_for(env) -> tuple[str, str]:
    """The (prompt format, parser) an env (instance or class) wants: its own attributes, else
    ``ENV_DEFAULTS``, else chat."""
    base = env if isinstance(env, type) else env.unwrapped
    fmt, parser = ENV_DEFAULTS.get(getattr(base, "env_id", ""), ("chat", "tool_call"))
    return getattr(base, "prompt_format", None) or fmt, getattr(base, "action_format", None) or parser


def make_prompt_format(name: str) -> PromptFormat:
    formats = prompt_formats()
    if name not in formats:
        raise ValueError(f"unknown prompt format {name!r}; known: {', '.join(sorted(formats))}")
    return formats[name]()
