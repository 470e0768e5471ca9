"""Reading VirtualHome action programs: lines, grounding, executability and LCS.

Two readings:

- toolgym's (``scoring="paper"``): each line is cleaned as the released evaluator does (quotes
  and semicolons removed, a leading ``12. `` numbering dropped, whitespace stripped; reading
  stops at a line starting with ``Task:``; blank lines are skipped), a VirtualHome script line
  ``[Walk] <sofa> (1)`` becomes ``Agent.WalkTo(sofa)``, and the line is parsed by toolgym's
  interpreter with the ``Agent`` profile (:data:`PROFILE`): exactly one ``Agent.<Action>(...)``
  call whose arguments are object names (or strings). It is executable when the action is one
  of the 40, has its arity and each argument is a valid object for its place. Lines compare
  (LCS) in their canonical form ``Agent.X(a, b)``.
- the released evaluator's (``scoring="paper_compat"``, :func:`compat_ground_line`): the same
  cleaning, then its regular expressions: the text before the first ``(`` must be a key of the
  valid-object lists, the text inside the first ``(...)`` is split on commas; one argument is
  checked against ``object``, two against ``object1``/``object2``, an empty argument list is
  executable only for an action that takes none; lines compare as cleaned text.

Nothing is evaluated: the interpreter only parses and checks a line here, and runs it against
the home's ``Agent`` namespace in :class:`toolgym.envs.virtualhome.VirtualHomeEnv`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from collections.abc import Mapping, Sequence

from toolgym.worlds.interpreter import Budgets, Profile, ProgramError, check

#: ``Agent.<Action>(...)`` lines: one call statement, object names or strings as arguments.
PROFILE = Profile(
    name="Agent actions",
    statements=frozenset({ast.Expr}),
    expressions=frozenset({ast.Constant, ast.Name, ast.Load, ast.Call}),
    namespaces={"Agent": frozenset()},  # filled per action list by :func:`profile`
    bare_expressions=False,
    nested_namespace_calls=False,
    budgets=Budgets(max_program_chars=1_000, max_statements=1, max_steps=50, max_work=10_000),
)

#: The longest program read (characters); the env refuses longer actions unread.
MAX_PROGRAM_CHARS = 20_000
_NUMBERING = re.compile(r"^\d+\. *")
# A script line is ``[Action]``, then ``<object> (id)`` items, then nothing but spaces: read item by
# item, since one pattern repeating the items would nest quantifiers (docs/development.md).
_SCRIPT_ACTION = re.compile(r"\[(\w+)\]")
_SCRIPT_ITEM = re.compile(r"\s*<([^<>()]+)>\s*\(\s*[\d.]+\s*\)")
_ARGUMENTS = re.compile(r"\((.*?)\)")
#: VirtualHome script action -> the task's action (the others keep their name).
SCRIPT_ACTIONS = {"Walk": "WalkTo", "Run": "RunTo", "WalkTowards": "WalkTo", "Sit": "SitOn", "Lie": "LieOn",
                  "Type": "TypeOn", "PutObjBack": "PutBack", "PutOff": "TakeOff", "Release": "Drop"}
#: VirtualHome's two-argument PutBack is "put on".
SCRIPT_TWO_ARGUMENT_ACTIONS = {"PutBack": "Put"}


def profile(actions: Sequence[str]) -> Profile:
    """The ``Agent`` profile for an action list."""
    return Profile(name=PROFILE.name, statements=PROFILE.statements, expressions=PROFILE.expressions,
                   namespaces={"Agent": frozenset(actions)}, bare_expressions=False, nested_namespace_calls=False,
                   budgets=PROFILE.budgets)


class ObjectNames(dict):
    """Interpreter variables in which every name stands for itself: ``Agent.Find(sofa)`` passes
    ``"sofa"``; whether the home has a sofa is the action's business, not a name error."""

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str)

    def __getitem__(self, key: str) -> str:
        return key


def clean_line(line: str) -> str:
    """A line cleaned as the released evaluator does (quotes, semicolons, numbering, whitespace)."""
    line = line.replace('"', "").replace("'", "").replace(";", "")
    return _NUMBERING.sub("", line.strip()).strip()


def program_lines(text: str) -> list[str]:
    """The cleaned, non-blank lines of a program, up to a line starting with ``Task:``."""
    lines = []
    for raw in text.split("\n"):
        raw = raw.strip()
        if raw.startswith("Task:"):
            break
        if not raw:
            continue
        line = clean_line(raw)
        if line:
            lines.append(line)
    return lines


