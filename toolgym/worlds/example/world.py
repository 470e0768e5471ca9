"""The library world: seeded books, no loans at the start."""

from __future__ import annotations

import random

from sqlalchemy import select

from toolgym.worlds.base import World
from toolgym.worlds.example.models import Base, Book, Loan
from toolgym.worlds.example.tools import LibraryTools
from toolgym.worlds.tools import ToolResult

AUTHORS = ("Ada Byron", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov")
SUBJECTS = ("Compilers", "Databases", "Networks", "Graphs", "Types", "Logic", "Proofs", "Machines")
FORMS = ("Notes on {}", "A Primer of {}", "{} in Practice", "The Art of {}")


class LibraryWorld(World):
    """A library of seeded books and the loans made during an episode.

    Args:
        url: The world database (in-memory SQLite by default).
        seed: Seeds the catalogue.
        num_books: How many books the catalogue holds.
    """

    Base = Base

    def __init__(self, url: str = "sqlite://", seed: int = 0, num_books: int = 24):
        self.num_books = num_books  # populate() reads it
        super().__init__(url=url, seed=seed)
        self.tools = LibraryTools(self)

    def generator_parameters(self) -> dict:
        return {"num_books": self.num_books}

    def populate(self) -> None:
        rng = random.Random(f"library-{self.seed}")
        titles = [form.format(subject) for form in FORMS for subject in SUBJECTS]
        with self.atomic():
            for book_id, title in enumerate(rng.sample(titles, self.num_books), 1):
                self.session.add(Book(id=book_id, title=title, author=rng.choice(AUTHORS), copies=rng.randint(0, 3)))

    def execute(self, name: str, arguments) -> ToolResult:
        """Run one tool call; a failing call leaves the world unchanged."""
        return self.tools.call(name, arguments)

    def loans(self) -> list[tuple[str, str]]:
        """The loans as (title, member), in the order they were made."""
        rows = self.session.execute(select(Book.title, Loan.member).join(Book, Book.id == Loan.book_id)
                                    .order_by(Loan.id)).all()
        return [(title, member) for title, member in rows]
