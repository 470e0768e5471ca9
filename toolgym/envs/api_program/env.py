"""HomeSearch-v0 and TripBooking-v0: programs of API calls (SambaNova ToolBench, Xu et al. 2023)."""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass
from typing import Any, ClassVar
from collections.abc import Callable

from toolgym.envs.common.actions import ToolCall, Unparseable, extract_program, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.official import OfficialDataError, OfficialLayout, read_jsonl, require_key, toolbench_layout
from toolgym.envs.common.metrics import Column, safe_div
from toolgym.envs.common.toolbench_prompt import prompt_info
from toolgym.worlds.demos import Demo
from toolgym.worlds.homesearch import HomeSearchAPI, HomeSearchWorld
from toolgym.worlds.homesearch import tasks as homesearch_tasks
from toolgym.worlds.interpreter import Interpreter, Profile, Program, ProgramError, Statement, check, preview
from toolgym.worlds.tripbooking import TripBookingAPI, TripBookingWorld
from toolgym.worlds.tripbooking import tasks as tripbooking_tasks

SINGLE_STEP, MULTI_STEP = "single_step", "multi_step"
# Added to the goal in mode multi_step, whose demonstrations are turns (info["prompt"]["demos"][i]["turns"]).
MULTI_STEP_RULE = ("Write one statement per turn: each one is run and its result shown to you before the next. "
                   "API.search() submits the search and ends the task.")


@dataclass(frozen=True)
class ProgramTask:
    """A query and its ground-truth programs (the original keeps a list; the best F1 counts)."""

    query: str
    programs: tuple[str, ...]


@dataclass
class Judgement:
    """The paper's metrics of one program, with the reason it is not executable."""

    executable: bool
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    draft_f1: float = 0.0  # F1 of the criteria the program set itself (search()'s defaults left out)
    error: str | None = None

    @property
    def success(self) -> bool:
        return self.executable and self.f1 == 1

    @property
    def stated_f1(self) -> float:
        """``draft_f1`` of a program that was submitted (executable), else 0."""
        return self.draft_f1 if self.executable else 0.0

    def metrics(self, num_statements: int) -> dict:
        return {"executable": int(self.executable), "success": int(self.success), "f1": self.f1,
                "precision": self.precision, "recall": self.recall, "stated_f1": self.stated_f1,
                "draft_f1": self.draft_f1, "num_statements": num_statements}


def criteria_f1(predicted: dict, label: dict) -> tuple[float, float, float]:
    """Precision, recall and F1 of the criteria: a criterion counts when its value is ``==``."""
    if not predicted:
        return 0.0, 0.0, 0.0
    overlap = sum(1 for k, v in predicted.items() if k in label and v == label[k])
    precision, recall = overlap / len(predicted), safe_div(overlap, len(label))
    f1 = safe_div(2 * precision * recall, precision + recall)
    return precision, recall, f1


def stated_criteria(criteria: dict, defaults: dict) -> dict:
    """The criteria a program set itself: those that ``search()`` filled in left out."""
    return {key: value for key, value in criteria.items() if not (key in defaults and defaults[key] == value)}


