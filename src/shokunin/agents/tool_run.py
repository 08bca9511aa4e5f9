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

from pydantic import BaseModel, ConfigDict

from shokunin import events as ev
from shokunin.runs import RunContext, Runner, ThreadNotFound, access, new_thread_id
from shokunin.tools import ToolError, ToolRegistry

NAME = "tool"
CANCELLED = "中断されました"  # seed 003's word for an aborted execution


class ToolOutcome(BaseModel):
    """The seed 003 result of one execution, as every face (REST, SSE, MCP) answers it."""

    model_config = ConfigDict(extra="allow")

    success: bool
    result: Any = None
    error: str | None = None
    files: list[dict[str, Any]] = []
    aborted: bool = False
    execution_id: str


class Outcome:
    """Follows a tool run's events to its ``ToolOutcome``: the run's output when it
    completed, else what its ``tool_result`` (or its end) said."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._said: ev.ToolResult | None = None

    def see(self, event: ev.BaseEvent) -> ToolOutcome | None:
        """The outcome once ``event`` ends the run; None before."""
        if isinstance(event, ev.ToolResult):
            self._said = event
        if not ev.is_terminal(event):
            return None
        if isinstance(event, ev.RunCompleted) and event.output:
            return ToolOutcome.model_validate(event.output)
        if (said := self._said) is not None:
            return ToolOutcome(success=said.success, result=said.result, error=said.error,
                               aborted=said.aborted, execution_id=self.run_id)
        error = event.error if isinstance(event, ev.RunFailed) else CANCELLED
        return ToolOutcome(success=False, error=error, aborted=isinstance(event, ev.RunCancelled),
                           execution_id=self.run_id)


async def start(runner: Runner, registry: ToolRegistry, who: str | None, name: str,
                args: dict[str, Any], *, timeout: float | None = None,
                thread_id: str | None = None) -> str:
    """Start one execution of the tool ``name`` as a run on ``thread_id`` (a new thread when
    None; ``who`` must be allowed to use it); the run's id. Raises the registry's
    ``ToolNotFound`` / ``InvalidArguments`` before any run exists."""
    thread_id = thread_id or new_thread_id()
    info = registry.get(name)
    registry.validate_args(info.name, args)
    if not await access.may_use(runner.store, who, thread_id):
        raise ThreadNotFound(f"no thread {thread_id!r}")
    return await runner.start(NAME, thread_id,
                              {"tool": info.name, "args": args, "timeout": timeout}, owner=who)


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
