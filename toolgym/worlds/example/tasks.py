"""The library's built-in tasks: lend an available book to a member."""

from __future__ import annotations

import random
from dataclasses import dataclass

from sqlalchemy import select

from toolgym.worlds.example.models import Book

MEMBERS = ("Maya", "Noor", "Tomas", "Ines", "Kofi", "Lena")


@dataclass(frozen=True)
class LibraryTask:
    """Lend ``title`` to ``member``: done when the loan exists."""

    task_id: str
    instruction: str
    title: str
    member: str


def builtin_tasks(world, count: int = 20, seed: int = 0) -> list[LibraryTask]:
    """``count`` seeded tasks over the world's books that have a copy on the shelf."""
    rng = random.Random(f"library-tasks-{seed}")
    available = world.session.scalars(select(Book).where(Book.copies > 0).order_by(Book.id)).all()
    tasks = []
    for number in range(count):
        book, member = rng.choice(available), rng.choice(MEMBERS)
        tasks.append(LibraryTask(str(number), f"{member} would like to borrow '{book.title}' by {book.author}.",
                                 book.title, member))
    return tasks
