"""TauBench-v0: τ-bench (v1)'s airline and retail domains with a simulated user."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.actions import TextReply, ToolCall, json_text, parse_action
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.taubench.tasks import DOMAINS, OFFICIAL_SPLITS, WORLDS, builtin_task_set, layout, official_task_set
from toolgym.envs.tau2.grading import goal_reached, said
from toolgym.envs.users import FIRST_AGENT_MESSAGE, is_stop, make_user

#: v1's message action: ``{"name": "respond", "arguments": {"content": ...}}`` is the same as plain text.
RESPOND = "respond"
#: The longest tool-call id of a model's that the conversation keeps (longer ones are renumbered).
MAX_CALL_ID_CHARS = 200
#: v1's terminate tools: calling one ends the episode (then the reward is computed).
TERMINATE_TOOLS = ("transfer_to_human_agents",)


class TauBenchEnv(ToolEnv):
    """τ-bench (Yao et al. 2024): a customer-service agent follows a domain's wiki, calls its
    tools against the database and talks with a simulated user who holds the task.

    ## Description
    τ-bench v1's airline and retail domains on τ²'s tables (:mod:`toolgym.worlds.taubench`), with
    v1's tools: each answers with the text v1 returns (``json.dumps`` of the records,
    ``Error: user not found`` and v1's other error strings, ``Transfer successful``).

    ## Action Space
    A tool call (``{"name": ..., "arguments": {...}}`` or ``name(k=v)``) or a message to the user
    (any other text, or v1's ``{"name": "respond", "arguments": {"content": ...}}``).

    ## Observation Space
    Text: the tool's answer, or the user's reply. The first observation is the user's first
    message. ``info["messages"]`` is the conversation with the wiki as the system prompt,
    ``info["tools"]`` the schemas (v1's ``get_info()``).

    ## Rewards
    0 until the episode ends, then τ-bench's reward (``tau_bench/envs/base.py``): 1 when the
    final database's hash equals the hash of the database the task's ground-truth actions
    produce from the same start (``r_actions``) and every required output is in some message of
    the agent, compared in lower case with the message's commas removed (``r_outputs``; 1 for a
    task without outputs), else 0. The hash is v1's: sha256 of ``str`` of the database as sorted
    tuples, so key order does not count but ``2`` and ``2.0`` differ. ``info["metrics"]`` has
    ``reward``, ``r_actions``, ``r_outputs``, ``success`` and ``termination``. An episode cut at
    ``max_steps`` scores 0, as v1's runner (its components are still reported).

    Where toolgym differs from v1's code (``scoring="paper"`` is v1's reward; there is no other):
    - None in how a call's arguments are taken: as v1's ``Env.step``, the tool runs on them as given
      (``3.0`` is stored as ``3.0``, ``"3"`` as ``"3"``, a list item keeps its unknown keys, a value of
      another type is stored or fails as in v1's code), a call that does not bind answers Python's
      words for v1's function (``Error: CancelReservation.invoke() missing 1 required positional
      argument: 'reservation_id'``) and an exception its text after ``Error:``; an unknown tool
      answers ``Unknown action NAME``. Checked against v1's tools on 15 kinds of perturbed calls
      (``benchmarks/compare_taubench_args.py``). Two things remain toolgym's: a value the database
      cannot hold (an integer beyond 64 bits, NaN, nesting deeper than 32) is refused with
      ``Error: Invalid arguments for ...``, and a call that fails changes nothing, where v1 keeps
      what its tool wrote before the exception (its tools check before they write, so no
      perturbed call measured differs).
    - The user ends the conversation with ``###STOP###`` as v1's; ``###TRANSFER###`` and
      ``###OUT-OF-SCOPE###`` (τ²'s signals, which toolgym's LLM user may write) end it too.
    - On official tasks an LLM agent speaks v1's own wire protocol by default (the
      ``tau-bench`` prompt format: a whole model turn is an action, of which the first call runs,
      as v1's agent does, keeping the model's call id and arguments text), and an ``llm:`` user
      is v1's LLM user (``user_options`` ``protocol`` ``"tau-bench"``); what still differs from
      v1's ``run.py`` is listed in :mod:`toolgym.envs.taubench.protocol`.
    - The items of array parameters (flights, passengers, payment methods) are typed as v1's
      schemas have them once :mod:`toolgym.worlds.tools` reads ``typing_extensions.TypedDict``.

    ## Starting State
    The domain's database (official: v1's ``data/*.json``; built-in: τ²'s seeded generated one).

    ## Episode End
    Terminated when the user's reply holds ``###STOP###`` or the agent calls
    ``transfer_to_human_agents`` (v1's terminate tool). Truncated after ``max_steps`` actions
    (default 30, v1's ``max_num_steps``).

    ## Arguments
    - ``domain``: ``"airline"`` or ``"retail"``.
    - ``tasks``: ``"built-in"`` (default: generated, 200+ per domain) or ``"official"``
      (``data_dir`` or ``$TOOLGYM_DATA``: the folder holding ``tau2bench/tau_bench_v1/``).
    - ``split``: official ``"test"`` (default), ``"train"``, ``"dev"`` (retail only); built-in
      ``"train"`` or ``"test"`` (held out), both when None.
    - ``user``: ``"scripted"`` (default), ``"llm:hf:MODEL"``, ``"llm:openai:URL#MODEL"``,
      ``"module:Class"`` or a user object (:mod:`toolgym.envs.users`); ``user_options`` its sampling.
    - ``max_steps``: actions per episode (default 30).
    - ``world_seed``: seed of the built-in database and tasks.

    Official task ids are ``<split>_<index>``: ``test_12`` is v1's ``task_id`` 12 of its test split.

    ## Version History
    - v0: initial version.
    """

    env_id = "TauBench-v0"
    #: The LLM agent's prompt format on official tasks: v1's tool-calling agent.
    official_prompt_format = "tau-bench"
    splits = {"built-in": ("train", "test"), "official": ("test", "train", "dev")}
    table_columns = (Column("Reward", "mean", ("reward",)),)

    def __init__(self, domain: str = "airline", tasks: str = "built-in", split: str | None = None,
                 data_dir: str | None = None, scoring: str = "paper", mode: str | None = None,
                 render_mode: str | None = None, user: Any = "scripted", user_options: dict | None = None,
                 max_steps: int = 30, world_seed: int = 0):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if domain not in DOMAINS:
            raise ValueError(f"{self.env_id}: domain must be one of {DOMAINS}, got {domain!r}")
        if max_steps < 1:
            raise ValueError(f"{self.env_id}: max_steps must be at least 1")
        self.domain = domain
        self.max_steps = max_steps
        if tasks == "official":
            self.split = split = split or "test"
            self.task_data = official_task_set(self.env_id, domain, data_dir, split)
        else:
            self.task_data = builtin_task_set(domain, world_seed)
        self._task_ids = [t for t, task in self.task_data.tasks.items() if split is None or task["split"] == split]
        if not self._task_ids:
            raise ValueError(f"{self.env_id}: domain {domain!r} has no tasks in split {split!r} "
                             f"(official splits: {OFFICIAL_SPLITS[domain]})")
        self.world = WORLDS[domain](seed=world_seed)
        self.toolkit = self.world.tools
        self.tools = [spec.schema() for spec in self.toolkit.specs.values()]
        self._signatures = {name: list(spec.parameters) for name, spec in self.toolkit.specs.items()}
        user_options = dict(user_options or {})
        if tasks == "official" and isinstance(user, str) and user.startswith("llm:"):
            user_options.setdefault("protocol", "tau-bench")  # v1's own LLM user on the wire
        self.user = make_user(user, goal_reached=lambda trajectory: goal_reached(self._criteria, trajectory),
                              **user_options)
        self._gold_hashes: dict[str, str] = {}
        self.task: dict | None = None

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {domain: (layout(domain),) for domain in DOMAINS}

    def read_layouts(self) -> tuple[OfficialLayout, ...]:
        return (layout(self.domain),)

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def task_records(self) -> dict:
        return {t: self.task_data.tasks[t] for t in self._task_ids}

    def task_split(self, task_id: str) -> str:
        return self.task_data.tasks[task_id]["split"]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        self.task = self.task_data.tasks[self.task_id]
        # τ²'s grading record of the task, for the scripted user's goal check (every action called, every output said)
        self._criteria = {"evaluation_criteria": {
            "actions": [{"name": a["name"], "arguments": a["kwargs"]} for a in self.task["actions"]],
            "communicate_info": self.task["outputs"]}}
        self.world.restore(self.task_data.initial_state)
        self._messages = [{"role": "system", "content": self.task_data.wiki},
                          {"role": "assistant", "content": FIRST_AGENT_MESSAGE}]
        self._done = False
        user_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        opening = self.user.reset(self.task["user_scenario"], seed=user_seed)
        self._messages.append({"role": "user", "content": opening})
        self._episode_start = len(self._messages)
        return opening, self._info()

    def _act(self, action: Any) -> Outcome:
        raw_call = content = None
        if isinstance(action, Mapping) and isinstance(action.get("tool_calls"), list) and action["tool_calls"]:
            # a whole model turn (the tau-bench format's): v1 runs its first call only, as the server sent it
            raw_call, content = action["tool_calls"][0], action.get("content")
            action = raw_call
        parsed = parse_action(action, self._signatures)
        if isinstance(parsed, ToolCall) and parsed.name == RESPOND:
            content = parsed.arguments.get("content") if isinstance(parsed.arguments, dict) else None
            parsed = TextReply(content if isinstance(content, str) else json.dumps(parsed.arguments, default=str))
        if isinstance(parsed, TextReply):
            self._messages.append({"role": "assistant", "content": parsed.text})
            reply = self.user.respond(parsed.text, [dict(m) for m in self._messages])
            reply = reply if isinstance(reply, str) else json.dumps(reply, default=str)
            self._messages.append({"role": "user", "content": reply})
            return self._end(reply, "user_stop") if is_stop(reply) else self._continue(reply)
        if isinstance(parsed, ToolCall):
            observation = self._call(parsed, raw_call, content if isinstance(content, str) else None)
            if parsed.name in TERMINATE_TOOLS and parsed.name in self.toolkit.specs:
                return self._end(observation, "transfer")
            return self._continue(observation)
        self._note_invalid_action()
        observation = f"Error: could not read the tool call: {parsed.error}"
        self._messages += [{"role": "assistant", "content": parsed.text}, {"role": "user", "content": observation}]
        return self._continue(observation)

    def _continue(self, observation: str) -> Outcome:
        if self._steps >= self.max_steps:
            return self._end(observation, "max_steps")
        return Outcome(observation, truncated=False)

    def _refuse(self, error: str) -> Outcome:
        observation = f"Error: {error}"
        self._messages.append({"role": "user", "content": observation})
        return self._continue(observation)

    def _call(self, call: ToolCall, raw_call: Mapping | None = None, content: str | None = None) -> str:
        """Run an agent's call; the conversation keeps the model's own call (``raw_call``: its
        id and arguments text) and its text where it came as a whole turn."""
        call_id = f"call_{len(self._messages)}"
        if call.name not in self.toolkit.specs:
            observation = f"Unknown action {call.name}"  # v1's answer to an unknown tool
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
        else:
            result = self.toolkit.call(call.name, call.arguments)
            arguments = result.arguments
            observation = f"Error: {result.error}" if result.error is not None else str(result.response)
        entry = {"id": call_id, "type": "function",
                 "function": {"name": str(call.name), "arguments": json_text(arguments)}}
        function = raw_call.get("function") if isinstance(raw_call, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("arguments"), str):
            given = raw_call.get("id")
            call_id = given if isinstance(given, str) and 0 < len(given) <= MAX_CALL_ID_CHARS else call_id
            entry = {"function": {"arguments": function["arguments"], "name": str(call.name)}, "id": call_id,
                     "type": "function"}
        self._messages.append({"role": "assistant", "content": content, "tool_calls": [entry]})
        self._messages.append({"role": "tool", "tool_call_id": call_id, "name": str(call.name), "content": observation})
        return observation

    def _end(self, observation: str, termination: str) -> Outcome:
        """v1's ``calculate_reward``: the database hash against the ground truth's, then the outputs."""
        r_actions = float(self.world.state_hash() == self._gold_hash())
        episode = self._messages[self._episode_start:]
        r_outputs = float(all(said(output, episode) for output in self.task["outputs"]))
        reward = r_actions * r_outputs if termination != "max_steps" else 0.0
        self._final_metrics = {"reward": reward, "r_actions": r_actions, "r_outputs": r_outputs,
                               "success": int(reward), "termination": termination}
        truncated = termination == "max_steps"
        return Outcome(observation, terminated=not truncated, truncated=truncated, progress=reward)

    def _gold_hash(self) -> str:
        """The hash after the task's ground-truth actions from the task's start (v1 skips its
        terminate tools); run on the env's world after the episode's own hash was taken."""
        if self.task_id not in self._gold_hashes:
            final = self.world.snapshot()
            self.world.restore(self.task_data.initial_state)
            for action in self.task["actions"]:
                if action["name"] not in TERMINATE_TOOLS and action["name"] != RESPOND:
                    self.toolkit.call(action["name"], action["kwargs"])
            self._gold_hashes[self.task_id] = self.world.state_hash()
            self.world.restore(final)
        return self._gold_hashes[self.task_id]

    def _metrics(self) -> dict:
        return self._final_metrics

    def _end_info(self) -> dict:
        return {"trajectory": [dict(m) for m in self._messages[1:]]}

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()

    def _info(self) -> dict:
        info = self.base_info(self.task_id)
        info.update(tools=self.tools, messages=[dict(m) for m in self._messages], domain=self.domain,
                    steps=self._steps)
        return info

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """The task's ground-truth actions in order (a transfer last), one message with every
        required output, then a transfer if the task has one (else the user stops)."""
        episode = self._messages[self._episode_start:]
        calls = sum(1 for m in episode if m.get("tool_calls"))
        actions = [a for a in self.task["actions"] if a["name"] != RESPOND]
        actions = ([a for a in actions if a["name"] not in TERMINATE_TOOLS]
                   + [a for a in actions if a["name"] in TERMINATE_TOOLS])
        spoke = any(m["role"] == "assistant" and m.get("content") for m in episode)
        if calls < len(actions) and (spoke or actions[calls]["name"] not in TERMINATE_TOOLS):
            return {"name": actions[calls]["name"], "arguments": json.loads(json.dumps(actions[calls]["kwargs"]))}
        if not spoke:
            outputs = self.task["outputs"]
            return ("Done. " + "; ".join(outputs)) if outputs else "Done. Is there anything else?"
        return "Thank you, goodbye."

    def render(self):
        if self.render_mode == "ansi":
            return "\n".join(f"{m['role']}: {m.get('content') or json.dumps(m.get('tool_calls'))}"
                             for m in self._messages)
        return None
