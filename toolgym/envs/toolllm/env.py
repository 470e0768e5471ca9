"""ToolLLM-v0: multi-step function calling over a RapidAPI-style world (Qin et al. 2024)."""

from __future__ import annotations

import ast
import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from toolgym.envs.common.actions import TextReply, ToolCall, Unparseable, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column, safe_div
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.toolllm.tasks import LAYOUT, load_official
from toolgym.worlds.base import Snapshot
from toolgym.worlds.rapidapi.naming import FINISH_SCHEMA, RETURN_TYPES, standardize
from toolgym.worlds.rapidapi.tasks import GROUPS, ToolLLMTask, builtin_tasks
from toolgym.worlds.rapidapi.world import (
    STATUS_ARGUMENTS, STATUS_NO_FUNCTION, STATUS_OK, STATUS_PARSE, CallResult, RapidAPIWorld, example_arguments,
)

#: ToolLLM's system prompt of the function-calling setting (``FORMAT_INSTRUCTIONS_SYSTEM_FUNCTION``).
SYSTEM_PROMPT = """You are AutoGPT, you can use many tools(functions) to do the following task.
First I will give you the task description, and your task start.
At each step, you need to give your thought to analyze the status now and what to do next, with a function call to actually excute your step.
After the call, you will get the call result, and you are now in a new state.
Then you will analyze your status now, then decide what to do next...
After many (Thought-call) pairs, you finally perform the task, then you can give your finial answer.
Remember: 
1.the state change is irreversible, you can't go back to one of the former state, if you want to restart the task, say "I give up and restart".
2.All the thought is short, at most in 5 sentence.
3.You can do more then one trys, so if your plan is to continusly try some conditions, you can do one of the conditions per try.
Let's Begin!
Task description: You should use functions to help handle the real time user querys. Remember:
1.ALWAYS call "Finish" function at the end of the task. And the final answer should contain enough information to show to the user,If you can't handle the task, or you find that function calls always fail(the function is not valid now), use function Finish->give_up_and_restart.
2.Do not use origin tool names, use only subfunctions' names.
You have access of the following tools:
"""
#: What the action parser reads, said after a parse error (ToolBench's own error stops at the exception).
EXPECTED_CALL = ('Expected one function call: a JSON object {"name": "<function>", "arguments": {...}} or '
                 '<function>(key=value, ...) with literal values (strings, numbers, lists, dicts).')
#: Text that starts as a call in call syntax: a name and an opening parenthesis.
_CALL_START = re.compile(r"\s*[A-Za-z_]\w*\s*\(")
# ToolBench's answers to Finish, verbatim (the malformed ones are not JSON in the original either).
FINISH_ANSWERED = '{"response":"successfully giving the final answer."}'
FINISH_GAVE_UP = '{"response":"chose to give up and restart"}'
FINISH_NO_RETURN_TYPE = '{error:"must have "return_type""}'
FINISH_NO_ANSWER = '{error:"must have "final_answer""}'
FINISH_BAD_RETURN_TYPE = '{error:""return_type" is not a valid choice"}'
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
TOOL_DESCRIPTION_MAX = 512  # ToolBench cuts each tool's description in the system prompt here


@dataclass
class CallRecord:
    """One step of the agent: a function call (or an action that was not one) and its outcome."""

    function: str
    arguments: Any
    status: int
    ok: bool
    api_id: int | None = None
    canonical: dict | None = None
    fault: bool = False


@dataclass
class Episode:
    """Everything an episode has done so far (copied by :meth:`ToolLLMEnv.snapshot`)."""

    messages: list[dict]
    calls: list[CallRecord] = field(default_factory=list)
    steps: int = 0
    done: bool = False
    final_answer: str | None = None
    gave_up: bool = False


@dataclass(frozen=True)
class EnvSnapshot:
    """A point of an episode to come back to: the world's state and the episode's history."""

    task_id: str
    world: Snapshot
    episode: Episode


