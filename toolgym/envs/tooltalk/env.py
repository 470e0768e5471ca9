"""ToolTalk-v0: tool use in multi-turn conversations (Farn & Shin 2023)."""

from __future__ import annotations

import json
from typing import Any

from toolgym.envs.common.actions import TextReply, ToolCall, Unparseable, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.text_similarity import make_text_similarity
from toolgym.envs.tooltalk.scoring import CallRecord, Comparator, ConversationScore
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.tooltalk.tasks import OFFICIAL_LAYOUT, official_task_set
from toolgym.envs.users import make_user
from toolgym.worlds.tooltalk.tasks import builtin_task_set
from toolgym.worlds.tooltalk.tools import ToolTalkTools
from toolgym.worlds.tooltalk.world import ToolTalkWorld

SYSTEM_PROMPT = ("You are a helpful assistant. Here is some user data:\nlocation: {location}\n"
                 "timestamp: {timestamp}\nusername (if logged in): {username}")
REWARD_METRICS = ("success", "recall", "soft_success")


class ToolTalkEnv(ToolEnv):
    """
    ## Description
    ToolTalk (Farn & Shin 2023, "ToolTalk: Evaluating Tool Usage in a Conversational Setting"):
    an assistant helps a user over a multi-turn conversation with 28 tools in 7 plugins
    (AccountTools, Alarm, Calendar, Email, Message, Reminder, Weather), 18 of which are
    *actions* that change the world. Every tool runs against a SQL database.

    The conversation is simulated as the paper's Algorithm 1. For each ground-truth assistant
    turn the agent may call tools (each executed, its result returned) until it replies with
    text. Then the history continues with the *ground-truth* calls and reply of that turn
    (the agent's own predictions are not kept), and the world is reset and the ground-truth
    calls of all earlier turns are replayed, so a wrong action does not leak into later turns.

    ## Action Space
    A string (or dict): a tool call as JSON ``{"name": "AddAlarm", "arguments": {"time":
    "07:30:00"}}`` or Python call syntax ``AddAlarm(time="07:30:00")``; any other text is the
    assistant's reply and ends the turn. The session token is injected by the world; do not
    pass it. Malformed calls, unknown tools and bad arguments produce an error observation
    and change nothing. As in the released evaluator, a call that names a tool (known or not)
    counts as a prediction even when it fails; text that cannot be read as a call at all
    (e.g. broken JSON) does not, but it uses up one of the turn's calls.

    ## Observation Space
    A string: at the start of a turn, the user's new message(s); after a tool call, the
    result as JSON ``{"response": ..., "exception": ...}``. ``info["messages"]`` holds the whole
    conversation as chat messages (system prompt with location, timestamp and username, user
    and assistant messages, assistant ``tool_calls`` and ``tool`` results), and
    ``info["tools"]`` the 28 tool schemas.

    ## Rewards
    Paper metric: conversation **success** (recall 1 and no incorrect action, section 3),
    or with ``reward_metric`` ``"recall"`` or ``"soft_success"`` (recall × (1 − incorrect
    action rate)). After every step the metric is recomputed over all predictions so far
    (Algorithm 2: greedy matching over the whole conversation) and the reward is its
    increment, so the return equals the final metric. ``info["metrics"]`` at the end holds
    precision, recall, incorrect_action_rate, success, soft_success, the raw counts and the
    failure analysis of section 4.2 (premature tool calls, faulty planning, incorrect tool
    invocations, counted per failing turn); ``info["predictions"]`` lists every predicted
    call with its turn and whether it matched or was an incorrect action.

    Scoring: ``"paper"`` (default) follows the paper's definition: action tools compare the
    ground truth's arguments (recipients and attendees as sets, free text by embedding
    similarity), read-only tools compare results, generated ids and session tokens are
    ignored, and SendMessage's receiver is compared. ``"paper_compat"`` reproduces the
    released evaluator exactly, including its known defect (SendMessage's receiver is never
    compared). Free text is compared by ``text_similarity``: ``"auto"`` (packaged MiniLM if
    installed, else lexical, with calibrated thresholds), or ``"cls:/path/to/distilbert"``
    for the paper's [CLS] cosine with thresholds 0.9 / 0.8.

    ## Starting State
    The database of the task set (ToolTalk's ``databases/*.json`` for the official tasks, a
    seeded generated one for the built-in tasks), the clock at the conversation's timestamp,
    and the conversation's user logged in when its data has a session token.

    ## Episode End
    Terminated after the agent's reply to the last ground-truth assistant turn. A turn is
    closed for the agent after ``max_calls_per_turn`` tool calls (default 20).

    ## Arguments
    - ``tasks``: ``"built-in"`` (default: 28 easy + ``num_hard`` hard generated conversations)
      or ``"official"`` (ToolTalk's 28 easy + 50 hard, from ``data_dir`` or ``$TOOLGYM_DATA``;
      task ids are the conversations' ``name``).
    - ``split``: ``"easy"``, ``"hard"`` or None for both.
    - ``scoring``: ``"paper"`` or ``"paper_compat"``.
    - ``reward_metric``: ``"success"``, ``"recall"`` or ``"soft_success"``.
    - ``max_calls_per_turn``: cap on tool calls per assistant turn.
    - ``text_similarity``: free-text comparator (see Rewards).
    - ``world_seed``, ``num_hard``: seed and size of the built-in task set.
    - ``user``: ``"replay"`` (default, the paper's: the ground truth's user turns) or a simulated
      user that writes them (``"scripted"``, ``"llm:hf:MODEL"``, ``"module:Class"``, see
      :mod:`toolgym.envs.users`); scoring is unchanged. ``user_options``: its sampling settings.
    - ``db_url``: the world database: in-memory SQLite by default, or ``sqlite:///path.db``, built
      once and then only read (see ``World``).

    ## Version History
    - v0: initial version.
    """

    env_id = "ToolTalk-v0"
    splits = {"built-in": ("easy", "hard"), "official": ("easy", "hard")}
    scorings = ("paper", "paper_compat")
    table_columns = (
        Column("Success", "mean", ("success",)),
        Column("Soft success", "mean", ("soft_success",)),
        Column("Precision", "ratio", ("matches", "predictions")),
        Column("Recall", "ratio", ("matches", "ground_truths")),
        Column("Incorrect action rate", "ratio", ("incorrect_actions", "actions")),
    )

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 reward_metric: str = "success", max_calls_per_turn: int = 20,
                 text_similarity: Any = "auto", world_seed: int = 0, num_hard: int = 50,
                 db_url: str = "sqlite://", user: Any = "replay", user_options: dict | None = None):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if reward_metric not in REWARD_METRICS:
            raise ValueError(f"{self.env_id}: reward_metric must be one of {REWARD_METRICS}")
        if max_calls_per_turn < 1:
            raise ValueError(f"{self.env_id}: max_calls_per_turn must be at least 1")
        self.reward_metric = reward_metric
        self.max_calls_per_turn = max_calls_per_turn
        if tasks == "official":
            self.task_data = official_task_set(self.env_id, data_dir, split)
        else:
            if num_hard < 50:
                raise ValueError(f"{self.env_id}: num_hard must be at least 50 (the paper's size)")
            self.task_data = builtin_task_set(world_seed, num_hard)
        self._task_ids = [t for t, s in self.task_data.splits.items() if split is None or s == split]
        self.text_similarity = make_text_similarity(text_similarity)
        self.world = ToolTalkWorld(url=db_url, seed=world_seed)
        self.tools = [spec.schema() for spec in ToolTalkTools.specs.values()]
        self._signatures = {n: list(s.parameters) for n, s in ToolTalkTools.specs.items()}
        self._compare = Comparator(scoring, self.text_similarity,
                                   {n for n, s in ToolTalkTools.specs.items() if s.is_action})
        self._conversation: dict | None = None
        # The paper replays the ground truth's user turns; a simulated user writes them instead.
        self.user = None if user == "replay" else make_user(user, **(user_options or {}))
        self._ground_truth_json: dict[tuple[str, int, int], tuple[str, str]] = {}  # see _ground_truth_texts

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (OFFICIAL_LAYOUT,)}

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def task_records(self) -> dict:
        return {t: self.task_data.conversations[t] for t in self._task_ids}

    def task_split(self, task_id: str) -> str:
        return self.task_data.splits[task_id]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if hasattr(self.text_similarity, "warm"):  # a comparator's model loads at reset, not inside a step
            self.text_similarity.warm()
        self.task_id = self._choose_task(options)
        conv = self._conversation = self.task_data.conversations[self.task_id]
        turns = conv["conversation"]
        self._assistant_turns = [i for i, t in enumerate(turns) if t["role"] == "assistant"]
        ground_truth = []
        self._truth_calls = [[] for _ in self._assistant_turns]  # per turn, the calls replaying its ground truth runs
        for k, i in enumerate(self._assistant_turns):
            for j, api in enumerate(turns[i].get("apis", [])):
                request = api["request"]
                ground_truth.append(CallRecord(
                    name=request["api_name"], arguments=request["parameters"], response=api["response"],
                    error=api["exception"], is_action=request["api_name"] in self._compare.action_tools,
                    turn=k))
                self._truth_calls[k].append((request["api_name"], self._ground_truth_texts(i, j, api)[0]))
        self._score = ConversationScore(ground_truth, self._compare)
        meta = conv["metadata"]
        self._messages = [{"role": "system", "content": SYSTEM_PROMPT.format(
            location=meta.get("location"), timestamp=meta.get("timestamp"), username=meta.get("username"))}]
        self._next_message = 0  # index into turns of the next ground-truth turn to show
        self._last_reply = ""

        self.world.restore(self.task_data.initial_state)
        self.world.begin_conversation(meta, conv.get("user"))
        self._turn_states: list = []
        self._keep_turn_state()
        self._turn = 0
        self._done = False
        return self._start_turn(), self._info()

    def _start_turn(self) -> str:
        """Restore the world for the current turn and show the ground-truth history up to it."""
        k = self._turn
        while len(self._turn_states) <= k:  # state after the ground truth of all earlier turns
            self.world.restore(self._turn_states[-1])
            for record in self._score.ground_truth:
                if record.turn == len(self._turn_states) - 1:
                    self.world.execute(record.name, _without_session(record.arguments))
            self._keep_turn_state()
        if self._turn_states[k] is not None:
            self.world.restore(self._turn_states[k])
        self._calls_this_turn = 0
        # This turn's calls that ran, as (name, JSON arguments), to compare with _truth_calls.
        self._successful_calls: list[tuple[str, str] | object] = []
        shown = []
        turns = self._conversation["conversation"]
        for i in range(self._next_message, self._assistant_turns[k]):
            turn = turns[i]
            if turn["role"] == "user":
                text = self._user_text(i)
                self._messages.append({"role": "user", "content": text})
                shown.append(text)
            else:
                self._append_ground_truth_turn(turn, i)
        self._next_message = self._assistant_turns[k]
        # The agent's messages of this turn start here; the user's request before it stays.
        self._turn_start = len(self._messages)
        return "\n".join(shown)

    def _user_text(self, index: int) -> str:
        """The user's turn ``index``: the ground truth's text, or the simulated user's message
        (its scenario: the conversation's user turns as its instructions, the user data as known)."""
        turns = self._conversation["conversation"]
        if self.user is None:
            return turns[index]["text"]
        if index == next(i for i, t in enumerate(turns) if t["role"] == "user"):
            goals = [t["text"] for t in turns if t["role"] == "user"]
            scenario = {"persona": None, "instructions": {
                "domain": "tooltalk", "reason_for_call": goals[0],
                "known_info": json.dumps(self._conversation.get("user") or {}),
                "task_instructions": " Then: ".join(goals)}}
            seed = getattr(self, "_np_random_seed", None)
            return self.user.reset(scenario, seed=seed if isinstance(seed, int) and seed >= 0 else None)
        return self.user.respond(self._last_reply, [dict(m) for m in self._messages])

    def _append_ground_truth_turn(self, turn: dict, index: int) -> None:
        for j, api in enumerate(turn.get("apis", [])):
            call_id = f"gt_{index}_{j}"
            request = api["request"]
            texts = self._ground_truth_texts(index, j, api)
            self._messages.append({"role": "assistant", "content": None, "tool_calls": [{
                "id": call_id, "type": "function", "function": {"name": request["api_name"], "arguments": texts[0]}}]})
            self._messages.append({"role": "tool", "tool_call_id": call_id, "name": request["api_name"],
                                   "content": texts[1]})
        self._messages.append({"role": "assistant", "content": turn["text"]})

    def _ground_truth_texts(self, index: int, j: int, api: dict) -> tuple[str, str]:
        """The JSON of call ``j`` of the task's turn ``index``: its arguments (session token left
        out) and its result; made once per task, since every episode shows them."""
        key = (self.task_id, index, j)
        texts = self._ground_truth_json.get(key)
        if texts is None:
            texts = self._ground_truth_json[key] = (
                json.dumps(_without_session(api["request"]["parameters"])),
                json.dumps({"response": api["response"], "exception": api["exception"]}))
        return texts

    def _act(self, action: Any) -> Outcome:
        parsed = parse_action(action, self._signatures)
        if isinstance(parsed, TextReply):
            self._last_reply = parsed.text
            return self._end_turn()
        if isinstance(parsed, Unparseable):
            self._note_invalid_action()
        return self._answer(parsed)

    def _refuse(self, error: str) -> Outcome:
        # Like text that cannot be read as a call: an error observation, one of the turn's calls used.
        return self._answer(Unparseable("(action not shown)", error))

    def _answer(self, parsed: ToolCall | Unparseable) -> Outcome:
        """A tool call of the agent's turn (or an unreadable one); the turn closes after its last call."""
        self._calls_this_turn += 1
        call_id = f"call_{len(self._messages)}"
        if isinstance(parsed, Unparseable):
            observation = json.dumps({"response": None, "exception": f"Could not parse the tool call: {parsed.error}"})
            self._messages.append({"role": "assistant", "content": parsed.text})
            self._messages.append({"role": "user", "content": observation})
        else:
            observation = self._call(parsed, call_id)
        if self._calls_this_turn >= self.max_calls_per_turn:
            end = self._end_turn()
            end.observation = f"{observation}\n[turn closed after {self.max_calls_per_turn} tool calls]\n{end.observation}"
            return end
        return Outcome(observation, progress=self._metric())

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()  # the conversation is the task's, with the ground truth's turns

    def _call(self, call: ToolCall, call_id: str) -> str:
        result = self.world.execute(call.name, call.arguments)
        self._score.add(CallRecord(name=result.name, arguments=result.arguments, response=result.response,
                                   error=result.error, is_action=result.is_action, turn=self._turn))
        shown_args = _without_session(result.arguments)
        try:
            shown = json.dumps(shown_args)
        except (TypeError, ValueError):
            shown = None
        if result.error is None:  # a failed call leaves the world as it was
            # The session token is always the world's (every tool that takes one has it injected).
            self._successful_calls.append((result.name, shown) if shown is not None else object())
        self._messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": result.name, "arguments": shown if shown is not None else
                         json.dumps(shown_args, default=str)}}]})
        observation = result.observation()
        self._messages.append({"role": "tool", "tool_call_id": call_id, "name": result.name, "content": observation})
        return observation

    def _end_turn(self) -> Outcome:
        # The agent's own turn is dropped from the history: the ground truth replaces it.
        del self._messages[self._turn_start:]
        turns = self._conversation["conversation"]
        index = self._assistant_turns[self._turn]
        self._append_ground_truth_turn(turns[index], index)
        self._next_message = index + 1
        self._turn += 1
        if self._turn == len(self._assistant_turns):
            return Outcome("", terminated=True, progress=self._metric())
        if len(self._turn_states) == self._turn and self._successful_calls == self._truth_calls[self._turn - 1]:
            # The agent ran exactly the ground truth's calls from the turn's starting state, and
            # tools are deterministic in the world's state: the world already holds what
            # replaying the ground truth would give.
            self._keep_turn_state()
        return Outcome(self._start_turn(), progress=self._metric())

    def _keep_turn_state(self) -> None:
        """Record the world as the state the next turn starts from, which the end of that turn
        restores. Nothing follows the last turn, so its state is never restored, nor copied."""
        last = len(self._turn_states) == len(self._assistant_turns) - 1
        self._turn_states.append(None if last else self.world.snapshot())

    def _metric(self) -> float:
        """The reward's metric so far (``reward_metric``)."""
        return self._score.metrics()[self.reward_metric]

    def _metrics(self) -> dict:
        metrics = self._score.metrics()
        metrics.update(self._score.failure_analysis(len(self._assistant_turns)))
        return metrics

    def _end_info(self) -> dict:
        return {"predictions": [p.as_dict() for p in self._score.predictions]}  # for error analysis

    def _info(self) -> dict:
        info = self.base_info(self.task_id)
        info.update(tools=self.tools, messages=[dict(m) for m in self._messages], turn=self._turn,
                    num_turns=len(self._assistant_turns), text_similarity=self.text_similarity.name)
        return info

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        truths = [t for t in self._score.ground_truth if t.turn == self._turn]
        if self._calls_this_turn < len(truths):
            truth = truths[self._calls_this_turn]
            return {"name": truth.name, "arguments": _without_session(truth.arguments)}
        return self._conversation["conversation"][self._assistant_turns[self._turn]]["text"] or "OK."

    def render(self):
        if self.render_mode == "ansi":
            return "\n".join(f"{m['role']}: {m.get('content') or json.dumps(m.get('tool_calls'))}"
                             for m in self._messages)
        return None


def _without_session(arguments: Any) -> Any:
    if not isinstance(arguments, dict):
        return arguments
    return {k: v for k, v in arguments.items() if k != "session_token"}
