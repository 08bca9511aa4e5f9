"""Tools for agents: LangChain StructuredTools and OpenAI-style function schemas.

Each call of an adapted tool tells the run what happens (ToolCall, Progress..., ToolResult
events through ``ctx.emit``) and gives the model the result as a JSON string, so a failing
tool is something the model reads and can react to, never an exception in the graph.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool, StructuredTool

from shokunin.events import Progress, ToolCall, ToolResult

if TYPE_CHECKING:
    from collections.abc import Callable, Set

    from shokunin.runs import RunContext
    from shokunin.tools import ToolInfo, ToolRegistry


def function_schemas(registry: ToolRegistry) -> list[dict[str, Any]]:
    """Every usable tool in OpenAI function-calling form (``{"type": "function", ...}``)."""
    return [{"type": "function", "function": info.declaration}
            for info in registry.list() if info.ok and info.declaration]


def as_langchain_tools(registry: ToolRegistry, run: RunContext | Callable[[], RunContext], *,
                       exclude: Set[str] = frozenset()) -> list[BaseTool]:
    """One StructuredTool per usable tool, named by its function name.

    ``run`` is the run the calls belong to, or a function that finds it when a call starts
    (for tools built once and called by many runs). ``exclude`` holds folder or function
    names to leave out. Aborting the run (``ctx.abort``) aborts the tool call in flight.
    """
    of_call = run if callable(run) else lambda: run
    return [_adapt(registry, of_call, info) for info in registry.list()
            if info.ok and info.name not in exclude and info.function_name not in exclude]


def _adapt(registry: ToolRegistry, run: Callable[[], RunContext], info: ToolInfo) -> BaseTool:
    assert info.declaration is not None and info.function_name is not None
    name = info.name

    async def call(**args: Any) -> str:
        ctx = run()

        def progress(message: str) -> None:  # from the tool's worker thread
            ctx.emit_threadsafe(Progress(message=message, source=name))

        call_id = uuid.uuid4().hex
        ctx.bind_loop()
        await ctx.emit(ToolCall(call_id=call_id, name=name, args=args))
        result = await registry.execute(
            name, args, thread_id=ctx.thread_id, workspace=ctx.workspace, progress=progress,
            abort=ctx.abort, emit=ctx.emit_threadsafe, execution_id=call_id)
        await ctx.emit(ToolResult(call_id=call_id, name=name, success=result["success"],
                                  result=result["result"], error=result["error"],
                                  aborted=result["aborted"]))
        return json.dumps(result, ensure_ascii=False)

    return StructuredTool.from_function(
        coroutine=call, name=info.function_name,
        description=info.declaration.get("description") or info.description or info.title or "",
        args_schema=info.declaration["parameters"])
