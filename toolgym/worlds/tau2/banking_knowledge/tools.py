"""τ³-bench's banking_knowledge tools: the agent's (``KnowledgeTools``), the discoverable ones the
agent unlocks, and the customer's (``KnowledgeUserTools``).

Behaviour, names, docstrings (the schemas' and the unlock answers' texts) and output texts are τ³'s
(``domains/banking_knowledge/tools.py`` and ``db_query.py`` at a2c0247). As there, a tool that
refuses answers a text beginning ``Error:`` (a result, not a failed call); the arguments reach the
tools as given; a discoverable tool may also be called by its own name, as τ³'s toolkit lists it
among its tools (unlocking is needed only for ``call_discoverable_agent_tool``).

Records are read from the world's document tables and written back whole (:meth:`BankTools._save`),
where τ³ changes its dicts in place.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import operator
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, Optional, get_args

from toolgym.worlds.tau2.banking_knowledge import READ_LOG_ALLOWLIST, TABLES, UNLOCKED
from toolgym.worlds.tau2.common import Tau2Toolkit
from toolgym.worlds.tools import (ACTION, READ, ToolKind, ToolResult, ToolSpec, _build_spec, argument_problem,
                                  python_call_problem, tool)

#: Where τ³'s tools are defined (Python's words for some failed calls name it).
TAU3_MODULE = "tau2.domains.banking_knowledge.tools"
#: τ³'s fixed clock for every scenario (``utils.get_today_str`` / ``get_now``).
TODAY = "11/14/2025"
NOW = datetime(2025, 11, 14, 3, 40, 0)

TransferReasonLiteral = Literal[
    "fraud_or_security_concern", "account_closure_request", "deceased_account_holder", "legal_or_regulatory_matter",
    "account_ownership_dispute", "complex_billing_dispute", "abusive_customer_behavior", "third_party_inquiry",
    "technical_system_error", "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal", "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required", "accessibility_or_special_needs", "customer_frustrated_demands_human",
    "supervisor_request_service_complaint", "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup", "other"]

#: The tables ``query_database_tool`` knows, in its order (``db_query._load_databases``).
QUERY_TABLES = ("users", "accounts", "referrals", "credit_card_applications", "user_discoverable_tools",
                "user_discoverable_tool_calls", "agent_discoverable_tools", "task_config", "verification_history",
                "credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
                "credit_card_accounts", "human_transfer_requests", "transaction_disputes", "credit_card_orders",
                "credit_card_closure_reasons", "credit_card_account_flags", "debit_cards", "debit_card_orders",
                "debit_card_disputes", "credit_limit_increase_requests", "payment_history")
NOT_FOUND = ("No records found", "No results found")

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "gt": operator.gt, "gte": operator.ge, "lt": operator.lt,
    "lte": operator.le,
    "contains": lambda a, b: b in a if a is not None else False,
    "startswith": lambda a, b: str(a).startswith(str(b)) if a is not None else False,
    "endswith": lambda a, b: str(a).endswith(str(b)) if a is not None else False,
    "in": lambda a, b: a in b,
    "nin": lambda a, b: a not in b,
}


# -- τ³'s deterministic ids (``utils.py``) ------------------------------------------------------
def hex_id(seed: str, length: int = 16) -> str:
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


def transaction_id(user_id, card_type, merchant, amount, category) -> str:
    return f"txn_{hex_id(':'.join(['transaction', user_id, card_type, merchant, f'{amount:.2f}', category]), 12)}"


def cli_request_id(account_id, user_id, amount) -> str:
    return f"cli_{hex_id(f'cli_request:{account_id}:{user_id}:{amount:.2f}', 12)}"


def _matches(record: dict, constraints: dict) -> bool:
    """``db_query._record_matches``: every ``field__op`` constraint holds (a comparison that raises does not)."""
    for key, expected in constraints.items():
        field, op = key.rsplit("__", 1) if "__" in key else (key, "eq")
        compare = _OPERATORS.get(op, operator.eq)
        try:
            if not compare(record.get(field), expected):
                return False
        except (TypeError, ValueError):
            return False
    return True


def _balance(value: Any) -> float:
    """τ³'s ``_parse_balance``: a number, or a text such as ``'$2,850.00'``."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def _account_balance(account: dict) -> float:
    return _balance(account.get("current_holdings", account.get("balance", 0)))


def _money(value: Any) -> float:
    """A dollar text (``'$4,000.00'``) as a number, 0.0 when it is none."""
    try:
        return float(str(value).replace("$", "").replace(",", ""))
    except (ValueError, TypeError):
        return 0.0


def _title(code: str) -> str:
    return code.replace("_", " ").title()


def _days_since(date_text: Any) -> int:
    """Days from an ``MM/DD/YYYY`` date to τ³'s now (0 when it is no such date)."""
    try:
        return (NOW - datetime.strptime(date_text, "%m/%d/%Y")).days
    except ValueError:
        return 0


_SEQUENTIAL_PINS = ("0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654", "6543", "5432",
                    "4321", "3210")


def _pin_problem(pin) -> str | None:
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in _SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


# -- discoverable tools --------------------------------------------------------------------
def discoverable(kind: ToolKind) -> Callable:
    """Mark a method as a discoverable tool (τ³'s ``is_discoverable_tool``): not offered in the
    schemas; ``ACTION`` where τ³'s type is WRITE (its calls are logged and replayed), else ``READ``."""

    def mark(fn: Callable) -> Callable:
        fn.__discoverable__ = kind
        return fn

    return mark


