"""REST and SSE face of the tool system (seed 003): list, settings, execute, stream, abort.

An execution is a run of the ``tool`` agent (agents/tool_run.py) started through the
Runner, so it is stored, replayable (``GET /api/runs/{run_id}/events``) and cancellable;
its ``execution_id`` is its run id, and every response also says ``run_id``.

Errors are JSON ``{"error": message}`` (404 unknown tool or execution, 409 a tool listed
with status "error", 422 a bad body; executions also say a ``code``); a settings save
rejected field by field is ``{"errors": {field: message}}``. Secrets never leave in
clear: the registry masks them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from shokunin import events as ev
from shokunin.agents.tool_run import NAME as TOOL_AGENT
from shokunin.api.access import may_see, owner_scope, principal, visible_run
from shokunin.api.errors import ApiError, json_object
from shokunin.api.runs import sse
from shokunin.runs import InvalidThreadId, Runner, check_thread_id, new_thread_id
from shokunin.tools import (
    InvalidArguments,
    SettingsInvalid,
    ToolError,
    ToolNotFound,
    ToolRegistry,
    ToolUnavailable,
)

router = APIRouter(prefix="/api/tools", tags=["tools"])
EXECUTE_BODY = '{"args": {...}, "timeout": seconds, "thread_id": id}'


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


@router.get("")
async def list_tools(request: Request) -> dict[str, Any]:
    return {"tools": [info.model_dump() for info in _registry(request).list()]}


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
    """Only the admin (or anyone, with auth off) changes tool settings: they are global, and
    hold the admin's keys. The answer lists ``cleared_secrets`` when a URL setting moved to
    another host without its secrets given again."""
    if owner_scope(principal(request)) is not None:
        return JSONResponse({"error": "ツールの設定を変更できるのは管理者だけです / Only the "
                             "admin (SHOKUNIN_AUTH_TOKEN) may change tool settings; an API "
                             "key may read them", "code": "admin_only"}, status_code=403)
    try:
        body = await _json_object(request)
        if "values" not in body:
            raise BadRequest('expected {"values": {...}}')
        values, cleared = _registry(request).update_settings(name, body["values"])
    except BadRequest as exc:
        return JSONResponse({"errors": {"values": str(exc)}}, status_code=422)
    except SettingsInvalid as exc:
        return JSONResponse({"errors": exc.errors}, status_code=422)
    except ToolError as exc:
        return _tool_error(exc)
    return JSONResponse({"values": values, "cleared_secrets": cleared} if cleared
                        else {"values": values})


@router.get("/{name}/ui")
async def tool_ui(request: Request, name: str) -> Response:
    try:
        return FileResponse(_registry(request).ui_file(name), media_type="text/html")
    except ToolNotFound as exc:
        return _tool_error(exc)
    except ToolError as exc:
        return _error(404, str(exc))




# -- executions: runs of the tool agent ----------------------------------------------------
def _runner(request: Request) -> Runner:
    return request.app.state.services.runner


def _tool_api_error(exc: ToolError) -> ApiError:
    if isinstance(exc, ToolNotFound):
        return ApiError(404, str(exc), "not_found")
    if isinstance(exc, ToolUnavailable):
        return ApiError(409, str(exc), "tool_unavailable")
    if isinstance(exc, InvalidArguments):
        return ApiError(422, str(exc), "invalid_args")
    return ApiError(400, str(exc), "bad_request")


async def execution_request(request: Request, name: str) -> tuple[str, dict[str, Any]]:
    """Dependency: the thread and the tool run's input, from a body checked before any run
    starts (an empty body is no args)."""
    body: dict[str, Any] = {}
    if (await request.body()).strip():
        try:
            body = await json_object(request, EXECUTE_BODY)
        except ApiError as exc:  # this face answers a bad body with 422, as the app
            # answers deep nesting everywhere with 400 too_deep
            raise ApiError(exc.status if exc.code == "too_deep" else 422, exc.message,
                           exc.code) from None
    unknown = sorted(set(body) - {"args", "timeout", "thread_id"})
    if unknown:
        raise ApiError(422, f"unknown field(s) {', '.join(unknown)}; expected {EXECUTE_BODY}",
                       "bad_request")
    args = body.get("args", {})
    if not isinstance(args, dict):
        raise ApiError(422, '"args" must be a JSON object', "bad_request")
    timeout = body.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout <= 0):
        raise ApiError(422, '"timeout" must be a positive number of seconds', "bad_request")
    try:
        thread_id = check_thread_id(body.get("thread_id") or new_thread_id())
        info = _registry(request).get(name)
        _registry(request).validate_args(name, args)
    except InvalidThreadId as exc:
        raise ApiError(422, str(exc), "bad_thread_id") from None
    except ToolError as exc:
        raise _tool_api_error(exc) from None
    thread = await _runner(request).store.thread_summary(thread_id)
    if thread is not None and not may_see(principal(request), thread):
        raise ApiError(404, f"no thread {thread_id!r}", "not_found")
    return thread_id, {"tool": info.name, "args": args, "timeout": timeout}


class _Outcome:
    """Follows a tool run's events to the seed 003 result: the run's output when it
    completed, else what its ``tool_result`` (or its end) said."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.tool_result: ev.ToolResult | None = None

    def see(self, event: ev.BaseEvent) -> dict[str, Any] | None:
        """The result once ``event`` ends the run; None before."""
        if isinstance(event, ev.ToolResult):
            self.tool_result = event
        if not ev.is_terminal(event):
            return None
        if isinstance(event, ev.RunCompleted) and event.output:
            result = dict(event.output)
        elif (seen := self.tool_result) is not None:
            result = {"success": seen.success, "result": seen.result, "error": seen.error,
                      "files": [], "aborted": seen.aborted, "execution_id": self.run_id}
        else:
            error = event.error if isinstance(event, ev.RunFailed) else "中断されました"
            result = {"success": False, "result": None, "error": error, "files": [],
                      "aborted": isinstance(event, ev.RunCancelled),
                      "execution_id": self.run_id}
        return result | {"run_id": self.run_id}


