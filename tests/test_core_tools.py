"""The core: tool specs derived from signatures, validation, rollback, snapshots, parsing."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal, Optional

import pytest
from sqlalchemy import Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.envs.actions import TextReply, ToolCall, Unparseable, parse_action
from toolgym.worlds.base import World
from toolgym.worlds.tools import ACTION, READ, ToolError, Toolkit, parse_docstring, tool


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


@pytest.mark.parametrize("action, expected", [
    ('{"name": "A", "arguments": {"x": 1}}', ToolCall("A", {"x": 1})),
    ({"name": "A", "arguments": {"x": 1}}, ToolCall("A", {"x": 1})),
    ({"type": "function", "function": {"name": "A", "arguments": '{"x": 1}'}}, ToolCall("A", {"x": 1})),
    ('{"name": "A", "arguments": "{bad"}', ToolCall("A", "{bad")),
    ('A(x=1, y=[1, "b"], z={"k": None})', ToolCall("A", {"x": 1, "y": [1, "b"], "z": {"k": None}})),
    ('A(-1.5)', ToolCall("A", {"x": -1.5})),
    ("Sure, I'll do that.", TextReply("Sure, I'll do that.")),
    ("", TextReply("")),
    ("__import__('os').system('ls')", TextReply("__import__('os').system('ls')")),
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
