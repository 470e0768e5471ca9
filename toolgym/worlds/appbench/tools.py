"""The APIs of the AppBench apps (paper's Table 8), as typed tools over the app databases.

Each API is owned by one app; its tool name is ``<App>_<api>`` (the paper's ``app_api``
naming) and its arguments are the Schema-Guided Dialogue slots of the service behind the
app. Search APIs return up to five matching rows, best first; transactional APIs check
availability, write a row and return the booked item. Every API returns the fields listed
by :func:`returns` (SGD's result slots), which later calls may reference.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import namedtuple
from collections.abc import Callable
from datetime import date as Date

from sqlalchemy import inspect as sa_inspect

from toolgym.worlds.appbench import data_model as m
from toolgym.worlds.tools import ACTION, READ, Toolkit, ToolError, tool

#: The apps of the phone with their descriptions; Homes and Media are distractors, as in the
#: original prompt (no task uses them).
APPS = {
    "Rents": "car rental and cab booking: find and reserve rental cars, book a ride to any destination",
    "Hotels": "search and book houses for short-term stays",
    "Services": "find and book hair stylists and therapists",
    "Restaurants": "search restaurants and reserve tables",
    "Movies": "find movies in theaters, show times, buy movie tickets and read movie reviews",
    "Trains": "find and reserve train journeys between cities",
    "Events": "find and book tickets for cultural events (concerts, theater)",
    "Travel": "find tourist attractions and points of interest",
    "Buses": "find and buy bus tickets between cities",
    "Flights": "search one-way and round-trip flights",
    "Payment": "make and request payments to contacts",
    "Music": "look up songs and play music on a device",
    "Weather": "check the weather of a city on a date",
    "Homes": "find properties to buy or rent and schedule visits",
    "Media": "stream movies online",
}
DISTRACTOR_APPS = ("Homes", "Media")
REFERENCE_DATE = "2019-03-01"
MAX_RESULTS = 5

#: SGD slot names that are Python keywords: the method parameter has a trailing underscore,
#: the world maps the public name onto it (see ``AppBenchWorld.call``).
KEYWORD_ARGUMENTS = {"from": "from_", "class": "class_"}


def returns(*fields: str) -> Callable:
    """Declare the fields an API returns (its SGD result slots)."""

    def mark(fn: Callable) -> Callable:
        fn.__returns__ = fields
        return fn

    return mark


def _check_date(name: str, value: str) -> str:
    try:
        return Date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise ToolError(f"{name} must be a date as YYYY-MM-DD, got {value!r}") from None


def _check_time(name: str, value: str) -> str:
    found = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", value)
    if not found or int(found.group(1)) > 23 or int(found.group(2)) > 59:
        raise ToolError(f"{name} must be a time as HH:MM, got {value!r}")
    return f"{int(found.group(1)):02d}:{found.group(2)}"


def _choice(name: str, value: str, options: tuple[str, ...]) -> str:
    for option in options:
        if value.strip().lower() == option.lower():
            return option
    raise ToolError(f"{name} must be one of {', '.join(options)}; got {value!r}")


def _count(name: str, value: str, low: int, high: int) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ToolError(f"{name} must be a whole number, got {value!r}") from None
    if not low <= n <= high:
        raise ToolError(f"{name} must be between {low} and {high}, got {n}")
    return n


def _money(name: str, value: str) -> float:
    try:
        amount = float(str(value).strip().lstrip("$").replace(",", ""))
    except ValueError:
        raise ToolError(f"{name} must be an amount of money, got {value!r}") from None
    if not math.isfinite(amount) or amount <= 0:  # "nan" and "inf" parse as floats
        raise ToolError(f"{name} must be a positive amount of money, got {value!r}")
    return amount


BOOL = ("True", "False")


class _Table:
    """A model's table in plain SQL, for the world's sqlite3 connection (:meth:`World.sql`).

    The tools run many small statements (task generation makes some 1,600 calls): building,
    compiling and running each through SQLAlchemy cost several times SQLite's own work.
    Column names come from the model; rows read as named tuples with its attribute names, and
    the tools read no ORM objects (which would not see these writes).
    """

    def __init__(self, model: type):
        attributes = sa_inspect(model).column_attrs
        self.name = model.__tablename__
        self.columns = {a.key: f'"{a.columns[0].name}"' for a in attributes}
        self.row = namedtuple(f"{model.__name__}Row", tuple(self.columns))
        self.select = f'SELECT {", ".join(self.columns.values())} FROM "{self.name}"'

    def insert(self, attributes) -> str:
        """The statement that writes a row of these attributes' values, in their order."""
        attributes = tuple(attributes)
        return (f'INSERT INTO "{self.name}" ({", ".join(self.columns[a] for a in attributes)}) '
                f'VALUES ({", ".join("?" * len(attributes))})')


@functools.lru_cache(maxsize=None)
def sql_table(model: type) -> _Table:
    """``model``'s table in plain SQL (see :class:`_Table`)."""
    return _Table(model)


class TableQuery:
    """The rows of one table that meet every condition, built up like a ``select()``; each
    condition compares a column (named by its attribute) with a bound value."""

    __slots__ = ("compared", "folded", "table")

    def __init__(self, model: type):
        self.table = sql_table(model)
        # (SQL, value) of each condition. Those that fold a column's case are asked last: a
        # scan then calls lower() only on the rows the plain comparisons let through (flights:
        # half the time). The rows found are the same in any order of the conditions.
        self.compared: list[tuple[str, object]] = []
        self.folded: list[tuple[str, str]] = []

    def where(self, attribute: str, operator: str, value) -> TableQuery:
        self.compared.append((f"{self.table.columns[attribute]} {operator} ?", value))
        return self

    def same(self, attribute: str, value: str) -> TableQuery:
        """The column equals ``value``, ignoring case and the value's surrounding spaces."""
        self.folded.append((f"lower({self.table.columns[attribute]}) = ?", value.strip().lower()))
        return self

    @property
    def values(self) -> list:
        return [value for _, value in self.compared + self.folded]

    def _sql(self, columns: str | None, order_by: tuple[str, ...], limit: int | None) -> str:
        sql = self.table.select if columns is None else f'SELECT {columns} FROM "{self.table.name}"'
        if self.compared or self.folded:
            sql += " WHERE " + " AND ".join(condition for condition, _ in self.compared + self.folded)
        if order_by:
            sql += " ORDER BY " + ", ".join(f"{self.table.columns[o[1:]]} DESC" if o[0] == "-"
                                            else self.table.columns[o] for o in order_by)
        return sql if limit is None else f"{sql} LIMIT {limit}"

    def rows(self, world, *order_by: str, limit: int | None = MAX_RESULTS) -> list:
        """Up to ``limit`` rows (None: all), in the order of ``order_by`` (attribute names; ``-name``: descending)."""
        make = self.table.row._make
        return [make(row) for row in world.sql().execute(self._sql(None, order_by, limit), self.values)]

    def first(self, world, *order_by: str):
        """The first row (in ``order_by``, else in the table's order), or None."""
        found = self.rows(world, *order_by, limit=1)
        return found[0] if found else None

    def count(self, world) -> int:
        """How many rows meet the conditions."""
        return world.sql().execute(self._sql("count(*)", (), None), self.values).fetchone()[0]


