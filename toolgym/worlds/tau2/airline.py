"""τ²-bench's airline domain: flights, reservations and users, and the agent's 14 tools.

The rules are τ²-bench's (``domains/airline/tools.py``): new reservations get the ids
HATHAT, HATHAU, HATHAV in turn, certificates certificate_3221322.., the clock reads
2024-05-15T15:00:00, cancelling refunds every payment but releases no seat, and changing
flights charges the fare difference without touching seat counts.
"""

from __future__ import annotations

from typing import Annotated, Literal

import json

import pydantic
from sqlalchemy.orm import DeclarativeBase
from typing_extensions import TypedDict

from toolgym.worlds.tau2.common import TRANSFER_RESULT, Tau2Toolkit, calculate
from toolgym.worlds.tau2.store import DocumentRow, DocumentWorld
from toolgym.worlds.tools import ACTION, READ, ToolError, tool

NOW = "2024-05-15T15:00:00"
RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
CERTIFICATE_IDS = tuple(f"certificate_{n}" for n in (3221322, 3221323, 3221324))
AIRPORTS = (("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"),
            ("DFW", "Dallas"), ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"),
            ("BOS", "Boston"), ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"),
            ("EWR", "Newark"), ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"),
            ("PHL", "Philadelphia"), ("LGA", "LaGuardia"))
Cabin = Literal["business", "economy", "basic_economy"]


class Base(DeclarativeBase):
    pass


class Flight(DocumentRow, Base):
    __tablename__ = "flights"


class Reservation(DocumentRow, Base):
    __tablename__ = "reservations"


class User(DocumentRow, Base):
    __tablename__ = "users"


# τ²'s item models: pydantic models that ignore unknown keys, each field described in the schema.
# τ²'s tools take each list as ``list[Model | dict]`` and build the models from dicts themselves.
@pydantic.with_config(pydantic.ConfigDict(extra="ignore"))
class FlightInfo(TypedDict):
    flight_number: Annotated[str, pydantic.Field(description="Flight number, such as 'HAT001'.")]
    date: Annotated[str, pydantic.Field(
        description="The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.")]


@pydantic.with_config(pydantic.ConfigDict(extra="ignore"))
class Passenger(TypedDict):
    first_name: Annotated[str, pydantic.Field(description="Passenger's first name")]
    last_name: Annotated[str, pydantic.Field(description="Passenger's last name")]
    dob: Annotated[str, pydantic.Field(description="Date of birth in YYYY-MM-DD format")]


@pydantic.with_config(pydantic.ConfigDict(extra="ignore"))
class Payment(TypedDict):
    payment_id: Annotated[str, pydantic.Field(description="Unique identifier for the payment")]
    amount: Annotated[int, pydantic.Field(description="Payment amount in dollars")]


# τ²'s Reservation model, which book_reservation builds from its arguments: its types coerce them
# (a count of 2.0 or "2" is stored as 2) or refuse them in pydantic's words, naming "Reservation".
NewReservation = pydantic.with_config(pydantic.ConfigDict(extra="ignore"))(TypedDict("Reservation", {
    "reservation_id": str, "user_id": str, "origin": str, "destination": str,
    "flight_type": Literal["round_trip", "one_way"], "cabin": Cabin, "flights": list, "passengers": list[Passenger],
    "payment_history": list[Payment], "created_at": str, "total_baggages": int, "nonfree_baggages": int,
    "insurance": Literal["yes", "no"], "status": Literal["cancelled"] | None}))


FLIGHT_KEYS = ("flight_number", "origin", "destination", "scheduled_departure_time_est",
               "scheduled_arrival_time_est", "dates")
RESERVATION_FLIGHT_KEYS = ("flight_number", "origin", "destination", "date", "price")


def _ordered(record: dict, keys: tuple[str, ...]) -> dict:
    """``record`` with ``keys`` first, in that order, then any other key."""
    return {**{key: record[key] for key in keys if key in record}, **record}


