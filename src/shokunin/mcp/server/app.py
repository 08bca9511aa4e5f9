"""shokunin as an MCP server: its tools and its faces, over stdio or streamable HTTP.

``build_server`` makes the one low-level ``mcp`` Server both transports serve: input
schemas come from tool declarations (not Python signatures), so the low-level API is the
fit. ``serve_stdio`` is ``shokunin mcp serve``: the engine the web server builds, in this
process, with MCP JSON-RPC alone on stdout. ``http.py`` serves the same at ``/mcp``.

Errors: a name that is not a listed tool is a JSON-RPC error (invalid params); everything
about a known tool (broken, wrong arguments, failed, aborted) is a result with
``is_error``, which a model reads and can act on; a ``ShokuninError`` a tool's call raises
is mapped to one in ``on_call_tool`` (``content.failure``: ``{"error", "code"}``).
Nothing ends the connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from shokunin import __version__
from shokunin.auth import principal
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.errors import ShokuninError
from shokunin.mcp.server import content, faces_advisor, faces_analyst
from shokunin.mcp.server import tools as server_tools
from shokunin.mcp.server.faces import FaceTool
from shokunin.mcp.server.runs import Caller

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "shokunin's tools, and its faces as coarse tools: ask_advisor (a consultant on passing "
    "cost increases on to prices), list_datasets and ask_analyst (questions about a table, "
    "answered from pandas code run in a sandbox). Long calls report progress and can be "
    "cancelled.")


def _faces(engine: Engine, local: bool) -> dict[str, FaceTool]:
    """The face tools whose agent this server has, by name."""
    faces = (faces_advisor.FACE, faces_analyst.LIST_FACE, faces_analyst.ask_face(local))
    return {f.name: f for f in faces if f.agent in engine.runner.agents}


def build_server(engine_of: Callable[[], Engine], *, local: bool,
                 ready: anyio.Event | None = None) -> Server[Any]:
    """The MCP server over the engine ``engine_of()`` returns (read per request: the web
    server builds its engine in its lifespan, after this). ``local`` is true for the local
    user's own process (stdio): only then may a tool read a path the caller names. With
    ``ready``, requests about tools wait for it (the engine is built meanwhile)."""

    def tools() -> list[types.Tool]:
        engine = engine_of()
        face_tools = _faces(engine, local)
        # A face's name wins over a folder tool's: the listing never holds a name twice.
        return [f.tool for f in face_tools.values()] + [
            t for t in server_tools.listed(engine.tools) if t.name not in face_tools]

    async def on_list_tools(ctx: ServerRequestContext[Any, Any],
                            params: types.PaginatedRequestParams | None
                            ) -> types.ListToolsResult:
        if ready is not None:
            await ready.wait()
        return types.ListToolsResult(tools=tools())

    async def on_call_tool(ctx: ServerRequestContext[Any, Any],
                           params: types.CallToolRequestParams) -> types.CallToolResult:
        if ready is not None:
            await ready.wait()
        engine = engine_of()
        who = principal(ctx.request) if ctx.request is not None else None
        caller = Caller(engine, who, local, ctx)
        args = dict(params.arguments or {})
        face = _faces(engine, local).get(params.name)
        try:
            if face is None:
                return await server_tools.call(caller, params.name, args)
            if (problem := face.problem(args)) is not None:
                return content.error(problem)
            return await face.handler(caller, args)
        except ShokuninError as exc:  # every engine error, as a tool error, here only
            return content.failure(exc)

    def input_schema(name: str) -> dict[str, Any] | None:
        # For the 2026-07-28 HTTP header check, without a whole listing per call.
        if ready is not None and not ready.is_set():
            return None
        return next((t.input_schema for t in tools() if t.name == name), None)

    return Server("shokunin", version=__version__, title="shokunin",
                  instructions=INSTRUCTIONS, get_tool_input_schema=input_schema,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve_stdio(settings: Settings, closed: anyio.Event | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin, on an engine of its own
    (built and closed as the web server's lifespan does).

    Cancelled (a signal), it closes the engine and sets ``closed``; it then still waits for
    the SDK's stdin reader, a thread blocked on a read that only the client's EOF ends.
    """
    # stdio_server points fd 1 at stderr while it serves: nothing the engine, a tool or a
    # child process prints can reach the wire. So the engine is built inside it.
    async with stdio_server() as (read, write):
        engines: list[Engine] = []
        ready = anyio.Event()
        server = build_server(lambda: engines[0], local=True, ready=ready)
        try:
            async with anyio.create_task_group() as group:
                # The handshake is answered at once (a client gives up on a server that is
                # silent for long); calls wait for the engine, seconds to build.
                group.start_soon(server.run, read, write, server.create_initialization_options())
                # The web server may be running on the same database: its live runs are
                # not a previous process's leftovers.
                engines.append(await Engine.open(settings, recover=False, mcp_clients=False))
                ready.set()
        finally:
            with anyio.CancelScope(shield=True):  # a signal stops the serving, not this
                if engines:
                    await engines[0].close()
            if closed is not None:
                closed.set()