#: The order of a theater's showings in every Movies API.
_SHOWING_ORDER = ("movie_name", "theater_name", "show_date", "show_time", "id")


class AppBenchTools(Toolkit):
    """All APIs of all apps; routing through the owning app is enforced by the world."""

    def _insert(self, model: type, **values) -> None:
        """Write one row; its id is the table's next."""
        self.world.sql().execute(sql_table(model).insert(values), tuple(values.values()))

    def _update(self, model: type, row_id: int, **values) -> None:
        """Set columns of the row whose id is ``row_id``."""
        table = sql_table(model)
        self.world.sql().execute(f'UPDATE "{table.name}" SET {", ".join(f"{table.columns[k]} = ?" for k in values)} '
                                 f'WHERE "id" = ?', (*values.values(), row_id))

    # -- Rents ---------------------------------------------------------------------------------
    @tool("Rents_getcarsavailable", kind=READ, app="Rents")
    @returns("car_type", "car_name", "pickup_location", "start_date", "pickup_time", "city", "end_date",
             "price_per_day")
    def getcarsavailable(self, city: str, start_date: str, pickup_time: str, end_date: str,
                         car_type: str | None = None) -> list[dict]:
        """Discover cars available for rent in a city for a period.

        Args:
            city: City where you want to rent the car.
            start_date: First day of the rental, YYYY-MM-DD.
            pickup_time: Pick-up time, HH:MM.
            end_date: Day to return the car, YYYY-MM-DD.
            car_type: Type of car: Hatchback, Sedan or SUV.
        """
        start, end = _check_date("start_date", start_date), _check_date("end_date", end_date)
        time = _check_time("pickup_time", pickup_time)
        if end < start:
            raise ToolError("end_date is before start_date")
        query = TableQuery(m.RentalCar).same("city", city)
        if car_type is not None:
            query.where("car_type", "=", _choice("car_type", car_type, ("Hatchback", "Sedan", "SUV")))
        free = (c for c in query.rows(self.world, "price_per_day", "id", limit=100)
                if self._car_free(c.id, start, end))
        cars = list(itertools.islice(free, MAX_RESULTS))  # the first free ones: no need to ask about the rest
        return [dict(car_type=c.car_type, car_name=c.car_name, pickup_location=c.pickup_location,
                     start_date=start, pickup_time=time, city=c.city, end_date=end,
                     price_per_day=c.price_per_day) for c in cars]

    def _car_free(self, car_id: int, start: str, end: str) -> bool:
        clash = TableQuery(m.CarReservation).where("car_id", "=", car_id).where("start_date", "<=", end)
        return clash.where("end_date", ">=", start).first(self.world) is None

    @tool("Rents_reservecar", kind=ACTION, app="Rents")
    @returns("car_type", "car_name", "pickup_location", "start_date", "pickup_time", "end_date", "price_per_day",
             "add_insurance")
    def reservecar(self, pickup_location: str, start_date: str, pickup_time: str, end_date: str, car_type: str,
                   add_insurance: str) -> dict:
        """Make a rental car reservation.

        Args:
            pickup_location: Place to pick up the car.
            start_date: First day of the rental, YYYY-MM-DD.
            pickup_time: Pick-up time, HH:MM.
            end_date: Day to return the car, YYYY-MM-DD.
            car_type: Type of car: Hatchback, Sedan or SUV.
            add_insurance: Whether to buy insurance, True or False.
        """
        start, end = _check_date("start_date", start_date), _check_date("end_date", end_date)
        time = _check_time("pickup_time", pickup_time)
        kind = _choice("car_type", car_type, ("Hatchback", "Sedan", "SUV"))
        insurance = _choice("add_insurance", add_insurance, BOOL)
        if end < start:
            raise ToolError("end_date is before start_date")
        query = TableQuery(m.RentalCar).same("pickup_location", pickup_location).where("car_type", "=", kind)
        car = next((c for c in query.rows(self.world, "price_per_day", "id", limit=100)
                    if self._car_free(c.id, start, end)), None)
        if car is None:
            raise ToolError(f"No {kind} is available at {pickup_location!r} from {start} to {end}.")
        self._insert(m.CarReservation, car_id=car.id, start_date=start, pickup_time=time, end_date=end,
                     add_insurance=insurance)
        return dict(car_type=kind, car_name=car.car_name, pickup_location=car.pickup_location, start_date=start,
                    pickup_time=time, end_date=end, price_per_day=car.price_per_day, add_insurance=insurance)

    @tool("Rents_getride", kind=ACTION, app="Rents")
    @returns("destination", "ride_type", "ride_fare", "wait_time", "number_of_seats")
    def getride(self, destination: str, number_of_seats: str, ride_type: str) -> dict:
        """Book a cab to a destination.

        Args:
            destination: Destination address or place of the ride.
            number_of_seats: Seats to reserve, 1 to 4.
            ride_type: Type of ride: Pool, Regular or Luxury.
        """
        seats = _count("number_of_seats", number_of_seats, 1, 4)
        kind = _choice("ride_type", ride_type, ("Pool", "Regular", "Luxury"))
        if not destination.strip():
            raise ToolError("destination is empty")
        # The fare depends only on the request, so replays of a plan give the same ride.
        base = 8 + sum(map(ord, destination.strip().lower())) % 30
        fare = round(base * {"Pool": 0.7, "Regular": 1.0, "Luxury": 1.8}[kind] * (1 + 0.1 * (seats - 1)), 2)
        wait = 3 + sum(map(ord, destination)) % 10
        self._insert(m.Ride, destination=destination.strip(), ride_type=kind, number_of_seats=str(seats),
                     ride_fare=fare, wait_time=wait)
        return dict(destination=destination.strip(), ride_type=kind, ride_fare=fare, wait_time=wait,
                    number_of_seats=str(seats))

    # -- Hotels --------------------------------------------------------------------------------
    @tool("Hotels_searchhouse", kind=READ, app="Hotels")
    @returns("where_to", "number_of_adults", "rating", "address", "phone_number", "total_price",
             "has_laundry_service")
    def searchhouse(self, where_to: str, rating: str | None = None, has_laundry_service: str | None = None,
                    number_of_adults: str | None = None) -> list[dict]:
        """Search houses for a short stay in a city.

        Args:
            where_to: City of the stay.
            rating: Minimum review rating, 1 to 5.
            has_laundry_service: Whether the house has laundry service, True or False.
            number_of_adults: Number of adults staying, 1 to 5.
        """
        query = TableQuery(m.House).same("where_to", where_to)
        if rating is not None:
            try:
                minimum = float(rating)
            except ValueError:
                minimum = math.nan
            if not math.isfinite(minimum):  # "nan" and "inf" parse as floats but compare with nothing
                raise ToolError(f"rating must be a number, got {rating!r}")
            query.where("rating", ">=", minimum)
        if has_laundry_service is not None:
            query.where("has_laundry_service", "=", _choice("has_laundry_service", has_laundry_service, BOOL))
        adults = _count("number_of_adults", number_of_adults, 1, 5) if number_of_adults is not None else 1
        query.where("max_adults", ">=", adults)
        return [dict(where_to=h.where_to, number_of_adults=str(adults), rating=h.rating, address=h.address,
                     phone_number=h.phone_number, total_price=h.price_per_night, has_laundry_service=h.has_laundry_service)
                for h in query.rows(self.world, "-rating", "id")]

    @tool("Hotels_bookhouse", kind=ACTION, app="Hotels")
    @returns("where_to", "number_of_adults", "check_in_date", "check_out_date", "rating", "address", "phone_number",
             "total_price", "has_laundry_service")
    def bookhouse(self, where_to: str, number_of_adults: str, check_in_date: str, check_out_date: str) -> dict:
        """Book the best available house in a city for a stay.

        Args:
            where_to: City of the stay.
            number_of_adults: Number of adults staying, 1 to 5.
            check_in_date: Check-in date, YYYY-MM-DD.
            check_out_date: Check-out date, YYYY-MM-DD.
        """
        adults = _count("number_of_adults", number_of_adults, 1, 5)
        start, end = _check_date("check_in_date", check_in_date), _check_date("check_out_date", check_out_date)
        if end <= start:
            raise ToolError("check_out_date must be after check_in_date")
        query = TableQuery(m.House).same("where_to", where_to).where("max_adults", ">=", adults)
        for house in query.rows(self.world, "-rating", "id", limit=100):
            clash = TableQuery(m.HouseBooking).where("house_id", "=", house.id).where("check_in_date", "<", end)
            if clash.where("check_out_date", ">", start).first(self.world) is None:
                nights = (Date.fromisoformat(end) - Date.fromisoformat(start)).days
                total = nights * house.price_per_night
                self._insert(m.HouseBooking, house_id=house.id, number_of_adults=str(adults), check_in_date=start,
                             check_out_date=end, total_price=total)
                return dict(where_to=house.where_to, number_of_adults=str(adults), check_in_date=start,
                            check_out_date=end, rating=house.rating, address=house.address,
                            phone_number=house.phone_number, total_price=total,
                            has_laundry_service=house.has_laundry_service)
        raise ToolError(f"No house for {adults} adult(s) is free in {where_to!r} from {start} to {end}.")

    # -- Services ------------------------------------------------------------------------------
    @tool("Services_find_stylist_provider", kind=READ, app="Services")
    @returns("stylist_name", "phone_number", "average_rating", "is_unisex", "street_address", "city")
    def find_stylist_provider(self, city: str, is_unisex: str | None = None) -> list[dict]:
        """Search hair stylists in a city.

        Args:
            city: City of the salon.
            is_unisex: Whether the salon is unisex, True or False.
        """
        query = TableQuery(m.Stylist).same("city", city)
        if is_unisex is not None:
            query.where("is_unisex", "=", _choice("is_unisex", is_unisex, BOOL))
        return [dict(stylist_name=s.stylist_name, phone_number=s.phone_number, average_rating=s.average_rating,
                     is_unisex=s.is_unisex, street_address=s.street_address, city=s.city)
                for s in query.rows(self.world, "-average_rating", "id")]

    @tool("Services_book_stylist_appointment", kind=ACTION, app="Services")
    @returns("stylist_name", "phone_number", "average_rating", "is_unisex", "street_address", "appointment_date",
             "appointment_time")
    def book_stylist_appointment(self, stylist_name: str, appointment_time: str, appointment_date: str) -> dict:
        """Book an appointment with a hair stylist.

        Args:
            stylist_name: Name of the stylist or salon.
            appointment_time: Time of the appointment, HH:MM.
            appointment_date: Date of the appointment, YYYY-MM-DD.
        """
        stylist = TableQuery(m.Stylist).same("stylist_name", stylist_name).first(self.world)
        if stylist is None:
            raise ToolError(f"No stylist named {stylist_name!r}.")
        day, time = self._book_slot("stylist", stylist.stylist_name, appointment_date, appointment_time)
        return dict(stylist_name=stylist.stylist_name, phone_number=stylist.phone_number,
                    average_rating=stylist.average_rating, is_unisex=stylist.is_unisex,
                    street_address=stylist.street_address, appointment_date=day, appointment_time=time)

    def _book_slot(self, kind: str, name: str, day: str, time: str) -> tuple[str, str]:
        day, time = _check_date("appointment_date", day), _check_time("appointment_time", time)
        taken = TableQuery(m.Appointment).where("provider_name", "=", name).where("appointment_date", "=", day)
        if taken.where("appointment_time", "=", time).first(self.world) is not None:
            raise ToolError(f"{name} is already booked on {day} at {time}.")
        self._insert(m.Appointment, provider_kind=kind, provider_name=name, appointment_date=day,
                     appointment_time=time)
        return day, time

    @tool("Services_find_therapist_provider", kind=READ, app="Services")
    @returns("therapist_name", "phone_number", "address", "city", "type")
    def find_therapist_provider(self, city: str, type: str) -> list[dict]:
        """Search therapists of a kind in a city.

        Args:
            city: City where to find a therapist.
            type: Kind of therapist: Psychologist, Family Counselor or Psychiatrist.
        """
        kind = _choice("type", type, ("Psychologist", "Family Counselor", "Psychiatrist"))
        query = TableQuery(m.Therapist).same("city", city).where("type", "=", kind)
        return [dict(therapist_name=t.therapist_name, phone_number=t.phone_number, address=t.address, city=t.city,
                     type=t.type) for t in query.rows(self.world, "id")]

    @tool("Services_book_therapist_appointment", kind=ACTION, app="Services")
    @returns("therapist_name", "phone_number", "address", "appointment_date", "appointment_time")
    def book_therapist_appointment(self, therapist_name: str, appointment_time: str, appointment_date: str) -> dict:
        """Book an appointment with a therapist.

        Args:
            therapist_name: Name of the therapist.
            appointment_time: Time of the appointment, HH:MM.
            appointment_date: Date of the appointment, YYYY-MM-DD.
        """
        therapist = TableQuery(m.Therapist).same("therapist_name", therapist_name).first(self.world)
        if therapist is None:
            raise ToolError(f"No therapist named {therapist_name!r}.")
        day, time = self._book_slot("therapist", therapist.therapist_name, appointment_date, appointment_time)
        return dict(therapist_name=therapist.therapist_name, phone_number=therapist.phone_number,
                    address=therapist.address, appointment_date=day, appointment_time=time)

    # -- Restaurants ---------------------------------------------------------------------------
    @tool("Restaurants_findrestaurants", kind=READ, app="Restaurants")
    @returns("restaurant_name", "has_seating_outdoors", "has_vegetarian_options", "phone_number", "rating",
             "address", "price_range", "location", "category")
    def findrestaurants(self, category: str, location: str, price_range: str | None = None,
                        has_seating_outdoors: str | None = None, has_vegetarian_options: str | None = None) -> list[dict]:
        """Search restaurants by cuisine in a city.

        Args:
            category: Cuisine, e.g. Italian, Mexican, Korean.
            location: City of the restaurant.
            price_range: Price range: cheap, moderate, pricey or ultra high-end.
            has_seating_outdoors: Whether it has outdoor seating, True or False.
            has_vegetarian_options: Whether it has vegetarian options, True or False.
        """
        query = TableQuery(m.Restaurant).same("category", category).same("location", location)
        if price_range is not None:
            query.where("price_range", "=", _choice("price_range", price_range,
                                                    ("cheap", "moderate", "pricey", "ultra high-end")))
        if has_seating_outdoors is not None:
            query.where("has_seating_outdoors", "=", _choice("has_seating_outdoors", has_seating_outdoors, BOOL))
        if has_vegetarian_options is not None:
            query.where("has_vegetarian_options", "=", _choice("has_vegetarian_options", has_vegetarian_options, BOOL))
        return [self._restaurant(x) for x in query.rows(self.world, "-rating", "id")]

    @staticmethod
    def _restaurant(x: m.Restaurant) -> dict:
        return dict(restaurant_name=x.restaurant_name, has_seating_outdoors=x.has_seating_outdoors,
                    has_vegetarian_options=x.has_vegetarian_options, phone_number=x.phone_number, rating=x.rating,
                    address=x.address, price_range=x.price_range, location=x.location, category=x.category)

    @tool("Restaurants_reserverestaurant", kind=ACTION, app="Restaurants")
    @returns("restaurant_name", "date", "time", "has_seating_outdoors", "has_vegetarian_options", "phone_number",
             "rating", "address", "number_of_seats", "price_range", "location", "category")
    def reserverestaurant(self, restaurant_name: str, location: str, time: str, number_of_seats: str = "2",
                          date: str = REFERENCE_DATE) -> dict:
        """Reserve a table at a restaurant.

        Args:
            restaurant_name: Name of the restaurant.
            location: City of the restaurant.
            time: Time of the reservation, HH:MM.
            number_of_seats: Number of seats, 1 to 6.
            date: Date of the reservation, YYYY-MM-DD.
        """
        seats = _count("number_of_seats", number_of_seats, 1, 6)
        day, at = _check_date("date", date), _check_time("time", time)
        place = TableQuery(m.Restaurant).same("restaurant_name", restaurant_name).same("location", location).first(self.world)
        if place is None:
            raise ToolError(f"No restaurant named {restaurant_name!r} in {location!r}.")
        booked = TableQuery(m.TableReservation).where("restaurant_id", "=", place.id).where("date", "=", day).where(
            "time", "=", at).count(self.world)
        if booked >= place.seats // 4:
            raise ToolError(f"{place.restaurant_name} is fully booked on {day} at {at}.")
        self._insert(m.TableReservation, restaurant_id=place.id, date=day, time=at, number_of_seats=str(seats))
        return {**self._restaurant(place), "date": day, "time": at, "number_of_seats": str(seats)}

    # -- Movies --------------------------------------------------------------------------------
    @tool("Movies_findmovies", kind=READ, app="Movies")
    @returns("price", "show_type", "theater_name", "genre", "street_address", "location", "movie_name")
    def findmovies(self, location: str, genre: str | None = None, show_type: str | None = None,
                   theater_name: str | None = None) -> list[dict]:
        """Find movies playing in theaters of a city.

        Args:
            location: City of the theater.
            genre: Genre of the movie.
            show_type: Show type: regular, 3d or imax.
            theater_name: Name of the theater.
        """
        query = self._showings(location, genre, show_type, theater_name)
        seen, found = set(), []
        for s in query.rows(self.world, *_SHOWING_ORDER, limit=1000):
            if (s.movie_name, s.theater_name, s.show_type) not in seen:
                seen.add((s.movie_name, s.theater_name, s.show_type))
                found.append(dict(price=s.price, show_type=s.show_type, theater_name=s.theater_name, genre=s.genre,
                                  street_address=s.street_address, location=s.location, movie_name=s.movie_name))
        return found[:MAX_RESULTS]

    def _showings(self, location: str, genre: str | None, show_type: str | None, theater_name: str | None):
        query = TableQuery(m.Showing).same("location", location)
        if genre is not None:
            query.same("genre", genre)
        if show_type is not None:
            query.where("show_type", "=", _choice("show_type", show_type, ("regular", "3d", "imax")))
        if theater_name is not None:
            query.same("theater_name", theater_name)
        return query

    @tool("Movies_gettimesformovie", kind=READ, app="Movies")
    @returns("price", "show_type", "theater_name", "show_time", "show_date", "genre", "street_address", "location",
             "movie_name")
    def gettimesformovie(self, movie_name: str, location: str, show_date: str, show_type: str | None = None,
                         theater_name: str | None = None) -> list[dict]:
        """Find show times of a movie in a city on a date.

        Args:
            movie_name: Title of the movie.
            location: City of the theater.
            show_date: Date of the show, YYYY-MM-DD.
            show_type: Show type: regular, 3d or imax.
            theater_name: Name of the theater.
        """
        day = _check_date("show_date", show_date)
        query = self._showings(location, None, show_type, theater_name).same("movie_name", movie_name).where(
            "show_date", "=", day)
        return [dict(price=s.price, show_type=s.show_type, theater_name=s.theater_name, show_time=s.show_time,
                     show_date=s.show_date, genre=s.genre, street_address=s.street_address, location=s.location,
                     movie_name=s.movie_name) for s in query.rows(self.world, *_SHOWING_ORDER)]

    @tool("Movies_buymovietickets", kind=ACTION, app="Movies")
    @returns("price", "number_of_tickets", "show_type", "theater_name", "show_time", "show_date", "genre",
             "street_address", "location", "movie_name")
    def buymovietickets(self, movie_name: str, number_of_tickets: str, show_date: str, location: str,
                        show_time: str, show_type: str) -> dict:
        """Buy tickets for a movie show.

        Args:
            movie_name: Title of the movie.
            number_of_tickets: Number of tickets, 1 to 9.
            show_date: Date of the show, YYYY-MM-DD.
            location: City of the theater.
            show_time: Time of the show, HH:MM.
            show_type: Show type: regular, 3d or imax.
        """
        n = _count("number_of_tickets", number_of_tickets, 1, 9)
        day, at = _check_date("show_date", show_date), _check_time("show_time", show_time)
        query = self._showings(location, None, show_type, None).same("movie_name", movie_name).where(
            "show_date", "=", day).where("show_time", "=", at)
        show = query.first(self.world, *_SHOWING_ORDER)
        if show is None:
            raise ToolError(f"No {show_type} show of {movie_name!r} in {location!r} on {day} at {at}.")
        if show.seats_left < n:
            raise ToolError(f"Only {show.seats_left} seat(s) left for that show.")
        self._update(m.Showing, show.id, seats_left=show.seats_left - n)
        self._insert(m.MovieTicket, showing_id=show.id, number_of_tickets=str(n))
        return dict(price=show.price * n, number_of_tickets=str(n), show_type=show.show_type,
                    theater_name=show.theater_name, show_time=at, show_date=day, genre=show.genre,
                    street_address=show.street_address, location=show.location, movie_name=show.movie_name)

    @tool("Movies_reviewmovies", kind=READ, app="Movies")
    @returns("movie_title", "genre", "percent_rating", "cast", "directed_by")
    def reviewmovies(self, directed_by: str | None = None, genre: str | None = None,
                     cast: str | None = None) -> list[dict]:
        """Find reviewed movies by director, genre or cast member.

        Args:
            directed_by: Director of the movie.
            genre: Genre of the movie.
            cast: An actor of the movie.
        """
        query = TableQuery(m.MovieReview)
        if directed_by is not None:
            query.same("directed_by", directed_by)
        if genre is not None:
            query.same("genre", genre)
        if cast is not None:
            query.same("cast", cast)
        return [dict(movie_title=x.movie_title, genre=x.genre, percent_rating=x.percent_rating, cast=x.cast,
                     directed_by=x.directed_by) for x in query.rows(self.world, "-percent_rating", "id")]

    # -- Trains --------------------------------------------------------------------------------
    @tool("Trains_findtrains", kind=READ, app="Trains")
    @returns("from", "to", "from_station", "to_station", "date_of_journey", "journey_start_time", "total",
             "number_of_adults", "class", "trip_protection")
    def findtrains(self, from_: str, to: str, date_of_journey: str, class_: str = "Value",
                   number_of_adults: str = "1") -> list[dict]:
        """Find trains between two cities on a date.

        Args:
            from_: City of departure.
            to: City of arrival.
            date_of_journey: Date of the journey, YYYY-MM-DD.
            class_: Fare class: Value, Flexible or Business.
            number_of_adults: Number of adult passengers, 1 to 5.
        """
        day = _check_date("date_of_journey", date_of_journey)
        fare_class = _choice("class", class_, ("Value", "Flexible", "Business"))
        adults = _count("number_of_adults", number_of_adults, 1, 5)
        query = TableQuery(m.Train).same("from_city", from_).same("to_city", to).where("date_of_journey", "=", day).where(
            "seats_left", ">=", adults)
        return [self._train(x, fare_class, adults, "False") for x in query.rows(self.world, "journey_start_time", "id")]

    @staticmethod
    def _train(x: m.Train, fare_class: str, adults: int, protection: str) -> dict:
        total = x.fare_value * {"Value": 1, "Flexible": 1.5, "Business": 2.5}[fare_class] * adults
        return {"from": x.from_city, "to": x.to_city, "from_station": x.from_station, "to_station": x.to_station,
                "date_of_journey": x.date_of_journey, "journey_start_time": x.journey_start_time,
                "total": int(total), "number_of_adults": str(adults), "class": fare_class,
                "trip_protection": protection}

    @tool("Trains_gettraintickets", kind=ACTION, app="Trains")
    @returns("from", "to", "from_station", "to_station", "date_of_journey", "journey_start_time", "total",
             "number_of_adults", "class", "trip_protection")
    def gettraintickets(self, from_: str, to: str, date_of_journey: str, journey_start_time: str,
                        number_of_adults: str, trip_protection: str, class_: str = "Value") -> dict:
        """Reserve train tickets.

        Args:
            from_: City of departure.
            to: City of arrival.
            date_of_journey: Date of the journey, YYYY-MM-DD.
            journey_start_time: Departure time of the train, HH:MM.
            number_of_adults: Number of adult passengers, 1 to 5.
            trip_protection: Whether to add trip protection, True or False.
            class_: Fare class: Value, Flexible or Business.
        """
        day, at = _check_date("date_of_journey", date_of_journey), _check_time("journey_start_time", journey_start_time)
        fare_class = _choice("class", class_, ("Value", "Flexible", "Business"))
        adults = _count("number_of_adults", number_of_adults, 1, 5)
        protection = _choice("trip_protection", trip_protection, BOOL)
        train = TableQuery(m.Train).same("from_city", from_).same("to_city", to).where("date_of_journey", "=", day).where(
            "journey_start_time", "=", at).first(self.world)
        if train is None:
            raise ToolError(f"No train from {from_!r} to {to!r} on {day} at {at}.")
        if train.seats_left < adults:
            raise ToolError(f"Only {train.seats_left} seat(s) left on that train.")
        self._update(m.Train, train.id, seats_left=train.seats_left - adults)
        ticket = self._train(train, fare_class, adults, protection)
        self._insert(m.TrainTicket, train_id=train.id, number_of_adults=str(adults), travel_class=fare_class,
                     trip_protection=protection, total=ticket["total"])
        return ticket

    # -- Events --------------------------------------------------------------------------------
    @tool("Events_findevents", kind=READ, app="Events")
    @returns("event_type", "event_name", "date", "time", "price_per_ticket", "city", "venue", "venue_address")
    def findevents(self, event_type: str, city: str, date: str | None = None) -> list[dict]:
        """Find cultural events in a city.

        Args:
            event_type: Kind of event: Music or Theater.
            city: City of the event.
            date: Date of the event, YYYY-MM-DD.
        """
        query = TableQuery(m.Event).where("event_type", "=", _choice("event_type", event_type, ("Music", "Theater")))
        query.same("city", city)
        if date is not None:
            query.where("date", "=", _check_date("date", date))
        return [self._event(x) for x in query.rows(self.world, "date", "time", "id")]

    @staticmethod
    def _event(x: m.Event) -> dict:
        return dict(event_type=x.event_type, event_name=x.event_name, date=x.date, time=x.time,
                    price_per_ticket=x.price_per_ticket, city=x.city, venue=x.venue, venue_address=x.venue_address)

    @tool("Events_buyeventtickets", kind=ACTION, app="Events")
    @returns("event_name", "date", "time", "number_of_tickets", "price_per_ticket", "city", "venue", "venue_address")
    def buyeventtickets(self, event_name: str, number_of_tickets: str, date: str, city: str) -> dict:
        """Buy tickets for an event.

        Args:
            event_name: Name of the event.
            number_of_tickets: Number of tickets, 1 to 9.
            date: Date of the event, YYYY-MM-DD.
            city: City of the event.
        """
        n = _count("number_of_tickets", number_of_tickets, 1, 9)
        day = _check_date("date", date)
        event = TableQuery(m.Event).same("event_name", event_name).where("date", "=", day).same("city", city).first(
            self.world)
        if event is None:
            raise ToolError(f"No event {event_name!r} in {city!r} on {day}.")
        if event.tickets_left < n:
            raise ToolError(f"Only {event.tickets_left} ticket(s) left for {event.event_name}.")
        self._update(m.Event, event.id, tickets_left=event.tickets_left - n)
        self._insert(m.EventTicket, event_id=event.id, number_of_tickets=str(n))
        found = self._event(event)
        del found["event_type"]
        return {**found, "number_of_tickets": str(n)}

    # -- Travel --------------------------------------------------------------------------------
    @tool("Travel_findattractions", kind=READ, app="Travel")
    @returns("location", "attraction_name", "category", "phone_number", "free_entry", "good_for_kids")
    def findattractions(self, location: str, category: str | None = None, free_entry: str | None = None,
                        good_for_kids: str | None = None) -> list[dict]:
        """Find tourist attractions in a city.

        Args:
            location: City of the attraction.
            category: Kind of attraction, e.g. Museum, Park, Theme Park.
            free_entry: Whether entry is free, True or False.
            good_for_kids: Whether it suits children, True or False.
        """
        query = TableQuery(m.Attraction).same("location", location)
        if category is not None:
            query.same("category", category)
        if free_entry is not None:
            query.where("free_entry", "=", _choice("free_entry", free_entry, BOOL))
        if good_for_kids is not None:
            query.where("good_for_kids", "=", _choice("good_for_kids", good_for_kids, BOOL))
        return [dict(location=x.location, attraction_name=x.attraction_name, category=x.category,
                     phone_number=x.phone_number, free_entry=x.free_entry, good_for_kids=x.good_for_kids)
                for x in query.rows(self.world, "id")]

    # -- Buses ---------------------------------------------------------------------------------
    @tool("Buses_findbus", kind=READ, app="Buses")
    @returns("from_city", "to_city", "from_station", "to_station", "departure_date", "departure_time", "price",
             "num_passengers", "category")
    def findbus(self, from_city: str, to_city: str, departure_date: str, num_passengers: str = "1",
                category: str = "direct") -> list[dict]:
        """Find buses between two cities on a date.

        Args:
            from_city: City of departure.
            to_city: City of arrival.
            departure_date: Date of departure, YYYY-MM-DD.
            num_passengers: Number of passengers, 1 to 5.
            category: Kind of trip: direct or one-stop.
        """
        n = _count("num_passengers", num_passengers, 1, 5)
        query = TableQuery(m.Bus).same("from_city", from_city).same("to_city", to_city)
        query.where("departure_date", "=", _check_date("departure_date", departure_date))
        query.where("category", "=", _choice("category", category, ("direct", "one-stop"))).where("seats_left", ">=", n)
        return [dict(from_city=x.from_city, to_city=x.to_city, from_station=x.from_station, to_station=x.to_station,
                     departure_date=x.departure_date, departure_time=x.departure_time, price=x.price * n,
                     num_passengers=str(n), category=x.category) for x in query.rows(self.world, "departure_time", "id")]

    @tool("Buses_buybusticket", kind=ACTION, app="Buses")
    @returns("from_city", "to_city", "from_station", "to_station", "departure_date", "departure_time", "price",
             "additional_luggage", "num_passengers", "category")
    def buybusticket(self, from_city: str, to_city: str, departure_date: str, departure_time: str,
                     num_passengers: str, additional_luggage: str = "False") -> dict:
        """Buy bus tickets.

        Args:
            from_city: City of departure.
            to_city: City of arrival.
            departure_date: Date of departure, YYYY-MM-DD.
            departure_time: Departure time of the bus, HH:MM.
            num_passengers: Number of passengers, 1 to 5.
            additional_luggage: Whether to carry extra luggage, True or False.
        """
        n = _count("num_passengers", num_passengers, 1, 5)
        luggage = _choice("additional_luggage", additional_luggage, BOOL)
        day, at = _check_date("departure_date", departure_date), _check_time("departure_time", departure_time)
        bus = TableQuery(m.Bus).same("from_city", from_city).same("to_city", to_city).where(
            "departure_date", "=", day).where("departure_time", "=", at).first(self.world)
        if bus is None:
            raise ToolError(f"No bus from {from_city!r} to {to_city!r} on {day} at {at}.")
        if bus.seats_left < n:
            raise ToolError(f"Only {bus.seats_left} seat(s) left on that bus.")
        self._update(m.Bus, bus.id, seats_left=bus.seats_left - n)
        self._insert(m.BusTicket, bus_id=bus.id, num_passengers=str(n), additional_luggage=luggage)
        return dict(from_city=bus.from_city, to_city=bus.to_city, from_station=bus.from_station,
                    to_station=bus.to_station, departure_date=day, departure_time=at, price=bus.price * n,
                    additional_luggage=luggage, num_passengers=str(n), category=bus.category)

    # -- Flights -------------------------------------------------------------------------------
    def _flights(self, origin: str, destination: str, day: str, airlines: str | None) -> list[m.Flight]:
        query = TableQuery(m.Flight).same("origin_airport", origin).same("destination_airport", destination)
        query.where("departure_date", "=", _check_date("departure_date", day))
        if airlines is not None:
            query.same("airlines", airlines)
        return query.rows(self.world, "economy_price", "id")

    @staticmethod
    def _fare(flight: m.Flight, seating_class: str, tickets: int) -> int:
        return flight.economy_price * {"Economy": 1, "Premium Economy": 2, "Business": 4}[seating_class] * tickets

    @tool("Flights_searchonewayflight", kind=READ, app="Flights")
    @returns("number_of_tickets", "seating_class", "origin_airport", "destination_airport", "departure_date",
             "is_nonstop", "outbound_departure_time", "outbound_arrival_time", "price", "airlines")
    def searchonewayflight(self, origin_airport: str, destination_airport: str, departure_date: str,
                           seating_class: str = "Economy", number_of_tickets: str = "1",
                           airlines: str | None = None) -> list[dict]:
        """Search one-way flights.

        Args:
            origin_airport: City or airport of departure.
            destination_airport: City or airport of arrival.
            departure_date: Date of departure, YYYY-MM-DD.
            seating_class: Cabin: Economy, Premium Economy or Business.
            number_of_tickets: Number of tickets, 1 to 4.
            airlines: Airline to fly with.
        """
        cabin = _choice("seating_class", seating_class, ("Economy", "Premium Economy", "Business"))
        n = _count("number_of_tickets", number_of_tickets, 1, 4)
        return [dict(number_of_tickets=str(n), seating_class=cabin, origin_airport=x.origin_airport,
                     destination_airport=x.destination_airport, departure_date=x.departure_date,
                     is_nonstop=x.is_nonstop, outbound_departure_time=x.departure_time,
                     outbound_arrival_time=x.arrival_time, price=self._fare(x, cabin, n), airlines=x.airlines)
                for x in self._flights(origin_airport, destination_airport, departure_date, airlines)]

    @tool("Flights_searchroundtripflights", kind=READ, app="Flights")
    @returns("number_of_tickets", "seating_class", "origin_airport", "destination_airport", "departure_date",
             "return_date", "is_nonstop", "outbound_departure_time", "outbound_arrival_time", "inbound_arrival_time",
             "inbound_departure_time", "price", "airlines")
    def searchroundtripflights(self, origin_airport: str, destination_airport: str, departure_date: str,
                               return_date: str, seating_class: str = "Economy", number_of_tickets: str = "1",
                               airlines: str | None = None) -> list[dict]:
        """Search round-trip flights (same airline both ways).

        Args:
            origin_airport: City or airport of departure.
            destination_airport: City or airport of arrival.
            departure_date: Date of the outbound flight, YYYY-MM-DD.
            return_date: Date of the return flight, YYYY-MM-DD.
            seating_class: Cabin: Economy, Premium Economy or Business.
            number_of_tickets: Number of tickets, 1 to 4.
            airlines: Airline to fly with.
        """
        cabin = _choice("seating_class", seating_class, ("Economy", "Premium Economy", "Business"))
        n = _count("number_of_tickets", number_of_tickets, 1, 4)
        if _check_date("return_date", return_date) < _check_date("departure_date", departure_date):
            raise ToolError("return_date is before departure_date")
        back = self._flights(destination_airport, origin_airport, return_date, airlines)
        trips = []
        for out in self._flights(origin_airport, destination_airport, departure_date, airlines):
            ret = next((b for b in back if b.airlines == out.airlines), None)
            if ret is not None:
                trips.append(dict(number_of_tickets=str(n), seating_class=cabin, origin_airport=out.origin_airport,
                                  destination_airport=out.destination_airport, departure_date=out.departure_date,
                                  return_date=ret.departure_date,
                                  is_nonstop=str(out.is_nonstop == ret.is_nonstop == "True"),
                                  outbound_departure_time=out.departure_time, outbound_arrival_time=out.arrival_time,
                                  inbound_arrival_time=ret.arrival_time, inbound_departure_time=ret.departure_time,
                                  price=self._fare(out, cabin, n) + self._fare(ret, cabin, n), airlines=out.airlines))
        return trips

    # -- Payment -------------------------------------------------------------------------------
    def _contact(self, receiver: str) -> str:
        contact = TableQuery(m.Contact).same("name", receiver).first(self.world)
        if contact is None:
            raise ToolError(f"{receiver!r} is not one of your contacts.")
        return contact.name

    @tool("Payment_makepayment", kind=ACTION, app="Payment")
    @returns("payment_method", "amount", "receiver", "private_visibility")
    def makepayment(self, payment_method: str, amount: str, receiver: str, private_visibility: str = "False") -> dict:
        """Send money to a contact.

        Args:
            payment_method: Source of the money: app balance, debit card or credit card.
            amount: Amount of money to send.
            receiver: Name of the contact to pay.
            private_visibility: Whether the transaction is private, True or False.
        """
        method = _choice("payment_method", payment_method, ("app balance", "debit card", "credit card"))
        value = _money("amount", amount)
        private = _choice("private_visibility", private_visibility, BOOL)
        name = self._contact(receiver)
        wallet = TableQuery(m.Wallet).where("payment_method", "=", method).first(self.world)
        if wallet is None or wallet.balance < value:
            raise ToolError(f"Not enough funds on {method} to pay {value:.2f}.")
        self._update(m.Wallet, wallet.id, balance=wallet.balance - value)
        self._insert(m.PaymentRecord, kind="payment", payment_method=method, amount=value, receiver=name,
                     private_visibility=private)
        return dict(payment_method=method, amount=value, receiver=name, private_visibility=private)

    @tool("Payment_requestpayment", kind=ACTION, app="Payment")
    @returns("amount", "receiver", "private_visibility")
    def requestpayment(self, receiver: str, amount: str, private_visibility: str = "False") -> dict:
        """Request money from a contact.

        Args:
            receiver: Name of the contact asked to pay.
            amount: Amount of money requested.
            private_visibility: Whether the transaction is private, True or False.
        """
        value = _money("amount", amount)
        private = _choice("private_visibility", private_visibility, BOOL)
        name = self._contact(receiver)
        self._insert(m.PaymentRecord, kind="request", payment_method=None, amount=value, receiver=name,
                     private_visibility=private)
        return dict(amount=value, receiver=name, private_visibility=private)

    # -- Music ---------------------------------------------------------------------------------
    @tool("Music_lookupmusic", kind=READ, app="Music")
    @returns("track", "artist", "album", "genre", "year")
    def lookupmusic(self, artist: str | None = None, album: str | None = None, genre: str | None = None,
                    year: str | None = None) -> list[dict]:
        """Look up songs by artist, album, genre or year.

        Args:
            artist: Performer of the song.
            album: Album of the song.
            genre: Genre of the song.
            year: Year of release.
        """
        query = TableQuery(m.Song)
        for attribute, value in (("artist", artist), ("album", album), ("genre", genre), ("year", year)):
            if value is not None:
                query.same(attribute, value)
        return [dict(track=x.track, artist=x.artist, album=x.album, genre=x.genre, year=x.year)
                for x in query.rows(self.world, "id")]

    @tool("Music_playmedia", kind=ACTION, app="Music")
    @returns("track", "artist", "album", "genre", "year", "device")
    def playmedia(self, track: str, artist: str | None = None, device: str = "Living room",
                  album: str | None = None) -> dict:
        """Play a song on a device.

        Args:
            track: Title of the song.
            artist: Performer of the song.
            device: Where to play: Living room, Kitchen or Patio.
            album: Album of the song.
        """
        where = _choice("device", device, ("Living room", "Kitchen", "Patio"))
        query = TableQuery(m.Song).same("track", track)
        if artist is not None:
            query.same("artist", artist)
        if album is not None:
            query.same("album", album)
        song = query.first(self.world, "id")
        if song is None:
            raise ToolError(f"No song {track!r} found.")
        self._insert(m.Playback, song_id=song.id, device=where)
        return dict(track=song.track, artist=song.artist, album=song.album, genre=song.genre, year=song.year,
                    device=where)

    # -- Weather -------------------------------------------------------------------------------
    @tool("Weather_getweather", kind=READ, app="Weather")
    @returns("precipitation", "humidity", "wind", "temperature", "city", "date")
    def getweather(self, city: str, date: str = REFERENCE_DATE) -> list[dict]:
        """Get the weather forecast of a city on a date.

        Args:
            city: City of the forecast.
            date: Date of the forecast, YYYY-MM-DD.
        """
        query = TableQuery(m.WeatherReport).same("city", city).where("date", "=", _check_date("date", date))
        return [dict(precipitation=x.precipitation, humidity=x.humidity, wind=x.wind, temperature=x.temperature,
                     city=x.city, date=x.date) for x in query.rows(self.world)]

    # -- Homes (distractor) --------------------------------------------------------------------
    @tool("Homes_findhomebyarea", kind=READ, app="Homes")
    @returns("intent", "area", "address", "property_name", "phone_number", "has_garage", "in_unit_laundry", "price",
             "number_of_beds", "number_of_baths")
    def findhomebyarea(self, area: str, intent: str, number_of_beds: str, number_of_baths: str,
                       has_garage: str | None = None, in_unit_laundry: str | None = None) -> list[dict]:
        """Find properties to rent or buy in an area.

        Args:
            area: City of the property.
            intent: rent or buy.
            number_of_beds: Number of bedrooms, 1 to 4.
            number_of_baths: Number of bathrooms, 1 to 4.
            has_garage: Whether it has a garage, True or False.
            in_unit_laundry: Whether it has in-unit laundry, True or False.
        """
        query = TableQuery(m.Property).same("area", area).where("intent", "=", _choice("intent", intent, ("rent", "buy")))
        query.where("number_of_beds", "=", str(_count("number_of_beds", number_of_beds, 1, 4)))
        query.where("number_of_baths", "=", str(_count("number_of_baths", number_of_baths, 1, 4)))
        if has_garage is not None:
            query.where("has_garage", "=", _choice("has_garage", has_garage, BOOL))
        if in_unit_laundry is not None:
            query.where("in_unit_laundry", "=", _choice("in_unit_laundry", in_unit_laundry, BOOL))
        return [dict(intent=x.intent, area=x.area, address=x.address, property_name=x.property_name,
                     phone_number=x.phone_number, has_garage=x.has_garage, in_unit_laundry=x.in_unit_laundry,
                     price=x.price, number_of_beds=x.number_of_beds, number_of_baths=x.number_of_baths)
                for x in query.rows(self.world, "price", "id")]

    @tool("Homes_schedulevisit", kind=ACTION, app="Homes")
    @returns("address", "property_name", "phone_number", "has_garage", "in_unit_laundry", "price", "visit_date",
             "number_of_beds", "number_of_baths")
    def schedulevisit(self, property_name: str, visit_date: str) -> dict:
        """Schedule a visit of a property.

        Args:
            property_name: Name of the property.
            visit_date: Date of the visit, YYYY-MM-DD.
        """
        day = _check_date("visit_date", visit_date)
        x = TableQuery(m.Property).same("property_name", property_name).first(self.world)
        if x is None:
            raise ToolError(f"No property named {property_name!r}.")
        self._insert(m.Visit, property_id=x.id, visit_date=day)
        return dict(address=x.address, property_name=x.property_name, phone_number=x.phone_number,
                    has_garage=x.has_garage, in_unit_laundry=x.in_unit_laundry, price=x.price, visit_date=day,
                    number_of_beds=x.number_of_beds, number_of_baths=x.number_of_baths)

    # -- Media (distractor) --------------------------------------------------------------------
    @tool("Media_findmovies", kind=READ, app="Media")
    @returns("title", "genre", "subtitle_language", "starring")
    def media_findmovies(self, genre: str, starring: str | None = None) -> list[dict]:
        """Find movies to stream by genre.

        Args:
            genre: Genre of the movie.
            starring: An actor of the movie.
        """
        query = TableQuery(m.Film).same("genre", genre)
        if starring is not None:
            query.same("starring", starring)
        return [dict(title=x.title, genre=x.genre, subtitle_language="English", starring=x.starring)
                for x in query.rows(self.world, "id")]

    @tool("Media_playmovie", kind=ACTION, app="Media")
    @returns("title", "genre", "subtitle_language", "starring")
    def playmovie(self, title: str, subtitle_language: str = "English") -> dict:
        """Stream a movie.

        Args:
            title: Title of the movie.
            subtitle_language: Subtitles: English, Spanish, Hindi or French.
        """
        language = _choice("subtitle_language", subtitle_language, ("English", "Spanish", "Hindi", "French"))
        x = TableQuery(m.Film).same("title", title).first(self.world)
        if x is None:
            raise ToolError(f"No movie titled {title!r}.")
        self._insert(m.FilmPlayback, film_id=x.id, subtitle_language=language)
        return dict(title=x.title, genre=x.genre, subtitle_language=language, starring=x.starring)


#: tool name -> the fields it returns.
RETURNS = {spec.name: getattr(AppBenchTools, spec.method_name).__returns__ for spec in AppBenchTools.specs.values()}
