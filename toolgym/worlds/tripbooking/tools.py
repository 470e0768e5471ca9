"""The Trip Booking API (Xu et al. 2023, appendix A.4) over the tickets and hotel tables.

``select_booking_type`` must come first. ``search`` fills in the defaults (minimum ticket
and room prices 0; one room; for "both", the trip dates from the hotel dates), checks the
calls that the booking type requires, and returns the matching tickets and hotel rooms.
Values are stored as given; ``Loc`` and ``Date`` arguments are stored as their location and
their ``m-d-y`` text.
"""

from __future__ import annotations

from datetime import date
from numbers import Real
from typing import Any

from sqlalchemy import select

from toolgym.worlds.api_programs.toolkit import Date, Loc, ProgramToolkit
from toolgym.worlds.tools import ACTION, INT64_MAX, READ, ToolError, tool
from toolgym.worlds.tripbooking.data_model import HotelRoom, Ticket

APP = "TripBooking"
BOOKING_TYPES = ("hotels", "trip tickets", "both")
TRANSPORTATION_TYPES = ("flight", "train", "bus", "cruise")
MAX_RESULTS = 5
# booking type -> (criterion, what the original's message calls it) that search() requires
REQUIRED = {
    "trip tickets": (("means_of_transportation", "transportation method"), ("location_from", "origin"),
                     ("location_to", "destination"), ("departure_date", "departure date")),
    "hotels": (("location", "hotel location"), ("checkin_date", "checkin date"),
               ("checkout_date", "checkout date")),
    "both": (("means_of_transportation", "transportation method"), ("location_from", "origin"),
             ("location_to", "destination"), ("location", "hotel location"),
             ("checkin_date", "checkin date"), ("checkout_date", "checkout date")),
}
SEARCH_NAME = {"trip tickets": "trip tickets", "hotels": "hotels", "both": "'trip tickets and hotels'"}


class TripBookingAPI(ProgramToolkit):
    """``API`` of the Trip Booking programs."""

    helper_docs = (
        "Loc(location: str)\n    A location object, given a city name.",
        "Date(month: int, day: int, year: int)\n    A date object, given the month, day and year.",
    )

    def _location(self, key: str, value: Any, what: str) -> None:
        if not isinstance(value, Loc):
            raise ToolError(f"{what} not a Loc object")
        self.criteria[key] = value.location

    def _date(self, key: str, value: Any, what: str) -> None:
        if not isinstance(value, Date):
            raise ToolError(f"{what} not a Date object")
        self.criteria[key] = value.date

    @tool("select_booking_type", kind=ACTION, app=APP)
    def select_booking_type(self, booking_type: str) -> None:
        """To select the booking type from ['hotels', 'trip tickets', 'both']. Call it first.

        Args:
            booking_type: "hotels", "trip tickets" or "both".
        """
        if booking_type not in BOOKING_TYPES:
            raise ToolError(f"booking type '{booking_type}' not valid")
        if self.criteria:
            raise ToolError("need to set booking type first")
        self.criteria["booking_type"] = booking_type

    @tool("select_transportation", kind=ACTION, app=APP)
    def select_transportation(self, transportation_type: str) -> None:
        """To select the transportation type from ['flight', 'train', 'bus', 'cruise'].

        Args:
            transportation_type: The means of transportation.
        """
        if transportation_type not in TRANSPORTATION_TYPES:
            raise ToolError(f"transportation type '{transportation_type}' not valid")
        self.criteria["means_of_transportation"] = transportation_type

    @tool("set_origin", kind=ACTION, app=APP)
    def set_origin(self, value: Loc) -> None:
        """To set the location for departure, given a Loc object.

        Args:
            value: Where the trip starts, e.g. Loc("Ontario").
        """
        self._location("location_from", value, "origin")

    @tool("set_destination", kind=ACTION, app=APP)
    def set_destination(self, value: Loc) -> None:
        """To set the location for arrival, given a Loc object.

        Args:
            value: Where the trip goes, e.g. Loc("Kansas City").
        """
        self._location("location_to", value, "destination")

    @tool("set_min_ticket_price", kind=ACTION, app=APP)
    def set_min_ticket_price(self, value: int) -> None:
        """To set minimum ticket price.

        Args:
            value: The minimum price in dollars.
        """
        self.criteria["min_price_ticket"] = value

    @tool("set_max_ticket_price", kind=ACTION, app=APP)
    def set_max_ticket_price(self, value: int) -> None:
        """To set maximum ticket price.

        Args:
            value: The maximum price in dollars.
        """
        self.criteria["max_price_ticket"] = value

    @tool("set_num_adults", kind=ACTION, app=APP)
    def set_num_adults(self, value: int) -> None:
        """To set the number of adult tickets to purchase.

        Args:
            value: The number of adults.
        """
        self.criteria["num_adults"] = value

    @tool("set_num_children", kind=ACTION, app=APP)
    def set_num_children(self, value: int) -> None:
        """To set the number of child tickets to purchase.

        Args:
            value: The number of children.
        """
        self.criteria["num_children"] = value

    @tool("set_departure_date", kind=ACTION, app=APP)
    def set_departure_date(self, value: Date) -> None:
        """To set the departure date of the trip, given a Date object.

        Args:
            value: The departure date, e.g. Date(12, 19, 2022).
        """
        self._date("departure_date", value, "departure date")

    @tool("set_return_date", kind=ACTION, app=APP)
    def set_return_date(self, value: Date) -> None:
        """To set the return date of the trip, given a Date object.

        Args:
            value: The return date.
        """
        self._date("return_date", value, "return date")

    @tool("set_hotel_location", kind=ACTION, app=APP)
    def set_hotel_location(self, value: Loc) -> None:
        """To set the location for hotel search, given a Loc object.

        Args:
            value: The hotel's city.
        """
        self._location("location", value, "hotel location")

    @tool("set_checkin_date", kind=ACTION, app=APP)
    def set_checkin_date(self, value: Date) -> None:
        """To set the hotel check-in date, given a Date object.

        Args:
            value: The check-in date.
        """
        self._date("checkin_date", value, "checkin date")

    @tool("set_checkout_date", kind=ACTION, app=APP)
    def set_checkout_date(self, value: Date) -> None:
        """To set the hotel check-out date, given a Date object.

        Args:
            value: The check-out date.
        """
        self._date("checkout_date", value, "checkout date")

    @tool("set_num_rooms", kind=ACTION, app=APP)
    def set_num_rooms(self, value: int) -> None:
        """To set the number of hotel rooms to book.

        Args:
            value: The number of rooms.
        """
        self.criteria["num_rooms"] = value

    @tool("select_room_type", kind=ACTION, app=APP)
    def select_room_type(self, value: str) -> None:
        """To select the hotel room type from ['King Bed', 'Queen Bed', 'Double', 'Luxury'].

        Args:
            value: The room type.
        """
        self.criteria["room_type"] = value

    @tool("set_min_room_price", kind=ACTION, app=APP)
    def set_min_room_price(self, value: int) -> None:
        """To set minimum hotel room price.

        Args:
            value: The minimum price per night in dollars.
        """
        self.criteria["min_price_room"] = value

    @tool("set_max_room_price", kind=ACTION, app=APP)
    def set_max_room_price(self, value: int) -> None:
        """To set maximum hotel room price.

        Args:
            value: The maximum price per night in dollars.
        """
        self.criteria["max_price_room"] = value

    @tool("search", kind=READ, app=APP)
    def search(self) -> dict:
        """Submit criterion to get search results.
        """
        criteria = self.criteria
        if "booking_type" not in criteria:
            raise ToolError("booking type not set")
        booking_type = criteria["booking_type"]
        for key, what in REQUIRED[booking_type]:
            if key not in criteria:
                raise ToolError(f"{what} not set for {SEARCH_NAME[booking_type]} search")
        defaults = {"min_price_ticket": 0, "min_price_room": 0}
        if booking_type == "both":
            defaults.update(departure_date=criteria["checkin_date"], return_date=criteria["checkout_date"])
        if booking_type != "trip tickets":
            defaults["num_rooms"] = 1
        self._fill_defaults(defaults)
        results = {}
        if booking_type != "hotels":
            results["tickets"] = search_tickets(self.world.session, criteria)
        if booking_type != "trip tickets":
            results["hotels"] = search_hotels(self.world.session, criteria)
        return results