def tool_info(method: Callable) -> dict:
    """τ³'s ``parse_discoverable_tool_docstring``: the description (the docstring before ``Args:``)
    and each parameter's type, text and whether it is required (read from our own docstrings)."""
    doc = inspect.getdoc(method) or ""
    parts = re.split(r"\n\s*Args:\s*\n", doc, maxsplit=1)
    parameters = {}
    if len(parts) > 1:
        section = re.split(r"\n\s*Returns:\s*\n", parts[1], maxsplit=1)[0]
        for match in re.finditer(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", section, re.MULTILINE):
            type_info = match.group(2) or "string"
            parameters[match.group(1)] = {
                "type": re.sub(r",?\s*optional", "", type_info, flags=re.IGNORECASE).strip() or "string",
                "description": match.group(3).strip(), "required": "optional" not in type_info.lower()}
    return {"name": method.__name__, "description": parts[0].strip(), "parameters": parameters}


def format_tool_for_agent(info: dict) -> str:
    """τ³'s ``format_discoverable_tool_for_agent``."""
    lines = [f"  - {name}: {p['type']}{' (required)' if p['required'] else ' (optional)'} - {p['description']}"
             for name, p in info["parameters"].items()]
    parameters = "\n".join(lines) if lines else "  (no parameters)"
    return f"Tool: {info['name']}\nDescription: {info['description']}\nParameters:\n{parameters}"


def _parse_arguments(arguments: Any) -> tuple[Any, str | None]:
    """``json.loads(arguments, parse_int=float)`` as τ³'s call tools do (every number a float), or
    its error text; an argument that is not text fails with Python's words, as there."""
    try:
        value = json.loads(arguments, parse_int=float)
    except json.JSONDecodeError as error:
        return None, f"Error: Invalid JSON in arguments: {error}"
    problem = argument_problem({"arguments": value})
    if problem is not None:  # the house's bounds on what a record may hold
        return None, f"Error: Invalid JSON in arguments: {problem}"
    return value, None


class BankTools(Tau2Toolkit):
    """What both sides' toolkits share: τ³'s record access (``db_query``) over the world's tables,
    and discoverable tools callable by name without a schema."""

    discoverable_specs: dict[str, ToolSpec] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.discoverable_specs = {}
        for attr in dir(cls):
            kind = getattr(getattr(cls, attr), "__discoverable__", None)
            if kind is not None:
                cls.discoverable_specs[attr] = _build_spec(getattr(cls, attr), attr, dict(
                    name=attr, kind=kind, app="banking_knowledge", needs_login=False, injected=()))

    def call(self, name: str, arguments: Any, injected: dict | None = None) -> ToolResult:
        spec = self.discoverable_specs.get(name) if isinstance(name, str) and name not in self.specs else None
        if spec is None:
            return super().call(name, arguments, injected)
        if not isinstance(arguments, dict):
            return ToolResult(name=name, arguments={}, is_action=spec.is_action,
                              error=f"Arguments of {name} must be a JSON object, got {type(arguments).__name__}.")
        problem = self.binding_problem(spec, arguments)
        if problem is not None:
            return ToolResult(name=name, arguments=dict(arguments), is_action=spec.is_action, error=problem)
        return self.run(spec, dict(arguments))

    def binding_problem(self, spec: ToolSpec, arguments: dict) -> str | None:
        # Python names the function by where it is defined (``KnowledgeTools.log_verification``)
        return python_call_problem(getattr(type(self), spec.method_name).__qualname__, spec.parameters, arguments)

    def _run_discoverable(self, spec: ToolSpec, arguments: Any) -> tuple[str | None, str]:
        """A discoverable tool run on parsed ``arguments`` as τ³'s ``method(**args)``: (None, its
        result), or (Python's TypeError text, "") where τ³ catches one."""
        method = getattr(self, spec.method_name)
        if not isinstance(arguments, dict):
            # Python names the function with its module here: τ³'s module
            return (f"{TAU3_MODULE}.{method.__qualname__}() argument after ** must be a mapping, not "
                    f"{type(arguments).__name__}"), ""
        problem = self.binding_problem(spec, arguments)
        if problem is not None:
            return problem, ""
        try:
            return None, method(**arguments)
        except TypeError as error:
            return str(error), ""

    # -- τ³'s db_query -----------------------------------------------------------------------
    def _find(self, table: str, key: Any) -> dict | None:
        return self.world.find(table, key)

    def _save(self, table: str, key: str, record: dict) -> None:
        self.world.put(table, key, record)

    def _add(self, table: str, key: str, record: dict) -> bool:
        """``add_to_db``: False when the table is not τ³'s or the record exists."""
        if table not in TABLES or self.world.has(table, key):
            return False
        self.world.put(table, key, record)
        return True

    def _update(self, table: str, key: Any, updates: dict) -> bool:
        """``update_record_in_db``: the fields set on the record; False when it is absent."""
        record = self._find(table, key)
        if record is None:
            return False
        record.update(updates)
        self._save(table, key, record)
        return True

    def _query(self, table: str, constraints: dict, limit: Any = None) -> list[tuple[str, dict]]:
        """``query_db(..., return_ids=True)``: ``(id, record)`` of the records that match, in order."""
        rows = []
        for key, doc in self.world.sql().execute(f'SELECT key, doc FROM "{table}" ORDER BY pk').fetchall():
            record = json.loads(doc)
            if _matches(record, constraints):
                rows.append((key, record))
                if limit is not None and len(rows) >= limit:
                    break
        return rows

    def _query_text(self, table: str, constraints: Any = "{}") -> str:
        """``query_database_tool``: the records matching the JSON constraints, as τ³ lists them."""
        if table not in QUERY_TABLES:
            return f"Error: Database '{table}' not found. Available: {list(QUERY_TABLES)}"
        try:
            try:
                given = json.loads(constraints) if constraints else {}
            except json.JSONDecodeError as error:
                return f"Error: Invalid JSON: {error}"
            given = dict(given)
            rows = self._query(table, given, given.pop("limit", None))
            if not rows:
                return f"No records found in '{table}'."
            return _record_list(f"Found {len(rows)} record(s) in '{table}':\n", rows)
        except Exception as error:  # noqa: BLE001 - τ³'s words for any failure of the query
            return f"Error querying database: {error}"

    def _by_field(self, table: str, field: str, value: Any) -> str:
        """A one-field query as τ³'s tools write it: the value put inside a JSON text unescaped."""
        return self._query_text(table, f'{{"{field}": "{value}"}}')

    def _found(self, text: str) -> bool:
        return not any(marker in text for marker in NOT_FOUND)


def _record_list(header: str, rows: list[tuple[str, dict]]) -> str:
    lines = [header]
    for i, (key, record) in enumerate(rows, 1):
        lines.append(f"{i}. Record ID: {key}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def _history(title: str, tool_name: str, heading: str, listing: str, found: bool, none_text: str) -> str:
    """The answer of τ³'s read-only discoverable tools that list a table's records."""
    return "\n".join([title, "", f"Executed: {tool_name}", heading, listing if found else none_text])


class KnowledgeTools(BankTools):
    """τ³'s ``KnowledgeTools``: the agent's tools (a retrieval config adds its own)."""

    # -- the listed tools ------------------------------------------------------------------
    @tool(kind=READ, app="banking_knowledge")
    def transfer_to_human_agents(self, summary: str, reason: TransferReasonLiteral = "other") -> str:
        """Transfer the user to a human agent.

        The proper transfer reason enum can be found in the knowledge base: search it before calling this tool to select the proper applicable reason.

        Args:
            summary: A summary of the user's issue and what was attempted before transfer.
            reason: The specific reason code for the transfer.
        """
        valid = list(get_args(TransferReasonLiteral))
        if reason not in valid:
            return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(valid)}"
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    @tool(kind=READ, app="banking_knowledge")
    def get_current_time(self) -> str:
        """Get the current time. Use this to get the current timestamp for logging verification records.

        Returns:
            The current time in the format "YYYY-MM-DD HH:MM:SS TZ"
        """
        return "The current time is 2025-11-14 03:40:00 EST."

    @tool(kind=READ, app="banking_knowledge")
    def get_user_information_by_id(self, user_id: str) -> str:
        """Get the information (date of birth, email, phone number, address) for a user by their user id.

        Args:
            user_id: The ID of the user
        """
        return self._by_field("users", "user_id", user_id)

    @tool(kind=READ, app="banking_knowledge")
    def get_user_information_by_name(self, customer_name: str) -> str:
        """Get the information (date of birth, email, phone number, address) for a user by their name. Case Sensitive.

        Args:
            customer_name: The name of the user
        """
        return self._by_field("users", "name", customer_name)

    @tool(kind=READ, app="banking_knowledge")
    def get_user_information_by_email(self, email: str) -> str:
        """Get the information (date of birth, email, phone number, address) for a user by their email.

        Args:
            email: The email of the user
        """
        return self._by_field("users", "email", email)

    @tool(kind=ACTION, app="banking_knowledge")
    def change_user_email(self, user_id: str, new_email: str) -> str:
        """Change the email address for a user.

        Args:
            user_id: The ID of the user whose email should be changed
            new_email: The new email address to set for the user
        """
        if not self._update("users", user_id, {"email": new_email}):
            return f"Error: User with ID '{user_id}' not found."
        return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"

    @tool(kind=READ, app="banking_knowledge")
    def get_referrals_by_user(self, user_id: str) -> str:
        """Get all referrals made by a user.

        Args:
            user_id: The ID of the user (referrer) to look up referrals for
        """
        return self._by_field("referrals", "referrer_id", user_id)

    @tool(kind=READ, app="banking_knowledge")
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        """Get all credit card transactions for a user.

        Args:
            user_id: The ID of the user to look up transactions for
        """
        return self._by_field("credit_card_transaction_history", "user_id", user_id)

    @tool(kind=READ, app="banking_knowledge")
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        """Get all credit card accounts for a user.

        Returns information about each credit card account including card type,
        date opened, current balance, and reward points.

        Args:
            user_id: The ID of the user to look up credit card accounts for
        """
        return self._by_field("credit_card_accounts", "user_id", user_id)

    @tool(kind=ACTION, app="banking_knowledge")
    def log_verification(self, name: str, user_id: str, address: str, email: str, phone_number: str,
                         date_of_birth: str, time_verified: str) -> str:
        """Log a verification record after successfully verifying a user's identity.

        Call this tool after you have verified a user by confirming 2 out of 4 identity fields
        (date of birth, email, phone number, address). This creates an audit record of the verification.

        Args:
            name: The verified user's full name
            user_id: The verified user's ID
            address: The verified user's address
            email: The verified user's email
            phone_number: The verified user's phone number
            date_of_birth: The verified user's date of birth (MM/DD/YYYY format)
            time_verified: The timestamp of the verification (e.g., "2025-11-14 03:40:00 EST")
        """
        record_id = f"{user_id}_{time_verified.replace(' ', '_').replace(':', '').replace('-', '')}"
        record = {"name": name, "user_id": user_id, "address": address, "email": email, "phone_number": phone_number,
                  "date_of_birth": date_of_birth, "time_verified": time_verified}
        if not self._add("verification_history", record_id, record):
            return "Failed to log verification: Record may already exist."
        return f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n  - Verified at: {time_verified}"

    @tool(kind=ACTION, app="banking_knowledge")
    def give_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Pass a tool to the user so they can execute it themselves.

        Use this when the knowledge base indicates that the user should perform
        an action themselves (e.g., "to do X, have the user call tool_name(args)").

        The user will then be able to call `call_discoverable_tool` with the same
        tool name and arguments to simulate executing the action.

        Args:
            discoverable_tool_name: The name of the discoverable tool (e.g., "open_webpage", "navigate_to_section")
            arguments: JSON string of arguments for the tool (e.g., '{"url": "https://example.com"}')

        Returns:
            A confirmation message with instructions for the user
        """
        if not isinstance(discoverable_tool_name, str):  # τ³'s hasattr() check fails so
            raise TypeError(f"attribute name must be string, not '{type(discoverable_tool_name).__name__}'")
        spec = KnowledgeUserTools.discoverable_specs.get(discoverable_tool_name)
        if spec is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            given = json.loads(arguments)
        except json.JSONDecodeError as error:
            return f"Error: Invalid JSON in arguments: {error}"
        for name in given:
            if name not in spec.parameters and name != "self":
                return f"Error: Unexpected parameter: {name}"
        info = tool_info(getattr(KnowledgeUserTools, discoverable_tool_name))
        self._add("user_discoverable_tools", hex_id(f"user_discoverable_tool:{discoverable_tool_name}"),
                  {"tool_name": discoverable_tool_name, "status": "GIVEN"})
        shown = json.dumps(given, indent=2) if given else "(no arguments)"
        return (f"Tool given to user: {discoverable_tool_name}\nDescription: {info['description']}\n"
                f"Arguments: {shown}\n\nThe user can now execute this action by calling `call_discoverable_user_tool` "
                f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments.")

    @tool(kind=ACTION, app="banking_knowledge")
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        """Unlock an agent discoverable tool that was found in the knowledge base.

        Use this when the knowledge base indicates that you have access to a specialized
        internal tool. The knowledge base will tell you the tool name to unlock.

        After unlocking, you can use the tool by calling `call_discoverable_agent_tool` with
        the tool name and required arguments.

        Args:
            agent_tool_name: The name of the agent discoverable tool to unlock
                            (e.g., "calculate_apr_adjustment_7842")

        Returns:
            A confirmation message with the tool's description and parameters
        """
        if agent_tool_name not in self.discoverable_specs:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        info = tool_info(getattr(self, agent_tool_name))
        unlocked = self.world.aux.setdefault(UNLOCKED, [])
        if agent_tool_name not in unlocked:
            unlocked.append(agent_tool_name)
        return (f"Tool unlocked: {agent_tool_name}\nDescription: {info['description']}\n\n"
                f"{format_tool_for_agent(info)}\n\nYou can now use this tool by calling `call_discoverable_agent_tool` "
                f"with agent_tool_name='{agent_tool_name}' and the required arguments.")

    @tool(kind=ACTION, app="banking_knowledge")
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        """Call an agent discoverable tool that you have previously unlocked.

        Use this after unlocking a tool with `unlock_discoverable_agent_tool`. The knowledge base
        will tell you which tool to use and what arguments to provide.

        Args:
            agent_tool_name: The name of the agent discoverable tool to call
            arguments: JSON string of arguments for the tool (e.g., '{"user_id": "abc123"}')

        Returns:
            The result of executing the agent tool
        """
        spec = self.discoverable_specs.get(agent_tool_name)
        if spec is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if agent_tool_name not in self.world.aux.get(UNLOCKED, ()):
            return (f"Error: Tool '{agent_tool_name}' has not been unlocked. You must first use "
                    f"`unlock_discoverable_agent_tool` to unlock this tool before calling it.")
        given, error = _parse_arguments(arguments)
        if error is not None:
            return error
        error, result = self._run_discoverable(spec, given)
        if error is not None:
            return f"Error: Invalid arguments: {error}"
        # τ³ logs the writes, and the reads the task's ground truth calls (its read-log allowlist)
        if spec.is_action or agent_tool_name in self.world.aux.get(READ_LOG_ALLOWLIST, ()):
            self._add("agent_discoverable_tools", hex_id(f"agent_discoverable_tool:{agent_tool_name}"),
                      {"tool_name": agent_tool_name, "status": "CALLED"})
        return result

    @tool(kind=READ, app="banking_knowledge")
    def list_discoverable_agent_tools(self) -> str:
        """List all agent discoverable tools that you have called.

        Use this to see what specialized tools you have used.

        Returns:
            A list of tools that you have called
        """
        result = self._query_text("agent_discoverable_tools", "{}")
        if "No results found" in result:  # τ³'s test: the query never words it so
            return "No agent tools have been called yet. Search the knowledge base to discover available tools."
        return f"Your called agent tools:\n{result}"

    # -- discoverable tools ----------------------------------------------------------------
    def _missing_card(self, card_id: Any) -> tuple[str | None, dict | None]:
        card = self._find("debit_cards", card_id)
        return (f"Error: Debit card '{card_id}' not found.", None) if card is None else (None, card)

    @discoverable(ACTION)
    def example_agent_tool_0000(self) -> str:
        """An example agent discoverable tool placeholder.

        Returns:
            Example tool executed successfully.
        """
        return "Example tool executed successfully."

    @discoverable(ACTION)
    def update_transaction_rewards_3847(self, transaction_id: str, new_rewards_earned: str) -> str:
        """Update the rewards_earned field on a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction to update
            new_rewards_earned (string): The corrected rewards value (e.g., '6300 points')

        Returns:
            Transaction rewards updated successfully.
        """
        if not transaction_id or not new_rewards_earned:
            return "Error: Missing required parameters."
        if not self._update("credit_card_transaction_history", transaction_id, {"rewards_earned": new_rewards_earned}):
            return f"Error: Transaction '{transaction_id}' not found."
        shown = json.dumps({"transaction_id": transaction_id, "new_rewards_earned": new_rewards_earned}, indent=2)
        return (f"Transaction rewards updated successfully.\n\nExecuted: update_transaction_rewards_3847\n"
                f"Arguments: {shown}\nTransaction updated:\n  - Transaction ID: {transaction_id}\n"
                f"  - New Rewards: {new_rewards_earned}")

    def _announce(self, text: str, tool_name: str) -> str:
        return f"{text}\n\nExecuted: {tool_name}\nArguments: (no arguments)"

    @discoverable(READ)
    def initial_transfer_to_human_agent_0218(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Initial Transfer Initiated, Inform the user that the lines are busy.
        """
        return self._announce("Initial Transfer Initiated, Inform the user that the lines are busy.",
                              "initial_transfer_to_human_agent_0218")

    @discoverable(READ)
    def initial_transfer_to_human_agent_1822(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.
        """
        return self._announce(
            "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer "
            "to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their "
            "issue.", "initial_transfer_to_human_agent_1822")

    @discoverable(READ)
    def emergency_credit_bureau_incident_transfer_1114(self) -> str:
        """Emergency escalation tool for the 11/14 credit bureau reporting incident. Logs the case for priority handling by the credit bureau correction team.

        Returns:
            Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction team. Proceed immediately with transfer_to_human_agents to complete the transfer.
        """
        return self._announce(
            "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction "
            "team. Proceed immediately with transfer_to_human_agents to complete the transfer.",
            "emergency_credit_bureau_incident_transfer_1114")

    @discoverable(ACTION)
    def file_credit_card_transaction_dispute_4829(
            self, transaction_id: str, card_action: str, card_last_4_digits: str, full_name: str, user_id: str,
            phone: str, email: str, address: str, contacted_merchant: bool, purchase_date: str,
            issue_noticed_date: str, dispute_reason: str, resolution_requested: str,
            eligible_for_provisional_credit: bool, partial_refund_amount: Optional[float] = None) -> str:  # noqa: UP045 - τ³'s annotation
        """File a formal dispute for a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            card_action (string): Flag indicating the card's status. Must be one of: 'keep_active' (card remains active, dispute only), 'cancel_and_reissue' (card is being cancelled and replaced). This is for record-keeping only and does NOT order a replacement card.
            card_last_4_digits (string): Last 4 digits of the credit card number
            full_name (string): Full legal name of the cardholder
            user_id (string): The user's unique identifier in the system
            phone (string): Contact phone number
            email (string): Contact email address
            address (string): Contact mailing address
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            purchase_date (string): Date when the purchase was made, format MM/DD/YYYY
            issue_noticed_date (string): Date when the user noticed the issue, format MM/DD/YYYY
            dispute_reason (string): Reason for the dispute. Must be one of: 'unauthorized_fraudulent_charge', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'goods_services_not_as_described', 'canceled_subscription_still_charging', 'refund_never_processed'
            resolution_requested (string): Resolution being requested. Must be one of: 'full_refund', 'partial_refund'
            eligible_for_provisional_credit (boolean): Whether the user is eligible for provisional credit
            partial_refund_amount (number, optional): Amount requested for partial refund (required only if resolution_requested is 'partial_refund')

        Returns:
            Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.
        """
        if not transaction_id or not user_id:
            return "Error: Missing required parameters."
        actions = ["keep_active", "cancel_and_reissue"]
        if card_action not in actions:
            return f"Error: Invalid card_action. Must be one of: {actions}"
        reasons = ["unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount",
                   "goods_services_not_received", "goods_services_not_as_described",
                   "canceled_subscription_still_charging", "refund_never_processed"]
        if dispute_reason not in reasons:
            return f"Error: Invalid dispute_reason. Must be one of: {reasons}"
        resolutions = ["full_refund", "partial_refund"]
        if resolution_requested not in resolutions:
            return f"Error: Invalid resolution_requested. Must be one of: {resolutions}"
        if resolution_requested == "partial_refund" and partial_refund_amount is None:
            return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        record = {"dispute_id": dispute_id, "transaction_id": transaction_id, "user_id": user_id,
                  "card_action": card_action, "card_last_4_digits": card_last_4_digits, "full_name": full_name,
                  "phone": phone, "email": email, "address": address, "contacted_merchant": contacted_merchant,
                  "purchase_date": purchase_date, "issue_noticed_date": issue_noticed_date,
                  "dispute_reason": dispute_reason, "resolution_requested": resolution_requested,
                  "partial_refund_amount": partial_refund_amount,
                  "eligible_for_provisional_credit": eligible_for_provisional_credit,
                  "provisional_credit_given": eligible_for_provisional_credit, "submitted_at": TODAY,
                  "status": "SUBMITTED"}
        if not self._add("transaction_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        lines = ["Credit card transaction dispute filed successfully. A case has been opened and will be reviewed "
                 "within 10 business days.", "", "Executed: file_credit_card_transaction_dispute_4829",
                 f"Dispute ID: {dispute_id}", f"Transaction: {transaction_id}", f"Reason: {_title(dispute_reason)}",
                 f"Resolution Requested: {_title(resolution_requested)}"]
        if partial_refund_amount:
            lines.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
        lines.append("Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days."
                     if eligible_for_provisional_credit else "Provisional Credit: Not eligible at this time.")
        return "\n".join(lines)

    @discoverable(ACTION)
    def file_debit_card_transaction_dispute_6281(
            self, transaction_id: str, account_id: str, card_id: str, user_id: str, dispute_category: str,
            transaction_date: str, discovery_date: str, disputed_amount: float, transaction_type: str,
            card_in_possession: bool, pin_compromised: str, contacted_merchant: bool, police_report_filed: bool,
            written_statement_provided: bool, provisional_credit_eligible: bool,
            customer_max_liability_amount: float, card_action: str) -> str:
        """File a formal dispute for a debit card transaction under Regulation E. Debit card disputes affect actual bank funds and have different liability rules based on reporting timing.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            account_id (string): The checking account ID linked to the debit card
            card_id (string): The debit card ID
            user_id (string): The user's unique identifier in the system
            dispute_category (string): Category of the dispute. Must be one of: 'unauthorized_transaction', 'atm_cash_discrepancy', 'atm_deposit_not_credited', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'recurring_charge_after_cancellation', 'card_present_fraud', 'card_not_present_fraud'
            transaction_date (string): Date when the transaction occurred, format MM/DD/YYYY
            discovery_date (string): Date when the user first noticed the issue, format MM/DD/YYYY
            disputed_amount (number): The dollar amount being disputed
            transaction_type (string): Type of transaction. Must be one of: 'pin_purchase', 'signature_purchase', 'online_purchase', 'atm_withdrawal', 'atm_deposit', 'recurring_payment', 'person_to_person'
            card_in_possession (boolean): Whether the customer still has their physical debit card in their possession
            pin_compromised (string): Whether the customer's PIN may have been compromised. Must be one of: 'yes_shared', 'yes_observed', 'no', 'unknown'
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            police_report_filed (boolean): Whether a police report has been filed (recommended for fraud over $500)
            written_statement_provided (boolean): Whether the customer has provided a written statement describing what happened (required for Reg E provisional credit)
            provisional_credit_eligible (boolean): Whether the user is eligible for provisional credit based on Debit Card Provisional Credit Guidelines
            customer_max_liability_amount (number): The maximum dollar amount the customer could be liable for based on Regulation E reporting timing rules and the disputed amount. Use -1 for unlimited liability.
            card_action (string): Action to take on the card. Must be one of: 'keep_active', 'freeze_pending_investigation', 'close_and_reissue'

        Returns:
            Debit card transaction dispute filed successfully. A case has been opened and provisional credit determination has been recorded.
        """
        if not all([transaction_id, account_id, card_id, user_id, dispute_category, transaction_date, discovery_date,
                    disputed_amount, transaction_type, pin_compromised, card_action]):
            return "Error: Missing required parameters."
        if customer_max_liability_amount is None:
            return "Error: customer_max_liability_amount is required."
        if None in (card_in_possession, contacted_merchant, police_report_filed, written_statement_provided):
            return ("Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided "
                    "are required boolean fields.")
        categories = ["unauthorized_transaction", "atm_cash_discrepancy", "atm_deposit_not_credited", "duplicate_charge",
                      "incorrect_amount", "goods_services_not_received", "recurring_charge_after_cancellation",
                      "card_present_fraud", "card_not_present_fraud"]
        if dispute_category not in categories:
            return f"Error: Invalid dispute_category. Must be one of: {categories}"
        types = ["pin_purchase", "signature_purchase", "online_purchase", "atm_withdrawal", "atm_deposit",
                 "recurring_payment", "person_to_person"]
        if transaction_type not in types:
            return f"Error: Invalid transaction_type. Must be one of: {types}"
        pin_statuses = ["yes_shared", "yes_observed", "no", "unknown"]
        if pin_compromised not in pin_statuses:
            return f"Error: Invalid pin_compromised. Must be one of: {pin_statuses}"
        actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
        if card_action not in actions:
            return f"Error: Invalid card_action. Must be one of: {actions}"
        if disputed_amount <= 0:
            return "Error: disputed_amount must be a positive number."
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        fraud = dispute_category in ["unauthorized_transaction", "card_present_fraud", "card_not_present_fraud"]
        pin_shared = pin_compromised == "yes_shared"
        record = {"dispute_id": dispute_id, "transaction_id": transaction_id, "account_id": account_id,
                  "card_id": card_id, "user_id": user_id, "dispute_category": dispute_category,
                  "transaction_date": transaction_date, "discovery_date": discovery_date,
                  "disputed_amount": disputed_amount, "transaction_type": transaction_type,
                  "card_in_possession": card_in_possession, "pin_compromised": pin_compromised,
                  "contacted_merchant": contacted_merchant, "police_report_filed": police_report_filed,
                  "written_statement_provided": written_statement_provided,
                  "provisional_credit_eligible": provisional_credit_eligible,
                  "provisional_credit_issued": provisional_credit_eligible,
                  "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
                  "customer_max_liability_amount": customer_max_liability_amount, "card_action": card_action,
                  "is_fraud_category": fraud, "pin_shared_voluntarily": pin_shared, "submitted_at": TODAY,
                  "status": "OPEN"}
        if not self._add("debit_card_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        lines = [f"Dispute ID: {dispute_id}", f"Transaction: {transaction_id}", f"Account: {account_id}",
                 f"Category: {_title(dispute_category)}", f"Disputed Amount: ${disputed_amount:.2f}",
                 f"Card Action: {_title(card_action)}"]
        lines.append(f"Provisional Credit: ISSUED - ${disputed_amount:.2f} credited within 10 business days per "
                     f"Regulation E." if provisional_credit_eligible else
                     "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.")
        if pin_shared:
            lines.append("WARNING: Customer indicated PIN was shared voluntarily. This may affect liability "
                         "determination.")
        if fraud and not police_report_filed and disputed_amount > 500:
            lines.append("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
        return "\n".join(lines)

    @discoverable(ACTION)
    def set_debit_card_recurring_block_7382(self, card_id: str, block_recurring: bool) -> str:
        """Block or unblock all recurring payments on a debit card. When blocked, all recurring/subscription charges will be declined. One-time purchases are not affected.

        Args:
            card_id (string): The debit card ID to update
            block_recurring (boolean): True to block all recurring payments, False to unblock/allow recurring payments

        Returns:
            Debit card recurring payment settings updated successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id"
        card = self._find("debit_cards", card_id)
        if not card:
            return f"Error: Debit card '{card_id}' not found."
        status = card.get("status", "").upper()
        if status != "ACTIVE":
            return (f"Error: Cannot update recurring block settings for a card with status '{status}'. Card must be "
                    f"ACTIVE.")
        card["recurring_blocked"] = block_recurring
        self._save("debit_cards", card_id, card)
        if block_recurring:
            return (f"Recurring payments BLOCKED for debit card {card_id}.\nAll recurring/subscription charges will be "
                    f"declined.\nOne-time purchases are not affected.\nThis change takes effect within 24 hours.")
        return (f"Recurring payments UNBLOCKED for debit card {card_id}.\nRecurring/subscription charges will now be "
                f"allowed.\nThis change takes effect within 24 hours.")

    @discoverable(READ)
    def get_debit_dispute_status_7483(self, user_id: str) -> str:
        """Retrieve a user's debit card dispute history from the debit_card_disputes table. Returns all debit card disputes filed by the user, including dispute IDs, categories, amounts, statuses, and provisional credit information.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            Debit card dispute history retrieved successfully.
        """
        if not user_id:
            return "Error: Missing required parameter: user_id"
        listing = self._by_field("debit_card_disputes", "user_id", user_id)
        return _history("Debit card dispute history retrieved successfully.", "get_debit_dispute_status_7483",
                        f"Debit card dispute history for user {user_id}:", listing, self._found(listing),
                        "\nNo debit card disputes found for this user.")

    @discoverable(READ)
    def get_atm_deposit_images_8473(self, transaction_id: str) -> str:
        """Retrieve ATM deposit envelope/check images for a specific ATM deposit transaction.

        Args:
            transaction_id (string): The transaction ID of the ATM deposit to retrieve images for

        Returns:
            ATM deposit images retrieved successfully.
        """
        if not transaction_id:
            return "Error: Missing required parameter: transaction_id"
        txn = self._find("bank_account_transaction_history", transaction_id)
        if txn is None:
            return f"Error: Transaction '{transaction_id}' not found."
        if txn.get("type") != "atm_deposit":
            return (f"Error: Transaction '{transaction_id}' is not an ATM deposit. This tool only works for ATM "
                    f"deposit transactions.")
        description = txn.get("description", "")
        if "RHO-BANK" not in description.upper() and "RHOBANK" not in description.upper():
            return (f"Error: Transaction '{transaction_id}' is from a third-party ATM. Deposit images are only "
                    f"available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be "
                    f"submitted to the ATM network.")
        images = ATM_DEPOSIT_IMAGES.get(transaction_id)
        if images is not None:
            atm_id, contents, notes = images
            return (f"ATM Deposit Image Retrieval Results\n=====================================\n"
                    f"Transaction ID: {transaction_id}\nATM: {atm_id}\nDeposit Date: {txn.get('date', 'Unknown')}\n\n"
                    f"{contents}\n\n--- VERIFICATION NOTES ---\n{notes}\n")
        return (f"ATM Deposit Image Retrieval Results\n=====================================\n"
                f"Transaction ID: {transaction_id}\nATM: {description}\nDeposit Date: {txn.get('date', 'Unknown')}\n"
                f"Amount Recorded: ${abs(txn.get('amount', 0)):.2f}\n\n--- IMAGE STATUS ---\n"
                f"Status: IMAGES NOT AVAILABLE\nReason: Deposit images for this transaction have either expired (older "
                f"than 90 days) or were not captured by the ATM system.\n\nFor deposits without available images, the "
                f"dispute will proceed based on customer statement and ATM journal records only. Investigation "
                f"timeline may be extended.\n")

    @discoverable(ACTION)
    def order_replacement_credit_card_7291(self, credit_card_account_id: str, user_id: str, shipping_address: str,
                                           reason: str, expedited_shipping: bool = False) -> str:
        """Order a replacement credit card for a customer. The old card will be automatically cancelled when the replacement is ordered.

        Args:
            credit_card_account_id (string): The credit card account ID for the card being replaced
            user_id (string): The user's unique identifier in the system
            shipping_address (string): Full shipping address where the new card should be sent
            reason (string): Reason for replacement. Must be one of: 'fraud_suspected', 'lost', 'stolen', 'damaged', 'expired', 'other'
            expedited_shipping (boolean, optional): Whether to use expedited shipping (2-3 business days instead of 7-10)

        Returns:
            Replacement credit card order placed successfully. The old card has been cancelled for security.
        """
        if not credit_card_account_id or not user_id or not shipping_address or not reason:
            return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
        reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not self._found(self._by_field("credit_card_accounts", "account_id", credit_card_account_id)):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        order_id = f"ccord_{hex_id(f'credit_card_order:{credit_card_account_id}:{user_id}:{reason}', 12)}"
        order = {"order_id": order_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
                 "shipping_address": shipping_address, "reason": reason, "expedited_shipping": expedited_shipping,
                 "order_date": TODAY, "status": "ORDERED", "old_card_cancelled": True}
        if not self._add("credit_card_orders", order_id, order):
            return "Error: Order may have already been placed for this card replacement."
        self._update("credit_card_accounts", credit_card_account_id, {"status": "CLOSED", "closed_date": TODAY})
        return "\n".join([
            f"Order ID: {order_id}", f"Card Account: {credit_card_account_id}", f"Reason: {_title(reason)}",
            f"Shipping Address: {shipping_address}",
            f"Shipping Method: {'Expedited' if expedited_shipping else 'Standard'}",
            f"Expected Delivery: {'2-3 business days' if expedited_shipping else '7-10 business days'}", "",
            "The old card has been cancelled for security. The new card will have the same account number but a new "
            "card number and CVV."])

    @discoverable(READ)
    def get_user_dispute_history_7291(self, user_id: str) -> str:
        """Retrieve a user's credit card transaction dispute history from the transaction_disputes table. Returns all credit card transaction disputes filed by the user, including dispute IDs, transaction IDs, dispute reasons, statuses, and submission dates.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            User transaction dispute history retrieved successfully.
        """
        if not user_id:
            return "Error: Missing required parameter: user_id"
        listing = self._by_field("transaction_disputes", "user_id", user_id)
        return _history("User transaction dispute history retrieved successfully.", "get_user_dispute_history_7291",
                        f"Transaction dispute history for user {user_id}:", listing, self._found(listing),
                        "\nNo transaction disputes found for this user.")

    @discoverable(READ)
    def get_pending_replacement_orders_5765(self, credit_card_account_id: str) -> str:
        """Check if a credit card account has any pending replacement card orders.

        Args:
            credit_card_account_id (string): The credit card account ID to check for pending replacement orders

        Returns:
            Pending replacement orders check completed.
        """
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        listing = self._by_field("credit_card_orders", "credit_card_account_id", credit_card_account_id)
        return _history("Pending replacement orders check completed.", "get_pending_replacement_orders_5765",
                        f"Replacement orders for credit card account {credit_card_account_id}:", listing,
                        self._found(listing), "\nNo pending replacement orders found for this credit card account.")

    @discoverable(ACTION)
    def log_credit_card_closure_reason_4521(self, credit_card_account_id: str, user_id: str,
                                            closure_reason: str) -> str:
        """Log the reason why a customer wants to close their credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID the customer wants to close
            user_id (string): The user's unique identifier in the system
            closure_reason (string): Reason for closure. Must be one of: 'annual_fee', 'not_using_card', 'found_better_card', 'unhappy_with_rewards', 'simplifying_finances', 'negative_experience', 'other'

        Returns:
            Closure reason logged successfully.
        """
        if not credit_card_account_id or not user_id or not closure_reason:
            return "Error: Missing required parameters."
        reasons = ["annual_fee", "not_using_card", "found_better_card", "unhappy_with_rewards", "simplifying_finances",
                   "negative_experience", "other"]
        if closure_reason not in reasons:
            return f"Error: Invalid closure_reason. Must be one of: {reasons}"
        record_id = f"clsr_{hex_id(f'closure_reason:{credit_card_account_id}:{user_id}', 12)}"
        self._add("credit_card_closure_reasons", record_id, {
            "record_id": record_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
            "closure_reason": closure_reason, "logged_at": TODAY, "status": "LOGGED"})
        shown = json.dumps({"credit_card_account_id": credit_card_account_id, "user_id": user_id,
                            "closure_reason": closure_reason}, indent=2)
        return (f"Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\n"
                f"Arguments: {shown}\nClosure reason '{closure_reason}' logged for account {credit_card_account_id}.")

    @discoverable(READ)
    def get_closure_reason_history_8293(self, credit_card_account_id: str) -> str:
        """Retrieve the closure reason history for a specific credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check for previous closure attempts

        Returns:
            Closure reason history retrieved successfully.
        """
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        listing = self._by_field("credit_card_closure_reasons", "credit_card_account_id", credit_card_account_id)
        return _history("Closure reason history retrieved successfully.", "get_closure_reason_history_8293",
                        f"Closure reason history for credit card account {credit_card_account_id}:", listing,
                        self._found(listing), "\nNo closure reason records found for this credit card account.")

    @discoverable(ACTION)
    def apply_statement_credit_8472(self, user_id: str, credit_card_account_id: str, amount: float,
                                    reason: str) -> str:
        """Apply a statement credit to a customer's credit card account.

        Args:
            user_id (string): The user's unique identifier in the system
            credit_card_account_id (string): The credit card account ID to apply the credit to
            amount (number): The credit amount in dollars (e.g., 25.00 for a $25 credit)
            reason (string): Reason for the statement credit. Must be one of: 'goodwill_adjustment', 'promotional_credit', 'annual_fee_reversal', 'late_fee_reversal', 'interest_charge_reversal', 'dispute_resolution', 'price_match', 'retention_offer', 'error_correction', 'other'

        Returns:
            Statement credit applied successfully.
        """
        if not user_id or not credit_card_account_id or amount is None or not reason:
            return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        reasons = ["goodwill_adjustment", "promotional_credit", "annual_fee_reversal", "late_fee_reversal",
                   "interest_charge_reversal", "dispute_resolution", "price_match", "retention_offer",
                   "error_correction", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not self._found(self._by_field("credit_card_accounts", "account_id", credit_card_account_id)):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        txn_id = transaction_id(user_id, "STATEMENT_CREDIT", reason, amount, "Statement Credit")
        record = {"transaction_id": txn_id, "user_id": user_id, "credit_card_account_id": credit_card_account_id,
                  "credit_card_type": "N/A", "merchant_name": "Rho-Bank Statement Credit",
                  "transaction_amount": f"-${amount:.2f}", "transaction_date": TODAY, "category": "Statement Credit",
                  "status": "COMPLETED", "rewards_earned": "0 points", "credit_reason": reason}
        if not self._add("credit_card_transaction_history", txn_id, record):
            return f"Error: Failed to apply statement credit. Transaction ID '{txn_id}' may already exist."
        return (f"Statement credit applied successfully.\n\nExecuted: apply_statement_credit_8472\n"
                f"  - Transaction ID: {txn_id}\n  - User ID: {user_id}\n  - Account: {credit_card_account_id}\n"
                f"  - Credit Amount: ${amount:.2f}\n  - Reason: {_title(reason)}\n  - Date: {TODAY}")

    @discoverable(ACTION)
    def apply_credit_card_account_flag_6147(self, credit_card_account_id: str, user_id: str, flag_type: str,
                                            expiration_date: str, reason: str) -> str:
        """Apply a flag to a customer's credit card account. Flags can include annual fee waivers, promotional APR rates, rewards bonuses, or other account-level modifiers. Each flag has an effective date and expiration date.

        Args:
            credit_card_account_id (string): The credit card account ID to apply the flag to
            user_id (string): The user's unique identifier in the system
            flag_type (string): Type of flag to apply. Must be one of: 'annual_fee_waived', 'promotional_apr', 'rewards_bonus', 'other'
            expiration_date (string): Date when the flag expires (MM/DD/YYYY format)
            reason (string): Reason for applying this flag. Must be one of: 'retention_offer', 'loyalty_benefit', 'promotional', 'error_correction', 'other'

        Returns:
            Account flag applied successfully.
        """
        if not credit_card_account_id or not user_id or not flag_type or not expiration_date or not reason:
            return ("Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, "
                    "reason).")
        flag_types = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
        if flag_type not in flag_types:
            return f"Error: Invalid flag_type. Must be one of: {flag_types}"
        reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not self._found(self._by_field("credit_card_accounts", "account_id", credit_card_account_id)):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        flag_id = f"ccflag_{hex_id(f'account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}', 12)}"
        record = {"flag_id": flag_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
                  "flag_type": flag_type, "effective_date": TODAY, "expiration_date": expiration_date,
                  "reason": reason, "applied_at": TODAY, "status": "ACTIVE"}
        if not self._add("credit_card_account_flags", flag_id, record):
            return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
        return (f"Account flag applied successfully!\n  - Flag ID: {flag_id}\n  - Account: {credit_card_account_id}\n"
                f"  - User ID: {user_id}\n  - Flag Type: {_title(flag_type)}\n  - Effective Date: {TODAY}\n"
                f"  - Expiration Date: {expiration_date}\n  - Reason: {_title(reason)}")

    @discoverable(ACTION)
    def close_credit_card_account_7834(self, credit_card_account_id: str, user_id: str) -> str:
        """Close a customer's credit card account permanently.

        Args:
            credit_card_account_id (string): The credit card account ID to close
            user_id (string): The user's unique identifier in the system

        Returns:
            Credit card account closed successfully.
        """
        if not credit_card_account_id or not user_id:
            return "Error: Missing required parameters (credit_card_account_id, user_id)."
        if not self._found(self._by_field("credit_card_accounts", "account_id", credit_card_account_id)):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if not self._update("credit_card_accounts", credit_card_account_id,
                            {"status": "CLOSED", "closed_date": TODAY, "closed_by": user_id}):
            return f"Error: Failed to close credit card account '{credit_card_account_id}'."
        shown = json.dumps({"credit_card_account_id": credit_card_account_id, "user_id": user_id}, indent=2)
        return (f"Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\n"
                f"Arguments: {shown}\nAccount {credit_card_account_id} has been closed.")

    @discoverable(ACTION)
    def pay_credit_card_from_checking_9182(self, user_id: str, checking_account_id: str, credit_card_account_id: str,
                                           amount: float) -> str:
        """Pay off a credit card balance using funds from the customer's Rho-Bank checking account. This deducts the specified amount from the checking account and reduces the credit card balance by the same amount.

        Args:
            user_id (string): The customer's unique identifier in the system
            checking_account_id (string): The ID of the Rho-Bank checking account to debit funds from
            credit_card_account_id (string): The ID of the credit card account to apply the payment to
            amount (number): The payment amount in dollars. Must be a positive number.

        Returns:
            Credit card payment processed successfully.
        """
        if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
            return ("Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, "
                    "amount).")
        try:
            amount = float(amount)
            if amount <= 0:
                return "Error: Payment amount must be a positive number."
        except (ValueError, TypeError):
            return "Error: Invalid payment amount. Must be a positive number."
        checking = self._find("accounts", checking_account_id)
        if checking is None:
            return f"Error: Checking account '{checking_account_id}' not found."
        if checking.get("user_id") != user_id:
            return f"Error: Checking account '{checking_account_id}' does not belong to user '{user_id}'."
        if checking.get("class") != "checking":
            return f"Error: Account '{checking_account_id}' is not a checking account."
        balance = _account_balance(checking)
        if amount > balance:
            return (f"Error: Insufficient funds in checking account. Available balance: ${balance:.2f}, requested "
                    f"payment: ${amount:.2f}.")
        card = self._find("credit_card_accounts", credit_card_account_id)
        if card is None:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        owed = _money(card.get("current_balance", "$0.00"))
        if amount > owed:
            return (f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${owed:.2f}). Please specify "
                    f"an amount up to the outstanding balance.")
        checking["current_holdings"] = f"{balance - amount:.2f}"
        card["current_balance"] = f"${owed - amount:.2f}"
        self._save("accounts", checking_account_id, checking)
        self._save("credit_card_accounts", credit_card_account_id, card)
        return (f"Payment processed successfully!\n  - Payment Amount: ${amount:.2f}\n"
                f"  - From Checking Account: {checking_account_id}\n  - To Credit Card Account: {credit_card_account_id}\n"
                f"  - New Checking Balance: ${balance - amount:.2f}\n  - New Credit Card Balance: ${owed - amount:.2f}\n"
                f"The payment has been applied immediately.")

    @discoverable(ACTION)
    def submit_credit_limit_increase_request_7392(self, credit_card_account_id: str, user_id: str,
                                                  requested_increase_amount: int) -> str:
        """Submit a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID to request increase for
            user_id (string): The customer's unique identifier in the system
            requested_increase_amount (integer): The dollar amount by which to increase the credit limit (e.g., 2500 for $2,500)

        Returns:
            Credit limit increase request submitted successfully.
        """
        if not credit_card_account_id or not user_id or requested_increase_amount is None:
            return "Error: Missing required parameters."
        try:
            requested = float(requested_increase_amount)
        except (TypeError, ValueError):
            return "Error: Invalid requested_increase_amount. Must be a whole number."
        if not requested.is_integer():
            return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
        requested = int(requested)
        if requested <= 0:
            return "Error: Requested increase amount must be positive."
        card = self._find("credit_card_accounts", credit_card_account_id)
        if card is None:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        request_id = cli_request_id(credit_card_account_id, user_id, requested)
        if not self._add("credit_limit_increase_requests", request_id, {
                "request_id": request_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
                "requested_increase_amount": requested, "submitted_at": TODAY, "status": "PENDING"}):
            return "Error: A similar request may already exist."
        return (f"Credit limit increase request submitted successfully.\n\n"
                f"Executed: submit_credit_limit_increase_request_7392\n  - Request ID: {request_id}\n"
                f"  - Account: {credit_card_account_id}\n  - Requested Increase: ${requested:,}\n  - Status: PENDING")

    @discoverable(READ)
    def get_credit_limit_increase_history_4829(self, credit_card_account_id: str) -> str:
        """Retrieve the credit limit increase request history for a specific credit card account. Returns all previous CLI requests including dates, amounts, and statuses.

        Args:
            credit_card_account_id (string): The credit card account ID to check for CLI history

        Returns:
            Credit limit increase history retrieved.
        """
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        listing = self._by_field("credit_limit_increase_requests", "credit_card_account_id", credit_card_account_id)
        return _history("Credit limit increase history retrieved.", "get_credit_limit_increase_history_4829",
                        f"Credit limit increase history for account {credit_card_account_id}:", listing,
                        self._found(listing), "\nNo credit limit increase requests found for this account.")

    @discoverable(READ)
    def get_payment_history_6183(self, credit_card_account_id: str, months: int) -> str:
        """Retrieve payment history for a credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check payment history for
            months (integer): Number of months of payment history to retrieve

        Returns:
            Payment history retrieved.
        """
        if not credit_card_account_id or months is None:
            return "Error: Missing required parameters (credit_card_account_id, months)."
        try:
            months = int(months)
            if months <= 0:
                return "Error: months must be a positive integer."
        except (ValueError, TypeError):
            return "Error: Invalid months value. Must be a positive integer."
        payments = [p for p in self.world.records("payment_history")
                    if p.get("credit_card_account_id") == credit_card_account_id]
        if not payments:
            return f"No payment history found for account '{credit_card_account_id}'."
        payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
        payments = payments[:months]
        on_time = 0
        for payment in payments:
            if payment.get("status") != "ON_TIME":
                break
            on_time += 1
        lines = [f"Payment history for account '{credit_card_account_id}' (last {months} months):",
                 f"Consecutive on-time payments: {on_time}"]
        lines += [f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: {p.get('amount')}\n"
                  f"    Status: {p.get('status')}" for p in payments]
        return "\n".join(lines)

    @discoverable(ACTION)
    def approve_credit_limit_increase_5847(self, credit_card_account_id: str, user_id: str,
                                           new_credit_limit: int) -> str:
        """Approve and apply a credit limit increase for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            new_credit_limit (integer): The new total credit limit in dollars (e.g., 7500 for $7,500)

        Returns:
            Credit limit increase approved and applied successfully.
        """
        if not credit_card_account_id or not user_id or new_credit_limit is None:
            return "Error: Missing required parameters."
        card = self._find("credit_card_accounts", credit_card_account_id)
        if card is None:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        # τ³'s checks, one generic refusal: a pending dispute, a replacement card on its way, bad standing
        ineligible = any(d.get("user_id") == user_id and d.get("status") in ["SUBMITTED", "UNDER_REVIEW", "PENDING"]
                         for d in self.world.records("transaction_disputes"))
        ineligible = ineligible or any(
            o.get("credit_card_account_id") == credit_card_account_id and o.get("status") in
            ["PENDING", "PROCESSING", "SHIPPED"] for o in self.world.records("credit_card_orders"))
        if ineligible or card.get("account_status", "").upper() in ["PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"]:
            return "Error: Credit limit increase request cannot be approved at this time."
        current = _money(card.get("credit_limit", "$0.00"))
        new_limit = float(new_credit_limit)
        card["credit_limit"] = f"${new_limit:.2f}"
        self._save("credit_card_accounts", credit_card_account_id, card)
        request_id = cli_request_id(credit_card_account_id, user_id, new_limit - current)
        self._add("credit_limit_increase_requests", request_id, {
            "request_id": request_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
            "previous_limit": f"${current:.2f}", "new_limit": f"${new_limit:.2f}",
            "increase_amount": f"${new_limit - current:.2f}", "decision_date": TODAY, "status": "APPROVED"})
        return (f"Credit limit increase approved!\n  - Account: {credit_card_account_id}\n"
                f"  - Previous Limit: ${current:.2f}\n  - New Limit: ${new_limit:.2f}\n"
                f"  - Increase: ${new_limit - current:.2f}\n  - Effective Date: {TODAY}\n"
                f"The customer will receive a confirmation email.")

    @discoverable(ACTION)
    def deny_credit_limit_increase_5848(self, credit_card_account_id: str, user_id: str, denial_reason: str) -> str:
        """Deny a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            denial_reason (string): The reason for denying the request. Must be one of: 'insufficient_account_age', 'cooldown_period_active', 'pending_disputes', 'pending_replacement_card', 'past_due_balance', 'high_utilization', 'insufficient_payment_history', 'requested_amount_exceeds_limit', 'other'

        Returns:
            Credit limit increase request denied.
        """
        if not credit_card_account_id or not user_id or not denial_reason:
            return "Error: Missing required parameters."
        reasons = ["insufficient_account_age", "cooldown_period_active", "pending_disputes",
                   "pending_replacement_card", "past_due_balance", "high_utilization", "insufficient_payment_history",
                   "requested_amount_exceeds_limit", "other"]
        if denial_reason not in reasons:
            return f"Error: Invalid denial_reason. Must be one of: {', '.join(reasons)}"
        if not self.world.has("credit_card_accounts", credit_card_account_id):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        request_id = cli_request_id(credit_card_account_id, user_id, 0.0)
        self._add("credit_limit_increase_requests", request_id, {
            "request_id": request_id, "credit_card_account_id": credit_card_account_id, "user_id": user_id,
            "denial_reason": denial_reason, "decision_date": TODAY, "status": "DENIED"})
        return (f"Credit limit increase request denied.\n  - Account: {credit_card_account_id}\n"
                f"  - Denial Reason: {denial_reason}\n  - Date: {TODAY}\n"
                f"The customer will receive a notification explaining the denial.")

    @discoverable(ACTION)
    def open_bank_account_4821(self, user_id: str, account_type: str, account_class: str) -> str:
        """Open a new bank account for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system
            account_type (string): Type of account to open. Must be one of: 'checking' (personal checking), 'savings' (personal savings), 'business_checking', 'business_savings'
            account_class (string): The full official account class name

        Returns:
            Bank account opened successfully.
        """
        if not user_id or not account_type or not account_class:
            return "Error: Missing required parameters."
        types = ["checking", "savings", "business_checking", "business_savings"]
        if account_type not in types:
            return f"Error: Invalid account_type. Must be one of: {types}"
        accounts = [a for a in self.world.records("accounts") if a.get("user_id") == user_id]

        def kind(account: dict) -> Any:
            return account.get("account_type", account.get("class", ""))

        def open_(account: dict) -> bool:
            return account.get("status", "") in ["OPEN", "ACTIVE"]

        refused = "Error: Account eligibility requirements not met."
        if account_type == "savings" and not any(
                kind(a) in ["checking", "personal_checking"] and open_(a) and _days_since(a.get("date_opened", "")) >= 14
                for a in accounts):
            return refused
        if account_type == "business_checking" and (
                any(a.get("status") == "CLOSED" for a in accounts)
                or not any(kind(a) in ["checking", "personal_checking"] and open_(a) for a in accounts)):
            return refused
        if account_type == "business_savings" and (
                any(_account_balance(a) < 0 for a in accounts)
                or not any(kind(a) == "business_checking" and open_(a) and _days_since(a.get("date_opened", "")) >= 30
                           for a in accounts)):
            return refused
        account_id = hex_id(f"account:{user_id}:{account_type}:{account_class}")
        if not self._add("accounts", account_id, {
                "account_id": account_id, "user_id": user_id, "account_type": account_type,
                "account_class": account_class, "current_holdings": "0.00", "status": "OPEN", "date_opened": TODAY}):
            return f"Failed to open account: Account ID '{account_id}' may already exist."
        return (f"Bank account opened successfully!\n  - Account ID: {account_id}\n  - User ID: {user_id}\n"
                f"  - Account Type: {account_type}\n  - Account Class: {account_class}\n  - Status: OPEN\n"
                f"  - Initial Balance: $0.00\n  - Date Opened: {TODAY}")

    @discoverable(ACTION)
    def close_bank_account_7392(self, account_id: str, reason: str = "Customer requested closure",
                                waive_early_closure_fee: bool = False) -> str:
        """Close a customer's bank account (checking or savings).

        Args:
            account_id (string): The ID of the bank account to close
            reason (string, optional): The reason for closing the account
            waive_early_closure_fee (boolean, optional): Whether to waive early closure fees

        Returns:
            Bank account closed successfully.
        """
        if not account_id:
            return "Error: Missing required parameter (account_id)."
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        if account.get("status") == "CLOSED":
            return f"Error: Account '{account_id}' is already closed."
        balance = _account_balance(account)
        fee = 0.0
        if not waive_early_closure_fee:
            tiers = {"checking": EARLY_CLOSURE_CHECKING, "savings": EARLY_CLOSURE_SAVINGS}.get(account.get("class", ""))
            rule = tiers.get(account.get("level", "")) if tiers is not None else None
            opened = account.get("date_opened", "")
            if rule and opened:
                try:
                    age = (NOW - datetime.strptime(opened, "%m/%d/%Y")).days
                except ValueError:
                    age = None
                if age is not None and age < rule[1]:
                    if balance < rule[0]:
                        return "Error: Account unable to be closed."
                    fee = rule[0]
        if balance - fee != 0:
            return f"Error: Account balance must be $0.00 before closing. Current balance: ${balance:.2f}"
        account.update(status="CLOSED", date_closed=TODAY, closure_reason=reason,
                       early_closure_fee_waived=waive_early_closure_fee)
        self._save("accounts", account_id, account)
        return (f"Bank account closed successfully!\n  - Account ID: {account_id}\n"
                f"  - Account Type: {account.get('account_type', 'N/A')}\n"
                f"  - Account Class: {account.get('account_class', 'N/A')}\n  - Status: CLOSED\n"
                f"  - Date Closed: {TODAY}\n  - Reason: {reason}\n"
                f"  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}")

    @discoverable(READ)
    def get_all_user_accounts_by_user_id_3847(self, user_id: str) -> str:
        """Retrieve all accounts (checking, savings, credit cards) for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system

        Returns:
            User accounts retrieved successfully.
        """
        if not user_id:
            return "Error: Missing required parameter: user_id"
        accounts = self._by_field("accounts", "user_id", user_id)
        cards = self._by_field("credit_card_accounts", "user_id", user_id)
        return "\n".join(["User accounts retrieved successfully.", "", "Executed: get_all_user_accounts_by_user_id_3847",
                          f"Accounts for user {user_id}:", "", "Bank Accounts:",
                          accounts if self._found(accounts) else "  No bank accounts found.", "\nCredit Card Accounts:",
                          cards if self._found(cards) else "  No credit card accounts found."])

    @discoverable(ACTION)
    def transfer_funds_between_bank_accounts_7291(self, source_account_id: str, destination_account_id: str,
                                                  amount: float) -> str:
        """Transfer funds from one bank account to another.

        Args:
            source_account_id (string): The account ID to transfer funds from
            destination_account_id (string): The account ID to transfer funds to
            amount (number): The amount to transfer in USD

        Returns:
            Funds transferred successfully.
        """
        if not source_account_id or not destination_account_id or amount is None:
            return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Transfer amount must be positive."
        if source_account_id == destination_account_id:
            return "Error: Source and destination accounts cannot be the same."
        source = self._find("accounts", source_account_id)
        if source is None:
            return f"Error: Source account '{source_account_id}' not found."
        destination = self._find("accounts", destination_account_id)
        if destination is None:
            return f"Error: Destination account '{destination_account_id}' not found."
        if source.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Source account '{source_account_id}' is not active."
        if destination.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Destination account '{destination_account_id}' is not active."
        available = _account_balance(source)
        if available < amount:
            return (f"Error: Insufficient funds. Source account balance is ${available:.2f}, but transfer amount is "
                    f"${amount:.2f}.")
        held = _account_balance(destination)
        source["current_holdings"] = f"${available - amount:.2f}"
        destination["current_holdings"] = f"${held + amount:.2f}"
        self._save("accounts", source_account_id, source)
        self._save("accounts", destination_account_id, destination)
        return (f"Transfer completed successfully!\n  - Amount: ${amount:.2f}\n"
                f"  - From: {source_account_id} (new balance: ${available - amount:.2f})\n"
                f"  - To: {destination_account_id} (new balance: ${held + amount:.2f})")

    def _credit_account(self, account_id: Any, amount: Any, credit_type: Any, kinds: dict[str, str],
                        classes: tuple[str, ...], wrong_class: str, holdings: str, seed: str) -> str:
        """τ³'s two account-credit tools: checks, the new balance, and a posted transaction."""
        if not account_id or amount is None or not credit_type:
            return "Error: Missing required parameters."
        try:
            amount = float(amount)
        except (TypeError, ValueError):
            return "Error: Invalid credit amount. Must be a number."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        if credit_type not in kinds:
            return f"Error: Invalid credit_type. Must be one of: {list(kinds)}"
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        if account.get("class", "").lower() not in classes:
            return wrong_class.format(account_id=account_id)
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        balance = _account_balance(account)
        account["current_holdings"] = holdings.format(balance + amount)
        self._save("accounts", account_id, account)
        txn_id = f"txn_{hex_id(f'{seed}:{account_id}:{credit_type}:{amount}:{TODAY}')}"
        self._save("bank_account_transaction_history", txn_id, {
            "transaction_id": txn_id, "account_id": account_id, "date": TODAY, "description": kinds[credit_type],
            "amount": amount, "type": credit_type, "status": "posted"})
        return (f"\nCredit applied successfully!\n  - Transaction ID: {txn_id}\n  - Account: {account_id}\n"
                f"  - Credit Type: {credit_type}\n  - Amount: ${amount:.2f}\n  - Previous Balance: ${balance:.2f}\n"
                f"  - New Balance: ${balance + amount:.2f}")

    @discoverable(ACTION)
    def apply_checking_account_credit_5829(self, account_id: str, amount: float, credit_type: str) -> str:
        """Apply a credit to a customer's checking account.

        Args:
            account_id (string): The checking account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'rebate_credit' for missing rebates, 'fee_refund' for incorrect fee charges

        Returns:
            Credit applied to checking account successfully.
        """
        return self._credit_account(
            account_id, amount, credit_type,
            {"rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE", "fee_refund": "FEE REFUND - CUSTOMER SERVICE"},
            ("checking",), "Error: Account '{account_id}' is not a checking account. Credits can only be applied to "
                           "checking accounts.", "${:.2f}", "checking_credit")

    @discoverable(ACTION)
    def apply_savings_account_credit_6831(self, account_id: str, amount: float, credit_type: str) -> str:
        """Apply a credit to a customer's savings account for interest corrections, fee refunds, or goodwill adjustments.

        Args:
            account_id (string): The savings account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'interest_correction' for APY/interest calculation errors, 'fee_refund' for incorrect fee charges, 'goodwill_credit' for customer service gestures

        Returns:
            Credit applied to savings account successfully.
        """
        return self._credit_account(
            account_id, amount, credit_type,
            {"interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
             "fee_refund": "FEE REFUND - CUSTOMER SERVICE", "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE"},
            ("saving", "savings"), "Error: Account '{account_id}' is not a savings account. This tool only applies "
                                   "to savings accounts.", "{:.2f}", "savings_credit")

    @discoverable(ACTION)
    def submit_interest_discrepancy_report_7294(self, account_id: str, user_id: str, expected_apy: float,
                                                actual_apy: float, amount_difference: float) -> str:
        """Submit a report for interest calculation discrepancies to the backend team for investigation. Use this when the interest credited to a customer's account does not match expected APY calculations.

        Args:
            account_id (string): The savings account ID with the discrepancy
            user_id (string): The customer's unique identifier
            expected_apy (number): The APY percentage the customer should have received (e.g., 2.775 for 2.775%)
            actual_apy (number): The APY percentage that was actually applied (e.g., 2.5 for 2.5%)
            amount_difference (number): The dollar amount difference between expected and actual interest credited

        Returns:
            Interest discrepancy report submitted successfully. Backend team will investigate.
        """
        if not account_id or not user_id or expected_apy is None or actual_apy is None or amount_difference is None:
            return "Error: Missing required parameters."
        try:
            expected_apy, actual_apy = float(expected_apy), float(actual_apy)
            amount_difference = float(amount_difference)
        except (ValueError, TypeError):
            return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        user = self._find("users", user_id)
        if user is None:
            return f"Error: User '{user_id}' not found."
        report_id = f"IDR_{hex_id(f'interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{TODAY}')}"
        # τ³ adds the report to a table its database does not have: nothing is stored
        return (f"\nInterest Discrepancy Report Submitted Successfully!\n  - Report ID: {report_id}\n"
                f"  - Account: {account_id} ({account.get('level', 'Unknown')})\n"
                f"  - Customer: {user.get('name', 'Unknown')}\n  - Expected APY: {expected_apy}%\n"
                f"  - Actual APY: {actual_apy}%\n  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
                f"  - Amount Difference: ${amount_difference:.2f}\n  - Status: PENDING_REVIEW\n"
                f"\nThe backend team will investigate this discrepancy and ensure correct APY calculations are applied "
                f"going forward.")

    @discoverable(READ)
    def get_bank_account_transactions_9173(self, account_id: str) -> str:
        """Retrieve the transaction history for a bank account.

        Transactions are returned in reverse chronological order (most recent
        first).

        Args:
            account_id (string): The bank account ID to retrieve transactions for

        Returns:
            Bank account transactions retrieved successfully.
        """
        if not account_id:
            return "Error: Missing required parameter: account_id"
        if not self.world.has("accounts", account_id):
            return f"Error: Account '{account_id}' not found."
        rows = self._query("bank_account_transaction_history", {"account_id": account_id})

        def when(row: tuple[str, dict]) -> datetime:
            text = str(row[1].get("date", ""))
            for layout in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
                try:
                    return datetime.strptime(text, layout)
                except ValueError:
                    continue
            return datetime.min

        rows = sorted(rows, key=when, reverse=True)  # stable: same-day records keep their order
        listing = (_record_list(f"Found {len(rows)} record(s) in 'bank_account_transaction_history':\n", rows) if rows
                   else "\nNo transactions found for this account.")
        return "\n".join(["Bank account transactions retrieved successfully.", "",
                          "Executed: get_bank_account_transactions_9173", f"Transactions for account {account_id}:",
                          listing])

    @discoverable(ACTION)
    def order_debit_card_5739(self, account_id: str, user_id: str, delivery_option: str, delivery_fee: float,
                              card_design: str, design_fee: float, shipping_address: str,
                              excess_replacement_fee: Optional[float] = None) -> str:  # noqa: UP045 - τ³'s annotation
        """Order a new debit card for a customer's checking account.

        Args:
            account_id (string): The checking account ID to link the debit card to
            user_id (string): The customer's unique identifier
            delivery_option (string): Shipping speed: STANDARD, EXPEDITED, or RUSH
            delivery_fee (number): Fee to charge for delivery in dollars
            card_design (string): Card design: CLASSIC, PREMIUM, or CUSTOM
            design_fee (number): Fee to charge for card design in dollars
            shipping_address (string): Full shipping address for card delivery
            excess_replacement_fee (number, optional): Fee for exceeding replacement limit, if applicable

        Returns:
            Debit card order placed successfully.
        """
        excess = excess_replacement_fee or 0
        try:
            delivery_fee = float(delivery_fee) if delivery_fee is not None else None
        except (TypeError, ValueError):
            return "Error: delivery_fee must be a number."
        try:
            design_fee = float(design_fee) if design_fee is not None else None
        except (TypeError, ValueError):
            return "Error: design_fee must be a number."
        try:
            excess = float(excess)
        except (TypeError, ValueError):
            excess = 0
        if not all([account_id, user_id, delivery_option, delivery_fee is not None, card_design,
                    design_fee is not None, shipping_address]):
            return ("Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, "
                    "card_design, design_fee, shipping_address.")
        speeds = ["STANDARD", "EXPEDITED", "RUSH"]
        if delivery_option.upper() not in speeds:
            return f"Error: Invalid delivery_option. Must be one of: {speeds}"
        delivery_option = delivery_option.upper()
        designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
        if card_design.upper() not in designs:
            return f"Error: Invalid card_design. Must be one of: {designs}"
        card_design = card_design.upper()
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        if account.get("class") != "checking":
            return (f"Error: Debit cards can only be ordered for checking accounts. Account '{account_id}' is a "
                    f"{account.get('class')} account.")
        if account.get("status") != "OPEN":
            return f"Error: Account must be OPEN. Account '{account_id}' has status: {account.get('status')}"
        if account.get("user_id") != user_id:
            return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
        try:
            holdings = float(str(account.get("current_holdings", "0")).replace(",", ""))
        except ValueError:
            holdings = 0.0
        if holdings < 25.0:
            return f"Error: Account must have a minimum balance of $25. Current balance: ${holdings:.2f}"
        if any(o.get("account_id") == account_id and o.get("status") == "PENDING"
               for o in self.world.records("debit_card_orders")):
            return f"Error: There is already a pending debit card order for account '{account_id}'."
        cards = list(self.world.records("debit_cards"))
        if sum(1 for c in cards if c.get("account_id") == account_id and c.get("status") == "ACTIVE") >= 1:
            return (f"Error: Account '{account_id}' already has an active debit card. Maximum 1 active card per "
                    f"checking account.")
        total = delivery_fee + design_fee + excess
        if total > 0 and holdings < total:
            return f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current balance: ${holdings:.2f}"
        expected = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days",
                    "RUSH": "1-2 business days"}[delivery_option]
        order_id = f"dcord_{hex_id(f'debit_card_order:{account_id}:{user_id}:{delivery_option}', 12)}"
        if not self._add("debit_card_orders", order_id, {
                "order_id": order_id, "account_id": account_id, "user_id": user_id, "delivery_option": delivery_option,
                "card_design": card_design, "shipping_address": shipping_address, "delivery_fee": delivery_fee,
                "design_fee": design_fee, "excess_replacement_fee": excess, "total_fee": total, "order_date": TODAY,
                "expected_delivery": expected, "status": "PENDING"}):
            return "Error: Failed to create debit card order. Order may already exist."
        fee_parts = []
        if total > 0:
            account["current_holdings"] = f"{holdings - total:.2f}"
            self._save("accounts", account_id, account)
            fee_parts = ([f"Delivery ${delivery_fee}"] if delivery_fee > 0 else []) + (
                [f"Design ${design_fee}"] if design_fee > 0 else []) + (
                [f"Excess Replacement ${excess:.0f}"] if excess > 0 else [])
            fee_id = f"btxn_dcfee_{order_id[-8:]}"
            self._add("bank_account_transaction_history", fee_id, {
                "transaction_id": fee_id, "account_id": account_id, "date": TODAY,
                "description": f"DEBIT CARD ORDER FEE - {', '.join(fee_parts)}", "amount": -total,
                "type": "debit_card_fee", "status": "posted"})
        card_id = f"dbc_{hex_id(f'debit_card:{account_id}:{user_id}:{TODAY}', 12)}"
        last_4 = "".join(c for c in hex_id(f"card_details:{card_id}:last4", 8) if c.isdigit())[:4].zfill(4)
        cvv = "".join(c for c in hex_id(f"card_details:{card_id}:cvv", 6) if c.isdigit())[:3].zfill(3)
        user = self._find("users", user_id)
        holder = user.get("name", "CARDHOLDER").upper() if user is not None else "CARDHOLDER"
        month, _, year = TODAY.split("/")
        day = "31" if month in ["01", "03", "05", "07", "08", "10", "12"] else "28" if month == "02" else "30"
        linked = [c for c in cards if c.get("account_id") == account_id]
        closed = next((c for c in linked if c.get("status") == "CLOSED"), None)
        if closed:
            closure = closed.get("closure_reason", "first_card")
            reason = ("fraud" if closure == "fraud_suspected" else closure) \
                if closure in ["lost", "stolen", "fraud", "fraud_suspected"] else "first_card"
        else:
            reason = "first_card" if linked else "new_account"
        self._add("debit_cards", card_id, {
            "card_id": card_id, "account_id": account_id, "user_id": user_id, "cardholder_name": holder,
            "last_4_digits": last_4, "cvv": cvv, "status": "PENDING", "issue_date": TODAY,
            "expiration_date": f"{month}/{day}/{int(year) + 4}", "card_design": card_design, "issue_reason": reason})
        lines = ["Debit Card Order Confirmed", f"Order ID: {order_id}", f"Card ID: {card_id}",
                 f"Linked Account: {account_id}", f"Delivery Option: {delivery_option}", f"Card Design: {card_design}",
                 f"Shipping Address: {shipping_address}", f"Expected Delivery: {expected}", "",
                 "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card."]
        if total > 0:
            details = ([f"Delivery: ${delivery_fee}"] if delivery_fee > 0 else []) + (
                [f"Design: ${design_fee}"] if design_fee > 0 else []) + (
                [f"Excess Replacement: ${excess:.0f}"] if excess > 0 else [])
            lines += [f"Total Fees: ${total:.2f} ({', '.join(details)}) - CHARGED to account {account_id}",
                      f"New Account Balance: ${holdings - total:.2f}"]
        else:
            lines.append("Total Fees: $0 (No additional charges)")
        return "\n".join(lines)

    def _activation_problem(self, card_id: Any, last_4_digits: Any, expiration_date: Any, cvv: Any, pin: Any,
                            reasons: tuple[str, ...], tool_name: str) -> tuple[str | None, dict | None]:
        """τ³'s ``_validate_activation_common``: (its error, None) or (None, the card)."""
        if not all([card_id, last_4_digits, expiration_date, cvv, pin]):
            return ("Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, "
                    "pin."), None
        problem = _pin_problem(pin)
        if problem:
            return f"Error: {problem}", None
        if not cvv.isdigit() or len(cvv) != 3:
            return "Error: CVV must be exactly 3 digits.", None
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits.", None
        error, card = self._missing_card(card_id)
        if error:
            return error, None
        issue_reason = card.get("issue_reason", "new_account")
        if issue_reason not in reasons:
            right = ACTIVATION_TOOLS.get(issue_reason, "unknown")
            return (f"Error: Wrong activation tool. This card has issue_reason='{issue_reason}'. Please use {right} "
                    f"instead of {tool_name}."), None
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active.", None
        if card.get("status") != "PENDING":
            return (f"Error: Debit card '{card_id}' cannot be activated. Current status: {card.get('status')}. Only "
                    f"PENDING cards can be activated."), None
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records.", None
        account_id = card.get("account_id")
        account = self._find("accounts", account_id) if account_id else None
        if account is not None and account.get("status") != "OPEN":
            return (f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be "
                    f"activated."), None
        return None, card

    def _activate(self, card_id: str, card: dict, retire: dict) -> list[str]:
        """The card made active and the account's other active cards changed by ``retire``; their ids."""
        card.update(status="ACTIVE", activated_date=TODAY)
        self._save("debit_cards", card_id, card)
        retired = []
        for other_id, other in self._query("debit_cards", {}):
            if other_id != card_id and other.get("account_id") == card.get("account_id") \
                    and other.get("status") == "ACTIVE":
                other.update(retire)
                self._save("debit_cards", other_id, other)
                retired.append(other_id)
        return retired

    @discoverable(ACTION)
    def activate_debit_card_8291(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str,
                                 pin: str) -> str:
        """Activate a NEW debit card for a customer. Use ONLY for first-time cards on a checking account (issue_reason = 'new_account' or 'first_card'). For replacement or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            New debit card activated successfully.
        """
        error, card = self._activation_problem(card_id, last_4_digits, expiration_date, cvv, pin,
                                               ("new_account", "first_card"), "activate_debit_card_8291")
        if error:
            return error
        retired = self._activate(card_id, card, {"status": "DEACTIVATED", "deactivated_date": TODAY,
                                                 "deactivation_reason": "New card activated"})
        lines = ["New Debit Card Activation Successful", f"Card ID: {card_id}", "Status: ACTIVE",
                 f"Activation Date: {TODAY}", "", "Your card is now ready to use at any ATM or point of sale terminal.",
                 "For security, please sign the back of your card."]
        if retired:
            lines.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(retired)}")
        return "\n".join(lines)

    @discoverable(ACTION)
    def activate_debit_card_8292(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str,
                                 pin: str) -> str:
        """Activate a REPLACEMENT debit card. Use ONLY for cards replacing lost, stolen, or fraud-suspected cards (issue_reason = 'lost', 'stolen', or 'fraud'). For new or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Replacement debit card activated successfully.
        """
        error, card = self._activation_problem(card_id, last_4_digits, expiration_date, cvv, pin,
                                               ("lost", "stolen", "fraud"), "activate_debit_card_8292")
        if error:
            return error
        reason = card.get("issue_reason", "lost")
        retired = self._activate(card_id, card, {"status": "DEACTIVATED", "deactivated_date": TODAY,
                                                 "deactivation_reason": f"Replacement card activated ({reason})"})
        lines = ["Replacement Debit Card Activation Successful", f"Card ID: {card_id}",
                 f"Replacement Reason: {_title(reason)}", "Status: ACTIVE", f"Activation Date: {TODAY}", "",
                 "Your replacement card is now ready to use.", "", "IMPORTANT SECURITY REMINDERS:",
                 "- Please review your recent transactions for any unauthorized charges",
                 "- Report any suspicious activity immediately"]
        if reason == "fraud":
            lines.append("- Since fraud was suspected, we recommend changing your online banking password")
        if retired:
            lines.append(f"\nPrevious card(s) have been deactivated for security: {', '.join(retired)}")
        return "\n".join(lines)

    @discoverable(ACTION)
    def activate_debit_card_8293(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str,
                                 pin: str) -> str:
        """Activate a REISSUED debit card. Use ONLY for cards reissued due to expiration, damage, design upgrade, or bank-initiated replacement (issue_reason = 'expired', 'damaged', 'upgrade', or 'bank_reissue'). For new or replacement cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Reissued debit card activated successfully.
        """
        error, card = self._activation_problem(card_id, last_4_digits, expiration_date, cvv, pin,
                                               ("expired", "damaged", "upgrade", "bank_reissue"),
                                               "activate_debit_card_8293")
        if error:
            return error
        reason = card.get("issue_reason", "expired")
        grace = self._activate(card_id, card, {"status": "GRACE_PERIOD", "grace_period_ends": TODAY,
                                               "deactivation_reason": f"Reissued card activated ({reason})"})
        lines = ["Reissued Debit Card Activation Successful", f"Card ID: {card_id}", f"Reissue Reason: {_title(reason)}",
                 "Status: ACTIVE", f"Activation Date: {TODAY}", "", "Your reissued card is now ready to use."]
        if grace:
            lines += [f"\nNote: Your previous card(s) ({', '.join(grace)}) will remain active for 24 hours as a grace "
                      f"period.", "After 24 hours, the old card(s) will be automatically deactivated."]
        if reason in ["expired", "bank_reissue"]:
            lines.append("\nReminder: If your card number changed, please update any recurring payments with your new "
                         "card details.")
        return "\n".join(lines)

    @discoverable(ACTION)
    def close_debit_card_4721(self, card_id: str, reason: str) -> str:
        """Close or cancel a debit card permanently.

        Args:
            card_id (string): The debit card ID to close
            reason (string): Reason for closing: lost, stolen, fraud_suspected, damaged, no_longer_needed, or account_closing

        Returns:
            Debit card closed successfully.
        """
        if not card_id or not reason:
            return "Error: Missing required parameters. Required: card_id, reason."
        reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
        if reason.lower() not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        reason = reason.lower()
        error, card = self._missing_card(card_id)
        if error:
            return error
        previous = card.get("status")
        if previous not in ["ACTIVE", "PENDING"]:
            return (f"Error: Debit card '{card_id}' cannot be closed. Current status: {previous}. Only ACTIVE or "
                    f"PENDING cards can be closed.")
        card.update(status="CLOSED", closed_date=TODAY, closure_reason=reason)
        self._save("debit_cards", card_id, card)
        lines = ["Debit Card Closed Successfully", f"Card ID: {card_id}", f"Previous Status: {previous}",
                 "New Status: CLOSED", f"Closure Reason: {_title(reason)}", f"Closure Date: {TODAY}", ""]
        if reason in ["lost", "stolen", "fraud_suspected"]:
            lines += ["IMPORTANT: This card has been immediately deactivated for security.",
                      "Any pending transactions may still be processed."]
            if reason == "fraud_suspected":
                lines += ["Please advise the customer to review recent transactions and file disputes for any "
                          "unauthorized charges.", "Also recommend changing their online banking password."]
        lines += ["", "Note: This card cannot be reactivated. If the customer needs a new card, they can order one "
                      "through the standard ordering process.",
                  "Any recurring payments linked to this card will need to be updated with new payment information."]
        return "\n".join(lines)

    @discoverable(ACTION)
    def freeze_debit_card_3892(self, card_id: str) -> str:
        """Temporarily freeze a debit card. The card can be unfrozen later.

        Args:
            card_id (string): The debit card ID to freeze

        Returns:
            Debit card frozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        error, card = self._missing_card(card_id)
        if error:
            return error
        if card.get("status") == "FROZEN":
            return f"Error: Debit card '{card_id}' is already frozen."
        if card.get("status") != "ACTIVE":
            return (f"Error: Debit card '{card_id}' cannot be frozen. Current status: {card.get('status')}. Only ACTIVE "
                    f"cards can be frozen.")
        card.update(status="FROZEN", frozen_date=TODAY)
        self._save("debit_cards", card_id, card)
        return "\n".join([
            "Debit Card Frozen Successfully", f"Card ID: {card_id}", "Status: FROZEN", f"Frozen Date: {TODAY}", "",
            "While frozen:", "- All new purchase transactions will be declined",
            "- Recurring payments and subscriptions will be declined",
            "- Pending transactions already authorized may still process", "",
            "To unfreeze, the customer can call customer service or use the mobile app.",
            "If the card is confirmed lost or stolen, recommend closing the card permanently instead."])

    @discoverable(ACTION)
    def unfreeze_debit_card_3893(self, card_id: str) -> str:
        """Unfreeze a previously frozen debit card.

        Args:
            card_id (string): The debit card ID to unfreeze

        Returns:
            Debit card unfrozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        error, card = self._missing_card(card_id)
        if error:
            return error
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active."
        if card.get("status") != "FROZEN":
            return (f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: {card.get('status')}. Only "
                    f"FROZEN cards can be unfrozen.")
        account_id = card.get("account_id")
        account = self._find("accounts", account_id) if account_id else None
        if account is not None and account.get("status") != "OPEN":
            return (f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be "
                    f"unfrozen.")
        card.update(status="ACTIVE", unfrozen_date=TODAY)
        self._save("debit_cards", card_id, card)
        return "\n".join(["Debit Card Unfrozen Successfully", f"Card ID: {card_id}", "Status: ACTIVE",
                          f"Unfrozen Date: {TODAY}", "", "The card is now active and ready to use immediately.",
                          "All transactions will process normally."])

    @discoverable(ACTION)
    def clear_debit_card_fraud_alert_4892(self, card_id: str, reason: str) -> str:
        """Clear a fraud alert or velocity block on a debit card.

        Args:
            card_id (string): The debit card ID to clear the alert/block for
            reason (string): Reason for clearing: 'customer_verified' (for fraud alerts after customer verification) or 'velocity_clear' (for velocity blocks after identity verification)

        Returns:
            Fraud alert/velocity block cleared successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not reason:
            return "Error: Missing required parameter: reason."
        reasons = ["customer_verified", "velocity_clear"]
        if reason not in reasons:
            return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
        error, card = self._missing_card(card_id)
        if error:
            return error
        if reason == "velocity_clear":
            if not card.get("velocity_blocked", False):
                return f"Error: Debit card '{card_id}' does not have an active velocity block."
            card.update(velocity_blocked=False, velocity_cleared_date=TODAY)
            self._save("debit_cards", card_id, card)
            return "\n".join(["Velocity Block Cleared Successfully", f"Card ID: {card_id}", f"Cleared Date: {TODAY}",
                              "", "The card is now unblocked and ready for normal use.",
                              "The velocity monitoring will continue - if the same unusual patterns recur,",
                              "the card may be blocked again automatically."])
        if not card.get("fraud_alert_active", False):
            return f"Error: Debit card '{card_id}' does not have an active fraud alert."
        if card.get("alert_source") == "bank_initiated":
            return ("Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system "
                    "and cannot be cleared by customer service agents. Please transfer the customer to the security "
                    "team using transfer_to_human_agents.")
        card.update(fraud_alert_active=False, alert_source=None, fraud_alert_cleared_date=TODAY)
        self._save("debit_cards", card_id, card)
        return "\n".join(["Fraud Alert Cleared Successfully", f"Card ID: {card_id}", f"Cleared Date: {TODAY}", "",
                          "The fraud alert has been removed from the card.", "All transactions will process normally.",
                          "", "Remind the customer to review recent transactions and report any unauthorized charges."])

    @discoverable(ACTION)
    def reset_debit_card_pin_6284(self, card_id: str, last_4_digits: str, new_pin: str) -> str:
        """Reset a debit card PIN when the customer has forgotten it.

        Args:
            card_id (string): The debit card ID to reset PIN for
            last_4_digits (string): Last 4 digits of the card number (for verification)
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN reset successfully.
        """
        if not all([card_id, last_4_digits, new_pin]):
            return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits."
        problem = _pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        error, card = self._missing_card(card_id)
        if error:
            return error
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records."
        if card.get("status") != "ACTIVE":
            return (f"Error: Cannot reset PIN. Card status is {card.get('status')}. Only ACTIVE cards can have their "
                    f"PIN reset.")
        card.update(pin_last_changed=TODAY, pin_locked=False, pin_attempts_remaining=3)
        self._save("debit_cards", card_id, card)
        return "\n".join(["Debit Card PIN Reset Successfully", f"Card ID: {card_id}", f"PIN Changed: {TODAY}", "",
                          "The new PIN is effective immediately.", "Your card has been unlocked and is ready to use.",
                          "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
                          "Security reminder: Never share your PIN with anyone."])

    @discoverable(ACTION)
    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> str:
        """Change a debit card PIN when the customer knows their current PIN.

        Args:
            card_id (string): The debit card ID to change PIN for
            current_pin (string): The customer's current 4-digit PIN
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN changed successfully.
        """
        if not all([card_id, current_pin, new_pin]):
            return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
        if not current_pin.isdigit() or len(current_pin) != 4:
            return "Error: Current PIN must be exactly 4 digits."
        problem = _pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        if current_pin == new_pin:
            return "Error: New PIN must be different from current PIN."
        error, card = self._missing_card(card_id)
        if error:
            return error
        if card.get("status") != "ACTIVE":
            return (f"Error: Cannot change PIN. Card status is {card.get('status')}. Only ACTIVE cards can have their "
                    f"PIN changed.")
        card["pin_last_changed"] = TODAY
        self._save("debit_cards", card_id, card)
        return "\n".join(["Debit Card PIN Changed Successfully", f"Card ID: {card_id}", f"PIN Changed: {TODAY}", "",
                          "The new PIN is effective immediately.",
                          "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
                          "Security reminder: Never share your PIN with anyone."])

    @discoverable(READ)
    def get_debit_cards_by_account_id_7823(self, account_id: str) -> str:
        """Retrieve all debit cards associated with a checking account. Returns card details including status, issue reason, and expiration date.

        Args:
            account_id (string): The checking account ID to retrieve debit cards for

        Returns:
            Debit cards retrieved successfully.
        """
        if not account_id:
            return "Error: Missing required parameter 'account_id'."
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        if account.get("class", "").lower() not in ["checking", "business_checking"]:
            return (f"Error: Account '{account_id}' is not a checking account. Debit cards are only available for "
                    f"checking accounts.")
        cards = []
        for card_id, card in self._query("debit_cards", {}):
            if card.get("account_id") != account_id:
                continue
            info = {"card_id": card_id, **card}
            # τ³ renames two fields (moving them last)
            if "last_4_digits" in info and "card_number_last_4" not in info:
                info["card_number_last_4"] = info.pop("last_4_digits")
            if "issue_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("issue_date")
            elif "created_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("created_date")
            cards.append(info)
        if not cards:
            return f"No debit cards found for account '{account_id}'."
        cards.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
        return json.dumps(cards, indent=2)

    @discoverable(ACTION)
    def request_temporary_debit_card_limit_increase_8374(self, card_id: str, limit_type: str, new_limit: int) -> str:
        """Request a temporary 24-hour increase to a debit card's daily ATM or purchase limit.

        Args:
            card_id (string): The debit card ID to increase limits for
            limit_type (string): Type of limit to increase: 'atm' for daily ATM withdrawal limit, 'purchase' for daily purchase limit
            new_limit (integer): The requested new temporary limit amount in dollars

        Returns:
            Temporary limit increase granted successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not limit_type:
            return "Error: Missing required parameter: limit_type."
        if limit_type not in ["atm", "purchase"]:
            return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
        if new_limit is None:
            return "Error: Missing required parameter: new_limit."
        try:
            new_limit = float(new_limit)
        except (ValueError, TypeError):
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        if not new_limit.is_integer():
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        new_limit = int(new_limit)
        if new_limit <= 0:
            return "Error: new_limit must be a positive amount."
        error, card = self._missing_card(card_id)
        if error:
            return error
        if card.get("status") != "ACTIVE":
            return (f"Error: Debit card '{card_id}' is not active. Current status: {card.get('status')}. Only ACTIVE "
                    f"cards can have limit increases.")
        account_id = card.get("account_id")
        account = self._find("accounts", account_id) if account_id else None
        if account is None:
            return f"Error: Could not find linked account for debit card '{card_id}'."
        if account.get("status") != "OPEN":
            return (f"Error: The linked account '{account_id}' is not in good standing. Account status: "
                    f"{account.get('status')}.")
        opened = account.get("date_opened")
        if opened:
            try:
                age = (datetime.strptime(TODAY, "%m/%d/%Y") - datetime.strptime(opened, "%m/%d/%Y")).days
            except ValueError:
                age = None
            if age is not None and age < 60:
                return (f"Error: Account must be at least 60 days old for a temporary limit increase. Account age: "
                        f"{age} days.")
        if limit_type == "atm":
            current, field, label = card.get("daily_atm_limit"), "daily_atm_limit", "Daily ATM Withdrawal Limit"
            if current is None:
                level = account.get("level", "").lower()
                if "light green" in level:
                    return ("Error: Light Green Account (teen checking) cards have policy-based limits that cannot be "
                            "modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety "
                            "reasons. The customer may request the parent/guardian to withdraw cash from their own "
                            "account if needed.")
                current = DEFAULT_ATM_LIMITS.get(level)
                if current is None:
                    return (f"Error: Could not determine the default ATM limit for account type "
                            f"'{account.get('level')}'. Please verify the account type.")
        else:
            current, field, label = card.get("daily_purchase_limit"), "daily_purchase_limit", "Daily Purchase Limit"
        if current is None:
            return (f"Error: The card does not have a {label.lower()} configured. This may be a restricted account "
                    f"type where limits are set by account policy and cannot be modified.")
        ceiling = int(current * 1.5)
        if new_limit > ceiling:
            return (f"Error: Requested limit ${new_limit} exceeds the maximum allowed temporary increase. Maximum "
                    f"temporary limit is ${ceiling} (150% of current ${current} limit).")
        if new_limit <= current:
            return f"Error: Requested limit ${new_limit} is not higher than the current limit of ${current}."
        card[field] = new_limit
        card[f"temporary_{limit_type}_limit_increase"] = True
        card[f"original_{limit_type}_limit"] = current
        card[f"temporary_{limit_type}_limit_expires"] = TODAY
        self._save("debit_cards", card_id, card)
        return "\n".join([
            f"Temporary {label} Increase Granted Successfully", f"Card ID: {card_id}", f"Previous Limit: ${current}",
            f"New Temporary Limit: ${new_limit}", f"Increase Amount: ${new_limit - current}", "",
            "Important Information:", "- This temporary increase expires in 24 hours",
            f"- After expiration, the limit will revert to ${current}",
            "- Only one temporary increase is allowed per 24-hour period", "",
            "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
            "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
            "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs."])


