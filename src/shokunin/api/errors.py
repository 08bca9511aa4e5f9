"""The one error form clients see, ``{"error": message, "code": code}``: the app-wide
handlers that put every failure into it, the refusal the perimeter middleware sends, and
the request checks of the REST faces that raise it.

A ``ShokuninError`` (``shokunin/errors.py``) is answered here, once, with its own
``status`` and ``code``: a route lets the engine's errors go by, and raises ``ApiError``
for a request it cannot use. One with the code ``internal`` is answered as an unhandled
error (below).

Codes: ``bad_json`` (the body is not JSON), ``bad_request`` (well-formed but unusable),
``bad_thread_id`` (a malformed thread, session or dataset thread id, on every face),
``bad_event_id`` (a ``Last-Event-ID`` or ``after`` that is not a seq),
``not_found``, ``not_waiting`` (resume of a run that waits for nobody), ``not_running``
(cancel of a run that is not running), ``run_live`` (delete of a thread with a live run);
from the perimeter ``forbidden_host`` (a ``Host`` the server does not answer to),
``unauthorized``, ``forbidden_origin``, ``too_many_streams`` (429: live connections past
a cap), ``unsupported_media_type``, ``too_large``, ``too_deep`` (JSON nested past the
parser's depth), ``invalid_request`` (validation), ``busy`` (503: no database connection
came free in time), ``database_unavailable`` (503: the database does not answer, with
``Retry-After``), ``internal`` (an unhandled error: the answer carries an ``id`` and
the traceback is only logged, under that id).
"""


from __future__ import annotations

import json
import logging
import uuid
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from shokunin.errors import ErrorCode, ShokuninError
from shokunin.store import RETRY_AFTER_SEC, unreachable

log = logging.getLogger(__name__)

CODES = {400: ErrorCode.BAD_REQUEST, 401: ErrorCode.UNAUTHORIZED, 403: ErrorCode.FORBIDDEN,
         404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED, 409: ErrorCode.CONFLICT,
         413: ErrorCode.TOO_LARGE, 415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
         422: ErrorCode.INVALID_REQUEST, 429: ErrorCode.TOO_MANY_REQUESTS,
         503: ErrorCode.UNAVAILABLE}
WS_POLICY_VIOLATION = 1008


class ApiError(ShokuninError, HTTPException):
    """A request a face cannot use, raised anywhere in a route, its dependencies or below
    the exception middleware (a body's media type or size): its own status and code. It
    is an ``HTTPException`` too, so FastAPI lets it through while it reads a body."""

    def __init__(self, status: int, message: str, code: ErrorCode | str | None = None) -> None:
        HTTPException.__init__(self, status, message)
        self.status = status
        self.code = ErrorCode(code or CODES.get(status, ErrorCode.ERROR))

    @property
    def message(self) -> str:
        return str(self.detail)


def error_response(status: int, message: str, code: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message, "code": code or CODES.get(status, "error")},
                        status_code=status, headers=headers)


async def deny(scope: Scope, receive: Receive, send: Send, status: int, message: str,
               code: str, headers: dict[str, str] | None = None) -> None:
    """Refuse a connection before the app sees it: an HTTP error response, or a WebSocket
    accepted and closed at once with 1008 and the message, so the client can read why."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        reason = f"{code}: {message}".encode()[:123].decode(errors="ignore")  # frame limit
        await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": reason})
        return
    await error_response(status, message, code, headers)(scope, receive, send)


async def deny_before_accept(scope: Scope, receive: Receive, send: Send, status: int,
                             message: str, code: str) -> None:
    """Refuse a connection before the app sees it, and a WebSocket before its handshake is
    accepted: the HTTP error response when the server can send one on a WebSocket (the
    denial response extension; uvicorn and the TestClient can), else a bare close (the
    client sees a 403)."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION})
            return
    await error_response(status, message, code)(scope, receive, send)


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    return error_response(exc.status_code, message, getattr(exc, "code", None), exc.headers)


async def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
              for e in exc.errors()]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(part) for part in first["loc"])
    # FastAPI keeps the error in a local of the frame that raised it: error and frame then
    # hold each other, and the request's body with them, until a full collection.
    exc.__traceback__ = exc.__cause__ = exc.__context__ = None
    return JSONResponse({"error": f"{where}: {first['msg']}" if where else first["msg"],
                         "code": "invalid_request", "errors": errors}, status_code=422)


async def _too_deep(request: Request, exc: Exception) -> Response:
    # json.loads and pydantic raise RecursionError on deeply nested input (issue 14).
    error_id = uuid.uuid4().hex[:12]
    log.warning("error %s: %s %s: %s", error_id, request.method, request.url.path, exc)
    return JSONResponse({"error": "the request is nested too deeply", "code": "too_deep",
                         "id": error_id}, status_code=400)


async def _client_gone(request: Request, _exc: Exception) -> Response:
    # The client left (or was timed out) before its body arrived: nobody reads an answer.
    log.info("client left during %s %s", request.method, request.url.path)
    return Response(status_code=400)


async def _busy(request: Request, exc: Exception) -> Response:
    # Every database connection stayed taken for the pool's whole wait: a flood, not a bug.
    log.warning("database busy on %s %s: %s", request.method, request.url.path, exc)
    return error_response(503, "the server is busy: try again in a moment", "busy",
                          {"Retry-After": "1"})


async def _database_down(request: Request, exc: Exception) -> Response:
    log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
    return error_response(503, "the database does not answer: nothing was done; try again in "
                          "a moment", ErrorCode.DATABASE_UNAVAILABLE,
                          {"Retry-After": str(RETRY_AFTER_SEC)})


async def _internal(request: Request, exc: Exception) -> Response:
    if isinstance(exc, PoolTimeout):  # raised in a middleware (auth reads the key store)
        return await _busy(request, exc)
    if unreachable(exc):  # the driver's own error, from a route or a middleware
        return await _database_down(request, exc)
    error_id = uuid.uuid4().hex[:12]
    log.error("error %s: unhandled exception on %s %s", error_id, request.method,
              request.url.path, exc_info=exc)
    return JSONResponse({"error": "internal error", "code": ErrorCode.INTERNAL,
                         "id": error_id}, status_code=500)


def http_error(exc: ShokuninError) -> JSONResponse:
    """A ``ShokuninError`` in the JSON error form, with its status (not ``internal``)."""
    return error_response(exc.status, exc.message, exc.code)


async def _shokunin_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ShokuninError)
    if exc.code == ErrorCode.INTERNAL:  # a fault, not the caller's: the log has the rest
        return await _internal(request, exc)
    return http_error(exc)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that answer every error in the JSON error form."""
    app.add_exception_handler(ShokuninError, _shokunin_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(RecursionError, _too_deep)
    app.add_exception_handler(PoolTimeout, _busy)
    app.add_exception_handler(ClientDisconnect, _client_gone)
    app.add_exception_handler(Exception, _internal)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def json_object(request: Request, expected: str) -> dict[str, Any]:
    """The body as a JSON object; ``expected`` (e.g. ``{"value": ...}``) goes in the error.
    NaN and Infinity are refused, and so is text that is not valid Unicode."""
    raw = await request.body()
    try:
        body = json.loads(raw, parse_constant=_no_constant)
        json.dumps(body, ensure_ascii=False).encode()  # lone surrogates ("\ud800") fail here
    except RecursionError:
        raise ApiError(400, "the JSON body is nested too deeply", "too_deep") from None
    except (ValueError, UnicodeError):
        raise ApiError(400, f"the body must be JSON: send {expected}", "bad_json") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object: send {expected}", "bad_request")
    return body
