"""A symbolic VirtualHome household in SQLite, and the 40 actions with preconditions and effects.

The home is a graph: rooms, one object of each class of the vocabulary with its room, its
place (``inside`` or ``on`` another object, or nowhere in particular), its states (open,
on, plugged in, clean, what was poured into it) and the agent: its room, the objects it is
close to, what it faces, its posture (standing, sitting, lying), whether it sleeps, its two
hands and the clothes it wears. Actions follow VirtualHome's evolving-graph executor in
spirit: each checks its preconditions against the graph (grab needs the object close, a free
hand and no closed container around it; open needs an openable, closed object close by;
sitting needs a sittable object close by and a standing agent; ...) and, when they hold,
applies its effects. A failed precondition changes nothing and raises
:class:`PreconditionFailed`, whose message says which precondition and why.

Homes differ by ``seed``: where the movable objects lie (in which room, in or on what),
which appliances are unplugged, which dishes are dirty, which containers stand open.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from toolgym.worlds.base import Record, World
from toolgym.worlds.interpreter import ProgramError
from toolgym.worlds.virtualhome.vocabulary import ACTIONS, BODY_PARTS, OBJECTS, PROPERTIES, ROOMS, satisfies

#: Where each object usually is: room -> object names. Objects listed nowhere are movable
#: things placed in a seeded room.
_ROOM_OF: dict[str, str] = {}
for _room, _names in {
    "kitchen": "food_apple food_bread food_carrot food_cereal food_cheese food_chicken food_dessert food_egg food_fish "
               "food_food food_oatmeal food_pizza food_snack food_sugar food_turkey food_vegetable plate bowl cup fork "
               "knife chef_knife spoon pot sauce_pan dish_soap dishwasher dishrack freezer oven microwave toaster "
               "coffee coffee_cup coffee_filter coffee_maker coffee_pot ground_coffee cutting_board juice milk beer "
               "water water_glass drinking_glass kitchen_cabinet kitchen_counter sink faucet cupboard garbage_can "
               "dry_pasta pasta paper_towel sponge rag trashcan",
    "bathroom": "toilet toilet_paper shower bathtub bathroom_cabinet towel soap shampoo conditioner toothbrush razor "
                "face_soap mirror after_shave electric_shaver washing_machine laundry_detergent detergent "
                "basket_for_clothes drying_rack cleaning_solution cleaning_bottle mop mop_bucket",
    "bedroom": "bed pillow sheets dresser nightstand alarm_clock pajamas hanger clothes_dress clothes_hat clothes_jacket "
               "clothes_pants clothes_scarf clothes_shirt clothes_skirt clothes_socks clothes_underwear shoes purse bag "
               "spectacles",
    "home_office": "computer keyboard mouse mousepad desk filing_cabinet laptop fax_machine shredder folder check mail "
                   "address_book homework printing_paper bills headset creditcard coin keys",
    "living_room": "couch love_seat television remote_control coffee_table stereo cd_player floor_lamp console "
                   "video_game_console video_game_controller controller novel newspaper bookmark toy board_game cat dog "
                   "drawing picture bookshelf curtain window instrument_piano wall_clock man woman child light "
                   "light_bulb electrical_outlet button vacuum_cleaner broom duster dirt fly mat wall floor",
    "dining_room": "table chair centerpiece cloth_napkin napkin table_cloth",
}.items():
    for _name in _names.split():
        _ROOM_OF[_name] = _room
#: Small things whose room changes from home to home.
PORTABLE: frozenset[str] = frozenset(
    "novel newspaper phone remote_control cup check mail bookmark toy keys coin creditcard spectacles headset cat dog "
    "towel clothes_jacket shoes bag purse address_book homework folder drinking_glass water_glass coffee_cup "
    "cleaning_solution rag sponge broom duster vacuum_cleaner light_bulb pillow video_game_controller".split())
#: Dishes, which start clean or dirty.
_DISHES = frozenset("plate bowl cup fork knife spoon pot sauce_pan drinking_glass water_glass coffee_cup coffee_pot "
                    "cutting_board chef_knife".split())


_FURNITURE = frozenset({"person", "surface", "sittable", "lieable", "container"})


def room_of(name: str, seed: int) -> str | None:
    """The room object ``name`` starts in, in home ``seed`` (None for body parts)."""
    if name in BODY_PARTS:
        return None
    if name in PORTABLE or name not in _ROOM_OF:
        return random.Random(f"{seed}:room:{name}").choice(ROOMS)
    return _ROOM_OF[name]


@dataclass(frozen=True)
class Placement:
    """Where an object starts: its room, the object it is inside or on (if any), its states."""

    name: str
    room: str | None
    relation: str | None  # "inside" | "on"
    target: str | None
    is_open: bool | None
    is_on: bool | None
    plugged_in: bool | None
    clean: bool | None


def layout(seed: int) -> dict[str, Placement]:
    """The starting graph of home ``seed``: every object's room, place and states (pure)."""
    rooms = {name: room_of(name, seed) for name in OBJECTS}
    places: dict[str, Placement] = {}
    for name in OBJECTS:
        rng = random.Random(f"{seed}:place:{name}")
        props = PROPERTIES[name]
        room = rooms[name]
        relation = target = None
        if "grabbable" in props and room is not None and not props & _FURNITURE:
            here = [o for o in OBJECTS if rooms[o] == room and o != name and "grabbable" not in PROPERTIES[o]]
            containers = [o for o in here if "container" in PROPERTIES[o] and o not in ("toilet", "sink", "shredder",
                                                                                          "toaster", "garbage_can",
                                                                                          "trashcan", "oven")]
            surfaces = [o for o in here if "surface" in PROPERTIES[o] and o != "floor"]
            choice = rng.random()
            if containers and choice < 0.35 and "eatable" not in props or (containers and "clothes" in props):
                relation, target = "inside", rng.choice(containers)
            elif surfaces:
                relation, target = "on", rng.choice(surfaces)
        is_open = (rng.random() < 0.2) if "openable" in props else None
        is_on = False if "switchable" in props else None
        plugged = (rng.random() < 0.75) if "has_plug" in props else None
        clean = (rng.random() < 0.5) if name in _DISHES else (True if "grabbable" in props else None)
        places[name] = Placement(name, room, relation, target, is_open, is_on, plugged, clean)
    return places


