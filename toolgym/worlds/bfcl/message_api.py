"""BFCL's MessageAPI: a workspace's users, a login, and an inbox of sent messages.

State (BFCL's attributes): ``user_map`` (name -> user id), ``user_count``, ``inbox`` (one
``{receiver_id: text}`` dict per message, oldest first), ``message_count``, ``current_user``
and ``generated_ids`` (the message ids drawn so far, a set). Tables: ``contacts`` (the user
map), ``sent_messages`` (the inbox) and ``message_ids``; the counts and the user are settings
rows. Message ids come from the world's random stream seeded by the scenario's
``random_seed`` (BFCL's default 200191), so they are the ids BFCL draws. Outputs and errors
word for word as BFCL's class returns them.
"""

from __future__ import annotations

from toolgym.worlds.bfcl.models import Contact, MessageId, SentMessage
from toolgym.worlds.bfcl.world import TableAPI

DEFAULT_RANDOM_SEED = 200191


class MessageAPI(TableAPI):
    class_name = "MessageAPI"
    doc_file = "message_api"
    default_state = {
        "generated_ids": set(), "user_count": 4,
        "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
        "inbox": [{"USR002": "My name is Alice. I want to connect."}, {"USR003": "Could you upload the file?"},
                  {"USR004": "Could you upload the file?"}],
        "message_count": 3, "current_user": None,
    }
    settings = ("user_count", "message_count", "current_user")

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        super().load_scenario(scenario, long_context)
        self._stream("message_ids", scenario.get("random_seed", DEFAULT_RANDOM_SEED))

    def _load_tables(self, values: dict) -> None:
        self._insert_all(Contact, values["user_map"].items())
        self._insert_all(SentMessage, [(message,) for message in values["inbox"]])
        self._insert_all(MessageId, [(message_id,) for message_id in values["generated_ids"]])

    def _read_tables(self) -> dict:
        return {"generated_ids": self._drawn_ids(), "user_map": self._user_map(), "inbox": self._inbox()}

    def _user_map(self) -> dict:
        return {name: user_id for _, name, user_id in self._rows(Contact)}

    def _inbox(self) -> list[dict]:
        return [message for _, message in self._rows(SentMessage)]

    def _drawn_ids(self) -> set:
        return {message_id for _, message_id in self._rows(MessageId)}

    def _new_id(self) -> dict:
        drawn = self._drawn_ids()
        random = self._stream("message_ids")
        new_id = random.randint(10000, 99999)
        while new_id in drawn:
            new_id = random.randint(10000, 99999)
        self._append(MessageId, message_id=new_id)
        return {"new_id": new_id}

    def list_users(self) -> dict:
        """List all users in the workspace."""
        return {"user_list": list(self._user_map().keys())}

    def get_user_id(self, user: str) -> dict:
        """Get user ID from user name."""
        user_map = self._user_map()
        if user not in user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": user_map.get(user)}

    def message_login(self, user_id: str) -> dict:
        """Log in a user with the given user ID to the message application."""
        if user_id not in list(self._user_map().values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self._set("current_user", user_id)
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict:
        """Get the login status of the current user."""
        return {"login_status": bool(self._get("current_user"))}

    def send_message(self, receiver_id: str, message: str) -> dict:
        """Send a message to a user."""
        if not self._get("current_user"):
            return {"error": "No user is currently logged in."}
        if receiver_id not in self._user_map().values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        message_id = self._new_id()
        self._append(SentMessage, record={receiver_id: message})
        self._set("message_count", self._get("message_count") + 1)
        return {"sent_status": True, "message_id": message_id,
                "message": f"Message sent to '{receiver_id}' successfully."}

    def delete_message(self, receiver_id: str) -> dict:
        """Delete the latest message sent to a receiver."""
        if not self._get("current_user"):
            return {"error": "No user is currently logged in."}
        rows = self._rows(SentMessage)
        for _, message in rows[::-1]:
            receiver = next(iter(message))
            if receiver == receiver_id:
                # the first equal message goes, as BFCL's list.remove takes it
                self._delete(SentMessage, next(position for position, other in rows if other == message))
                return {"deleted_status": True, "receiver_id": receiver,
                        "message": f"Receiver {receiver_id}'s latest message deleted successfully."}
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict:
        """View all historical messages sent by the current user."""
        if not self._get("current_user"):
            return {"error": "No user is currently logged in."}
        sent = {}
        for message in self._inbox():
            receiver, text = next(iter(message.items()))
            sent.setdefault(receiver, []).append(text)
        return {"messages": sent}

    def add_contact(self, user_name: str) -> dict:
        """Add a contact to the workspace."""
        user_map = self._user_map()
        if user_name in user_map:
            return {"error": f"User name '{user_name}' already exists."}
        user_count = self._get("user_count") + 1
        self._set("user_count", user_count)
        user_id = f"USR{str(user_count).zfill(3)}"
        if user_id in user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self._append(Contact, name=user_name, user_id=user_id)
        return {"added_status": True, "user_id": user_id, "message": f"Contact '{user_name}' added successfully."}

    def search_messages(self, keyword: str) -> dict:
        """Search for messages containing a specific keyword."""
        if not self._get("current_user"):
            return {"error": "No user is currently logged in."}
        wanted = keyword.lower()
        results = []
        for message in self._inbox():
            receiver, text = next(iter(message.items()))
            if wanted in text.lower():
                results.append({"receiver_id": receiver, "message": text})
        return {"results": results}

    def get_message_stats(self) -> dict:
        """Get statistics about messages for the current user."""
        if not self._get("current_user"):
            return {"error": "No user is currently logged in."}
        receivers = [next(iter(message)) for message in self._inbox()]
        return {"stats": {"received_count": len(receivers), "total_contacts": len(set(receivers))}}
