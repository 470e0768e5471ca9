"""Tabletop-v0: Code-as-Policies programs drive a simulated UR5e (SambaNova ToolBench, appendix A.8)."""

from __future__ import annotations

import ast
import copy
from typing import Any

from toolgym.envs.common.actions import Unparseable, extract_program, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column
from toolgym.worlds.interpreter import Interpreter, ProgramError, preview
from toolgym.worlds.tabletop.tasks import TabletopTask, builtin_tasks, oracle_plan, plan_calls

SINGLE_STEP, MULTI_STEP = "single_step", "multi_step"
DONE = "done"
EXAMPLE = """objects = ['yellow block', 'green block', 'blue bowl']
# put the blocks in the blue bowl.
block_names = [name for name in get_obj_names() if 'block' in name]
for block_name in block_names:
    put_first_on_second(block_name, 'blue bowl')"""


class TabletopEnv(ToolEnv):
    """
    ## Description
    The tabletop task of the SambaNova ToolBench (Xu et al. 2023, "On the Tool Manipulation
    Capability of Open-source Large Language Models", appendix A.8), built on Code as Policies
    (Liang et al. 2023): a UR5e arm with a Robotiq 2F-85 gripper (the ``airo-models`` URDFs)
    picks and places 4 cm blocks and bowls of ten colors on a table simulated with PyBullet.
    The agent writes a short program in the Code-as-Policies style against a perception-and-
    action API; the program runs in toolgym's own interpreter (``toolgym.worlds.interpreter``,
    profile ``code_as_policies``) over a whitelisted AST: no imports, no attribute access, no
    dunder names; budgets on steps, on the deep size of every value and on the work of
    comparisons, sorting and conversions to text, all checked before the work is done; never
    ``eval``/``exec``.

    The 15 task types follow Code as Policies' 14 instruction templates (template 1 is split
    into "on a block" and "in a bowl"): pick and place; stack all blocks; all blocks on a
    corner or side; blocks in a bowl; blocks in bowls with matching colors; the block to the
    left/right/above/below a bowl to a position; the block closest/farthest to a bowl; the
    nth block from a side; blocks in different corners; blocks in bowls with mismatched
    colors; stack on a corner or side; a block a little / a lot to a direction of a bowl; a
    block in the corner closest to a bowl; blocks in a horizontal/vertical/diagonal line.

    ## Action Space
    A string. Mode ``"single_step"`` (default): the whole program, or a model's raw completion
    from which the program is taken as the released ToolBench evaluator does (the first fenced
    code block, else the text after an ``Action:`` cue, cut at a line starting with ``Task:``;
    ``toolgym.envs.common.actions.extract_program``). Mode ``"multi_step"``: one statement per step
    (typically one API call; variables persist between steps), or a JSON tool call
    (``{"name": "put_first_on_second", "arguments": {"obj": ..., "target": ...}}``, also as a
    dict), which is the statement ``put_first_on_second(obj=..., target=...)``; and the text
    ``done`` to finish. API (``info["tools"]`` has its schemas): ``get_obj_names()``, ``get_obj_pos(name)``,
    ``is_obj_visible(name)``, ``parse_position(description)``, ``get_corner_name(pos)``,
    ``get_side_name(pos)``, ``denormalize_xy(pos)``, ``put_first_on_second(obj, target)``,
    ``say(message)``, and the builtins len, range, min, max, abs, round, sum, sorted, list,
    str, int, float, bool, enumerate, zip, reversed. Forbidden constructs, unknown objects,
    wrong types and runaway loops end with an error observation; nothing raises. In multi step a
    statement that fails is undone: the objects, the arm and the variables are as before it (the
    PyBullet state is saved before each statement and restored on error). A single-step program
    keeps the moves made before its error, as the released evaluator's does.

    ## Observation Space
    A string. At reset, as in the paper's prompt: ``objects = [...]`` and ``# <instruction>.``
    After a step: what the robot did, what the program said, the error if any, and the final
    object positions (multi step: the value of an expression statement, else ``None``;
    values are shown up to 2000 characters). ``info["api_docs"]`` documents the API,
    ``info["tools"]`` has its OpenAI function schemas (from the functions' signatures and
    docstrings) and ``info["messages"]`` holds a system prompt with the docs and an example.
    ``render_mode="rgb_array"`` gives a top-down camera image; ``"ansi"`` the text.

    ## Rewards
    Paper metric: **success**, 1 when every object the instruction concerns ends within a
    threshold of its target after execution (on a named position or relative point: xy
    distance < 0.06 m; in a bowl: xy < 0.06 m and above its floor; on a block: xy < 0.04 m and
    above it; plus the stack, line, region (0.1 m around a corner or side), distinct-corner and
    mismatched-bowl checks). Each step's reward is the change of success (checked on the
    current positions) since the previous step, so the return equals the final success.
    ``info["metrics"]``: ``success``, ``program_ran`` (the program ran without error),
    ``pick_places`` and ``task_type``.
    Scoring ``"paper"`` is the only scoring (there is no released evaluator to be compatible with).

    ## Starting State
    The task's seeded setup (up to 4 blocks and 4 bowls, at least 0.15 m apart), settled under
    physics, the arm parked near its base. Every reset reloads the objects (table and robot stay
    loaded and take no part in contacts), so a task ends the same way after any history, in any
    process.

    ## Episode End
    Single step: after the program. Multi step: on ``done`` (terminated) or after
    ``max_steps`` statements (truncated); the metrics are computed either way.

    ## Arguments
    - ``tasks``: ``"built-in"`` only; ToolBench releases no tabletop test file (its episodes
      are generated from the templates, as here).
    - ``split``: ``"seen"`` or ``"unseen"`` attributes (colors and corners/sides as in Code as
      Policies); ``None`` for both. Default set: 15 types x ``setups_per_type`` (7) = 105.
    - ``mode``: ``"single_step"`` (default) or ``"multi_step"``.
    - ``task_seed`` (0): other seeds give other setups; ``setups_per_type`` (7).
    - ``max_steps`` (30, multi step), ``max_pick_places`` (20 per episode).
    - ``table_rows``: ``"split"`` (default: seen / unseen rows in ``toolgym eval``'s table, and
      ``info["split"]``) or ``"task_type"`` (one row per task type).

    ## Version History
    - v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    env_id = "Tabletop-v0"
    splits = {"built-in": ("seen", "unseen"), "official": ()}
    scorings = ("paper",)
    modes = (SINGLE_STEP, MULTI_STEP)
    finish_hint = "single_step: the program is the episode; multi_step: type done when the blocks are placed"
    table_columns = (Column("Success", "mean", ("success",)), Column("Program ran", "mean", ("program_ran",)))
    max_action_chars = 20_000  # a program; the interpreter refuses longer ones too

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 task_seed: int = 0, setups_per_type: int = 7, max_steps: int = 30, max_pick_places: int = 20,
                 table_rows: str = "split"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if tasks == "official":
            raise ValueError("Tabletop-v0: ToolBench releases no tabletop task file; its episodes are generated "
                             "from Code as Policies' templates, as tasks='built-in' does")
        if setups_per_type < 1 or max_steps < 1 or max_pick_places < 1:
            raise ValueError("Tabletop-v0: setups_per_type, max_steps and max_pick_places must be >= 1")
        if table_rows not in ("split", "task_type"):
            raise ValueError(f"Tabletop-v0: table_rows must be 'split' or 'task_type', got {table_rows!r}")
        self.table_rows = table_rows
        from toolgym.worlds.tabletop.world import API_FUNCTIONS, PROFILE, TabletopWorld, api_docs  # pybullet loads here

        self.max_steps = max_steps
        self.tasks = {t.task_id: t for t in builtin_tasks(setups_per_type, task_seed)
                      if split is None or t.split == split}
        self.world = TabletopWorld(max_pick_places=max_pick_places)
        self.api_docs = api_docs()
        self.profile = PROFILE
        self.tools = TabletopWorld.schemas(API_FUNCTIONS)
        self.task: TabletopTask | None = None

    # -- tasks -----------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def task_split(self, task_id: str) -> str:
        task = self.tasks[task_id]
        return task.task_type if self.table_rows == "task_type" else task.split

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task = self.tasks[self._choose_task(options)]
        self.world.reset(self.task)
        self.interpreter = Interpreter(self.profile, functions=self.world.functions())
        self._errors: list[str] = []
        self._program: list[str] = []
        self._done = False
        self._oracle_calls: list[str] | None = None
        self._observation = f"objects = {self.task.object_names!r}\n# {self.task.instruction}."
        return self._observation, self._with_history(self._info())

    def _act(self, action: Any) -> Outcome:
        terminated = False
        if self.mode == SINGLE_STEP:
            self._observation = self._run(action)
            terminated = True
        elif isinstance(action, str) and action.strip().rstrip(".").lower() == DONE:
            self._observation = "Done."
            terminated = True
        else:
            self._observation = self._run_statement(action)
        # The reward is the change of success since the last step, so the return is the final success.
        return Outcome(self._observation, terminated=terminated, progress=int(self.world.success()))

    def _refuse(self, error: str) -> Outcome:
        # A program that could not be read: an error like a program that does not parse; the world is unchanged.
        self._errors.append(error)
        self._observation = f"Error: {error}"
        return Outcome(self._observation, terminated=self.mode == SINGLE_STEP)

    def _metrics(self) -> dict:
        return {"success": int(self._progress), "program_ran": int(not self._errors),
                "pick_places": self.world.sim.pick_place_count, "task_type": self.task.task_type}

    def _end_info(self) -> dict:
        return {"error": self._errors[0] if self._errors else None}

    def _run(self, program: Any) -> str:
        self.world.log, self.world.said = [], []
        error = None
        if isinstance(program, str):
            program = extract_program(program)  # a raw completion: fences, an Action: cue, a next Task:
        try:
            checked = self.interpreter.check(program)
        except ProgramError as exc:  # not read: nothing ran
            checked, error = None, str(exc)
            self._note_invalid_action()
        if checked is not None:
            try:
                self.interpreter.run(checked)
            except ProgramError as exc:
                error = str(exc)
        if error is not None:
            self._errors.append(error)
        if isinstance(program, str):
            self._program.append(program)
        parts = [f"Robot: {line}" for line in self.world.log] + [f"Said: {line}" for line in self.world.said]
        parts.append(f"Error: {error}" if error else "The program ran without error.")
        positions = {name: [round(v, 3) for v in xyz[:2]] for name, xyz in self.world.positions().items()}
        parts.append(f"Object positions: {positions}")
        return "\n".join(parts)

    def _run_statement(self, action: Any) -> str:
        try:
            program = self.interpreter.check(self._statement_text(action))
        except ProgramError as exc:
            self._note_invalid_action()
            self._errors.append(str(exc))
            return f"Error: {exc}"
        if len(program.statements) != 1:
            self._note_invalid_action()
            error = f"the multi-step mode takes one statement per step, got {len(program.statements)}"
            self._errors.append(error)
            return f"Error: {error}"
        self.world.log, self.world.said = [], []
        variables = copy.deepcopy(self.interpreter.variables)  # plain values: numbers, text, lists, dicts
        try:
            with self.world.sim.undone_on_error():  # a failed statement leaves no move behind
                [value] = self.interpreter.run(program)
        except ProgramError as exc:
            self.interpreter.variables = variables  # nor any name
            self._errors.append(str(exc))
            return f"Error: {exc}"
        self._program.append(program.source)
        shown = value if isinstance(program.statements[0].node, ast.Expr) else None
        return "\n".join([*self.world.log, *self.world.said, preview(shown)])

    def _statement_text(self, action: Any) -> Any:
        """A multi-step action as program text: a JSON tool call (a dict or a JSON object) becomes
        the statement ``name(key=value, ...)``; a ``name(...)`` call already is one."""
        if not (isinstance(action, dict) or (isinstance(action, str) and action.lstrip().startswith("{"))):
            return action
        call = parse_action(action)
        if isinstance(call, Unparseable):
            raise ProgramError(call.error)
        return self.world.call_source(call.name, call.arguments)

    def _info(self) -> dict:
        system = ("You control a robot arm over a table through this Python API; write a program in the style "
                  f"of the example.\n{self.api_docs}\n\nExample:\n{EXAMPLE}")
        return {**self.base_info(self.task.task_id), "task_type": self.task.task_type,
                "instruction": self.task.instruction, "objects": self.task.object_names,
                "api_docs": self.api_docs, "tools": self.tools,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": self._observation}]}

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """A program solving the task, planned from the current object positions (single step),
        or its next call, then ``done`` (multi step)."""
        if self.task is None:
            raise RuntimeError(f"{self.env_id}: call reset() before oracle_action()")
        if self.mode == SINGLE_STEP:
            return "\n".join(plan_calls(oracle_plan(self.task, self.world.positions()), self.task.object_names))
        if self._oracle_calls is None:
            self._oracle_calls = plan_calls(oracle_plan(self.task, self.world.positions()), self.task.object_names)
        done = len(self._program)
        return self._oracle_calls[done] if done < len(self._oracle_calls) else DONE

    def render(self):
        if self.render_mode == "rgb_array":
            return self.world.render()
        if self.render_mode == "ansi":
            program = "\n".join(self._program)
            return f"{self._observation}\nProgram:\n{program}" if self._program else self._observation
        return None