class Base(DeclarativeBase):
    pass


class Room(Base, Record):
    __tablename__ = "vh_room"
    name: Mapped[str] = mapped_column(String, primary_key=True)


class Thing(Base, Record):
    """An object of the home: room, place, states; ``home_*`` keep where it started (PutBack)."""

    __tablename__ = "vh_object"
    name: Mapped[str] = mapped_column(String, primary_key=True)
    properties: Mapped[str] = mapped_column(String)
    room: Mapped[str | None] = mapped_column(String, nullable=True)
    relation: Mapped[str | None] = mapped_column(String, nullable=True)
    target: Mapped[str | None] = mapped_column(String, nullable=True)
    home_relation: Mapped[str | None] = mapped_column(String, nullable=True)
    home_target: Mapped[str | None] = mapped_column(String, nullable=True)
    home_room: Mapped[str | None] = mapped_column(String, nullable=True)
    is_open: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    is_on: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    plugged_in: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    clean: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    holds_liquid: Mapped[str | None] = mapped_column(String, nullable=True)
    held_in: Mapped[str | None] = mapped_column(String, nullable=True)  # "left" | "right"
    worn: Mapped[bool] = mapped_column(Boolean, default=False)


class Agent(Base, Record):
    __tablename__ = "vh_agent"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    room: Mapped[str] = mapped_column(String)
    posture: Mapped[str] = mapped_column(String)  # standing | sitting | lying
    seat: Mapped[str | None] = mapped_column(String, nullable=True)
    asleep: Mapped[bool] = mapped_column(Boolean, default=False)
    facing: Mapped[str | None] = mapped_column(String, nullable=True)


