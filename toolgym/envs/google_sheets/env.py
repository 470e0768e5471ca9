"""GoogleSheets-v0: spreadsheet programs through the real gspread client (SambaNova ToolBench, appendix A.5)."""

from __future__ import annotations

import copy
import importlib.util
import json
from dataclasses import dataclass
from typing import Any

from toolgym.envs.common.actions import ToolCall, extract_program, parse_action
from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.toolbench_prompt import prompt_info
from toolgym.worlds.demos import Demo
from toolgym.worlds.interpreter import Interpreter, Profile, ProgramError, shorten
from toolgym.worlds.sheets.tasks import CATEGORIES, SheetTask, builtin_tasks, demo_pool
from toolgym.worlds.tools import function_schema

SINGLE_STEP, MULTI_STEP = "single_step", "multi_step"
GOAL = ("Your task is to write a Python program that makes the requested change to a Google Sheets worksheet with "
        "the gspread library (and, if you like, pandas through gspread-dataframe). These names are defined: "
        "sheet (the gspread Spreadsheet), worksheet (its first Worksheet), get_as_dataframe, set_with_dataframe, "
        "pd and np. Write only the program.")
API_DOCS = """sheet: gspread.Spreadsheet -- sheet.add_worksheet(title, rows, cols), sheet.worksheet(title), sheet.worksheets(),
    sheet.del_worksheet(ws), sheet.batch_update({'requests': [...]}) (Sheets API v4 requests, e.g. a pivotTable
    written with updateCells), sheet.values_get(range), sheet.fetch_sheet_metadata()
worksheet: gspread.Worksheet -- get_all_values(), get_all_records(), get(range), row_values(i), col_values(j),
    acell(label), cell(row, col), find(text), update(values, range_name, raw=True), update_acell(label, value),
    update_cell(row, col, value), batch_update([...]), append_row(values), append_rows(rows),
    insert_row(values, index), insert_rows(rows, row), insert_cols(cols, col), delete_rows(start, end=None),
    delete_columns(start, end=None), add_rows(n), add_cols(n), resize(rows, cols), sort((col, 'asc'|'des'), range=...),
    merge_cells(range), unmerge_cells(range), set_basic_filter(range), clear_basic_filter(),
    format(range, {'textFormat': {'bold': True}, 'backgroundColor': {...}, 'numberFormat': {...}, ...}),
    freeze(rows, cols), clear(), update_title(title); attributes title, id, row_count, col_count
get_as_dataframe(worksheet, evaluate_formulas=False, ...) -> pandas.DataFrame of the sheet (empty rows and columns dropped)
set_with_dataframe(worksheet, df, row=1, col=1, include_index=False, include_column_header=True, resize=False)
pd: DataFrame, Series, concat, to_numeric, isna, notna, pivot_table; np: where, round, sum, mean, ..., nan"""
TOOLS = [function_schema(
    "run_program", "Run a Python program (gspread / pandas) on the worksheet. Names defined: sheet, worksheet, "
                   "get_as_dataframe, set_with_dataframe, pd, np.",
    {"program": {"type": "string", "description": "the program"}}, ["program"])]


#: (world seed, spreadsheet, ground-truth program) -> the sheet it leaves; shared by the envs of a process.
_EXPECTED: dict[tuple, "SheetState"] = {}


@dataclass
class SheetState:
    """A spreadsheet as the evaluator reads it: each worksheet's values as a DataFrame
    (``get_as_dataframe(evaluate_formulas=True)``, empty rows and columns dropped) and the
    layout and non-default effective formats of every sheet."""

    values: dict
    formats: dict

    def values_equal(self, other: SheetState) -> bool:
        return list(self.values) == list(other.values) and all(
            self.values[title].equals(other.values[title]) for title in self.values)

    def formats_equal(self, other: SheetState) -> bool:
        return self.formats == other.formats


@dataclass
class Judgement:
    executable: bool
    values_match: bool = False
    format_match: bool = False
    identical: bool = False
    error: str | None = None
    needs_executable: bool = True  # multi-step: failed programs were rolled back; the final sheet decides

    def success(self, scoring: str) -> bool:
        if self.identical:
            return True
        return (self.executable or not self.needs_executable) and self.values_match and (self.format_match or scoring == "paper_compat")

    def metrics(self, scoring: str, programs: int) -> dict:
        return {"success": int(self.success(scoring)), "executable": int(self.executable),
                "values_match": int(self.values_match or self.identical),
                "format_match": int(self.format_match or self.identical), "num_programs": programs}


