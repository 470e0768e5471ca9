"""VirtualHome-v0: household action programs, scored as the paper does and executed in a symbolic home."""

from __future__ import annotations

import json
from typing import Any

from toolgym.envs.common.actions import ToolCall, Unparseable, extract_program, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.toolbench_prompt import prompt_info
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.virtualhome.tasks import CORPUS_LAYOUT, TOOLBENCH_LAYOUT, Activity, derive_goal, load_official
from toolgym.worlds.interpreter import Interpreter, ProgramError
from toolgym.worlds.virtualhome.program import (
    MAX_PROGRAM_CHARS, Line, ObjectNames, best_lcs, compat_ground_line, lcs_score, profile, program_lines, read_line,
)
from toolgym.worlds.virtualhome.tasks import builtin_tasks, execute
from toolgym.worlds.virtualhome.tools import HomeTools
from toolgym.worlds.virtualhome.vocabulary import ACTIONS, argument_names, valid_object_lists
from toolgym.worlds.virtualhome.world import PreconditionFailed, VirtualHomeWorld

PROGRAM, STEP = "program", "step"
DONE = "done"
GOAL = ("Your goal is to write the program of a household activity for a robot in a home: one action per line, "
        "Agent.<Action>(<object>) with the objects written as single words (home_office, remote_control).")

