"""Simulated users for conversational envs: scripted, LLM-played, or your own class.

A user holds the task's goal and answers the agent's messages. Every user has

- ``reset(scenario, rng_seed) -> str``: start a conversation and return the user's first message;
- ``respond(message, trajectory) -> str``: answer the agent's message. ``trajectory`` is the
  episode so far as role/content dicts (assistant tool calls included), which a scripted user
  may read; an LLM user sees only the text of the conversation.

A reply that contains one of :data:`STOP_SIGNALS` ends the conversation, as in τ²-bench.
:func:`make_user` builds a user from a spec: ``"scripted"``, ``"llm:<backend>"`` (``hf:MODEL``
or ``openai:URL#MODEL``, the LLM agent's backends), ``"replay"`` (a conversation's recorded
user turns, :class:`ReplayUser`) or ``"module.path:Class"``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from toolgym.envs.common.actions import braced_span

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
STOP_SIGNALS = (STOP, TRANSFER, OUT_OF_SCOPE)
FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"

# τ²-bench's user-simulation guidelines, in toolgym's words: same role, same end signals.
USER_GUIDELINES = f"""# User simulation
You play a customer who contacts a customer-service agent. Write one message at a time, as the
customer would, and follow the scenario below.

- Use only the information the scenario gives you; anything it does not give you is unknown to you.
- Do not recite the instructions; say things in your own words.
- Give information only when the agent asks for it.
- When the goal of the scenario is reached, reply with '{STOP}' to end the conversation.
- If you are transferred to another agent, reply with '{TRANSFER}'.
- If the scenario does not tell you enough to go on, reply with '{OUT_OF_SCOPE}'."""


class User(Protocol):
    def reset(self, scenario: Mapping, seed: int | None = None) -> str: ...

    def respond(self, message: str, trajectory: list[dict]) -> str | dict: ...


def is_stop(text: str) -> bool:
    return any(signal in text for signal in STOP_SIGNALS)


def _without_signals(text: str) -> str:
    for signal in STOP_SIGNALS:
        text = text.replace(signal, "")
    return text


def scenario_text(scenario: Mapping) -> str:
    """The scenario as the user reads it: persona, then the instructions' fields (τ²-bench's order)."""
    parts = []
    if scenario.get("persona"):
        parts.append(f"Persona:\n{scenario['persona']}")
    instructions = scenario.get("instructions")
    if isinstance(instructions, Mapping):
        for key, title in (("domain", "Domain"), ("reason_for_call", "Reason for call"),
                           ("known_info", "Known info"), ("unknown_info", "Unknown info"),
                           ("task_instructions", "Task instructions")):
            if instructions.get(key):
                parts.append(f"{title}:\n{instructions[key]}")
    elif instructions:
        parts.append(f"Instructions:\n{instructions}")
    return "\n\n".join(parts)


class ScriptedUser:
    """A deterministic user built from the task, for tests and cheap training.

    It speaks as the customer, in the first person (a scenario's "You want to cancel your
    reservation" becomes "I want to cancel my reservation": :func:`first_person`). It opens
    with the reason for calling; answers a question with the sentences of what it knows that
    share a word with the question ("What is your user id?" gets "My user id is ...") and
    with all it knows when none does; says "Yes, please." to a request for confirmation only
    when what the agent proposes is what its scenario wants (:func:`proposal_wanted`), and
    "No" otherwise; and says ``###STOP###`` once the goal is reached: every ground-truth
    action of the task has been called with its arguments and every fact the agent must tell
    has been said. A transfer to a human ends the call with ``###TRANSFER###``. With tools of
    its own (telecom's phone) it runs a call the agent spells out as JSON
    (``{"name": "toggle_roaming", "arguments": {}}``), names (a tool without required
    arguments) or asks for in words ("please turn off airplane mode", "restart your phone":
    :func:`match_instruction`), then reports the result.

    Args:
        goal_reached: ``goal_reached(trajectory) -> bool``; the env passes the task's check.
        tools: The user's own tools (OpenAI schemas), if any.
    """

    def __init__(self, goal_reached: Callable[[list[dict]], bool] | None = None, tools: list[dict] | None = None):
        self.goal_reached = goal_reached
        self.tools = {t["function"]["name"]: t["function"] for t in tools or ()}
        self._known = self._reason = self._unknown = self._wanted = ""
        self._acted = False

    def reset(self, scenario: Mapping, seed: int | None = None) -> str:
        instructions = scenario.get("instructions")
        if isinstance(instructions, Mapping):
            self._reason = str(instructions.get("reason_for_call") or instructions.get("task_instructions") or "")
            self._known = str(instructions.get("known_info") or "")
            self._unknown = str(instructions.get("unknown_info") or "")
            self._wanted = " ".join(str(instructions.get(key) or "")
                                    for key in ("reason_for_call", "known_info", "task_instructions"))
        else:
            self._reason, self._known, self._unknown = str(instructions or ""), "", ""
            self._wanted = self._reason
        # A scenario may script the signals themselves ("... ###STOP### after the summary."): they are
        # the user's cue to end, not words to repeat, and quoted in an answer they would end the call.
        self._reason, self._known, self._unknown, self._wanted = (
            _without_signals(text) for text in (self._reason, self._known, self._unknown, self._wanted))
        self._reason, self._known = first_person(self._reason), first_person(self._known)
        return self._reason or "I need help."

    def respond(self, message: str, trajectory: list[dict]) -> str | dict:
        if self._acted:  # ``message`` is the result of the call it just made
            self._acted = False
            if self.goal_reached is not None and self.goal_reached(trajectory):
                return STOP
            return f"I did that. The phone says: {message}"
        call = self._instructed_call(message)
        if call is not None:
            self._acted = True
            return call
        if any(call["function"]["name"] == "transfer_to_human_agents"
               for m in trajectory if m["role"] == "assistant" for call in m.get("tool_calls") or ()):
            return TRANSFER
        if self.goal_reached is not None and self.goal_reached(trajectory):
            return STOP
        asks_known = bool(content_words(message) & content_words(self._known))  # "confirm your user id?"
        if CONFIRMATION.search(message) and (_action_kinds(message) or not asks_known):
            if proposal_wanted(message, self._wanted):
                return "Yes, please."
            return f"No, that is not what I want. {self._reason}".strip()
        if "?" in message:
            return self._answer(message)
        return f"Okay. {self._reason}".strip()

    def _answer(self, question: str) -> str:
        """The sentences of what the user knows that share the most words with the question; all
        of it when none shares one, unless the question asks about what the scenario says it does
        not know."""
        asked = content_words(question)
        known = [s for s in SENTENCE_END.split(self._known) if s.strip()]
        shared = [len(asked & content_words(s)) for s in known]
        if any(shared):
            return " ".join(s for s, n in zip(known, shared) if n == max(shared))
        if self._unknown and asked & content_words(self._unknown):
            return "I don't know that."
        return self._known or self._reason

    def _instructed_call(self, message: str) -> dict | None:
        if not self.tools:
            return None
        span = braced_span(message)
        try:
            value = json.loads(span) if span is not None else None
        except (ValueError, RecursionError):  # RecursionError: nested too deep to decode
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"] in self.tools:
            return {"name": value["name"], "arguments": value.get("arguments") or {}}
        words = set(re.findall(r"\w+", message))  # a tool's name (an identifier) is one of them: one scan for all
        for name, function in self.tools.items():
            if name in words and not function["parameters"].get("required"):
                return {"name": name, "arguments": {}}
        name = match_instruction(message, [n for n, f in self.tools.items() if not f["parameters"].get("required")])
        return {"name": name, "arguments": {}} if name is not None else None


#: Phrases of a free-form instruction rewritten to the words of the user's tool names, in this order.
INSTRUCTION_WORDS = (
    (r"\bwi-?\s?fi\b", "wifi"), (r"\b(mobile|cellular) data\b", "data"), (r"\bflight mode\b", "airplane mode"),
    (r"\b(turn|switch)(ing)?\b|\b(en|dis)abl(e|ing)\b", "toggle"), (r"\b(restart|power[- ]cycle)\b", "reboot"),
    (r"\b(phone|handset)\b", "device"), (r"\b(re-?insert|re-?seat|take out)\b", "reseat"),
    (r"\b(verify|look at|inspect)\b", "check"), (r"\bpay\b", "make payment"), (r"\bperform\b", "run"),
)
#: Words of tool names an instruction may leave out ("reseat your SIM" names reseat_sim_card).
OPTIONAL_NAME_WORDS = frozenset({"mode", "card", "status", "settings", "device", "preference", "test"})


def match_instruction(message: str, names: Sequence[str]) -> str | None:
    """The tool a free-form instruction asks for ("please turn off airplane mode" ->
    ``toggle_airplane_mode``), or None.

    Each clause of the message, in order, is rewritten to the tools' vocabulary
    (``INSTRUCTION_WORDS``); a tool matches a clause when the clause has its verb (the first
    word of its name) and every other word of its name but those in ``OPTIONAL_NAME_WORDS``.
    The first clause with a match wins; among its matches the tool with the most words in the
    clause, then the fewest left out, then the first name in alphabetical order.
    """
    for clause in re.split(r"[.;!?\n]|,|\band then\b|\bthen\b", message.lower()):
        if not clause.strip():  # a message of many breaks is many empty clauses: cheap to pass
            continue
        for pattern, words in INSTRUCTION_WORDS:
            clause = re.sub(pattern, words, clause)
        said = set(re.findall(r"[a-z0-9]+", clause))
        ranked = []
        for name in names:
            verb, *rest = name.split("_")
            if verb in said and all(w in said or w in OPTIONAL_NAME_WORDS for w in rest):
                matched = 1 + sum(w in said for w in rest)
                ranked.append((-matched, len(rest) + 1 - matched, name))
        if ranked:
            return min(ranked)[2]
    return None


#: A request to confirm a proposed action (τ-bench's and τ²'s policies ask before every write).
CONFIRMATION = re.compile(r"\b(confirm|proceed|yes/no|shall i|should i|would you like me|do you want me|go ahead)\b",
                          re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Words that say nothing about what a question asks for.
STOPWORDS = frozenset("""a about all am an and any are as at be can could do does for from have help how i if in is it
    me my of on or please provide share so tell that the this to us was we what when which who will with would you
    your""".split())
#: Kinds of change an agent may propose, each with the words that name it (whole words: "address" adds nothing).
ACTION_KINDS = {
    "cancel": "cancel cancels cancelled canceled cancelling canceling cancellation",
    "book": "book books booked booking fly",
    "change": "change changes changed changing modify modifies modified modifying modification update updates "
              "updated updating switch switched switching",
    "return": "return returns returned returning",
    "exchange": "exchange exchanges exchanged exchanging swap swapped swapping",
    "add": "add adds added adding",
    "remove": "remove removes removed removing delete deletes deleted deleting",
    "upgrade": "upgrade upgrades upgraded upgrading",
    "downgrade": "downgrade downgrades downgraded downgrading",
}
#: Kinds of change that are changes of something the customer has (a proposal to "change" or "update" it fits).
MODIFICATIONS = frozenset({"add", "remove", "upgrade", "downgrade", "exchange"})
_ACTION_WORDS = {word: kind for kind, words in ACTION_KINDS.items() for word in words.split()}
#: A token that may be an identifier: a run of letters, digits and ``_#@.-``; it is one when it has a
#: digit and a letter or one of ``_#@`` (HAT136, #W2575533, task_1, credit_card_7815826), unlike an
#: amount, a count, a date or a zip code.
TOKEN = re.compile(r"[\w#@.\-]+")


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning, lower case, without a plural ``s``."""
    words = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word not in STOPWORDS:
            words.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return words


def _action_kinds(text: str) -> set[str]:
    return {_ACTION_WORDS[word] for word in re.findall(r"[a-z]+", text.lower()) if word in _ACTION_WORDS}


def _shape(identifier: str) -> str:
    return re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", identifier))


def _identifiers(text: str) -> set[str]:
    tokens = (m.group(0).strip(".-").lower() for m in TOKEN.finditer(text))
    return {token for token in tokens
            if any(c.isdigit() for c in token) and any(c.isalpha() or c in "_#@" for c in token)}


def proposal_wanted(message: str, scenario: str) -> bool:
    """Whether what the agent proposes in ``message`` is what ``scenario`` (the user's
    instructions) wants: every kind of change it proposes (cancel, book, change, return, ...)
    is one the scenario asks for ("change" or "update" fits any change of something the user
    has: adding bags, an exchange), and every identifier it names (a reservation, an order, a
    card) is the scenario's own where the scenario names one of the same shape (HAT136 and
    HAT245 have one shape; amounts, counts and dates are no identifiers)."""
    wanted_kinds = _action_kinds(scenario)
    if wanted_kinds & MODIFICATIONS:  # "update the reservation's bags" is how an agent may say "add two bags"
        wanted_kinds.add("change")
    if not _action_kinds(message) <= wanted_kinds:
        return False
    wanted = _identifiers(scenario)
    shapes = {_shape(identifier) for identifier in wanted}
    return all(identifier in wanted or _shape(identifier) not in shapes for identifier in _identifiers(message))


#: Second-person words of a scenario and the customer's own, in the first person.
_PRONOUNS = {"you are": "I am", "you were": "I was", "you're": "I'm", "you've": "I've", "you'll": "I'll",
             "you'd": "I'd", "your": "my", "yours": "mine", "yourself": "myself", "yourselves": "ourselves",
             "are you": "am I", "were you": "was I"}
_SECOND_PERSON = re.compile(
    r"\b(?:you(?:['’](?:re|ve|ll|d)|\s+are|\s+were)|are\s+you|were\s+you|yours(?:elf|elves)?|your|you)\b", re.I)
#: Words after which "you" is an object ("asks you", "to you"); elsewhere it is the subject ("if you want").
_OBJECT_BEFORE = frozenset("""to for with at from by about than of on upon toward towards into without against like
    ask asks asked tell tells told give gives gave help helps helped call calls called contact contacts send sends
    sent show shows offer offers offered let lets assist assists remind reminds inform informs thank thanks charge
    charges refund refunds pay pays cost costs email emails transfer transfers allow allows want wants wanted need
    needs expect expects encourage encourages persuade persuades convince convinces answer answers reply replies
    put puts get gets make makes keep keeps give""".split())


def first_person(text: str) -> str:
    """A scenario written to the user ("You want to cancel your order. You are Mia.") as the
    user says it ("I want to cancel my order. I am Mia.")."""

    def replace(match: re.Match) -> str:
        said = match.group(0)
        words = said.lower().replace("’", "'").split()
        if words == ["you"]:
            before = text[max(0, match.start() - 40):match.start()]  # bounded: linear in the text
            previous = re.search(r"([A-Za-z']+)\s*$", before)
            previous = previous.group(1).lower() if previous is not None else ""
            if previous == "thank":  # "thank you" is said to the agent
                return said
            mine = "me" if previous in _OBJECT_BEFORE else "I"
        else:
            mine = _PRONOUNS[" ".join(words)]
        if said[0].isupper() and mine[0] != "I":
            mine = mine[0].upper() + mine[1:]
        return mine

    return _SECOND_PERSON.sub(replace, text)


class LLMUser:
    """A user played by a language model with τ²-bench's guidelines and stop signals.

    Args:
        backend: Any backend of the LLM agent (``generate(requests, sampling)``).
        sampling: Its decoding settings; ``reset(seed=...)`` gives each episode its own seed.
        max_turns: Replies after which the user stops on its own (a guard against loops).
        tools: The user's own tools (dual control), offered natively.
        protocol: ``"tau2"``: τ²'s own user simulator on the wire (:mod:`toolgym.envs.tau2.protocol`:
            its guidelines from ``guidelines``, the folder of τ²'s data that holds them, the
            scenario as τ² writes it, roles flipped over the whole conversation, the user's calls
            and their results as native ``tool_calls`` and ``tool`` messages, ``tool_choice``
            ``"auto"``, the episode's seed in the request, no turn limit of its own);
            ``"tau-bench"``: τ-bench v1's LLM user (:mod:`toolgym.envs.taubench.protocol`; its
            openings asked and discarded at env build included). None:
            toolgym's own prompt (:data:`USER_GUIDELINES`), the conversation's text only.
    """

    def __init__(self, backend, sampling=None, max_turns: int = 30, tools: list[dict] | None = None,
                 protocol: str | None = None, guidelines: str | None = None):
        from toolgym.llm.backends import SamplingParams  # the backends live with the LLM agent
        if protocol not in (None, "tau2", "tau-bench"):
            raise ValueError(f"unknown user protocol {protocol!r}; known: tau2, tau-bench")
        self.backend = backend
        self.tools = tools or None
        self.sampling = sampling or SamplingParams(temperature=None if protocol == "tau-bench" else 0.0,
                                                   max_new_tokens=None if protocol else 200)
        self.max_turns = max_turns
        self.protocol = protocol
        self.guidelines = guidelines
        self._messages: list[dict] = []
        self._seed: int | None = None
        self._built = False  # tau-bench: whether v1's env build (its run's first env) was asked for

    def reset(self, scenario: Mapping, seed: int | None = None) -> str:
        import dataclasses
        if self.protocol == "tau2":
            from toolgym.envs.tau2.protocol import user_system_prompt
            self._seed = seed
            self._messages = [{"role": "system", "content": user_system_prompt(
                self.guidelines, scenario, with_tools=self.tools is not None)}]
            return self._tau2_reply([{"role": "assistant", "content": FIRST_AGENT_MESSAGE}])
        if self.protocol == "tau-bench":
            from toolgym.envs.taubench.protocol import user_system_prompt
            # v1's LLMUserSimulationEnv asks for an opening without an instruction whenever it is built
            # and discards it: once for run.py's first env, once for each episode's own env
            for _ in range(1 if self._built else 2):
                self._messages = [{"role": "system", "content": user_system_prompt(None)}]
                self._taubench_reply([])
            self._built = True
            instructions = scenario.get("instructions")
            self._messages = [{"role": "system", "content": user_system_prompt(
                instructions if isinstance(instructions, str) or instructions is None else scenario_text(scenario))}]
            return self._taubench_reply([])
        if seed is not None:
            self.sampling = dataclasses.replace(self.sampling, seed=seed)
        # Roles are flipped: the model plays the user, so the agent's messages are its "user" turns.
        self._messages = [{"role": "system", "content": f"{USER_GUIDELINES}\n\n<scenario>\n{scenario_text(scenario)}"
                                                        f"\n</scenario>"}]
        return self.respond(FIRST_AGENT_MESSAGE, [])

    def respond(self, message: str, trajectory: list[dict]) -> str | dict:
        """The model's next message, or the call of one of the user's tools it makes (dual control)."""
        from toolgym.llm.backends import ChatRequest
        from toolgym.envs.common.actions import ToolCall, parse_action
        if self.protocol == "tau2":
            return self._tau2_reply([m for m in trajectory if m.get("role") != "system"])
        if self.protocol == "tau-bench":
            return self._taubench_reply(trajectory)
        acted = self._messages[-1]["role"] == "assistant" and self._messages[-1]["content"].startswith('{"name"')
        self._messages.append({"role": "user", "content": f"Tool result: {message}" if acted else message})
        if len(self._messages) // 2 > self.max_turns:
            return STOP
        completion = self.backend.generate([ChatRequest(messages=list(self._messages), tools=self.tools)],
                                           self.sampling)[0]
        text = (completion.text or "").strip() if completion.error is None else OUT_OF_SCOPE
        names = {t["function"]["name"] for t in self.tools or ()}
        calls = [parse_action(c) for c in completion.tool_calls] or [parse_action(text)]
        if isinstance(calls[0], ToolCall) and calls[0].name in names:
            self._messages.append({"role": "assistant", "content": json.dumps(
                {"name": calls[0].name, "arguments": calls[0].arguments}, default=str)})
            return {"name": calls[0].name, "arguments": calls[0].arguments}
        text = text or "..."
        self._messages.append({"role": "assistant", "content": text})
        return text

    def _taubench_reply(self, conversation: list[dict]) -> str:
        """τ-bench v1's LLM user: one request with its prompt and the conversation's words, roles
        flipped; no tools, no sampling settings of its own."""
        from toolgym.envs.taubench.protocol import user_messages
        from toolgym.llm.backends import ChatRequest
        request = ChatRequest(messages=user_messages(self._messages[0]["content"], conversation))
        completion = self.backend.generate([request], self.sampling)[0]
        return OUT_OF_SCOPE if completion.error is not None else completion.text

    def _tau2_reply(self, conversation: list[dict]) -> str | dict:
        """τ²'s user simulator: one request over the whole conversation, roles flipped; its
        answer as text, or as a whole turn with its tool calls (ids kept) for the env to run."""
        from toolgym.envs.tau2.protocol import user_messages
        from toolgym.llm.backends import ChatRequest
        request = ChatRequest(messages=self._messages[:1] + user_messages(conversation), tools=self.tools,
                              tool_choice="auto" if self.tools else None,
                              body={"seed": self._seed} if self._seed is not None else None)
        completion = self.backend.generate([request], self.sampling)[0]
        if completion.error is not None:
            return OUT_OF_SCOPE
        if completion.tool_calls and self.tools:
            return {"content": completion.text or None, "tool_calls": [dict(call) for call in completion.tool_calls]}
        return completion.text


class ReplayUser:
    """A user that says a recorded conversation's user turns, in order, whatever the agent says.

    For re-scoring a recorded episode (``toolgym rescore``) and for any conversational env:
    ``reset`` returns the first turn and each ``respond`` the next one. A turn is a text or,
    in a dual-control env, a call of one of the user's own tools (``{"name": ...,
    "arguments": {...}}``); the result of such a call is handed to the next ``respond``
    (kept in :attr:`call_results`), which answers with the turn after it. Once the turns run
    out the user stops (``###STOP###``).

    Args:
        turns: The user's turns of one conversation; :meth:`play` sets the next episode's.
    """

    def __init__(self, turns: Sequence[str | Mapping] = ()):
        self.play(turns)

    def play(self, turns: Sequence[str | Mapping]) -> None:
        """Say ``turns`` in the next episode (after its ``reset``)."""
        for turn in turns:
            if not isinstance(turn, str) and not (isinstance(turn, Mapping) and isinstance(turn.get("name"), str)):
                raise ValueError(f"a replayed user turn is a text or a tool call {{'name': ..., 'arguments': ...}}, "
                                 f"got {turn!r:.80}")
        self.turns = [turn if isinstance(turn, str) else {"name": turn["name"],
                                                          "arguments": turn.get("arguments") or {}}
                      for turn in turns]
        self._next = 0
        #: The results of the user's replayed tool calls in this episode, in order.
        self.call_results: list[str] = []

    def reset(self, scenario: Mapping, seed: int | None = None) -> str | dict:
        self._next = 0
        self.call_results = []
        return self._say()

    def respond(self, message: str, trajectory: list[dict]) -> str | dict:
        if self._next > 0 and not isinstance(self.turns[self._next - 1], str):
            self.call_results.append(message)  # the result of the call just replayed
        return self._say()

    def _say(self) -> str | dict:
        if self._next >= len(self.turns):
            return STOP
        self._next += 1
        return self.turns[self._next - 1]


def make_user(spec: Any, goal_reached: Callable[[list[dict]], bool] | None = None, tools: list[dict] | None = None,
              **options) -> Any:
    """A user from a spec (see the module docstring), or ``spec`` itself when it is a user object.

    Args:
        spec: ``"scripted"``, ``"llm:hf:MODEL"``, ``"llm:openai:URL#MODEL"``, ``"replay"``,
            ``{"replay": [turn, ...]}``, ``"module:Class"`` or a user.
        goal_reached: The task's goal check, for the scripted user.
        tools: The user's own tools (OpenAI schemas) in a dual-control env, for the built-in users.
        options: For LLM users: ``temperature``, ``top_p``, ``max_new_tokens``, ``seed``, ``backend_kwargs``,
            ``protocol`` and ``guidelines`` (:class:`LLMUser`);
            for ``"replay"``: ``turns``, the recorded user turns (:class:`ReplayUser`).

    Raises:
        ValueError: The spec names no known kind of user, or its class lacks reset/respond.
    """
    if isinstance(spec, Mapping) and set(spec) == {"replay"}:
        return ReplayUser(spec["replay"])
    if spec == "replay":
        return ReplayUser(options.get("turns") or ())
    if not isinstance(spec, str):
        if not (callable(getattr(spec, "reset", None)) and callable(getattr(spec, "respond", None))):
            raise ValueError(f"user {spec!r}: a user object needs reset(scenario, seed) and respond(message, "
                             f"trajectory) methods")
        if tools and getattr(spec, "tools", False) is None:  # a built-in user made without the env's tools
            spec.tools = tools
        return spec
    if spec == "scripted":
        return ScriptedUser(goal_reached, tools)
    if spec.startswith("llm:"):
        kind, _, arg = spec[len("llm:"):].partition(":")
        from toolgym.llm import SAMPLING_KEYS, SamplingParams, make_backend
        protocol = options.get("protocol")
        sampling = SamplingParams(**{"max_new_tokens": None if protocol else 200,
                                     # v1's user sends no temperature: the server's default
                                     "temperature": None if protocol == "tau-bench" else 0.0,
                                     **{k: options[k] for k in SAMPLING_KEYS if options.get(k) is not None}})
        return LLMUser(make_backend(kind, arg, **dict(options.get("backend_kwargs") or {})), sampling, tools=tools,
                       protocol=protocol, guidelines=options.get("guidelines"))
    if ":" in spec:
        from toolgym.registry import load_class
        cls = load_class(spec)
        return make_user(cls(), goal_reached)
    raise ValueError(f"unknown user {spec!r}: use 'scripted', 'llm:hf:MODEL', 'llm:openai:URL#MODEL', 'replay' or "
                     f"module.path:Class")
