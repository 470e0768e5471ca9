"""The 15 functions of the Home Search API (Xu et al. 2023, appendix A.3) over the listings table.

Each setter records one search criterion as given; the order rule of the original decides
what is allowed: ``set_location`` first, then ``set_buy_or_rent``, then any other criterion,
then ``search``. ``search`` fills in the defaults (minimum price 0, minimum square feet 0)
and returns the listings that match the criteria.
"""

from __future__ import annotations

import sqlite3
from numbers import Real
from typing import Any

from toolgym.worlds.api_programs.toolkit import ProgramToolkit
from toolgym.worlds.homesearch.data_model import BUY_HOME_TYPES, RENT_HOME_TYPES, Listing
from toolgym.worlds.tools import ACTION, READ, ToolError, tool

APP = "HomeSearch"
MAX_RESULTS = 5
_COLUMNS = tuple(column.name for column in Listing.__table__.columns)  # a listing's keys, in table order
# criterion -> (listing column, comparison) for the numeric filters of search()
NUMERIC_FILTERS = {
    "min_price": ("price", ">="), "max_price": ("price", "<="),
    "min_square_feet": ("square_feet", ">="), "max_square_feet": ("square_feet", "<="),
    "num_beds": ("num_beds", ">="), "num_baths": ("num_baths", ">="),
    "num_garages": ("num_garages", ">="), "num_swimming_pools": ("num_swimming_pools", ">="),
    "floor_number": ("floor_number", "=="), "max_commute_time": ("commute_time", "<="),
    "num_balconies": ("num_balconies", ">="),
}


