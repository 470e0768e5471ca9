"""BFCL's TravelAPI (``travel_booking``): a traveller's login token, credit cards, flight
bookings, insurance and budget.

State (BFCL's attributes): ``credit_card_list`` (card id -> card), ``booking_record``
(booking id -> booking), the token fields (``access_token``, ``token_type``,
``token_expires_in``, ``token_scope``), the user's names, ``budget_limit`` and
``long_context``. Tables: ``credit_cards`` and ``bookings``; the token, the names, the budget
and the long-context flag are settings rows. Tokens, card, booking, transaction and insurance
ids come from the world's random stream seeded by the scenario's ``random_seed`` (BFCL's
default 141053), so they are BFCL's ids. The
long-context variant adds BFCL's extra cards and bookings to the state and prices every route
in ``get_flight_cost``. Outputs and errors word for word as BFCL's class returns them; two
behaviours are BFCL's as well: ``verify_traveler_information`` computes the age from today's
date, and a failed route or currency lookup raises (``Error during execution: ...``). One
difference: BFCL's long-context cards are its module's own dicts, so paying with one changes
them for every later instance in the process; here each world gets its own copy.
"""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from toolgym.worlds.bfcl.api import long_context_data
from toolgym.worlds.bfcl.models import Booking, CreditCard
from toolgym.worlds.bfcl.world import TableAPI

