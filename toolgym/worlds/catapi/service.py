"""The Cat API REST service: ``api.thecatapi.com`` routed to CatTools."""

from __future__ import annotations

from toolgym.worlds.catapi.tools import CatTools, error_body
from toolgym.worlds.catapi.world import CatWorld
from toolgym.worlds.rest import RestService, Route

HOST = "api.thecatapi.com"
ROUTES = [
    Route("GET", "/v1/images/search", "search_images"),
    Route("GET", "/v1/favourites", "list_favourites"),
    Route("POST", "/v1/favourites", "add_favourite", json_body=True),
    Route("DELETE", "/v1/favourites/(?P<favourite_id>[^/]+)", "delete_favourite"),
    Route("POST", "/v1/votes", "vote", json_body=True),
]


def cat_service(world: CatWorld) -> RestService:
    """The service over ``world``; the API key is the ``x-api-key`` header."""
    return RestService(CatTools(world), HOST, ROUTES, error_body,
                       credential=lambda request: request.headers.get("x-api-key"))
