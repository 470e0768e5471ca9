"""The AppBench world: a phone whose apps share one seeded database.

Cities and dates are shared by all apps (March 2019, the paper's reference date is
2019-03-01), so a plan can book a restaurant and then a cab to its address, or a train and
then the weather at the destination.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from toolgym.worlds.appbench import data_model as m
from toolgym.worlds.appbench.plan import Call, Ref, Value, literal
from toolgym.worlds.appbench.tools import APPS, KEYWORD_ARGUMENTS, RETURNS, AppBenchTools, sql_table
from toolgym.worlds.base import World
from toolgym.worlds.tools import ToolResult

CITIES = ("San Francisco", "Los Angeles", "San Diego", "Sacramento", "San Jose", "Fresno", "Anaheim", "Seattle",
          "Portland", "Las Vegas")
RAIL_CITIES = CITIES[:7]  # California: trains and buses run between these
DAYS = tuple((date(2019, 3, 1) + timedelta(days=i)).isoformat() for i in range(21))
CUISINES = ("Italian", "Mexican", "Korean", "Chinese", "Indian", "Thai", "Japanese", "American")
CARS = {"Hatchback": ("Honda Fit", "Ford Fiesta", "Volkswagen Golf"), "Sedan": ("Toyota Camry", "Honda Accord",
        "Nissan Altima"), "SUV": ("Toyota RAV4", "Jeep Cherokee", "Ford Escape")}
GENRES = ("Action", "Comedy", "Drama", "Horror", "Fantasy", "Animation")
MUSIC_GENRES = ("Pop", "Rock", "Jazz", "Country", "Hip Hop")
ATTRACTIONS = ("Museum", "Park", "Theme Park", "Historical Landmark", "Place of Worship", "Shopping Area",
               "Nature Preserve", "Tourist Attraction")
AIRLINES = ("United Airlines", "American Airlines", "Delta Airlines", "Southwest Airlines", "Alaska Airlines")
DIRECTORS = ("Ava Reyes", "Martin Cole", "Sofia Lang", "Peter Hale", "Nora Quinn")
CONTACTS = ("Alice", "Bob", "Charlie", "Diana", "Emma", "Frank", "Grace", "Henry", "Isabella", "Jack")
#: Tables that transactional APIs write; their rows are a plan's effects on the world.
EFFECT_TABLES = (m.CarReservation, m.Ride, m.HouseBooking, m.Appointment, m.TableReservation, m.MovieTicket,
                 m.TrainTicket, m.EventTicket, m.BusTicket, m.PaymentRecord, m.Playback, m.Visit, m.FilmPlayback)

_EFFECT_QUERIES = tuple(
    (t.__tablename__, "SELECT " + ", ".join(f'"{c.name}"' for c in t.__table__.columns if c.name != "id")
     + f' FROM "{t.__tablename__}"') for t in EFFECT_TABLES)


@dataclass
class Executed:
    """One call of a plan as executed: the call with references resolved, and its outcome."""

    call: Call
    arguments: dict[str, str]
    result: ToolResult


class AppBenchWorld(World):
    """All apps' tables, generated from ``seed``; :meth:`call` routes an API through an app."""

    Base = m.AppBase

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        super().__init__(url=url, seed=seed, now=datetime(2019, 3, 1, 9))
        self.tools = AppBenchTools(self)

    # -- routing -------------------------------------------------------------------------------
    @staticmethod
    def apis_of(app: str) -> dict[str, str]:
        """API name -> tool name, for one app."""
        return dict(_apis_of(app))

    @staticmethod
    def route(app: str, api: str) -> tuple[str | None, str | None]:
        """The tool that runs ``api`` through ``app``, or an error saying why none does."""
        if isinstance(app, str) and isinstance(api, str):
            return _route(app, api)
        return _route.__wrapped__(app, api)  # names from JSON may be any value: their messages show them as they are

    # -- calls ---------------------------------------------------------------------------------
    def call(self, app: str, api: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one API through an app; a refused or failing call changes nothing."""
        tool_name, error = self.route(app, api)
        if tool_name is None:
            return ToolResult(name=f"{app}.{api}", arguments=dict(arguments), error=error, known=False)
        hidden = set(KEYWORD_ARGUMENTS.values()) & set(arguments)
        if hidden:
            return ToolResult(name=tool_name, arguments=dict(arguments),
                              error=f"Invalid arguments for {tool_name}: {', '.join(sorted(hidden))}: unexpected argument")
        args = {KEYWORD_ARGUMENTS.get(k, k): literal(v) if isinstance(v, (int, float, bool)) else v
                for k, v in arguments.items()}
        result = self.tools.call(tool_name, args)
        result.arguments = dict(arguments)
        if result.error:
            for public, private in KEYWORD_ARGUMENTS.items():
                result.error = result.error.replace(f"{private}:", f"{public}:").replace(f"'{private}'", f"'{public}'")
        return result

    def execute(self, call: Call, history: list[Executed], reads: dict | None = None) -> Executed:
        """Run a plan step: resolve its references against earlier results, then call the API.

        ``reads``: results of read-only calls on the world as it is now, by app, API and
        arguments; a call found there is not run again, a read-only call run is added."""
        arguments, problems = {}, []
        for key, value in call.arguments.items():
            resolved = resolve(value, history)
            if resolved is None:  # only a reference can fail to resolve
                problems.append(f"reference {value} of argument {key!r}: no earlier successful call "
                                f"returned a field {str(value)[1:]!r}")
            else:
                arguments[key] = resolved
        if problems:
            result = ToolResult(name=f"{call.app}.{call.api}", arguments=dict(arguments), error="; ".join(problems))
        elif reads is None:
            result = self.call(call.app, call.api, arguments)
        else:
            asked = (call.app, call.api, tuple(arguments.items()))
            result = reads.get(asked)
            if result is None:
                result = self.call(call.app, call.api, arguments)
                if not result.is_action:
                    reads[asked] = result
        return Executed(call=call, arguments=arguments, result=result)

    def execute_plan(self, calls: list[Call], reads: dict | None = None) -> list[Executed]:
        """Run a plan's calls in order. ``reads`` (see :meth:`execute`) serves the calls made
        before the plan's first write: the world is still as it was when they were kept."""
        history: list[Executed] = []
        for call in calls:
            history.append(self.execute(call, history, reads))
            if reads is not None and history[-1].result.is_action and history[-1].result.ok:
                reads = None
        return history

    def effects(self) -> Counter:
        """The rows that transactional APIs wrote (without their ids), as a multiset."""
        self.session.flush()
        raw = self.sql()  # plain SQL: these reads need no objects, and run twice per episode
        rows: Counter = Counter()
        for table, query in _EFFECT_QUERIES:
            for row in raw.execute(query):
                rows[(table, row)] += 1
        return rows

    # -- generation ----------------------------------------------------------------------------
    def populate(self) -> None:
        """Generate every app's rows from the world's seed (seconds; the base class builds once)."""
        rng = self.rng("generate")
        from faker import Faker  # imported here: only generating needs it, and it is slow to import

        fake = Faker("en_US")
        fake.seed_instance(self.seed)
        unique = fake.unique
        rows: dict[type, list[dict]] = {}

        def add(table: type, **values: Any) -> None:
            rows.setdefault(table, []).append(values)

        def phone() -> str:
            return f"{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"

        def address(city: str) -> str:
            return f"{rng.randint(1, 9999)} {fake.street_name()}, {city}"

        def flag(p: float = 0.5) -> str:
            return str(rng.random() < p)

        for city in CITIES:
            for location in (f"{city} International Airport", f"{city} Downtown Station"):
                for kind, names in CARS.items():
                    for name in rng.sample(names, 2):
                        add(m.RentalCar, city=city, pickup_location=location, car_type=kind, car_name=name,
                            price_per_day=rng.randint(25, 90))
            for _ in range(5):
                add(m.House, where_to=city, address=address(city), phone_number=phone(),
                    rating=round(rng.uniform(3.0, 4.9), 1), max_adults=rng.randint(2, 5),
                    price_per_night=rng.randint(60, 300), has_laundry_service=flag())
            for _ in range(4):
                add(m.Stylist, stylist_name=f"{unique.last_name()} {rng.choice(['Salon', 'Hair Studio', 'Barbers'])}",
                    city=city, street_address=address(city), phone_number=phone(),
                    average_rating=round(rng.uniform(3.0, 5.0), 1), is_unisex=flag())
            for kind in ("Psychologist", "Family Counselor", "Psychiatrist"):
                for _ in range(2):
                    add(m.Therapist, therapist_name=f"Dr. {unique.first_name()} {fake.last_name()}", city=city,
                        type=kind, address=address(city), phone_number=phone())
            for _ in range(12):
                add(m.Restaurant, restaurant_name=f"{unique.last_name()} {rng.choice(['Kitchen', 'Grill', 'Bistro', 'House', 'Table'])}",
                    location=city, category=rng.choice(CUISINES),
                    price_range=rng.choice(("cheap", "moderate", "pricey", "ultra high-end")),
                    has_seating_outdoors=flag(), has_vegetarian_options=flag(), phone_number=phone(),
                    rating=round(rng.uniform(3.0, 5.0), 1), address=address(city), seats=rng.choice((40, 60, 80)))
            for _ in range(6):
                add(m.Attraction, location=city, attraction_name=f"{unique.last_name()} {rng.choice(ATTRACTIONS)}",
                    category=rng.choice(ATTRACTIONS), phone_number=phone(), free_entry=flag(), good_for_kids=flag())
            for day in DAYS:
                add(m.WeatherReport, city=city, date=day, precipitation=rng.randint(0, 80),
                    humidity=rng.randint(20, 95), wind=rng.randint(0, 30), temperature=rng.randint(45, 85))
            for _ in range(4):
                add(m.Property, area=city, intent=rng.choice(("rent", "buy")), property_name=f"{unique.last_name()} Apartments",
                    address=address(city), phone_number=phone(), number_of_beds=str(rng.randint(1, 4)),
                    number_of_baths=str(rng.randint(1, 3)), has_garage=flag(), in_unit_laundry=flag(),
                    price=rng.randint(1500, 6000))
            for kind in ("Music", "Theater"):
                for _ in range(4):
                    name = (f"{unique.last_name()} {rng.choice(['Band', 'Quartet', 'Live', 'Orchestra'])}" if kind == "Music"
                            else f"The {unique.last_name()} {rng.choice(['Play', 'Musical', 'Story'])}")
                    venue = f"{fake.last_name()} {rng.choice(['Hall', 'Theatre', 'Arena'])}"
                    add(m.Event, event_type=kind, event_name=name, date=rng.choice(DAYS),
                        time=f"{rng.randint(17, 21)}:{rng.choice(['00', '30'])}", price_per_ticket=rng.randint(20, 150),
                        city=city, venue=venue, venue_address=address(city), tickets_left=rng.randint(10, 40))

        titles = [f"{fake.unique.word().title()} {rng.choice(['Rising', 'Returns', 'Forever', 'Island', 'Night'])}"
                  for _ in range(14)]
        movie_genre = {t: rng.choice(GENRES) for t in titles}
        for city in CITIES:
            for _ in range(2):
                theater = f"{unique.last_name()} Cinema"
                street = address(city)
                for title in rng.sample(titles, 4):
                    show_type = rng.choice(("regular", "3d", "imax"))
                    times = sorted(rng.sample(["14:00", "16:30", "18:00", "19:30", "21:00"], 2))
                    for day in DAYS[:14]:
                        for at in times:
                            add(m.Showing, movie_name=title, genre=movie_genre[title], theater_name=theater,
                                street_address=street, location=city, show_type=show_type, show_date=day,
                                show_time=at, price=rng.randint(10, 20), seats_left=rng.randint(10, 60))
        for title in titles:
            add(m.MovieReview, movie_title=title, genre=movie_genre[title], percent_rating=rng.randint(40, 99),
                cast=fake.name(), directed_by=rng.choice(DIRECTORS))
        for origin in RAIL_CITIES:
            for destination in RAIL_CITIES:
                if origin == destination:
                    continue
                for day in DAYS[:14]:
                    for at in sorted(rng.sample(["06:10", "08:40", "11:20", "14:50", "17:30", "20:15"], 2)):
                        add(m.Train, from_city=origin, to_city=destination, from_station=f"{origin} Union Station",
                            to_station=f"{destination} Union Station", date_of_journey=day, journey_start_time=at,
                            fare_value=rng.randint(30, 120), seats_left=rng.randint(6, 30))
                    for at in sorted(rng.sample(["07:00", "09:30", "12:15", "15:45", "18:20", "22:00"], 2)):
                        add(m.Bus, from_city=origin, to_city=destination, from_station=f"{origin} Bus Terminal",
                            to_station=f"{destination} Bus Terminal", departure_date=day, departure_time=at,
                            price=rng.randint(15, 60), category=rng.choice(("direct", "one-stop")),
                            seats_left=rng.randint(6, 30))
        for origin in CITIES:
            for destination in CITIES:
                if origin == destination:
                    continue
                for day in DAYS:
                    for airline in rng.sample(AIRLINES, 2):
                        hour = rng.randint(6, 20)
                        add(m.Flight, origin_airport=origin, destination_airport=destination, departure_date=day,
                            departure_time=f"{hour:02d}:{rng.choice(['00', '15', '30', '45'])}",
                            arrival_time=f"{min(hour + rng.randint(1, 5), 23):02d}:{rng.choice(['05', '20', '50'])}",
                            airlines=airline, is_nonstop=flag(0.6), economy_price=rng.randint(80, 450))
        for name in CONTACTS:
            add(m.Contact, name=name)
        for method, balance in (("app balance", 800.0), ("debit card", 3000.0), ("credit card", 5000.0)):
            add(m.Wallet, payment_method=method, balance=balance)
        artists = [fake.unique.name() for _ in range(10)]
        for artist in artists:
            genre = rng.choice(MUSIC_GENRES)
            album = f"{fake.unique.word().title()} {rng.choice(['Days', 'Dreams', 'Lights', 'Roads'])}"
            year = str(rng.randint(2010, 2019))
            for _ in range(3):
                add(m.Song, track=f"{fake.unique.word().title()} {rng.choice(['Song', 'Love', 'Heart', 'Sky'])}",
                    artist=artist, album=album, genre=genre, year=year)
        for _ in range(12):
            add(m.Film, title=f"{fake.unique.word().title()} {rng.choice(['Story', 'Legacy', 'Code'])}",
                genre=rng.choice(GENRES), starring=fake.name())
        for model, values in rows.items():  # in plain SQL: SQLAlchemy's insert binds each row's values again
            names = tuple(values[0])
            self.sql().executemany(sql_table(model).insert(names), [tuple(row[k] for k in names) for row in values])


@functools.lru_cache(maxsize=64)
def _apis_of(app: str) -> dict[str, str]:
    """API name -> tool name, for one app (built once: prompts, schemas and routing ask often; not to be changed)."""
    return {spec.name.split("_", 1)[1]: spec.name for spec in AppBenchTools.specs.values() if spec.app == app}


@functools.lru_cache(maxsize=1024)
def _route(app: Any, api: Any) -> tuple[str | None, str | None]:
    """:meth:`AppBenchWorld.route`, kept for the names asked often (every call of a plan asks; a
    route depends on the names only)."""
    apps = {a.lower(): a for a in APPS}
    owner_app = apps.get(str(app).strip().lower())
    name = str(api).strip().lower()
    owners = [spec.app for spec in AppBenchTools.specs.values() if spec.name.split("_", 1)[1].lower() == name]
    if owner_app is None:
        return None, f"Unknown app {app!r}. The apps are: {', '.join(APPS)}."
    tool_name = next((t for a, t in _apis_of(owner_app).items() if a.lower() == name), None)
    if tool_name is not None:
        return tool_name, None
    if owners:
        return None, (f"Permission denied: API {api!r} belongs to app {' / '.join(owners)}; it cannot be run "
                      f"through {owner_app}.")
    return None, f"App {owner_app} has no API {api!r}. Its APIs: {', '.join(AppBenchWorld.apis_of(owner_app))}."


def resolve(value: Value, history: list[Executed]) -> str | None:
    """A literal as is; a reference as the field of the latest earlier result that has it
    (the top row of a search)."""
    if not isinstance(value, Ref):
        return value
    for done in reversed(history):
        response = done.result.response
        if not done.result.ok:
            continue
        row = response[0] if isinstance(response, list) and response else response
        if isinstance(row, dict) and value.field in row:
            return literal(row[value.field])
    return None


def returned_fields(call: Call) -> tuple[str, ...]:
    """The fields an API returns (its declared returns when the API is unknown)."""
    tool_name, _ = AppBenchWorld.route(call.app, call.api)
    return RETURNS[tool_name] if tool_name else call.returns
