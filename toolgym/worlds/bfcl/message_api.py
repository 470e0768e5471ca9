"""BFCL's MessageAPI: a workspace's users, a login, and an inbox of sent messages.

State (BFCL's attributes): ``user_map`` (name -> user id), ``user_count``, ``inbox`` (one
``{receiver_id: text}`` dict per message, oldest first), ``message_count``, ``current_user``
and ``generated_ids`` (the message ids drawn so far, a set). Message ids come from a random
generator seeded by the scenario's ``random_seed`` (BFCL's default 200191), so they are the
ids BFCL draws. Outputs and errors word for word as BFCL's class returns them.
"""

from __future__ import annotations

import random

from toolgym.worlds.bfcl.api import BfclAPI

DEFAULT_RANDOM_SEED = 200191


class MessageAPI(BfclAPI):
    class_name = "MessageAPI"
    doc_file = "message_api"
    default_state = {
        "generated_ids": set(), "user_count": 4,
        "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
        "inbox": [{"USR002": "My name is Alice. I want to connect."}, {"USR003": "Could you upload the file?"},
                  {"USR004": "Could you upload the file?"}],
        "message_count": 3, "current_user": None,
    }

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        super().load_scenario(scenario, long_context)
        self._random = random.Random(scenario.get("random_seed", DEFAULT_RANDOM_SEED))

    def _new_id(self) -> dict:
        new_id = self._random.randint(10000, 99999)
        while new_id in self.generated_ids:
            new_id = self._random.randint(10000, 99999)
        self.generated_ids.add(new_id)
        return {"new_id": new_id}

    def list_users(self) -> dict:
        """List all users in the workspace."""
        return {"user_list": list(self.user_map.keys())}

    def get_user_id(self, user: str) -> dict:
        """Get user ID from user name."""
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map.get(user)}

    def message_login(self, user_id: str) -> dict:
        """Log in a user with the given user ID to the message application."""
        if user_id not in list(self.user_map.values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict:
        """Get the login status of the current user."""
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict:
        """Send a message to a user."""
        if not self.current_user:
            return {"error": "No user is currently logged in."}
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        message_id = self._new_id()
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {"sent_status": True, "message_id": message_id,
                "message": f"Message sent to '{receiver_id}' successfully."}

    def delete_message(self, receiver_id: str) -> dict:
        """Delete the latest message sent to a receiver."""
        if not self.current_user:
            return {"error": "No user is currently logged in."}
        for message in self.inbox[::-1]:
            receiver = next(iter(message))
            if receiver == receiver_id:
                self.inbox.remove(message)  # the first equal dict, as BFCL removes it
                return {"deleted_status": True, "receiver_id": receiver,
                        "message": f"Receiver {receiver_id}'s latest message deleted successfully."}
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict:
        """View all historical messages sent by the current user."""
        if not self.current_user:
            return {"error": "No user is currently logged in."}
        sent = {}
        for message in self.inbox:
            receiver, text = next(iter(message.items()))
            sent.setdefault(receiver, []).append(text)
        return {"messages": sent}

    def add_contact(self, user_name: str) -> dict:
        """Add a contact to the workspace."""
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        self.user_count += 1
        user_id = f"USR{str(self.user_count).zfill(3)}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {"added_status": True, "user_id": user_id, "message": f"Contact '{user_name}' added successfully."}

    def search_messages(self, keyword: str) -> dict:
        """Search for messages containing a specific keyword."""
        if not self.current_user:
            return {"error": "No user is currently logged in."}
        wanted = keyword.lower()
        results = []
        for message in self.inbox:
            receiver, text = next(iter(message.items()))
            if wanted in text.lower():
                results.append({"receiver_id": receiver, "message": text})
        return {"results": results}

    def get_message_stats(self) -> dict:
        """Get statistics about messages for the current user."""
        if not self.current_user:
            return {"error": "No user is currently logged in."}
        receivers = [next(iter(message)) for message in self.inbox]
        return {"stats": {"received_count": len(receivers), "total_contacts": len(set(receivers))}}