class HomeSearchAPI(ProgramToolkit):
    """``API`` of the Home Search programs."""

    def _require_buy_or_rent(self) -> None:
        if "buy_or_rent" not in self.criteria:
            raise ToolError("didn't call set_buy_or_rent before setting other criterion")

    def _set(self, key: str, value: Any) -> None:
        self._require_buy_or_rent()
        self.criteria[key] = value

    @tool("set_location", kind=ACTION, app=APP)
    def set_location(self, value: str) -> None:
        """To set the location for the search area. Call it first.

        Args:
            value: The city to search in, e.g. "Palo Alto".
        """
        if self.criteria:
            raise ToolError("didn't call set_location before setting other criterion")
        self.criteria["location"] = value

    @tool("set_buy_or_rent", kind=ACTION, app=APP)
    def set_buy_or_rent(self, value: str) -> None:
        """To specify whether to search homes for buying or renting. 'value' can be chosen from
        ['buy', 'rent']. Call it right after set_location.

        Args:
            value: "buy" or "rent".
        """
        if value not in ("buy", "rent"):
            raise ToolError("invalid value for set_buy_or_rent")
        if "location" not in self.criteria:
            raise ToolError("didn't call set_location before calling set_buy_or_rent")
        if len(self.criteria) != 1:
            raise ToolError("didn't call set_buy_or_rent before setting other criterion")
        self.criteria["buy_or_rent"] = value

    @tool("select_home_type", kind=ACTION, app=APP)
    def select_home_type(self, home_types: list[str]) -> None:
        """To set home types for search. For home buying, home_types choices are: "House",
        "Townhouse", "Condo", "Land", "Multi-family", "Mobile", "Co-op"; for home renting,
        home_types choices are: "House", "Townhouse", "Condo", "Apartment".

        Args:
            home_types: The home types to search for.
        """
        if not isinstance(home_types, (list, tuple)) or not all(isinstance(t, str) for t in home_types):
            raise ToolError("home_types must be a list of strings")
        lowered = sorted(t.lower() for t in home_types)
        if lowered:
            self._require_buy_or_rent()
        allowed = RENT_HOME_TYPES if self.criteria.get("buy_or_rent") == "rent" else BUY_HOME_TYPES
        for home_type in lowered:
            if home_type not in allowed:
                kind = "rent" if allowed is RENT_HOME_TYPES else "buy"
                raise ToolError(f"Specified invalid '{kind}' home type(s) for select_home_type")
        self.criteria["home_type"] = ",".join(lowered)

    @tool("set_min_price", kind=ACTION, app=APP)
    def set_min_price(self, value: int) -> None:
        """To set the minimum home price in dollars.

        Args:
            value: The minimum price.
        """
        self._set("min_price", value)

    @tool("set_max_price", kind=ACTION, app=APP)
    def set_max_price(self, value: int) -> None:
        """To set the maximum home price in dollars.

        Args:
            value: The maximum price.
        """
        self._set("max_price", value)

    @tool("set_min_square_feet", kind=ACTION, app=APP)
    def set_min_square_feet(self, value: int) -> None:
        """To set the minimum home size in square feet.

        Args:
            value: The minimum size.
        """
        self._set("min_square_feet", value)

    @tool("set_max_square_feet", kind=ACTION, app=APP)
    def set_max_square_feet(self, value: int) -> None:
        """To set the maximum home size in square feet.

        Args:
            value: The maximum size.
        """
        self._set("max_square_feet", value)

    @tool("set_num_beds", kind=ACTION, app=APP)
    def set_num_beds(self, value: int) -> None:
        """To set the number of bedroom(s).

        Args:
            value: The number of bedrooms.
        """
        self._set("num_beds", value)

    @tool("set_num_baths", kind=ACTION, app=APP)
    def set_num_baths(self, value: float) -> None:
        """To set the number of bathroom(s).

        Args:
            value: The number of bathrooms (halves allowed, e.g. 1.5).
        """
        self._set("num_baths", value)

    @tool("set_num_garages", kind=ACTION, app=APP)
    def set_num_garages(self, value: int) -> None:
        """To set the number of garage(s).

        Args:
            value: The number of garages.
        """
        self._set("num_garages", value)

    @tool("set_num_swimming_pools", kind=ACTION, app=APP)
    def set_num_swimming_pools(self, value: int) -> None:
        """To set the number of swimming pool(s).

        Args:
            value: The number of swimming pools.
        """
        self._set("num_swimming_pools", value)

    @tool("set_floor_number", kind=ACTION, app=APP)
    def set_floor_number(self, value: int) -> None:
        """To set the floor number.

        Args:
            value: The floor.
        """
        self._set("floor_number", value)

    @tool("set_max_commute_time", kind=ACTION, app=APP)
    def set_max_commute_time(self, value: int) -> None:
        """To set the max commute time.

        Args:
            value: The commute time in minutes.
        """
        self._set("max_commute_time", value)

    @tool("set_num_balconies", kind=ACTION, app=APP)
    def set_num_balconies(self, value: int) -> None:
        """To set the number of balconies.

        Args:
            value: The number of balconies.
        """
        self._set("num_balconies", value)

    @tool("search", kind=READ, app=APP)
    def search(self) -> dict:
        """Submit criterion to get search results.
        """
        self._fill_defaults({"min_price": 0, "min_square_feet": 0})
        return search_listings(self.world.sql(), self.criteria)


def search_listings(db: sqlite3.Connection, criteria: dict) -> dict:
    """The listings that match ``criteria``: the count and the cheapest ``MAX_RESULTS``.

    A criterion whose value is not a number (or not a known word) matches no listing. Plain
    SQL on the world's connection: counting the matches as ORM objects was most of a search.
    """
    nothing = {"num_results": 0, "listings": []}
    location = criteria.get("location")
    if not isinstance(location, str):
        return nothing
    clauses, parameters = ["city = ?"], [location.strip().title()]
    for key in ("buy_or_rent", "home_type"):
        if key not in criteria:
            continue
        wanted = criteria[key].split(",") if isinstance(criteria[key], str) else []
        if not wanted:
            return nothing
        if wanted != [""]:
            clauses.append(f"{key} IN ({', '.join('?' * len(wanted))})")
            parameters += wanted
    for key, (column, op) in NUMERIC_FILTERS.items():
        if key not in criteria:
            continue
        value = criteria[key]
        if not isinstance(value, Real) or isinstance(value, bool):
            return nothing
        clauses.append(f"{column} {'=' if op == '==' else op} ?")
        parameters.append(value)
    where = " AND ".join(clauses)
    (count,) = db.execute(f"SELECT count(*) FROM listings WHERE {where}", parameters).fetchone()
    rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM listings WHERE {where} ORDER BY price, id LIMIT ?",
                      [*parameters, MAX_RESULTS]).fetchall()
    return {"num_results": count, "listings": [dict(zip(_COLUMNS, row)) for row in rows]}