@router.post("/{name}/execute")
async def execute(request: Request, name: str,
                  call: tuple[str, dict[str, Any]] = Depends(execution_request)) -> Response:
    runner = _runner(request)
    run_id = await runner.start(TOOL_AGENT, call[0], call[1], owner=principal(request))
    outcome = _Outcome(run_id)
    async for event in runner.stream(run_id):
        if (result := outcome.see(event)) is not None:
            return JSONResponse(result)
    raise ApiError(500, f"tool run {run_id} ended without a result", "server_error")


_cancelling: set[asyncio.Task[Any]] = set()  # held so they are not collected mid-way


def _in_background(coro: Coroutine[Any, Any, Any]) -> None:
    task = asyncio.ensure_future(coro)
    _cancelling.add(task)
    task.add_done_callback(_cancelling.discard)


@router.post("/{name}/execute/stream", response_class=sse.EventSourceResponse)
async def execute_stream(request: Request, name: str,
                         call: tuple[str, dict[str, Any]] = Depends(execution_request)
                         ) -> AsyncIterator[sse.ServerSentEvent]:
    """``started``, ``progress``..., ``result``, each with ``id:`` = the event's seq. A
    client that leaves cancels the run, which aborts the tool."""
    runner = _runner(request)
    run_id = await runner.start(TOOL_AGENT, call[0], call[1], owner=principal(request))
    outcome = _Outcome(run_id)

    def wire(event: ev.BaseEvent) -> sse.ServerSentEvent | None:
        seq = str(event.seq)
        if isinstance(event, ev.RunStarted):
            return sse.ServerSentEvent(event="started", id=seq, data={
                "execution_id": run_id, "run_id": run_id, "thread_id": event.thread_id})
        if isinstance(event, ev.Progress):
            return sse.ServerSentEvent(event="progress", id=seq,
                                       data={"message": event.message})
        result = outcome.see(event)
        return None if result is None else sse.ServerSentEvent(event="result", id=seq,
                                                               data=result)

    finished = False
    try:
        async for message in sse.run_messages(runner, run_id, translate=wire, end=False):
            yield message
        finished = True
    finally:
        if not finished and runner.is_live(run_id):
            # This generator is being cancelled: cancel the run from outside it.
            _in_background(runner.cancel(run_id))


@router.post("/executions/{execution_id}/abort")
async def abort_execution(request: Request, execution_id: str) -> Response:
    """Cancel the execution's run: the tool gets its abort signal, the run ends
    ``cancelled`` and its stream ends with an aborted result."""
    runner = _runner(request)
    run = await visible_run(runner.store, principal(request), execution_id)
    if run is not None and run["agent"] == TOOL_AGENT and await runner.cancel(execution_id):
        return JSONResponse({"aborted": True, "run_id": execution_id})
    return JSONResponse({"error": f"no running execution {execution_id[:100]!r}",
                         "code": "not_found"}, status_code=404)