class ToolLLMEnv(ToolEnv):
    """
    ## Description
    ToolLLM (Qin et al. 2024, "ToolLLM: Facilitating Large Language Models to Master 16000+
    Real-world APIs"; data of StableToolBench, Guo et al. 2024): the agent answers a user's
    instruction by calling REST APIs of RapidAPI tools, offered as functions, and ends with
    ``Finish``. toolgym simulates the API world deterministically over a SQLite database
    (:class:`~toolgym.worlds.rapidapi.RapidAPIWorld`): generated tools read and write entity
    tables (ids a search returns resolve in a details call; a POST creates a row later calls
    see); official APIs answer with a response of their ``template_response``'s shape derived
    from the arguments, or with the recorded response of the same request where the data holds
    one. Same request, same state, same response, in any process.

    ## Action Space
    A string (or dict): one function call as JSON ``{"name": "search_movies_for_flixo_movies_api",
    "arguments": {"query": "Kalo"}}``, an OpenAI ``tool_call`` or ``name(key=value)``. Function
    names are ToolBench's ``<api>_for_<tool>`` (standardised, at most 64 characters), and
    ``Finish(return_type="give_answer", final_answer="...")`` or
    ``Finish(return_type="give_up_and_restart")`` ends the episode. Unknown functions, arguments
    that are not a JSON object, missing, unexpected or mistyped parameters get ToolBench's error
    observations and change nothing; plain text (no call) is answered with an error too. Every
    action counts as a step.

    ## Observation Space
    A string: ToolBench's ``{"error": "...", "response": "..."}`` with the response as text cut
    at 1,024 characters; after reset, the instruction. ``info["tools"]`` holds the episode's
    function schemas (the query's APIs plus ``Finish``, with ToolBench's ``example_value`` and
    ``optional`` fields) and ``info["messages"]`` the conversation: ToolLLM's system prompt
    with the tools' list, the user's instruction ending ``Begin!``, assistant ``tool_calls``
    and ``tool`` results.

    ## Rewards
    Paper metric: **pass** rate. A built-in task passes when the agent calls
    ``Finish(give_answer)`` with an answer that holds every required fact (numbers on word
    boundaries, thousands separators allowed, case ignored) and made every required call with
    matching arguments (ids, names and values the solution needs; extra calls are allowed);
    ``give_up_and_restart`` scores 0. The reward is the pass (0 or 1) at ``Finish``, 0 before,
    so the return equals the metric. ``info["metrics"]`` at the end holds ``pass``,
    ``success`` (= pass), ``calls`` (function calls other than Finish, valid or not),
    ``invalid_calls`` (unknown functions, unreadable or wrong arguments, text without a call),
    ``faults`` (injected timeouts and rate limits), ``answered``, ``gave_up``,
    ``relevant_api_recall`` (the share of the relevant APIs the calls named) and, for built-in
    tasks, ``facts_found`` and ``required_calls_made`` (shares).

    **Official queries cannot be scored here**: their answers are unknown, so ``pass`` and
    ``success`` are None (the episode's return is 0) and only a ToolEval judge can say whether
    the answer solves the query; every other metric is computed.

    ``Finish`` is read as ToolBench reads it: JSON (control characters allowed), else, when the
    JSON is broken, ``return_type`` and ``final_answer`` found by substring search
    (``{"return_type": "give_answer", "final_answer": "unterminated`` answers ``unterminated``);
    see :func:`read_finish`. A Finish the env rejects (no ``return_type``, a wrong one, no
    ``final_answer``) does not end the episode.

    ``scoring="paper_compat"`` reproduces ToolBench's ``rapidapi_wrapper`` where it differs
    from the default (the metrics are the same):

    - **suffix dispatch**: a call runs the first offered function whose name *ends with* the
      called name, so an exact name can run another API (``geocode_for_uganda_api`` runs
      ``reverse_geocode_for_uganda_api`` when that is offered first); ``paper`` matches exactly;
    - **names that collide after the 64-character cut**: every API is offered, under the same
      name, and a call of that name runs the API ToolBench's ``api_name_reflect`` keeps (the
      last of them, in the first one's tool); ``paper`` offers the first API once.

    ## Starting State
    The task's world: the generated catalogue of ``world_seed`` and ``catalogue_size`` with its
    entities (built-in tasks), or the catalogue of the 2,490 APIs the official queries carry
    (official tasks), restored to its initial state at every reset.

    ## Episode End
    Terminated at ``Finish(give_answer)`` or ``Finish(give_up_and_restart)``; truncated after
    ``max_calls`` steps without Finish (pass 0). ``snapshot()`` / ``restore()`` return to an
    earlier point of the episode (world and history), for tree search.

    ## Arguments
    - ``scoring``: ``"paper"`` or ``"paper_compat"`` (above).
    - ``tasks``: ``"built-in"`` (765 generated instructions in the six groups, with
      StableToolBench's sizes) or ``"official"`` (StableToolBench's 765 solvable queries, from
      ``data_dir`` or ``$TOOLGYM_DATA``; task ids are the ``query_id``).
    - ``split``: ``G1_instruction``, ``G1_category``, ``G1_tool``, ``G2_instruction``,
      ``G2_category``, ``G3_instruction``, or None for all.
    - ``world_seed``: seed of the generated catalogue, its entities and the built-in tasks, and
      of the official APIs' responses.
    - ``catalogue_size``: ``"small"`` (default: 14 categories, 112 tools, about 540 APIs),
      ``"medium"`` (30, 600, about 2,900) or ``"full"`` (49 categories, 3,451 tools, about
      16,800 APIs, the real catalogue's size; a few seconds to build).
    - ``max_calls``: steps per episode (default 12, ToolLLM's per-chain limit).
    - ``fault_rate``: probability of a timeout or rate-limit error per valid call (default 0).
    - ``db_url``: the world database: in-memory SQLite, or ``sqlite:///path.db`` (built once).

    ## Version History
    - v0: initial version.
    """

    env_id = "ToolLLM-v0"
    splits = {"built-in": GROUPS, "official": GROUPS}
    scorings = ("paper", "paper_compat")
    prompt_format, action_format = "chat", "tool_call"  # the shared LLM agent: messages + OpenAI tools
    action_hint = 'a function call, e.g. {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": "..."}}'
    table_columns = (
        Column("Pass rate", "mean", ("pass",)),
        Column("Relevant API recall", "mean", ("relevant_api_recall",)),
        Column("Gave up", "mean", ("gave_up",)),
        Column("Invalid calls", "ratio", ("invalid_calls", "calls")),
        Column("Calls", "mean", ("calls",), percent=False),
    )

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 world_seed: int = 0, catalogue_size: str = "small", max_calls: int = 12, fault_rate: float = 0.0,
                 db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 1:
            raise ValueError(f"{self.env_id}: max_calls must be an int of at least 1, got {max_calls!r}")
        if not isinstance(world_seed, int) or isinstance(world_seed, bool):
            raise ValueError(f"{self.env_id}: world_seed must be an int, got {world_seed!r}")
        self.max_calls = max_calls
        try:
            if tasks == "official":
                data = load_official(self.env_id, data_dir, split)
                self.world = RapidAPIWorld(url=db_url, seed=world_seed, documents=data.documents,
                                           fault_rate=fault_rate)
                for function, arguments, response in data.recordings:
                    self.world.record(function, arguments, json.loads(response))
                self.tasks = {q.query_id: self._official_task(q) for q in data.queries}
                # No pass rate without a judge: the table shows what can be measured.
                self.table_columns = tuple(c for c in type(self).table_columns if c.keys != ("pass",))
            else:
                self.world = RapidAPIWorld(url=db_url, seed=world_seed, catalogue_size=catalogue_size,
                                           fault_rate=fault_rate)
                self.tasks = {t.query_id: t for t in _builtin(self.world, world_seed) if split is None or t.group == split}
        except ValueError as error:
            if "RapidAPIWorld" in str(error) or "catalogue" in str(error):
                raise ValueError(f"{self.env_id}: {error}") from None
            raise
        self._initial = self.world.snapshot()
        self._initial_volatile = self.world.volatile_state()
        self._clean_at = self.world.writes  # the world's write count when it was last the initial state
        self._task_ids = list(self.tasks)
        self.task_id: str | None = None
        self.task: ToolLLMTask | None = None
        self._done = True

    def _official_task(self, query) -> ToolLLMTask:
        ids: list[int] = []
        for doc in query.api_list:
            api_id = self.world.api_id(doc["category_name"], doc["tool_name"], doc["api_name"])
            if api_id is not None and api_id not in ids:
                ids.append(api_id)
        return ToolLLMTask(query_id=query.query_id, group=query.group, query=query.query, api_ids=tuple(ids),
                           relevant=query.relevant)

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (LAYOUT,)}

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def task_split(self, task_id: str) -> str:
        return self.tasks[task_id].group

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        task = self.task = self.tasks[self.task_id]
        if self.world.writes != self._clean_at:  # an image costs milliseconds at full size; most episodes only read
            self.world.restore(self._initial)
            self._clean_at = self.world.writes
        else:
            self.world.restore_volatile_state(self._initial_volatile)
        # Function name -> the API a call of it runs; ``offered``: the APIs offered, in order.
        self._functions: dict[str, int] = {}
        offered: list[int] = []
        for api_id in task.api_ids:
            name = self.world.api(api_id).function
            if name not in self._functions or self.scoring == "paper_compat":
                offered.append(api_id)
            if self.scoring == "paper_compat" and name in self._functions:
                # ToolBench's api_name_reflect keeps the last API's name and the first one's tool
                first = self.world.api(self._functions[name])
                if self.world.api(api_id).tool_id == first.tool_id:
                    self._functions[name] = api_id
            self._functions.setdefault(name, api_id)
        self.tools = [self.world.api(a).schema() for a in offered]
        self.tools.append(copy.deepcopy(FINISH_SCHEMA))
        self._signatures = {t["function"]["name"]: list(t["function"]["parameters"]["properties"]) for t in self.tools}
        wanted = set(task.relevant)
        self._relevant = {a for a in task.api_ids if (self.world.api(a).tool_name, self.world.api(a).name) in wanted}
        self._required = [(r["api_id"], r["arguments"]) for r in task.required]
        self._plan = [(p["api_id"], self.world.canonical(p["api_id"], p["arguments"]) or {}, p["arguments"])
                      for p in task.plan]
        self.episode = Episode(messages=[{"role": "system", "content": self._system_prompt()},
                                         {"role": "user", "content": f"\n{task.query}\nBegin!\n"}])
        self._done = False
        return task.query, self._info()

    def _system_prompt(self) -> str:
        """ToolLLM's system prompt: one line per tool, its description cut at 512 characters with
        newlines removed, ``None`` when it has none (ToolBench's ``rapidapi_wrapper``)."""
        tools: dict[str, str] = {}
        for api_id in self.task.api_ids:
            api = self.world.api(api_id)
            tools[standardize(api.tool_name)] = self._tool_description(api.tool_id)
        lines = []
        for i, (name, description) in enumerate(tools.items(), 1):
            text = description[:TOOL_DESCRIPTION_MAX].replace("\n", "").strip()
            lines.append(f"{i}.{name}: {text or 'None'}\n")
        return SYSTEM_PROMPT + "".join(lines)

    def _tool_description(self, tool_id: int) -> str:
        row = self.world.sql().execute("SELECT description FROM tools WHERE id = ?", (tool_id,)).fetchone()
        return row[0] if row else ""

    def _act(self, action: Any) -> Outcome:
        return self._answer(parse_action(action, self._signatures))

    def _refuse(self, error: str) -> Outcome:
        return self._answer(Unparseable("(action not shown)", error), counted=True)

    def _answer(self, parsed: ToolCall | TextReply | Unparseable, counted: bool = False) -> Outcome:
        """Run a read action: a call, Finish, or text that calls nothing (an error observation)."""
        episode = self.episode
        episode.steps += 1
        call_id = f"call_{episode.steps}"
        if isinstance(parsed, ToolCall) and parsed.name == "Finish":
            observation = self._finish(parsed, call_id)
            if episode.done:
                metrics = self._metrics()
                return Outcome(observation, terminated=True, progress=float(metrics["pass"] or 0.0),
                               info={"final_answer": episode.final_answer})
        elif isinstance(parsed, ToolCall):
            observation = self._call(parsed, call_id)
        else:
            text = parsed.text if isinstance(parsed, TextReply) else "(unreadable function call)"
            problem = parsed.error if isinstance(parsed, Unparseable) else _call_syntax_error(text)
            if problem and not counted:
                self._note_invalid_action()
            error = (f"Tool input parse error...\n{problem[:300]}\n{EXPECTED_CALL}" if problem else
                     "No function call: call one of the functions, or Finish to answer or give up.")
            observation = json.dumps({"error": error, "response": ""})
            episode.calls.append(CallRecord(function="", arguments=None, status=STATUS_PARSE, ok=False))
            episode.messages.append({"role": "assistant", "content": text[:2000]})
            episode.messages.append({"role": "user", "content": observation})
        # The step limit is the episode's (restore() goes back to an earlier count).
        if episode.steps >= self.max_calls:
            episode.done = True
            return Outcome(observation, truncated=True, info={"final_answer": None})
        return Outcome(observation, truncated=False)

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()  # the episode keeps the conversation

    def _append_call(self, name: str, arguments: Any, call_id: str, observation: str) -> None:
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
        self.episode.messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function", "function": {"name": name[:200], "arguments": shown}}]})
        self.episode.messages.append({"role": "tool", "tool_call_id": call_id, "name": name[:200],
                                      "content": observation})

    def _dispatch(self, name: str) -> int | None:
        """The API a call of ``name`` runs (None: no such function)."""
        if self.scoring == "paper_compat":  # ToolBench: the first function whose name ends with the called one
            name = next((t["function"]["name"] for t in self.tools[:-1] if t["function"]["name"].endswith(name)), "")
        return self._functions.get(name)

    def _call(self, call: ToolCall, call_id: str) -> str:
        api_id = self._dispatch(call.name)
        if api_id is None:
            result = CallResult(call.name[:200], {}, error=f"No such function name: {call.name[:200]}",
                                status=STATUS_NO_FUNCTION)
        else:
            result = self.world.call(api_id, call.arguments)
        observation = result.observation()
        self.episode.calls.append(CallRecord(
            function=result.function, arguments=result.arguments, status=result.status, ok=result.ok, api_id=api_id,
            canonical=result.arguments if result.ok else None,
            fault=result.status not in (STATUS_OK, STATUS_NO_FUNCTION, STATUS_PARSE, STATUS_ARGUMENTS)))
        self._append_call(result.function, result.arguments if api_id is not None else call.arguments, call_id,
                          observation)
        return observation

    def _finish(self, call: ToolCall, call_id: str) -> str:
        """ToolBench's Finish: ends the episode, or answers an error in ToolBench's (non-JSON) words."""
        arguments = read_finish(call.arguments)
        if "return_type" not in arguments:
            observation = FINISH_NO_RETURN_TYPE
        elif arguments["return_type"] == "give_up_and_restart":
            observation = FINISH_GAVE_UP
            self.episode.gave_up = self.episode.done = True
        elif arguments["return_type"] == "give_answer":
            if "final_answer" not in arguments:
                observation = FINISH_NO_ANSWER
            else:
                observation = FINISH_ANSWERED
                answer = arguments["final_answer"]
                self.episode.final_answer = answer if isinstance(answer, str) else json.dumps(answer, default=str)
                self.episode.done = True
        else:
            observation = FINISH_BAD_RETURN_TYPE
        if not self.episode.done:
            self.episode.calls.append(CallRecord(function="Finish", arguments=None, status=STATUS_PARSE, ok=False))
        self._append_call("Finish", json.dumps(arguments, default=str, ensure_ascii=True)[:20_000], call_id, observation)
        return observation

    # -- scoring ---------------------------------------------------------------------------
    def _metrics(self) -> dict:
        episode, task = self.episode, self.task
        calls = [c for c in episode.calls if c.function != "Finish"]
        invalid = sum(1 for c in episode.calls if not c.ok and not c.fault)
        named = {c.api_id for c in calls if c.api_id is not None}
        metrics: dict[str, Any] = {
            "calls": len(calls), "invalid_calls": invalid, "faults": sum(1 for c in calls if c.fault),
            "answered": float(episode.final_answer is not None), "gave_up": float(episode.gave_up),
            "relevant_api_recall": safe_div(len(named & self._relevant), len(self._relevant), 1.0),
            "steps": episode.steps,
        }
        if not task.solvable_offline:
            metrics.update({"pass": None, "success": None, "scored": False})
            return metrics
        facts = [f for f in task.facts if episode.final_answer is not None and contains_fact(episode.final_answer, f)]
        required = [r for r in self._required if self._made(*r)]
        metrics["facts_found"] = safe_div(len(facts), len(task.facts), 1.0)
        metrics["required_calls_made"] = safe_div(len(required), len(self._required), 1.0)
        passed = (episode.final_answer is not None and len(facts) == len(task.facts)
                  and len(required) == len(self._required))
        metrics.update({"pass": float(passed), "success": float(passed), "scored": True})
        return metrics

    def _made(self, api_id: int, arguments: dict) -> bool:
        """Whether a successful call of ``api_id`` had these (canonical) argument values."""
        return any(c.ok and c.api_id == api_id and all(_same(c.canonical.get(k), v) for k, v in arguments.items())
                   for c in self.episode.calls)

    def _info(self) -> dict:
        info = self.base_info(self.task_id)
        info.update(tools=self.tools, messages=[dict(m) for m in self.episode.messages],
                    steps=self.episode.steps, max_calls=self.max_calls,
                    relevant_apis=[list(r) for r in self.task.relevant])
        return info

    # -- tree search -----------------------------------------------------------------------
    def snapshot(self) -> EnvSnapshot:
        """The current point of the episode (world state and history), for :meth:`restore`.

        Raises:
            RuntimeError: No episode has started.
        """
        if self.task_id is None:
            raise RuntimeError(f"{self.env_id}: snapshot() needs an episode; call reset() first")
        return EnvSnapshot(task_id=self.task_id, world=self.world.snapshot(), episode=copy.deepcopy(self.episode))

    def restore(self, snapshot: EnvSnapshot) -> None:
        """Go back to a point of the current episode: later calls, writes and messages are undone.

        Raises:
            ValueError: The snapshot was taken in another task's episode or in another world (other
                ``world_seed``, catalogue or official data); nothing is changed.
        """
        if not isinstance(snapshot, EnvSnapshot) or snapshot.task_id != self.task_id:
            raise ValueError(f"{self.env_id}: restore() takes a snapshot of the current episode's task")
        try:
            self.world.check_snapshot(snapshot.world)
        except ValueError as error:
            raise ValueError(f"{self.env_id}: {error}") from None
        self.world.restore(snapshot.world)
        self.episode = copy.deepcopy(snapshot.episode)
        self._done = self.episode.done
        self._progress = 0.0  # the reward comes at Finish: none of it is earned before

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        task = self.task
        if task.solvable_offline:
            for api_id, canonical, arguments in self._plan:
                if not self._made(api_id, canonical):
                    return {"name": self.world.api(api_id).function, "arguments": arguments}
            return {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": task.answer}}
        # Official queries: call each relevant API once with its example values, then answer
        # with what came back (a baseline for the judge, not a known solution).
        for api_id in sorted(self._relevant):
            api = self.world.api(api_id)
            if self._dispatch(api.function) == api_id and not any(c.api_id == api_id for c in self.episode.calls):
                return {"name": api.function, "arguments": example_arguments(api)}
        responses = [m["content"] for m in self.episode.messages if m["role"] == "tool"]
        return {"name": "Finish", "arguments": {"return_type": "give_answer",
                                                "final_answer": " ".join(r[:300] for r in responses) or "No result."}}

    def render(self):
        if self.render_mode == "ansi" and self.task_id is not None:
            return "\n".join(f"{m['role']}: {m.get('content') or json.dumps(m.get('tool_calls'))}"
                             for m in self.episode.messages)
        return None


def read_finish(arguments: Any) -> dict:
    """Finish's arguments as ToolBench's ``_step`` reads them.

    JSON text is parsed with control characters allowed; when it is not JSON, ``return_type``
    is ``give_answer`` or ``give_up_and_restart`` if the text holds ``"return_type": "<that>"``,
    else the text from ``"return_type": "`` to the first ``",``, and ``final_answer`` is
    everything after ``"final_answer": "`` (closing quote and brace included, as in ToolBench).
    Anything that is not an object reads as ``{}``.
    """
    if isinstance(arguments, dict):
        return dict(arguments)
    if not isinstance(arguments, str):
        return {}
    try:
        value = json.loads(arguments, strict=False)
    except (ValueError, RecursionError):
        value = None
    else:
        return value if isinstance(value, dict) else {}
    found: dict[str, str] = {}
    type_key, answer_key = '"return_type": "', '"final_answer": "'
    if type_key in arguments:
        for choice in RETURN_TYPES:
            if f'{type_key}{choice}"' in arguments:
                found["return_type"] = choice
                break
        else:
            found["return_type"] = arguments[arguments.find(type_key) + len(type_key):arguments.find('",')]
    if answer_key in arguments:
        found["final_answer"] = arguments[arguments.find(answer_key) + len(answer_key):]
    return found


def contains_fact(answer: str, fact: str) -> bool:
    """Whether ``answer`` states ``fact``: case ignored, numbers and words on boundaries, 1,234 = 1234."""
    text = _THOUSANDS.sub("", answer).lower()
    fact = fact.lower().strip()
    if not fact:
        return True
    return re.search(r"(?<![0-9a-z.\-])" + re.escape(fact) + r"(?![0-9a-z]|\.[0-9])", text) is not None


def _same(value: Any, expected: Any) -> bool:
    if isinstance(value, str) and isinstance(expected, str):
        return value.strip().lower() == expected.strip().lower()
    return value == expected


_BUILTIN: dict[str, list[ToolLLMTask]] = {}


def _builtin(world: RapidAPIWorld, seed: int) -> list[ToolLLMTask]:
    """The built-in tasks of a world, generated once per process."""
    key = json.dumps(world.fingerprint(), sort_keys=True)
    if key not in _BUILTIN:
        _BUILTIN[key] = builtin_tasks(world, seed)
    return _BUILTIN[key]


def _call_syntax_error(text: str) -> str:
    """Python's parser's complaint about text that starts as a call (``name(``) but does not parse; "" otherwise."""
    if not _CALL_START.match(text) or len(text) > 20_000:
        return ""
    try:
        ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        return f"a call that does not parse: {error.msg} (column {error.offset})"
    except (ValueError, RecursionError, MemoryError):
        return "a call that does not parse"
    return ""