_ITEM_ADAPTERS = {model: pydantic.TypeAdapter(model) for model in (FlightInfo, Passenger, Payment, NewReservation)}


def _items(model: type, values: list) -> list[dict]:
    """Each of ``values`` as ``model`` (τ²'s ``Model(**item)``): unknown keys dropped,
    numbers in text read; a missing or unreadable field fails the call with pydantic's words."""
    try:
        return [_ITEM_ADAPTERS[model].validate_python(value) for value in values]
    except pydantic.ValidationError as error:
        raise ToolError(str(error)) from None


class AirlineWorld(DocumentWorld):
    Base = Base
    tables = {"flights": Flight, "reservations": Reservation, "users": User}

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        # The searches look flights up by route: the index spares them reading every flight's JSON.
        # Made here, not with the tables, so that a world read from an older cache has it too.
        self.sql().execute("CREATE INDEX IF NOT EXISTS flights_route ON flights "
                           "(json_extract(doc, '$.origin'), json_extract(doc, '$.destination'))")
        self.commit()
        self.tools = AirlineTools(self)

    def populate(self) -> None:
        from toolgym.worlds.tau2.tasks import airline_database
        self.load(airline_database(self.seed))

    def load(self, data: dict[str, dict]) -> None:
        """τ²'s ``db.json`` layout, each flight and each reservation's flight with its keys in the
        order of τ²'s models (``flight_number`` first), as τ²'s tools return them."""
        data = dict(data)
        data["flights"] = {key: _ordered(flight, FLIGHT_KEYS) for key, flight in (data.get("flights") or {}).items()}
        data["reservations"] = {key: {**reservation, "flights": [_ordered(f, RESERVATION_FLIGHT_KEYS)
                                                                  for f in reservation.get("flights") or ()]}
                                if isinstance(reservation.get("flights"), list) else reservation
                                for key, reservation in (data.get("reservations") or {}).items()}
        super().load(data)

    def dump(self) -> dict[str, dict]:
        """τ²'s ``db.json`` layout as τ²'s ``FlightDB`` dumps it: a reservation never cancelled has
        ``"status": null`` (its model's default; the official file leaves the key out)."""
        data = super().dump()
        for reservation in data["reservations"].values():
            reservation.setdefault("status", None)
        return data


