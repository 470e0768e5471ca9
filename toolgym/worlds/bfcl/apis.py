"""The BFCL multi-turn APIs this package implements, by BFCL class name."""

from __future__ import annotations

from toolgym.worlds.bfcl.api import BfclAPI
from toolgym.worlds.bfcl.gorilla_file_system import GorillaFileSystem
from toolgym.worlds.bfcl.math_api import MathAPI
from toolgym.worlds.bfcl.message_api import MessageAPI
from toolgym.worlds.bfcl.posting_api import TwitterAPI
from toolgym.worlds.bfcl.ticket_api import TicketAPI
from toolgym.worlds.bfcl.trading_bot import TradingBot
from toolgym.worlds.bfcl.travel_booking import TravelAPI
from toolgym.worlds.bfcl.vehicle_control import VehicleControlAPI

#: BFCL class name -> implementation. Tasks naming a class outside it cannot run yet.
API_CLASSES: dict[str, type[BfclAPI]] = {cls.class_name: cls for cls in (GorillaFileSystem, MathAPI, MessageAPI, TicketAPI, TradingBot, TravelAPI, TwitterAPI, VehicleControlAPI)}

#: Every BFCL multi-turn class and its function-doc file in ``multi_turn_func_doc/``.
DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system", "MathAPI": "math_api", "MessageAPI": "message_api",
    "TwitterAPI": "posting_api", "TicketAPI": "ticket_api", "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking", "VehicleControlAPI": "vehicle_control",
}


def make_instances(involved_classes: list[str], initial_config: dict,
                   long_context: bool) -> dict[str, BfclAPI]:
    """Fresh instances of the involved APIs loaded from ``initial_config`` (BFCL's _load_scenario)."""
    instances = {}
    for name in involved_classes:
        instance = API_CLASSES[name]()
        if not instance.stateless:
            instance.load_scenario(initial_config.get(name, {}), long_context=long_context)
        instances[name] = instance
    return instances
