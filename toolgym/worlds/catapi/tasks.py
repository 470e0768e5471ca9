"""Built-in Cat API tasks: the paper's six call types from query templates over the seeded world."""

from __future__ import annotations

import random
import re

from sqlalchemy import func, select

from toolgym.worlds.catapi import BREEDS, CatWorld
from toolgym.worlds.catapi.data_model import Image, ImageBreed
from toolgym.worlds.demos import Demo
from toolgym.worlds.rest.tasks import RestTask, TaskSet

BASE = "https://api.thecatapi.com/v1"
CALL_TYPES = ("delete_favourite", "add_favourite", "list_favourites", "vote_down", "vote_up", "search")
TEMPLATES = {
    "delete_favourite": ["Delete the cat image with id = {id} from my favorites.",
                         "Can you delete the picture with id {id} from my favorite pictures?",
                         "Please take out the image {id} from my favorites.",
                         "Remove {id} from my collection of favorites, please."],
    "add_favourite": ["Please add the image with id {id} to my favorites.", "Add {id} to my favorites, please.",
                      "Could you add the image with id={id} to my list of favorite images?",
                      "Please favorite {id} for me."],
    "list_favourites": ["List all my favorite cat images.", "Please show me the list of cats that are my favorites.",
                        "Can you give me a list of my favorite cat pictures?",
                        "I would like to see all the cat images I marked as favorites."],
    "vote_down": ["Please downvote the image with id {id}.", "The image {id} deserves a negative vote.",
                  "Vote down the cat image with id {id}.", "Please give the cat image with id {id} a negative rating."],
    "vote_up": ["Please upvote the image with id {id}.", "Vote up the image with id {id}.",
                "The picture with id {id} deserves to be voted up.", "Could you give the cat image {id} a thumbs up?"],
}
ORDER_WORDS = {"ASC": "ascending order", "DESC": "descending order", "RANDOM": "random order"}
_FAVOURITE_PATH = re.compile(r"/v1/favourites/([^/'\s]+)")
_IMAGE_ID = re.compile(r'"image_id"\s*:\s*"([^"]+)"')


def cat_setup(action: str) -> tuple[tuple[str, str], ...]:
    """What a Cat API ground truth presupposes: the image it deletes is a favourite, the
    image it adds is not one yet, the image it votes on exists. Empty for other APIs."""
    if "thecatapi.com" not in action:
        return ()
    if (m := _FAVOURITE_PATH.search(action)) and "DELETE" in action:
        return (("favourite", m.group(1)),)
    if (m := _IMAGE_ID.search(action)):
        return (("not_favourite" if "/v1/favourites" in action else "image", m.group(1)),)
    return ()


def builtin_catapi(world: CatWorld, seed: int = 0, per_type: int = 17, demos_per_type: int = 2) -> TaskSet:
    """``per_type`` tasks of each of the six call types (102 by default) and a demo pool.

    Image ids come from the seeded world; a task's setup says what it presupposes (the
    image to delete is a favourite, the image to add is not yet one).
    """
    image_ids = list(world.session.scalars(select(Image.id).order_by(Image.seq)))
    rng = random.Random(f"catapi-tasks-{seed}")
    tasks = {}
    for n in range(per_type * len(CALL_TYPES)):
        call_type = CALL_TYPES[n % len(CALL_TYPES)]
        query, action = _example(rng, call_type, image_ids, world)
        tasks[str(n)] = RestTask(task_id=str(n), query=query, action=action,
                                 compare_string_only=call_type == "delete_favourite", setup=cat_setup(action))
    demo_rng = random.Random(f"catapi-demos-{seed}")
    demos = []
    for call_type in CALL_TYPES:
        for _ in range(demos_per_type):
            demos.append(Demo(*_example(demo_rng, call_type, image_ids, world)))
    return TaskSet(tasks=tasks, demos=demos)


def _example(rng: random.Random, call_type: str, image_ids: list[str], world: CatWorld) -> tuple[str, str]:
    if call_type == "search":
        while True:  # a search that finds nothing would be a poor task
            example, breeds, mimes = _search(rng)
            if _matches(world, breeds, mimes):
                return example
    image_id = rng.choice(image_ids)
    query = rng.choice(TEMPLATES[call_type]).format(id=image_id)
    if call_type == "delete_favourite":
        return query, f"curl -X DELETE '{BASE}/favourites/{image_id}'"
    if call_type == "add_favourite":
        return query, f"curl -X POST '{BASE}/favourites' --data '{{\"image_id\":\"{image_id}\"}}'"
    if call_type == "list_favourites":
        return query, f"curl -X GET '{BASE}/favourites'"
    value = 1 if call_type == "vote_up" else -1
    return query, f"curl -X POST '{BASE}/votes' --data '{{\"image_id\":\"{image_id}\", \"value\":{value}}}'"


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _matches(world: CatWorld, breeds: list[str] | None, mimes: list[str] | None) -> int:
    query = select(func.count()).select_from(Image)
    if mimes:
        query = query.where(Image.mime.in_(mimes))
    if breeds:
        query = query.where(Image.id.in_(select(ImageBreed.image_id).where(ImageBreed.breed_id.in_(breeds))))
    return world.session.scalar(query)


def _search(rng: random.Random) -> tuple[tuple[str, str], list[str] | None, list[str] | None]:
    size = rng.choice((None, "small", "med", "full", "thumb"))
    mimes = rng.sample(("jpg", "png", "gif"), rng.randint(1, 3)) if rng.random() < 0.6 else None
    order = rng.choices(("ASC", "DESC", "RANDOM"), weights=(45, 45, 10))[0]
    limit = rng.randint(2, 14) if rng.random() < 0.85 else None
    breeds = [b[0] for b in rng.sample(BREEDS, rng.randint(1, 4))] if rng.random() < 0.85 else None
    params = []
    count = f"{limit} cat images" if limit else "a cat image"
    query = f"Find me {count}"
    if breeds:
        params_breeds = ",".join(breeds)
        query += " of the " + _either(breeds) + " breed"
    wishes = []
    if size:
        params.append(f"size={size}")
        wishes.append(f"in {size} size")
    if mimes:
        params.append(f"mime_types={','.join(mimes)}")
        wishes.append(f"with the {', '.join(mimes)} MIME type" + ("s" if len(mimes) > 1 else ""))
    params.append(f"order={order}")
    wishes.append(f"in {ORDER_WORDS[order]}")
    if limit:
        params.append(f"limit={limit}")
    if breeds:
        params.append(f"breeds={params_breeds}")
    query += ". Return " + ("them " if limit else "it ") + ", ".join(wishes) + "."
    return (query, f"curl -X GET '{BASE}/images/search?{'&'.join(params)}'"), breeds, mimes
