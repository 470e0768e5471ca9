"""Formula results, computed by the maintained ``formulas`` engine (Excel semantics, which
Sheets shares for the functions the tasks use: SUM, AVERAGE, MIN, MAX, COUNT, COUNTA,
COUNTIF, SUMIF, IF, IFERROR, ROUND, arithmetic, text concatenation, A1 references and
ranges, also to other sheets). ``formulas`` is imported on the first formula only.

How a spreadsheet is recalculated (:class:`Recalculation`):

- Each formula's references are read from its text here (cells ``B3``, ranges ``A1:C9``,
  open ranges ``A:A``, ``2:5``, ``A2:C``, with or without a sheet). The engine compiles the
  formula with each reference replaced by a small canonical one, so ``=H2+1`` in ``H1`` and
  ``=H3+1`` in ``H2`` share one compiled function and a range's size never costs at compile.
- Formulas are evaluated in dependency order, found with an iterative Tarjan pass (no
  recursion, so a chain of any length computes as in Sheets); the members of a cycle are
  ``#REF!`` ("Circular dependency detected"), as Sheets shows them.
- Errors are Sheets' errors, each with the message Sheets' ``errorValue`` carries: a missing
  sheet or a deleted range ``#REF!``, a division by zero ``#DIV/0!``, an unknown function or
  range name ``#NAME?``, a value of the wrong type ``#VALUE!``, a formula that does not parse
  ``#ERROR!``. An error in an input reaches the engine as that error, so ``IFERROR`` and
  ``ISERROR`` see it.
- The work is priced before it is done (:func:`recalculation_work`, in units of about a
  microsecond): compiling a formula not compiled before, each formula's evaluation, each cell
  its ranges read, each non-formula cell. The service refuses what exceeds its budgets.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from dataclasses import dataclass, field
from typing import Any

from toolgym.worlds.sheets.a1 import Bounds, RangeError, parse_bounds

#: Characters a formula may hold (Sheets allows 50,000; the engine's parser is superlinear).
MAX_FORMULA_CHARS = 1_000
#: Work units (about a microsecond each) of compiling a formula: a base and a price per character.
COMPILE_WORK, COMPILE_WORK_PER_CHAR = 600, 80
#: Work units of evaluating one formula (a base and a price per character: the engine runs one
#: node per operation), of each cell its ranges read, and of each plain cell.
EVALUATE_WORK, EVALUATE_WORK_PER_CHAR, CELL_WORK, VALUE_WORK = 150, 5, 1, 1

#: Sheets' error codes -> the ``errorValue.type`` of the API.
ERROR_TYPES = {"#NULL!": "NULL_VALUE", "#DIV/0!": "DIVIDE_BY_ZERO", "#VALUE!": "VALUE", "#REF!": "REF",
               "#NAME?": "NAME", "#NUM!": "NUM", "#N/A": "N_A", "#ERROR!": "ERROR"}
_MESSAGES = {"#NULL!": "Empty intersection.",
             "#DIV/0!": "Function DIVIDE parameter 2 cannot be zero.",
             "#VALUE!": "A value in the formula is of the wrong type.",
             "#REF!": "Reference does not exist.",
             "#NAME?": "Unknown name in the formula.",
             "#NUM!": "The result is not a finite number.",
             "#N/A": "Value not available.",
             "#ERROR!": "Formula parse error."}
CIRCULAR = "Circular dependency detected. To resolve with iterative calculation, see File > Settings."


class FormulaError(str):
    """An error result: a ``str`` holding the error code ('#REF!'), with Sheets' ``message``."""

    message: str

    def __new__(cls, code: str, message: str | None = None):
        error = super().__new__(cls, code)
        error.message = message or _MESSAGES.get(code, "Error.")
        return error

    @property
    def type(self) -> str:
        return ERROR_TYPES.get(str(self), "ERROR")


# -- references -------------------------------------------------------------------------------
_SHEET = r"(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!"
_COL, _ROW = r"\$?[A-Za-z]{1,3}", r"\$?[0-9]{1,7}"
_REFERENCE = re.compile(
    rf"(?<![\w.$'!:#])(?P<sheet>{_SHEET})?"
    rf"(?P<cells>{_COL}{_ROW}:{_COL}{_ROW}|{_COL}{_ROW}:{_COL}|{_COL}:{_COL}|{_ROW}:{_ROW}|{_COL}{_ROW})"
    r"(?![\w(!:])")


@dataclass(frozen=True)
class Reference:
    """One reference of a formula: its sheet (None: the formula's own), its bounds, and whether
    it is a range (an array to the engine) or one cell (a value)."""

    title: str | None
    bounds: Bounds
    is_range: bool


@dataclass(frozen=True)
class ParsedFormula:
    """A formula's text with its references replaced by canonical names, and those references."""

    canonical: str
    references: dict[str, Reference]  # canonical name (as the engine names its inputs) -> reference