def api_call_names(program: str, profile: Profile) -> list[str]:
    """The API functions and helpers a program calls, in the order they run."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:  # arguments run before their call
        for child in ast.iter_child_nodes(node):
            visit(child)
        if isinstance(node, ast.Call):
            names.append(node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)

    for statement in check(program, profile).statements:
        visit(statement.node)
    return names


class ApiProgramEnv(ToolEnv):
    """Shared base of the ToolBench tasks whose action is a program of API calls."""

    scorings = ("paper", "paper_compat")
    modes = (SINGLE_STEP, MULTI_STEP)
    splits = {"built-in": (), "official": ()}
    table_columns = (
        Column("Success", "mean", ("success",)),
        Column("Executable", "mean", ("executable",)),
        Column("F1", "mean", ("f1",)),
        Column("Precision", "mean", ("precision",)),
        Column("Recall", "mean", ("recall",)),
    )
    world_class: ClassVar[type]
    max_action_chars: ClassVar[int] = 20_000  # a program; the interpreter refuses longer ones too
    api_class: ClassVar[type]
    official_subdir: ClassVar[str]
    goal: ClassVar[str]
    builtin_tasks: ClassVar[Callable[[int], list[tuple[str, str]]]]
    builtin_demos: ClassVar[Callable[[int], list[tuple[str, str]]]]

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 world_seed: int = 0, num_demos: int = 3, max_steps: int = 50, db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if num_demos < 0 or max_steps < 1:
            raise ValueError(f"{self.env_id}: num_demos must be >= 0 and max_steps >= 1")
        self.num_demos = num_demos
        self.max_steps = max_steps
        if tasks == "official":
            layout, = self.read_layouts()
            folder = layout.locate(self.env_id, data_dir)
            path = folder / "test.jsonl"
            self.tasks = {str(n - 1): _official_task(record, f"{path}:{n}") for n, record in read_jsonl(path)}
            layout.check_not_empty(self.env_id, folder, len(self.tasks))
        else:
            self.tasks = {str(n): ProgramTask(q, (p,))
                          for n, (q, p) in enumerate(type(self).builtin_tasks(world_seed))}
        # The official release has no demonstrations for these two tasks: both task sets use ours.
        self.demo_pool = [Demo(q, p) for q, p in type(self).builtin_demos(world_seed)]
        self.functions = tuple(self.api_class.specs)
        self.profile = self.api_class.profile()
        # parameter names in order, for positional arguments of a Name(...) tool call
        self._signatures = {name: list(spec.parameters) for name, spec in self.api_class.specs.items()}
        self.api_docs = self.api_class.api_docs()
        self.tools = self.api_class.schemas()
        self.world = self.world_class(url=db_url, seed=world_seed)
        self._initial = self.world.snapshot()
        self._labels: dict[str, list[dict]] = {}
        self._stated_labels: dict[str, list[dict]] = {}
        self._prompts: dict[str, dict] = {}
        self.task_id: str | None = None
        self._done = True

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        subdir = getattr(cls, "official_subdir", None)  # None: the shared base, not an env
        return {"": (toolbench_layout(subdir),)} if subdir else {}

    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def api_call_sequences(self) -> dict[str, list[list[str]]]:
        """The API calls of every test task's first ground truth and of every demonstration."""
        return {"tests": [api_call_names(t.programs[0], self.profile) for t in self.tasks.values()],
                "demos": [api_call_names(d.action, self.profile) for d in self.demo_pool]}

    def label_criteria(self, task_id: str) -> list[dict]:
        """The criteria each ground-truth program of the task ends with (computed once, with the
        criteria each one set itself)."""
        if task_id not in self._labels:
            labels, stated = [], []
            for program in self.tasks[task_id].programs:
                self.world.restore(self._initial)
                _, error = self._run(self._new_interpreter(), program)
                if error is not None:
                    raise ValueError(f"{self.env_id}: ground truth of task {task_id} does not run: {error}")
                labels.append(dict(self.world.aux["criteria"]))
                stated.append(stated_criteria(self.world.aux["criteria"], self.world.aux["defaults"]))
            self.world.restore(self._initial)
            self._labels[task_id], self._stated_labels[task_id] = labels, stated
        return self._labels[task_id]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        self.label_criteria(self.task_id)
        self.world.restore(self._initial)
        self._statements: list[Statement] = []
        self.interpreter = self._new_interpreter()
        self._done = False
        self._observation = self.tasks[self.task_id].query
        return self._observation, self._with_history(self._info())

    def _act(self, action: Any) -> Outcome:
        if self.mode == SINGLE_STEP:
            judgement, observation = self._single_step(action)
            terminated = True
        else:
            judgement, observation, terminated = self._multi_step(action)
        return self._outcome(judgement, observation, terminated, error_only_if_shown=True)

    def _refuse(self, error: str) -> Outcome:
        # An action that could not be read is an error step, as a program that does not parse is.
        if self.mode == SINGLE_STEP:
            judgement, terminated = Judgement(False, error=error), True
        else:
            judgement, terminated = self._failed_statement(error)[0], False
        outcome = self._outcome(judgement, f"Error: {error}", terminated, error_only_if_shown=False)
        outcome.info["error"] = error
        return outcome

    def _outcome(self, judgement: Judgement, observation: str, terminated: bool,
                 error_only_if_shown: bool) -> Outcome:
        self._judgement = judgement
        self._observation = observation
        info = {"error": judgement.error} if error_only_if_shown and observation.startswith("Error:") else {}
        return Outcome(observation, terminated=terminated, progress=int(judgement.success), info=info)

    def _metrics(self) -> dict:
        return self._judgement.metrics(len(self._statements))

    def _end_info(self) -> dict:
        return {"error": self._judgement.error}

    def _failed_statement(self, error: str) -> tuple[Judgement, str, bool]:
        """Multi step: a statement that was refused or failed changed nothing; the episode goes on
        (the shared rule of every step mode, see :mod:`toolgym.worlds.interpreter`)."""
        judgement = self._judge(self._statements)
        judgement.error = error
        return judgement, f"Error: {error}", False

    def _single_step(self, action: Any) -> tuple[Judgement, str]:
        try:
            program = self.interpreter.check(extract_program(action) if isinstance(action, str) else action)
        except ProgramError as exc:
            self._note_invalid_action()
            return Judgement(False, error=str(exc)), f"Error: {exc}"
        self._statements = list(program.statements)
        output, error = self._run(self.interpreter, program)
        if error is not None:
            self.world.restore(self._initial)
            return Judgement(False, error=error), f"Error: {error}"
        judgement = self._judge(self._statements)
        return judgement, self._describe_outcome(self._statements, output, judgement)

    def _multi_step(self, action: Any) -> tuple[Judgement, str, bool]:
        if isinstance(action, str) and not action.strip():  # an empty action submits the program so far
            judgement = self._judge(self._statements)
            return judgement, " ".join(filter(None, ["Submitted.", judgement.error])), True
        try:
            program = self.interpreter.check(self._statement_text(action))
            if len(program.statements) != 1:
                raise ProgramError(f"mode 'multi_step' takes one statement per step, got {len(program.statements)}")
        except ProgramError as exc:
            self._note_invalid_action()
            return self._failed_statement(str(exc))
        before = self.world.snapshot()
        variables = dict(self.interpreter.variables)
        output, error = self._run(self.interpreter, program)
        if error is not None:
            self.world.restore(before)
            self.interpreter.variables = variables
            return self._failed_statement(error)
        self._statements += program.statements
        statement = program.statements[0]
        judgement = self._judge(self._statements)
        return judgement, _statement_observation(statement, output[0]), _is_search(statement)

    def _statement_text(self, action: Any) -> Any:
        """A multi-step action as program text: a JSON tool call (a dict or a JSON object) or a
        ``name(key=value)`` call of an API function becomes the statement ``API.name(...)``."""
        if isinstance(action, str) and not action.lstrip().startswith("{"):
            call = parse_action(action, self._signatures)
            if isinstance(call, ToolCall) and call.name in self.functions:
                return self.api_class.call_source(call.name, call.arguments)
            return action
        if not isinstance(action, (str, dict)):
            return action  # the interpreter says what a program must be
        call = parse_action(action)
        if isinstance(call, Unparseable):
            raise ProgramError(call.error)
        return self.api_class.call_source(call.name, call.arguments)

    def _new_interpreter(self) -> Interpreter:
        return Interpreter(self.profile, namespaces={"API": self.world.api.invoke})

    def _run(self, interpreter: Interpreter, program: Program | str) -> tuple[list, str | None]:
        """Run a program on the world: the value of each statement, or the error of the first that fails."""
        try:
            return interpreter.run(program), None
        except ProgramError as exc:
            return [], str(exc)

    def _judge(self, statements: list[Statement]) -> Judgement:
        """Score the criteria the statements (already run) left, against the ground truth."""
        criteria = self.world.aux["criteria"]
        stated = stated_criteria(criteria, self.world.aux["defaults"])
        draft_f1 = max(criteria_f1(stated, label)[2] for label in self._stated_labels[self.task_id])
        if self.scoring == "paper":
            calls = [s for s in statements if _api_call(s) is not None]
            if not calls or not _is_search(calls[-1]):
                return Judgement(False, draft_f1=draft_f1,
                                 error="not executable: the program must end with API.search()")
        best = max((criteria_f1(criteria, label) for label in self._labels[self.task_id]), key=lambda s: s[2])
        return Judgement(True, *best, draft_f1=draft_f1)

    def _describe_outcome(self, statements: list[Statement], output: list, judgement: Judgement) -> str:
        searches = [value for statement, value in zip(statements, output) if _is_search(statement)]
        text = json.dumps(searches[-1], default=str) if searches else "The program ran without calling API.search()."
        return f"{text}\n{judgement.error}" if judgement.error else text

    def _info(self) -> dict:
        task = self.tasks[self.task_id]
        if self.task_id not in self._prompts:
            goal = self.goal if self.mode == SINGLE_STEP else f"{self.goal} {MULTI_STEP_RULE}"
            prompt = prompt_info(goal, self.api_docs, self.demo_pool, task.query, k=self.num_demos,
                                 gold=task.programs)
            if self.mode == MULTI_STEP:
                for demo in prompt["demos"]:
                    demo["turns"] = self._demo_turns(demo["action"])
            self._prompts[self.task_id] = prompt
        prompt = copy.deepcopy(self._prompts[self.task_id])
        return {**self.base_info(self.task_id), "query": task.query, "tools": self.tools,
                "messages": prompt["messages"], "prompt": prompt,
                "criteria": dict(self.world.aux["criteria"])}

    def _demo_turns(self, program: str) -> list[dict]:
        """A demonstration as multi-step turns: each statement and what the env answers it, run
        on a scratch interpreter (the world is put back). The last statement ends the episode,
        so it has no observation."""
        before = self.world.snapshot()
        interpreter = self._new_interpreter()
        turns = []
        try:
            for statement in check(program, self.profile).statements:
                output, error = self._run(interpreter, statement.source)
                observation = f"Error: {error}" if error is not None else _statement_observation(statement, output[0])
                turns.append({"action": statement.source, "observation": observation})
        finally:
            self.world.restore(before)
        if turns:
            turns[-1]["observation"] = None
        return turns

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The ground-truth program (single step) or its next statement (multi step)."""
        if self.task_id is None:
            raise RuntimeError(f"{self.env_id}: call reset() before oracle_action()")
        program = self.tasks[self.task_id].programs[0]
        if self.mode == SINGLE_STEP:
            return program
        statements = check(program, self.profile).statements
        done = len(self._statements)
        return statements[done].source if done < len(statements) else ""

    def render(self):
        if self.render_mode == "ansi":
            program = "\n".join(s.source for s in self._statements)
            return f"Task: {self.tasks[self.task_id].query}\nProgram:\n{program}\n-> {self._observation}"
        return None


def _statement_observation(statement: Statement, value: Any) -> str:
    """What mode multi_step answers a statement that ran: the search results, an assignment's
    value, or an API call's response."""
    if _is_search(statement):
        return json.dumps(value, default=str)
    if _api_call(statement) is None and isinstance(statement.node, ast.Assign):
        targets = " = ".join(ast.unparse(target) for target in statement.node.targets)
        return f"{targets} = {preview(value)}"
    return json.dumps({"response": value}, default=str)


