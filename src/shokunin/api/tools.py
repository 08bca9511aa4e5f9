"""REST and SSE face of the tool system (seed 003): list, settings, execute, stream, abort.

Errors are JSON ``{"error": message}`` (404 unknown tool or execution, 409 a tool listed
with status "error", 422 a bad body); a settings save rejected field by field is
``{"errors": {field: message}}``. Secrets never leave in clear: the registry masks them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse

from shokunin.tools import (
    InvalidArguments,
    SettingsInvalid,
    ToolError,
    ToolNotFound,
    ToolRegistry,
    ToolUnavailable,
)

router = APIRouter(prefix="/api/tools", tags=["tools"])
KEEPALIVE_SEC = 1.0  # an idle stream still writes, so a client that left is noticed


class BadRequest(Exception):
    """A request body that cannot be used; the message is the 422 error."""


def _registry(request: Request) -> ToolRegistry:
    return request.app.state.services.tools


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _tool_error(exc: ToolError) -> JSONResponse:
    if isinstance(exc, ToolNotFound):
        return _error(404, str(exc))
    if isinstance(exc, ToolUnavailable):
        return _error(409, str(exc))
    if isinstance(exc, InvalidArguments):
        return _error(422, str(exc))
    return _error(400, str(exc))


async def _json_object(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        raise BadRequest("the body must be JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


async def _execute_request(request: Request, name: str) -> tuple[dict[str, Any], float | None]:
    body = await _json_object(request)
    unknown = sorted(set(body) - {"args", "timeout"})
    if unknown:
        raise BadRequest(f"unknown field(s) {', '.join(unknown)}; expected "
                         '{"args": {...}, "timeout": seconds}')
    args = body.get("args", {})
    if not isinstance(args, dict):
        raise BadRequest('"args" must be a JSON object')
    timeout = body.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout <= 0):
        raise BadRequest('"timeout" must be a positive number of seconds')
    _registry(request).validate_args(name, args)
    return args, timeout


@router.get("")
async def list_tools(request: Request) -> dict[str, Any]:
    return {"tools": [info.model_dump() for info in _registry(request).list()]}


@router.post("/executions/{execution_id}/abort")
async def abort_execution(request: Request, execution_id: str) -> Response:
    if await _registry(request).abort(execution_id):
        return JSONResponse({"aborted": True})
    return _error(404, f"no running execution {execution_id!r}")


@router.get("/{name}")
async def show_tool(request: Request, name: str) -> Response:
    try:
        return JSONResponse(_registry(request).get(name).model_dump())
    except ToolError as exc:
        return _tool_error(exc)


@router.get("/{name}/settings")
async def get_settings(request: Request, name: str) -> Response:
    try:
        return JSONResponse(_registry(request).get_settings(name))
    except ToolError as exc:
        return _tool_error(exc)


@router.put("/{name}/settings")
async def put_settings(request: Request, name: str) -> Response:
    try:
        body = await _json_object(request)
        if "values" not in body:
            raise BadRequest('expected {"values": {...}}')
        values = _registry(request).save_settings(name, body["values"])
    except BadRequest as exc:
        return JSONResponse({"errors": {"values": str(exc)}}, status_code=422)
    except SettingsInvalid as exc:
        return JSONResponse({"errors": exc.errors}, status_code=422)
    except ToolError as exc:
        return _tool_error(exc)
    return JSONResponse({"values": values})


@router.get("/{name}/ui")
async def tool_ui(request: Request, name: str) -> Response:
    try:
        return FileResponse(_registry(request).ui_file(name), media_type="text/html")
    except ToolNotFound as exc:
        return _tool_error(exc)
    except ToolError as exc:
        return _error(404, str(exc))


@router.post("/{name}/execute")
async def execute(request: Request, name: str) -> Response:
    try:
        args, timeout = await _execute_request(request, name)
        return JSONResponse(await _registry(request).execute(name, args, timeout=timeout))
    except BadRequest as exc:
        return _error(422, str(exc))
    except ToolError as exc:
        return _tool_error(exc)


@router.post("/{name}/execute/stream")
async def execute_stream(request: Request, name: str) -> Response:
    try:
        args, timeout = await _execute_request(request, name)
    except BadRequest as exc:
        return _error(422, str(exc))
    except ToolError as exc:
        return _tool_error(exc)
    registry = _registry(request)
    execution_id = uuid.uuid4().hex
    return StreamingResponse(
        _stream(registry, name, args, timeout, execution_id), media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def _stream(registry: ToolRegistry, name: str, args: dict[str, Any],
                  timeout: float | None, execution_id: str) -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    messages: asyncio.Queue[str] = asyncio.Queue()

    def progress(message: str) -> None:
        loop.call_soon_threadsafe(messages.put_nowait, message)

    task = asyncio.ensure_future(registry.execute(
        name, args, progress=progress, timeout=timeout, execution_id=execution_id))
    try:
        yield _sse("started", {"execution_id": execution_id})
        while not task.done():
            getter = asyncio.ensure_future(messages.get())
            await asyncio.wait({getter, task}, timeout=KEEPALIVE_SEC,
                               return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield _sse("progress", {"message": getter.result()})
            else:
                getter.cancel()
                if not task.done():
                    yield ": keep-alive\n\n"
        while not messages.empty():
            yield _sse("progress", {"message": messages.get_nowait()})
        try:
            result = task.result()
        except ToolError as exc:  # the tool went away in a reload mid-call
            result = {"success": False, "result": None, "error": str(exc), "files": [],
                      "aborted": False, "execution_id": execution_id}
        yield _sse("result", result)
    finally:
        if not task.done():  # the client left: stop the tool, let the call wind down
            await registry.abort(execution_id)
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
