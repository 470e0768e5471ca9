"""The BFCL multi-turn APIs this package implements, by BFCL class name."""

from __future__ import annotations

import functools
import json
from collections import OrderedDict

from toolgym.worlds.bfcl.api import BfclAPI
from toolgym.worlds.bfcl.gorilla_file_system import GorillaFileSystem
from toolgym.worlds.bfcl.math_api import MathAPI
from toolgym.worlds.bfcl.message_api import MessageAPI
from toolgym.worlds.bfcl.posting_api import TwitterAPI
from toolgym.worlds.bfcl.ticket_api import TicketAPI
from toolgym.worlds.bfcl.trading_bot import TradingBot
from toolgym.worlds.bfcl.travel_booking import TravelAPI
from toolgym.worlds.bfcl.vehicle_control import VehicleControlAPI
from toolgym.worlds.base import Snapshot
from toolgym.worlds.bfcl.world import BfclWorld, TableAPI

#: BFCL class name -> implementation. Tasks naming a class outside it cannot run yet.
API_CLASSES: dict[str, type[BfclAPI]] = {cls.class_name: cls for cls in (GorillaFileSystem, MathAPI, MessageAPI, TicketAPI, TradingBot, TravelAPI, TwitterAPI, VehicleControlAPI)}

#: Every BFCL multi-turn class and its function-doc file in ``multi_turn_func_doc/``.
DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system", "MathAPI": "math_api", "MessageAPI": "message_api",
    "TwitterAPI": "posting_api", "TicketAPI": "ticket_api", "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking", "VehicleControlAPI": "vehicle_control",
}


#: Recently loaded scenarios (:meth:`BfclWorld.scenario`), most recent last. An
#: episode loads its task twice (the model's world and the ground truth's), and an evaluation often
#: again under another scoring; writing a loaded scenario's rows back is cheaper than loading it
#: again (:meth:`BfclWorld.restore_rows`: the connection keeps its schema and prepared statements).
_LOADED: OrderedDict[str, tuple[Snapshot, dict[str, list[tuple]]]] = OrderedDict()
LOADED_SCENARIOS = 16
#: Worlds handed back by ended episodes (:func:`release_instances`), taken by the next ones: a new
#: world's engine, session and connection cost more than an episode's first calls, and a kept
#: connection keeps its schema and prepared statements (rows are written back, never an image).
_SPARE_WORLDS: list[BfclWorld] = []
SPARE_WORLDS = 8


def make_instances(involved_classes: list[str], initial_config: dict,
                   long_context: bool) -> dict[str, BfclAPI]:
    """Fresh instances of the involved APIs loaded from ``initial_config`` (BFCL's _load_scenario).

    Those that keep their state in tables share one new :class:`BfclWorld`.
    """
    try:
        key = json.dumps([involved_classes, initial_config, long_context])
    except (TypeError, ValueError):  # not JSON (a hand-made config): loaded every time
        key = None
    loaded = _LOADED.get(key) if key is not None else None
    instances = {}
    world = None
    for name in involved_classes:
        cls = API_CLASSES[name]
        if issubclass(cls, TableAPI):
            world = world or _take_world(empty=loaded is None)
            instance = cls(world)
            if loaded is not None:
                instance._take_up(long_context)
            else:
                instance.load_scenario(initial_config.get(name, {}), long_context=long_context)
        else:  # without state: nothing to load (BFCL's STATELESS_CLASSES)
            instance = cls()
        instances[name] = instance
    if world is not None and key is not None:
        if loaded is not None:
            world.restore_rows(*loaded)
            _LOADED.move_to_end(key)
        else:
            _LOADED[key] = world.scenario()
            while len(_LOADED) > LOADED_SCENARIOS:
                _LOADED.popitem(last=False)
    return instances


def _take_world(empty: bool) -> BfclWorld:
    """A world for a new set of instances: a kept one (emptied when ``empty``: a scenario is loaded
    into it; otherwise the caller restores one over it), or a new one."""
    try:
        world = _SPARE_WORLDS.pop()
    except IndexError:
        return BfclWorld()
    if empty:
        world.restore_rows(_empty_world(), {})
    return world


@functools.cache
def _empty_world() -> Snapshot:
    """An empty world's snapshot, taken once: a kept world is emptied to it for a new scenario."""
    return BfclWorld().snapshot()


def release_instances(instances: dict[str, BfclAPI]) -> None:
    """Hand back the world of instances that will not be used again (an ended episode's), for
    :func:`make_instances` to reuse; the instances must not be called after."""
    worlds = {id(api._world): api._world for api in instances.values() if isinstance(api, TableAPI)}
    for world in worlds.values():
        world.rollback()
        if len(_SPARE_WORLDS) < SPARE_WORLDS:
            _SPARE_WORLDS.append(world)
        else:
            world.close()
