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
from toolgym.worlds.interpreter import Interpreter, ProgramError, shorten
from toolgym.worlds.sheets.formula import warm as warm_formulas
from toolgym.worlds.sheets.tasks import CATEGORIES, SheetTask, builtin_tasks, demo_pool
from toolgym.worlds.sheets.tools import NotAProgram, SheetsTools
from toolgym.worlds.tools import ToolError

SINGLE_STEP, MULTI_STEP = "single_step", "multi_step"
GOAL = ("Your task is to write a Python program that makes the requested change to a Google Sheets worksheet with "
        "the gspread library (and, if you like, pandas through gspread-dataframe). These names are defined: "
        "sheet (the gspread Spreadsheet), worksheet (its first Worksheet), get_as_dataframe, set_with_dataframe, "
        "pd, np, copy_spreadsheet and ValidationConditionType. Write only the program.")
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
    freeze(rows, cols), clear(), update_title(title), hide_rows(start, end), hide_columns(start, end) (0-based,
    end excluded), define_named_range(a1_range, name), add_validation(range, ValidationConditionType.one_of_list |
    .number_greater | ..., values, strict=False, inputMessage=None, showCustomUi=False), duplicate(); attributes
    title, id, row_count, col_count
copy_spreadsheet(sheet, title) -> the copy (a gspread.Spreadsheet; Drive files.copy, as gspread's Client.copy)
get_as_dataframe(worksheet, evaluate_formulas=False, ...) -> pandas.DataFrame of the sheet (empty rows and columns dropped)
set_with_dataframe(worksheet, df, row=1, col=1, include_index=False, include_column_header=True, resize=False)
pd: DataFrame, Series, concat, to_numeric, isna, notna, pivot_table; np: where, round, sum, mean, ..., nan"""


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

    ## What is simulated
    - Sheets API v4 (``toolgym.worlds.sheets.api``): ``spreadsheets.get`` (grid data, ranges,
      ``fields`` masks), the ``values`` calls (get, update, append, clear and their batches),
      ``sheets.copyTo`` and these batchUpdate requests: updateCells (pivot tables included),
      repeatCell, insert/delete/appendDimension, updateSheetProperties, sortRange, merge and
      unmergeCells, set/clearBasicFilter, add/delete/duplicateSheet,
      updateSpreadsheetProperties, add/deleteNamedRange, add/deleteProtectedRange,
      updateDimensionProperties (hidden, pixel size), autoResizeDimensions, dimension groups,
      setDataValidation, copyPaste, cutPaste. Any other request, or a malformed one, gets the
      API's error shape (400 ``INVALID_ARGUMENT``) and the batch is rolled back.
    - Drive API v3 files (``toolgym.worlds.sheets.drive``), as gspread uses it: create, copy,
      list with ``q`` filters and paging, get, delete, export (CSV, TSV; other types 400) and
      permissions; ``Client.create``, ``copy``, ``open`` by title, ``openall``,
      ``del_spreadsheet``, ``share`` work. Programs reach Drive only through
      ``copy_spreadsheet(sheet, title)``: the client itself stays out of reach, and each file a
      program makes is priced before it is made (``drive.FILE_WORK`` and a unit per copied cell,
      out of the program's recalculation allowance: a handful of copies per program).
    - Dates are serial numbers; a typed ``2024-03-15`` or ``3/15/2024`` becomes one with a DATE
      format; DATE / TIME / DATE_TIME patterns render (``yyyy``, ``mmm``, ``d``, ``h``, ...).
    - Strict data validation refuses values its rule forbids (lists, booleans, number
      conditions; other conditions are stored, not enforced).
    - Formulas are evaluated by the ``formulas`` engine with Sheets' error values (``#REF!``,
      ``#DIV/0!``, ``#NAME?``, ``#VALUE!``). Differences from Sheets: a named range inside a
      formula is ``#NAME?`` (named ranges work in A1 requests); a formula over dates gets no
      date format (Sheets infers one), so it shows the serial number unless formatted; the
      functions are those ``formulas`` implements; recalculation work is budgeted per change and
      per program (a refused change answers 400, an exhausted program 429).
    - Not simulated: conditional formats, charts, filter views, slicers, developer metadata,
      banding, comments' contents (Drive lists none), revisions, folders beyond ``parents``,
      XLSX / PDF export, other locales' date forms, sheet ids kept by a copied spreadsheet (each
      takes a new id, unique in the world), any host but the Sheets and Drive APIs.

    ## Action Space
    A string. Mode ``"single_step"`` (default): the whole program, or a model's raw completion
    from which it is taken as the released evaluator does (first fenced block, else the text
    after ``Action:``; ``toolgym.envs.common.actions.extract_program``), or the tool call
    ``{"name": "run_program", "arguments": {"program": ...}}`` (a dict or its JSON). Mode
    ``"multi_step"``: a program per step (variables persist), looking at the sheet in between;
    an empty action submits. A program is run by the world's tool, ``run_program`` of
    ``toolgym.worlds.sheets.tools.SheetsTools``, in toolgym's interpreter with the profile of
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
    (effective format of every cell, merges, basic filter, frozen rows and columns, hidden rows
    and columns, named ranges and data validation rules equal; spreadsheets a program made, such
    as copies, are compared too, by title; more of them than a ground truth makes are not read and
    do not match),
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
    - ``tasks``: ``"built-in"`` only (111 test tasks, 18 demonstrations); the original's test
      sheets are private, so no official data exists.
    - ``split``: a category (``cell_update``, ``sorting``, ``insert_rows``, ``delete_rows``,
      ``insert_columns``, ``delete_columns``, ``merging``, ``filtering``, ``formatting``,
      ``pivot_tables``, ``pandas``; toolgym's additions ``drive`` (copy a template spreadsheet),
      ``dates``, ``named_ranges``, ``hidden`` (rows and columns), ``data_validation``) or None
      for all. The added categories have 30 tasks, each with two or three ground-truth forms
      (gspread's helper and the raw ``batch_update`` request, or gspread-dataframe).
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
        from toolgym.worlds.sheets.models import Spreadsheet

        self._initial_files = [f.id for f in self.world.session.query(Spreadsheet)]
        self._expected: dict[str, list[SheetState]] = {}
        self._prompts: dict[str, dict] = {}
        self.sheet_tools = SheetsTools(self.world, max_requests, keep_names=self.mode == MULTI_STEP)
        self.tools = SheetsTools.schemas()
        self.task_id: str | None = None
        self._done = True

    @property
    def interpreter(self) -> Interpreter:
        """The interpreter of the episode's programs (with the names they defined, in multi-step)."""
        return self.sheet_tools.interpreter

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
                    ground_truth = SheetsTools(self.world, self.max_requests)
                    ground_truth.open(self.tasks[task_id].spreadsheet)
                    error = ground_truth.execute(program)
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
        warm_formulas()  # the formula engine's import (seconds) is paid here, once per process, not in a step
        self.world.restore(self._initial)
        task = self.tasks[self.task_id]
        self.sheet_tools.open(task.spreadsheet)
        self._programs: list[str] = []
        self._all_ran = True
        self._done = False
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
        """Run a program with the sheets tool; its error (the world then as it was), or None."""
        try:
            self.sheet_tools.run_program(program_text)
        except NotAProgram as exc:
            self._note_invalid_action()
            return str(exc)
        except ToolError as exc:
            return str(exc)
        return None

    # -- judging -----------------------------------------------------------------------------
    def read_state(self, spreadsheet_id: str, read_files: int | None = None) -> SheetState:
        """The spreadsheet as the evaluator reads it (through gspread and gspread-dataframe), and
        every spreadsheet a program made (copies), keyed ``(its title, the sheet's title)``. With
        more made files than ``read_files`` (what the ground truths make), none is read: each is
        only named, ``(its title, None)``, which no expected sheet matches."""
        from toolgym.worlds.sheets.models import Spreadsheet

        self.world.service.quota = None
        values, formats = self._read_file(spreadsheet_id, None)
        made = self.world.session.query(Spreadsheet).filter(Spreadsheet.id.not_in(self._initial_files),
                                                            Spreadsheet.trashed.is_(False))
        made = sorted(made, key=lambda f: (f.title, f.id))
        for file in made:
            if read_files is not None and len(made) > read_files:
                values[(file.title, None)] = formats[(file.title, None)] = None
                continue
            more = self._read_file(file.id, file.title)
            values.update(more[0])
            formats.update(more[1])
        return SheetState(values, formats)

    def _read_file(self, spreadsheet_id: str, prefix: str | None) -> tuple[dict, dict]:
        """One spreadsheet's values and formats (layout, hidden rows and columns, named ranges and
        data validation included), its sheets keyed by title, or by ``(prefix, title)``. Values are
        read by gspread-dataframe from the world's Sheets service directly (:class:`_ServiceReader`)."""
        from gspread_dataframe import get_as_dataframe

        from toolgym.worlds.sheets.api import effective_format
        from toolgym.worlds.sheets.models import Cell, Sheet, Spreadsheet

        def key(title: str):
            return title if prefix is None else (prefix, title)

        session, default = self.world.session, effective_format(None)
        sheets = sorted(session.query(Sheet).filter(Sheet.spreadsheet_id == spreadsheet_id), key=lambda s: s.index)
        reader = _ServiceReader(self.world.service, spreadsheet_id)
        values = {key(sheet.title): get_as_dataframe(_WorksheetView(reader, sheet.title, sheet.row_count,
                                                                    sheet.column_count), evaluate_formulas=True)
                  for sheet in sheets}
        named = session.get(Spreadsheet, spreadsheet_id).named_ranges
        formats, effective = {}, {}
        for sheet in sheets:
            cells, rules = {}, {}
            for cell in session.query(Cell).filter(Cell.sheet_id == sheet.sheet_id,
                                                   (Cell.format.isnot(None)) | (Cell.extra.isnot(None))):
                if cell.row >= sheet.row_count or cell.col >= sheet.column_count:
                    continue
                if cell.format is not None:
                    text = json.dumps(cell.format, sort_keys=True)
                    if text not in effective:
                        effective[text] = effective_format(cell.format)
                    if effective[text] != default:
                        cells[f"{cell.row},{cell.col}"] = effective[text]
                rule = (cell.extra or {}).get("dataValidation")
                if rule:  # what a rule leaves unset reads as its default (False, no message)
                    rules[f"{cell.row},{cell.col}"] = {k: v for k, v in rule.items() if v not in (False, None, "")}
            hidden = {dimension: sorted(int(i) for i, entry in (sheet.dimensions or {}).get(dimension, {}).items()
                                        if entry.get("hiddenByUser"))
                      for dimension in ("ROWS", "COLUMNS")}
            names = sorted([n["name"], *(n["range"].get(k) for k in ("startRowIndex", "endRowIndex",
                                                                      "startColumnIndex", "endColumnIndex"))]
                           for n in named if n["range"].get("sheetId") == sheet.sheet_id)
            formats[key(sheet.title)] = {"frozen": [sheet.frozen_rows, sheet.frozen_columns], "merges": sheet.merges,
                                         "basic_filter": sheet.basic_filter, "cells": cells, "hidden": hidden,
                                         "named_ranges": names, "validation": rules}
        return values, formats

    def _judge(self, identical: bool = False) -> Judgement:
        made = max(len({key[0] for key in expected.values if isinstance(key, tuple)})
                   for expected in self._expected[self.task_id])
        state = self.read_state(self.tasks[self.task_id].spreadsheet, read_files=made)
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
            self._prompts[self.task_id] = prompt_info(GOAL, API_DOCS, self.demo_pool, task.query, k=self.num_demos,
                                                        gold=task.programs)
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