class Close(Base, Record):
    """An object the agent is close to."""

    __tablename__ = "vh_close"
    name: Mapped[str] = mapped_column(String, primary_key=True)


class Event(Base, Record):
    """An action whose effect is no state (Read, Watch, Drink, Greet, ...), for goals such as "has read"."""

    __tablename__ = "vh_event"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    action: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)


class PreconditionFailed(ProgramError):
    """An action whose preconditions do not hold; nothing changed."""


#: Facts a goal may name, as tuples: ("open", x), ("closed", x), ("on", x), ("plugged_in", x), ("clean", x),
#: ("inside", x, y), ("ontop", x, y), ("holds", x), ("wears", x), ("contains", x, liquid),
#: ("sitting_on", x), ("lying_on", x), ("asleep",), ("in_room", r), ("close", x),
#: ("facing", x), ("did", Action, x).
Fact = tuple


_BOOLEAN = frozenset({"is_open", "is_on", "plugged_in", "clean", "worn", "asleep"})


class _Row:
    """A row of ``vh_object`` or ``vh_agent`` held in memory; the world writes changed fields back."""

    __slots__ = ("_values", "_changed")

    def __init__(self, values: dict):
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_changed", set())

    def __getattr__(self, name: str):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value) -> None:
        if self._values[name] != value or type(self._values[name]) is not type(value):
            self._values[name] = value
            self._changed.add(name)


class _State:
    """The home as the actions see it: rows by name, the agent, what it is close to, events."""

    def __init__(self, things: dict[str, _Row], agent: _Row, close: set[str], events: list[tuple[str, str]]):
        self.things, self.agent, self.close, self.events = things, agent, close, events
        self.close_changed = False
        self.written_events = len(events)


def _rows(connection, table: str, columns: list[str], order: str = "") -> list[dict]:
    result = connection.execute(f"SELECT {', '.join(columns)} FROM {table}{order}")
    rows = []
    for values in result:
        row = dict(zip(columns, values))
        for key in _BOOLEAN.intersection(row):
            if row[key] is not None:
                row[key] = bool(row[key])
        rows.append(row)
    return rows


