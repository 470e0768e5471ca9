"""The Cat API world: seeded breeds and images, one account with favourites and votes."""

from __future__ import annotations

import base64
import hashlib
import random
import string
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select

from toolgym.worlds.base import World
from toolgym.worlds.catapi.data_model import Breed, CatBase, Favourite, Image, ImageBreed, Vote

API_KEY = "live_3xQmT9cYk2WvR7pLs4NdH8bZe6GuJ1fA"
USER_ID = "ser0tv"
MIME_TYPES = ("jpg", "png", "gif")

# The Cat API's breed ids, names and origins.
BREEDS = (
    ("abys", "Abyssinian", "Egypt"), ("aege", "Aegean", "Greece"), ("abob", "American Bobtail", "United States"),
    ("acur", "American Curl", "United States"), ("asho", "American Shorthair", "United States"),
    ("awir", "American Wirehair", "United States"), ("amau", "Arabian Mau", "United Arab Emirates"),
    ("amis", "Australian Mist", "Australia"), ("bali", "Balinese", "United States"),
    ("bamb", "Bambino", "United States"), ("beng", "Bengal", "United States"), ("birm", "Birman", "France"),
    ("bomb", "Bombay", "United States"), ("bslo", "British Longhair", "United Kingdom"),
    ("bsho", "British Shorthair", "United Kingdom"), ("bure", "Burmese", "Burma"),
    ("buri", "Burmilla", "United Kingdom"), ("cspa", "California Spangled", "United States"),
    ("ctif", "Chantilly-Tiffany", "United States"), ("char", "Chartreux", "France"),
    ("chau", "Chausie", "Egypt"), ("chee", "Cheetoh", "United States"),
    ("csho", "Colorpoint Shorthair", "United States"), ("crex", "Cornish Rex", "United Kingdom"),
    ("cymr", "Cymric", "Canada"), ("cypr", "Cyprus", "Cyprus"), ("drex", "Devon Rex", "United Kingdom"),
    ("dons", "Donskoy", "Russia"), ("lihu", "Dragon Li", "China"), ("emau", "Egyptian Mau", "Egypt"),
    ("ebur", "European Burmese", "Burma"), ("esho", "Exotic Shorthair", "United States"),
    ("hbro", "Havana Brown", "United Kingdom"), ("hima", "Himalayan", "United States"),
    ("jbob", "Japanese Bobtail", "Japan"), ("java", "Javanese", "United States"),
    ("khao", "Khao Manee", "Thailand"), ("kora", "Korat", "Thailand"), ("kuri", "Kurilian", "Russia"),
    ("lape", "LaPerm", "Thailand"), ("mcoo", "Maine Coon", "United States"),
    ("mala", "Malayan", "United Kingdom"), ("manx", "Manx", "Isle of Man"),
    ("munc", "Munchkin", "United States"), ("nebe", "Nebelung", "United States"),
    ("norw", "Norwegian Forest Cat", "Norway"), ("ocic", "Ocicat", "United States"),
    ("orie", "Oriental", "United States"), ("pers", "Persian", "Iran (Persia)"),
    ("pixi", "Pixie-bob", "United States"), ("raga", "Ragamuffin", "United States"),
    ("ragd", "Ragdoll", "United States"), ("rblu", "Russian Blue", "Russia"),
    ("sava", "Savannah", "United States"), ("sfol", "Scottish Fold", "United Kingdom"),
    ("srex", "Selkirk Rex", "United States"), ("siam", "Siamese", "Thailand"),
    ("sibe", "Siberian", "Russia"), ("sing", "Singapura", "Singapore"), ("snow", "Snowshoe", "United States"),
    ("soma", "Somali", "Somalia"), ("sphy", "Sphynx", "Canada"), ("tonk", "Tonkinese", "Canada"),
    ("toyg", "Toyger", "United States"), ("tang", "Turkish Angora", "Turkey"),
    ("tvan", "Turkish Van", "Turkey"), ("ycho", "York Chocolate", "United States"),
)


