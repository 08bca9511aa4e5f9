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

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from shokunin import events as ev
from shokunin.engine import Engine
from shokunin.runs import follow_to_end

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
    """The run's events up to and including its terminal one (``runs.follow_to_end``: a
    cancelled request cancels the run). Each message ``narrate`` returns becomes a progress
    notification (a no-op when the client sent no progress token)."""
    reported = 0

    async def report(event: ev.BaseEvent) -> None:
        nonlocal reported
        if not ev.is_terminal(event) and (message := narrate(event)):
            reported += 1  # progress must grow; a count always does
            await caller.ctx.session.report_progress(reported, None, message)

    events = await follow_to_end(caller.engine.runner, run_id, report)
    if not events or not ev.is_terminal(events[-1]):
        raise MCPError(types.INTERNAL_ERROR, f"run {run_id} ended without an outcome")
    return events