class KnowledgeUserTools(BankTools):
    """τ³'s ``KnowledgeUserTools``: the customer's tools, and the tools the agent can give it."""

    VALID_CREDIT_CARD_TYPES = ["Bronze Rewards Card", "Business Bronze Rewards Card", "Business Gold Rewards Card",
                               "Business Platinum Rewards Card", "Business Silver Rewards Card", "Crypto-Cash Back",
                               "Diamond Elite Card", "EcoCard", "Gold Rewards Card", "Green Rewards Card",
                               "Platinum Rewards Card", "Silver Rewards Card", "Silver Zoom Card"]
    #: Reward percentages by card type and category ("default" for the rest), from the bank's profile.
    CREDIT_CARD_REWARDS = {
        "Bronze Rewards Card": {"default": 1.0},
        "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
        "Gold Rewards Card": {"default": 2.5},
        "Platinum Rewards Card": {"default": 10.0},
        "Business Bronze Rewards Card": {"default": 1.0},
        "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
        "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
        "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
        "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
        "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
        "Diamond Elite Card": {"default": 5.0},
        "EcoCard": {"Green": 5.0, "default": 1.0},
        "Crypto-Cash Back": {"default": 2.0},
    }

    def _not_given(self, tool_name: str) -> str | None:
        """τ³'s ``_check_tool_given``: its error unless the agent gave the tool."""
        if self._found(self._by_field("user_discoverable_tools", "tool_name", tool_name)):
            return None
        return (f"Error: Tool '{tool_name}' has not been given to you by the agent. The agent must first use "
                f"`give_discoverable_user_tool` to give this tool to you.")

    def _log_call(self, tool_name: str, args: dict) -> None:
        key = hex_id(f"user_discoverable_tool_call:{tool_name}:{json.dumps(args, sort_keys=True)}")
        self._add("user_discoverable_tool_calls", key, {"tool_name": tool_name, "arguments": args,
                                                        "called_at": TODAY, "status": "CALLED"})

    @staticmethod
    def _executed(text: str, tool_name: str, args: dict) -> str:
        return f"{text}\n\nExecuted: {tool_name}\nArguments: {json.dumps(args, indent=2)}\n"

    # -- the customer's discoverable tools -------------------------------------------------
    @discoverable(ACTION)
    def submit_cash_back_dispute_0589(self, user_id: str, transaction_id: str) -> str:
        """Submit a cash back dispute for a specific transaction.

        Args:
            user_id (string): The user's unique identifier in the system
            transaction_id (string): The unique identifier for the transaction with incorrect cash back

        Returns:
            Cash back dispute submitted successfully. Your case has been queued for review.
        """
        error = self._not_given("submit_cash_back_dispute_0589")
        if error:
            return error
        args = {"user_id": user_id, "transaction_id": transaction_id}
        self._log_call("submit_cash_back_dispute_0589", args)
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        settings = self._find("task_config", "dispute_settings") or {}
        record = {"dispute_id": dispute_id, "user_id": user_id, "transaction_id": transaction_id,
                  "submitted_at": TODAY}
        if settings.get("auto_resolve_disputes", False):
            record.update(status="RESOLVED", resolution="APPROVED")
            status = ("Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to "
                      "be updated.")
        else:
            record["status"] = "SUBMITTED"
            status = "Status: SUBMITTED - Your dispute has been queued for review."
        result = self._executed("Cash back dispute submitted successfully. Your case has been queued for review.",
                                "submit_cash_back_dispute_0589", args)
        if self._add("cash_back_disputes", dispute_id, record):
            return result + f"Dispute ID: {dispute_id}\n{status}"
        return result + "Note: Dispute may have already been submitted for this transaction."

    @discoverable(ACTION)
    def get_referral_link(self, user_id: str, card_name: str) -> str:
        """Generate a referral link for a specific credit card to share with friends or family.

        Args:
            user_id (string): The user's unique identifier in the system (the referrer)
            card_name (string): The name of the credit card to create a referral for (e.g., 'Gold Rewards Card')

        Returns:
            Referral link generated successfully. Share this link with the person you want to refer.
        """
        error = self._not_given("get_referral_link")
        if error:
            return error
        args = {"user_id": user_id, "card_name": card_name}
        self._log_call("get_referral_link", args)
        referral_id = hex_id(f"referral_link:{user_id}:{card_name}")
        result = self._executed("Referral link generated successfully. Share this link with the person you want to "
                                "refer.", "get_referral_link", args)
        if self._add("referrals", referral_id, {"referral_id": referral_id, "referrer_id": user_id,
                                                "referred_account_type": card_name, "referral_status": "NO_PROGRESS",
                                                "date": TODAY}):
            return result + f"Referral ID: {referral_id}\nReferral link: https://rhobank.com/refer/{referral_id}"
        return result + "Note: A referral link for this card may have already been generated."

    @discoverable(READ)
    def get_card_last_4_digits(self, credit_card_account_id: str) -> str:
        """Look up the last 4 digits of a credit card number.

        Args:
            credit_card_account_id (string): The credit card account ID to look up (e.g., 'cc_76ad9cc60e_gold')

        Returns:
            Card information retrieved successfully.
        """
        error = self._not_given("get_card_last_4_digits")
        if error:
            return error
        args = {"credit_card_account_id": credit_card_account_id}
        self._log_call("get_card_last_4_digits", args)
        if not self._found(self._by_field("credit_card_accounts", "account_id", credit_card_account_id)):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        digits = "".join(c for c in hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest()
                         if c.isdigit())[:4].ljust(4, "0")
        return (f"Card information retrieved successfully.\n\nExecuted: get_card_last_4_digits\n"
                f"Arguments: {json.dumps(args, indent=2)}\nLast 4 digits of card: {digits}")

    @discoverable(ACTION)
    def deposit_check_3847(self, account_id: str, check_amount: float) -> str:
        """Deposit a check into a checking or savings account. The user takes a photo of the check and submits it through their mobile banking app.

        Args:
            account_id (string): The bank account ID to deposit the check into
            check_amount (number): The amount of the check in USD

        Returns:
            Check deposited successfully. Funds will be available according to your account's deposit policy.
        """
        error = self._not_given("deposit_check_3847")
        if error:
            return error
        args = {"account_id": account_id, "check_amount": check_amount}
        self._log_call("deposit_check_3847", args)
        try:
            check_amount = float(check_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid check amount '{check_amount}'. Must be a number."
        if check_amount <= 0:
            return "Error: Check amount must be positive."
        account = self._find("accounts", account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        balance = _account_balance(account)
        account["current_holdings"] = f"${balance + check_amount:.2f}"
        self._save("accounts", account_id, account)
        return (f"Check deposited successfully. Funds will be available according to your account's deposit policy.\n\n"
                f"Executed: deposit_check_3847\nArguments: {json.dumps(args, indent=2)}\nCheck deposit processed!\n"
                f"  - Account: {account_id}\n  - Check Amount: ${check_amount:.2f}\n"
                f"  - Previous Balance: ${balance:.2f}\n  - New Balance: ${balance + check_amount:.2f}")

    # -- the customer's tools ----------------------------------------------------------------
    @tool(kind=ACTION, app="banking_knowledge")
    def apply_for_credit_card(self, card_type: str, customer_name: str, annual_income: float,
                              rho_bank_subscription: bool = False) -> str:
        """Apply for a credit card.

        Args:
            card_type: Type of credit card
            customer_name: Full legal name
            annual_income: Annual income in USD
            rho_bank_subscription: Whether user has Rho-Bank+ subscription
        """
        if card_type not in self.VALID_CREDIT_CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {self.VALID_CREDIT_CARD_TYPES}"
        try:
            annual_income = float(annual_income)
        except (TypeError, ValueError):
            return "Error: Invalid annual_income. Must be a number."
        application_id = hex_id(f"credit_card:{card_type}:{customer_name}:{annual_income}:{rho_bank_subscription}")
        if not self._add("credit_card_applications", application_id, {
                "application_id": application_id, "card_type": card_type, "customer_name": customer_name,
                "annual_income": annual_income, "rho_bank_subscription": rho_bank_subscription, "status": "PENDING",
                "date": TODAY}):
            return f"Failed to submit application: Record ID '{application_id}' may already exist."
        return ("Credit card application submitted:\nYour application has been successfully submitted. You will "
                "receive a decision within 5-7 business days via email.")

    @tool(kind=ACTION, app="banking_knowledge")
    def submit_referral(self, user_id: str, account_type: str) -> str:
        """Submit a referral request to refer someone to open an account.

        Args:
            user_id: Your user ID (the referrer)
            account_type: The type of account you are referring someone to open
        """
        referral_id = hex_id(f"referral:{user_id}:{account_type}")
        if not self._add("referrals", referral_id, {"referral_id": referral_id, "referrer_id": user_id,
                                                    "referred_account_type": account_type,
                                                    "referral_status": "NO_PROGRESS", "date": TODAY}):
            return f"Failed to submit referral: Record ID '{referral_id}' may already exist."
        return (f"Referral request submitted successfully!\n  - Referral ID: {referral_id}\n  - Referrer ID: {user_id}\n"
                f"  - Account Type: {account_type}\n  - Status: NO_PROGRESS\n  - Date: {TODAY}\n\n"
                f"Share your referral ID with the person you're referring. They will need to use this when applying "
                f"for their account.")

    @tool(kind=ACTION, app="banking_knowledge")
    def call_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Call a tool that was given to you by the agent.

        Use this when the agent has instructed you to perform an action using
        a discoverable tool. The agent will have told you the tool name and arguments.

        This simulates you performing the action in the real world (e.g., opening
        a webpage, navigating to a section, clicking a button).

        Args:
            discoverable_tool_name: The name of the discoverable tool to call (e.g., "open_webpage")
            arguments: JSON string of arguments for the tool (e.g., '{"url": "https://example.com"}')

        Returns:
            The result of executing the discoverable tool
        """
        spec = self.discoverable_specs.get(discoverable_tool_name)
        if spec is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        given, error = _parse_arguments(arguments)
        if error is not None:
            return error
        for name, parameter in spec.parameters.items():
            if parameter.required and name not in given:
                return f"Error: Missing required parameter: {name}"
        for name in given:
            if name not in spec.parameters:
                return f"Error: Unexpected parameter: {name}"
        error, result = self._run_discoverable(spec, given)
        if error is not None:
            return f"Error: Invalid arguments for tool '{discoverable_tool_name}': {error}"
        return result

    @tool(kind=READ, app="banking_knowledge")
    def list_discoverable_user_tools(self) -> str:
        """List all tools that have been given to you by the agent.

        Use this to see what actions the agent has instructed you to perform.

        Returns:
            A list of tools that have been given to you
        """
        result = self._query_text("user_discoverable_tools", "{}")
        if "No results found" in result:  # τ³'s test: the query never words it so
            return "No tools have been given to you yet by the agent."
        return f"Tools given to you by the agent:\n{result}"

    @tool(kind=ACTION, app="banking_knowledge")
    def request_human_agent_transfer(self) -> str:
        """Request to be transferred to a human agent for assistance.

        Use this when you want to speak with a real human agent instead of
        the automated system. Each request will be logged and processed.

        Returns:
            Confirmation that your transfer request has been submitted
        """
        existing = self._query_text("human_transfer_requests", "{}")
        count = 1 if not self._found(existing) else existing.count("request_id") + 1
        request_id = f"transfer_request_{count}"
        self._add("human_transfer_requests", request_id, {"request_id": request_id, "request_number": count,
                                                          "requested_at": TODAY, "status": "PENDING"})
        return f"Transfer request #{count} submitted.\nThe agent will process your request."

    @tool(kind=ACTION, app="banking_knowledge")
    def submit_transaction(self, user_id: str, credit_card_type: str, merchant_name: str, amount: float,
                           category: str) -> str:
        """Submit a credit card transaction.

        Args:
            user_id: Your user ID
            credit_card_type: Type of credit card used (e.g., "Bronze Rewards Card", "Gold Rewards Card")
            merchant_name: Name of the merchant where the purchase was made
            amount: Transaction amount in USD (e.g., 127.43)
            category: Transaction category (e.g., "Groceries", "Dining", "Travel", "Software", "Entertainment", "Utilities", "Shopping")
        """
        if credit_card_type not in self.CREDIT_CARD_REWARDS:
            return (f"Error: Unknown credit card type '{credit_card_type}'. Available types: "
                    f"{list(self.CREDIT_CARD_REWARDS)}")
        txn_id = transaction_id(user_id, credit_card_type, merchant_name, amount, category)
        rates = self.CREDIT_CARD_REWARDS[credit_card_type]
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        if not self._add("credit_card_transaction_history", txn_id, {
                "transaction_id": txn_id, "user_id": user_id, "credit_card_type": credit_card_type,
                "merchant_name": merchant_name, "transaction_amount": f"${amount:.2f}", "transaction_date": TODAY,
                "category": category, "status": "COMPLETED", "rewards_earned": f"{points} points"}):
            return f"Failed to submit transaction: Record ID '{txn_id}' may already exist."
        return (f"Transaction submitted successfully!\n  - Transaction ID: {txn_id}\n  - User ID: {user_id}\n"
                f"  - Card Type: {credit_card_type}\n  - Merchant: {merchant_name}\n  - Amount: ${amount:.2f}\n"
                f"  - Category: {category}\n  - Date: {TODAY}\n  - Rewards Earned: {points} points ({rate}% cashback "
                f"rate)\n")


#: Which activation tool fits a card's ``issue_reason`` (τ³'s message when the wrong one is used).
ACTIVATION_TOOLS = {"new_account": "activate_debit_card_8291", "first_card": "activate_debit_card_8291",
                    "lost": "activate_debit_card_8292", "stolen": "activate_debit_card_8292",
                    "fraud": "activate_debit_card_8292", "expired": "activate_debit_card_8293",
                    "damaged": "activate_debit_card_8293", "upgrade": "activate_debit_card_8293",
                    "bank_reissue": "activate_debit_card_8293"}
#: Early-closure (fee, window in days) by account level.
EARLY_CLOSURE_CHECKING = {"Light Blue Account": (15, 30), "Light Green Account": (15, 30),
                          "Green Fee-Free Account": (15, 30), "Blue Account": (25, 60), "Green Account": (25, 60),
                          "Evergreen Account": (50, 90), "Bluest Account": (100, 180)}
EARLY_CLOSURE_SAVINGS = {"Bronze Account": (20, 60), "Silver Account": (35, 90), "Silver Plus Account": (35, 90),
                         "Gold Account": (75, 180), "Gold Plus Account": (75, 180), "Gold Years Account": (75, 180),
                         "Platinum Account": (150, 270), "Platinum Plus Account": (150, 270),
                         "Diamond Elite Account": (150, 270)}
#: Default daily ATM limits by account level (lower case) where a card has none.
DEFAULT_ATM_LIMITS = {"blue account": 500, "green account": 600, "light blue account": 400,
                      "green fee-free account": 500, "evergreen account": 750, "bluest account": 1500,
                      "dark green account": 300, "gold years account": 600, "purple account": 1000}

_ENVELOPE_1135 = """
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: ENV-2025-{envelope}
Deposit Time: {time}
ATM Location: {location}

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
  - Check Number: {check}
  - Drawn On: {bank}
  - Payee: {payee}
  - Amount: $875.00
  - Memo: "October rent refund"
  - Signature: Present and legible
  - Date on Check: {date}

Item 2: Cash
  - Denomination breakdown:
    * 2 x $100 bills = $200.00
    * 3 x $20 bills = $60.00
  - Total Cash: $260.00

--- DEPOSIT SUMMARY ---
Check Total: $875.00
Cash Total: $260.00
GRAND TOTAL: $1,135.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $385.00
DISCREPANCY DETECTED: $750.00 difference

--- IMAGE QUALITY ---
Envelope scan: CLEAR
Check front: CLEAR
Check back (endorsement): CLEAR - endorsed "For Deposit Only - {payee}"
Cash image: CLEAR - bills visible and countable
"""
_DISCREPANCY_NOTES = ("Images clearly show deposit contents totaling $1,135.00. ATM machine recorded only $385.00. "
                      "Discrepancy of $750.00 confirmed via image review.")
#: τ³'s scanned envelopes of three test deposits: (ATM, envelope text, verification notes).
ATM_DEPOSIT_IMAGES = {
    "btxn_834027370c20": ("ATM #3921", _ENVELOPE_1135.format(
        envelope="3921-00923", time="3:47 PM CST", location="Rho-Bank ATM #3921, Cedar Lane Branch, Austin, TX",
        check="7284", bank="First Texas Bank", payee="Derek Yamamoto", date="11/03/2025"), _DISCREPANCY_NOTES),
    "btxn_test_deposit_001": ("ATM #3921", _ENVELOPE_1135.format(
        envelope="3921-00847", time="2:34 PM EST", location="Rho-Bank ATM #3921, 742 Oak Avenue, Portland, OR",
        check="4821", bank="First National Bank", payee="Linda Patterson", date="11/05/2025"), _DISCREPANCY_NOTES),
    "btxn_test_atm_dep_partial": ("ATM #5847", """
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: ENV-2025-5847-00293
Deposit Time: 10:15 AM EST

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
  - Check Number: 7392
  - Amount: $500.00

--- DEPOSIT SUMMARY ---
Check Total: $500.00
Cash Total: $0.00
GRAND TOTAL: $500.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $500.00
No discrepancy detected.
""", "Images confirm deposit matches recorded amount. No discrepancy found."),
}


@functools.cache
def compose_toolkit(retrieval_toolkits: tuple[type[Tau2Toolkit], ...]) -> type[KnowledgeTools]:
    """The agent's toolkit under a retrieval config: its toolkits' tools before the base tools, as
    τ³ composes its mixins with ``KnowledgeTools`` (``retrieval_toolkits.py``)."""
    if not retrieval_toolkits:
        return KnowledgeTools
    name = "KnowledgeToolsWith" + "".join(toolkit.__name__ for toolkit in retrieval_toolkits)
    return type(name, (*retrieval_toolkits, KnowledgeTools), {"__module__": __name__})
