"""τ-bench v1's airline domain: τ²'s airline tables (the same three) with v1's 14 tools.

Each tool answers with the text v1's returns: ``json.dumps`` of the records it read or wrote,
or v1's error string (``Error: user not found``; v1's ``get_reservation_details`` says "user"
for a missing reservation too). An error answer changes nothing, as in v1.
The checks, arithmetic and changes of each write are τ²'s (:class:`AirlineRules` in
``worlds/tau2/airline.py``); this module holds what v1 does otherwise: its records, words,
output shapes and quirks.
"""

from __future__ import annotations

import json
from typing import Literal

from toolgym.worlds.tau2.airline import (AIRPORTS, NOW, RESERVATION_IDS, AirlineRules, AirlineWorld, Cabin,
                                         FlightInfo, Passenger, Payment)
from toolgym.worlds.tau2.airline import AirlineTools as Tau2AirlineTools
from toolgym.worlds.tau2.store import DocumentWorld
from toolgym.worlds.taubench.common import V1Hash, V1Toolkit, calculate, v1_tool
from toolgym.worlds.tools import ACTION, READ, ToolError, tool


class TauBenchAirlineWorld(V1Hash, AirlineWorld):
    """τ²'s airline world (same tables, same generated database) with τ-bench v1's tools and hash."""

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed)
        # the one-stop search reads the flights into its destination: without an index, every flight's JSON
        self.sql().execute("CREATE INDEX IF NOT EXISTS flights_destination ON flights "
                           "(json_extract(doc, '$.destination'))")
        self.commit()
        self.tools = AirlineTools(self)

    def load(self, data: dict[str, dict]) -> None:
        # v1's records as its files hold them: v1's tools print them with their keys in that order
        # (τ²'s world puts them in the order of τ²'s models)
        DocumentWorld.load(self, data)

    def dump(self) -> dict[str, dict]:
        return DocumentWorld.dump(self)  # v1's records as stored: v1 has no reservation status default


