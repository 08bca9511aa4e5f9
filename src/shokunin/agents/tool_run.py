"""The ``tool`` agent: one tool execution as a run, so it is stored, replayable and
cancellable like any other.

Input ``{"tool": name, "args": {...}, "timeout": seconds | None}``. The run says
``tool_call``, then ``progress`` for each message of the tool's ``message_callback`` (and
any event an in-process tool emits), then ``tool_result``; its output is the seed 003
result (``success``, ``result``, ``error``, ``files``, ``aborted``, ``execution_id`` = the
run id). Cancelling the run aborts the tool: it gets its abort signal and a grace period
to return, as with the registry's own abort, before the run ends ``cancelled``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from shokunin import events as ev
from shokunin.runs import RunContext
from shokunin.tools import ToolError, ToolRegistry

NAME = "tool"


class ToolRunAgent:
    name = NAME

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        name, args, timeout = input.get("tool"), input.get("args") or {}, input.get("timeout")
        if not isinstance(name, str) or not isinstance(args, dict):
            raise ValueError('a tool run needs {"tool": name, "args": {...}}')
        loop = asyncio.get_running_loop()
        pending: list[concurrent.futures.Future[ev.BaseEvent]] = []

        def emit(event: ev.BaseEvent) -> None:  # from the tool's thread
            pending.append(asyncio.run_coroutine_threadsafe(ctx.emit(event), loop))

        def progress(message: str) -> None:
            emit(ev.Progress(message=message, source=name))

        await ctx.emit(ev.ToolCall(call_id=ctx.run_id, name=name, args=args))
        call = asyncio.ensure_future(self._execute(ctx, name, args, timeout, progress, emit))
        try:
            result = await asyncio.shield(call)
        except asyncio.CancelledError:
            # Runner.cancel set ctx.abort: the executor passes it to the tool (its
            # abort_event, or the venv child's abort message) and returns once it stops.
            ctx.abort.set()
            result = await call
            await self._report(ctx, name, result, pending)
            raise
        await self._report(ctx, name, result, pending)
        return result

    async def _execute(self, ctx: RunContext, name: str, args: dict[str, Any],
                       timeout: float | None, progress: Any, emit: Any) -> dict[str, Any]:
        try:
            return await self.registry.execute(
                name, args, thread_id=ctx.thread_id, workspace=ctx.workspace,
                progress=progress, abort=ctx.abort, timeout=timeout, emit=emit,
                execution_id=ctx.run_id)
        except ToolError as exc:  # the tool went away (a reload) after the call was accepted
            return {"success": False, "result": None, "error": str(exc), "files": [],
                    "aborted": False, "execution_id": ctx.run_id}

    @staticmethod
    async def _report(ctx: RunContext, name: str, result: dict[str, Any],
                      pending: list[concurrent.futures.Future[ev.BaseEvent]]) -> None:
        # The tool's last messages are stored before its result, in the order it sent them.
        await asyncio.gather(*(asyncio.wrap_future(f) for f in pending), return_exceptions=True)
        await ctx.emit(ev.ToolResult(
            call_id=ctx.run_id, name=name, success=result["success"], result=result["result"],
            error=result["error"], aborted=result["aborted"]))


def tool_run_agent(tools: ToolRegistry) -> ToolRunAgent:
    return ToolRunAgent(tools)