@functools.lru_cache(maxsize=8192)
def parse_formula(text: str) -> ParsedFormula:
    """The references of formula ``text`` and its canonical text (string literals left alone)."""
    names: dict[tuple, str] = {}
    references: dict[str, Reference] = {}

    def replace(match: re.Match) -> str:
        sheet, cells = match.group("sheet"), match.group("cells").replace("$", "").upper()
        title = None
        if sheet:
            title = sheet[:-1]
            title = title[1:-1].replace("''", "'") if title.startswith("'") else title
        try:
            bounds = parse_bounds(cells)
        except RangeError:
            return match.group(0)
        if bounds is None:
            return match.group(0)
        is_range = ":" in cells
        key = (title.lower() if title is not None else None, bounds, is_range)
        if key not in names:
            number = len(names) + 1
            names[key] = f"B{number}:C{number}" if is_range else f"A{number}"
            references[names[key]] = Reference(title, bounds, is_range)
        return names[key]

    pieces = text.split('"')
    for i in range(0, len(pieces), 2):  # outside string literals
        pieces[i] = _REFERENCE.sub(replace, pieces[i])
    return ParsedFormula('"'.join(pieces), references)


@dataclass
class Compiled:
    """A compiled canonical formula, or the error every cell holding it shows."""

    function: Any = None
    error: FormulaError | None = None


#: Compiled canonical formulas of this process (emptied when it holds :data:`MAX_COMPILED`).
_COMPILED: dict[str, Compiled] = {}
MAX_COMPILED = 4096


def is_compiled(canonical: str) -> bool:
    """Whether ``canonical`` is compiled already (compiling it again costs nothing)."""
    return canonical in _COMPILED


def compile_formula(canonical: str) -> Compiled:
    """The engine's function for a canonical formula (compiled once per process)."""
    if canonical not in _COMPILED:
        if len(_COMPILED) >= MAX_COMPILED:
            _COMPILED.clear()
        _COMPILED[canonical] = _compile(canonical)
    return _COMPILED[canonical]


@functools.lru_cache(maxsize=1)
def _engine():
    """The ``formulas`` module and the names of its functions, read before any formula is parsed
    (its registry is a defaultdict: parsing ``FOO(1)`` adds ``FOO``)."""
    import formulas  # heavy: loaded on the first formula only

    # The engine logs each failed evaluation with a traceback; here those are Sheets' error values.
    logging.getLogger("schedula.utils.sol").setLevel(logging.CRITICAL)
    return formulas, frozenset(formulas.get_functions())


def _compile(canonical: str) -> Compiled:
    formulas, known = _engine()
    try:
        tokens, builder = formulas.Parser().ast(canonical)
    except Exception:  # noqa: BLE001 - any parse failure is Sheets' #ERROR!
        return Compiled(error=FormulaError("#ERROR!"))
    for token in tokens:
        if type(token).__name__ == "Function":
            name = token.name.upper()
            if name not in known and f"_XLFN.{name}" not in known:
                return Compiled(error=FormulaError("#NAME?", f"Unknown function: '{token.name}'."))
    try:
        return Compiled(function=builder.compile())
    except Exception:  # noqa: BLE001
        return Compiled(error=FormulaError("#ERROR!"))


# -- the cells of a spreadsheet -----------------------------------------------------------------
@dataclass
class SheetCells:
    """One sheet as the recalculation sees it: its size, its plain values and its formulas.

    ``values`` holds float / str / bool of the non-formula cells; after :func:`recalculate`
    it holds the formula results too (float / str / bool / FormulaError)."""

    title: str
    rows: int
    cols: int
    values: dict[tuple[int, int], Any] = field(default_factory=dict)
    formulas: dict[tuple[int, int], str] = field(default_factory=dict)


def find_sheet(sheets: dict[int, SheetCells], title: str) -> int | None:
    """The id of the sheet named ``title`` (exactly, else ignoring case, as Sheets resolves it)."""
    for sheet_id, sheet in sheets.items():
        if sheet.title == title:
            return sheet_id
    lowered = title.lower()
    for sheet_id, sheet in sheets.items():
        if sheet.title.lower() == lowered:
            return sheet_id
    return None


def _clip(bounds: Bounds, sheet: SheetCells) -> tuple[int, int, int, int]:
    r1, r2, c1, c2 = bounds.clip(sheet.rows, sheet.cols)
    return r1, max(r1, min(r2, sheet.rows)), c1, max(c1, min(c2, sheet.cols))


