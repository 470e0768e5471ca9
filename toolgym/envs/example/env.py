"""Example-v0: lend a library book by calling tools (the example of docs/adding-an-env.md)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from toolgym.envs.base import Outcome, ToolEnv
from toolgym.envs.common.actions import TextReply, Unparseable, parse_action
from toolgym.envs.common.metrics import Column
from toolgym.envs.common.official import OfficialLayout
from toolgym.envs.example.tasks import LAYOUT, load_official
from toolgym.worlds.example import LibraryTools, LibraryWorld, builtin_tasks
from toolgym.worlds.example.models import Book

SYSTEM_PROMPT = ("You are a librarian's assistant. Call the library's tools to do what the member asks, "
                 "then answer in plain text.")


class ExampleEnv(ToolEnv):
    """
    ## Description
    A member asks for a book; the agent finds it with ``search_books`` and lends it with
    ``borrow_book`` (``return_book`` undoes a loan). The world is a SQLite library of two
    tables, ``books`` and ``loans``. It is the example env of ``docs/adding-an-env.md``: every
    part an env has, at the smallest size.

    ## Action Space
    A string or dict: a tool call (``{"name": "search_books", "arguments": {"query": "..."}}``,
    an OpenAI tool call or ``search_books(query="...")``); any other text is the answer and
    ends the episode.

    ## Observation Space
    A string: the member's request at reset, each call's result as JSON
    ``{"response": ..., "exception": ...}`` after it.

    ## Rewards
    The "paper" metric is ``success``: at the end exactly one loan exists, of the requested book
    to the requested member. Each step's reward is the change of that metric, so the return
    equals it. ``info["metrics"]`` also has ``calls`` and ``failed_calls``.

    ## Starting State
    ``num_books`` seeded books (``world_seed``), no loans.

    ## Episode End
    Terminated by a text answer; truncated after ``max_steps`` steps.

    ## Arguments
    - ``tasks``: ``"built-in"`` (20 seeded requests) or ``"official"`` (``example/tasks.jsonl``
      under ``data_dir`` or ``$TOOLGYM_DATA``, one ``{"id", "member", "title"}`` per line).
    - ``world_seed`` (0), ``max_steps`` (10), ``db_url`` (the world database).

    ## Version History
    - v0: initial release.
    """

    env_id = "Example-v0"
    table_columns = (Column("Success", "mean", ("success",)),
                     Column("Failed calls", "ratio", ("failed_calls", "calls")))

    def __init__(self, tasks: str = "built-in", split: str | None = None, data_dir: str | None = None,
                 scoring: str = "paper", mode: str | None = None, render_mode: str | None = None,
                 world_seed: int = 0, max_steps: int = 10, db_url: str = "sqlite://"):
        super().__init__(tasks=tasks, split=split, data_dir=data_dir, scoring=scoring, mode=mode,
                         render_mode=render_mode)
        if max_steps < 1:
            raise ValueError(f"{self.env_id}: max_steps must be >= 1, got {max_steps}")
        self.max_steps = max_steps
        self.world = LibraryWorld(url=db_url, seed=world_seed)
        self._initial = self.world.snapshot()
        task_list = load_official(self.env_id, data_dir) if tasks == "official" else builtin_tasks(self.world)
        self.tasks = {task.task_id: task for task in task_list}
        self.tools = LibraryTools.schemas()
        self.task_id = None
        self._done = True
        self._observation = ""

    @classmethod
    def official_layouts(cls) -> dict[str, tuple[OfficialLayout, ...]]:
        return {"": (LAYOUT,)}

    def task_ids(self) -> list[str]:
        return list(self.tasks)

    # -- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        self.task = self.tasks[self._choose_task(options)]
        self.world.restore(self._initial)
        self._calls: list[tuple[str, bool]] = []  # (tool, ok)
        self._done = False
        self._observation = self.task.instruction
        return self._observation, self._with_history(self._info())

    def _act(self, action: Any) -> Outcome:
        parsed = parse_action(action)
        if isinstance(parsed, TextReply):
            self._observation = "Answered."
            return Outcome(self._observation, terminated=True, progress=self._success())
        if isinstance(parsed, Unparseable):
            self._note_invalid_action()
            return self._answer(json.dumps({"response": None, "exception": f"Could not read the call: {parsed.error}"}))
        result = self.world.execute(parsed.name, parsed.arguments)
        self._calls.append((result.name, result.ok))
        return self._answer(result.observation(), progress=self._success())

    def _refuse(self, error: str) -> Outcome:
        return self._answer(json.dumps({"response": None, "exception": error}))

    def _answer(self, observation: str, progress: float | None = None) -> Outcome:
        self._observation = observation
        return Outcome(observation, progress=progress)

    def _success(self) -> int:
        return int(self.world.loans() == [(self.task.title, self.task.member)])

    def _metrics(self) -> dict:
        return {"success": self._success(), "calls": len(self._calls),
                "failed_calls": sum(1 for _, ok in self._calls if not ok)}

    def _info(self) -> dict:
        return {**self.base_info(self.task.task_id), "tools": self.tools,
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": self.task.instruction}]}

    def render(self) -> str | None:
        return self._observation if self.render_mode == "ansi" else None

    # -- oracle ----------------------------------------------------------------------------
    def oracle_action(self) -> Any:
        """Search for the title, lend the first copy found, answer."""
        called = [name for name, ok in self._calls if ok]
        if "search_books" not in called:
            return {"name": "search_books", "arguments": {"query": self.task.title}}
        if "borrow_book" not in called:
            book_id = self.world.session.scalar(select(Book.id).where(Book.title == self.task.title,
                                                                      Book.copies > 0).order_by(Book.id))
            return {"name": "borrow_book", "arguments": {"book_id": book_id, "member": self.task.member}}
        return f"'{self.task.title}' is lent to {self.task.member}."
