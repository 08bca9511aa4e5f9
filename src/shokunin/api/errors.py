"""The JSON error form of the REST faces, ``{"error": message, "code": code}``, and the
request checks that raise it.

Codes: ``bad_json`` (the body is not JSON), ``bad_request`` (well-formed but unusable),
``bad_thread_id``, ``bad_event_id`` (a ``Last-Event-ID`` or ``after`` that is not a seq),
``not_found``, ``not_waiting`` (resume of a run that waits for nobody), ``not_running``
(cancel of a run that is not running), ``run_live`` (delete of a thread with a live run).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse


class ApiError(Exception):
    """Raised anywhere in a route (or its dependencies): answered as the JSON error form."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


def error_response(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


async def handle_api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.code)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def json_object(request: Request, expected: str) -> dict[str, Any]:
    """The body as a JSON object; ``expected`` (e.g. ``{"value": ...}``) goes in the error.
    NaN and Infinity are refused, and so is text that is not valid Unicode."""
    raw = await request.body()
    try:
        body = json.loads(raw, parse_constant=_no_constant)
        json.dumps(body, ensure_ascii=False).encode()  # lone surrogates ("\ud800") fail here
    except (ValueError, RecursionError, UnicodeError):  # deep nesting: RecursionError
        raise ApiError(400, f"the body must be JSON: send {expected}", "bad_json") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object: send {expected}", "bad_request")
    return body
