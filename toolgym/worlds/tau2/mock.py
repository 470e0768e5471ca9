"""τ²-bench's mock domain: users and their tasks; three tools and two environment assertions."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.orm import DeclarativeBase

from toolgym.worlds.tau2.common import TRANSFER_RESULT
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld
from toolgym.worlds.tools import ACTION, READ, Toolkit, ToolError, tool

TaskStatus = Literal["pending", "completed"]


class Base(DeclarativeBase):
    pass


class Task(DocumentRow, Base):
    __tablename__ = "tasks"


class User(DocumentRow, Base):
    __tablename__ = "users"


class MockWorld(DocumentWorld):
    Base = Base
    tables = {"tasks": Task, "users": User}

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.tools = MockTools(self)

    def populate(self) -> None:
        from toolgym.worlds.tau2.tasks import mock_database
        self.load(mock_database(self.seed))


class MockTools(Toolkit):
    """The mock agent's tools, and the assertions its tasks check at the end (not tools)."""

    world: MockWorld

    @tool(kind=ACTION, app="mock")
    def create_task(self, user_id: str, title: str, description: str | None = None) -> dict:
        """Create a new task for a user.

        Args:
            user_id: The ID of the user creating the task
            title: The title of the task
            description: Optional description of the task
        """
        user = self.world.get("users", user_id, f"User {user_id} not found")
        task_id = f"task_{sum(1 for _ in self.world.records('tasks')) + 1}"
        task = {"task_id": task_id, "title": title, "description": description, "status": "pending"}
        self.world.put("tasks", task_id, task)
        user["tasks"].append(task_id)
        self.world.put("users", user_id, user)
        return task

    @tool(kind=READ, app="mock")
    def get_users(self) -> list:
        """Get all users in the database."""
        return list(self.world.records("users"))

    @tool(kind=ACTION, app="mock")
    def update_task_status(self, task_id: str, status: TaskStatus) -> dict:
        """Update the status of a task.

        Args:
            task_id: The ID of the task to update
            status: The new status of the task
        """
        task = self.world.get("tasks", task_id, f"Task {task_id} not found")
        task["status"] = status
        self.world.put("tasks", task_id, task)
        return task

    @tool(kind=READ, app="mock")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the user's issue.

        Args:
            summary: A summary of the user's issue.
        """
        return TRANSFER_RESULT

    # -- environment assertions (τ²'s ``env_assertions``) -----------------------------------
    def assert_number_of_tasks(self, user_id: str, expected_number: int) -> bool:
        return len(self.world.get("users", user_id, f"User {user_id} not found")["tasks"]) == expected_number

    def assert_task_status(self, task_id: str, expected_status: str) -> bool:
        return self.world.get("tasks", task_id, f"Task {task_id} not found")["status"] == expected_status

    assertions = ("assert_number_of_tasks", "assert_task_status")
