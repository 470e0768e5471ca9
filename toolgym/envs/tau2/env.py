"""Tau2-v0: τ²-bench's customer-service domains with a simulated user."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.actions import TextReply, ToolCall, Unparseable, mapping_call, parse_action
from toolgym.envs.common.metrics import Column
from toolgym.envs.tau2.protocol import MAX_STEPS as TAU2_MAX_STEPS
from toolgym.envs.tau2.protocol import guidelines_folder, trial_seed
from toolgym.envs.tau2.protocol import tools as protocol_tools
from toolgym.envs.tau2.grading import goal_reached, grade
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.tau2.protocol import bank_tools
from toolgym.envs.tau2.tasks import (BANK, DOMAINS, SOLO_REFUSALS, WORLDS, builtin_task_set, call_tool, layouts,
                                     official_task_set, run_function, solo_ready, start_task)
from toolgym.worlds.tau2.banking_knowledge.tools import compose_toolkit
from toolgym.envs.users import FIRST_AGENT_MESSAGE, STOP, is_stop, make_user
from toolgym.worlds.tau2.common import SoloStopTools
from toolgym.worlds.jsontext import dumps as json_writer
from toolgym.worlds.tools import ToolResult

#: What the agent writes to end the conversation itself (τ²-bench's agent stop).
AGENT_STOP = STOP
#: τ²'s ``max_steps``: the steps of its orchestrator (messages, see ``Tau2Env._count_message``) a
#: simulation may take.
MAX_MESSAGES = TAU2_MAX_STEPS
#: How many tool calls the user may make in one turn before it hangs up.
MAX_USER_CALLS = 10
#: The longest tool-call id of a model's that the conversation keeps (longer ones are renumbered).
MAX_CALL_ID_CHARS = 200
#: How the oracle asks the user to run one of the user's tools (the scripted user reads the JSON after it).
USER_ACTION_PREFIX = "Please do this on your phone:"
#: τ³'s solo agent's tool that ends the ticket.
SOLO_STOP_TOOL = "done"
#: τ³'s solo agent's system prompt (``SYSTEM_PROMPT_SOLO`` with ``AGENT_SOLO_INSTRUCTION``), with the
#: domain's solo policy and the task's ticket.
SOLO_SYSTEM_PROMPT = (Path(__file__).resolve().parents[2] / "assets" / "tau2" / "solo_system_prompt.txt").read_text(
    encoding="utf-8")

#: ``json.dumps`` (its text byte for byte), its encoder made once: a call's arguments and a result's
#: text are written at every step
_write_json = json_writer()


class Tau2Env(ToolEnv):
    """τ²-bench (Barres et al. 2025): a customer-service agent follows a policy, calls a
    domain's tools against its database and talks with a simulated user who holds the goal.

    ## Action Space
    A tool call (``{"name": ..., "arguments": {...}}``, OpenAI's function format, or
    ``name(k=v)``), a message to the user (any other text: text that starts with ``{`` but is
    no tool call is said to the user, as τ²'s agent says any text, and counted in
    ``invalid_actions``), or a whole turn in OpenAI's
    (τ²'s ``AssistantMessage``) shape, ``{"content": text, "tool_calls": [call, ...]}``: its
    calls run in order, the observation is their results one per line, and its text stays in the
    conversation as the agent's words. The message ``###STOP###`` ends the conversation from the
    agent's side. In telecom (dual control) the user has tools of its
    own, the phone's (``env.user_tools``): the agent asks, the user acts, and the user's calls and
    their results are in the history (role ``user`` with ``tool_calls``, then ``tool`` with
    ``requestor: "user"``).

    ## Observation Space
    Text: the tool's result as JSON (``Error: ...`` when it fails) or the user's reply. The
    first observation is the user's first message (the agent's greeting, τ²-bench's
    "Hi! How can I help you today?", is in the history). ``info["messages"]`` is the
    conversation with the domain's policy as the system prompt (without the user's own tool
    calls, which the agent does not see), ``info["tools"]`` the schemas.

    ## Rewards
    0 until the episode ends, then τ²-bench's reward: the product of the components in the
    task's ``reward_basis`` (see :mod:`toolgym.envs.tau2.grading`). ``info["metrics"]`` has
    ``db``, ``action``, ``communicate``, ``env_assertion``, ``nl_assertion`` (1.0 / 0.0, or
    None when not scored), ``reward``, ``reward_without_judge``, ``success`` and ``failed``
    (the components that did not hold). Without ``judge`` a task whose basis has NL_ASSERTION
    scores ``reward`` 0 and lists it in ``unscored``; ``reward_without_judge`` still compares.

    ``scoring="paper_compat"`` gives the numbers of τ²-bench's released evaluator
    (``evaluate_simulation``, checked episode by episode with ``benchmarks/compare_tau2.py``).
    It differs from ``"paper"`` in one place: a task whose ``actions`` and ``env_assertions``
    are both null scores DB 1 without a comparison, whatever the agent wrote (none of the
    official airline, retail and telecom tasks; mock's ``create_task_1_nl_eval``). Both
    scorings share the evaluator's other rules, which the paper does not spell out: a
    ground-truth action with ``compare_args`` null compares only the arguments the agent's call
    has, and a fact is said when it is a substring of an agent message in lower case with the
    message's commas removed.

    The tools behave as τ²'s (``domains/*/tools.py`` run by its ``Environment``), in both
    scorings: the schemas are τ²'s ``openai_schema``; the arguments reach the tool as given
    (no coercion: ``2.0`` stays a float, as it lands in τ²'s database; unknown keys inside
    airline's list items are dropped, as τ²'s item models drop them); the errors are τ²'s words
    (``Tool 'x' not found.``, Python's for a missing or unexpected argument, the tool's own); the
    records are returned with τ²'s models' fields, key order, nulls and datetime texts; and the
    database hash sorts each record's keys, as τ²'s does. ``tests/test_tau2.py`` checks every
    ground-truth call of the base split against τ²'s own output. Deliberate differences, in both
    scorings:

    - Argument values the house's database cannot hold (an integer outside 64 bits, a string
      with a lone surrogate, NaN or infinity, nesting deeper than 32 or more than 10,000
      values) are refused before the tool runs, with an error saying why; τ² would run the tool.
    - An exception other than the tool's own is reported as its text only, as τ² does, but the
      world is rolled back to before the call; τ²'s tools change their database in place, so a
      tool that fails halfway keeps its partial writes there.
    - An agent text that starts with ``{`` and is no tool call is said to the user (as τ²'s) and
      also counted in ``info["metrics"]["invalid_actions"]``, which τ² does not have.
    - The agent's calls are validated only as far as τ²'s code goes: what τ²'s tool does with a
      wrong type (an error, or a stored odd value) is what toolgym's does where its code takes
      the same path; the error text can differ where the paths differ (a list given for an id
      fails as a database error here, as a ``TypeError`` there).

    On official tasks an LLM agent speaks τ²'s own wire protocol by default (the ``tau2``
    prompt format), an ``llm:`` user is τ²'s user simulator (``user_options`` ``protocol``
    ``"tau2"``: its guidelines read from the official data's ``tau2/user_simulator/``, the
    user's own tools as native calls) and the judge gets τ²'s request; what still differs
    from τ²'s harness is listed in :mod:`toolgym.envs.tau2.protocol`. In both scorings a
    model's tool-call ids stay in the conversation (an id over 200 characters is renumbered);
    τ²'s step limit is ``max_messages`` (see Episode End).

    ## Starting State
    The domain's database (official: τ²-bench's ``db.json`` / ``db.toml``, airline's from τ-bench
    v1's three tables where τ²'s ``db.json`` is absent; built-in: a seeded generated one of the same
    schema), with the task's ``initial_state`` applied: its
    initialization data merged, its initialization functions run (telecom: the phone's faults),
    and the tool calls of its message history replayed. ``reset(options={"task_record": record})``
    plays a task record given whole, in τ²'s format, instead of one of the set's (whatever its split):
    ``rescore`` grades a results file's runs against the tasks the file holds, as τ²'s
    ``evaluate-trajs`` does.

    ## Episode End
    Terminated when the user's reply holds ``###STOP###``, ``###TRANSFER###`` or
    ``###OUT-OF-SCOPE###``, or the agent sends ``###STOP###``. τ²'s limits, counted as τ²'s
    orchestrator counts them: ``max_messages`` (τ²'s ``max_steps``, 200) steps, each a message of
    the agent or the user or the results of one message's tool calls (the greeting and the task's
    history not counted), and ``max_errors`` (10) failed tool calls of either side; both are
    checked after every step but a message of calls (so the user is not asked once the agent's
    message reaches the limit) and override a stop made in the same step. Reaching one ends
    the episode with τ²'s reason, ``max_steps`` (truncated) or ``too_many_errors``, scored 0; a
    limit the user's opening reaches (``max_messages`` 1, or 3 with telecom's opening calls) ends
    it at the agent's first step, its action unread (τ² does not ask the agent at all).
    ``max_steps`` (toolgym's) also truncates after that many agent actions.
    ``info["metrics"]["termination"]`` says which.
    In solo mode the agent ends the ticket with a ``done`` call (or a text holding ``###STOP###``);
    any other text ends the episode as ``agent_error``, scored 0, as τ³'s orchestrator ends it.

    ## Solo Mode
    ``solo_mode=True`` is τ³-bench's solo mode (``llm_agent_solo`` with its ``DummyUser``): no user;
    the agent works the task's ticket alone under the domain's solo policy (official telecom:
    ``main_policy_solo.md`` with the tech-support manual; mock: ``policy_solo.md``; built-in:
    ``assets/tau2/<domain>_policy_solo.md``). The conversation starts with τ³'s solo system prompt
    (instructions, ``<policy>``, ``<ticket>``) and no other message; the first observation is the
    ticket. The tools are the agent's, then the user's (telecom's phone, mock's inbox: the agent runs
    them itself), then ``done``; a turn holding ``done`` runs none of its calls and ends the ticket
    (τ³'s ``_check_if_stop_toolcall``). Only the tasks τ³'s solo agent takes are run (its
    ``check_valid_task``: a history of tool calls only, or a ticket and ground-truth actions):
    official telecom all 2,285, mock 7 of 10; built-in telecom all, mock 2 of 3 (``mock_create``
    must tell the user a task id). Airline, retail and banking_knowledge refuse it with τ³'s words.
    Grading is τ²'s, as in a conversation; a fact to communicate cannot be said without a user, so
    such a task (mock's ``update_task_with_initialization_data``) scores 0 in τ³ and here alike.

    ## banking_knowledge
    τ³'s knowledge domain (Rho-Bank): the policy lives in 698 documents the agent reaches through a
    retrieval config (``retrieval_config``), the database is τ³'s ``db.json`` (users, accounts, debit
    cards, credit card accounts and transactions, disputes, referrals, orders, ...) and most of the
    work goes through *discoverable tools*: named only in documents, unlocked with
    ``unlock_discoverable_agent_tool`` and run with ``call_discoverable_agent_tool`` (its JSON
    ``arguments``, every number read as a float, as τ³ reads them), or handed to the customer with
    ``give_discoverable_user_tool`` and run by it with ``call_discoverable_user_tool``. The agent logs
    the customer's identity with ``log_verification``. The customer's tools are τ³'s
    ``KnowledgeUserTools``; an LLM user with τ²'s protocol is offered those the task lists
    (``user_tools``), as τ³ offers them. The system prompt is the config's (τ³'s ``build_policy``:
    the ``prompts/`` templates of the data, the task's documents under ``golden_retrieval``, every
    document under ``full_kb``). Configs: ``no_knowledge``, ``full_kb``, ``golden_retrieval``,
    ``grep_only``, ``bm25``, ``bm25_grep``, ``terminal_use`` (a simulated read-only shell),
    ``terminal_use_write``, ``minilm_embeddings`` (dense search with the packaged MiniLM in place of
    an embedding API), ``minilm_embeddings_grep`` and ``alltools`` (BM25 + MiniLM + shell); the
    default is ``bm25`` (τ³'s is ``alltools`` with OpenAI's embeddings). Configs that need an
    embedding API or an LLM reranker raise ``ValueError`` with the reason; see
    :mod:`toolgym.worlds.tau2.banking_knowledge.knowledge` for what each runs and how it differs.
    Grading is τ³'s: the database check compares every table's records (keys sorted, as τ³'s hash)
    with the ground truth's, and ``agent_discoverable_tools`` records each discoverable write called
    and each read the task's ground truth calls (τ³'s read-log allowlist), so an extra read is
    free; the tools unlocked are not part of the state. 88 official tasks are graded on DB, 9 on
    ACTION. ``benchmarks/compare_banking_knowledge.py`` checks the tool outputs, the final database,
    the rewards, the system prompt and the tools sent against τ³'s own environment and evaluator.
    Differences from τ³ (both scorings):

    - The documents are read in file-name order, where τ³ reads them in its file system's directory
      order: the ``full_kb`` prompt lists the same documents in another order, and equal BM25 or grep
      scores may rank in another order.
    - Python's words for a call that does not bind name the class that defines the tool:
      ``KnowledgeTools.log_verification()`` as τ³, but the retrieval tools' classes are toolgym's.
    - The JSON ``arguments`` of the discoverable-tool calls are held to the house's bounds on values
      (depth, size, 64-bit integers), answered with an ``Error: Invalid JSON in arguments`` text.
    - τ³'s tools build their lookups as JSON texts with the value inside; a value that smuggles in a
      constraint named ``limit`` is read as τ³ reads it, one named ``db``, ``db_name`` or
      ``return_ids`` as a field to match (τ³ fails with a Python error).

    ## Arguments
    - ``domain``: ``"airline"``, ``"retail"``, ``"telecom"``, ``"mock"`` or ``"banking_knowledge"``.
    - ``retrieval_config``: banking_knowledge's retrieval config (see above; default ``bm25``);
      another domain refuses one.
    - ``tasks``: ``"built-in"`` (generated, default) or ``"official"`` (``data_dir`` or
      ``$TOOLGYM_DATA``: the folder holding ``tau2bench/``; telecom: ``tasks.json``, all 2,285
      tasks, or ``tasks_small.json`` where that is absent).
    - ``split``: official ``"base"`` (the default: the paper's tasks, all of airline's 50,
      retail's 114 and mock's 10, telecom's 114), ``"train"``, ``"test"``, telecom's ``"small"``
      (20) and ``"full"`` (2,285); without telecom's ``tasks.json``, ``"small"``. Built-in:
      ``"base"`` (the default: every task), ``"train"`` and ``"test"``, disjoint, held out per
      template (the 2nd, 7th, 12th, ... task of each template, about a fifth: 52, 49 and 48 of
      airline's, retail's and telecom's 240, 1 of mock's 3). A run with no split names its subset
      after the split it runs: ``base`` (telecom's ``small`` when only ``tasks_small.json`` is there).
    - ``user``: ``"scripted"`` (default), ``"llm:hf:MODEL"``, ``"llm:openai:URL#MODEL"``,
      ``"module:Class"`` or a user object (see :mod:`toolgym.envs.users`); ``user_options``
      its sampling settings and ``protocol`` (``"tau2"`` by default on official tasks, where
      its seed is τ²'s for the episode's ``reset(options={"trial": t})``).
    - ``judge``: None, a backend, or ``"hf:MODEL"`` / ``"openai:URL#MODEL"`` for NL assertions.
    - ``max_messages``: τ²'s step limit (default 200, τ²-bench's; None: none), see Episode End.
      ``max_steps``: the agent's actions per episode (default 200). ``max_errors``: failed tool
      calls per episode (default 10, τ²-bench's).
    - ``world_seed``: seed of the built-in database and tasks.
    - ``solo_mode``: τ³'s solo mode (see above); telecom and mock only.

    ## Built-in Tasks
    240 each in airline, retail and telecom (3 in mock), generated from seeded templates over the
    generated database (``toolgym/worlds/tau2/tasks.py``). A task is τ²'s record: a user scenario
    (the reason for calling, what the user knows, what it does not know), the ground-truth
    actions (the reads that find the records, then the writes) and, where the template asks a
    question, the facts to tell (``communicate_info``). ``task["description"]["template"]`` names
    the template. Each task's ground truth is run when the set is built; one whose calls fail or
    whose assertions then do not hold is left out (none is, for ``world_seed`` 0).

    - airline: cancellations the policy allows (business cabin, insurance with a covered reason,
      a flight the airline cancelled; by reservation id, or by the trip when the user does not
      know the id) and ones it refuses; adding bags (free allowance by membership and cabin); a
      passenger's change; cabin upgrades and downgrades; a flight moved to another date (refused
      in basic economy); one-way bookings; a certificate for a cancelled flight (refused to a
      regular member without insurance in economy); a flight's status, the total paid, the free
      bag allowance. The rules are the built-in policy's, with the built-in airline rules
      (``assets/tau2/airline_rules.md``).
    - retail: cancelling a pending order (by id, or by its items when the user does not know the
      id); changing a pending order's items, address or payment method; a new default address;
      returns and exchanges of a delivered order; an order's status and price, an item's price, a
      gift card's balance; refused requests (cancelling a delivered order, returning a pending
      one). A quarter of the users know their name and zip code but not their email.
    - telecom: the four one-fault tasks of earlier versions, then τ²'s three families (mobile
      data, no service, MMS) with one to three faults drawn from each family's faults (airplane
      mode, data off, data saver, 2G-only network mode, VPN, data used up, roaming off on the
      phone or on the line, SIM unseated, APN broken, suspension for an overdue bill, Wi-Fi calling,
      the messaging app's permissions; a locked SIM or an ended contract only a human agent can
      help with). The ground truth holds the user's actions on the phone (requestor ``user``)
      and the agent's on the account; the grading is by the phone's and line's assertions.
    - banking_knowledge: a bank, its documents and 336 tasks from
      ``toolgym.worlds.tau2.banking_knowledge.generate`` (``train``, 264, and ``test``, 72, hold
      disjoint templates), loaded through ``load_bank`` as the official files are; where that
      generator is not part of the build, ``tasks="built-in"`` says so and ``tasks="official"`` runs.

    ## Oracle
    ``oracle_action`` plays the task's ground-truth actions, then one message with every fact to
    communicate: 1.0 on every built-in task and every official task of airline (50), retail
    (114, with a judge for the 40 with NL assertions), telecom (all 2,285), banking_knowledge (all
    97, under every offline retrieval config: the customer's calls are asked of the scripted user)
    and mock but two,
    which have no ground truth to replay: ``update_task_with_history_and_env_assertions`` (no
    actions; its env assertion needs task_2 completed, which the task never states as an
    action) and ``update_task_with_user_tools`` (its assertion needs the user to dismiss a
    notification of its own inbox, a user action the ground truth lacks).

    ## Version History
    - v0: initial version. Since issue 39: 240 built-in tasks per domain (were 12 airline, 12
      retail, 4 telecom) with ``train``/``test`` splits; the default run is still every built-in
      task (``base``). Since issue 50: ``solo_mode`` (τ³'s solo agent: telecom and mock); the
      ``banking_knowledge`` domain with ``retrieval_config``. Since issue 47: ``max_messages`` (τ²'s
      step limit, 200, counted as τ² counts; ``max_steps`` used to stand for it counting agent actions).
    """

    env_id = "Tau2-v0"
    #: The LLM agent's prompt format on official tasks: τ²'s own protocol.
    official_prompt_format = "tau2"
    scorings = ("paper", "paper_compat")
    splits = {"built-in": ("base", "train", "test"), "official": ("base", "train", "test", "small", "full")}
    table_columns = (
        Column("Reward", "mean", ("reward",)),
        Column("Reward w/o judge", "mean", ("reward_without_judge",)),
    )

    def __init__(self, domain: str = "airline", tasks: str = "built-in", split: str | None = None,
                 data_dir: str | None = None, scoring: str = "paper", mode: str | None = None,
                 render_mode: str | None = None, user: Any = "scripted", user_options: dict | None = None,
                 judge: Any = None, max_steps: int = 200, max_errors: int = 10, world_seed: int = 0,
                 solo_mode: bool = False, max_messages: int | None = MAX_MESSAGES,
                 retrieval_config: str | None = None):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if domain not in DOMAINS:
            raise ValueError(f"{self.env_id}: domain must be one of {DOMAINS}, got {domain!r}")
        if max_steps < 1 or max_errors < 1 or (max_messages is not None and max_messages < 1):
            raise ValueError(f"{self.env_id}: max_steps, max_messages and max_errors must be at least 1")
        if solo_mode and domain in SOLO_REFUSALS:
            raise ValueError(f"{self.env_id}: {SOLO_REFUSALS[domain]}")
        if solo_mode and user != "scripted":
            raise ValueError(f"{self.env_id}: solo mode has no user (τ³'s DummyUser): leave user= out")
        self.solo_mode = bool(solo_mode)
        self.max_errors = max_errors
        self.domain = domain
        self.max_steps = max_steps
        self.max_messages = max_messages
        self.task_data = (official_task_set(self.env_id, domain, data_dir) if tasks == "official"
                          else builtin_task_set(domain, world_seed))
        split = split if split is not None else self.task_data.default_split
        self._task_ids = [t for t, splits in self.task_data.splits.items()
                          if split is None or split in splits or (split == "base" and not splits)]
        if self.solo_mode:
            if self.task_data.solo_policy is None:
                raise ValueError(f"{self.env_id}: the {domain} data has no solo policy (τ³'s main_policy_solo.md "
                                 f"or policy_solo.md)")
            self._task_ids = [t for t in self._task_ids if solo_ready(self.task_data.tasks[t])]
        if not self._task_ids:
            raise ValueError(f"{self.env_id}: domain {domain!r} has no tasks in split {split!r}")
        self.world = WORLDS[domain](seed=world_seed)
        #: banking_knowledge: the retrieval config built over the task source's knowledge base.
        self.retrieval = _retrieval(self.env_id, domain, retrieval_config, self.task_data)
        self.retrieval_config = None if self.retrieval is None else self.retrieval.config
        if self.retrieval is not None:
            self.world.knowledge = self.task_data.knowledge
            self.world.use_toolkit(compose_toolkit(self.retrieval.toolkits))
            self._wire_tools = bank_tools(type(self.world.tools))
        self.toolkit = self.world.tools
        self.tools = [spec.schema() for spec in self.toolkit.specs.values()]
        self._signatures = {name: list(spec.parameters) for name, spec in self.toolkit.specs.items()}
        user_tools = getattr(self.world, "user_tools", None)
        #: The user's own tools (telecom's phone): schemas the user sees, None in single-control domains.
        self.user_tools = [spec.schema() for spec in user_tools.specs.values()] if user_tools is not None else None
        #: Solo mode: the names of the user's tools, which the agent runs itself.
        self._solo_user_tools = set(user_tools.specs) if self.solo_mode and user_tools is not None else set()
        if self.solo_mode:  # τ³'s solo agent's tools: the agent's, the user's, then done
            self.tools = self.tools + (self.user_tools or []) + [SoloStopTools.specs[SOLO_STOP_TOOL].schema()]
            self._signatures.update({name: list(spec.parameters) for name, spec in user_tools.specs.items()}
                                    if user_tools is not None else {})
            self._signatures[SOLO_STOP_TOOL] = []
            self.user = None
        else:
            user_options = dict(user_options or {})
            if tasks == "official" and isinstance(user, str) and user.startswith("llm:"):
                user_options.setdefault("protocol", "tau2")  # τ²'s own user simulator on the wire
            user_tools_offered = self.user_tools
            if user_options.get("protocol") == "tau2":
                user_tools_offered = protocol_tools(domain, "user")
                user_options.setdefault("guidelines", str(guidelines_folder(self._official_folder(data_dir))))
            self.user = make_user(user, goal_reached=lambda trajectory: goal_reached(self.task, trajectory),
                                  tools=user_tools_offered, **user_options)
            self._user_tools_offered = user_tools_offered
        self.judge = _make_judge(judge)
        self._gold_hashes: dict[str, str] = {}
        self.task: dict | None = None

    def _official_folder(self, data_dir: str | None):
        """The official data's ``tau2bench`` folder that holds this domain (and τ²'s user guidelines)."""
        for layout in layouts(self.domain):
            try:
                return layout.locate(self.env_id, data_dir, None)
            except (ValueError, OSError):
                continue
        raise ValueError(f"{self.env_id}: the official {self.domain} data is not found")

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {domain: tuple(layouts(domain)) for domain in DOMAINS}

    def read_layouts(self) -> tuple[OfficialLayout, ...]:
        return tuple(layouts(self.domain))

    def task_ids(self) -> list[str]:
        return list(self._task_ids)

    def task_records(self) -> dict:
        return {t: self.task_data.tasks[t] for t in self._task_ids}

    def task_split(self, task_id: str) -> str:
        # the split run: the one named, else the task set's default (official: base, or telecom's small;
        # built-in: every task, which is base)
        split = self.split if self.split is not None else self.task_data.default_split
        return split if split is not None else "base"

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._start(options)
        if self.solo_mode:
            return self._reset_solo()
        self._messages = self._opening()
        user_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        if getattr(self.user, "protocol", None) == "tau2":
            user_seed = trial_seed(self.trial)  # τ² seeds the user as the agent, per trial
            if self.retrieval is not None:  # τ³ gives the customer only the tools its task lists
                self.user.tools = _task_user_tools(self._user_tools_offered, self.task.get("user_tools"))
        opening = self.user.reset(self.task.get("user_scenario") or {}, seed=user_seed)
        if isinstance(opening, Mapping) and opening.get("tool_calls"):  # the user acts on its phone first
            opening = self._user_turn("", reply=opening)
        else:
            self._messages.append({"role": "user", "content": opening})
            self._count_message()
        self._episode_start = len(self._messages)
        return opening, self._info()

    def _start(self, options: dict | None) -> None:
        """Pick the episode's task (or take the record given), put the world in its start and clear
        the episode's counts."""
        options = dict(options) if isinstance(options, Mapping) else options
        task = options.pop("task_record", None) if isinstance(options, Mapping) else None
        if task is not None:  # a task record of τ²'s format given whole (rescore: the one a results file holds)
            if not isinstance(task, Mapping) or not isinstance(task.get("user_scenario"), Mapping):
                raise ValueError(f"{self.env_id}: reset option 'task_record' must be a τ² task record (an object "
                                 f"with 'id' and 'user_scenario')")
            self.task_id, self.task = str(task.get("id")), copy.deepcopy(dict(task))
        else:
            self.task_id = self._choose_task(options)
            self.task = self.task_data.tasks[self.task_id]
        start_task(self.world, self.task_data.initial_state, self.task)
        self._errors = 0
        self._sent = 0
        self._limit: str | None = None
        self._done = False
        self._final_metrics = None

    def _opening(self) -> list[dict]:
        """The conversation before the user's first word: the policy, the task's history, else τ²'s greeting."""
        messages = [{"role": "system", "content": self._policy()}] + self._history()
        if len(messages) == 1:
            messages.append({"role": "assistant", "content": FIRST_AGENT_MESSAGE})
        return messages

    def _policy(self) -> str:
        """The domain's policy; banking_knowledge's is its retrieval config's prompt (τ³'s ``build_policy``,
        which inlines the task's documents under ``golden_retrieval``)."""
        return self.task_data.policy if self.retrieval is None else self.retrieval.system_prompt(None, self.task)

    def _reset_solo(self):
        """τ³'s solo start: its system prompt with the solo policy and the ticket, the task's history, no
        user; the observation is the ticket."""
        ticket = self.task.get("ticket")
        prompt = SOLO_SYSTEM_PROMPT.format(stop_function_name=SOLO_STOP_TOOL, domain_policy=self.task_data.solo_policy,
                                           ticket=ticket)
        self._messages = [{"role": "system", "content": prompt}] + self._history()
        self._sent = -1  # τ³'s orchestrator sends the solo agent's first message before it counts
        self._episode_start = len(self._messages)
        return (ticket if isinstance(ticket, str) else ""), self._info()

    def _history(self) -> list[dict]:
        history = []
        for message in (self.task.get("initial_state") or {}).get("message_history") or ():
            if message.get("tool_calls"):
                history.append({"role": message["role"], "content": message.get("content"), "tool_calls": [
                    {"id": c.get("id", ""), "type": "function",
                     "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments") or {})}}
                    for c in message["tool_calls"]]})
            else:
                history.append({"role": message["role"], "content": message.get("content"),
                                **({"tool_call_id": message["id"]} if message["role"] == "tool" else {})})
        return history

    def _act(self, action: Any) -> Outcome:
        if self._limit is not None:  # reached by the user's opening: τ² never asks the agent
            return self._end("", self._limit)
        if type(action) is dict and not self.solo_mode and not isinstance(action.get("tool_calls"), list):
            # the usual action, one call as a dict: read as parse_action reads it, without its layers
            call = mapping_call(action)
            if type(call) is tuple:
                return self._continue(self._calls((ToolCall(*call),))[0])
        if isinstance(action, Mapping) and isinstance(action.get("tool_calls"), list) and action["tool_calls"]:
            if self.solo_mode and any(isinstance(call, ToolCall) and call.name == SOLO_STOP_TOOL
                                      for call in map(parse_action, action["tool_calls"])):
                return self._solo_stop()
            return self._continue(self._message_with_calls(action))
        parsed = parse_action(action, self._signatures)
        if self.solo_mode and isinstance(parsed, ToolCall) and parsed.name == SOLO_STOP_TOOL:
            return self._solo_stop()
        if isinstance(parsed, Unparseable) and isinstance(action, str) and action.lstrip().startswith(("{", "[")):
            # Not a tool call: τ²'s agent said it to the user. Still counted as an unreadable
            # action: most such texts are tool calls gone wrong.
            self._note_invalid_action()
            parsed = TextReply(action)
        if isinstance(parsed, TextReply):
            text = parsed.text
            self._messages.append({"role": "assistant", "content": text})
            limit = self._count_message()  # τ²'s limits override the agent's own stop
            if AGENT_STOP in text:
                return self._end("", limit or "agent_stop")
            if self.solo_mode:  # τ³: a solo agent's text that is no stop ends the simulation as an agent error
                return self._end("Error: in solo mode the agent can only make tool calls", limit or "agent_error")
            if limit:  # τ² checks before the user answers
                return self._end("", limit)
            reply = self._user_turn(text)
            if self._limit:
                return self._end(reply, self._limit)
            if is_stop(reply):
                return self._end(reply, "user_stop")
            observation = reply
        elif isinstance(parsed, ToolCall):
            observation = self._call(parsed)
        else:
            self._note_invalid_action()
            observation = f"Error: could not read the tool call: {parsed.error}"
            self._messages.append({"role": "assistant", "content": parsed.text})
            self._messages.append({"role": "user", "content": observation})
            self._count_message()  # the agent's message; toolgym's error stands in for τ²'s user reading it
        return self._continue(observation)

    def _solo_stop(self) -> Outcome:
        """A solo turn with a ``done`` call: τ³ replaces it with ``###STOP###`` and runs none of its calls."""
        self._messages.append({"role": "assistant", "content": AGENT_STOP})
        return self._end("", "agent_stop")

    def _continue(self, observation: str) -> Outcome:
        """The step's result, or the end of the episode at τ²'s limits (:meth:`_count_message`),
        ``max_steps`` actions or ``max_errors`` failed tool calls (τ²-bench's MAX_STEPS and
        TOO_MANY_ERRORS, both scored 0)."""
        if self._limit is not None:
            return self._end(observation, self._limit)
        if self._errors >= self.max_errors:
            return self._end(observation, "too_many_errors")
        if self._steps >= self.max_steps:
            return self._end(observation, "max_steps")
        return Outcome(observation, truncated=False)

    def _count_message(self, checked: bool = True) -> str | None:
        """Count one step of τ²'s orchestrator: a message of the agent or the user, or the results
        of one message's tool calls (one step however many calls). At τ²'s check points (after
        every step but a message of calls, whose results are awaited: ``checked``) its limits end
        the episode: ``max_messages`` steps (MAX_STEPS), then ``max_errors`` failed calls of either
        side (TOO_MANY_ERRORS, which wins when both hold), whatever stop the step made. Returns the
        termination once a limit holds."""
        self._sent += 1
        if checked and self._limit is None:
            if self.max_messages is not None and self._sent >= self.max_messages:
                self._limit = "max_steps"
            if self._errors >= self.max_errors:
                self._limit = "too_many_errors"
        return self._limit

    def _user_turn(self, message: str, reply: Any = None) -> str:
        """The user's answer to ``message`` (or its ``reply`` already given): its tool calls on its
        own device (dual control), each result handed back to it, until it writes text (at most
        ``MAX_USER_CALLS`` calls)."""
        for _ in range(MAX_USER_CALLS):
            if reply is None:
                reply = self.user.respond(message, [dict(m) for m in self._messages])
            if isinstance(reply, Mapping) and isinstance(reply.get("tool_calls"), list) and reply["tool_calls"]:
                calls = [parse_action(call) for call in reply["tool_calls"]]
                if all(isinstance(call, ToolCall) for call in calls):  # a whole turn of the user's (τ²'s shape)
                    ids = [call.get("id") if isinstance(call, Mapping) else None for call in reply["tool_calls"]]
                    content = reply.get("content")
                    message = "\n".join(self._calls(calls, "user", content if isinstance(content, str) and content
                                                    else None, ids))
                    if self._limit:
                        return message
                    reply = None
                    continue
            call = parse_action(reply) if isinstance(reply, Mapping) else None
            if not isinstance(call, ToolCall):
                text = reply if isinstance(reply, str) else json.dumps(reply, default=str)
                self._messages.append({"role": "user", "content": text})
                self._count_message()
                return text
            message = self._call(call, requestor="user")
            if self._limit:
                return message
            reply = None
        text = "I have to go now. ###STOP###"  # a user that only calls tools hangs up
        self._messages.append({"role": "user", "content": text})
        self._count_message()
        return text

    def _refuse(self, error: str) -> Outcome:
        observation = f"Error: {error}"
        self._messages.append({"role": "user", "content": observation})
        self._count_message()
        return self._continue(observation)

    def _message_with_calls(self, message: Mapping) -> str:
        """An agent turn in τ²'s ``AssistantMessage`` shape (OpenAI's): its text, kept in the
        conversation as the agent's words, and its tool calls, run in order. The observation is
        each call's result, one per line."""
        calls = [parse_action(call) for call in message["tool_calls"]]
        bad = next((call for call in calls if not isinstance(call, ToolCall)), None)
        if bad is not None:
            self._note_invalid_action()
            return self._refuse_turn(message, f"could not read the tool call: {bad.error}")
        content = message.get("content")
        # the model's own call ids stay in the conversation, as τ² keeps them
        ids = [call.get("id") if isinstance(call, Mapping) else None for call in message["tool_calls"]]
        return "\n".join(self._calls(calls, content=content if isinstance(content, str) and content else None,
                                      ids=ids))

    def _refuse_turn(self, message: Mapping, error: str) -> str:
        observation = f"Error: {error}"
        self._messages.append({"role": "assistant", "content": json.dumps(message, default=str)[:10_000]})
        self._messages.append({"role": "user", "content": observation})
        self._count_message()
        return observation

    def _call(self, call: ToolCall, requestor: str = "assistant") -> str:
        """Run a tool call of the agent or (dual control) the user, then sync the two sides."""
        return self._calls([call], requestor)[0]

    def _calls(self, calls: list[ToolCall], requestor: str = "assistant", content: str | None = None,
               ids: list | None = None) -> list[str]:
        """Run one message's tool calls of the agent or (dual control) the user, each followed by a
        sync of the two sides; the message keeps its text (``content``) as τ²'s does, and each
        call its ``ids`` entry where that is a short text (else toolgym numbers it)."""
        first_id = len(self._messages)
        no_tools = requestor == "user" and self.user_tools is None
        solo_user_tools, world = self._solo_user_tools, self.world
        tool_calls, replies = [], []
        for i, call in enumerate(calls):
            if no_tools:
                result = ToolResult(name=call.name, arguments={}, error="User tools not available", known=False)
            else:  # solo: the user's tools are the agent's too (τ³'s environment routes them by name)
                result = call_tool(world, "user" if call.name in solo_user_tools else requestor, call.name,
                                   call.arguments, sync=True)
            try:
                arguments = _write_json(result.arguments)
            except (TypeError, ValueError):
                arguments = json.dumps(result.arguments, default=str)
            given = ids[i] if ids and i < len(ids) else None
            call_id = given if isinstance(given, str) and 0 < len(given) <= MAX_CALL_ID_CHARS else \
                f"call_{first_id}_{i}" if i else f"call_{first_id}"
            tool_calls.append({"id": call_id, "type": "function",
                               "function": {"name": result.name, "arguments": arguments}})
            if result.error is not None:
                self._errors += 1
                observation = f"Error: {result.error}"
            elif isinstance(result.response, str):
                observation = result.response
            else:
                observation = _write_json(result.response)
            replies.append({"role": "tool", "tool_call_id": call_id, "name": result.name, "content": observation,
                            "requestor": requestor})
        self._messages += [{"role": requestor, "content": content, "tool_calls": tool_calls}, *replies]
        # the message of calls and their results: τ² awaits the results before it checks its limits
        self._sent += 1
        self._count_message()
        return [reply["content"] for reply in replies]

    def _end(self, observation: str, termination: str) -> Outcome:
        """End the episode for ``termination`` (user_stop, agent_stop, max_steps, too_many_errors) and grade it."""
        self._grade(termination)
        truncated = termination == "max_steps"
        return Outcome(observation, terminated=not truncated, truncated=truncated,
                       progress=float(self._final_metrics["reward"]))

    def _grade(self, termination: str) -> None:
        trajectory = self._messages[1:]
        stopped = termination in ("user_stop", "agent_stop")
        db_match = stopped and self.world.state_hash() == self._gold_hash()
        self._final_metrics = grade(self.task, trajectory, stopped, db_match, self._run_assertion, self.judge,
                                    compat=self.scoring == "paper_compat")
        self._final_metrics["termination"] = termination

    def _metrics(self) -> dict:
        if self._final_metrics is None:  # truncated from outside (gym.make's max_episode_steps)
            self._grade("max_steps")
        return self._final_metrics

    def _end_info(self) -> dict:
        return {"trajectory": [dict(m) for m in self._messages[1:]]}  # both sides, as graded

    def _step_info(self, turn: Any, observation: str) -> dict:
        return self._info()  # the conversation is kept in self._messages

    def _gold_hash(self) -> str:
        """The hash of the database the ground-truth actions produce from the task's start.

        The gold run happens on the env's own world, after the episode's final hash has been
        taken (``_end`` compares first): the episode is over, so nothing reads the world again.
        """
        key = self._gold_key()
        if key not in self._gold_hashes:
            final = self.world.snapshot()
            start_task(self.world, self.task_data.initial_state, self.task)
            for action in (self.task.get("evaluation_criteria") or {}).get("actions") or ():
                # τ²-bench runs the ground truth without syncing between its actions
                call_tool(self.world, action.get("requestor", "assistant"), action["name"],
                          action.get("arguments") or {}, sync=False)
            self._gold_hashes[key] = self.world.state_hash()
            self.world.restore(final)
        return self._gold_hashes[key]

    def _gold_key(self) -> str:
        """The gold hash's cache key: the task's id, or for a task given whole (reset option
        ``task_record``), which may differ from the set's task of its id, the record itself."""
        if self.task_data.tasks.get(self.task_id) is self.task:
            return self.task_id
        return "given:" + json.dumps(self.task, sort_keys=True, default=str)

    def _run_assertion(self, assertion: dict) -> bool:
        try:
            value = run_function(self.world, assertion.get("env_type", "assistant"), assertion["func_name"],
                                 assertion.get("arguments"))
        except Exception:  # noqa: BLE001 - τ²-bench counts an assertion that raises as not met
            return False
        return value == assertion.get("assert_value", True)

    def _info(self) -> dict:
        # what stays the same through the episode is gathered once per task (a step's info cost a tenth
        # of τ²'s whole call): a template in info's key order (the base keys and the tools, the
        # conversation, the domain and the steps, the rest), copied and its two changing keys set
        template = self.__dict__.get("_info_template")
        if template is None or template[0] is not self.task:
            tail = {}
            if self.retrieval is not None:  # the tools as τ³ offers them depend on the retrieval config
                tail.update(retrieval_config=self.retrieval_config, wire_tools=self._wire_tools)
            if self.solo_mode:
                tail.update(solo_mode=True, ticket=self.task.get("ticket"))
            template = self._info_template = (self.task, {**self.base_info(self.task_id), "tools": self.tools,
                                                          "messages": None, "domain": self.domain, "steps": None,
                                                          **tail})
        info = template[1].copy()
        info["messages"] = self._agent_view()
        info["steps"] = self._steps
        return info

    def _agent_view(self) -> list[dict]:
        """The conversation as the agent sees it: the user's own tool calls and their results stay
        on the user's side, as in τ²-bench. Each message is copied once, when it is new (an
        episode's conversation only grows), and the copies are shared by the episode's ``info``s:
        copying the whole conversation at every step cost more than a read tool."""
        messages = self._messages
        view = self.__dict__.get("_view")
        if view is None or view[0] is not messages:  # a new episode's conversation
            view = (messages, 0, [])
        _, seen, copies = view
        copies += [dict(m) for m in messages[seen:] if m.get("requestor") != "user"
                   and not (m["role"] == "user" and m.get("tool_calls"))]
        self._view = (messages, len(messages), copies)
        return list(copies)

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """The next ground-truth action, then one message with every fact to communicate (solo mode:
        every action the agent's own, then ``done``)."""
        criteria = self.task.get("evaluation_criteria") or {}
        actions = criteria.get("actions") or []
        episode = self._messages[self._episode_start:]
        calls = sum(1 for m in episode if m.get("tool_calls"))
        if calls < len(actions):
            action = actions[calls]
            call = {"name": action["name"], "arguments": copy.deepcopy(action.get("arguments") or {})}
            if action.get("requestor", "assistant") == "user" and not self.solo_mode:  # the user does it on its phone
                return f"{USER_ACTION_PREFIX} {json.dumps(call)}"
            return call
        if self.solo_mode:
            return {"name": SOLO_STOP_TOOL, "arguments": {}}
        if not any(m["role"] == "assistant" and m.get("content") and not m["content"].startswith(USER_ACTION_PREFIX)
                   for m in episode):
            infos = criteria.get("communicate_info") or []
            return ("Done. " + "; ".join(infos)) if infos else "Done. Is there anything else?"
        return AGENT_STOP

    def render(self):
        if self.render_mode == "ansi":
            return "\n".join(f"{m['role']}: {m.get('content') or json.dumps(m.get('tool_calls'))}"
                             for m in self._messages)
        return None


