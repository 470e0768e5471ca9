"""A REST simulator: curl command lines parsed (never run) and routed to a world's tools."""

from toolgym.worlds.rest.curl import CurlError, HttpRequest, parse_curl
from toolgym.worlds.rest.service import ApiError, HttpResponse, RestService, Route

__all__ = ["ApiError", "CurlError", "HttpRequest", "HttpResponse", "RestService", "Route", "parse_curl"]
