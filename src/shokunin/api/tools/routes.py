"""REST and SSE face of the tool system (seed 003): list, settings, execute, stream, abort.

An execution is a run of the ``tool`` agent (agents/tool_run.py) started through the
Runner, so it is stored, replayable (``GET /api/runs/{run_id}/events``) and cancellable;
its ``execution_id`` is its run id, and every response also says ``run_id``.

Errors are JSON ``{"error": message, "code": code}`` (404 unknown tool or execution, 409 a
tool listed with status "error", 422 a bad body or arguments), answered by the app's one
handler (api/errors.py); a settings save rejected field by field is
``{"errors": {field: message}}``. Secrets never leave in clear: the registry masks them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from shokunin import events as ev
from shokunin.agents import tool_run
from shokunin.agents.tool_run import NAME as TOOL_AGENT
from shokunin.api.errors import ApiError, json_object
from shokunin.api.runs import sse
from shokunin.api.tools import ui_proxy
from shokunin.auth import ADMIN, principal
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.runs import Runner, follow_to_end, visible_run
from shokunin.tools import SettingsInvalid, ToolRegistry

router = APIRouter(prefix="/api/tools", tags=["tools"])
EXECUTE_BODY = '{"args": {...}, "timeout": seconds, "thread_id": id}'


class BadRequest(ShokuninError):
    """A request body that cannot be used; the message is the 422 error."""

    status = 422
    code = ErrorCode.BAD_REQUEST


def _registry(request: Request) -> ToolRegistry:
    return request.app.state.engine.tools


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
    return JSONResponse(_registry(request).get(name).model_dump())


@router.get("/{name}/settings")
async def get_settings(request: Request, name: str) -> Response:
    return JSONResponse(_registry(request).get_settings(name))


@router.put("/{name}/settings")
async def put_settings(request: Request, name: str) -> Response:
    """Only the admin (or anyone, with auth off) changes tool settings: they are global, and
    hold the admin's keys. The answer lists ``cleared_secrets`` when a URL setting moved to
    another host without its secrets given again."""
    if principal(request) not in (None, ADMIN):  # auth off, or the admin token
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
    return JSONResponse({"values": values, "cleared_secrets": cleared} if cleared
                        else {"values": values})


@router.get("/{name}/ui")
async def tool_ui(request: Request, name: str) -> Response:
    """The tool's static UI page (``get_ui_info()["html_file"]``, or its index.html), in
    the same sandbox as a live UI (ui_proxy.py)."""
    return FileResponse(_registry(request).ui_file(name), media_type="text/html",
                        headers=ui_proxy.PROXY_HEADERS)




# -- executions: runs of the tool agent ----------------------------------------------------
def _runner(request: Request) -> Runner:
    return request.app.state.engine.runner


async def execution_request(request: Request, name: str) -> str:
    """Dependency: the execution's run, started from a body checked before any run starts
    (an empty body is no args)."""
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
    return await tool_run.start(_runner(request), _registry(request), principal(request), name,
                                args, timeout=timeout, thread_id=body.get("thread_id") or None)


def _wire(outcome: tool_run.ToolOutcome, run_id: str) -> dict[str, Any]:
    return outcome.model_dump() | {"run_id": run_id}


@router.post("/{name}/execute")
async def execute(request: Request, name: str,
                  run_id: str = Depends(execution_request)) -> Response:
    outcome = tool_run.Outcome(run_id)
    for event in await follow_to_end(_runner(request), run_id):
        if (result := outcome.see(event)) is not None:
            return JSONResponse(_wire(result, run_id))
    raise ApiError(500, f"tool run {run_id} ended without a result", ErrorCode.INTERNAL)


@router.post("/{name}/execute/stream", response_class=sse.EventSourceResponse)
async def execute_stream(request: Request, name: str,
                         run_id: str = Depends(execution_request)
                         ) -> AsyncIterator[sse.ServerSentEvent]:
    """``started``, ``progress``..., ``result``, each with ``id:`` = the event's seq. A
    client that leaves cancels the run, which aborts the tool."""
    runner = _runner(request)
    outcome = tool_run.Outcome(run_id)

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
                                                               data=_wire(result, run_id))

    async for message in sse.run_messages(runner, run_id, translate=wire, end=False,
                                          cancel_on_exit=True):
        yield message


@router.post("/executions/{execution_id}/abort")
async def abort_execution(request: Request, execution_id: str) -> Response:
    """Cancel the execution's run: the tool gets its abort signal, the run ends
    ``cancelled`` and its stream ends with an aborted result."""
    runner = _runner(request)
    run = await visible_run(runner.store, principal(request), execution_id)
    if run is not None and run.agent == TOOL_AGENT and await runner.cancel(execution_id):
        return JSONResponse({"aborted": True, "run_id": execution_id})
    return JSONResponse({"error": f"no running execution {execution_id[:100]!r}",
                         "code": "not_found"}, status_code=404)