def _api_call(statement: Statement) -> ast.Call | None:
    """The API call a statement makes (``API.f(...)`` or ``x = API.f(...)``), if any."""
    value = getattr(statement.node, "value", None)
    return value if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else None


def _is_search(statement: Statement) -> bool:
    call = _api_call(statement)
    return call is not None and call.func.attr == "search"


def _official_task(record: Any, where: str) -> ProgramTask:
    """A task from a ``test.jsonl`` record; ``where`` ("file:line") names it in errors."""
    query = require_key(record, "prompt", where)
    completion = require_key(record, "completion", where)
    programs = tuple(completion if isinstance(completion, list) else [completion])
    if not programs or not all(isinstance(p, str) for p in programs):
        raise OfficialDataError(f"{where}: 'completion' must be a program or a list of programs")
    return ProgramTask(query, programs)


_DOC_COMMON = """
    ## Action Space
    Mode ``"single_step"`` (default): a string, the whole program, one statement per line, in
    the paper's syntax (``API.<function>(...)`` calls, ``name = Loc(...)`` / ``Date(m, d, y)``
    assignments), or a model's raw completion from which the program is taken as the released
    evaluator does (the first fenced code block, else the text after an ``Action:`` cue, cut
    at a line starting with ``Task:``; ``toolgym.envs.common.actions.extract_program``). Mode
    ``"multi_step"``: one statement per step, or one tool call, which is the statement
    ``API.name(**arguments)``: JSON (``{"name": "set_location", "arguments": {"value":
    "Boston"}}``, also as a dict) or ``name(key=value)`` with literal values. In a JSON call a
    ``Loc`` parameter is the city name (``"Ontario"`` -> ``Loc('Ontario')``) and a ``Date``
    parameter an object ``{"month": 12, "day": 19, "year": 2022}`` (-> ``Date(month=12,
    day=19, year=2022)``), as ``info["tools"]`` says. An empty string submits the program so
    far. Programs are run by toolgym's interpreter (``toolgym.worlds.interpreter``, profile
    ``api_calls``) over a whitelist (literals, integers within signed 64 bits, assigned
    names, lists, ``Loc``/``Date``; values of at most 10,000 items counted through nesting
    and aliases); anything else (imports, attribute access outside ``API``, dunders,
    operators) is rejected with a plain, line-numbered error and leaves the world unchanged.
    Nothing is ever passed to ``eval``/``exec``.

    ## Observation Space
    A string: at reset the user's query; after the program (or after ``search()``) the search
    results as JSON (the count and the first results from the database); after an error, the
    error. ``info["prompt"]`` holds the paper's prompt material (Figure 5 system prompt with the
    goal, the API documentation and ``num_demos`` BM25-retrieved demonstrations) and
    ``info["messages"]`` the system and ``Task: ... Action:`` messages built from it;
    ``info["tools"]`` the API as function schemas; ``info["criteria"]`` the criteria set so far.
    In mode ``"multi_step"`` the goal adds the one-statement-per-turn rule and each
    demonstration also has ``turns``: its statements with what this mode answers each (run on
    a scratch copy of the world), which the ``toolbench`` prompt format sends as chat turns.

    ## Rewards
    Paper metric: **success rate** (the program is executable and its criteria F1 is 1). The
    reward is the increment of success on the program so far, so the return equals success.
    ``info["metrics"]`` at the end: ``executable``, ``success``, ``f1`` (criteria F1; also
    ``precision``, ``recall``) and ``num_statements``. A criterion counts when its key is in
    the ground truth's criteria and the values are ``==`` (``3 == 3.0``, ``"3" != 3``); the
    criteria include the defaults that ``search()`` fills in. With several ground truths the
    best F1 counts, as in the original. Not a paper metric: ``stated_f1``, the same F1 over the
    criteria the program set itself, with the defaults that ``search()`` filled in left out of
    both sides. A bare ``API.search()`` earns criteria F1 from those defaults (4/7 on a Home
    Search task with one criterion) and stated F1 0, so ``stated_f1`` is the one to train on;
    with scoring ``"paper"``, on an executable program it is 1 exactly when the program
    succeeds, unless the program writes out a default itself (``set_min_price(0)``), which
    counts as a criterion the user did not state. ``draft_f1`` is the stated F1 of the
    criteria set so far, executable or not (``stated_f1`` is ``draft_f1`` on an executable
    program, else 0): partial credit for a program cut before its search, or one whose last
    call is not ``search()``. A training
    reward without the bare-search shortcut that still pays for submitting:
    ``stated_f1+draft_f1`` (``examples/grpo_toolgym.py --metric``).

    Scoring: ``"paper"`` (default) also requires the program's last API call to be
    ``API.search()`` (the paper's definition: the program submits a search); otherwise it is
    not executable. ``"paper_compat"`` reproduces the released evaluator, which does not
    enforce ``search()``: such a program is executable, and its criteria lack the defaults
    (and, in Trip Booking, the required-call checks) that ``search()`` adds.

    ## Starting State
    The seeded database (``world_seed``) and no criteria set.

    ## Episode End
    Single step: after the program. Multi step: after ``API.search()`` runs or after an empty
    action; truncated after ``max_steps`` steps. A statement that is refused (a syntax error
    too) or fails is an error step: its observation states the error, nothing changed, the
    episode goes on and the step counts (the rule of every step mode,
    :mod:`toolgym.worlds.interpreter`).

    ## Arguments
    - ``tasks``: ``"built-in"`` (default: generated from templates with values drawn from the
      database) or ``"official"`` (the original ``test.jsonl`` from ``data_dir`` or
      ``$TOOLGYM_DATA``; a task's id is its 0-based line number, as a string).
    - ``scoring``: ``"paper"`` or ``"paper_compat"`` (see Rewards).
    - ``mode``: ``"single_step"`` or ``"multi_step"``.
    - ``num_demos``: demonstrations retrieved for the prompt (the paper's 3-shot: 3).
    - ``max_steps``: step limit of mode ``"multi_step"``.
    - ``world_seed``: seed of the database, the built-in tasks and the demonstration pool.
    - ``db_url``: the world database: in-memory SQLite by default, or ``sqlite:///path.db``, built
      once and then only read (see ``World``).

    ## Version History
    - v0: initial version.
    """


