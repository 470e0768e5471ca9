"""τ²-bench's retail domain: products with variants, users and orders, and the agent's 16 tools.

The rules are τ²-bench's (``domains/retail/tools.py``), its quirks included: modifying the
items of a pending order gives every changed item the price and options of the *last* new
item, and gift-card balances are rounded to cents after each change.
"""

from __future__ import annotations

import json

from sqlalchemy.orm import DeclarativeBase

from toolgym.worlds.tau2.common import TRANSFER_RESULT, Tau2Toolkit, ValueFirstError, calculate
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld
from toolgym.worlds.tools import ACTION, READ, ToolError, tool

CANCEL_REASONS = ("no longer needed", "ordered by mistake")
#: The fields of τ²-bench's ``Order`` that default to None: its tools return them as null when unset.
ORDER_OPTIONAL = ("cancel_reason", "exchange_items", "exchange_new_items", "exchange_payment_method_id",
                  "exchange_price_difference", "return_items", "return_payment_method_id")


class Base(DeclarativeBase):
    pass


class Product(DocumentRow, Base):
    __tablename__ = "products"


class User(DocumentRow, Base):
    __tablename__ = "users"


class Order(DocumentRow, Base):
    __tablename__ = "orders"


class RetailWorld(DocumentWorld):
    Base = Base
    tables = {"products": Product, "users": User, "orders": Order}

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        # find_user_id_by_name_zip looks users up by zip: the index spares it reading every user's JSON
        self.sql().execute("CREATE INDEX IF NOT EXISTS users_zip ON users (json_extract(doc, '$.address.zip'))")
        self.commit()
        self.tools = RetailTools(self)

    def populate(self) -> None:
        from toolgym.worlds.tau2.tasks import retail_database
        self.load(retail_database(self.seed))

    def dump(self) -> dict[str, dict]:
        """τ²'s ``db.json`` layout as τ²'s ``RetailDB`` dumps it: an order's unset optional fields
        (:data:`ORDER_OPTIONAL`) as null, which the official file leaves out."""
        data = super().dump()
        for order in data["orders"].values():
            for key in ORDER_OPTIONAL:
                order.setdefault(key, None)
        return data


def _is_gift_card(method: dict) -> bool:
    return method.get("source") == "gift_card"


