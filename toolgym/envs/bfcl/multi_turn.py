"""BFCL's multi-turn tasks, and an episode graded turn by turn as BFCL's multi-turn checker grades.

A task is a conversation of user turns over one or more of BFCL's stateful APIs
(:mod:`toolgym.worlds.bfcl`). :class:`MultiTurnEpisode` keeps two worlds made from the
task's ``initial_config`` (each a :class:`~toolgym.worlds.bfcl.world.BfclWorld`, the APIs'
state in its SQLite tables): the model's, which :meth:`MultiTurnEpisode.execute` runs calls on,
and the ground truth's, which plays the turn's ground-truth calls when the turn ends. A turn
then passes when

- ``empty_turn``: the ground truth has calls and the model made at least one call;
- ``state``: every involved API's public state equals the ground truth's;
- ``response``: every result the ground truth's calls gave is among the model's results
  (as a multiset, in any order);
- ``irrelevance``: a turn whose ground truth is empty has no model call.

A turn whose ground truth is empty is checked only for irrelevance; its calls still run, so
later turns see their effects. ``success`` is 1 when every turn passes; the episode's first
failing turn and check are in :meth:`MultiTurnEpisode.metrics`.

Scoring ``paper`` against ``paper_compat`` (BFCL's released checker, multi_turn_checker.py):

1. Irrelevance: ``paper`` fails a call in a turn whose ground truth is empty (the leaderboard's
   documented rule, ``multi_turn_irrelevance_checker``); the released runner never calls that
   checker, so ``paper_compat`` judges such a call only by its effect on later turns.
2. Response check: ``paper`` looks for the ground truth's results among the model's results of
   the same turn; ``paper_compat`` among the model's results of every turn so far, as the
   released checker does (a result the model got in an earlier turn counts again).
3. Held-out functions (``miss_func``): one released ground truth calls its held-out function
   in the turn before the function is revealed. Under both scorings a call runs whenever the
   function belongs to an involved API, offered or not (BFCL's executor does not look at the
   offered docs), so that ground truth plays, and a model calling an unrevealed function is
   graded on its effects.
4. Ground-truth calls with positional arguments (``sort('final_report.pdf')``, 152 in the
   released data) are bound to the method's parameters in order, as Python would.
5. A call that raises: under ``paper`` it leaves the world as it was; under ``paper_compat`` it
   keeps what it changed before raising, as BFCL's classes do (``set_navigation(destination=1)``
   sets the destination, then fails). The result text is BFCL's under both.
6. BFCL's ``post_tweet`` shares one default list among all tweets posted without ``tags`` or
   ``mentions`` (so ``mention`` on one extends them all, across instances); under both scorings
   each tweet gets its own list (see :mod:`toolgym.worlds.bfcl.posting_api`).
7. Bounded work (both scorings): arguments nesting deeper than 32 levels, holding more than
   10,000 values, integers outside 64 bits or non-finite floats are refused before the call;
   MathAPI refuses precisions above 10,000 digits and integer powers too long to print (BFCL
   computes them, however long that takes). Sums are bounded too: a step's and a turn's calls
   and work units (:data:`MAX_CALLS_PER_STEP` and the others; :meth:`MultiTurnEpisode.start_step`
   starts a step), the world's bytes after a call (``MAX_WORLD_BYTES``, a call past it undone
   under both scorings), and walks of the file tree run without recursion (see
   :class:`toolgym.envs.bfcl.env.BFCLEnv`).

``success`` is 1 only when every turn passes; ``failing_turn`` and ``failing_check`` name the
first failure (where BFCL's checker stops); later turns are still graded and counted in
``turns_passed``. Checked against BFCL's released ``multi_turn_checker`` and API classes on
the 800 official tasks with oracle and perturbed answers (dropped, changed, extra, swapped and
irrelevant calls): every ``paper_compat`` verdict and failing check agrees.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from pathlib import Path

from toolgym.envs.common.official import read_jsonl
from toolgym.worlds.base import WorkBudget, charge
from toolgym.worlds.bfcl.api import call_work, run_call
from toolgym.worlds.bfcl.apis import API_CLASSES, DOC_FILES, make_instances, release_instances
from toolgym.worlds.bfcl.calls import CallSyntaxError, parse_calls

#: BFCL's limit on model steps within one user turn (model_handler's MAXIMUM_STEP_LIMIT).
MAXIMUM_STEP_LIMIT = 20
MULTI_TURN_CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                         "multi_turn_long_context")
SCORINGS = ("paper", "paper_compat")
#: What the model's calls may spend in one step and in one turn (BFCL sets no such limits). The
#: official ground truths make at most 34 calls in a turn and ask precisions of at most 10 digits.
MAX_CALLS_PER_STEP = 200
MAX_CALLS_PER_TURN = 1_000
MAX_WORK_PER_STEP = 50_000
MAX_WORK_PER_TURN = 200_000
#: A result costs a work unit per this many characters, counted after its call: the results of a
#: step are its observation and every result stays in the conversation (``cat`` of a 99 KB file
#: 200 times would be 20 MB a step). A step's results then hold about 5 MB at most, a turn's 20 MB.
RESULT_CHARACTERS_PER_WORK_UNIT = 100


def budget_refusal(reason: str) -> str:
    """The result of a call refused by the step's or the turn's budget (:data:`MAX_CALLS_PER_STEP`...)."""
    return f"Error during execution: the call did not run: {reason} is over toolgym's budget"


@dataclass(frozen=True)
class MultiTurnTask:
    id: str
    category: str
    turns: list[list[dict]]
    involved_classes: list[str]
    initial_config: dict
    ground_truth: list[list[str]]
    missed_functions: dict[int, list[str]]
    functions: list[dict]
    long_context: bool
    #: The docs of the held-back functions, revealed at their turn (missed_functions' names).
    held_out_docs: dict[int, list[dict]] = field(default_factory=dict)


def _function_docs(folder: Path, involved: list[str]) -> list[dict]:
    docs = []
    for name in involved:
        path = folder / "multi_turn_func_doc" / f"{DOC_FILES[name]}.json"
        docs += [record for _, record in read_jsonl(path)]
    return docs


def load_multi_turn_tasks(folder: Path, category: str) -> list[MultiTurnTask]:
    """BFCL's ``BFCL_v4_<category>.json`` with its ground truth, in BFCL's released layout."""
    if category not in MULTI_TURN_CATEGORIES:
        raise ValueError(f"not a multi-turn category: {category!r}")
    folder = Path(folder)
    answers = {}
    for _, record in read_jsonl(folder / "possible_answer" / f"BFCL_v4_{category}.json"):
        answers[record["id"]] = record["ground_truth"]
    tasks = []
    for _, entry in read_jsonl(folder / f"BFCL_v4_{category}.json"):
        involved = list(entry["involved_classes"])
        missed = {int(turn): list(names) for turn, names in entry.get("missed_function", {}).items()}
        held_back = {name for names in missed.values() for name in names}
        docs = _function_docs(folder, involved)
        # BFCL offers every function of the involved APIs: its loader never reads the entry's
        # excluded_function. Held-out docs come back in the order the entry names them, as BFCL's do.
        offered = [doc for doc in docs if doc["name"] not in held_back]
        by_name: dict[str, dict] = {}
        for doc in docs:
            by_name.setdefault(doc["name"], doc)
        held_out_docs = {turn: [by_name[name] for name in names if name in by_name] for turn, names in missed.items()}
        tasks.append(MultiTurnTask(
            id=entry["id"], category=category, turns=entry["question"], involved_classes=involved,
            initial_config=entry.get("initial_config", {}), ground_truth=answers[entry["id"]],
            missed_functions=missed, functions=offered, long_context="long_context" in category,
            held_out_docs=held_out_docs))
    return tasks


def parse_ground_truth_call(text: str, involved_classes: list[str]) -> tuple[str, dict]:
    """One ground-truth call string as ``(name, arguments)``; positional values bound by name."""
    try:
        (call,) = parse_calls(text, drop_positional=False)  # BFCL runs its ground truth as written
        return call
    except CallSyntaxError:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise
        name = node.func.id
        method = next((getattr(API_CLASSES[c], name) for c in reversed(involved_classes)
                       if name in API_CLASSES[c].function_names()), None)
        if method is None:
            raise
        parameters = [p for p in inspect.signature(method).parameters if p != "self"]
        arguments = dict(zip(parameters, (ast.literal_eval(a) for a in node.args)))
        arguments.update({k.arg: ast.literal_eval(k.value) for k in node.keywords})
        return name, arguments


class MultiTurnEpisode:
    """One task played turn by turn; see the module docstring for the checks."""

    def __init__(self, task: MultiTurnTask, scoring: str = "paper"):
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
        missing = [name for name in task.involved_classes if name not in API_CLASSES]
        if missing:
            raise NotImplementedError(f"BFCL APIs not implemented yet: {', '.join(missing)}")
        self.task = task
        self.scoring = scoring
        self.turn = 0
        self.done = not task.turns
        self._model = make_instances(task.involved_classes, task.initial_config, task.long_context)
        self._truth = make_instances(task.involved_classes, task.initial_config, task.long_context)
        self._turn_results: list[str] = []
        self._all_results: list[str] = []
        self._step_budget = WorkBudget("step", MAX_CALLS_PER_STEP, MAX_WORK_PER_STEP)
        self._turn_budget = WorkBudget("turn", MAX_CALLS_PER_TURN, MAX_WORK_PER_TURN)
        self._grades: list[dict] = []
        self._functions = list(task.functions)
        self._reveal()

    def close(self) -> None:
        """Hand the episode's worlds back for later episodes (:func:`release_instances`); the
        episode must not be used after."""
        for instances in (self._model, self._truth):
            release_instances(instances)
        self._model = self._truth = {}
        self.done = True

    def functions(self) -> list[dict]:
        """The docs offered now (the episode's own list: read it, never change it; asked at every step)."""
        return self._functions

    def user_messages(self) -> list[dict]:
        return list(self.task.turns[self.turn]) if not self.done else []

    def _reveal(self) -> None:
        offered = {doc["name"] for doc in self._functions}
        self._functions += [doc for doc in self.task.held_out_docs.get(self.turn, [])
                            if doc["name"] not in offered]

    def start_step(self) -> None:
        """A new model step: its calls spend a fresh step budget (the turn's goes on)."""
        self._step_budget.start()

    def execute(self, name: str, arguments: dict) -> str:
        if self.done:
            raise RuntimeError("the episode has ended")
        refused = charge((self._step_budget, self._turn_budget), call_work(self._model, name, arguments))
        if refused is not None:
            result = budget_refusal(refused)
        else:
            result = run_call(self._model, name, arguments, rollback=self.scoring == "paper")
            for budget in (self._step_budget, self._turn_budget):
                budget.spend(len(result) // RESULT_CHARACTERS_PER_WORK_UNIT)
        self._turn_results.append(result)
        self._all_results.append(result)
        return result

    def oracle_calls(self) -> list[tuple[str, dict]]:
        if self.done:
            return []
        return [parse_ground_truth_call(text, self.task.involved_classes)
                for text in self.task.ground_truth[self.turn]]

    def end_turn(self) -> dict:
        if self.done:
            raise RuntimeError("the episode has ended")
        rollback = self.scoring == "paper"
        truth_results = [run_call(self._truth, name, args, rollback=rollback) for name, args in self.oracle_calls()]
        grade = self._grade(truth_results)
        self._grades.append(grade)
        self._turn_results = []
        self._step_budget.start()
        self._turn_budget.start()
        self.turn += 1
        self.done = self.turn >= len(self.task.turns)
        if not self.done:
            self._reveal()
        return grade

    def _grade(self, truth_results: list[str]) -> dict:
        index = self.turn
        grade = {"turn": index, "passed": True, "check": None, "detail": ""}
        made_calls = bool(self._turn_results)
        if not self.task.ground_truth[index]:
            if made_calls and self.scoring == "paper":
                grade.update(passed=False, check="irrelevance",
                             detail=f"Model outputs valid function calls when it should not for turn {index}.")
            return grade
        if not made_calls:
            grade.update(passed=False, check="empty_turn", detail=f"Model response list is empty for turn {index}")
            return grade
        for name, truth in self._truth.items():
            model_state, truth_state = self._model[name].state(), truth.state()
            differences = {key: {"model": model_state.get(key), "ground_truth": value}
                           for key, value in truth_state.items() if model_state.get(key) != value}
            if differences:
                grade.update(passed=False, check="state", detail=(
                    f"Model instance for {name} does not match the state with ground truth instance. "
                    f"Differences in: {', '.join(sorted(differences))}"))
                return grade
        pool = list(self._all_results if self.scoring == "paper_compat" else self._turn_results)
        missing = []
        for result in truth_results:
            try:
                pool.remove(result)
            except ValueError:
                missing.append(result)
        if missing:
            grade.update(passed=False, check="response", detail=(
                f"Model response execution results so far does not contain all the ground truth "
                f"response execution results for turn {index}. Missing: {missing!r}"[:2000]))
        return grade

    def metrics(self) -> dict:
        failing = next((g for g in self._grades if not g["passed"]), None)
        turns = len(self.task.turns)
        passed = sum(g["passed"] for g in self._grades)
        return {"success": int(self.done and failing is None), "turns_passed": passed, "turns": turns,
                "failing_turn": failing["turn"] if failing else None,
                "failing_check": failing["check"] if failing else None,
                "failing_detail": failing["detail"] if failing else None}


def builtin_multi_turn_tasks(seed: int = 0) -> list[MultiTurnTask]:
    """Seeded tasks over the implemented APIs, with ground-truth calls; see builtin_tasks."""
    from toolgym.worlds.bfcl.builtin_tasks import generate_tasks

    return [MultiTurnTask(**record) for record in generate_tasks(seed)]