class HomeSearchEnv(ApiProgramEnv):
    __doc__ = """
    ## Description
    Home Search from the SambaNova ToolBench (Xu et al. 2023, "On the Tool Manipulation
    Capability of Open-source Large Language Models", appendix A.3): turn a request such as
    "Find a condo for rent in Boston with 2 bedrooms under $3000" into a program of calls to
    the 15 functions of the Home Search API (``set_location``, ``set_buy_or_rent``,
    ``select_home_type``, min/max price, min/max square feet, beds, baths, garages, swimming
    pools, floor number, max commute time, balconies, ``search``). The order rule of the
    original decides executability: ``set_location`` first, then ``set_buy_or_rent``, then the
    other criteria, then ``search()``, which returns matching homes from a seeded listings
    table. Home types are compared case- and order-insensitively; ``buy``/``rent`` are
    lower-case words. The built-in demonstration pool never uses ``set_floor_number``,
    ``set_max_commute_time`` or ``set_num_balconies``, so tasks that need them test unseen
    functions, as in the paper (which holds out three functions from its demonstrations).
    """ + _DOC_COMMON

    env_id = "HomeSearch-v0"
    world_class = HomeSearchWorld
    api_class = HomeSearchAPI
    official_subdir = "home_search"
    goal = ("Your task is to write a program of API calls that searches for homes matching the user's "
            "request. Call API.set_location first, then API.set_buy_or_rent, then the criteria, and end "
            "with API.search().")
    builtin_tasks = staticmethod(homesearch_tasks.builtin_tasks)
    builtin_demos = staticmethod(homesearch_tasks.demo_pool)


