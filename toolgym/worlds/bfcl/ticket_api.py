"""BFCL's TicketAPI: a company's support-ticket queue behind a simple login.

State (BFCL's attributes): ``ticket_queue`` (ticket dicts with id, title, description,
status, priority, created_by and, once resolved, resolution), ``ticket_counter`` (the next
id) and ``current_user`` (``None`` until ``ticket_login``). The queue is the ``tickets``
table, one ticket a row in queue order; the counter and the user are settings rows
(:mod:`toolgym.worlds.bfcl.models`). Outputs and errors word for word as BFCL's class
returns them.
"""

from __future__ import annotations

from typing import Optional

from toolgym.worlds.bfcl.models import Ticket
from toolgym.worlds.bfcl.world import TableAPI


class TicketAPI(TableAPI):
    class_name = "TicketAPI"
    doc_file = "ticket_api"
    default_state = {"ticket_queue": [], "ticket_counter": 1, "current_user": None}
    settings = ("ticket_counter", "current_user")

    def _load_tables(self, values: dict) -> None:
        self._insert_all(Ticket, [(ticket,) for ticket in values["ticket_queue"]])

    def _read_tables(self) -> dict:
        return {"ticket_queue": self._tickets()}

    def _tickets(self) -> list[dict]:
        return [ticket for _, ticket in self._rows(Ticket)]

    def _ticket_row(self, ticket_id: int) -> Optional[tuple[int, dict]]:
        """``(position, ticket)`` of the first ticket whose id is ``ticket_id``.

        Python's ``==`` (``1 == 1.0 == True``) as BFCL compares ids, so the lookup is not SQL's.
        """
        return next((row for row in self._rows(Ticket) if row[1]["id"] == ticket_id), None)

    def _change(self, row: tuple[int, dict], **fields) -> None:
        position, ticket = row
        self._update(Ticket, position, record={**ticket, **fields})  # keys keep their order, new ones last

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict:
        """Create a ticket in the system and queue it.

        Args:
            title: Title of the ticket.
            description: Description of the ticket; empty by default.
            priority: Priority from 1 to 5, 5 the highest; 1 by default.
        """
        user = self._get("current_user")
        if not user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        counter = self._get("ticket_counter")
        ticket = {"id": counter, "title": title, "description": description,
                  "status": "Open", "priority": priority, "created_by": user}
        self._append(Ticket, record=ticket)
        self._set("ticket_counter", counter + 1)
        return ticket

    def get_ticket(self, ticket_id: int) -> dict:
        """Get a specific ticket by its ID.

        Args:
            ticket_id: ID of the ticket to look up.
        """
        row = self._ticket_row(ticket_id)
        return row[1] if row else {"error": f"Ticket with ID {ticket_id} not found."}

    def close_ticket(self, ticket_id: int) -> dict:
        """Close a ticket.

        Args:
            ticket_id: ID of the ticket to close.
        """
        row = self._ticket_row(ticket_id)
        if not row:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if row[1]["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        self._change(row, status="Closed")
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict:
        """Resolve a ticket with a resolution.

        Args:
            ticket_id: ID of the ticket to resolve.
            resolution: How the ticket was resolved.
        """
        row = self._ticket_row(ticket_id)
        if not row:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if row[1]["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        self._change(row, status="Resolved", resolution=resolution)
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict) -> dict:
        """Modify the details of an existing ticket.

        Args:
            ticket_id: ID of the ticket to change.
            updates: The fields to change and their new values: any of title, description, status and priority.
        """
        row = self._ticket_row(ticket_id)
        if not row:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        # BFCL joins a set, so several invalid fields come in hash order; one is exact.
        invalid = set(updates.keys()) - {"title", "description", "status", "priority"}
        if invalid:
            return {"error": f"Invalid fields for update: {', '.join(invalid)}"}
        self._change(row, **{key: value for key, value in updates.items() if value is not None})
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def ticket_login(self, username: str, password: str) -> dict:
        """Authenticate a user for ticket system.

        Args:
            username: The user's name.
            password: The user's password.
        """
        if username and password:
            self._set("current_user", username)
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict:
        """Get the login status of the currently authenticated user."""
        return {"login_status": bool(self._get("current_user"))}

    def logout(self) -> dict:
        """Log out the current user."""
        if self._get("current_user"):
            self._set("current_user", None)
            return {"success": True}
        return {"success": False}

    def get_user_tickets(self, status: Optional[str] = None) -> list:
        """Get all tickets created by the current user, optionally filtered by status.

        Args:
            status: Only tickets with this status; all of the user's tickets when None.
        """
        user = self._get("current_user")
        if not user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        mine = [ticket for ticket in self._tickets() if ticket["created_by"] == user]
        if status:
            mine = [t for t in mine if t["status"].lower() == status.lower()]
        return mine