def _formula_work(parsed: ParsedFormula, areas: int, compiling: set[str]) -> int:
    work = EVALUATE_WORK + EVALUATE_WORK_PER_CHAR * len(parsed.canonical) + CELL_WORK * areas
    if parsed.canonical not in compiling and not is_compiled(parsed.canonical):
        compiling.add(parsed.canonical)
        work += COMPILE_WORK + COMPILE_WORK_PER_CHAR * len(parsed.canonical)
    return work


def recalculation_work(sheets: dict[int, SheetCells]) -> int:
    """The work units of recalculating every formula of ``sheets`` from nothing (its bound)."""
    work, compiling = 0, set()
    for sheet_id, sheet in sheets.items():
        work += VALUE_WORK * (len(sheet.values) + len(sheet.formulas))
        for text in sheet.formulas.values():
            parsed = parse_formula(text)
            areas = 0
            for reference in parsed.references.values():
                target = sheet_id if reference.title is None else find_sheet(sheets, reference.title)
                if target is not None:
                    r1, r2, c1, c2 = _clip(reference.bounds, sheets[target])
                    areas += (r2 - r1) * (c2 - c1)
            work += _formula_work(parsed, areas, compiling)
    return work


Rect = tuple[int, int, int, int]


def _cells_in(rect: Rect, keys) -> list[tuple[int, int]]:
    """The keys (a dict or set of (row, col)) inside ``rect``, by the cheaper of two walks."""
    r1, r2, c1, c2 = rect
    if (r2 - r1) * (c2 - c1) <= len(keys):
        return [(r, c) for r in range(r1, r2) for c in range(c1, c2) if (r, c) in keys]
    return [(r, c) for (r, c) in keys if r1 <= r < r2 and c1 <= c < c2]


class Recalculation:
    """The formula results of a spreadsheet, computed into each sheet's ``values``.

    ``Recalculation(sheets, previous)`` plans the work and prices it (``work``); ``run()`` does
    it. With the ``previous`` recalculation of the same sheets and formulas, only the formulas
    that read a changed value (directly or through other formulas) are evaluated again, as
    Sheets recalculates on change; otherwise every formula is."""

    def __init__(self, sheets: dict[int, SheetCells], previous: Recalculation | None = None):
        self.sheets = sheets
        self.plain = {sheet_id: dict(sheet.values) for sheet_id, sheet in sheets.items()}
        if previous is not None and previous._same_formulas(sheets):
            self.nodes, self.targets, self.edges = previous.nodes, previous.targets, previous.edges
            self.dependents, self.components = previous.dependents, previous.components
            changed = {sheet_id: {key for key in set(values) | set(previous.plain[sheet_id])
                                  if values.get(key) != previous.plain[sheet_id].get(key)
                                  or type(values.get(key)) is not type(previous.plain[sheet_id].get(key))}
                       for sheet_id, values in self.plain.items()}
            affected = self._affected(changed)
            for number, (sheet_id, key) in enumerate(self.nodes):
                if number not in affected:
                    sheets[sheet_id].values[key] = previous.sheets[sheet_id].values[key]
        else:
            self._build_graph()
            affected = set(range(len(self.nodes)))
        self.pending = [component for component in self.components if component[0] in affected]
        compiling: set[str] = set()
        self.work = VALUE_WORK * sum(len(sheet.values) + len(sheet.formulas) for sheet in sheets.values())
        for number in affected:
            sheet_id, key = self.nodes[number]
            areas = sum((r2 - r1) * (c2 - c1) for target in self.targets[number].values()
                        if not isinstance(target, FormulaError) for r1, r2, c1, c2 in [target[1]])
            self.work += _formula_work(parse_formula(sheets[sheet_id].formulas[key]), areas, compiling)

    def _same_formulas(self, sheets: dict[int, SheetCells]) -> bool:
        return list(sheets) == list(self.sheets) and all(
            (new.title, new.rows, new.cols, new.formulas) == (old.title, old.rows, old.cols, old.formulas)
            for new, old in zip(sheets.values(), self.sheets.values()))

    def _build_graph(self) -> None:
        sheets = self.sheets
        self.nodes = [(sheet_id, key) for sheet_id, sheet in sheets.items() for key in sorted(sheet.formulas)]
        positions: dict[int, dict[tuple[int, int], int]] = {sheet_id: {} for sheet_id in sheets}
        for number, (sheet_id, key) in enumerate(self.nodes):
            positions[sheet_id][key] = number
        # Each node's references, resolved to (sheet id, rectangle) or an error; its dependencies.
        self.targets: list[dict[str, tuple[int, Rect] | FormulaError]] = []
        self.edges: list[list[int]] = []
        for sheet_id, key in self.nodes:
            parsed = parse_formula(sheets[sheet_id].formulas[key])
            targets: dict[str, tuple[int, Rect] | FormulaError] = {}
            depends: list[int] = []
            for name, reference in parsed.references.items():
                target = sheet_id if reference.title is None else find_sheet(sheets, reference.title)
                if target is None:
                    targets[name] = FormulaError("#REF!", f"Unresolved sheet name '{reference.title}'.")
                    continue
                rect = _clip(reference.bounds, sheets[target])
                targets[name] = (target, rect)
                depends.extend(positions[target][cell] for cell in _cells_in(rect, positions[target]))
            self.targets.append(targets)
            self.edges.append(depends)
        self.dependents: list[list[int]] = [[] for _ in self.nodes]
        for number, depends in enumerate(self.edges):
            for dependency in depends:
                self.dependents[dependency].append(number)
        self.components = _components(self.edges)

    def _affected(self, changed: dict[int, set[tuple[int, int]]]) -> set[int]:
        """The formulas that read a changed plain value, and every formula that reads those."""
        affected: set[int] = set()
        for number, targets in enumerate(self.targets):
            for target in targets.values():
                if not isinstance(target, FormulaError) and changed.get(target[0]) \
                        and _cells_in(target[1], changed[target[0]]):
                    affected.add(number)
                    break
        pending = list(affected)
        while pending:
            for dependent in self.dependents[pending.pop()]:
                if dependent not in affected:
                    affected.add(dependent)
                    pending.append(dependent)
        return affected

    def run(self) -> None:
        arrays: dict[tuple[int, Rect], Any] = {}
        for component in self.pending:
            if len(component) > 1 or component[0] in self.edges[component[0]]:
                for number in component:
                    sheet_id, key = self.nodes[number]
                    self.sheets[sheet_id].values[key] = FormulaError("#REF!", CIRCULAR)
                continue
            number = component[0]
            sheet_id, key = self.nodes[number]
            sheet = self.sheets[sheet_id]
            sheet.values[key] = _evaluate(sheet.formulas[key], self.targets[number], self.sheets, arrays)