DEFAULT_RANDOM_SEED = 141053
CLASS_FACTORS = {"economy": 1, "business": 2, "first": 5}
# Base economy fares by (from, to), in BFCL's order (the long-context cost list follows it).
BASE_COSTS = {
    ("SFO", "LAX"): 200, ("SFO", "JFK"): 500, ("SFO", "ORD"): 400, ("SFO", "BOS"): 450, ("SFO", "RMS"): 300, ("SFO", "SBK"): 350,
    ("SFO", "MPC"): 370, ("SFO", "SVP"): 320, ("SFO", "SHD"): 330, ("SFO", "SSV"): 340, ("SFO", "OKD"): 360, ("SFO", "WLB"): 310,
    ("SFO", "CRH"): 380, ("SFO", "ATV"): 390, ("SFO", "PHV"): 420, ("SFO", "GFD"): 430, ("SFO", "CIA"): 700, ("LAX", "SFO"): 100,
    ("LAX", "JFK"): 600, ("LAX", "ORD"): 500, ("LAX", "BOS"): 550, ("LAX", "RMS"): 310, ("LAX", "SBK"): 320, ("LAX", "MPC"): 330,
    ("LAX", "SVP"): 340, ("LAX", "SHD"): 350, ("LAX", "SSV"): 360, ("LAX", "OKD"): 370, ("LAX", "WLB"): 380, ("LAX", "CRH"): 390,
    ("LAX", "ATV"): 400, ("LAX", "PHV"): 410, ("LAX", "GFD"): 420, ("LAX", "HND"): 430, ("JFK", "ORD"): 300, ("JFK", "BOS"): 250,
    ("JFK", "RMS"): 450, ("JFK", "SBK"): 460, ("JFK", "MPC"): 470, ("JFK", "SVP"): 480, ("JFK", "SHD"): 490, ("JFK", "SSV"): 500,
    ("JFK", "OKD"): 510, ("JFK", "WLB"): 520, ("JFK", "CRH"): 530, ("JFK", "ATV"): 540, ("JFK", "PHV"): 550, ("JFK", "GFD"): 560,
    ("JFK", "LAX"): 570, ("JFK", "HND"): 800, ("JFK", "PVG"): 950, ("JFK", "PEK"): 1000, ("ORD", "LAX"): 180, ("ORD", "BOS"): 200,
    ("ORD", "RMS"): 350, ("ORD", "SBK"): 360, ("ORD", "MPC"): 370, ("ORD", "SVP"): 380, ("ORD", "SHD"): 390, ("ORD", "SSV"): 400,
    ("ORD", "OKD"): 410, ("ORD", "WLB"): 420, ("ORD", "CRH"): 430, ("ORD", "ATV"): 440, ("ORD", "PHV"): 450, ("ORD", "GFD"): 460,
    ("BOS", "RMS"): 400, ("BOS", "SBK"): 410, ("BOS", "MPC"): 420, ("BOS", "SVP"): 430, ("BOS", "SHD"): 440, ("BOS", "SSV"): 450,
    ("BOS", "OKD"): 460, ("BOS", "WLB"): 470, ("BOS", "CRH"): 480, ("BOS", "ATV"): 490, ("BOS", "PHV"): 500, ("BOS", "GFD"): 510,
    ("RMS", "BOS"): 200, ("RMS", "JFK"): 210, ("RMS", "SBK"): 220, ("RMS", "MPC"): 230, ("RMS", "SVP"): 240, ("RMS", "SHD"): 250,
    ("RMS", "SSV"): 260, ("RMS", "OKD"): 270, ("RMS", "WLB"): 280, ("RMS", "CRH"): 290, ("RMS", "ATV"): 300, ("RMS", "PHV"): 310,
    ("RMS", "GFD"): 320, ("RMS", "LAX"): 330, ("SBK", "MPC"): 200, ("SBK", "SVP"): 210, ("SBK", "SHD"): 220, ("SBK", "SSV"): 230,
    ("SBK", "OKD"): 240, ("SBK", "WLB"): 250, ("SBK", "CRH"): 260, ("SBK", "ATV"): 270, ("SBK", "PHV"): 280, ("SBK", "GFD"): 290,
    ("MPC", "SVP"): 210, ("MPC", "SHD"): 220, ("MPC", "SSV"): 230, ("MPC", "OKD"): 240, ("MPC", "WLB"): 250, ("MPC", "CRH"): 260,
    ("MPC", "ATV"): 270, ("MPC", "PHV"): 280, ("MPC", "GFD"): 290, ("SVP", "SHD"): 230, ("SVP", "SSV"): 240, ("SVP", "OKD"): 250,
    ("SVP", "WLB"): 260, ("SVP", "CRH"): 270, ("SVP", "ATV"): 280, ("SVP", "PHV"): 290, ("SVP", "GFD"): 300, ("SHD", "SSV"): 220,
    ("SHD", "OKD"): 230, ("SHD", "WLB"): 240, ("SHD", "CRH"): 250, ("SHD", "ATV"): 260, ("SHD", "PHV"): 270, ("SHD", "GFD"): 280,
    ("SSV", "OKD"): 240, ("SSV", "WLB"): 250, ("SSV", "CRH"): 260, ("SSV", "ATV"): 270, ("SSV", "PHV"): 280, ("SSV", "GFD"): 290,
    ("OKD", "WLB"): 230, ("OKD", "CRH"): 240, ("OKD", "ATV"): 250, ("OKD", "PHV"): 260, ("OKD", "GFD"): 270, ("WLB", "CRH"): 250,
    ("WLB", "ATV"): 260, ("WLB", "PHV"): 270, ("WLB", "GFD"): 280, ("CRH", "ATV"): 240, ("CRH", "PHV"): 250, ("CRH", "GFD"): 260,
    ("CRH", "SFO"): 270, ("CRH", "RMS"): 280, ("CRH", "HKG"): 290, ("CRH", "JFK"): 300, ("ATV", "PHV"): 230, ("ATV", "GFD"): 240,
    ("PHV", "GFD"): 220, ("LHR", "CDG"): 100, ("OKD", "LAX"): 220,}
AIRPORTS = ["RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG", "CIA",
            "CRH", "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS"]
NEAREST_AIRPORT = {
    "Rivermist": "RMS", "Stonebrook": "SBK", "Maplecrest": "MPC", "Silverpine": "SVP", "Shadowridge": "SHD",
    "London": "LHR", "Paris": "CDG", "Sunset Valley": "SSV", "Oakendale": "OKD", "Willowbend": "WLB",
    "Crescent Hollow": "CRH", "Autumnville": "ATV", "Pinehaven": "PHV", "Greenfield": "GFD",
    "San Francisco": "SFO", "Los Angeles": "LAX", "New York": "JFK", "Chicago": "ORD", "Boston": "BOS",
    "Beijing": "PEK", "Hong Kong": "HKG", "Rome": "CIA", "Tokyo": "HND",
}
# Units of the second currency per US dollar.
USD_RATES = {"RMB": 7, "EUR": 0.8, "JPY": 110, "GBP": 0.7, "CAD": 1.3, "AUD": 1.4, "INR": 70, "RUB": 60,
             "BRL": 3.8, "MXN": 20}