class VirtualHomeWorld(World):
    """One household (``seed`` picks the home) whose state the 40 actions read and change.

    The tables are the truth (snapshots, ``state_hash``); while an episode runs, the rows the
    actions touch are mirrored in memory and written back after each successful action, so an
    action costs a few SQL statements. A failed action writes nothing.
    """

    Base = Base
    generator_modules = ("toolgym.worlds.virtualhome.vocabulary",)
    _THING_COLUMNS = [c.name for c in Thing.__table__.columns]
    _AGENT_COLUMNS = [c.name for c in Agent.__table__.columns]

    def __init__(self, url: str = "sqlite://", seed: int = 0):
        self._state: _State | None = None
        self._restored = None
        self._templates: dict[int, tuple] = {}  # id(snapshot database) -> (snapshot, rows as read)
        super().__init__(url=url, seed=seed)

    def populate(self) -> None:
        session = self.session
        session.add_all(Room(name=room) for room in ROOMS)
        for name, place in layout(self.seed).items():
            session.add(Thing(name=name, properties=" ".join(sorted(PROPERTIES[name])), room=place.room,
                              relation=place.relation, target=place.target, home_relation=place.relation,
                              home_target=place.target, home_room=place.room, is_open=place.is_open,
                              is_on=place.is_on, plugged_in=place.plugged_in, clean=place.clean, worn=False))
        session.add(Agent(id=1, room=ROOMS[random.Random(f"{self.seed}:agent").randrange(len(ROOMS))],
                          posture="standing", seat=None, asleep=False, facing=None))
        session.commit()

    def restore(self, snap) -> None:
        super().restore(snap)
        self._state = None
        # Episodes restore the same few snapshots again and again: keep each one's rows as read.
        self._restored = snap

    # -- the in-memory mirror -----------------------------------------------------------------
    @property
    def state(self) -> _State:
        if self._state is None:
            snap, key = self._restored, id(getattr(self._restored, "database", None))
            cached = self._templates.get(key) if snap is not None else None
            if cached is None or cached[0] is not snap:
                connection = self.sql()
                things = _rows(connection, "vh_object", self._THING_COLUMNS)
                [agent] = _rows(connection, "vh_agent", self._AGENT_COLUMNS)
                close = {name for (name,) in connection.execute("SELECT name FROM vh_close")}
                events = [tuple(e) for e in connection.execute("SELECT action, name FROM vh_event ORDER BY id")]
                cached = (snap, things, agent, close, events)
                if snap is not None:
                    if len(self._templates) >= 16:
                        self._templates.clear()
                    self._templates[key] = cached
            _, things, agent, close, events = cached
            self._state = _State({row["name"]: _Row(dict(row)) for row in things}, _Row(dict(agent)), set(close),
                                 list(events))
        return self._state

    def _write(self) -> None:
        self._restored = None
        state = self._state
        connection = self.session.connection()
        for table, key, rows in (("vh_object", "name", state.things.values()), ("vh_agent", "id", [state.agent])):
            for row in rows:
                if row._changed:
                    fields = sorted(row._changed)
                    values = [row._values[f] for f in fields] + [row._values[key]]
                    connection.exec_driver_sql(
                        f"UPDATE {table} SET {', '.join(f'{f} = ?' for f in fields)} WHERE {key} = ?", tuple(values))
                    row._changed.clear()
        if state.close_changed:
            connection.exec_driver_sql("DELETE FROM vh_close")
            for name in sorted(state.close):
                connection.exec_driver_sql("INSERT INTO vh_close (name) VALUES (?)", (name,))
            state.close_changed = False
        for action, name in state.events[state.written_events:]:
            connection.exec_driver_sql("INSERT INTO vh_event (action, name) VALUES (?, ?)", (action, name))
        state.written_events = len(state.events)

    # -- reading ----------------------------------------------------------------------------
    def thing(self, name: str) -> _Row:
        return self.state.things[name]

    @property
    def agent(self) -> _Row:
        return self.state.agent

    def close_to(self) -> set[str]:
        return set(self.state.close)

    def _is_close(self, name: str) -> bool:
        return name in self.state.close

    def _set_close(self, names: list[str]) -> None:
        self.state.close = set(names)
        self.state.close_changed = True

    def held(self) -> dict[str, str]:
        """hand -> object held."""
        return {t.held_in: t.name for t in self.state.things.values() if t.held_in}

    def facts(self) -> frozenset[Fact]:
        """The state as facts (see :data:`Fact`)."""
        facts: set[Fact] = set()
        add = facts.add
        for v in (t._values for t in self.state.things.values()):
            name, is_open, relation = v["name"], v["is_open"], v["relation"]
            if is_open:
                add(("open", name))
            elif is_open is False:
                add(("closed", name))
            if v["is_on"]:
                add(("on", name))
            if v["plugged_in"]:
                add(("plugged_in", name))
            if v["clean"]:
                add(("clean", name))
            if relation == "inside":
                add(("inside", name, v["target"]))
            elif relation == "on":
                add(("ontop", name, v["target"]))
            if v["held_in"]:
                add(("holds", name))
            if v["worn"]:
                add(("wears", name))
            if v["holds_liquid"]:
                add(("contains", name, v["holds_liquid"]))
        agent = self.agent
        facts.add(("in_room", agent.room))
        if agent.posture == "sitting":
            facts.add(("sitting_on", agent.seat))
        elif agent.posture == "lying":
            facts.add(("lying_on", agent.seat))
        if agent.asleep:
            facts.add(("asleep",))
        if agent.facing:
            facts.add(("facing", agent.facing))
        facts.update(("close", name) for name in self.state.close)
        facts.update(("did", action, name) for action, name in self.state.events)
        return frozenset(facts)

    def where(self, name: str) -> str:
        """Where an object is, in words (for observations)."""
        t = self.thing(name)
        if t.held_in:
            return f"in the agent's {t.held_in} hand"
        if t.worn:
            return "worn by the agent"
        if t.room is None:
            return "part of the agent"
        place = f" {t.relation} the {t.target}" if t.relation else ""
        return f"in the {t.room}{place}"

    # -- acting -----------------------------------------------------------------------------
    def act(self, action: str, arguments: list[str]) -> str:
        """Run one action; the answer says what changed.

        Raises:
            PreconditionFailed: Unknown action or object, wrong arity, or a precondition that
                does not hold; the message says which. The world is unchanged.
        """
        spec = ACTIONS.get(action) if isinstance(action, str) else None
        if spec is None:
            raise PreconditionFailed(f"there is no action {str(action)[:60]!r}")
        if len(arguments) != spec.arity:
            raise PreconditionFailed(f"{action} takes {spec.arity} argument(s), got {len(arguments)}")
        for name, requirement in zip(arguments, spec.arguments):
            if not isinstance(name, str) or not (name in PROPERTIES or name in ROOMS):
                raise PreconditionFailed(f"there is no {str(name)[:60]!r} in this home")
            if not satisfies(name, requirement):
                what = {"room_or_object": "a room or an object", "object": "an object"}.get(requirement, requirement)
                raise PreconditionFailed(f"{name} is not {what}")
        agent = self.agent
        if agent.asleep and action != "WakeUp":
            raise PreconditionFailed("the agent is asleep; WakeUp first")
        try:
            message = getattr(self, f"_do_{action}")(agent, *arguments)
        except PreconditionFailed:
            self._state = None  # anything a failed action touched is read again from the tables
            raise
        self._write()
        return message

    # preconditions shared by many actions
    def _need_standing(self, agent: Agent, doing: str) -> None:
        if agent.posture != "standing":
            raise PreconditionFailed(f"the agent is {agent.posture} on the {agent.seat}; StandUp before {doing}")

    def _need_close(self, agent: Agent, name: str) -> Thing:
        thing = self.thing(name)
        if thing.room is None or thing.held_in or thing.worn:
            return thing
        if not self._is_close(name):
            raise PreconditionFailed(f"the agent is not close to the {name} ({self.where(name)}); WalkTo or Find it first")
        return thing

    def _need_same_room(self, agent: Agent, name: str) -> Thing:
        thing = self.thing(name)
        if thing.room is not None and not thing.held_in and not thing.worn and thing.room != agent.room:
            raise PreconditionFailed(f"the {name} is {self.where(name)}, not in the {agent.room} where the agent is")
        return thing

    def _need_held(self, name: str) -> Thing:
        thing = self.thing(name)
        if not thing.held_in:
            raise PreconditionFailed(f"the agent does not hold the {name} ({self.where(name)}); Grab it first")
        return thing

    def _free_hand(self) -> str:
        held = self.held()
        for hand in ("right", "left"):
            if hand not in held:
                return hand
        raise PreconditionFailed(f"both hands are full ({held['right']}, {held['left']}); put something down first")

    def _enclosed(self, thing: Thing) -> str | None:
        """The closed container ``thing`` is in, if any (through nesting)."""
        seen = set()
        while thing.relation and thing.target not in seen:
            seen.add(thing.target)
            outer = self.thing(thing.target)
            if thing.relation == "inside" and outer.is_open is False:
                return outer.name
            thing = outer
        return None

    def _event(self, action: str, name: str) -> None:
        self.state.events.append((action, name))

    def _move_to(self, agent: Agent, name: str, verb: str) -> str:
        self._need_standing(agent, "moving")
        if name in ROOMS:
            self._set_close([])
            agent.room, agent.facing = name, None
            return f"{verb}: the agent is in the {name}."
        thing = self.thing(name)
        if thing.room is None or thing.held_in or thing.worn:
            return f"{verb}: the {name} is already with the agent."
        agent.room, agent.facing = thing.room, None
        # close to an object is close to what holds it and to what it holds
        near = [name, *(t.name for t in self.state.things.values() if t.target == name)]
        self._set_close([*near, thing.target] if thing.relation and thing.target else near)
        return f"{verb}: the agent is in the {thing.room}, close to the {name} ({self.where(name)})."

    def _do_WalkTo(self, agent: Agent, name: str) -> str:
        return self._move_to(agent, name, "Walked")

    def _do_RunTo(self, agent: Agent, name: str) -> str:
        return self._move_to(agent, name, "Ran")

    def _do_Find(self, agent: Agent, name: str) -> str:
        # Standing, Find walks to the object (as in VirtualHome); seated, it reaches within the room.
        if agent.posture != "standing":
            self._need_same_room(agent, name)
            if not self._is_close(name):
                self._set_close([*self.state.close, name])
            return f"Found the {name} within reach ({self.where(name)})."
        return self._move_to(agent, name, "Found")

    def _look(self, agent: Agent, name: str, verb: str, face: bool = False) -> str:
        self._need_same_room(agent, name)
        if face:
            agent.facing = name
        return f"{verb} the {name}."

    def _do_TurnTo(self, agent: Agent, name: str) -> str:
        return self._look(agent, name, "Turned to", face=True)

    def _do_LookAt(self, agent: Agent, name: str) -> str:
        self._event("LookAt", name)
        return self._look(agent, name, "Looked at", face=True)

    def _do_PointAt(self, agent: Agent, name: str) -> str:
        self._event("PointAt", name)
        return self._look(agent, name, "Pointed at")

    def _do_Watch(self, agent: Agent, name: str) -> str:
        thing = self._need_same_room(agent, name)
        if thing.is_on is False:
            raise PreconditionFailed(f"the {name} is off; SwitchOn it first")
        agent.facing = name
        self._event("Watch", name)
        return f"Watched the {name}."

    def _do_Greet(self, agent: Agent, name: str) -> str:
        self._need_same_room(agent, name)
        self._event("Greet", name)
        return f"Greeted the {name}."

    def _touching(self, agent: Agent, name: str, action: str, verb: str) -> str:
        self._need_close(agent, name)
        self._event(action, name)
        return f"{verb} the {name}."

    def _do_Touch(self, agent: Agent, name: str) -> str:
        return self._touching(agent, name, "Touch", "Touched")

    def _do_Push(self, agent: Agent, name: str) -> str:
        return self._touching(agent, name, "Push", "Pushed")

    def _do_Pull(self, agent: Agent, name: str) -> str:
        return self._touching(agent, name, "Pull", "Pulled")

    def _do_TypeOn(self, agent: Agent, name: str) -> str:
        thing = self._need_close(agent, name)
        if thing.is_on is False and "switchable" in PROPERTIES[name] and name != "keyboard":
            raise PreconditionFailed(f"the {name} is off; SwitchOn it first")
        return self._touching(agent, name, "TypeOn", "Typed on")

    def _cleaning(self, agent: Agent, name: str, action: str, verb: str) -> str:
        thing = self._need_close(agent, name)
        if thing.clean is not None:
            thing.clean = True
        self._event(action, name)
        return f"{verb} the {name}; it is clean."

    def _do_Wash(self, agent: Agent, name: str) -> str:
        return self._cleaning(agent, name, "Wash", "Washed")

    def _do_Rinse(self, agent: Agent, name: str) -> str:
        return self._cleaning(agent, name, "Rinse", "Rinsed")

    def _do_Scrub(self, agent: Agent, name: str) -> str:
        return self._cleaning(agent, name, "Scrub", "Scrubbed")

    def _do_Wipe(self, agent: Agent, name: str) -> str:
        return self._cleaning(agent, name, "Wipe", "Wiped")

    def _do_Squeeze(self, agent: Agent, name: str) -> str:
        self._need_held(name)
        self._event("Squeeze", name)
        return f"Squeezed the {name}."

    def _do_Grab(self, agent: Agent, name: str) -> str:
        thing = self._need_close(agent, name)
        if thing.held_in:
            return f"The agent already holds the {name}."
        if thing.worn:
            raise PreconditionFailed(f"the agent wears the {name}; TakeOff it instead")
        closed = self._enclosed(thing)
        if closed:
            raise PreconditionFailed(f"the {name} is inside the closed {closed}; Open it first")
        hand = self._free_hand()
        thing.held_in, thing.relation, thing.target = hand, None, None
        return f"Grabbed the {name} with the {hand} hand."

    def _release(self, thing: Thing, room: str | None, relation: str | None, target: str | None) -> None:
        thing.held_in, thing.room, thing.relation, thing.target = None, room, relation, target

    def _do_Drop(self, agent: Agent, name: str) -> str:
        thing = self._need_held(name)
        self._release(thing, agent.room, "on", "floor")
        return f"Dropped the {name} on the floor of the {agent.room}."

    def _do_PutBack(self, agent: Agent, name: str) -> str:
        thing = self._need_held(name)
        if thing.home_target:
            container = self.thing(thing.home_target)
            if thing.home_relation == "inside" and container.is_open is False:
                raise PreconditionFailed(f"the {name} goes back inside the closed {container.name}; Open it first")
            if container.room != agent.room:
                raise PreconditionFailed(f"the {name} goes back {thing.home_relation} the {container.name} in the "
                                         f"{container.room}; the agent is in the {agent.room}")
        elif thing.home_room != agent.room:
            raise PreconditionFailed(f"the {name} goes back to the {thing.home_room}; the agent is in the {agent.room}")
        self._release(thing, thing.home_room, thing.home_relation, thing.home_target)
        return f"Put the {name} back ({self.where(name)})."

    def _do_Put(self, agent: Agent, name: str, surface: str) -> str:
        thing = self._need_held(name)
        if surface == name:
            raise PreconditionFailed(f"the {name} cannot go on itself")
        target = self._need_close(agent, surface)
        self._release(thing, target.room or agent.room, "on", surface)
        return f"Put the {name} on the {surface}."

    def _do_PutIn(self, agent: Agent, name: str, container: str) -> str:
        thing = self._need_held(name)
        if container == name:
            raise PreconditionFailed(f"the {name} cannot go in itself")
        target = self._need_close(agent, container)
        if target.is_open is False:
            raise PreconditionFailed(f"the {container} is closed; Open it first")
        self._release(thing, target.room or agent.room, "inside", container)
        return f"Put the {name} in the {container}."

    def _do_PutOn(self, agent: Agent, name: str) -> str:
        thing = self._need_held(name)
        thing.held_in, thing.worn, thing.room, thing.relation, thing.target = None, True, None, None, None
        return f"Put on the {name}."

    def _do_TakeOff(self, agent: Agent, name: str) -> str:
        thing = self.thing(name)
        if not thing.worn:
            raise PreconditionFailed(f"the agent does not wear the {name}")
        hand = self._free_hand()
        thing.worn, thing.held_in = False, hand
        return f"Took off the {name}; it is in the {hand} hand."

    def _openable(self, agent: Agent, name: str, want_open: bool) -> str:
        thing = self._need_close(agent, name)
        if thing.is_open == want_open:
            raise PreconditionFailed(f"the {name} is already {'open' if want_open else 'closed'}")
        if want_open and thing.is_on:
            raise PreconditionFailed(f"the {name} is on; SwitchOff it first")
        thing.is_open = want_open
        return f"{'Opened' if want_open else 'Closed'} the {name}."

    def _do_Open(self, agent: Agent, name: str) -> str:
        return self._openable(agent, name, True)

    def _do_Close(self, agent: Agent, name: str) -> str:
        return self._openable(agent, name, False)

    def _switch(self, agent: Agent, name: str, want_on: bool) -> str:
        thing = self._need_close(agent, name)
        if thing.is_on == want_on:
            raise PreconditionFailed(f"the {name} is already {'on' if want_on else 'off'}")
        if want_on and thing.plugged_in is False:
            raise PreconditionFailed(f"the {name} is unplugged; PlugIn it first")
        if want_on and thing.is_open and "container" in PROPERTIES[name]:
            raise PreconditionFailed(f"the {name} is open; Close it first")
        thing.is_on = want_on
        return f"Switched {'on' if want_on else 'off'} the {name}."

    def _do_SwitchOn(self, agent: Agent, name: str) -> str:
        return self._switch(agent, name, True)

    def _do_SwitchOff(self, agent: Agent, name: str) -> str:
        return self._switch(agent, name, False)

    def _do_PlugIn(self, agent: Agent, name: str) -> str:
        thing = self._need_close(agent, name)
        if thing.plugged_in:
            raise PreconditionFailed(f"the {name} is already plugged in")
        thing.plugged_in = True
        return f"Plugged in the {name}."

    def _do_PlugOut(self, agent: Agent, name: str) -> str:
        thing = self._need_close(agent, name)
        if not thing.plugged_in:
            raise PreconditionFailed(f"the {name} is not plugged in")
        thing.plugged_in = False
        if thing.is_on:
            thing.is_on = False
        return f"Unplugged the {name}."

    def _rest(self, agent: Agent, name: str, posture: str) -> str:
        self._need_standing(agent, "sitting down" if posture == "sitting" else "lying down")
        self._need_close(agent, name)
        agent.posture, agent.seat = posture, name
        return f"The agent is {posture} on the {name}."

    def _do_SitOn(self, agent: Agent, name: str) -> str:
        return self._rest(agent, name, "sitting")

    def _do_LieOn(self, agent: Agent, name: str) -> str:
        return self._rest(agent, name, "lying")

    def _do_StandUp(self, agent: Agent) -> str:
        if agent.posture == "standing":
            raise PreconditionFailed("the agent is already standing")
        agent.posture, agent.seat = "standing", None
        return "The agent stands."

    def _do_Sleep(self, agent: Agent) -> str:
        if agent.posture == "standing":
            raise PreconditionFailed("the agent is standing; SitOn or LieOn something first")
        agent.asleep = True
        return "The agent sleeps."

    def _do_WakeUp(self, agent: Agent) -> str:
        if not agent.asleep:
            raise PreconditionFailed("the agent is awake")
        agent.asleep = False
        return "The agent wakes up."

    def _do_Read(self, agent: Agent, name: str) -> str:
        self._need_held(name)
        self._event("Read", name)
        return f"Read the {name}."

    def _do_Drink(self, agent: Agent, name: str) -> str:
        thing = self._need_held(name)
        if "recipient" in PROPERTIES[name] and "drinkable" not in PROPERTIES[name] and not thing.holds_liquid:
            raise PreconditionFailed(f"the {name} is empty; Pour something into it first")
        thing.holds_liquid = None
        self._event("Drink", name)
        return f"Drank from the {name}."

    def _do_Eat(self, agent: Agent, name: str) -> str:
        self._need_close(agent, name)
        self._event("Eat", name)
        return f"Ate the {name}."

    def _do_Cut(self, agent: Agent, name: str) -> str:
        self._need_close(agent, name)
        knives = [o for o in self.held().values() if o in ("knife", "chef_knife")]
        if not knives:
            raise PreconditionFailed(f"cutting the {name} needs a knife in hand; Grab one first")
        self._event("Cut", name)
        return f"Cut the {name} with the {knives[0]}."

    def _do_Pour(self, agent: Agent, liquid: str, target: str) -> str:
        self._need_held(liquid)
        if target == liquid:
            raise PreconditionFailed(f"the {liquid} cannot be poured into itself")
        into = self._need_close(agent, target)
        if into.is_open is False:
            raise PreconditionFailed(f"the {target} is closed; Open it first")
        into.holds_liquid = liquid
        return f"Poured the {liquid} into the {target}."
