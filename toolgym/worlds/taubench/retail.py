"""τ-bench v1's retail domain: τ²'s retail tables (the same three) with v1's 16 tools.

Each tool answers with the text v1's returns (``json.dumps`` of the record, or v1's error
string such as ``Error: order not found``); an error answer changes nothing, as in v1.
The checks, arithmetic and changes of each write are τ²'s (:class:`RetailRules` in
``worlds/tau2/retail.py``); this module holds what v1 does otherwise: its records, words,
output shapes and quirks.
"""

from __future__ import annotations

from typing import Literal

from toolgym.worlds.tau2.retail import RetailRules, RetailWorld
from toolgym.worlds.tau2.store import DocumentWorld
from toolgym.worlds.tau2.retail import RetailTools as Tau2RetailTools
from toolgym.worlds.taubench.common import V1Hash, V1Toolkit, calculate, v1_record, v1_tool
from toolgym.worlds.tools import ACTION, READ, ToolError, tool


class TauBenchRetailWorld(V1Hash, RetailWorld):
    """τ²'s retail world (same tables, same generated database) with τ-bench v1's tools and hash."""

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.tools = RetailTools(self)

    def dump(self) -> dict[str, dict]:
        return DocumentWorld.dump(self)  # v1's records as stored: v1 has no defaults to fill


class RetailTools(RetailRules, V1Toolkit):
    """The retail agent's tools (τ-bench v1's ``tau_bench/envs/retail/tools``): τ²'s rules
    (:class:`RetailRules`) with v1's records, words and quirks."""

    world: TauBenchRetailWorld
    EXCHANGE_MISSING = "{} not found"
    EXCHANGE_COUNT = "The number of items to be exchanged should match"
    RETURN_METHOD = "Payment method should be either the original payment method or a gift card"
    LAST_VARIANT_FOR_EVERY_ITEM = False
    NEW_ITEM_MUST_DIFFER = False

    def _order(self, order_id: str) -> dict:
        return self.world.get("orders", order_id, "Order not found")

    def _user(self, user_id: str) -> dict:
        return self.world.get("users", user_id, "User not found")

    def _variant(self, product_id: str, item_id: str) -> dict:
        variant = self._doc("products", product_id)["variants"].get(item_id)
        if not variant:
            raise ToolError(f"New item {item_id} not found or available")
        return variant

    @staticmethod
    def _refund_method(user: dict, payment_method_id: str) -> dict | None:
        """v1 refunds at once a method whose id names a gift card."""
        return user["payment_methods"][payment_method_id] if "gift_card" in payment_method_id else None

    @staticmethod
    def _modifiable(status: str) -> bool:
        return status == "pending"

    @staticmethod
    def _address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> dict:
        return {"address1": address1, "address2": address2, "city": city, "state": state, "country": country,
                "zip": zip}

    @tool(kind=ACTION, app="retail")
    def cancel_pending_order(self, order_id: str, reason: Literal["no longer needed", "ordered by mistake"]) -> str:
        """Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            reason: The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
        """
        return self._answer(self._cancel, order_id, reason)

    # v1 declares these as τ² does: τ²'s tools, answering in v1's text (its calculator is its own)
    calculate = v1_tool(Tau2RetailTools.calculate, body=calculate)
    exchange_delivered_order_items = v1_tool(Tau2RetailTools.exchange_delivered_order_items)
    find_user_id_by_email = v1_tool(Tau2RetailTools.find_user_id_by_email)
    find_user_id_by_name_zip = v1_tool(Tau2RetailTools.find_user_id_by_name_zip)
    get_order_details = v1_record(Tau2RetailTools.get_order_details, "orders", "Error: order not found")
    get_product_details = v1_record(Tau2RetailTools.get_product_details, "products", "Error: product not found")
    get_user_details = v1_record(Tau2RetailTools.get_user_details, "users", "Error: user not found")
    list_all_product_types = v1_tool(Tau2RetailTools.list_all_product_types)
    modify_pending_order_address = v1_tool(Tau2RetailTools.modify_pending_order_address)
    modify_pending_order_items = v1_tool(Tau2RetailTools.modify_pending_order_items)
    modify_pending_order_payment = v1_tool(Tau2RetailTools.modify_pending_order_payment)
    modify_user_address = v1_tool(Tau2RetailTools.modify_user_address)
    return_delivered_order_items = v1_tool(Tau2RetailTools.return_delivered_order_items)

    @tool(kind=READ, app="retail")
    def think(self, thought: str) -> str:
        """Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning or some cache memory is needed.

        Args:
            thought: A thought to think about.
        """
        return ""

    @tool(kind=READ, app="retail")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or if the user's issue cannot be resolved by the agent with the available tools.

        Args:
            summary: A summary of the user's issue.
        """
        return "Transfer successful"