SUPPORT_REPLY = ("Thank you for contacting customer support. Your message has been received and we will get "
                 "back to you shortly.")


class TravelAPI(TableAPI):
    class_name = "TravelAPI"
    doc_file = "travel_booking"
    default_state = {"credit_card_list": {}, "booking_record": {}, "access_token": None, "token_type": None,
                     "token_expires_in": None, "token_scope": None, "user_first_name": None,
                     "user_last_name": None, "budget_limit": None, "long_context": False}
    settings = ("access_token", "token_type", "token_expires_in", "token_scope", "user_first_name",
                "user_last_name", "budget_limit", "long_context")

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self._long_context = long_context  # _load_tables reads it
        super().load_scenario(scenario, long_context)
        self._set("long_context", long_context)
        self._world.commit()
        self._stream("ids", scenario.get("random_seed", DEFAULT_RANDOM_SEED))

    def _load_tables(self, values: dict) -> None:
        cards, bookings = dict(values["credit_card_list"]), dict(values["booking_record"])
        if self._long_context:
            extra = long_context_data()
            for card_id, card in extra["CREDIT_CARD_EXTENSION"].items():
                cards.setdefault(card_id, card)
            for booking_id, booking in extra["BOOKING_RECORD_EXTENSION"].items():
                bookings.setdefault(booking_id, booking)
        self._insert_all(CreditCard, cards.items())
        self._insert_all(Booking, bookings.items())

    def _read_tables(self) -> dict:
        return {"credit_card_list": self._cards(), "booking_record": self._bookings()}

    def _cards(self) -> dict:
        return {card_id: card for _, card_id, card in self._rows(CreditCard)}

    def _bookings(self) -> dict:
        return {booking_id: booking for _, booking_id, booking in self._rows(Booking)}

    def _id(self, low: int, high: int) -> str:
        return str(self._stream("ids").randint(low, high))

    def _token_problem(self, access_token: str) -> Optional[str]:
        if self._get("token_expires_in") == 0:
            return "Token expired"
        if access_token != self._get("access_token"):
            return "Invalid access token"
        return None

    def _fare(self, travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> float:
        if (travel_from, travel_to) not in BASE_COSTS:
            raise ValueError("No available route for the given airports.")
        # Compared by ==, as BFCL's if/elif chain does, so an unhashable class is just invalid.
        factor = next((f for name, f in CLASS_FACTORS.items() if travel_class == name), None)
        if factor is None:
            raise ValueError("Invalid travel class. Options are: economy, business, first.")
        digit_sum = sum(int(char) for char in travel_date if char.isdigit())
        return float(BASE_COSTS[(travel_from, travel_to)] * factor
                     * (2 if digit_sum % 2 == 0 else 1))

    def authenticate_travel(self, client_id: str, client_secret: str, refresh_token: str, grant_type: str,
                            user_first_name: str, user_last_name: str) -> dict:
        """Authenticate the user with the travel API."""
        access_token = self._id(100000, 999999)
        for name, value in (("token_expires_in", 2), ("access_token", access_token), ("token_type", "Bearer"),
                            ("token_scope", grant_type), ("user_first_name", user_first_name),
                            ("user_last_name", user_last_name)):
            self._set(name, value)
        return {"expires_in": 2, "access_token": access_token, "token_type": "Bearer", "scope": grant_type}

    def travel_get_login_status(self) -> dict:
        """Get the status of the login."""
        expires_in = self._get("token_expires_in")
        return {"status": not (expires_in is None or expires_in == 0)}

    def get_budget_fiscal_year(self, lastModifiedAfter: Optional[str] = None,
                               includeRemoved: Optional[str] = None) -> dict:
        """Get the budget fiscal year."""
        return {"budget_fiscal_year": "2018"}

    def register_credit_card(self, access_token: str, card_number: str, expiration_date: str,
                             cardholder_name: str, card_verification_number: int) -> dict:
        """Register a credit card."""
        if self._get("token_expires_in") is None:
            return {"error": "Token not initialized"}
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        if self._find(CreditCard, "card_id", card_number):
            return {"error": "Card already registered"}
        card_id = self._id(100000000000, 999999999999)
        card = {"card_number": card_number, "expiration_date": expiration_date, "cardholder_name": cardholder_name,
                "card_verification_number": card_verification_number,
                "balance": self._stream("ids").randint(10000, 99999)}
        existing = self._find(CreditCard, "card_id", card_id)
        if existing:  # a dict keeps the key it had and its place, and takes the new value
            self._update(CreditCard, existing[0], record=card)
        else:
            self._append(CreditCard, card_id=card_id, record=card)
        return {"card_id": card_id}

    def get_flight_cost(self, travel_from: str, travel_to: str, travel_date: str, travel_class: str) -> dict:
        """Get the list of cost of a flight in USD based on location, date, and class."""
        cost = self._fare(travel_from, travel_to, travel_date, travel_class)
        if self._long_context:
            return {"travel_cost_list": [self._fare(a, b, travel_date, travel_class) for a, b in BASE_COSTS]}
        return {"travel_cost_list": [cost]}

    def get_credit_card_balance(self, access_token: str, card_id: str) -> dict:
        """Get the balance of a credit card."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        row = self._find(CreditCard, "card_id", card_id)
        if row is None:
            return {"error": "Card not registered. Here are a list of card_id's: "
                             + str(list(self._cards().keys()))}
        return {"card_balance": row[2]["balance"]}

    def book_flight(self, access_token: str, card_id: str, travel_date: str, travel_from: str, travel_to: str,
                    travel_class: str) -> dict:
        """Book a flight given the travel information."""
        problem = self._token_problem(access_token)
        if problem:
            return {"booking_status": False, "error": problem}
        row = self._find(CreditCard, "card_id", card_id)
        if row is None:
            return {"booking_status": False, "error": "Card not registered"}
        card_position, _, card = row
        if "balance" not in card:
            return {"booking_status": False, "error": "Balance not found"}
        if travel_from not in AIRPORTS:
            return {"booking_status": False, "error": f"Invalid departure airport code: {travel_from}"}
        if travel_to not in AIRPORTS:
            return {"booking_status": False, "error": f"Invalid destination airport code: {travel_to}"}
        try:
            datetime.strptime(travel_date, "%Y-%m-%d")
        except ValueError:
            return {"booking_status": False, "error": "Invalid date format. Use YYYY-MM-DD."}
        valid_classes = {"economy", "business", "first"}
        if travel_class not in valid_classes:
            return {"booking_status": False, "error": f"Invalid travel class. Must be one of {valid_classes}"}
        try:
            cost = self._fare(travel_from, travel_to, travel_date, travel_class)
        except ValueError as exc:
            return {"booking_status": False, "error": str(exc)}
        budget_limit = self._get("budget_limit")
        if card["balance"] < cost:
            return {"booking_status": False, "error": "Insufficient funds"}
        if budget_limit is not None and card["balance"] < budget_limit:
            return {"booking_status": False, "error": "Balance is less than budget limit"}
        card["balance"] -= cost
        self._update(CreditCard, card_position, record=card)
        booking_id = self._id(1000000, 9999999)
        transaction_id = self._id(10000000, 99999999)
        booking = {"card_id": card_id, "travel_date": travel_date, "travel_from": travel_from, "travel_to": travel_to,
                   "travel_class": travel_class, "travel_cost": cost, "transaction_id": transaction_id}
        existing = self._find(Booking, "booking_id", booking_id)
        if existing:
            self._update(Booking, existing[0], record=booking)
        else:
            self._append(Booking, booking_id=booking_id, record=booking)
        return {"booking_id": booking_id, "transaction_id": transaction_id, "booking_status": True,
                "booking_history": self._bookings() if self._long_context else {}}

    def retrieve_invoice(self, access_token: str, booking_id: Optional[str] = None,
                         insurance_id: Optional[str] = None) -> dict:
        """Retrieve the invoice for a booking."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        row = self._find(Booking, "booking_id", booking_id)
        if row is None:
            return {"error": "Booking not found"}
        booking = row[2]
        fields = ["travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id"]
        return {"invoice": {"booking_id": booking_id, **{key: booking[key] for key in fields}}}

    def get_booking_history(self, access_token: str) -> dict:
        """Retrieve all booking history for the user."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        return {"booking_history": self._bookings()}

    def list_all_airports(self) -> list:
        """List all available airports."""
        return list(AIRPORTS)

    def cancel_booking(self, access_token: str, booking_id: str) -> dict:
        """Cancel a booking."""
        problem = self._token_problem(access_token)
        if problem:
            return {"cancel_status": False, "error": problem}
        row = self._find(Booking, "booking_id", booking_id)
        if row is None:
            return {"cancel_status": False, "error": "Booking not found"}
        booking_position, _, booking = row
        card_row = self._find(CreditCard, "card_id", booking["card_id"])
        if card_row is None:
            raise KeyError(booking["card_id"])  # BFCL indexes the card list
        card_position, _, card = card_row
        card["balance"] += booking["travel_cost"]
        self._update(CreditCard, card_position, record=card)
        self._delete(Booking, booking_position)
        return {"cancel_status": True}

    def compute_exchange_rate(self, base_currency: str, target_currency: str, value: float) -> dict:
        """Compute the exchange rate between two currencies."""
        for currency, rate in USD_RATES.items():
            if base_currency == "USD" and target_currency == currency:
                return {"exchanged_value": float(value * rate)}
            if base_currency == currency and target_currency == "USD":
                return {"exchanged_value": round(value / rate, 2)}
        raise ValueError("No available exchange rate for the given currencies.")

    def verify_traveler_information(self, first_name: str, last_name: str, date_of_birth: str,
                                    passport_number: str) -> dict:
        """Verify the traveler information."""
        user_first_name, user_last_name = self._get("user_first_name"), self._get("user_last_name")
        if user_first_name != first_name or user_last_name != last_name:
            return {"verification_status": False,
                    "verification_failure": "Cannot book flight information for another user."
                    + f"Expected {user_first_name} {user_last_name}, got {first_name} {last_name}"}
        try:
            born = datetime.strptime(date_of_birth, "%Y-%m-%d")
            today = datetime.today()
            age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        except ValueError:
            return {"verification_status": False,
                    "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD."}
        if age < 18:
            return {"verification_status": False, "verification_failure": "Traveler must be at least 18 years old."}
        if not passport_number.startswith("US"):
            return {"verification_status": False,
                    "verification_failure": "Passport must be issued by the United States."}
        return {"verification_status": True}

    def set_budget_limit(self, access_token: str, budget_limit: float) -> dict:
        """Set the budget limit for the user."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        self._set("budget_limit", float(budget_limit))
        return {"budget_limit": float(budget_limit)}

    def get_nearest_airport_by_city(self, location: str) -> dict:
        """Get the nearest airport to the given location."""
        return {"nearest_airport": NEAREST_AIRPORT.get(location, "Unknown")}

    def purchase_insurance(self, access_token: str, insurance_type: str, booking_id: str, insurance_cost: float,
                           card_id: str) -> dict:
        """Purchase insurance."""
        problem = self._token_problem(access_token)
        if problem:
            return {"insurance_status": False, "error": problem}
        budget_limit = self._get("budget_limit")
        if budget_limit is not None and budget_limit < insurance_cost:
            return {"insurance_status": False, "error": "Exceeded budget limit"}
        if self._find(Booking, "booking_id", booking_id) is None:
            return {"insurance_status": False, "error": "Booking not found"}
        row = self._find(CreditCard, "card_id", card_id)
        if row is None:
            return {"insurance_status": False, "error": "Credit card not registered"}
        card_position, _, card = row
        card["balance"] -= insurance_cost
        self._update(CreditCard, card_position, record=card)
        return {"insurance_id": self._id(100000000, 999999999), "insurance_status": True}

    def contact_customer_support(self, booking_id: str, message: str) -> dict:
        """Contact travel booking customer support, get immediate support on an issue with an online call."""
        if self._find(Booking, "booking_id", booking_id) is None:
            return {"error": "Booking not found"}
        return {"customer_support_message": SUPPORT_REPLY}

    def get_all_credit_cards(self) -> dict:
        """Get all registered credit cards."""
        return {"credit_card_list": self._cards()}