class CatWorld(World):
    """Breeds, about 1,100 images (most with a breed), and the account's favourites and votes.

    Args:
        url: SQLAlchemy URL of the database.
        seed: Seed of the generated images, favourites and votes.
        now: Start of the simulated clock.
        unbred_images: Number of images without a breed.
        favourites: Number of favourites the account starts with.
        votes: Number of votes the account starts with.
    """

    Base = CatBase

    def __init__(self, url: str = "sqlite://", seed: int = 0, now: datetime = datetime(2023, 9, 11, 9),
                 unbred_images: int = 250, favourites: int = 8, votes: int = 5):
        # Read by populate, which World.__init__ runs.
        self.initial_counts = {"unbred_images": unbred_images, "favourites": favourites, "votes": votes}
        super().__init__(url=url, seed=seed, now=now)
        self.aux.update(api_key=API_KEY, user_id=USER_ID)

    def generator_parameters(self) -> dict:
        return dict(self.initial_counts)

    def populate(self) -> None:
        unbred_images, favourites, votes = (self.initial_counts[k] for k in ("unbred_images", "favourites", "votes"))
        rng = random.Random(f"catapi-{self.seed}")
        with self.atomic():
            for breed_id, name, origin in BREEDS:
                low = rng.randint(8, 15)
                self.session.add(Breed(id=breed_id, name=name, origin=origin,
                                       life_span=f"{low} - {low + rng.randint(2, 5)}"))
            taken: set[str] = set()
            breeds = [b[0] for b in BREEDS for _ in range(rng.randint(10, 14))] + [None] * unbred_images
            rng.shuffle(breeds)
            images = []
            for seq, breed_id in enumerate(breeds, 1):
                image = self._new_image(rng, _new_id(rng, taken), seq)
                images.append(image)
                if breed_id is not None:
                    self.session.add(ImageBreed(image_id=image.id, breed_id=breed_id))
            chosen = rng.sample(images, favourites + votes)
            for k, image in enumerate(chosen[:favourites]):
                self.session.add(Favourite(id=232413500 + 7 * k, user_id=USER_ID, image_id=image.id,
                                           created_at=self._stamp(days_ago=favourites - k)))
            for k, image in enumerate(chosen[favourites:]):
                self.session.add(Vote(id=1045800 + 3 * k, user_id=USER_ID, image_id=image.id,
                                      value=rng.choice((1, -1)), country_code="US",
                                      created_at=self._stamp(days_ago=votes - k)))

    def _new_image(self, rng: random.Random, image_id: str, seq: int) -> Image:
        mime = rng.choices(MIME_TYPES, weights=(70, 12, 18))[0]
        image = Image(id=image_id, seq=seq, mime=mime, width=rng.randint(300, 1600), height=rng.randint(200, 1200))
        self.session.add(image)
        return image

    def _stamp(self, days_ago: int = 0) -> str:
        return (self.clock.now() - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def now_stamp(self) -> str:
        return self._stamp()

    # -- task setup ---------------------------------------------------------------------------
    def ensure_image(self, image_id: str) -> None:
        """Add an image with this id (breed-less, attributes derived from the id) if there is none."""
        with self.atomic():
            if self.session.get(Image, image_id) is None:
                seq = (self.session.scalar(select(func.max(Image.seq))) or 0) + 1
                rng = random.Random(hashlib.sha256(f"{self.seed}:{image_id}".encode()).digest())
                self._new_image(rng, image_id, seq)

    def ensure_favourite(self, image_id: str, present: bool) -> None:
        """Make the image one of the account's favourites, or not one."""
        self.ensure_image(image_id)
        with self.atomic():
            exists = self.session.scalar(select(Favourite).where(Favourite.image_id == image_id))
            if present and exists is None:
                self.session.add(Favourite(id=self.next_id(Favourite), user_id=USER_ID, image_id=image_id,
                                           created_at=self._stamp(days_ago=1)))
            elif not present and exists is not None:
                self.session.execute(delete(Favourite).where(Favourite.image_id == image_id))

    def next_id(self, table) -> int:
        return (self.session.scalar(select(func.max(table.id))) or 0) + 1


def _new_id(rng: random.Random, taken: set[str]) -> str:
    """An id in one of the real API's three styles: "dv0", "tF_6-Beo_" or "MTY3MzcxNA"."""
    while True:
        kind = rng.random()
        if kind < 0.6:
            image_id = "".join(rng.choices(string.ascii_lowercase + string.digits, k=rng.choice((2, 3, 3, 3))))
        elif kind < 0.85:
            image_id = "".join(rng.choices(string.ascii_letters + string.digits + "_-", k=9))
        else:
            image_id = base64.b64encode(str(rng.randint(1_000_000, 1_999_999)).encode()).decode().rstrip("=")
        if image_id not in taken:
            taken.add(image_id)
            return image_id