class GoogleSheetsEnv(ToolEnv):
    """
    ## Description
    The Google Sheets task of the SambaNova ToolBench (Xu et al. 2023, "On the Tool
    Manipulation Capability of Open-source Large Language Models", appendix A.5): the agent
    writes a short program that manipulates a worksheet through the ``gspread`` library (and
    optionally pandas via ``gspread-dataframe``): update cells, sort, insert or delete rows and
    columns, merge, filter, format, create pivot tables. The original runs against real Google
    Sheets; toolgym simulates the service (``toolgym.worlds.sheets``: a Sheets API v4 over
    SQLite, with formulas evaluated by the ``formulas`` engine) and mounts it as a ``requests``
    transport adapter on the session of a real ``gspread.Client``, so the program runs through
    the real, unpatched client libraries, with no network and no credentials.

    ## Action Space
    A string. Mode ``"single_step"`` (default): the whole program, or a model's raw completion
    from which it is taken as the released evaluator does (first fenced block, else the text
    after ``Action:``; ``toolgym.envs.common.actions.extract_program``), or the tool call
    ``{"name": "run_program", "arguments": {"program": ...}}`` (a dict or its JSON). Mode
    ``"multi_step"``: a program per step (variables persist), looking at the sheet in between;
    an empty action submits. Programs run in toolgym's interpreter with the profile of
    ``toolgym.worlds.sheets.profile`` (allow-listed methods and attributes of gspread's
    Spreadsheet, Worksheet and Cell, pandas' DataFrame, Series, Index and numpy arrays;
    subscripts, ``.loc``/``.iloc``, masks, augmented assignment; regular expressions run on
    RE2, in linear time, without backreferences or lookaround; no dunders, imports, files,
    network or string-code evaluation; budgets on steps, sizes and API requests). Nothing is passed to ``eval``/``exec``; a refused or failing program changes
    nothing.

    ## Observation Space
    A string: the instruction and the first ``preview_rows`` rows of each worksheet as a table;
    after a program, what it did to the sheet, or its error. ``info["sheet"]`` has every
    worksheet's values (formatted, as ``get_all_values`` returns them); ``info["prompt"]`` and
    ``info["messages"]`` the paper's prompt (Figure 5: goal, API notes, ``num_demos``
    BM25-retrieved demonstrations, ``Task: ... Action:``); ``info["tools"]`` ``run_program``.

    ## Rewards
    Paper metric: **success rate**. The reward is the change of success after each step, so
    the return equals success. ``info["metrics"]`` at the end: ``executable`` (the program ran;
    in multi-step mode, every program ran), ``values_match`` (every worksheet read back as the
    original does, ``get_as_dataframe(evaluate_formulas=True)`` with all-empty rows and columns
    dropped, ``DataFrame.equals`` the ground truth's; the same worksheets), ``format_match``
    (effective format of every cell, merges, basic filter and frozen rows and columns equal),
    ``success`` and ``num_programs``. In multi-step mode a failing program is rolled back and
    only lowers ``executable``: success is that of the submitted sheet. With several ground-truth programs the best match counts.
    A prediction identical to a ground-truth program (surrounding whitespace aside) counts as
    correct without comparing, as in the original. Scoring ``"paper"`` (default): success =
    executable, values and formats match (the paper's text); ``"paper_compat"``: values only
    (the released evaluator's default), so formatting tasks are solved by any program that
    leaves the values alone.

    ## Starting State
    The seeded spreadsheets (``world_seed``) of ``toolgym.worlds.sheets.tasks``: products,
    grades, sales, inventory, employees, expenses; no formats.

    ## Episode End
    Single step: after the program. Multi step: after an empty action; truncated after
    ``max_steps`` programs.

    ## Arguments
    - ``tasks``: ``"built-in"`` only (81 test tasks, 18 demonstrations); the original's test
      sheets are private, so no official data exists.
    - ``split``: a category (``cell_update``, ``sorting``, ``insert_rows``, ``delete_rows``,
      ``insert_columns``, ``delete_columns``, ``merging``, ``filtering``, ``formatting``,
      ``pivot_tables``, ``pandas``) or None for all.
    - ``scoring``: ``"paper"`` or ``"paper_compat"`` (see Rewards). ``mode``: see Action Space.
    - ``num_demos`` (3), ``max_steps`` (10), ``max_requests`` (API requests per program, 200),
      ``preview_rows`` (12), ``world_seed`` (0), ``db_url`` (see ``World``).

    ## Version History
    - v0: initial version.
    """

    env_id = "GoogleSheets-v0"
    splits = {"built-in": CATEGORIES, "official": ()}
    scorings = ("paper", "paper_compat")
    modes = (SINGLE_STEP, MULTI_STEP)
    table_columns = (Column("Success", "mean", ("success",)), Column("Executable", "mean", ("executable",)),
                     Column("Values", "mean", ("values_match",)), Column("Formats", "mean", ("format_match",)))
    max_action_chars = 20_000
    action_hint = "a Python program using sheet / worksheet (gspread) and pandas; an empty line submits (multi_step)"

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 world_seed: int = 0, num_demos: int = 3, max_steps: int = 10, max_requests: int = 200,
                 preview_rows: int = 12, db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if tasks == "official":
            raise ValueError("GoogleSheets-v0: the ToolBench Google Sheets test sheets are private; no official "
                             "data exists. Use tasks='built-in'.")
        for name, value, low in (("world_seed", world_seed, None), ("num_demos", num_demos, 0),
                                 ("max_steps", max_steps, 1), ("max_requests", max_requests, 1),
                                 ("preview_rows", preview_rows, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or (low is not None and value < low):
                raise ValueError(f"GoogleSheets-v0: {name} must be an int" + (f" >= {low}" if low is not None else "")
                                 + f", got {value!r}")
        # The profile and the programs import these on first use; a missing one still fails at make.
        for library in ("gspread", "pandas", "re2"):
            if importlib.util.find_spec(library) is None:
                raise ModuleNotFoundError(f"GoogleSheets-v0 needs {library}: pip install 'toolgym[sheets]'",
                                          name=library)
        from toolgym.worlds.sheets.world import SheetsWorld

        self.world_seed = world_seed
        self.num_demos, self.max_steps, self.max_requests, self.preview_rows = (num_demos, max_steps, max_requests,
                                                                                preview_rows)
        self.tasks: dict[str, SheetTask] = {k: t for k, t in builtin_tasks(world_seed).items()
                                            if split is None or t.category == split}
        self.demo_pool = [Demo(query, program) for _, query, program in demo_pool(world_seed)]
        self.world = SheetsWorld(url=db_url, seed=world_seed)
        self._initial = self.world.snapshot()
        self._expected: dict[str, list[SheetState]] = {}
        self._prompts: dict[str, dict] = {}
        self.tools = TOOLS
        self.task_id: str | None = None
        self._done = True

    @property
    def profile(self) -> Profile:
        """The interpreter profile of the programs (``toolgym.worlds.sheets.profile``).

        Built on first use, once per process: it names gspread's and pandas' types, and importing
        those libraries is most of what ``gym.make`` would otherwise cost.
        """
        from toolgym.worlds.sheets.profile import sheets_profile

        return sheets_profile()

    # -- tasks -----------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def task_split(self, task_id: str) -> str:
        return self.tasks[task_id].category

    def expected_states(self, task_id: str) -> list[SheetState]:
        """The sheet each ground-truth program of the task leaves (computed once, by running it)."""
        if task_id not in self._expected:
            states = []
            for program in self.tasks[task_id].programs:
                key = (self.world_seed, self.world.url, self.tasks[task_id].spreadsheet, program)
                if key not in _EXPECTED or self.world.url != "sqlite://":
                    self.world.restore(self._initial)
                    error = self._run(self._new_interpreter(task_id), program)
                    if error is not None:
                        raise ValueError(f"{self.env_id}: ground truth of task {task_id} does not run: {error}")
                    _EXPECTED[key] = self.read_state(self.tasks[task_id].spreadsheet)
                states.append(_EXPECTED[key])
            self.world.restore(self._initial)
            self._expected[task_id] = states
        return self._expected[task_id]

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.task_id = self._choose_task(options)
        self.expected_states(self.task_id)
        self.world.restore(self._initial)
        self.interpreter = self._new_interpreter(self.task_id)
        self._programs: list[str] = []
        self._all_ran = True
        self._done = False
        task = self.tasks[self.task_id]
        self._observation = f"{task.query}\n\n{self._preview()}"
        return self._observation, self._with_history(self._info())

    def _act(self, action: Any) -> Outcome:
        try:
            program_text = self._program_text(action)
        except ProgramError as exc:
            program_text, error = None, str(exc)
            self._note_invalid_action()
        submit = self.mode == MULTI_STEP and program_text is not None and not program_text.strip()
        if submit:
            judgement = self._judge()
            observation, terminated = "Submitted.", True
        elif program_text is None:
            judgement, observation, terminated = self._failed(error)
        else:
            error = self._run_checked(program_text)
            if error is not None:
                judgement, observation, terminated = self._failed(error)
            else:
                self._programs.append(program_text)
                judgement = self._judge(identical=self._identical(program_text))
                observation = f"The program ran.\n\n{self._preview()}"
                terminated = self.mode == SINGLE_STEP
        return self._outcome(judgement, observation, terminated)

    def _failed(self, error: str) -> tuple[Judgement, str, bool]:
        """A program that was refused or failed: nothing changed; single step ends not executable."""
        self._all_ran = False
        if self.mode == SINGLE_STEP:
            return Judgement(False, error=error), f"Error: {error}", True
        judgement = self._judge()
        judgement.error = error
        return judgement, f"Error: {error}", False

    def _refuse(self, error: str) -> Outcome:
        judgement, observation, terminated = self._failed(error)
        outcome = self._outcome(judgement, observation, terminated)
        outcome.info["error"] = error
        return outcome

    def _outcome(self, judgement: Judgement, observation: str, terminated: bool) -> Outcome:
        self._judgement = judgement
        self._observation = observation
        return Outcome(observation, terminated=terminated, progress=int(judgement.success(self.scoring)))

    def _metrics(self) -> dict:
        return self._judgement.metrics(self.scoring, len(self._programs))

    def _end_info(self) -> dict:
        return {"error": self._judgement.error}

    def _program_text(self, action: Any) -> str:
        """The program of an action: text (a raw completion is cut as the original does) or a run_program call."""
        if isinstance(action, str) and action.lstrip().startswith("{"):
            try:
                action = json.loads(action)
            except (ValueError, RecursionError):
                pass  # not JSON: the text is the program, and the interpreter says what is wrong with it
        if isinstance(action, dict):
            call = parse_action(action)
            if not (isinstance(call, ToolCall) and call.name == "run_program" and isinstance(call.arguments, dict)
                    and isinstance(call.arguments.get("program"), str)):
                raise ProgramError("a tool call must be {\"name\": \"run_program\", \"arguments\": {\"program\": ...}}")
            return call.arguments["program"]
        if not isinstance(action, str):
            raise ProgramError(f"the action must be a program (text), got {type(action).__name__}")
        return extract_program(action) if ("Action:" in action or "```" in action) else action

    def _identical(self, program: str) -> bool:
        return self.mode == SINGLE_STEP and program.strip() in {p.strip() for p in self.tasks[self.task_id].programs}

    def _run_checked(self, program_text: str) -> str | None:
        """Check and run a program; on any error the world is put back as it was."""
        try:
            program = self.interpreter.check(program_text)
        except ProgramError as exc:
            self._note_invalid_action()
            return str(exc)
        if not program.statements:
            return "the program is empty"
        before = self.world.snapshot()
        variables = _namespace_copy(self.interpreter.variables) if self.mode == MULTI_STEP else {}
        error = self._run(self.interpreter, program)
        if error is not None:
            self.world.restore(before)
            self.interpreter = self._new_interpreter(self.task_id, variables)
        return error

    def _new_interpreter(self, task_id: str, variables: dict | None = None) -> Interpreter:
        from toolgym.worlds.sheets.profile import BUDGETS, Numpy, Pandas

        functions = {"get_as_dataframe": _get_as_dataframe, "set_with_dataframe": _set_with_dataframe}
        interpreter = Interpreter(self.profile, functions=functions)
        self.world.service.quota = None
        spreadsheet = self.world.client().open_by_key(self.tasks[task_id].spreadsheet)
        interpreter.variables.update(variables or {})
        interpreter.variables.update(sheet=spreadsheet, worksheet=spreadsheet.sheet1,
                                     pd=Pandas(BUDGETS.max_size), np=Numpy(BUDGETS.max_size))
        return interpreter

    def _run(self, interpreter: Interpreter, program: Any) -> str | None:
        self.world.service.quota = self.max_requests
        try:
            interpreter.run(program)
            return None
        except ProgramError as exc:
            return str(exc)
        finally:
            self.world.service.quota = None

    # -- judging -----------------------------------------------------------------------------
    def read_state(self, spreadsheet_id: str) -> SheetState:
        """The spreadsheet as the evaluator reads it (through gspread and gspread-dataframe)."""
        from gspread_dataframe import get_as_dataframe

        from toolgym.worlds.sheets.api import effective_format
        from toolgym.worlds.sheets.models import Cell, Sheet

        self.world.service.quota = None
        session, default = self.world.session, effective_format(None)
        sheets = sorted(session.query(Sheet).filter(Sheet.spreadsheet_id == spreadsheet_id), key=lambda s: s.index)
        reader = _ServiceReader(self.world.service, spreadsheet_id)
        values = {sheet.title: get_as_dataframe(_WorksheetView(reader, sheet.title, sheet.row_count,
                                                               sheet.column_count), evaluate_formulas=True)
                  for sheet in sheets}
        formats, effective = {}, {}
        for sheet in sheets:
            cells = {}
            for cell in session.query(Cell).filter(Cell.sheet_id == sheet.sheet_id, Cell.format.isnot(None)):
                key = json.dumps(cell.format, sort_keys=True)
                if key not in effective:
                    effective[key] = effective_format(cell.format)
                fmt = effective[key]
                if fmt != default and cell.row < sheet.row_count and cell.col < sheet.column_count:
                    cells[f"{cell.row},{cell.col}"] = fmt
            formats[sheet.title] = {"frozen": [sheet.frozen_rows, sheet.frozen_columns], "merges": sheet.merges,
                                    "basic_filter": sheet.basic_filter, "cells": cells}
        return SheetState(values, formats)

    def _judge(self, identical: bool = False) -> Judgement:
        state = self.read_state(self.tasks[self.task_id].spreadsheet)
        best = max(((expected.values_equal(state), expected.formats_equal(state))
                    for expected in self._expected[self.task_id]), key=lambda m: (m[0] and m[1], m[0], m[1]))
        return Judgement(self._all_ran, values_match=best[0], format_match=best[1], identical=identical,
                         needs_executable=self.mode == SINGLE_STEP)

    # -- observations --------------------------------------------------------------------------
    def sheet_values(self) -> dict[str, list[list[str]]]:
        """Every worksheet's values, formatted (as ``get_all_values`` returns them)."""
        from toolgym.worlds.sheets.models import Sheet

        service, key = self.world.service, self.tasks[self.task_id].spreadsheet
        quota, service.quota = service.quota, None
        values = {}
        for sheet in sorted(self.world.session.query(Sheet).filter(Sheet.spreadsheet_id == key), key=lambda s: s.index):
            status, result = service.handle("GET", f"/v4/spreadsheets/{key}/values/{_quoted(sheet.title)}", {}, None)
            values[sheet.title] = result.get("values", []) if status == 200 else []
        service.quota = quota
        return values

    def _preview(self) -> str:
        parts = []
        self._values_cache = self.sheet_values()
        for title, rows in self._values_cache.items():
            shown = rows[:self.preview_rows]
            lines = [" | ".join(shorten(str(v), 40) for v in row) for row in shown]
            more = f"\n... ({len(rows) - len(shown)} more rows)" if len(rows) > len(shown) else ""
            parts.append(f"Worksheet '{title}':\n" + "\n".join(lines) + more)
        return "\n\n".join(parts)

    def _info(self) -> dict:
        task = self.tasks[self.task_id]
        if self.task_id not in self._prompts:
            self._prompts[self.task_id] = prompt_info(GOAL, API_DOCS, self.demo_pool, task.query, k=self.num_demos)
        prompt = copy.deepcopy(self._prompts[self.task_id])
        return {**self.base_info(self.task_id), "query": task.query, "tools": copy.deepcopy(self.tools),
                "messages": prompt["messages"], "prompt": prompt, "sheet": self._sheet_for_info()}

    def _sheet_for_info(self) -> dict:
        """The values the observation just showed (read once per step), else read now."""
        cached, self._values_cache = getattr(self, "_values_cache", None), None
        return cached if cached is not None else self.sheet_values()

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The first ground-truth program; in multi-step mode, then the empty action that submits."""
        program = self.tasks[self.task_id].programs[0]
        if self.mode == MULTI_STEP and program in self._programs:
            return ""
        return program

    def render(self):
        if self.render_mode == "ansi":
            return f"Task: {self.tasks[self.task_id].query}\n{self._observation}"
        return None


def _namespace_copy(variables: dict) -> dict:
    """A copy of a program's namespace that a failing program cannot change: its data (frames,
    arrays, lists, dicts, cells) copied deeply, aliases kept; the client's objects (spreadsheets,
    worksheets) and the ``pd`` / ``np`` facades shared, as the world's snapshot restores what
    they point to."""
    import gspread

    from toolgym.worlds.sheets.profile import Numpy, Pandas

    shared = (gspread.Spreadsheet, gspread.Worksheet, gspread.Client, Pandas, Numpy)
    memo: dict[int, Any] = {}
    stack = list(variables.values())
    while stack:
        value = stack.pop()
        if isinstance(value, shared):
            memo[id(value)] = value
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend([*value.keys(), *value.values()])
    try:
        return copy.deepcopy(variables, memo)
    except Exception:  # noqa: BLE001 - a value that cannot be copied: keep the names at least
        return dict(variables)


class _ServiceReader:
    """The judge's side of a spreadsheet: gspread's ``values_get``, answered by the world's Sheets
    service in this process (the same request and response as through gspread's client, without
    its HTTP session and transport, which cost more than the read)."""

    def __init__(self, service, spreadsheet_id: str):
        self.service, self.spreadsheet_id = service, spreadsheet_id

    def values_get(self, range_name: str, params: dict | None = None) -> dict:
        from urllib.parse import quote

        query = {key: [value] for key, value in (params or {}).items()}
        status, result = self.service.handle("GET", f"/v4/spreadsheets/{self.spreadsheet_id}/values/"
                                             f"{quote(range_name, safe='')}", query, None)
        if status != 200:
            raise RuntimeError(f"the judge could not read {range_name!r}: {result}")
        return result


@dataclass(frozen=True)
class _WorksheetView:
    """What ``gspread_dataframe.get_as_dataframe`` reads of a worksheet."""

    spreadsheet: _ServiceReader
    title: str
    row_count: int
    col_count: int


def _quoted(title: str) -> str:
    from urllib.parse import quote

    from toolgym.worlds.sheets.a1 import quote_title

    return quote(quote_title(title), safe="")


_GET_OPTIONS = ("header", "index_col", "usecols", "nrows", "skiprows", "dtype")


def _worksheet(value: Any, name: str):
    import gspread

    if not isinstance(value, gspread.Worksheet):
        raise ProgramError(f"{name}() takes a worksheet first, got {type(value).__name__}")
    return value


def _get_as_dataframe(worksheet: Any, evaluate_formulas: bool = False, header: Any = 0, index_col: Any = None,
                      usecols: Any = None, nrows: Any = None, skiprows: Any = None, dtype: Any = None,
                      drop_empty_rows: bool = True, drop_empty_columns: bool = True):
    """gspread-dataframe's get_as_dataframe with the text-parser options a program may pass."""
    from gspread_dataframe import get_as_dataframe

    from toolgym.worlds.sheets.guard import dtype as allowed_dtype

    allowed_dtype(dtype, "get_as_dataframe")
    options = {k: v for k, v in zip(_GET_OPTIONS, (header, index_col, usecols, nrows, skiprows, dtype))
               if v is not None or k == "header"}
    return get_as_dataframe(_worksheet(worksheet, "get_as_dataframe"), evaluate_formulas=bool(evaluate_formulas),
                            drop_empty_rows=bool(drop_empty_rows), drop_empty_columns=bool(drop_empty_columns),
                            **options)


def _set_with_dataframe(worksheet: Any, dataframe: Any, row: int = 1, col: int = 1, include_index: bool = False,
                        include_column_header: bool = True, resize: bool = False, allow_formulas: bool = True):
    """gspread-dataframe's set_with_dataframe (no custom string escaping)."""
    import pandas
    from gspread_dataframe import set_with_dataframe

    if not isinstance(dataframe, (pandas.DataFrame, pandas.Series)):
        raise ProgramError(f"set_with_dataframe() takes a DataFrame second, got {type(dataframe).__name__}")
    for name, value in (("row", row), ("col", col)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ProgramError(f"set_with_dataframe(): {name} must be a positive int")
    return set_with_dataframe(_worksheet(worksheet, "set_with_dataframe"), dataframe, row=row, col=col,
                              include_index=bool(include_index), include_column_header=bool(include_column_header),
                              resize=bool(resize), allow_formulas=bool(allow_formulas))
