"""The Cat API endpoints as typed tools, with the real API's response shapes.

Success bodies are JSON (a list of images or favourites, or ``{"message": "SUCCESS", ...}``);
errors are plain-text bodies such as ``"INVALID_IMAGE"`` with a 4xx status, as the real API
sends them.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select

from toolgym.worlds.catapi.data_model import Breed, Favourite, Image, ImageBreed, Vote
from toolgym.worlds.catapi.world import MIME_TYPES, CatWorld
from toolgym.worlds.rest.service import ApiError
from toolgym.worlds.tools import ACTION, READ, Toolkit, tool

APP = "TheCatAPI"
Size = Literal["thumb", "small", "med", "full"]
MAX_SIDE = {"thumb": 200, "small": 500, "med": 800}  # "full" keeps the original size
ORDERS = ("RANDOM", "ASC", "DESC")
MAX_LIMIT = 100
MAX_PAGE = 100_000


def error_body(status: int, message: str) -> str:
    return message


class CatTools(Toolkit):
    """Image search, favourites and votes of one account."""

    world: CatWorld

    @tool("search_images", kind=READ, app=APP, injected=("api_key",))
    def search_images(self, api_key: str | None, size: Size = "med", mime_types: str | None = None,
                      order: str = "RANDOM", limit: int = 1, page: int = 0,
                      breeds: str | None = None) -> list[dict]:
        """Search cat images.

        Args:
            api_key: The caller's API key (the ``x-api-key`` header); optional here.
            size: Image size: "thumb", "small", "med" or "full".
            mime_types: Comma-separated image types among "jpg", "png" and "gif" (all by default).
            order: "RANDOM" (default), "ASC" or "DESC" (by upload order).
            limit: Number of images to return (1 to 100).
            page: Page of results for ASC / DESC order, from 0.
            breeds: Comma-separated breed ids, e.g. "beng,abys": images of any of these breeds.
        """
        if api_key is not None:
            self._check_key(api_key)
        order = order.upper()
        if order not in ORDERS:
            raise ApiError(400, f"INVALID_ORDER - order must be one of {', '.join(ORDERS)}")
        if not 1 <= limit <= MAX_LIMIT:
            raise ApiError(400, f"INVALID_LIMIT - limit must be between 1 and {MAX_LIMIT}")
        if not 0 <= page <= MAX_PAGE:
            raise ApiError(400, f"INVALID_PAGE - page must be between 0 and {MAX_PAGE}")
        query = select(Image).order_by(Image.seq.desc() if order == "DESC" else Image.seq)
        if mime_types is not None:
            wanted = {m.strip().lower() for m in mime_types.split(",") if m.strip()}
            unknown = sorted(wanted - set(MIME_TYPES))
            if unknown or not wanted:
                raise ApiError(400, f"INVALID_MIME_TYPES - {', '.join(unknown) or 'none given'}: "
                                    f"use jpg, png or gif")
            query = query.where(Image.mime.in_(sorted(wanted)))
        if breeds is not None:
            wanted_breeds = sorted({b.strip().lower() for b in breeds.split(",") if b.strip()})
            of_breeds = select(ImageBreed.image_id).where(ImageBreed.breed_id.in_(wanted_breeds))
            query = query.where(Image.id.in_(of_breeds))
        if order == "RANDOM":
            candidates = list(self.world.session.scalars(query))
            rng = self.world.rng("image_search")
            images = rng.sample(candidates, min(limit, len(candidates)))
        else:
            images = list(self.world.session.scalars(query.offset(page * limit).limit(limit)))
        return [self._image(image, size) for image in images]

    @tool("list_favourites", kind=READ, app=APP, injected=("api_key",))
    def list_favourites(self, api_key: str | None, sub_id: str | None = None, limit: int = 100,
                        page: int = 0) -> list[dict]:
        """The account's favourite images, oldest first.

        Args:
            api_key: The caller's API key (the ``x-api-key`` header).
            sub_id: Only the favourites saved with this sub id.
            limit: Number of favourites per page (1 to 100).
            page: Page, from 0.
        """
        self._check_key(api_key)
        if not 1 <= limit <= MAX_LIMIT or not 0 <= page <= MAX_PAGE:
            raise ApiError(400, f"INVALID_PAGINATION - limit must be 1 to {MAX_LIMIT} and page 0 to {MAX_PAGE}")
        query = select(Favourite).where(Favourite.user_id == self.world.aux["user_id"])
        if sub_id is not None:
            query = query.where(Favourite.sub_id == sub_id)
        favourites = self.world.session.scalars(query.order_by(Favourite.id).offset(page * limit).limit(limit))
        return [{"id": f.id, "user_id": f.user_id, "image_id": f.image_id, "sub_id": f.sub_id,
                 "created_at": f.created_at,
                 "image": {"id": f.image_id, "url": self._url(self.world.session.get(Image, f.image_id))}}
                for f in favourites]

    @tool("add_favourite", kind=ACTION, app=APP, injected=("api_key",))
    def add_favourite(self, api_key: str | None, image_id: str, sub_id: str | None = None) -> dict:
        """Add an image to the account's favourites.

        Args:
            api_key: The caller's API key (the ``x-api-key`` header).
            image_id: Id of the image.
            sub_id: Optional label of the favourite, e.g. a user of your app.
        """
        self._check_key(api_key)
        self._image_row(image_id)
        user = self.world.aux["user_id"]
        duplicate = self.world.session.scalar(select(Favourite).where(
            Favourite.user_id == user, Favourite.image_id == image_id, Favourite.sub_id == sub_id))
        if duplicate is not None:
            raise ApiError(400, "DUPLICATE_FAVOURITE - favourites are unique for account + image_id + sub_id")
        favourite = Favourite(id=self.world.next_id(Favourite), user_id=user, image_id=image_id, sub_id=sub_id,
                              created_at=self.world.now_stamp())
        self.world.session.add(favourite)
        return {"message": "SUCCESS", "id": favourite.id}

    @tool("delete_favourite", kind=ACTION, app=APP, injected=("api_key",))
    def delete_favourite(self, api_key: str | None, favourite_id: str) -> dict:
        """Remove a favourite, given by its favourite id or by the id of its image.

        Args:
            api_key: The caller's API key (the ``x-api-key`` header).
            favourite_id: The favourite's id, or its image's id.
        """
        self._check_key(api_key)
        query = select(Favourite).where(Favourite.user_id == self.world.aux["user_id"])
        numeric = favourite_id.isascii() and favourite_id.isdigit() and len(favourite_id) <= 18
        by_id = query.where(Favourite.id == int(favourite_id)) if numeric else None
        favourite = (self.world.session.scalar(by_id) if by_id is not None else None) or \
            self.world.session.scalar(query.where(Favourite.image_id == favourite_id).order_by(Favourite.id))
        if favourite is None:
            raise ApiError(404, "NO_SUCH_FAVOURITE")
        self.world.session.delete(favourite)
        return {"message": "SUCCESS"}

    @tool("vote", kind=ACTION, app=APP, injected=("api_key",))
    def vote(self, api_key: str | None, image_id: str, value: int, sub_id: str | None = None) -> dict:
        """Vote an image up (value 1) or down (value -1).

        Args:
            api_key: The caller's API key (the ``x-api-key`` header).
            image_id: Id of the image.
            value: 1 to vote up, -1 to vote down.
            sub_id: Optional label of the vote.
        """
        self._check_key(api_key)
        if value not in (1, -1):
            raise ApiError(400, "INVALID_VALUE - value must be 1 (up) or -1 (down)")
        self._image_row(image_id)
        vote = Vote(id=self.world.next_id(Vote), user_id=self.world.aux["user_id"], image_id=image_id,
                    sub_id=sub_id, value=value, country_code="US", created_at=self.world.now_stamp())
        self.world.session.add(vote)
        return {"message": "SUCCESS", "id": vote.id, "image_id": image_id, "sub_id": sub_id, "value": value,
                "country_code": "US"}

    # -- helpers ----------------------------------------------------------------------------
    def _check_key(self, api_key: str | None) -> None:
        if api_key != self.world.aux["api_key"]:
            raise ApiError(401, "AUTHENTICATION_ERROR - you need to send your API Key in the x-api-key header")

    def _image_row(self, image_id: str) -> Image:
        image = self.world.session.get(Image, image_id)
        if image is None:
            raise ApiError(400, f"INVALID_IMAGE - no image with id {image_id!r}")
        return image

    @staticmethod
    def _url(image: Image) -> str:
        return f"https://cdn2.thecatapi.com/images/{image.id}.{image.mime}"

    def _image(self, image: Image, size: str) -> dict:
        scale = min(1.0, MAX_SIDE[size] / max(image.width, image.height)) if size in MAX_SIDE else 1.0
        breeds = self.world.session.scalars(
            select(Breed).join(ImageBreed, ImageBreed.breed_id == Breed.id)
            .where(ImageBreed.image_id == image.id).order_by(Breed.id))
        return {"id": image.id, "url": self._url(image), "width": round(image.width * scale),
                "height": round(image.height * scale),
                "breeds": [{"id": b.id, "name": b.name, "origin": b.origin, "life_span": b.life_span}
                           for b in breeds]}
