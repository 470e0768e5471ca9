"""The library's three tools: typed methods whose schemas ``worlds/tools.py`` derives."""

from __future__ import annotations

from sqlalchemy import select

from toolgym.worlds.example.models import Book, Loan
from toolgym.worlds.tools import ACTION, READ, ToolError, Toolkit, tool


class LibraryTools(Toolkit):
    """Search the catalogue, lend a book, take a book back."""

    @tool(kind=READ, app="Library")
    def search_books(self, query: str) -> list[dict]:
        """Find books whose title or author contains the query.

        Args:
            query: Words of the title or the author's name (case does not matter).
        """
        pattern = f"%{query.strip()}%"
        rows = self.world.session.scalars(
            select(Book).where(Book.title.ilike(pattern) | Book.author.ilike(pattern)).order_by(Book.id)).all()
        return [{"book_id": b.id, "title": b.title, "author": b.author, "copies": b.copies} for b in rows]

    @tool(kind=ACTION, app="Library")
    def borrow_book(self, book_id: int, member: str) -> dict:
        """Lend a copy of a book to a member.

        Args:
            book_id: The book, as search_books returns it.
            member: The member's name.
        """
        book = self.world.session.get(Book, book_id)
        if book is None:
            raise ToolError(f"No book with id {book_id}.")
        if book.copies < 1:
            raise ToolError(f"'{book.title}' has no copy on the shelf.")
        book.copies -= 1
        loan = Loan(book_id=book_id, member=member)
        self.world.session.add(loan)
        self.world.session.flush()
        return {"loan_id": loan.id, "title": book.title, "member": member}

    @tool(kind=ACTION, app="Library")
    def return_book(self, loan_id: int) -> dict:
        """Take a lent book back.

        Args:
            loan_id: The loan, as borrow_book returns it.
        """
        loan = self.world.session.get(Loan, loan_id)
        if loan is None:
            raise ToolError(f"No loan with id {loan_id}.")
        self.world.session.get(Book, loan.book_id).copies += 1
        self.world.session.delete(loan)
        return {"returned": loan_id}