class AirlineTools(AirlineRules, V1Toolkit):
    """The airline agent's tools (τ-bench v1's ``tau_bench/envs/airline/tools``): τ²'s rules
    (:class:`AirlineRules`) with v1's records, words and quirks."""

    world: TauBenchAirlineWorld
    CHANGES_CABIN = False  # v1's update_reservation_flights leaves the cabin as booked

    def _user(self, user_id: str) -> dict:
        return self.world.get("users", user_id, "User not found")

    def _reservation(self, reservation_id: str) -> dict:
        return self.world.get("reservations", reservation_id, "Reservation not found")

    @staticmethod
    def _booked_segment(info: dict, flight: dict, price: int) -> dict:
        return {**info, "price": price, "origin": flight["origin"], "destination": flight["destination"]}

    def _kept_segment(self, info: dict, kept: dict) -> dict:
        return self._booked_segment(info, kept, kept["price"])

    def _used_up(self, payment_id: str) -> None:
        raise KeyError(payment_id)  # v1 reads the certificate its first entry deleted

    def _flights(self, **fields: str) -> list[dict]:
        """The flights whose top-level ``fields`` equal the values, in the table's order (v1 scans
        every flight; the order is the same), each the world's shared parse of its record
        (:meth:`DocumentWorld.shared`), to be read only."""
        return [self.world.shared(doc) for doc in self._flight_texts(**fields)]

    def _flight_texts(self, **fields: str) -> list[str]:
        """The stored texts of :meth:`_flights`: SQLite finds them by the route's index."""
        if not all(isinstance(value, str) for value in fields.values()):
            return []  # v1 compares each flight's text to the value: nothing else equals it
        where = " AND ".join(f"json_extract(doc, '$.{name}') = ?" for name in fields)
        rows = self.world.sql().execute(f'SELECT doc FROM "flights" WHERE {where} ORDER BY pk', tuple(fields.values()))
        return [doc for (doc,) in rows.fetchall()]

    def _book(self, user_id: str, origin: str, destination: str, flight_type: str, cabin: str, flights: list[dict],
              passengers: list[dict], payment_methods: list[dict], total_baggages: int, nonfree_baggages: int,
              insurance: str) -> dict:
        user = self._user(user_id)
        reservation_id = next((r for r in RESERVATION_IDS[:-1] if not self.world.has("reservations", r)),
                              RESERVATION_IDS[-1])  # v1 assumes at most three new reservations per task
        segments, total_price = self._price_booking(flights, cabin, len(passengers), insurance, nonfree_baggages, {})
        self._pay(user["payment_methods"], payment_methods, total_price)
        reservation = {"reservation_id": reservation_id, "user_id": user_id, "origin": origin,
                       "destination": destination, "flight_type": flight_type, "cabin": cabin,
                       "flights": segments, "passengers": passengers, "payment_history": payment_methods,
                       "created_at": NOW, "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages,
                       "insurance": insurance}
        user["reservations"].append(reservation_id)
        self.world.put("reservations", reservation_id, reservation)
        self.world.put("users", user_id, user)
        return reservation

    @tool(kind=ACTION, app="airline")
    def book_reservation(self, user_id: str, origin: str, destination: str,
                         flight_type: Literal["one_way", "round_trip"], cabin: Cabin, flights: list[FlightInfo],
                         passengers: list[Passenger], payment_methods: list[Payment], total_baggages: int,
                         nonfree_baggages: int, insurance: Literal["yes", "no"]) -> str:
        """Book a reservation.

        Args:
            user_id: The ID of the user to book the reservation, such as 'sara_doe_496'.
            origin: The IATA code for the origin city, such as 'SFO'.
            destination: The IATA code for the destination city, such as 'JFK'.
            flights: An array of objects containing details about each piece of flight.
            passengers: An array of objects containing details about each passenger.
            payment_methods: An array of objects containing details about each payment method.
            total_baggages: The total number of baggage items included in the reservation.
            nonfree_baggages: The number of non-free baggage items included in the reservation.
        """
        return self._answer(self._book, user_id, origin, destination, flight_type, cabin, flights, passengers,
                            payment_methods, total_baggages, nonfree_baggages, insurance)

    # v1 declares these as τ² does: τ²'s tools, answering in v1's text (its calculator is its own)
    calculate = v1_tool(Tau2AirlineTools.calculate, body=calculate)
    cancel_reservation = v1_tool(Tau2AirlineTools.cancel_reservation)

    @tool(kind=READ, app="airline")
    def get_reservation_details(self, reservation_id: str) -> str:
        """Get the details of a reservation.

        Args:
            reservation_id: The reservation id, such as '8JX2WO'.
        """
        reservation = self.world.text("reservations", reservation_id)  # v1's json.dumps of the record
        return "Error: user not found" if reservation is None else reservation

    @tool(kind=READ, app="airline")
    def get_user_details(self, user_id: str) -> str:
        """Get the details of an user, including their reservations.

        Args:
            user_id: The user id, such as 'sara_doe_496'.
        """
        user = self.world.text("users", user_id)
        return "Error: user not found" if user is None else user

    @tool(kind=READ, app="airline")
    def list_all_airports(self) -> str:
        """List all airports and their cities."""
        return json.dumps(dict(AIRPORTS))

    @tool(kind=READ, app="airline")
    def search_direct_flight(self, origin: str, destination: str, date: str) -> str:
        """Search direct flights between two cities on a specific date.

        Args:
            origin: The origin city airport in three letters, such as 'JFK'.
            destination: The destination city airport in three letters, such as 'LAX'.
            date: The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.
        """
        texts = self._flight_texts(origin=origin, destination=destination)
        if not isinstance(date, str):  # v1's lookup of it fails, or finds nothing, as below
            return self._direct_flights(texts, date)
        # the answer is the route's records' and the date's alone: made once, kept by them
        return self.world.derived(("search_direct_flight", date, *texts), lambda: self._direct_flights(texts, date))

    def _direct_flights(self, texts: list[str], date: str) -> str:
        results = []
        for flight in map(self.world.shared, texts):
            if (date in flight["dates"]
                    and flight["dates"][date]["status"] == "available"):
                results.append({k: v for k, v in flight.items() if k != "dates"})
                results[-1].update(flight["dates"][date])
        return json.dumps(results)

    @tool(kind=READ, app="airline")
    def search_onestop_flight(self, origin: str, destination: str, date: str) -> str:
        """Search direct flights between two cities on a specific date.

        Args:
            origin: The origin city airport in three letters, such as 'JFK'.
            destination: The destination city airport in three letters, such as 'LAX'.
            date: The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
        """
        seconds = self._flights(destination=destination)
        results = []
        for first in self._flights(origin=origin):
            for second in seconds:
                if first["destination"] != second["origin"]:
                    continue
                # v1's next day: the day number plus one, unpadded, always in May 2024
                date2 = (f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date)
                if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                    continue
                if (date in first["dates"] and date2 in second["dates"]
                        and first["dates"][date]["status"] == "available"
                        and second["dates"][date2]["status"] == "available"):
                    leg1 = {k: v for k, v in first.items() if k != "dates"}
                    leg1.update(first["dates"][date])
                    leg1["date"] = date
                    leg2 = {k: v for k, v in second.items() if k != "dates"}
                    if date not in second["dates"]:
                        # v1 fills the second leg from the first leg's date: a KeyError, which v1 reports so
                        return f"Error: '{date}'"
                    leg2.update(second["dates"][date])
                    leg2["date"] = date2
                    results.append([leg1, leg2])
        return json.dumps(results)

    @tool(kind=ACTION, app="airline")
    def send_certificate(self, user_id: str, amount: float) -> str:
        """Send a certificate to a user. Be careful!

        Args:
            user_id: The ID of the user to book the reservation, such as 'sara_doe_496'.
            amount: Certificate amount to send.
        """
        try:
            payment_id = self._add_certificate(user_id, amount)
        except ToolError:  # the user is not found: nothing was written
            return "Error: user not found"
        if payment_id is None:
            return "None"  # v1's tool falls off its loop and returns None, which its env passes on as is
        return f"Certificate {payment_id} added to user {user_id} with amount {amount}."

    @tool(kind=READ, app="airline")
    def think(self, thought: str) -> str:
        """Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning is needed.

        Args:
            thought: A thought to think about.
        """
        return ""

    @tool(kind=READ, app="airline")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or if the user's issue cannot be resolved by the agent with the available tools.

        Args:
            summary: A summary of the user's issue.
        """
        return "Transfer successful"

    @tool(kind=ACTION, app="airline")
    def update_reservation_baggages(self, reservation_id: str, total_baggages: int, nonfree_baggages: int,
                                    payment_id: str) -> str:
        """Update the baggage information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
            total_baggages: The updated total number of baggage items included in the reservation.
            nonfree_baggages: The updated number of non-free baggage items included in the reservation.
            payment_id: The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        """
        return self._answer(self._update_baggages, reservation_id, total_baggages, nonfree_baggages, payment_id)

    @tool(kind=ACTION, app="airline")
    def update_reservation_flights(self, reservation_id: str, cabin: Cabin, flights: list[FlightInfo],
                                   payment_id: str) -> str:
        """Update the flight information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
            flights: An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.
            payment_id: The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        """
        return self._answer(self._update_flights, reservation_id, cabin, flights, payment_id)

    @tool(kind=ACTION, app="airline")
    def update_reservation_passengers(self, reservation_id: str, passengers: list[Passenger]) -> str:
        """Update the passenger information of a reservation.

        Args:
            reservation_id: The reservation ID, such as 'ZFA04Y'.
            passengers: An array of objects containing details about each passenger.
        """
        return self._answer(self._update_passengers, reservation_id, passengers)