def _task_user_tools(tools: list[dict] | None, names: list | None) -> list[dict] | None:
    """τ³'s ``get_user_tools(include=task.user_tools)``: every tool when the task lists none (None),
    else those it names; no tools at all is None (τ³'s user then reads the guidelines without tools)."""
    chosen = [t for t in tools or () if names is None or t["function"]["name"] in names]
    return chosen or None


def _retrieval(env_id: str, domain: str, config: str | None, task_data):
    """banking_knowledge's retrieval config (``DEFAULT_RETRIEVAL_CONFIG`` when None) built over the task
    source's knowledge base; None in the other domains, which take no config."""
    if domain != BANK:
        if config is not None:
            raise ValueError(f"{env_id}: retrieval_config is banking_knowledge's (τ³'s --retrieval-config), "
                             f"not {domain}'s")
        return None
    from toolgym.worlds.tau2.banking_knowledge.knowledge import DEFAULT_RETRIEVAL_CONFIG, build_retrieval
    try:
        return build_retrieval(DEFAULT_RETRIEVAL_CONFIG if config is None else config, task_data.knowledge,
                               prompts_dir=task_data.prompts_dir)
    except ValueError as error:  # RetrievalUnavailable (an API or a missing extra) or an unknown name
        raise ValueError(f"{env_id}: {error}") from None


def _make_judge(judge: Any):
    if judge is None or not isinstance(judge, str):
        return judge
    kind, _, arg = judge.partition(":")
    from toolgym.llm import make_backend
    return make_backend(kind, arg)
