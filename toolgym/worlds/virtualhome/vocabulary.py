"""VirtualHome's vocabulary as toolgym writes it: the 40 actions of the ToolBench task and the objects.

Facts, not files: the action names and arities are those of the SambaNova ToolBench VirtualHome
task (Xu et al. 2023, appendix A.6), which writes the language-planner corpus (Huang et al.
2022) as ``Agent.<Action>(<object>)`` lines; the object names are the corpus's, and each
object's properties are VirtualHome's (Puig et al. 2018) in toolgym's own lower-case names
(``CAN_OPEN`` is ``openable``, ``HAS_SWITCH`` is ``switchable``, ``CONTAINERS`` is
``container``, ``SURFACES`` is ``surface``; ``coffee_maker``, absent from VirtualHome's table,
is switchable, openable, has a plug and holds liquid).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The rooms of every toolgym home.
ROOMS: tuple[str, ...] = ("bathroom", "bedroom", "dining_room", "home_office", "kitchen", "living_room")

#: object -> its properties (space-separated), for every object of the corpus.
_PROPERTIES: dict[str, str] = {
    "address_book": "cuttable grabbable has_paper movable openable readable",
    "after_shave": "cream grabbable movable openable pourable",
    "alarm_clock": "grabbable has_plug lookable movable switchable",
    "bag": "container cover grabbable movable openable recipient",
    "basket_for_clothes": "container grabbable movable openable",
    "bathroom_cabinet": "container openable surface",
    "bathtub": "lieable sittable",
    "bed": "lieable sittable surface",
    "beer": "drinkable grabbable movable openable pourable",
    "bills": "cuttable grabbable has_paper movable readable",
    "board_game": "grabbable lookable movable surface",
    "bookmark": "grabbable has_paper movable",
    "bookshelf": "container surface",
    "bowl": "grabbable movable recipient",
    "broom": "grabbable movable",
    "brush": "grabbable movable",
    "button": "grabbable movable",
    "cat": "grabbable movable",
    "cd_player": "grabbable has_plug movable openable surface switchable",
    "centerpiece": "cover grabbable lookable movable",
    "chair": "grabbable movable sittable surface",
    "check": "grabbable has_paper movable readable",
    "chef_knife": "grabbable movable",
    "child": "person",
    "cleaning_bottle": "grabbable movable openable pourable",
    "cleaning_solution": "grabbable movable pourable",
    "cloth_napkin": "cover cuttable grabbable has_paper movable",
    "clothes_dress": "clothes grabbable hangable movable",
    "clothes_hat": "clothes grabbable hangable movable",
    "clothes_jacket": "clothes grabbable hangable movable",
    "clothes_pants": "clothes grabbable hangable movable",
    "clothes_scarf": "clothes grabbable hangable movable",
    "clothes_shirt": "clothes grabbable hangable movable",
    "clothes_skirt": "clothes grabbable hangable movable",
    "clothes_socks": "clothes grabbable hangable movable",
    "clothes_underwear": "clothes grabbable hangable movable",
    "coffee": "drinkable grabbable movable pourable",
    "coffee_cup": "grabbable movable pourable recipient",
    "coffee_filter": "grabbable has_paper movable",
    "coffee_maker": "has_plug openable recipient switchable",
    "coffee_pot": "grabbable movable openable recipient",
    "coffee_table": "movable surface",
    "coin": "grabbable movable",
    "computer": "lookable switchable",
    "conditioner": "cream grabbable movable pourable",
    "console": "grabbable has_plug movable openable switchable",
    "controller": "grabbable has_plug movable",
    "couch": "lieable movable sittable surface",
    "creditcard": "grabbable movable",
    "cup": "grabbable movable pourable recipient",
    "cupboard": "container openable",
    "curtain": "cover movable openable",
    "cutting_board": "grabbable movable surface",
    "desk": "movable openable surface",
    "detergent": "grabbable movable pourable",
    "dirt": "grabbable movable pourable",
    "dish_soap": "cream grabbable movable pourable",
    "dishrack": "grabbable movable surface",
    "dishwasher": "container openable switchable",
    "dog": "grabbable movable",
    "drawing": "cuttable grabbable has_paper lookable movable",
    "dresser": "container openable",
    "drinking_glass": "grabbable movable pourable recipient",
    "dry_pasta": "grabbable movable",
    "drying_rack": "surface",
    "duster": "grabbable movable",
    "electric_shaver": "grabbable has_plug movable switchable",
    "electrical_outlet": "switchable",
    "face": "body_part",
    "face_soap": "cream grabbable movable pourable",
    "faucet": "switchable",
    "fax_machine": "has_plug switchable",
    "filing_cabinet": "container openable surface",
    "floor": "surface",
    "floor_lamp": "movable switchable",
    "fly": "",
    "folder": "container grabbable has_paper movable openable readable",
    "food_apple": "cuttable eatable grabbable movable",
    "food_bread": "cuttable eatable grabbable movable",
    "food_carrot": "cuttable eatable grabbable movable",
    "food_cereal": "eatable grabbable movable openable pourable",
    "food_cheese": "cream cuttable eatable grabbable movable",
    "food_chicken": "cuttable eatable grabbable movable",
    "food_dessert": "cuttable eatable grabbable movable",
    "food_egg": "cuttable eatable grabbable movable",
    "food_fish": "cuttable eatable grabbable movable",
    "food_food": "cuttable eatable grabbable movable",
    "food_oatmeal": "eatable grabbable movable",
    "food_pizza": "cuttable eatable grabbable movable",
    "food_snack": "eatable grabbable movable",
    "food_sugar": "eatable grabbable movable pourable",
    "food_turkey": "cuttable eatable grabbable movable",
    "food_vegetable": "cuttable eatable grabbable movable",
    "fork": "grabbable movable",
    "freezer": "container has_plug openable switchable",
    "garbage_can": "container movable openable",
    "ground_coffee": "grabbable movable openable",
    "hair": "body_part cuttable grabbable movable",
    "hands_both": "body_part",
    "hanger": "grabbable hangable movable",
    "headset": "clothes grabbable movable",
    "homework": "grabbable has_paper movable readable",
    "instrument_piano": "",
    "juice": "drinkable grabbable movable pourable",
    "keyboard": "grabbable has_plug movable",
    "keys": "grabbable movable",
    "kitchen_cabinet": "container openable surface",
    "kitchen_counter": "surface",
    "knife": "grabbable movable",
    "laptop": "grabbable has_plug lookable movable switchable",
    "laundry_detergent": "grabbable movable pourable",
    "light": "has_plug switchable",
    "light_bulb": "grabbable movable switchable",
    "love_seat": "lieable movable sittable surface",
    "mail": "grabbable has_paper movable openable readable",
    "man": "person",
    "mat": "grabbable lieable movable sittable surface",
    "microwave": "container has_plug openable switchable",
    "milk": "drinkable grabbable movable openable pourable",
    "mirror": "",
    "mop": "grabbable movable",
    "mop_bucket": "grabbable movable recipient",
    "mouse": "grabbable has_plug movable",
    "mousepad": "movable surface",
    "napkin": "cover grabbable has_paper movable",
    "newspaper": "cover grabbable has_paper movable openable readable",
    "nightstand": "container openable surface",
    "novel": "cuttable grabbable has_paper movable openable readable",
    "oven": "container has_plug openable switchable",
    "pajamas": "clothes grabbable movable",
    "paper_towel": "cover cuttable grabbable hangable has_paper movable",
    "pasta": "grabbable movable pourable",
    "phone": "grabbable has_plug movable switchable",
    "picture": "grabbable hangable has_paper movable",
    "pillow": "grabbable movable",
    "plate": "grabbable movable recipient surface",
    "pot": "grabbable movable openable recipient",
    "printing_paper": "cuttable grabbable has_paper movable",
    "purse": "container cover grabbable movable openable recipient",
    "rag": "cover grabbable movable recipient",
    "razor": "grabbable movable",
    "remote_control": "grabbable movable switchable",
    "sauce_pan": "container grabbable movable recipient surface",
    "shampoo": "grabbable movable openable pourable",
    "sheets": "cover grabbable movable",
    "shoes": "clothes grabbable movable",
    "shower": "",
    "shredder": "container has_plug switchable",
    "sink": "container recipient",
    "soap": "cream grabbable movable",
    "spectacles": "clothes grabbable movable",
    "sponge": "grabbable movable",
    "spoon": "grabbable movable",
    "stereo": "grabbable has_plug movable openable surface switchable",
    "table": "movable surface",
    "table_cloth": "cover grabbable movable surface",
    "television": "has_plug lookable switchable",
    "toaster": "container has_plug movable switchable",
    "toilet": "container openable sittable",
    "toilet_paper": "cover cuttable grabbable hangable has_paper movable",
    "toothbrush": "grabbable movable recipient",
    "towel": "cover grabbable movable",
    "toy": "grabbable movable",
    "trashcan": "container movable openable",
    "vacuum_cleaner": "grabbable has_plug movable switchable",
    "video_game_console": "has_plug movable openable switchable",
    "video_game_controller": "grabbable has_plug movable switchable",
    "wall": "",
    "wall_clock": "grabbable has_plug lookable movable switchable",
    "washing_machine": "container has_plug openable recipient switchable",
    "water": "drinkable pourable",
    "water_glass": "grabbable movable pourable recipient",
    "window": "openable",
    "woman": "person",
}
PROPERTIES: dict[str, frozenset[str]] = {name: frozenset(p.split()) for name, p in _PROPERTIES.items()}
OBJECTS: tuple[str, ...] = tuple(sorted(PROPERTIES))
#: Body parts are always at hand: they are in no room and the agent is always close to them.
BODY_PARTS: frozenset[str] = frozenset(o for o, p in PROPERTIES.items() if "body_part" in p)
#: Objects one types on.
TYPEABLE: frozenset[str] = frozenset({"keyboard", "phone", "laptop", "computer"})


@dataclass(frozen=True)
class ActionSpec:
    """One action: its name, what each argument must be, and its documentation.

    ``arguments`` holds one requirement per argument: ``"room_or_object"`` (any room or
    object), ``"object"`` (any object) or a property the object must have (``"grabbable"``,
    ``"container"``, ...; ``"typeable"`` is :data:`TYPEABLE`, ``"drinkable_or_recipient"``
    and ``"recipient_or_container"`` either property).
    """

    name: str
    arguments: tuple[str, ...]
    doc: str

    @property
    def arity(self) -> int:
        return len(self.arguments)


_A = ActionSpec
ACTIONS: dict[str, ActionSpec] = {a.name: a for a in (
    _A("Close", ("openable",), "Close an open object the agent is close to."),
    _A("Cut", ("cuttable",), "Cut food the agent is close to, holding a knife."),
    _A("Drink", ("drinkable_or_recipient",), "Drink from a held cup or glass, or a held drink."),
    _A("Drop", ("grabbable",), "Drop a held object on the floor of the current room."),
    _A("Eat", ("eatable",), "Eat food the agent is close to."),
    _A("Find", ("object",), "Find an object: the agent walks to it and is then close to it."),
    _A("Grab", ("grabbable",), "Grab an object the agent is close to, with a free hand; not from a closed container."),
    _A("Greet", ("person",), "Greet a person in the same room."),
    _A("LieOn", ("lieable",), "Lie on an object the agent is close to, while standing."),
    _A("LookAt", ("object",), "Look at an object in the same room."),
    _A("Open", ("openable",), "Open a closed object the agent is close to."),
    _A("PlugIn", ("has_plug",), "Plug in an unplugged appliance the agent is close to."),
    _A("PlugOut", ("has_plug",), "Unplug a plugged-in appliance the agent is close to; it switches off."),
    _A("PointAt", ("object",), "Point at an object in the same room."),
    _A("Pour", ("pourable", "recipient_or_container"), "Pour a held liquid into an object the agent is close to."),
    _A("Pull", ("object",), "Pull an object the agent is close to."),
    _A("Push", ("object",), "Push an object the agent is close to."),
    _A("Put", ("grabbable", "surface"), "Put a held object on a surface the agent is close to."),
    _A("PutBack", ("grabbable",), "Put a held object back where it was first found."),
    _A("PutIn", ("grabbable", "container"), "Put a held object in a container the agent is close to (open, if it opens)."),
    _A("PutOn", ("clothes",), "Put on held clothes."),
    _A("Read", ("readable",), "Read a held object."),
    _A("Rinse", ("object",), "Rinse an object the agent is close to (or a body part)."),
    _A("RunTo", ("room_or_object",), "Run to a room or an object, as WalkTo."),
    _A("Scrub", ("object",), "Scrub an object the agent is close to (or a body part); it becomes clean."),
    _A("SitOn", ("sittable",), "Sit on an object the agent is close to, while standing."),
    _A("Sleep", (), "Sleep, sitting or lying."),
    _A("Squeeze", ("grabbable",), "Squeeze a held object."),
    _A("StandUp", (), "Stand up from sitting or lying."),
    _A("SwitchOff", ("switchable",), "Switch off an appliance the agent is close to."),
    _A("SwitchOn", ("switchable",), "Switch on an appliance the agent is close to; one with a plug must be plugged in."),
    _A("TakeOff", ("clothes",), "Take off worn clothes into a free hand."),
    _A("Touch", ("object",), "Touch an object the agent is close to."),
    _A("TurnTo", ("object",), "Turn to an object in the same room; the agent faces it."),
    _A("TypeOn", ("typeable",), "Type on a keyboard or phone the agent is close to."),
    _A("WakeUp", (), "Wake up."),
    _A("WalkTo", ("room_or_object",), "Walk to a room, or to an object, which the agent is then close to; standing only."),
    _A("Wash", ("object",), "Wash an object the agent is close to (or a body part); it becomes clean."),
    _A("Watch", ("lookable",), "Watch an object in the same room, facing it; a switchable one must be on."),
    _A("Wipe", ("object",), "Wipe an object the agent is close to (or a body part); it becomes clean."),
)}


def satisfies(name: str, requirement: str) -> bool:
    """Whether the room or object ``name`` may be an argument with ``requirement``."""
    if requirement == "room_or_object":
        return name in ROOMS or name in PROPERTIES
    properties = PROPERTIES.get(name)
    if properties is None:
        return False
    if requirement == "object":
        return True
    if requirement == "typeable":
        return name in TYPEABLE
    if "_or_" in requirement:
        return any(r in properties for r in requirement.split("_or_"))
    return requirement in properties


def argument_names(arity: int) -> list[str]:
    """The names of an action's object arguments: ``object``, or ``object1``, ``object2``."""
    return ["object"] if arity == 1 else [f"object{i + 1}" for i in range(arity)]


def valid_object_lists() -> dict[str, dict[str, list[str]]]:
    """The arguments each action accepts, in the released evaluator's format:
    ``{"Agent.Grab": {"object": [...]}, "Agent.Put": {"object1": [...], "object2": [...]}, "Agent.Sleep": {}}``."""
    names = (*ROOMS, *OBJECTS)
    lists: dict[str, dict[str, list[str]]] = {}
    for spec in ACTIONS.values():
        lists[f"Agent.{spec.name}"] = {key: [n for n in names if satisfies(n, req)]
                                       for key, req in zip(argument_names(spec.arity), spec.arguments)}
    return lists
