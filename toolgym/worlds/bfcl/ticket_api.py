"""BFCL's TicketAPI: a company's support-ticket queue behind a simple login.

State (BFCL's attributes): ``ticket_queue`` (ticket dicts with id, title, description,
status, priority, created_by and, once resolved, resolution), ``ticket_counter`` (the next
id) and ``current_user`` (``None`` until ``ticket_login``). Outputs and errors word for word
as BFCL's class returns them.
"""

from __future__ import annotations

from typing import Optional

from toolgym.worlds.bfcl.api import BfclAPI


class TicketAPI(BfclAPI):
    class_name = "TicketAPI"
    doc_file = "ticket_api"
    default_state = {"ticket_queue": [], "ticket_counter": 1, "current_user": None}

    def _ticket(self, ticket_id: int) -> Optional[dict]:
        return next((t for t in self.ticket_queue if t["id"] == ticket_id), None)

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict:
        """Create a ticket in the system and queue it."""
        if not self.current_user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        ticket = {"id": self.ticket_counter, "title": title, "description": description,
                  "status": "Open", "priority": priority, "created_by": self.current_user}
        self.ticket_queue.append(ticket)
        self.ticket_counter += 1
        return ticket

    def get_ticket(self, ticket_id: int) -> dict:
        """Get a specific ticket by its ID."""
        ticket = self._ticket(ticket_id)
        return ticket if ticket else {"error": f"Ticket with ID {ticket_id} not found."}

    def close_ticket(self, ticket_id: int) -> dict:
        """Close a ticket."""
        ticket = self._ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        ticket["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict:
        """Resolve a ticket with a resolution."""
        ticket = self._ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        ticket["status"] = "Resolved"
        ticket["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict) -> dict:
        """Modify the details of an existing ticket."""
        ticket = self._ticket(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        # BFCL joins a set, so several invalid fields come in hash order; one is exact.
        invalid = set(updates.keys()) - {"title", "description", "status", "priority"}
        if invalid:
            return {"error": f"Invalid fields for update: {', '.join(invalid)}"}
        for key, value in updates.items():
            if value is not None:
                ticket[key] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def ticket_login(self, username: str, password: str) -> dict:
        """Authenticate a user for ticket system."""
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict:
        """Get the login status of the currently authenticated user."""
        return {"login_status": bool(self.current_user)}

    def logout(self) -> dict:
        """Log out the current user."""
        if self.current_user:
            self.current_user = None
            return {"success": True}
        return {"success": False}

    def get_user_tickets(self, status: Optional[str] = None) -> list:
        """Get all tickets created by the current user, optionally filtered by status."""
        if not self.current_user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        mine = [t for t in self.ticket_queue if t["created_by"] == self.current_user]
        if status:
            mine = [t for t in mine if t["status"].lower() == status.lower()]
        return mine