class AirlineRules:
    """What τ²'s and τ-bench v1's airline tools share: lookups, the checks of a booked flight and of
    payments, the fare arithmetic, and the changes each write makes to its records.

    A failure raises :class:`ToolError` in τ²'s words; v1's toolkit words it as v1 does. The
    records are read through ``_user`` and ``_reservation``, which each toolkit defines (τ²'s
    fill the fields its models default), and new flight segments are shaped by
    ``_booked_segment`` and ``_kept_segment`` (τ²'s model order, or v1's arguments extended).
    Every check comes before the first write, so a failed call writes nothing.
    """

    world: AirlineWorld
    #: τ² changes a reservation's cabin with its flights; v1 keeps the old cabin.
    CHANGES_CABIN = True

    def _flight(self, flight_number: str) -> dict:
        return self.world.get("flights", flight_number, f"Flight {flight_number} not found")

    def _flight_date(self, flight: dict, date: str) -> dict:
        if date not in flight["dates"]:
            raise ToolError(f"Flight {flight['flight_number']} not found on date {date}")
        return flight["dates"][date]

    def _segment(self, info: dict, cabin: str, seats: int, loaded: dict) -> tuple[dict, int]:
        """The flight record of segment ``info`` (read once per call into ``loaded``) and its fare
        in ``cabin``, once the flight flies that day with ``seats`` seats free."""
        number = info["flight_number"]
        flight = loaded[number] if number in loaded else loaded.setdefault(number, self._flight(number))
        status = self._flight_date(flight, info["date"])
        if status["status"] != "available":
            raise ToolError(f"Flight {number} not available on date {info['date']}")
        if status["available_seats"][cabin] < seats:
            raise ToolError(f"Not enough seats on flight {number}")
        return flight, status["prices"][cabin]

    def _price_booking(self, flights: list[dict], cabin: str, seats: int, insurance: str, nonfree_baggages: int,
                       loaded: dict) -> tuple[list[dict], int]:
        """(the new reservation's flight segments, its total price): fares, insurance and bags."""
        segments, total_price = [], 0
        for info in flights:
            flight, price = self._segment(info, cabin, seats, loaded)
            segments.append(self._booked_segment(info, flight, price))
            total_price += price * seats
        if insurance == "yes":
            total_price += 30 * seats
        total_price += 50 * nonfree_baggages  # augmented: a wrong type fails in the words it always has
        return segments, total_price

    def _pay(self, methods: dict, payments: list[dict], total_price: int) -> None:
        """Check each payment against the user's ``methods`` and their sum against the price, then
        take each: a gift card pays from its balance, a certificate is used up."""
        for payment in payments:
            method = methods.get(payment["payment_id"])
            if method is None:
                raise ToolError(f"Payment method {payment['payment_id']} not found")
            if method["source"] in ("gift_card", "certificate") and method["amount"] < payment["amount"]:
                raise ToolError(f"Not enough balance in payment method {payment['payment_id']}")
        paid = sum(p["amount"] for p in payments)
        if paid != total_price:
            raise ToolError(f"Payment amount does not add up, total price is {total_price}, but paid {paid}")
        for payment in payments:
            method = methods.get(payment["payment_id"])
            if method is None:
                self._used_up(payment["payment_id"])
                continue
            if method["source"] == "gift_card":
                method["amount"] -= payment["amount"]
            elif method["source"] == "certificate":
                del methods[payment["payment_id"]]

    def _used_up(self, payment_id: str) -> None:
        """A certificate listed again after its first entry used it up: τ² passes over it."""

    def _charge_update(self, user: dict, payment_id: str, total_price: int) -> dict | None:
        """Charge a change of ``total_price`` to one of the user's methods; the payment to record."""
        method = user["payment_methods"].get(payment_id)
        if method is None:
            raise ToolError("Payment method not found")
        if method["source"] == "certificate":
            raise ToolError("Certificate cannot be used to update reservation")
        if method["source"] == "gift_card" and method["amount"] < total_price:
            raise ToolError("Gift card balance is not enough")
        if method["source"] == "gift_card":
            method["amount"] -= total_price
        return {"payment_id": payment_id, "amount": total_price} if total_price != 0 else None

    def _add_certificate(self, user_id: str, amount) -> str | None:
        """The id of the certificate of ``amount`` given to the user (the first free of three), or None."""
        user = self._user(user_id)
        for payment_id in CERTIFICATE_IDS:
            if payment_id not in user["payment_methods"]:
                user["payment_methods"][payment_id] = {"source": "certificate", "amount": amount, "id": payment_id}
                self.world.put("users", user_id, user)
                return payment_id
        return None

    def _cancel(self, reservation_id: str) -> dict:
        reservation = self._reservation(reservation_id)
        reservation["payment_history"] += [{"payment_id": p["payment_id"], "amount": -p["amount"]}
                                           for p in reservation["payment_history"]]
        reservation["status"] = "cancelled"
        self.world.put("reservations", reservation_id, reservation)
        return reservation

    def _update_baggages(self, reservation_id: str, total_baggages: int, nonfree_baggages: int,
                         payment_id: str) -> dict:
        reservation = self._reservation(reservation_id)
        user = self._user(reservation["user_id"])
        payment = self._charge_update(user, payment_id, 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"]))
        if payment is not None:
            reservation["payment_history"].append(payment)
        reservation["total_baggages"], reservation["nonfree_baggages"] = total_baggages, nonfree_baggages
        self.world.put("users", reservation["user_id"], user)
        self.world.put("reservations", reservation_id, reservation)
        return reservation

    def _update_flights(self, reservation_id: str, cabin: str, flights: list[dict], payment_id: str) -> dict:
        """A segment kept (same flight, date and cabin) keeps the price paid; the others are priced
        as booked; the difference is charged to ``payment_id``."""
        reservation = self._reservation(reservation_id)
        user = self._user(reservation["user_id"])
        seats = len(reservation["passengers"])
        total_price, new_flights, loaded = 0, [], {}
        for info in flights:
            kept = next((f for f in reservation["flights"] if f["flight_number"] == info["flight_number"]
                         and f["date"] == info["date"] and cabin == reservation["cabin"]), None)
            if kept is not None:
                total_price += kept["price"] * seats
                new_flights.append(self._kept_segment(info, kept))
                continue
            flight, price = self._segment(info, cabin, seats, loaded)
            new_flights.append(self._booked_segment(info, flight, price))
            total_price += price * seats
        total_price -= sum(f["price"] for f in reservation["flights"]) * seats
        payment = self._charge_update(user, payment_id, total_price)
        if payment is not None:
            reservation["payment_history"].append(payment)
        reservation["flights"] = new_flights
        if self.CHANGES_CABIN:
            reservation["cabin"] = cabin
        self.world.put("users", reservation["user_id"], user)
        self.world.put("reservations", reservation_id, reservation)
        return reservation

    def _update_passengers(self, reservation_id: str, passengers: list[dict]) -> dict:
        reservation = self._reservation(reservation_id)
        if len(passengers) != len(reservation["passengers"]):
            raise ToolError("Number of passengers does not match")
        reservation["passengers"] = [dict(p) for p in passengers]
        self.world.put("reservations", reservation_id, reservation)
        return reservation


class AirlineTools(AirlineRules, Tau2Toolkit):
    """The airline agent's tools (τ²-bench's ``AirlineTools``)."""

    world: AirlineWorld

    def _user(self, user_id: str) -> dict:
        user = self.world.get("users", user_id, f"User {user_id} not found")
        user.setdefault("user_id", user_id)  # τ²'s User record holds its id; v1's table keys by it
        return user

    def _reservation(self, reservation_id: str) -> dict:
        reservation = self.world.get("reservations", reservation_id, f"Reservation {reservation_id} not found")
        reservation.setdefault("status", None)  # τ²'s Reservation returns an unset status as null
        return reservation

    @staticmethod
    def _booked_segment(info: dict, flight: dict, price: int) -> dict:
        return {"flight_number": info["flight_number"], "origin": flight["origin"],
                "destination": flight["destination"], "date": info["date"], "price": price}

    @staticmethod
    def _kept_segment(info: dict, kept: dict) -> dict:
        return kept

    def _direct(self, date: str, origin: str, destination: str | None, leave_after: str | None = None):
        """The flights available on ``date`` from ``origin`` (to ``destination``), in the table's order.

        SQLite finds the route by its index and reads out the few fields and the one date a
        result needs: parsing every flight's JSON (all its dates) on each search cost 100 times
        τ²'s search.
        """
        if not isinstance(date, str) or '"' in date or "\\" in date:  # not a key of any flight's dates
            return []
        if not isinstance(origin, str) or not isinstance(destination, (str, type(None))):
            return []  # τ² compares each flight's text to the value: nothing else equals it
        route = "json_extract(doc, '$.origin') = ?" + (" AND json_extract(doc, '$.destination') = ?"
                                                        if destination is not None else "")
        rows = self.world.sql().execute(
            "SELECT json_extract(doc, '$.flight_number'), json_extract(doc, '$.origin'), "
            "json_extract(doc, '$.destination'), json_extract(doc, '$.scheduled_departure_time_est'), "
            "json_extract(doc, '$.scheduled_arrival_time_est'), json_extract(doc, ?) "
            f"FROM flights WHERE {route} ORDER BY pk",
            (f'$.dates."{date}"', origin, *((destination,) if destination is not None else ()))).fetchall()
        found = []
        for number, start, end, departure, arrival, status in rows:
            status = json.loads(status) if status is not None else None
            if (isinstance(status, dict) and status.get("status") == "available"
                    and (leave_after is None or departure >= leave_after)):
                found.append({"flight_number": number, "origin": start, "destination": end, "status": "available",
                              "scheduled_departure_time_est": departure, "scheduled_arrival_time_est": arrival,
                              "date": None, "available_seats": status["available_seats"], "prices": status["prices"]})
        return found

    @tool(kind=ACTION, app="airline")
    def book_reservation(self, user_id: str, origin: str, destination: str,
                         flight_type: Literal["round_trip", "one_way"], cabin: Cabin, flights: list[FlightInfo | dict],
                         passengers: list[Passenger | dict], payment_methods: list[Payment | dict], total_baggages: int,
                         nonfree_baggages: int, insurance: Literal["yes", "no"]) -> dict:
        """Book a reservation.

        Args:
            user_id: The ID of the user to book the reservation such as 'sara_doe_496'`.
            origin: The IATA code for the origin city such as 'SFO'.
            destination: The IATA code for the destination city such as 'JFK'.
            flight_type: The type of flight such as 'one_way' or 'round_trip'.
            cabin: The cabin class such as 'basic_economy', 'economy', or 'business'.
            flights: An array of objects containing details about each piece of flight.
            passengers: An array of objects containing details about each passenger.
            payment_methods: An array of objects containing details about each payment method.
            total_baggages: The total number of baggage items to book the reservation.
            nonfree_baggages: The number of non-free baggage items to book the reservation.
            insurance: Whether the reservation has insurance.
        """
        flights, passengers = _items(FlightInfo, flights), _items(Passenger, passengers)
        payment_methods = _items(Payment, payment_methods)
        user = self._user(user_id)
        reservation_id = next((r for r in RESERVATION_IDS if not self.world.has("reservations", r)), None)
        if reservation_id is None:
            raise ToolError("Too many reservations")
        reservation = _items(NewReservation, [{
            "reservation_id": reservation_id, "user_id": user_id, "origin": origin, "destination": destination,
            "flight_type": flight_type, "cabin": cabin, "flights": [], "passengers": [dict(p) for p in passengers],
            "payment_history": [dict(p) for p in payment_methods], "created_at": NOW,
            "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages, "insurance": insurance,
            "status": None}])[0]
        loaded = {}  # flight number -> its record, changed once per booked segment
        reservation["flights"], total_price = self._price_booking(flights, cabin, len(passengers), insurance,
                                                                  nonfree_baggages, loaded)
        self._pay(user["payment_methods"], payment_methods, total_price)
        for info in flights:
            loaded[info["flight_number"]]["dates"][info["date"]]["available_seats"][cabin] -= len(passengers)
        for number, flight in loaded.items():
            self.world.put("flights", number, flight)
        user["reservations"].append(reservation_id)
        self.world.put("users", user_id, user)
        self.world.put("reservations", reservation_id, reservation)
        return reservation

    @tool(kind=READ, app="airline")
    def calculate(self, expression: str) -> str:
        """Calculate the result of a mathematical expression.

        Args:
            expression: The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
        """
        return calculate(expression)

    @tool(kind=ACTION, app="airline")
    def cancel_reservation(self, reservation_id: str) -> dict:
        """Cancel the whole reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
        """
        return self._cancel(reservation_id)

    @tool(kind=READ, app="airline")
    def get_reservation_details(self, reservation_id: str) -> dict:
        """Get the details of a reservation.

        Args:
            reservation_id: The reservation ID, such as '8JX2WO'.
        """
        return self._reservation(reservation_id)

    @tool(kind=READ, app="airline")
    def get_user_details(self, user_id: str) -> dict:
        """Get the details of a user, including their reservations.

        Args:
            user_id: The user ID, such as 'sara_doe_496'.
        """
        return self._user(user_id)

    @tool(kind=READ, app="airline")
    def list_all_airports(self) -> list:
        """Returns a list of all available airports."""
        return [{"iata": code, "city": city} for code, city in AIRPORTS]

    @tool(kind=READ, app="airline")
    def search_direct_flight(self, origin: str, destination: str, date: str) -> list:
        """Search for direct flights between two cities on a specific date.

        Args:
            origin: The origin city airport in three letters, such as 'JFK'.
            destination: The destination city airport in three letters, such as 'LAX'.
            date: The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.
        """
        return self._direct(date, origin, destination)

    @tool(kind=READ, app="airline")
    def search_onestop_flight(self, origin: str, destination: str, date: str) -> list:
        """Search for one-stop flights between two cities on a specific date.

        Args:
            origin: The origin city airport in three letters, such as 'JFK'.
            destination: The destination city airport in three letters, such as 'LAX'.
            date: The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
        """
        pairs = []
        for first in self._direct(date, origin, None):
            first["date"] = date
            # τ²-bench's rule: an arrival marked +1 connects on the next day of May 2024.
            second_date = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
            for second in self._direct(second_date, first["destination"], destination,
                                       leave_after=first["scheduled_arrival_time_est"]):
                second["date"] = second_date
                pairs.append([first, second])
        return pairs

    @tool(kind=ACTION, app="airline")
    def send_certificate(self, user_id: str, amount: int) -> str:
        """Send a certificate to a user. Be careful!

        Args:
            user_id: The ID of the user to book the reservation, such as 'sara_doe_496'.
            amount: The amount of the certificate to send.
        """
        payment_id = self._add_certificate(user_id, amount)
        if payment_id is None:
            raise ToolError("Too many certificates")
        return f"Certificate {payment_id} added to user {user_id} with amount {amount}."

    @tool(kind=READ, app="airline")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue.
        Only transfer if
         -  the user explicitly asks for a human agent
         -  given the policy and the available tools, you cannot solve the user's issue.

        Args:
            summary: A summary of the user's issue.
        """
        return TRANSFER_RESULT

    @tool(kind=ACTION, app="airline")
    def update_reservation_baggages(self, reservation_id: str, total_baggages: int, nonfree_baggages: int,
                                    payment_id: str) -> dict:
        """Update the baggage information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'
            total_baggages: The updated total number of baggage items included in the reservation.
            nonfree_baggages: The updated number of non-free baggage items included in the reservation.
            payment_id: The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        """
        return self._update_baggages(reservation_id, total_baggages, nonfree_baggages, payment_id)

    @tool(kind=ACTION, app="airline")
    def update_reservation_flights(self, reservation_id: str, cabin: Cabin, flights: list[FlightInfo | dict],
                                   payment_id: str) -> dict:
        """Update the flight information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
            cabin: The cabin class of the reservation
            flights: An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.
            payment_id: The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        """
        return self._update_flights(reservation_id, cabin, _items(FlightInfo, flights), payment_id)

    @tool(kind=ACTION, app="airline")
    def update_reservation_passengers(self, reservation_id: str, passengers: list[Passenger | dict]) -> dict:
        """Update the passenger information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
            passengers: An array of objects containing details about each passenger.
        """
        return self._update_passengers(reservation_id, _items(Passenger, passengers))

    @tool(kind=READ, app="airline")
    def get_flight_status(self, flight_number: str, date: str) -> str:
        """Get the status of a flight.

        Args:
            flight_number: The flight number.
            date: The date of the flight.
        """
        return self._flight_date(self._flight(flight_number), date)["status"]
