"""shokunin's tool system (seed 003) as MCP tools: listing and calling.

Only valid tools of shokunin's own folders are exposed (``builtin`` and ``user``); tools
that came from other MCP servers are never re-exported. A tool's declaration is its MCP
tool: the function name, the description and ``parameters`` as the input schema. A call is
a run of the ``tool`` agent, started through the Runner as ``POST /api/tools/{name}/
execute/stream`` starts it: progress messages become progress notifications, a cancelled
request cancels the run (the tool's abort_event), and returned files come back as content.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from shokunin import events as ev
from shokunin.agents import tool_run
from shokunin.mcp.server import content
from shokunin.mcp.server.runs import Caller, follow
from shokunin.tools import InvalidArguments, ToolInfo, ToolNotFound, ToolRegistry

EXPOSED_SOURCES = ("builtin", "user")
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def exposed(info: ToolInfo) -> bool:
    """Whether the tool is served over MCP: one of shokunin's own, and valid."""
    return info.ok and info.source in EXPOSED_SOURCES


def mcp_name(info: ToolInfo) -> str:
    """What an MCP client calls it: the function name a model calls, else the folder."""
    return info.function_name or info.name


def input_schema(info: ToolInfo) -> dict[str, Any]:
    schema = (info.declaration or {}).get("parameters")
    # MCP input schemas are objects; a declaration without one takes no arguments.
    if isinstance(schema, dict) and schema.get("type") == "object":
        return schema
    return EMPTY_SCHEMA


def describe(info: ToolInfo) -> types.Tool:
    declaration = info.declaration or {}
    return types.Tool(name=mcp_name(info), title=info.title,
                      description=declaration.get("description") or info.description,
                      input_schema=input_schema(info))


def listed(registry: ToolRegistry) -> list[types.Tool]:
    return [describe(info) for info in registry.list() if exposed(info)]


def find(registry: ToolRegistry, name: str) -> ToolInfo:
    """The tool an MCP client named, valid or not; MCPError for a name that is not ours."""
    try:
        info = registry.get(name)
    except ToolNotFound:
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}") from None
    if info.source not in EXPOSED_SOURCES:  # another MCP server's tool: not ours to serve
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")
    return info


async def call(caller: Caller, name: str, args: dict[str, Any]) -> types.CallToolResult:
    registry: ToolRegistry = caller.engine.tools
    info = find(registry, name)
    if not info.ok:
        return content.error(f"tool {name!r} is unavailable: {info.error}")
    try:
        run_id = await tool_run.start(caller.engine.runner, registry, caller.who, info.name,
                                      args)
    except InvalidArguments as exc:
        # The spec asks for input validation errors as tool errors: a model can fix them.
        return content.error(f"invalid arguments for {name!r}: {exc}", code=str(exc.code))
    events = await follow(caller, run_id, _progress)
    outcome = tool_run.Outcome(run_id)
    return await _result(next(filter(None, map(outcome.see, events))), run_id)


def _progress(event: ev.BaseEvent) -> str | None:
    return event.message if isinstance(event, ev.Progress) else None


async def _result(outcome: tool_run.ToolOutcome, run_id: str) -> types.CallToolResult:
    files = await anyio.to_thread.run_sync(content.file_blocks, outcome.files, run_id)
    if not outcome.success:
        result = content.error(outcome.error or "the tool failed", run_id=run_id,
                               aborted=outcome.aborted)
        result.content += files
        return result
    value = outcome.result
    said = [] if value is None else [content.text(content.as_text(value))]
    return types.CallToolResult(content=[*said, *files],
                                structured_content={"result": value, "run_id": run_id})
