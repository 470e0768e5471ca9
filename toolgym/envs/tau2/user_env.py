"""Tau2User-v0: τ²-bench's worlds from the customer's side, for training user simulators."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.actions import TextReply, ToolCall, parse_action
from toolgym.envs.tau2.env import AGENT_STOP, Tau2Env
from toolgym.envs.users import USER_GUIDELINES, is_stop, scenario_text

#: The agent's actions (tool calls and one message) between two of the customer's, at most: τ²
#: bounds only the whole conversation, and τ³'s banking_knowledge ground truths make up to 37 calls
#: in one turn (a stolen wallet's five cards), so this is half of τ²'s 200 messages.
MAX_AGENT_ACTIONS_PER_TURN = 100


class Tau2UserEnv(Tau2Env):
    """τ²-bench's customer-service worlds with the policy playing the customer (τ³-bench's
    ``UserGymEnv``): an automated agent follows the domain's policy, and the policy under training
    is the user simulator that holds the task's scenario.

    ## Action Space
    What the customer does: a message to the agent (text; one holding ``###STOP###``,
    ``###TRANSFER###`` or ``###OUT-OF-SCOPE###`` ends the conversation, as τ²'s user simulator
    does), or, where the user has tools of its own (telecom's phone, mock's inbox), a call of one
    of them (``{"name": ..., "arguments": {...}}``), whose result is the next observation.

    ## Observation Space
    Text: the agent's message (the first is τ²'s greeting, "Hi! How can I help you today?") or
    the result of the user's tool call. ``info["messages"]`` is the conversation as τ²'s user
    simulator sees it: a system prompt with the user guidelines and the scenario
    (``info["scenario"]``), the agent's messages as ``user`` turns and the customer's as
    ``assistant`` turns (roles flipped, as τ²'s), the user's own tool calls and their results;
    the agent's tool calls stay on the agent's side. ``info["tools"]`` are the user's tools
    (empty in airline and retail).

    ## Rewards
    0 until the conversation ends, then τ²-bench's reward of the whole conversation (see
    Tau2-v0): the agent's writes and words graded against the task, so a customer who asks
    for what the scenario wants, gives what the agent needs and stops when done earns 1.

    ## Episode End
    Terminated when the customer's message ends the conversation, the agent sends
    ``###STOP###``, or ``max_errors`` tool calls fail; truncated after ``max_steps`` of the
    customer's actions, or when the agent acts ``MAX_AGENT_ACTIONS_PER_TURN`` times without a
    message to the customer. ``info["metrics"]["termination"]`` says which. Tau2-v0's
    ``max_messages`` (τ²'s count of every message) is not applied: ``max_steps`` bounds the customer.

    ## Arguments
    Tau2-v0's (``domain``, ``tasks``, ``split``, ``data_dir``, ``scoring``, ``judge``,
    ``max_steps``, ``max_errors``, ``world_seed``, ``retrieval_config``; ``domain`` defaults to ``"telecom"``, where the
    customer has tools of its own), and:

    - ``agent``: who plays the agent: ``"oracle"`` (default: Tau2-v0's oracle, the task's
      ground truth, so the env needs no model), or ``"hf:MODEL"`` / ``"openai:URL#MODEL"``
      (a model given the agent's conversation and tools, one completion per agent action).
    - ``agent_options``: for a model: ``temperature``, ``top_p``, ``max_new_tokens``, ``seed``,
      ``backend_kwargs``.

    ## Oracle
    ``oracle_action`` is the scripted user of Tau2-v0 (the task's scenario in the first
    person): with the oracle agent it scores 1.0 on every built-in task.

    ## Version History
    - v0: initial version (issue 50).
    """

    env_id = "Tau2User-v0"

    def __init__(self, domain: str = "telecom", tasks: str = "built-in", split: str | None = None,
                 data_dir: str | None = None, scoring: str = "paper", mode: str | None = None,
                 render_mode: str | None = None, agent: Any = "oracle", agent_options: dict | None = None,
                 judge: Any = None, max_steps: int = 200, max_errors: int = 10, world_seed: int = 0,
                 retrieval_config: str | None = None):
        # the scripted user is the oracle of the customer's side
        super().__init__(domain=domain, tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode, user="scripted", judge=judge, max_steps=max_steps,
                         max_errors=max_errors, world_seed=world_seed, max_messages=None,
                         retrieval_config=retrieval_config)
        user_tools = getattr(self.world, "user_tools", None)
        self._user_signatures = ({name: list(spec.parameters) for name, spec in user_tools.specs.items()}
                                 if user_tools is not None else {})
        self.agent = _make_agent(agent, agent_options or {})
        self._oracle_opening: str | None = None
        self._for_user = ""

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        ToolEnv.reset(self, seed=seed)  # Tau2-v0's reset would ask its user for the opening
        self._start(options)
        self._messages = self._opening()
        self._episode_start = len(self._messages)
        user_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        self._oracle_opening = self.user.reset(self.task.get("user_scenario") or {}, seed=user_seed)
        self._for_user = next((m["content"] for m in reversed(self._messages)
                               if m["role"] == "assistant" and isinstance(m.get("content"), str)), "")
        return self._for_user, self._info()

    def _act(self, action: Any) -> Outcome:
        parsed = parse_action(action, self._user_signatures)
        if isinstance(parsed, ToolCall):
            self._for_user = self._calls([parsed], requestor="user")[0]
            return self._continue(self._for_user)
        if not isinstance(parsed, TextReply):
            self._note_invalid_action()
            return self._continue(f"Error: could not read the tool call: {parsed.error}")
        self._messages.append({"role": "user", "content": parsed.text})
        if is_stop(parsed.text):
            return self._end("", "user_stop")
        return self._agent_turn()

    def _agent_turn(self) -> Outcome:
        """The agent acts until it writes to the customer: its tool calls run on the world."""
        for _ in range(MAX_AGENT_ACTIONS_PER_TURN):
            action = self.agent(self) if callable(self.agent) else Tau2Env.oracle_action(self)
            if isinstance(action, Mapping) and isinstance(action.get("tool_calls"), list) and action["tool_calls"]:
                self._message_with_calls(action)
            else:
                parsed = parse_action(action, self._signatures)
                if isinstance(parsed, ToolCall):
                    self._call(parsed)
                else:
                    text = parsed.text if isinstance(parsed, TextReply) else str(action)
                    self._messages.append({"role": "assistant", "content": text})
                    if AGENT_STOP in text:
                        return self._end("", "agent_stop")
                    self._for_user = text
                    return self._continue(text)
            if self._errors >= self.max_errors:
                return self._end("", "too_many_errors")
        return self._end("", "max_steps")

    def _info(self) -> dict:
        info = self.base_info(self.task_id)
        scenario = scenario_text(self.task.get("user_scenario") or {})
        info.update(tools=self.user_tools or [], messages=self._user_view(scenario), scenario=scenario,
                    domain=self.domain, steps=self._steps)
        return info

    def _user_view(self, scenario: str) -> list[dict]:
        """The conversation as τ²'s user simulator holds it: roles flipped, the agent's tool calls left out."""
        view = [{"role": "system", "content": f"{USER_GUIDELINES}\n\n<scenario>\n{scenario}\n</scenario>"}]
        for message in self._messages[1:]:
            if message["role"] == "assistant" and not message.get("tool_calls"):
                view.append({"role": "user", "content": message.get("content")})
            elif message["role"] == "user":
                view.append({"role": "assistant", **{k: v for k, v in message.items() if k != "role"}})
            elif message["role"] == "tool" and message.get("requestor") == "user":
                view.append(dict(message))
        return view

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """The scripted user's next turn: its opening, then its answer to what it was last shown."""
        if self._oracle_opening is not None:
            opening, self._oracle_opening = self._oracle_opening, None
            return opening
        return self.user.respond(self._for_user, [dict(m) for m in self._messages])


def _make_agent(spec: Any, options: dict):
    """``None`` for the oracle agent, else a function of the env giving the model's next action."""
    if spec == "oracle":
        return None
    if not isinstance(spec, str) or ":" not in spec:
        raise ValueError(f"Tau2User-v0: agent must be 'oracle', 'hf:MODEL' or 'openai:URL#MODEL', got {spec!r}")
    from toolgym.llm import SAMPLING_KEYS, ChatRequest, SamplingParams, make_backend
    kind, _, arg = spec.partition(":")
    backend = make_backend(kind, arg, **dict(options.get("backend_kwargs") or {}))
    sampling = SamplingParams(**{k: options[k] for k in SAMPLING_KEYS if options.get(k) is not None})

    def act(env: Tau2UserEnv) -> Any:
        request = ChatRequest(messages=Tau2Env._info(env)["messages"], tools=env.tools)
        completion = backend.generate([request], sampling)[0]
        if completion.error is not None:
            return AGENT_STOP  # a model that cannot answer ends the conversation, scored as it stands
        if completion.tool_calls:
            return {"content": completion.text or None, "tool_calls": list(completion.tool_calls)}
        return completion.text or ""

    return act
