"""GoogleSheets' tool: a Python program run on a spreadsheet through the real gspread client.

A program runs in toolgym's interpreter with the profile of :mod:`toolgym.worlds.sheets.profile`
(never ``exec``), on a real ``gspread.Client`` answered by the world's Sheets service, with
these names: ``sheet``, ``worksheet``, ``get_as_dataframe``, ``set_with_dataframe``, ``pd``,
``np``, ``copy_spreadsheet`` and ``ValidationConditionType``. A program is atomic as a whole: one
that fails leaves the spreadsheets, the names of the session and what the spreadsheet and
worksheet objects they hold believe (title, size) as they were. The client libraries are
imported at the first program, not with this module.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from toolgym.worlds.interpreter import Interpreter, Profile, ProgramError
from toolgym.worlds.tools import ACTION, ToolError, Toolkit, tool

APP = "Google Sheets"


class NotAProgram(ToolError):
    """The text is not a program that the profile allows; nothing ran."""


class SheetsTools(Toolkit):
    """A program session on one spreadsheet of a :class:`~toolgym.worlds.sheets.world.SheetsWorld`.

    Args:
        world: The world.
        max_requests: The Sheets and Drive requests one program may make (more answer 429).
        keep_names: The names a program defines stay for the next program (a multi-step
            episode); without it each program starts from the given names only.
    """

    def __init__(self, world, max_requests: int, keep_names: bool = False):
        super().__init__(world)
        self.max_requests, self.keep_names = max_requests, keep_names
        self.spreadsheet_id: str | None = None
        self.interpreter: Interpreter | None = None

    @property
    def profile(self) -> Profile:
        """The interpreter profile of the programs (``toolgym.worlds.sheets.profile``).

        Built on first use, once per process: it names gspread's and pandas' types, and importing
        those libraries is most of what ``gym.make`` would otherwise cost.
        """
        from toolgym.worlds.sheets.profile import sheets_profile

        return sheets_profile()

    def open(self, spreadsheet_id: str, variables: dict | None = None) -> None:
        """Start a session on a spreadsheet: a new interpreter with the program's names (and
        ``variables``, names kept from an earlier program)."""
        from toolgym.worlds.sheets.profile import BUDGETS, Numpy, Pandas, ValidationConditions, copy_spreadsheet

        functions = {"get_as_dataframe": _get_as_dataframe, "set_with_dataframe": _set_with_dataframe,
                     "copy_spreadsheet": functools.partial(copy_spreadsheet, self.world.client())}
        interpreter = Interpreter(self.profile, functions=functions)
        self.world.service.quota = None
        spreadsheet = self.world.client().open_by_key(spreadsheet_id)
        interpreter.variables.update(variables or {})
        interpreter.variables.update(sheet=spreadsheet, worksheet=spreadsheet.sheet1,
                                     pd=Pandas(BUDGETS.max_size), np=Numpy(BUDGETS.max_size),
                                     ValidationConditionType=ValidationConditions())
        self.spreadsheet_id, self.interpreter = spreadsheet_id, interpreter

    @tool(kind=ACTION, app=APP)
    def run_program(self, program: str) -> None:
        """Run a Python program (gspread / pandas) on the worksheet. Names defined: sheet, worksheet,
        get_as_dataframe, set_with_dataframe, pd, np, copy_spreadsheet, ValidationConditionType.

        Args:
            program: the program

        Raises:
            NotAProgram: The text is not a program that the profile allows (nothing ran).
            ToolError: The program is empty, or it failed; the spreadsheets and the session's
                names are as they were before it.
        """
        try:
            checked = self.interpreter.check(program)
        except ProgramError as exc:
            raise NotAProgram(str(exc)) from None
        if not checked.statements:
            raise ToolError("the program is empty")
        before = self.world.snapshot()
        session = _SessionSnapshot(self.interpreter.variables) if self.keep_names else None
        error = self.execute(checked)
        if error is not None:
            self.world.restore(before)
            if session is None:
                self.open(self.spreadsheet_id)
            else:
                session.restore(self.interpreter.variables)
            raise ToolError(error)

    def execute(self, program: Any) -> str | None:
        """Run a program (text, or checked) in the session within the request budget; its error, or
        None. Unlike :meth:`run_program`, a failure is not undone."""
        self.world.service.quota = self.max_requests
        try:
            self.interpreter.run(program)
            return None
        except ProgramError as exc:
            return str(exc)
        finally:
            self.world.service.quota = None


#: What ``pandas.api.types.infer_dtype`` says of an object column that holds only plain values.
_PLAIN = frozenset({"empty", "string", "bytes", "integer", "floating", "mixed-integer-float", "decimal", "complex",
                    "boolean", "datetime", "date", "timedelta", "time"})


class _SessionSnapshot:
    """A session's names and what its client objects believe, taken before a program so that a
    failed one can be undone.

    The names' data (frames, arrays, lists, dicts, cells) is copied deeply, aliases kept. The
    client's objects (spreadsheets, worksheets, the client) and the ``pd`` / ``np`` facades are
    shared, so that ``w is worksheet`` still holds afterwards; but a spreadsheet or worksheet
    object also caches what it knows of its file or sheet (title, size, index), which a program
    changes through it (``w.resize(20, 5)``) and the world's snapshot does not hold: those
    attributes are copied, and put back with the names.
    """

    def __init__(self, variables: dict):
        import gspread
        import numpy
        import pandas

        from toolgym.worlds.sheets.profile import Numpy, Pandas, ValidationConditions

        client_objects = (gspread.Spreadsheet, gspread.Worksheet)
        shared = (*client_objects, gspread.Client, Pandas, Numpy, ValidationConditions)
        memo: dict[int, Any] = {}
        self.objects: list[tuple[Any, dict]] = []
        seen: dict[int, Any] = {}  # the values themselves too: a column taken for the walk keeps its id
        stack = list(variables.values())
        while stack:
            value = stack.pop()
            if id(value) in seen:  # each value once, however many names and lists share it
                continue
            seen[id(value)] = value
            if isinstance(value, pandas.DataFrame):
                stack.extend([value.index, value.columns, *(value.iloc[:, i] for i, dtype in enumerate(value.dtypes)
                                                             if dtype == object)])
            elif isinstance(value, pandas.Series):
                stack.extend([value.index, value.to_numpy()] if value.dtype == object else [value.index])
            elif isinstance(value, (pandas.Index, numpy.ndarray)):
                # an object column may hold anything (a worksheet object); numbers and text hold nothing
                if value.dtype == object and pandas.api.types.infer_dtype(value, skipna=True) not in _PLAIN:
                    stack.extend(numpy.asarray(value, dtype=object).ravel().tolist())
            elif isinstance(value, shared):
                memo[id(value)] = value
                if isinstance(value, client_objects):
                    self.objects.append((value, {**vars(value), "_properties": copy.deepcopy(value._properties)}))
                if isinstance(value, gspread.Worksheet):
                    stack.append(value.spreadsheet)  # the spreadsheet object it answers for w.spreadsheet
            elif isinstance(value, (list, tuple, set, frozenset)):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend([*value.keys(), *value.values()])
        try:
            self.variables = copy.deepcopy(variables, memo)
        except Exception:  # noqa: BLE001 - a value that cannot be copied: keep the names at least
            self.variables = dict(variables)

    def restore(self, variables: dict) -> None:
        """Put the names (in ``variables``, the interpreter's namespace) and the client objects'
        attributes back as they were."""
        for value, attributes in self.objects:
            vars(value).clear()
            vars(value).update(attributes)
        variables.clear()
        variables.update(self.variables)


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