def _components(edges: list[list[int]]) -> list[list[int]]:
    """Strongly connected components of the graph (iterative Tarjan), dependencies first."""
    count = len(edges)
    order, low = [-1] * count, [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if order[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                order[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            recurse = False
            targets = edges[node]
            while position < len(targets):
                target = targets[position]
                position += 1
                if order[target] == -1:
                    work.append((node, position))
                    work.append((target, 0))
                    recurse = True
                    break
                if on_stack[target]:
                    low[node] = min(low[node], order[target])
            if recurse:
                continue
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _evaluate(text: str, targets: dict, sheets: dict[int, SheetCells], arrays: dict) -> Any:
    import numpy as np
    from formulas.functions import Error

    parsed = parse_formula(text)
    compiled = compile_formula(parsed.canonical)
    if compiled.error is not None:
        return compiled.error
    empty = _empty()

    def engine_value(value: Any) -> Any:
        if value is None:
            return empty
        if isinstance(value, FormulaError):
            return Error.errors.get(str(value), Error.errors["#VALUE!"])
        return value

    args = []
    for name in compiled.function.inputs:
        target = targets.get(name)
        if target is None:  # a name the references are not: a named range Sheets does not know
            return FormulaError("#NAME?", f"Unknown range name: '{name}'.")
        if isinstance(target, FormulaError):
            return target
        sheet_id, rect = target
        values = sheets[sheet_id].values
        r1, r2, c1, c2 = rect
        if not parsed.references[name].is_range:
            args.append(engine_value(values.get((r1, c1))) if r2 > r1 and c2 > c1 else empty)
            continue
        if (sheet_id, rect) not in arrays:
            array = np.full((r2 - r1, c2 - c1), empty, dtype=object)
            if (r2 - r1) * (c2 - c1) <= len(values):
                for r in range(r1, r2):
                    for c in range(c1, c2):
                        if (r, c) in values:
                            array[r - r1, c - c1] = engine_value(values[(r, c)])
            else:
                for (r, c), value in values.items():
                    if r1 <= r < r2 and c1 <= c < c2:
                        array[r - r1, c - c1] = engine_value(value)
            arrays[(sheet_id, rect)] = array
        args.append(arrays[(sheet_id, rect)])
    try:
        return _plain(compiled.function(*args))
    except Exception:  # noqa: BLE001 - a function the engine lacks or rejects
        return FormulaError("#ERROR!", "The simulated service could not compute this formula.")


def _empty():
    import schedula

    return schedula.EMPTY


def _plain(value: Any) -> Any:
    """A result of the engine as float / str / bool / FormulaError."""
    import numpy as np

    while isinstance(value, np.ndarray):
        if value.size == 0:
            return 0.0
        value = value.reshape(-1)[0] if value.ndim else value[()]
    if value is _empty():
        return 0.0
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else FormulaError("#NUM!")
    text = str(value)
    if type(value).__name__ == "XlError" or text.startswith("#") and text.endswith(("!", "?", "A")):
        return FormulaError(text)
    return text