class VirtualHomeEnv(ToolEnv):
    """
    ## Description
    The VirtualHome task of the SambaNova ToolBench (Xu et al. 2023, "On the Tool Manipulation
    Capability of Open-source Large Language Models", appendix A.6), built on the
    language-planner corpus (Huang et al. 2022) of VirtualHome (Puig et al. 2018): given a
    household activity ("Read book"), the agent writes its action program, one
    ``Agent.<Action>(<object>)`` per line, over the 40 actions of the task. Beyond the paper,
    the program really runs in a symbolic home (``toolgym.worlds.virtualhome``: rooms, objects
    with VirtualHome's properties, states and relations, the agent's room, posture, hands and
    what it is close to, in SQLite), where each action checks its preconditions and applies its
    effects, and the activity's goal predicates are checked on the final state.

    ## Action Space
    A string. Mode ``"program"`` (default): the whole program, or a model's raw completion from
    which it is taken as the released ToolBench evaluator does (``extract_program``: the first
    fenced block, else the text after an ``Action:`` cue; reading stops at a ``Task:`` line).
    Mode ``"step"``: one action per step, as a line or as a tool call
    (``{"name": "WalkTo", "arguments": {"object": "kitchen"}}``, also a dict); ``done`` ends the
    episode. Lines are cleaned as the released evaluator does (quotes and semicolons removed, a
    leading ``3. `` numbering dropped, blank lines skipped) and VirtualHome script lines
    ``[Walk] <sofa> (1)`` are read as ``Agent.WalkTo(sofa)``. Each line is parsed by toolgym's
    interpreter with the ``Agent`` profile (one call, object names as arguments); nothing is
    evaluated.

    ## Observation Space
    A string. At reset: ``Task: <activity>``. After an action: what it changed, or which
    precondition failed and why (``the novel is inside the closed bookshelf; Open it first``);
    in program mode one such line per action and the first failure.

    ## Rewards
    The paper's metrics, per program: ``executable`` (every line is one of the 40 actions with
    its arity and a valid object for each argument; an empty program is not), ``lcs`` (longest
    common subsequence of lines with a solution, divided by the longer length, best over the
    activity's solutions) and ``lcs_if_executable`` (``lcs`` when executable, else 0; the table's
    "LCS (executable)" sums it over executable programs only, as the paper reports). Beyond the
    paper: ``preconditions_ok`` (every line ran with its preconditions holding), ``first_failure``
    (``{"line", "text", "reason"}`` or None), ``has_goal``, ``goal_success`` (the goal predicates
    hold at the end; 0 without a goal check) and ``success`` (0/1: ``goal_success`` for a task
    with a goal check; without one, from the paper's metrics: the program is executable and
    matches one of the activity's solutions line for line, ``lcs`` 1). The return is ``lcs`` under ``scoring="paper"`` and
    ``"paper_compat"``, ``goal_success`` under ``scoring="goal"``; in step mode each step's reward
    is the change of that metric since the previous step, so the rewards sum to it.

    ``scoring="paper_compat"`` reproduces the released evaluator line for line: a line is
    executable when the text before its first ``(`` is a key of the object lists and the text
    in its first ``(...)``, split on commas, holds listed objects (an empty list only for actions
    that take none); script lines are not executable; an empty program is executable; lines are
    compared as cleaned text (``Agent.Put(a,b)`` differs from ``Agent.Put(a, b)``), and a line
    such as ``Agent.WalkTo(kitchen) Agent.Find(cup)`` counts as the first call. ``"paper"`` parses
    each line, compares canonical ``Agent.X(a, b)`` forms and calls an empty program not
    executable.

    ## Starting State
    A seeded home (``world_seed``) with every object of the vocabulary: movable things lie in
    seeded rooms, in or on furniture, some appliances unplugged, some dishes dirty, some
    containers open; the agent stands in a seeded room. Every reset restores it.

    ## Episode End
    Program mode: after the program. Step mode: on ``done`` (terminated) or after ``max_steps``
    actions (truncated). A program runs until its first failing line (as VirtualHome's
    executor stops); in step mode a failing action changes nothing and the episode goes on.

    ## Arguments
    - ``tasks``: ``"built-in"`` (default): activities toolgym writes over its home (100 test
      activities and a demonstration pool, each with goal predicates and at least two
      solutions, every solution executed to prove it reaches the goal). ``"official"``: the
      ToolBench file of ``{"prompt", "completion": [...]}`` records (``sambanova/virtual_home/
      *.jsonl``) or language-planner's ``virtualhome/available_examples.json``; activities whose
      solutions duplicate another's are dropped (those linked by a shared program keep the
      first in file order: 204 -> 183), then a shuffle seeded by ``split_seed`` (0) takes 100
      test activities and leaves the rest, with their solutions, as demonstrations. Task ids are
      the titles as written. The valid objects are a ``valid_object_lists*.json`` file beside
      the programs if there is one, else rebuilt from every program of the corpus (each
      object seen in each argument of each action). Official tasks get a goal check when every
      object they name is in the home and at least one solution runs there: the goal is what
      every such solution achieves (facts that become true, but not where the agent stands).
    - ``mode``: ``"program"`` (default) or ``"step"``; ``scoring``: ``"paper"``,
      ``"paper_compat"``, ``"goal"``.
    - ``world_seed`` (0): the home, the built-in activities and their split; ``num_test`` (100);
      ``num_demos`` (3, BM25-retrieved demonstrations in the prompt); ``max_steps`` (50);
      ``split_seed`` (0, official split).

    ## Version History
    - v0: initial release.
    """

    env_id = "VirtualHome-v0"
    splits = {"built-in": (), "official": ()}
    scorings = ("paper", "paper_compat", "goal")
    modes = (PROGRAM, STEP)
    table_columns = (Column("Executable", "mean", ("executable",)), Column("LCS", "mean", ("lcs",)),
                     Column("LCS (executable)", "ratio", ("lcs_if_executable", "executable")),
                     Column("Preconditions ok", "mean", ("preconditions_ok",)),
                     Column("Goal success", "ratio", ("goal_success", "has_goal")))
    max_action_chars = MAX_PROGRAM_CHARS
    prompt_format, action_format = "toolbench", "program"  # the LLM agents' defaults: Figure 5 prompt, extract_program
    action_hint = "an action program, one Agent.<Action>(<object>) per line (step mode: one action, then done)"
    finish_hint = "program mode: the program is the episode; step mode: type done after the last action"

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 world_seed: int = 0, num_test: int = 100, num_demos: int = 3, max_steps: int = 50,
                 split_seed: int = 0):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        for name, value, low in (("world_seed", world_seed, 0), ("num_test", num_test, 1), ("num_demos", num_demos, 0),
                                 ("max_steps", max_steps, 1), ("split_seed", split_seed, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{self.env_id}: {name} must be an integer >= {low}, got {value!r}")
        self.world_seed, self.num_demos, self.max_steps = world_seed, num_demos, max_steps
        self.world = VirtualHomeWorld(seed=world_seed)
        self.home_tools = HomeTools(self.world)
        self._initial = self.world.snapshot()
        if tasks == "built-in":
            task_set = builtin_tasks(world_seed, num_test)
            self.activities = {a.title: Activity(a.title, a.solutions, a.goal) for a in task_set.test}
            self.demo_pool = task_set.demo_pool()
            self.valid = _BUILTIN_VALID
        else:
            official = load_official(self.env_id, data_dir, num_test, split_seed)
            self.activities, self.demo_pool, self.valid = official.activities, official.demo_pool, official.valid
            self.official_folder = official.folder
        self.profile = _PROFILE
        self._labels: dict[str, list[list[str]]] = {}
        self._goals: dict[str, tuple | None] = {}
        self.api_docs = _API_DOCS
        self.tools = HomeTools.schemas()
        self._prompts: dict[str, dict] = {}
        self.task_id = None
        self._done = True

    def official_goal(self, title: str) -> tuple | None:
        """The goal check of an official activity (see the class docstring), or None."""
        if title not in self._goals:
            self._goals[title] = derive_goal(self.world, self._initial, self.activities[title].solutions, self.valid,
                                             self.profile)
        return self._goals[title]

    # -- tasks -----------------------------------------------------------------------------
    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (TOOLBENCH_LAYOUT, CORPUS_LAYOUT)}

    def task_ids(self) -> list[str]:
        return list(self.activities)

    def task_records(self) -> dict:
        return self.activities

    def _goal(self, title: str) -> tuple | None:
        activity = self.activities[title]
        return activity.goal if self.task_set == "built-in" else self.official_goal(title)

    def _task_labels(self, title: str) -> list[list[str]]:
        """The lines of a task's solutions as the LCS compares them, read when the task is first scored:
        reading every task's solutions at make would cost more than the rest of make."""
        if title not in self._labels:
            self._labels[title] = self._label_lines(self.activities[title].solutions)
        return self._labels[title]

    def _label_lines(self, solutions: tuple[str, ...]) -> list[list[str]]:
        if self.scoring == "paper_compat":
            return [program_lines(s) for s in solutions]
        return [[read_line(line, self.valid, self.profile).canonical for line in program_lines(s)] for s in solutions]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        self.world.restore(self._initial)
        self.goal = self._goal(self.task_id)
        self.interpreter = Interpreter(self.profile, namespaces={"Agent": self.home_tools.agent})
        self.interpreter.variables = ObjectNames()
        self._lines: list[Line] = []
        self._raw: list[str] = []
        self._first_failure: dict | None = None
        self._stopped = False
        self._done = False
        self._oracle_lines: list[str] | None = None
        self._observation = f"Task: {self.task_id}"
        return self._observation, self._with_history(self._info())

    def _act(self, action: Any) -> Outcome:
        terminated = False
        if self.mode == PROGRAM:
            if isinstance(action, str):
                program = extract_program(action)
                self._observation = self._run_lines(program_lines(program), program)
            else:
                self._note_invalid_action()
                self._observation = self._not_read(f"the program must be text, got {type(action).__name__}")
            terminated = True
        else:
            line = self._step_line(action)
            if line is None:
                self._observation = "Done."
                terminated = True
            elif isinstance(line, Unparseable):
                self._note_invalid_action()
                self._observation = self._not_read(line.error)
            else:
                self._observation = self._run_lines([line], line)
        return Outcome(self._observation, terminated=terminated, progress=self._metric())

    def _refuse(self, error: str) -> Outcome:
        self._observation = self._not_read(error)
        return Outcome(self._observation, terminated=self.mode == PROGRAM, progress=self._metric())

    def _metric(self) -> float:
        """The reward's metric so far: goal success (scoring ``goal``) or the LCS similarity."""
        metrics = self._metrics()
        return float(metrics["goal_success"] if self.scoring == "goal" else metrics["lcs"])

    def _not_read(self, error: str) -> str:
        """An action that is no program line: it counts as one non-executable line."""
        self._raw.append("")
        self._lines.append(Line("", None, (), error))
        if self._first_failure is None:
            self._first_failure = {"line": len(self._lines), "text": "", "reason": error}
        if self.mode == PROGRAM:
            self._stopped = True
        return f"Error: {error}"

    def _step_line(self, action: Any) -> str | Unparseable | None:
        """The line of a step-mode action; None for ``done``."""
        if isinstance(action, str) and action.strip().rstrip(".").lower() in (DONE, ""):
            return None
        if isinstance(action, dict) or (isinstance(action, str) and action.lstrip().startswith(("{", "["))):
            call = parse_action(action)
            if isinstance(call, Unparseable):
                return call
            if not isinstance(call, ToolCall) or not isinstance(call.arguments, dict):
                return Unparseable(str(action)[:200], "a tool call names an action and its object arguments")
            values = [call.arguments.get(key) for key in sorted(call.arguments)]
            if not all(isinstance(v, str) for v in values) or not isinstance(call.name, str):
                return Unparseable(str(action)[:200], "the arguments of an action are object names")
            return f"Agent.{call.name}({', '.join(values)})"
        if not isinstance(action, str):
            return Unparseable(repr(action)[:200], f"an action is text or a tool call, not {type(action).__name__}")
        lines = program_lines(action)
        if len(lines) != 1:
            return Unparseable(action[:200], f"the step mode takes one action per step, got {len(lines)} lines")
        return lines[0]

    def _run_lines(self, lines: list[str], program: str) -> str:
        """Read, ground and (until the first failure) execute each line; the observation."""
        if not lines and self.mode == PROGRAM:
            self._note_invalid_action()
            return "Error: the program has no action."
        out = []
        unread = False  # an action (a program, or a step's line) with a line that could not be read
        for raw in lines:
            line = read_line(raw, self.valid, self.profile)
            unread = unread or line.error is not None
            self._raw.append(raw)
            self._lines.append(line)
            number = len(self._lines)
            if self._stopped:
                continue
            reason = line.error
            if reason is None:
                try:
                    [message] = self.interpreter.run(line.text)
                    out.append(f"{line.canonical}: {message}")
                    continue
                except PreconditionFailed as exc:
                    reason = str(exc)
                except ProgramError as exc:
                    reason = str(exc)
            if self._first_failure is None:
                self._first_failure = {"line": number, "text": raw, "reason": reason}
            out.append(f"{line.canonical}: Error: {reason}")
            if self.mode == PROGRAM:
                self._stopped = True
                out.append(f"The program stopped at line {number}.")
        if unread:
            self._note_invalid_action()
        return "\n".join(out)

    def _metrics(self) -> dict:
        labels = self._task_labels(self.task_id)
        if self.scoring == "paper_compat":
            raw = [r for r in self._raw if r]
            executable = all(compat_ground_line(r, self.valid) for r in raw) and len(raw) == len(self._raw)
            lcs = max((lcs_score(raw, label) for label in labels), default=0.0)
        else:
            executable = bool(self._lines) and all(line.executable for line in self._lines)
            lcs, _ = best_lcs([line.canonical for line in self._lines], labels)
        goal = self.goal
        has_goal = goal is not None
        reached = int(has_goal and set(goal) <= self.world.facts())
        ran_all = bool(self._lines) and self._first_failure is None
        return {"executable": int(executable), "lcs": lcs, "lcs_if_executable": lcs if executable else 0.0,
                "preconditions_ok": int(ran_all), "first_failure": self._first_failure,
                "has_goal": int(has_goal), "goal_success": reached, "success": reached if has_goal else int(executable and lcs >= 1.0),
                "program_lines": len(self._lines)}

    def _info(self) -> dict:
        if self.task_id not in self._prompts:
            solutions = self.activities[self.task_id].solutions
            self._prompts[self.task_id] = prompt_info(GOAL, self.api_docs, self.demo_pool, self.task_id,
                                                      k=self.num_demos, gold=solutions)
        prompt = self._prompts[self.task_id]
        return {**self.base_info(self.task_id), "query": self.task_id, "tools": self.tools,
                "messages": [dict(m) for m in prompt["messages"]], "prompt": json.loads(json.dumps(prompt)),
                "goal": [list(f) for f in self.goal] if self.goal else None}

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """A solution (one that reaches the goal when the task has one): the whole program, or
        its next line and then ``done``."""
        if self._oracle_lines is None:
            self._oracle_lines = program_lines(self._oracle_solution())
        if self.mode == PROGRAM:
            return "\n".join(self._oracle_lines)
        done = len(self._lines)
        return self._oracle_lines[done] if done < len(self._oracle_lines) else DONE

    def _oracle_solution(self) -> str:
        solutions = self.activities[self.task_id].solutions
        if self.goal is None or self.task_set == "built-in":
            return solutions[0]
        saved = self.world.snapshot()
        try:
            for program in solutions:
                self.world.restore(self._initial)
                if execute(self.world, "\n".join(program_lines(program))) is None and set(self.goal) <= self.world.facts():
                    return program
            return solutions[0]
        finally:
            self.world.restore(saved)

    def render(self):
        if self.render_mode == "ansi":
            program = "\n".join(line.canonical for line in self._lines)
            return f"Task: {self.task_id}\n{program}\n-> {self._observation}"
        return None


# Pure functions of the vocabulary, built once rather than at every make. Every built-in env
# shares the object lists, read-only: the grounding caches its sets by the lists' identity, so
# one shared dict also keeps that cache from growing with every make.
_BUILTIN_VALID = valid_object_lists()
_PROFILE = profile(ACTIONS)
_API_DOCS = "\n".join(f"Agent.{s.name}({', '.join(argument_names(s.arity))})\n    {s.doc}"
                      for s in ACTIONS.values()) + "\n"
