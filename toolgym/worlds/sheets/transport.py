"""The simulated services plugged into gspread: ``requests`` transport adapters.

:func:`make_session` returns a ``requests.Session`` whose ``https://sheets.googleapis.com/``
requests are answered by a :class:`~toolgym.worlds.sheets.api.SheetsService` in process, its
Drive requests (``https://www.googleapis.com/drive/v3/`` and the CSV upload of
``/upload/drive/v2/``) by a :class:`~toolgym.worlds.sheets.drive.DriveService`, and every
other request (OAuth, any host) 403 without touching the network. :func:`make_client` gives
``gspread.Client(auth=None, session=...)`` that session: gspread itself is not patched.
gspread is imported only here, on the first client.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

SHEETS_HOST = "https://sheets.googleapis.com/"
DRIVE_PREFIXES = ("https://www.googleapis.com/drive/v3/", "https://www.googleapis.com/upload/drive/v2/")


def _response(request: Any, status: int, payload: dict | bytes, content_type: str = "application/json; charset=UTF-8"):
    import requests

    response = requests.Response()
    response.status_code = status
    response._content = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
    response.headers["Content-Type"] = content_type
    response.encoding = "utf-8"
    response.url = request.url
    response.request = request
    response.reason = {200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
                       429: "Too Many Requests", 500: "Internal Server Error"}.get(status, "Error")
    return response


def _refuse_constant(name: str):
    raise ValueError(f"Unexpected token: {name}")


def _adapter_classes():
    from requests.adapters import BaseAdapter

    class SheetsAdapter(BaseAdapter):
        """Answers Sheets API v4 requests from the simulated service."""

        def __init__(self, service):
            super().__init__()
            self.service = service

        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            url = urlsplit(request.url)
            query = parse_qs(url.query, keep_blank_values=True)
            body = request.body
            if isinstance(body, bytes):
                body = body.decode("utf-8", errors="replace")
            try:  # JSON has no NaN or Infinity (Python's reader would take them)
                payload = json.loads(body, parse_constant=_refuse_constant) if body else None
            except (ValueError, RecursionError) as error:
                message = f"Invalid JSON payload received. {str(error)[:200]}"
                return _response(request, 400, {"error": {"code": 400, "message": message,
                                                          "status": "INVALID_ARGUMENT"}})
            status, result = self.service.handle(request.method, url.path, query, payload)
            return _response(request, status, result)

        def close(self):
            pass

    class DriveAdapter(BaseAdapter):
        """Answers Drive API v3 requests (and v2's CSV upload) from the simulated Drive service."""

        def __init__(self, drive):
            super().__init__()
            self.drive = drive

        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            url = urlsplit(request.url)
            query = parse_qs(url.query, keep_blank_values=True)
            body = request.body.encode("utf-8") if isinstance(request.body, str) else request.body
            payload, media = None, None
            if url.path.startswith("/upload/"):
                media = body or b""
            elif body:
                try:
                    payload = json.loads(body, parse_constant=_refuse_constant)
                except (ValueError, RecursionError) as error:
                    return _response(request, 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                                              "message": f"Invalid JSON payload received. "
                                                                         f"{str(error)[:200]}"}})
            status, result, content_type = self.drive.handle(request.method, url.path, query, payload, media)
            return _response(request, status, result, content_type)

        def close(self):
            pass

    class OfflineAdapter(BaseAdapter):
        """Answers every other request 403: the simulated world has no network."""

        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            host = urlsplit(request.url).netloc
            return _response(request, 403, {"error": {
                "code": 403, "status": "PERMISSION_DENIED",
                "message": f"{host} is not reachable: only the simulated Sheets and Drive APIs answer in this "
                           f"environment."}})

        def close(self):
            pass

    return SheetsAdapter, DriveAdapter, OfflineAdapter


def make_session(service, drive=None):
    """A ``requests.Session`` answered by ``service`` (Sheets) and ``drive`` (Drive; None: 403
    as every other host), offline for everything else."""
    import requests

    sheets_adapter, drive_adapter, offline_adapter = _adapter_classes()
    session = requests.Session()
    session.trust_env = False  # no proxies, .netrc or CA bundles from the environment: nothing leaves
    session.mount("http://", offline_adapter())
    session.mount("https://", offline_adapter())
    session.mount(SHEETS_HOST, sheets_adapter(service))
    if drive is not None:
        for prefix in DRIVE_PREFIXES:
            session.mount(prefix, drive_adapter(drive))
    return session


def make_client(service, drive=None):
    """A real ``gspread.Client`` whose HTTP session is answered by ``service`` and ``drive``."""
    import gspread

    return gspread.Client(auth=None, session=make_session(service, drive))