class TripBookingEnv(ApiProgramEnv):
    __doc__ = """
    ## Description
    Trip Booking from the SambaNova ToolBench (Xu et al. 2023, appendix A.4): turn a request to
    book trip tickets, hotels or both into a program of calls to the booking API
    (``select_booking_type``, ``select_transportation``, ``set_origin``, ``set_destination``,
    min/max ticket price, adults, children, departure and return dates, hotel location,
    check-in/out dates, rooms, room type, min/max room price, ``search``) and the helpers
    ``Loc(city)`` and ``Date(month, day, year)`` (20 functions). ``select_booking_type`` must
    come first; ``search()`` checks the calls that the booking type requires (trip tickets:
    transportation, origin, destination, departure date; hotels: hotel location, check-in,
    check-out; both: all but the departure date), so a missing required call or a wrong order
    is not executable while a missing optional call is an unsuccessful search. ``search()``
    fills in the defaults (minimum prices 0, one room, trip dates from the hotel dates for
    "both") and returns matching tickets and hotel rooms from seeded tables. ``Date(m, d, y)``
    is stored as the text ``m-d-y`` exactly as written.
    """ + _DOC_COMMON

    env_id = "TripBooking-v0"
    world_class = TripBookingWorld
    api_class = TripBookingAPI
    official_subdir = "booking"
    goal = ("Your task is to write a program of API calls that books trip tickets, hotels or both as the "
            "user requests. Call API.select_booking_type first, use Loc(...) for places and "
            "Date(month, day, year) for dates, and end with API.search().")
    builtin_tasks = staticmethod(tripbooking_tasks.builtin_tasks)
    builtin_demos = staticmethod(tripbooking_tasks.demo_pool)
