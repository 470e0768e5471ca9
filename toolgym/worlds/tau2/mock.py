"""τ²-bench's mock domain: users and their tasks (the agent's tools), and the user's notification
inbox (the user's tools): a small dual-control domain for tests."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.orm import DeclarativeBase

from toolgym.worlds.tau2.common import TRANSFER_RESULT, Tau2Toolkit
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld
from toolgym.worlds.tools import ACTION, READ, tool

TaskStatus = Literal["pending", "completed"]


class Base(DeclarativeBase):
    pass


class Task(DocumentRow, Base):
    __tablename__ = "tasks"


class User(DocumentRow, Base):
    __tablename__ = "users"


class Notification(DocumentRow, Base):
    """The user's side: τ²'s ``user_db.json`` notifications."""

    __tablename__ = "notifications"


class MockWorld(DocumentWorld):
    Base = Base
    tables = {"tasks": Task, "users": User, "notifications": Notification}

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.tools = MockTools(self)
        self.user_tools = MockUserTools(self)

    def populate(self) -> None:
        from toolgym.worlds.tau2.tasks import mock_database
        self.load(mock_database(self.seed))


class MockTools(Tau2Toolkit):
    """The mock agent's tools, and the assertions its tasks check at the end (not tools)."""

    world: MockWorld

    # τ²'s signature (``str = None``): its derived schema has no null option, so neither has ours
    @tool(kind=ACTION, app="mock")
    def create_task(self, user_id: str, title: str, description: str = None) -> dict:  # noqa: RUF013
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
        """Transfer the user to a human agent, with a summary of the user's issue.
        Only transfer if
         -  the user explicitly asks for a human agent
         -  given the policy and the available tools, you cannot solve the user's issue.

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


class MockUserTools(Tau2Toolkit):
    """The mock user's notification inbox (τ²-bench's ``MockUserTools``)."""

    world: MockWorld

    @tool(kind=READ, app="inbox")
    def check_notifications(self) -> list:
        """Check all notifications in the user's inbox."""
        return list(self.world.records("notifications"))

    @tool(kind=ACTION, app="inbox")
    def dismiss_notification(self, notification_id: str) -> str:
        """Dismiss (mark as read) a notification.

        Args:
            notification_id: The ID of the notification to dismiss.
        """
        notification = self.world.get("notifications", notification_id, f"Notification {notification_id} not found")
        notification["status"] = "read"
        self.world.put("notifications", notification_id, notification)
        return f"Notification {notification_id} dismissed"

    def add_notification(self, notification_id: str, message: str, task_id: str | None = None) -> dict:
        notification = {"notification_id": notification_id, "message": message, "status": "unread", "task_id": task_id}
        self.world.put("notifications", notification_id, notification)
        return notification

    def assert_notification_status(self, notification_id: str, expected_status: str) -> bool:
        notification = self.world.get("notifications", notification_id, f"Notification {notification_id} not found")
        return notification["status"] == expected_status

    functions = ("add_notification",)
    assertions = ("assert_notification_status",)