class RetailRules:
    """What τ²'s and τ-bench v1's retail tools share: the checks of each write, the price
    differences and refunds, and the changes each write makes to its records.

    A failure raises :class:`ToolError` in τ²'s words; v1's toolkit words it as v1 does. Where the
    two benchmarks differ, the toolkit says how: its record lookups (``_order``, ``_user``,
    ``_variant``), which methods are refunded at once (``_refund_method``), which orders may still be
    changed (``_modifiable``), an address's key order (``_address``), and the texts and flags below.
    Every check comes before the first write, so a failed call writes nothing.
    """

    world: RetailWorld
    EXCHANGE_MISSING = "Number of {} not found."
    EXCHANGE_COUNT = "The number of items to be exchanged should match."
    RETURN_METHOD = "Payment method should be the original payment method"
    #: τ²'s rule: every modified item gets the price and options of the last new item looked up.
    LAST_VARIANT_FOR_EVERY_ITEM = True
    #: τ² refuses to "modify" an item into itself.
    NEW_ITEM_MUST_DIFFER = True

    def _payment_method(self, user: dict, payment_method_id: str) -> dict:
        if payment_method_id not in user["payment_methods"]:
            raise ToolError("Payment method not found")
        return user["payment_methods"][payment_method_id]

    def _check_items(self, order: dict, item_ids: list[str], message: str) -> None:
        """Each item id asked for at most as often as the order holds it, else ``message`` of the id."""
        in_order = [item["item_id"] for item in order["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > in_order.count(item_id):
                raise (ValueFirstError if message.startswith("{}") else ToolError)(message.format(item_id))

    def _price_swaps(self, order: dict, item_ids: list[str], new_item_ids: list[str],
                     must_differ: bool = False) -> tuple[float, list[dict]]:
        """(what the new items cost more than the old, the new items' variants in order)."""
        difference, variants = 0, []
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            if must_differ and item_id == new_item_id:
                raise ToolError("The new item id should be different from the old item id")
            item = next(i for i in order["items"] if i["item_id"] == item_id)
            variant = self._variant(item["product_id"], new_item_id)
            if not variant["available"]:
                raise ToolError(f"New item {new_item_id} not found or available")
            difference += variant["price"] - item["price"]
            variants.append(variant)
        return difference, variants

    def _cancel(self, order_id: str, reason: str) -> dict:
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be cancelled")
        if reason not in CANCEL_REASONS:
            raise ToolError("Invalid reason")
        user = self._user(order["user_id"])
        refunds = []
        for payment in order["payment_history"]:
            method = self._refund_method(user, payment["payment_method_id"])
            refunds.append({"transaction_type": "refund", "amount": payment["amount"],
                            "payment_method_id": payment["payment_method_id"]})
            if method is not None:
                method["balance"] = round(method["balance"] + payment["amount"], 2)
        order["status"], order["cancel_reason"] = "cancelled", reason
        order["payment_history"] += refunds
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return order

    def _exchange(self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str) -> dict:
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ToolError("Non-delivered order cannot be exchanged")
        self._check_items(order, item_ids, self.EXCHANGE_MISSING)
        if len(item_ids) != len(new_item_ids):
            raise ToolError(self.EXCHANGE_COUNT)
        difference = round(self._price_swaps(order, item_ids, new_item_ids)[0], 2)
        method = self._payment_method(self._user(order["user_id"]), payment_method_id)
        if _is_gift_card(method) and method["balance"] < difference:
            raise ToolError("Insufficient gift card balance to pay for the price difference")
        order.update(status="exchange requested", exchange_items=sorted(item_ids),
                     exchange_new_items=sorted(new_item_ids), exchange_payment_method_id=payment_method_id,
                     exchange_price_difference=difference)
        self.world.put("orders", order_id, order)
        return order

    def _modify_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                      payment_method_id: str) -> dict:
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be modified")
        self._check_items(order, item_ids, "{} not found")
        if len(item_ids) != len(new_item_ids):
            raise ToolError("The number of items to be exchanged should match")
        difference, variants = self._price_swaps(order, item_ids, new_item_ids, self.NEW_ITEM_MUST_DIFFER)
        user = self._user(order["user_id"])
        method = self._payment_method(user, payment_method_id)
        if _is_gift_card(method) and method["balance"] < difference:
            raise ToolError("Insufficient gift card balance to pay for the new item")
        order["payment_history"].append({"transaction_type": "payment" if difference > 0 else "refund",
                                         "amount": abs(difference), "payment_method_id": payment_method_id})
        if _is_gift_card(method):
            method["balance"] = round(method["balance"] - difference, 2)
        for position, (item_id, new_item_id) in enumerate(zip(item_ids, new_item_ids)):
            item = next(i for i in order["items"] if i["item_id"] == item_id)
            variant = variants[-1] if self.LAST_VARIANT_FOR_EVERY_ITEM else variants[position]
            item.update(item_id=new_item_id, price=variant["price"], options=variant["options"])
        order["status"] = "pending (item modified)"
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return order

    def _modify_payment(self, order_id: str, payment_method_id: str) -> dict:
        order = self._order(order_id)
        if not self._modifiable(order["status"]):
            raise ToolError("Non-pending order cannot be modified")
        user = self._user(order["user_id"])
        method = self._payment_method(user, payment_method_id)
        history = order["payment_history"]
        if len(history) != 1 or history[0]["transaction_type"] != "payment":
            raise ToolError("There should be exactly one payment for a pending order")
        old_id = history[0]["payment_method_id"]
        if old_id == payment_method_id:
            raise ToolError("The new payment method should be different from the current one")
        amount = history[0]["amount"]
        if _is_gift_card(method) and method["balance"] < amount:
            raise ToolError("Insufficient gift card balance to pay for the order")
        history += [{"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
                    {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id}]
        if _is_gift_card(method):
            method["balance"] = round(method["balance"] - amount, 2)
        old_method = self._refund_method(user, old_id)
        if old_method is not None:
            old_method["balance"] = round(old_method["balance"] + amount, 2)
        self.world.put("users", order["user_id"], user)
        self.world.put("orders", order_id, order)
        return order

    def _modify_order_address(self, order_id: str, *address: str) -> dict:
        order = self._order(order_id)
        if not self._modifiable(order["status"]):
            raise ToolError("Non-pending order cannot be modified")
        order["address"] = self._address(*address)
        self.world.put("orders", order_id, order)
        return order

    def _modify_user_address(self, user_id: str, *address: str) -> dict:
        user = self._user(user_id)
        user["address"] = self._address(*address)
        self.world.put("users", user_id, user)
        return user

    def _return(self, order_id: str, item_ids: list[str], payment_method_id: str) -> dict:
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ToolError("Non-delivered order cannot be returned")
        user = self._user(order["user_id"])
        self._payment_method(user, payment_method_id)
        if (self._refund_method(user, payment_method_id) is None
                and payment_method_id != order["payment_history"][0]["payment_method_id"]):
            raise ToolError(self.RETURN_METHOD)
        self._check_items(order, item_ids, "Some item not found")
        order.update(status="return requested", return_items=sorted(item_ids),
                     return_payment_method_id=payment_method_id)
        self.world.put("orders", order_id, order)
        return order

    def _product_types(self) -> str:
        """Each product's name and id, as JSON sorted by name."""
        names = {name: product_id for _, name, product_id in self.world.fields("products", "$.name", "$.product_id")}
        return json.dumps(dict(sorted(names.items())))


class RetailTools(RetailRules, Tau2Toolkit):
    """The retail agent's tools (τ²-bench's ``RetailTools``)."""

    world: RetailWorld

    def _order(self, order_id: str) -> dict:
        order = self.world.get("orders", order_id, "Order not found")
        for key in ORDER_OPTIONAL:
            order.setdefault(key, None)
        return order

    def _user(self, user_id: str) -> dict:
        return self.world.get("users", user_id, "User not found")

    def _variant(self, product_id: str, item_id: str) -> dict:
        product = self.world.get("products", product_id, "Product not found")
        if item_id not in product["variants"]:
            raise ToolError("Variant not found")
        return product["variants"][item_id]

    def _refund_method(self, user: dict, payment_method_id: str) -> dict | None:
        """The user's method that is refunded at once (a gift card), else None; the method must exist."""
        method = self._payment_method(user, payment_method_id)
        return method if _is_gift_card(method) else None

    @staticmethod
    def _modifiable(status: str) -> bool:
        return "pending" in status

    @staticmethod
    def _address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> dict:
        return {"address1": address1, "address2": address2, "city": city, "country": country, "state": state,
                "zip": zip}  # τ²'s UserAddress order

    @tool(kind=READ, app="retail")
    def calculate(self, expression: str) -> str:
        """Calculate the result of a mathematical expression.

        Args:
            expression: The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
        """
        return calculate(expression)

    @tool(kind=ACTION, app="retail")
    def cancel_pending_order(self, order_id: str, reason: str) -> dict:
        """Cancel a pending order. If the order is already processed or delivered,
        it cannot be cancelled. The agent needs to explain the cancellation detail
        and ask for explicit user confirmation (yes/no) to proceed. If the user confirms,
        the order status will be changed to 'cancelled' and the payment will be refunded.
        The refund will be added to the user's gift card balance immediately if the payment
        was made using a gift card, otherwise the refund would take 5-7 business days to process.
        The function returns the order details after the cancellation.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            reason: The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
        """
        return self._cancel(order_id, reason)

    @tool(kind=ACTION, app="retail")
    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                       payment_method_id: str) -> dict:
        """Exchange items in a delivered order to new items of the same product type.
        For a delivered order, return or exchange can be only done once by the agent.
        The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.
            new_item_ids: The item ids to be exchanged for, each such as '1008292230'.
                There could be duplicate items in the list. Each new item id should match the item id
                in the same position and be of the same product.
            payment_method_id: The payment method id to pay or receive refund for the item price difference,
                such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up
                from the user or order details.
        """
        return self._exchange(order_id, item_ids, new_item_ids, payment_method_id)

    @tool(kind=READ, app="retail")
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """Find user id by first name, last name, and zip code. If the user is not found, the function
        will return an error message. By default, find user id by email, and only call this function
        if the user is not found by email or cannot remember email.

        Args:
            first_name: The first name of the customer, such as 'John'.
            last_name: The last name of the customer, such as 'Doe'.
            zip: The zip code of the customer, such as '12345'.
        """
        if all(isinstance(value, str) for value in (first_name, last_name, zip)):
            # the users of that zip by its index, in the table's order: the first match is the scan's
            users = self.world.sql().execute(
                "SELECT key, json_extract(doc, '$.name.first_name'), json_extract(doc, '$.name.last_name'), "
                "json_extract(doc, '$.address.zip') FROM users WHERE json_extract(doc, '$.address.zip') = ? "
                "ORDER BY pk", (zip,)).fetchall()
        else:  # compared as given, record by record: what the comparison raises is the call's error
            users = self.world.fields("users", "$.name.first_name", "$.name.last_name", "$.address.zip")
        for user_id, first, last, user_zip in users:
            if first.lower() == first_name.lower() and last.lower() == last_name.lower() and user_zip == zip:
                return user_id
        raise ToolError("User not found")

    @tool(kind=READ, app="retail")
    def find_user_id_by_email(self, email: str) -> str:
        """Find user id by email. If the user is not found, the function will return an error message.

        Args:
            email: The email of the user, such as 'something@example.com'.
        """
        for user_id, user_email in self.world.fields("users", "$.email"):
            if user_email.lower() == email.lower():
                return user_id
        raise ToolError("User not found")

    @tool(kind=READ, app="retail")
    def get_order_details(self, order_id: str) -> dict:
        """Get the status and details of an order.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        """
        return self._order(order_id)

    @tool(kind=READ, app="retail")
    def get_product_details(self, product_id: str) -> dict:
        """Get the inventory details of a product.

        Args:
            product_id: The product id, such as '6086499569'. Be careful the product id is different from the item id.
        """
        return self.world.get("products", product_id, "Product not found")

    @tool(kind=READ, app="retail")
    def get_item_details(self, item_id: str) -> dict:
        """Get the inventory details of an item.

        Args:
            item_id: The item id, such as '6086499569'. Be careful the item id is different from the product id.
        """
        for product in self.world.records("products"):
            if item_id in product["variants"]:
                return product["variants"][item_id]
        raise ToolError("Item not found")

    @tool(kind=READ, app="retail")
    def get_user_details(self, user_id: str) -> dict:
        """Get the details of a user, including their orders.

        Args:
            user_id: The user id, such as 'sara_doe_496'.
        """
        return self._user(user_id)

    @tool(kind=READ, app="retail")
    def list_all_product_types(self) -> str:
        """List the name and product id of all product types.
        Each product type has a variety of different items with unique item ids and options.
        There are only 50 product types in the store."""
        return self._product_types()

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_address(self, order_id: str, address1: str, address2: str, city: str, state: str,
                                     country: str, zip: str) -> dict:
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
        return self._modify_order_address(order_id, address1, address2, city, state, country, zip)

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> dict:
        """Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.
            new_item_ids: The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        return self._modify_items(order_id, item_ids, new_item_ids, payment_method_id)

    @tool(kind=ACTION, app="retail")
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> dict:
        """Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        """
        return self._modify_payment(order_id, payment_method_id)

    @tool(kind=ACTION, app="retail")
    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str, state: str, country: str,
                            zip: str) -> dict:
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
        return self._modify_user_address(user_id, address1, address2, city, state, country, zip)

    @tool(kind=ACTION, app="retail")
    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> dict:
        """Return some items of a delivered order.
        The order status will be changed to 'return requested'.
        The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.
        The user will receive follow-up email for how and where to return the item.

        Args:
            order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
            item_ids: The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.
            payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.
                These can be looked up from the user or order details.
        """
        return self._return(order_id, item_ids, payment_method_id)

    @tool(kind=READ, app="retail")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue.
        Only transfer if
         -  the user explicitly asks for a human agent
         -  given the policy and the available tools, you cannot solve the user's issue.

        Args:
            summary: A summary of the user's issue.
        """
        return TRANSFER_RESULT
