"""Following one engine run from inside an MCP request: progress out, cancellation in.

Every MCP call that does work (a tool, a face) is a run started through the Runner, so it
is stored and replayable like any other; this module streams that run to its end, reports
what the caller asks for as MCP progress notifications, and cancels the run when the MCP
request is cancelled (a ``notifications/cancelled``, or a closed HTTP response stream).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from shokunin import events as ev
from shokunin.engine import Engine

Narrate = Callable[[ev.BaseEvent], str | None]
"""An event's progress message, or None when the event says nothing worth a notification."""


@dataclass(frozen=True)
class Caller:
    """Who asks, through what: the engine, the caller's principal (None on stdio and when
    auth is off), whether it is the local user's own process (stdio), and the request."""

    engine: Engine
    who: str | None
    local: bool
    ctx: ServerRequestContext[Any, Any]


async def follow(caller: Caller, run_id: str, narrate: Narrate) -> list[ev.BaseEvent]:
    """The run's events up to and including its terminal one.

    Each message ``narrate`` returns becomes a progress notification (a no-op when the
    client sent no progress token). If the request is cancelled first, the run is
    cancelled, which sets a tool's abort_event, before the cancellation goes on.
    """
    runner = caller.engine.runner
    seen: list[ev.BaseEvent] = []
    reported = 0
    try:
        async for event in runner.stream(run_id):
            seen.append(event)
            if ev.is_terminal(event):
                return seen
            message = narrate(event)
            if message:
                reported += 1  # progress must grow; a count always does
                await caller.ctx.session.report_progress(reported, None, message)
    finally:
        if not (seen and ev.is_terminal(seen[-1])) and runner.is_live(run_id):
            # Shielded: this scope is being cancelled, and the tool must hear its abort.
            with anyio.CancelScope(shield=True):
                await runner.cancel(run_id)
    raise MCPError(types.INTERNAL_ERROR, f"run {run_id} ended without an outcome")