def _day(text: Any) -> str | None:
    """ISO date of an ``m-d-y`` text, or None when it is not a valid date."""
    try:
        month, day, year = (int(part) for part in str(text).split("-"))
        return date(year, month, day).isoformat()
    except (ValueError, OverflowError):  # not three numbers; no such day; parts beyond a C int
        return None


def _number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def search_tickets(session, criteria: dict) -> dict:
    """Outbound (and, with a return date, return) tickets that match the criteria."""
    people = [criteria.get(k, 0) for k in ("num_adults", "num_children")]
    bounds = [criteria.get("min_price_ticket", 0), criteria.get("max_price_ticket", float("inf"))]
    if not all(_number(v) for v in people + bounds):
        return {"num_results": 0, "departure": [], "return": []}
    seats = min(max(1, sum(people)), INT64_MAX)  # two counts that fit the database may not add up to one

    def legs(frm: Any, to: Any, day_text: Any) -> list[dict]:
        query = select(Ticket).where(
            Ticket.transportation == criteria["means_of_transportation"], Ticket.origin == str(frm),
            Ticket.destination == str(to), Ticket.date == _day(day_text),
            Ticket.adult_price >= bounds[0], Ticket.adult_price <= bounds[1], Ticket.seats_available >= seats)
        return [t.to_dict() for t in session.scalars(query.order_by(Ticket.adult_price, Ticket.id))]

    departure = legs(criteria["location_from"], criteria["location_to"], criteria["departure_date"])
    back = (legs(criteria["location_to"], criteria["location_from"], criteria["return_date"])
            if "return_date" in criteria else [])
    return {"num_results": len(departure) + len(back), "departure": departure[:MAX_RESULTS],
            "return": back[:MAX_RESULTS]}


def search_hotels(session, criteria: dict) -> dict:
    """Hotel rooms in the hotel location that match room type, price and number of rooms."""
    bounds = [criteria.get("min_price_room", 0), criteria.get("max_price_room", float("inf"))]
    rooms = criteria.get("num_rooms", 1)
    if not all(_number(v) for v in bounds + [rooms]):
        return {"num_results": 0, "rooms": []}
    query = select(HotelRoom).where(HotelRoom.city == str(criteria["location"]), HotelRoom.price >= bounds[0],
                                    HotelRoom.price <= bounds[1], HotelRoom.rooms_available >= rooms)
    if "room_type" in criteria:
        query = query.where(HotelRoom.room_type == str(criteria["room_type"]))
    found = [r.to_dict() for r in session.scalars(query.order_by(HotelRoom.price, HotelRoom.id))]
    return {"num_results": len(found), "rooms": found[:MAX_RESULTS]}
