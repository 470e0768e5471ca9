"""BFCL's TradingBot: a brokerage account, its orders, a watch list and a fixed stock table.

State (BFCL's attributes): ``orders`` (id -> order; the scenario's digit-string keys become
ints as BFCL converts them), ``account_info``, ``authenticated``, ``market_status``,
``order_counter``, ``stocks``, ``watch_list``, ``transaction_history`` and ``long_context``.
Tables: ``orders``, ``stocks``, ``watch_list`` and ``transactions``; the account record, the
login, the market, the counter and the long-context flag are settings rows. Transaction
timestamps come from the world's random stream seeded by the scenario's ``random_seed`` (BFCL's
default 1053520) over the day after BFCL's fixed clock (2024-09-01 10:30, local time as BFCL
converts it). The long-context variant adds BFCL's long lists (watch list, transactions,
moving averages, sector stocks, order metadata). Outputs and errors word for word as BFCL's
class returns them (some failures are lists, as BFCL returns them).
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Optional

from toolgym.worlds.bfcl.api import long_context_data
from toolgym.worlds.bfcl.models import Order, Stock, Transaction, WatchedStock, dump
from toolgym.worlds.bfcl.world import TableAPI

CURRENT_TIME = datetime(2024, 9, 1, 10, 30)
DEFAULT_RANDOM_SEED = 1053520


def _stock(price, change, volume, ma5, ma20) -> dict:
    return {"price": price, "percent_change": change, "volume": volume, "MA(5)": ma5, "MA(20)": ma20}


DEFAULT_STATE = {
    "orders": {
        12345: {"id": 12345, "order_type": "Buy", "symbol": "AAPL", "price": 210.65, "amount": 10, "status": "Completed"},
        12446: {"id": 12446, "order_type": "Sell", "symbol": "GOOG", "price": 2840.56, "amount": 5, "status": "Pending"},
    },
    "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
    "authenticated": False,
    "market_status": "Closed",
    "order_counter": 12446,
    "stocks": {
        "AAPL": _stock(227.16, 0.17, 2.552, 227.11, 227.09), "GOOG": _stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
        "TSLA": _stock(667.92, -0.12, 1.654, 671.15, 668.20), "MSFT": _stock(310.23, 0.09, 3.234, 309.88, 310.11),
        "NVDA": _stock(220.34, 0.34, 1.234, 220.45, 220.67), "ALPH": _stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
        "OMEG": _stock(457.23, 0.12, 2.345, 456.78, 458.12), "QUAS": _stock(725.89, -0.03, 1.789, 726.45, 728.00),
        "NEPT": _stock(88.34, 0.19, 0.654, 88.21, 88.67), "SYNX": _stock(345.67, 0.11, 2.112, 345.34, 346.12),
        "ZETA": _stock(22.09, -0.05, 0.789, 22.12, 22.34),
    },
    "watch_list": ["NVDA"],
    "transaction_history": [],
}
SYMBOLS = {
    "Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA", "Zeta Corp": "ZETA",
    "Alpha Tech": "ALPH", "Omega Industries": "OMEG", "Quasar Ltd.": "QUAS", "Neptune Systems": "NEPT",
    "Synex Solutions": "SYNX", "Amazon": "AMZN", "Gorilla": "GORI",
}


class TradingBot(TableAPI):
    class_name = "TradingBot"
    doc_file = "trading_bot"
    default_state = {**DEFAULT_STATE, "long_context": False}
    settings = ("account_info", "authenticated", "market_status", "order_counter", "long_context")

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        super().load_scenario(scenario, long_context)
        self._set("long_context", long_context)
        self._world.commit()
        self._stream("timestamps", scenario.get("random_seed", DEFAULT_RANDOM_SEED))

    def _load_tables(self, values: dict) -> None:
        self._insert_all(Order, [(int(key) if isinstance(key, str) and key.isdigit() else key, order)
                                 for key, order in values["orders"].items()])
        self._insert_all(Stock, values["stocks"].items())
        self._insert_all(WatchedStock, [(symbol,) for symbol in values["watch_list"]])
        self._insert_all(Transaction, [(record,) for record in values["transaction_history"]])

    def _read_tables(self) -> dict:
        return {"orders": self._orders(), "stocks": {symbol: stock for _, symbol, stock in self._rows(Stock)},
                "watch_list": self._watch_list(), "transaction_history": self._transactions()}

    def _orders(self) -> dict:
        return {order_id: order for _, order_id, order in self._rows(Order)}

    def _order_row(self, order_id) -> tuple[int, dict] | None:
        """``(position, order)`` of the order ``order_id`` names, found as a dict finds a key."""
        return {key: (position, order) for position, key, order in self._rows(Order)}.get(order_id)

    def _stock(self, symbol) -> dict | None:
        """The quote of ``symbol``, as ``stocks.get(symbol)`` finds it."""
        hash(symbol)  # an unhashable symbol fails as a dict lookup fails
        if type(symbol) is not str:  # the symbols are the scenario's JSON keys: strings
            return None
        rows = self._rows(Stock, "WHERE symbol = ?", (dump(symbol),))
        return rows[0][2] if rows else None

    def _watch_list(self) -> list:
        return [symbol for _, symbol in self._rows(WatchedStock)]

    def _transactions(self) -> list[dict]:
        return [record for _, record in self._rows(Transaction)]

    def _timestamp(self) -> str:
        start = int(CURRENT_TIME.timestamp())
        end = int((CURRENT_TIME + timedelta(days=1)).timestamp())
        return datetime.fromtimestamp(self._stream("timestamps").randint(start, end)).strftime("%Y-%m-%d %H:%M:%S")

    def get_current_time(self) -> dict:
        """Get the current time."""
        return {"current_time": CURRENT_TIME.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> dict:
        """Get the symbol of a stock by company name."""
        return {"symbol": SYMBOLS.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> dict:
        """Get the details of a stock."""
        stock = self._stock(symbol)
        if stock is None:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        if self._long_context:
            extra = long_context_data()
            return {**stock, "MA(5)": extra["MA_5_EXTENSION"], "MA(20)": extra["MA_20_EXTENSION"]}
        return stock

    def get_order_details(self, order_id: int) -> dict:
        """Get the details of an order."""
        row = self._order_row(order_id)
        if row is None:
            return {"error": f"Order with ID {order_id} not found."
                             + "Here is the list of orders_id: " + str(list(self._orders().keys()))}
        order = row[1]
        if self._long_context:
            symbol = order["symbol"]
            metadata = {}
            for key, template in long_context_data()["ORDER_DETAIL_EXTENSION"].items():
                try:
                    metadata[key] = template.format(symbol=symbol)
                except KeyError as exc:
                    return {"error": f"KeyError during formatting: {str(exc)}"}
            order["metadata"] = metadata  # on the copy read from the row, as BFCL adds it to a copy
        return order

    def cancel_order(self, order_id: int) -> dict:
        """Cancel an order."""
        row = self._order_row(order_id)
        if row is None:
            return {"error": f"Order with ID {order_id} not found."}
        position, order = row
        if order["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        order["status"] = "Cancelled"
        self._update(Order, position, record=order)
        return {"order_id": order_id, "status": "Cancelled"}

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> dict:
        """Place an order."""
        if not self._get("authenticated"):
            return {"error": "User not authenticated. Please log in to place an order."}
        if self._stock(symbol) is None:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            total = float(price) * int(amount)
            balance = self._get("account_info").get("balance", 0)
            if total > balance:
                return {"error": f"Insufficient funds: required ${total:.2f} but only ${balance:.2f} available."}
        price = float(price)
        order_id = self._get("order_counter")
        order = {"id": order_id, "order_type": order_type, "symbol": symbol, "price": price,
                 "amount": amount, "status": "Open"}
        existing = self._order_row(order_id)
        if existing:  # a dict keeps the key it had and its place, and takes the new value
            self._update(Order, existing[0], record=order)
        else:
            self._append(Order, order_id=order_id, record=order)
        self._set("order_counter", order_id + 1)
        return {"order_id": order_id, "order_type": order_type, "status": "Pending", "price": price, "amount": amount}

    def withdraw_funds(self, amount: float) -> dict:
        """Withdraw funds from the account balance."""
        if not self._get("authenticated"):
            return {"error": "User not authenticated. Please log in to make a transaction."}
        if self._get("market_status") != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self._get("account_info")["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        account = self._get("account_info")
        account["balance"] -= amount
        self._set("account_info", account)
        self._append(Transaction, record={"type": "withdrawal", "amount": amount, "timestamp": self._timestamp()})
        return {"status": "Withdrawal successful", "new_balance": account["balance"]}

    def get_account_info(self) -> dict:
        """Get account information."""
        if not self._get("authenticated"):
            return {"error": "User not authenticated. Please log in to view account information."}
        return self._get("account_info")

    def trading_login(self, username: str, password: str) -> dict:
        """Handle user login."""
        if self._get("authenticated"):
            return {"status": "Already logged in"}
        self._set("authenticated", True)
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> dict:
        """Get the login status."""
        return {"status": bool(self._get("authenticated"))}

    def trading_logout(self) -> dict:
        """Handle user logout for trading system."""
        if not self._get("authenticated"):
            return {"status": "No user is currently logged in"}
        self._set("authenticated", False)
        return {"status": "Logged out successfully"}

    def fund_account(self, amount: float) -> dict:
        """Fund the account with the specified amount."""
        if not self._get("authenticated"):
            return {"error": "User not authenticated. Please log in to fund the account."}
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        account = self._get("account_info")
        account["balance"] += amount
        self._set("account_info", account)
        self._append(Transaction, record={"type": "deposit", "amount": amount, "timestamp": self._timestamp()})
        return {"status": "Account funded successfully", "new_balance": account["balance"]}

    def remove_stock_from_watchlist(self, symbol: str) -> dict:
        """Remove a stock from the watchlist."""
        if not self._get("authenticated"):
            return {"error": "User not authenticated. Please log in to modify the watchlist."}
        # list.remove takes the first equal symbol
        position = next((position for position, watched in self._rows(WatchedStock) if watched == symbol), None)
        if position is None:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self._delete(WatchedStock, position)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}

    def get_watchlist(self) -> dict:
        """Get the watchlist."""
        if not self._get("authenticated"):
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self._long_context:
            return self._watch_list() + long_context_data()["WATCH_LIST_EXTENSION"]
        return {"watchlist": self._watch_list()}

    def get_order_history(self) -> dict:
        """Get the stock order ID history."""
        if not self._get("authenticated"):
            return [{"error": "User not authenticated. Please log in to view order history."}]
        return {"history": list(self._orders().keys())}

    def get_transaction_history(self, start_date: Optional[str] = None, end_date: Optional[str] = None) -> dict:
        """Get the transaction history within a specified date range."""
        if not self._get("authenticated"):
            return [{"error": "User not authenticated. Please log in to view transaction history."}]
        start = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        end = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        history = [t for t in self._transactions()
                   if start <= datetime.strptime(t["timestamp"], "%Y-%m-%d %H:%M:%S") <= end]
        if self._long_context:
            history += copy.deepcopy(long_context_data()["TRANSACTION_HISTORY_EXTENSION"])
        return {"transaction_history": history}

    def get_available_stocks(self, sector: str) -> dict:
        """Get a list of stock symbols in the given sector."""
        sectors = {"Technology": ["AAPL", "GOOG", "MSFT", "NVDA"], "Automobile": ["TSLA", "F", "GM"]}
        if self._long_context:
            sectors["Technology"] += long_context_data()["TECHNOLOGY_EXTENSION"]
            sectors["Automobile"] += long_context_data()["AUTOMOBILE_EXTENSION"]
        return {"stock_list": sectors.get(sector, [])}

    def filter_stocks_by_price(self, stocks: list, min_price: float, max_price: float) -> dict:
        """Filter stocks based on a price range."""
        quotes = {symbol: stock for _, symbol, stock in self._rows(Stock)}
        return {"filtered_stocks": [symbol for symbol in stocks
                                    if quotes.get(symbol, {}).get("price", 0) >= min_price
                                    and quotes.get(symbol, {}).get("price", 0) <= max_price]}

    def add_to_watchlist(self, stock: str) -> dict:
        """Add a stock to the watchlist."""
        watch_list = self._watch_list()
        if stock not in watch_list and self._stock(stock) is not None:
            self._append(WatchedStock, symbol=stock)
            watch_list.append(stock)
        return {"watchlist": watch_list}

    def notify_price_change(self, stocks: list, threshold: float) -> dict:
        """Notify if there is a significant price change in the stocks."""
        quotes = {symbol: stock for _, symbol, stock in self._rows(Stock)}
        changed = [symbol for symbol in stocks
                   if symbol in quotes and abs(quotes[symbol]["percent_change"]) >= threshold]
        if changed:
            return {"notification": f"Stocks {', '.join(changed)} have significant price changes."}
        return {"notification": "No significant price changes in the selected stocks."}
