"""The core: tool specs derived from signatures, validation, rollback, snapshots, parsing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, Optional

import pytest
from sqlalchemy import Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.envs.common.actions import TextReply, ToolCall, Unparseable, json_text, parse_action
from toolgym.worlds.base import World
from toolgym.worlds.tools import (
    ACTION, MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES, READ, ToolError, Toolkit, argument_problem, parse_docstring,
    ToolParameter, python_call_problem, tool,
)

# A test that hangs fails instead of stalling the suite.
pytestmark = pytest.mark.timeout(60)


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "notes"
    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String)


class NoteWorld(World):
    Base = Base


class NoteTools(Toolkit):
    @tool("AddNote", kind=ACTION, app="Notes")
    def add_note(self, text: str, priority: Literal["low", "high"] = "low", tags: Optional[list[str]] = None) -> dict:
        """Adds a note.

        Args:
            text: The note's text.
            priority: How urgent it is.
            tags: Labels for the note,
                used for search.
        """
        self.world.session.add(Note(text=text))
        self.world.session.flush()
        if text == "boom":
            raise ToolError("Notes cannot say boom.")
        return {"count": len(self.world.session.scalars(select(Note)).all())}

    @tool("CountNotes", kind=READ, app="Notes", needs_login=True, injected=("token",))
    def count_notes(self, token: str, minimum: int = 0) -> dict:
        """Counts notes."""
        return {"count": len(self.world.session.scalars(select(Note)).all()), "token": token}

    @tool("Scribble", kind=ACTION, app="Notes")
    def scribble(self, text: Optional[str] = None, score: float = 0.0, extra: Any = None) -> dict:
        """Changes the aux state, a random stream and the clock, then stores ``text``.

        A None text fails at commit (the column is NOT NULL); "boom" fails before it.
        """
        self.world.aux["last"] = text
        self.world.rng("ids").random()
        self.world.clock.advance(timedelta(hours=1))
        self.world.session.add(Note(text=text))
        if text == "boom":
            raise ToolError("Notes cannot say boom.")
        return {"score": score}


@pytest.fixture
def world():
    return NoteWorld()


def test_schema_is_derived_from_signature_and_docstring():
    schema = NoteTools.specs["AddNote"].schema()["function"]
    assert schema["name"] == "AddNote"
    assert schema["description"] == "Adds a note."
    props = schema["parameters"]["properties"]
    assert props["text"] == {"type": "string", "description": "The note's text."}
    assert props["priority"] == {"type": "string", "enum": ["low", "high"], "description": "How urgent it is."}
    assert props["tags"] == {"type": "array", "items": {"type": "string"},
                             "description": "Labels for the note, used for search."}
    assert schema["parameters"]["required"] == ["text"]
    count = NoteTools.specs["CountNotes"]
    assert count.needs_login and not count.is_action and count.app == "Notes"
    assert "token" not in count.schema()["function"]["parameters"]["properties"]


def test_parse_docstring_sections():
    desc, params = parse_docstring("Does X.\n\nArgs:\n    a (int): first.\n    b: second\n        line.\nReturns:\n    c: no.")
    assert desc == "Does X." and params == {"a": "first.", "b": "second line."}


def test_validation_errors_are_results_not_exceptions(world):
    tools = NoteTools(world)
    r = tools.call("AddNote", {"text": 3})
    assert r.error.startswith("Invalid arguments for AddNote: text:") and r.is_action
    assert tools.call("AddNote", {}).error == "Invalid arguments for AddNote: text: Field required"
    assert "unexpected argument" in tools.call("AddNote", {"text": "a", "colour": "red"}).error
    assert tools.call("AddNote", {"text": "a", "priority": "urgent"}).error.startswith("Invalid arguments")
    assert tools.call("AddNote", ["a"]).error == "Arguments of AddNote must be a JSON object, got list."
    assert tools.call("Nope", {}).error == "Unknown tool 'Nope'." and not tools.call("Nope", {}).known
    assert world.session.scalars(select(Note)).all() == []


class NoteToolsAsGiven(NoteTools):
    arguments_as_given = True


def _python_words(function, arguments: dict) -> str | None:
    try:
        function(**arguments)
    except TypeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("arguments", [{}, {"a": 1}, {"b": 1, "d": 1}, {"a": 1, "b": 2, "c": 3}, {"zz": 1},
                                       {"a": 1, "zz": 1, "yy": 2}, {"it's": 1}, {"d": 1}])
def test_python_call_problem_words_a_call_as_python_does(arguments):
    def invoke(a, b, c, d=0):
        pass

    parameters = {name: ToolParameter(Any, ... if name != "d" else 0) for name in "abcd"}
    expected = _python_words(invoke, arguments)
    assert python_call_problem(invoke.__qualname__, parameters, arguments) == expected


def test_a_toolkit_with_arguments_as_given_runs_its_tools_on_them_uncoerced(world):
    tools = NoteToolsAsGiven(world)
    assert tools.call("Scribble", {"text": "a", "score": 3}).response == {"score": 3}  # an int stays an int
    assert type(tools.call("Scribble", {"text": "a", "score": "3"}).response["score"]) is str
    assert tools.call("AddNote", {}).error == (
        "NoteToolsAsGiven.add_note() missing 1 required positional argument: 'text'")
    assert tools.call("AddNote", {"text": "a", "colour": "red"}).error == (
        "NoteToolsAsGiven.add_note() got an unexpected keyword argument 'colour'")
    assert tools.call("AddNote", {"text": "a", "priority": "urgent"}).ok  # no schema check either
    assert tools.call("Scribble", {"score": float("nan")}).error == (  # the house's bounds still hold
        "Invalid arguments for Scribble: score: nan is not a finite number")
    assert tools.call("CountNotes", {}, injected={"token": "real"}).response == {"count": 3, "token": "real"}


def test_injected_arguments_come_from_the_environment(world):
    tools = NoteTools(world)
    assert tools.call("CountNotes", {}).error == "CountNotes needs 'token', which the environment did not provide."
    r = tools.call("CountNotes", {"token": "forged"}, injected={"token": "real"})
    assert r.response == {"count": 0, "token": "real"} and r.arguments["token"] == "real"


def test_failing_tool_is_rolled_back(world):
    tools = NoteTools(world)
    assert tools.call("AddNote", {"text": "hi"}).response == {"count": 1}
    before = world.state_hash()
    r = tools.call("AddNote", {"text": "boom"})
    assert r.error == "Notes cannot say boom." and r.response is None
    assert world.state_hash() == before
    assert [n.text for n in world.session.scalars(select(Note))] == ["hi"]


@pytest.mark.parametrize("text, error", [
    (None, "IntegrityError: (sqlite3.IntegrityError) NOT NULL constraint failed: notes.text"),
    ("boom", "Notes cannot say boom."),
])
def test_a_failing_tool_leaves_no_trace_anywhere(world, text, error):
    # The database, the aux state, the random streams and the clock all go back; a failure at
    # commit does not leave the session in PendingRollbackError for the next call.
    tools = NoteTools(world)
    world.aux["last"] = "kept"
    world.rng("ids").random()
    before = world.state_hash()
    result = tools.call("Scribble", {"text": text})
    assert result.error == error and result.response is None
    assert world.state_hash() == before and world.aux == {"last": "kept"}
    assert world.clock.now() == datetime(2023, 9, 11, 9)
    assert tools.call("AddNote", {"text": "after"}).response == {"count": 1}


def test_a_random_stream_created_by_a_failing_call_is_dropped(world):
    before = world.state_hash()
    assert NoteTools(world).call("Scribble", {"text": "boom"}).error
    assert world.state_hash() == before


def _nested_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@dataclass(frozen=True)
class Date:
    month: Any
    day: Any
    year: Any


@pytest.mark.parametrize("arguments, problem", [
    ({"text": "a\ud800"}, "text: the text contains a lone surrogate"),
    ({"tags": ["ok", "x\udfff"]}, "tags[1]: the text contains a lone surrogate"),
    ({"x": {"k\ud800": 1}}, "x (a key): the text contains a lone surrogate"),
    ({"n": 2**63}, "n: the integer (64 bits) is outside the signed 64-bit range"),
    ({"n": -(2**63) - 1}, "n: the integer (64 bits) is outside the signed 64-bit range"),
    ({"d": Date(10**20, 1, 2023)}, "d.month: the integer (67 bits) is outside"),
    ({"f": float("nan")}, "f: nan is not a finite number"),
    ({"f": [float("-inf")]}, "f[0]: -inf is not a finite number"),
    ({"deep": _nested_list(MAX_ARGUMENT_DEPTH)}, f"nests more than {MAX_ARGUMENT_DEPTH} levels deep"),
    ({"many": list(range(MAX_ARGUMENT_VALUES))}, f"more than {MAX_ARGUMENT_VALUES} values"),
])
def test_argument_problem_finds_what_the_database_cannot_hold(arguments, problem):
    assert problem in argument_problem(arguments)


def test_argument_problem_accepts_the_extremes_the_database_holds():
    assert argument_problem({"n": [2**63 - 1, -(2**63), True], "f": 1e308, "t": "\U0001f600 é", "d": Date(1, 2, 2023),
                             "x": {"k": None, 3: (1.5, "b")}}) is None


@pytest.mark.parametrize("arguments, problem", [
    ({"text": "a\ud800"}, "Invalid arguments for AddNote: text: the text contains a lone surrogate"),
    ({"text": "a", "tags": ["\udc00"]}, "Invalid arguments for AddNote: tags[0]: the text contains a lone surrogate"),
])
def test_unstorable_arguments_are_refused_before_the_tool_runs(world, arguments, problem):
    before = world.state_hash()
    assert NoteTools(world).call("AddNote", arguments).error.startswith(problem)
    assert world.state_hash() == before


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-Infinity", "1e400"])
def test_non_finite_numbers_are_refused_after_coercion(world, score):
    before = world.state_hash()
    error = NoteTools(world).call("Scribble", {"text": "a", "score": score}).error
    assert error.startswith("Invalid arguments for Scribble: score: ") and "is not a finite number" in error
    assert world.state_hash() == before


def test_integers_beyond_64_bits_are_refused_after_coercion(world):
    tools = NoteTools(world)
    for minimum in (2**63, str(10**30)):
        error = tools.call("CountNotes", {"minimum": minimum}, injected={"token": "t"}).error
        assert error.startswith("Invalid arguments for CountNotes: minimum: the integer")
    assert tools.call("CountNotes", {"minimum": 2**63 - 1}, injected={"token": "t"}).ok


def test_snapshot_restore_and_hash(world, tmp_path):
    tools = NoteTools(world)
    tools.call("AddNote", {"text": "one"})
    world.rng("ids").random()
    snap, digest = world.snapshot(), world.state_hash()
    draw = world.rng("ids").random()
    tools.call("AddNote", {"text": "two"})
    world.clock.advance(timedelta(hours=1))
    assert world.state_hash() != digest
    world.restore(snap)
    assert world.state_hash() == digest
    assert world.rng("ids").random() == draw
    # the same image restores into a file database too
    other = NoteWorld(url=f"sqlite:///{tmp_path / 'notes.db'}")
    other.restore(snap)
    assert [n.text for n in other.session.scalars(select(Note))] == ["one"]
    assert other.clock.now() == world.clock.now() == datetime(2023, 9, 11, 9)


def test_a_snapshots_random_streams_stay_as_they_were(world):
    # A snapshot shares the world's generators until the next draw copies them: draws after it,
    # a restore and more draws must never change what the snapshot restores.
    world.rng("ids").random()
    snap = world.snapshot()
    first = [world.rng("ids").random() for _ in range(3)]
    volatile = world.volatile_state()
    after = world.rng("ids").random()
    world.restore_volatile_state(volatile)
    assert world.rng("ids").random() == after
    for _ in range(2):
        world.restore(snap)
        assert [world.rng("ids").random() for _ in range(3)] == first
    other = NoteWorld()
    other.restore(snap)
    assert [other.rng("ids").random() for _ in range(3)] == first


def test_statements_on_sql_end_with_the_worlds_commit_and_rollback(world):
    db = world.sql()
    db.execute("INSERT INTO notes (text) VALUES ('raw')")
    assert world.has_pending_writes()
    world.rollback()
    assert not world.has_pending_writes() and db.execute("SELECT count(*) FROM notes").fetchone() == (0,)
    db.execute("INSERT INTO notes (text) VALUES ('raw')")
    world.session.add(Note(text="orm"))
    world.commit()
    assert not world.has_pending_writes()
    assert sorted(t for (t,) in db.execute("SELECT text FROM notes")) == ["orm", "raw"]
    with pytest.raises(ZeroDivisionError), world.atomic():  # a failed call undoes both kinds of write
        db.execute("INSERT INTO notes (text) VALUES ('raw 2')")
        world.session.add(Note(text="orm 2"))
        world.session.flush()
        1 / 0
    assert sorted(t for (t,) in db.execute("SELECT text FROM notes")) == ["orm", "raw"]


@pytest.mark.parametrize("action, expected", [
    ('{"name": "A", "arguments": {"x": 1}}', ToolCall("A", {"x": 1})),
    ({"name": "A", "arguments": {"x": 1}}, ToolCall("A", {"x": 1})),
    ({"type": "function", "function": {"name": "A", "arguments": '{"x": 1}'}}, ToolCall("A", {"x": 1})),
    ('{"name": "A", "arguments": "{bad"}', ToolCall("A", "{bad")),
    ('A(x=1, y=[1, "b"], z={"k": None})', ToolCall("A", {"x": 1, "y": [1, "b"], "z": {"k": None}})),
    ('A(-1.5)', ToolCall("A", {"x": -1.5})),
    ("Sure, I'll do that.", TextReply("Sure, I'll do that.")),
    # A reply is told from a call before parsing; these are still read as Python reads them.
    ("Sure (see below).", TextReply("Sure (see below).")),
    ("1 + A(x=1)", TextReply("1 + A(x=1)")),
    ("(A(x=1))", ToolCall("A", {"x": 1})),
    ("# a comment\nA (x=1)", ToolCall("A", {"x": 1})),
    ("", TextReply("")),
    ("__import__('os').system('ls')", TextReply("__import__('os').system('ls')")),
    (Unparseable("(not shown)", "too long"), Unparseable("(not shown)", "too long")),  # already read
])
def test_parse_action(action, expected):
    assert parse_action(action, {"A": ["x", "y"]}) == expected


@pytest.mark.parametrize("action, error", [
    ('{"name": "A", "arguments": ', "malformed JSON"),
    ("[1, 2]", "must be an object"),
    ('{"arguments": {}}', "needs a string 'name'"),
    ("A(x=open('f'))", "must be literals"),
    ("A(x=y)", "must be literals"),
    ("A(**k)", "**kwargs"),
    ("A(1, 2, 3)", "takes its arguments by name"),
    (42, "actions are strings or dicts"),
])
def test_parse_action_rejections(action, error):
    parsed = parse_action(action, {"A": ["x", "y"]})
    assert isinstance(parsed, Unparseable) and error in parsed.error


def test_json_text_is_json_dumps_with_str_for_the_rest_and_its_errors():
    import datetime
    import json

    for value in ([{"a": 1, "b": [1.5, float("nan"), None, True, "é\u2028"]}], "x", 3, 1e300,
                  {1: 2, None: 3, 2.5: "x"}, {"d": datetime.date(2020, 1, 1)}, [], (1, 2)):
        assert json_text(value) == json.dumps(value, default=str)
    circular: list = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference detected"):
        json_text(circular)
    with pytest.raises(TypeError, match="keys must be"):
        json_text({(1, 2): 3})


def test_jsontext_dumps_writes_json_dumps_text_and_raises_its_errors():
    import datetime
    import json

    from toolgym.worlds import jsontext

    write = jsontext.dumps()
    for value in ({"a": [1, 2.5, None, False, "é\ud800"], "b": {"c": -0.0}}, "x", 10 ** 30, [], {1: 2}):
        assert write(value) == json.dumps(value)
    with pytest.raises(TypeError, match="is not JSON serializable"):
        write({"d": datetime.date(2020, 1, 1)})
    circular: dict = {}
    circular["self"] = circular
    with pytest.raises(ValueError, match="Circular reference detected"):
        write(circular)
