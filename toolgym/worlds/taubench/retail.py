"""τ-bench v1's retail domain: τ²'s retail tables (the same three) with v1's 16 tools.

Each tool answers with the text v1's returns (``json.dumps`` of the record, or v1's error
string such as ``Error: order not found``); an error answer changes nothing, as in v1.
"""

from __future__ import annotations

import json
from typing import Literal

from toolgym.worlds.tau2.retail import RetailWorld
from toolgym.worlds.taubench.common import V1Hash, calculate
from toolgym.worlds.tools import ACTION, READ, Toolkit, tool


class TauBenchRetailWorld(V1Hash, RetailWorld):
    """τ²'s retail world (same tables, same generated database) with τ-bench v1's tools and hash."""

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        self.tools = RetailTools(self)


def _missing(item_ids: list[str], order: dict) -> str | None:
    """The first item id asked for more often than the order holds it (v1's duplicate-aware check)."""
    held = [item["item_id"] for item in order["items"]]
    return next((i for i in item_ids if item_ids.count(i) > held.count(i)), None)


class RetailTools(Toolkit):
    """The retail agent's tools (τ-bench v1's ``tau_bench/envs/retail/tools``)."""

    world: TauBenchRetailWorld

    def _doc(self, table: str, key: str) -> dict | None:
        return self.world.get(table, key, "") if self.world.has(table, key) else None

    def _price_difference(self, order: dict, item_ids: list[str], new_item_ids: list[str]):
        """(difference, products by id) of swapping the items, or (error text, None)."""
        products = {}
        difference = 0
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            item = [item for item in order["items"] if item["item_id"] == item_id][0]
            product = products.setdefault(item["product_id"], self._doc("products", item["product_id"]))
            variant = product["variants"].get(new_item_id)
            if not (variant and variant["available"]):
                return f"Error: new item {new_item_id} not found or available", None
            difference += variant["price"] - item["price"]
        return difference, products

    @tool(kind=READ, app="retail")
    def calculate(self, expression: str) -> str:
        """Calculate the result of a mathematical expression.

        Args:
            expression: The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
        """
        return calculate(expression)

    @tool(kind=ACTION, app="retail")
    def cancel_pending_order(self, order_id: str, reason: Literal["no longer needed", "ordered by mistake"]) -> str:
        """Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            reason: The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
        """
        order = self._doc("orders", order_id)
        if order is None:
            return "Error: order not found"
        if order["status"] != "pending":
            return "Error: non-pending order cannot be cancelled"
        user = self._doc("users", order["user_id"])
        refunds = []
        for payment in order["payment_history"]:
            payment_id = payment["payment_method_id"]
            refunds.append({"transaction_type": "refund", "amount": payment["amount"], "payment_method_id": payment_id})
            if "gift_card" in payment_id:  # a gift card is refunded at once
                method = user["payment_methods"][payment_id]
                method["balance"] = round(method["balance"] + payment["amount"], 2)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return json.dumps(order)

    @tool(kind=ACTION, app="retail")
    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                       payment_method_id: str) -> str:
        """Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.
            new_item_ids: The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        order = self._doc("orders", order_id)
        if order is None:
            return "Error: order not found"
        if order["status"] != "delivered":
            return "Error: non-delivered order cannot be exchanged"
        missing = _missing(item_ids, order)
        if missing is not None:
            return f"Error: {missing} not found"
        if len(item_ids) != len(new_item_ids):
            return "Error: the number of items to be exchanged should match"
        difference, products = self._price_difference(order, item_ids, new_item_ids)
        if products is None:
            return difference
        difference = round(difference, 2)
        user = self._doc("users", order["user_id"])
        if payment_method_id not in user["payment_methods"]:
            return "Error: payment method not found"
        method = user["payment_methods"][payment_method_id]
        if method["source"] == "gift_card" and method["balance"] < difference:
            return "Error: insufficient gift card balance to pay for the price difference"
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = difference
        self.world.put("orders", order_id, order)
        return json.dumps(order)

    @tool(kind=READ, app="retail")
    def find_user_id_by_email(self, email: str) -> str:
        """Find user id by email. If the user is not found, the function will return an error message.

        Args:
            email: The email of the user, such as 'something@example.com'.
        """
        for user_id, found in self.world.fields("users", "$.email"):
            if found is not None and found.lower() == email.lower():
                return user_id
        return "Error: user not found"

    @tool(kind=READ, app="retail")
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.

        Args:
            first_name: The first name of the customer, such as 'John'.
            last_name: The last name of the customer, such as 'Doe'.
            zip: The zip code of the customer, such as '12345'.
        """
        for user_id, first, last, code in self.world.fields("users", "$.name.first_name", "$.name.last_name",
                                                            "$.address.zip"):
            if str(first).lower() == first_name.lower() and str(last).lower() == last_name.lower() and code == zip:
                return user_id
        return "Error: user not found"

    @tool(kind=READ, app="retail")
    def get_order_details(self, order_id: str) -> str:
        """Get the status and details of an order.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        """
        order = self._doc("orders", order_id)
        return "Error: order not found" if order is None else json.dumps(order)

    @tool(kind=READ, app="retail")
    def get_product_details(self, product_id: str) -> str:
        """Get the inventory details of a product.

        Args:
            product_id: The product id, such as '6086499569'. Be careful the product id is different from the item id.
        """
        product = self._doc("products", product_id)
        return "Error: product not found" if product is None else json.dumps(product)

    @tool(kind=READ, app="retail")
    def get_user_details(self, user_id: str) -> str:
        """Get the details of a user, including their orders.

        Args:
            user_id: The user id, such as 'sara_doe_496'.
        """
        user = self._doc("users", user_id)
        return "Error: user not found" if user is None else json.dumps(user)

    @tool(kind=READ, app="retail")
    def list_all_product_types(self) -> str:
        """List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store."""
        names = {name: product_id for _, name, product_id in self.world.fields("products", "$.name", "$.product_id")}
        return json.dumps(dict(sorted(names.items())))

    def _modify_address(self, table: str, key: str, status_check: bool, address: dict) -> str:
        record = self._doc(table, key)
        if record is None:
            return f"Error: {'order' if table == 'orders' else 'user'} not found"
        if status_check and record["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        record["address"] = address
        self.world.put(table, key, record)
        return json.dumps(record)

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_address(self, order_id: str, address1: str, address2: str, city: str, state: str,
                                     country: str, zip: str) -> str:
        """Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            address1: The first line of the address, such as '123 Main St'.
            address2: The second line of the address, such as 'Apt 1' or ''.
            city: The city, such as 'San Francisco'.
            state: The state, such as 'CA'.
            country: The country, such as 'USA'.
            zip: The zip code, such as '12345'.
        """
        return self._modify_address("orders", order_id, True, {"address1": address1, "address2": address2,
                                                               "city": city, "state": state, "country": country,
                                                               "zip": zip})

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> str:
        """Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.
            new_item_ids: The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        order = self._doc("orders", order_id)
        if order is None:
            return "Error: order not found"
        if order["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        missing = _missing(item_ids, order)
        if missing is not None:
            return f"Error: {missing} not found"
        if len(item_ids) != len(new_item_ids):
            return "Error: the number of items to be exchanged should match"
        difference, products = self._price_difference(order, item_ids, new_item_ids)
        if products is None:
            return difference
        user = self._doc("users", order["user_id"])
        if payment_method_id not in user["payment_methods"]:
            return "Error: payment method not found"
        method = user["payment_methods"][payment_method_id]
        if method["source"] == "gift_card" and method["balance"] < difference:
            return "Error: insufficient gift card balance to pay for the new item"
        order["payment_history"].append({"transaction_type": "payment" if difference > 0 else "refund",
                                         "amount": abs(difference), "payment_method_id": payment_method_id})
        if method["source"] == "gift_card":
            method["balance"] = round(method["balance"] - difference, 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            item = [item for item in order["items"] if item["item_id"] == item_id][0]
            variant = products[item["product_id"]]["variants"][new_item_id]
            item["item_id"] = new_item_id
            item["price"] = variant["price"]
            item["options"] = variant["options"]
        order["status"] = "pending (item modified)"
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return json.dumps(order)

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> str:
        """Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        order = self._doc("orders", order_id)
        if order is None:
            return "Error: order not found"
        if order["status"] != "pending":
            return "Error: non-pending order cannot be modified"
        user = self._doc("users", order["user_id"])
        if payment_method_id not in user["payment_methods"]:
            return "Error: payment method not found"
        history = order["payment_history"]
        if len(history) > 1 or history[0]["transaction_type"] != "payment":
            return "Error: there should be exactly one payment for a pending order"
        old_id = history[0]["payment_method_id"]
        if old_id == payment_method_id:
            return "Error: the new payment method should be different from the current one"
        amount = history[0]["amount"]
        method = user["payment_methods"][payment_method_id]
        if method["source"] == "gift_card" and method["balance"] < amount:
            return "Error: insufficient gift card balance to pay for the order"
        history.extend([{"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
                        {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id}])
        if method["source"] == "gift_card":
            method["balance"] = round(method["balance"] - amount, 2)
        if "gift_card" in old_id:
            old = user["payment_methods"][old_id]
            old["balance"] = round(old["balance"] + amount, 2)
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return json.dumps(order)

    @tool(kind=ACTION, app="retail")
    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str, state: str, country: str,
                            zip: str) -> str:
        """Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            user_id: The user id, such as 'sara_doe_496'.
            address1: The first line of the address, such as '123 Main St'.
            address2: The second line of the address, such as 'Apt 1' or ''.
            city: The city, such as 'San Francisco'.
            state: The state, such as 'CA'.
            country: The country, such as 'USA'.
            zip: The zip code, such as '12345'.
        """
        return self._modify_address("users", user_id, False, {"address1": address1, "address2": address2,
                                                              "city": city, "state": state, "country": country,
                                                              "zip": zip})

    @tool(kind=ACTION, app="retail")
    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> str:
        """Return some items of a delivered order. The order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        order = self._doc("orders", order_id)
        if order is None:
            return "Error: order not found"
        if order["status"] != "delivered":
            return "Error: non-delivered order cannot be returned"
        user = self._doc("users", order["user_id"])
        if payment_method_id not in user["payment_methods"]:
            return "Error: payment method not found"
        if "gift_card" not in payment_method_id and payment_method_id != order["payment_history"][0]["payment_method_id"]:
            return "Error: payment method should be either the original payment method or a gift card"
        if _missing(item_ids, order) is not None:
            return "Error: some item not found"
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        self.world.put("orders", order_id, order)
        return json.dumps(order)

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