def script_to_agent(line: str) -> str | None:
    """``[Walk] <sofa> (1)`` -> ``Agent.WalkTo(sofa)``; None if ``line`` is not a script line."""
    match = _SCRIPT_ACTION.match(line)
    if match is None:
        return None
    action, position, objects = match.group(1), match.end(), []
    while (item := _SCRIPT_ITEM.match(line, position)) is not None:
        objects.append(item.group(1).strip().replace(" ", "_").lower())
        position = item.end()
    if line[position:] and not line[position:].isspace():
        return None
    if len(objects) == 2 and action in SCRIPT_TWO_ARGUMENT_ACTIONS:
        action = SCRIPT_TWO_ARGUMENT_ACTIONS[action]
    else:
        action = SCRIPT_ACTIONS.get(action, action)
    return f"Agent.{action}({', '.join(objects)})"


@dataclass(frozen=True)
class Line:
    """One line of a program as toolgym reads it.

    Attributes:
        text: The cleaned line (script lines already written as ``Agent.X(...)``).
        action: The action's name, or None when the line is no ``Agent.X(...)`` call.
        arguments: The arguments (object names; other literals as written).
        error: Why the line is not executable, or None.
    """

    text: str
    action: str | None
    arguments: tuple
    error: str | None

    @property
    def executable(self) -> bool:
        return self.error is None

    @property
    def canonical(self) -> str:
        """The form lines are compared in: ``Agent.X(a, b)``, or the cleaned text."""
        if self.action is None:
            return self.text
        return f"Agent.{self.action}({', '.join(str(a) for a in self.arguments)})"


def read_line(line: str, valid: Mapping[str, Mapping[str, Sequence[str]]], agent_profile: Profile) -> Line:
    """Parse and ground one cleaned line against ``valid`` (the released format of object lists)."""
    text = script_to_agent(line) or line
    try:
        program = check(text, agent_profile)
    except ProgramError as exc:
        return Line(text, None, (), f"not an Agent.<Action>(...) call: {exc}")
    if len(program.statements) != 1:
        return Line(text, None, (), "not an Agent.<Action>(...) call")
    call = program.statements[0].node.value
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return Line(text, None, (), "not an Agent.<Action>(...) call")
    action = call.func.attr
    if call.keywords:
        return Line(text, action, (), f"Agent.{action} takes object names, not keywords")
    arguments = tuple(a.id if isinstance(a, ast.Name) else a.value for a in call.args)
    keys = list(valid.get(f"Agent.{action}", {}))
    if f"Agent.{action}" not in valid:
        return Line(text, action, arguments, f"there is no action {action!r}")
    if len(arguments) != len(keys):
        return Line(text, action, arguments, f"Agent.{action} takes {len(keys)} object(s), got {len(arguments)}")
    for key, argument in zip(keys, arguments):
        if not isinstance(argument, str) or argument not in _as_set(valid, action, key):
            shown = str(argument)[:60]
            return Line(text, action, arguments, f"{shown!r} is not a valid object for Agent.{action}")
    return Line(text, action, arguments, None)


_SETS: dict[tuple[int, str, str], frozenset] = {}


def _as_set(valid: Mapping, action: str, key: str) -> frozenset:
    cache_key = (id(valid), action, key)
    found = _SETS.get(cache_key)
    if found is None:
        found = _SETS[cache_key] = frozenset(valid[f"Agent.{action}"][key])
    return found


def compat_ground_line(line: str, valid: Mapping[str, Mapping[str, Sequence[str]]]) -> bool:
    """Whether the released evaluator's ``ground_line`` calls a cleaned line executable."""
    api_call = line.split("(")[0]
    if api_call not in valid:
        return False
    found = _ARGUMENTS.findall(line)
    if not found:
        return False
    objects = found[0].split(",")
    lists = valid[api_call]
    if len(objects) == 2:
        if set(lists) != {"object1", "object2"}:
            return False
        return all(o.strip() in lists[f"object{i + 1}"] for i, o in enumerate(objects))
    if len(objects) == 1:
        obj = objects[0].strip()
        if obj:
            return "object" in lists and obj in lists["object"]
        return dict(lists) == {}
    return False


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two sequences of lines."""
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def lcs_score(prediction: Sequence[str], label: Sequence[str]) -> float:
    """LCS normalised by the longer length (0 when both are empty)."""
    longest = max(len(prediction), len(label))
    return lcs_length(prediction, label) / longest if longest else 0.0


def best_lcs(prediction: Sequence[str], labels: Sequence[Sequence[str]]) -> tuple[float, int]:
    """The best LCS score over ``labels`` and the index of the first label that reaches it."""
    best, index = -1.0, 0
    for i, label in enumerate(labels):
        score = lcs_score(prediction, label)
        if score > best:
            best, index = score, i
    return max(best, 0.0), index
