"""McpTools: the tools of the configured MCP servers, as tools the registry lists and runs.

Each tool is named ``<server>__<tool>`` (what a model calls it too), carries
``source="mcp"`` and its server's name, and takes the server's input schema as its
parameters. A server that is down, still connecting or wrongly configured is listed as
one unavailable entry named after the server, with the reason; the others are unaffected.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from jsonschema import SchemaError, validators
from mcp.shared.exceptions import MCPError

from shokunin.config import Settings
from shokunin.mcp.client.connection import McpConnection, McpUnavailable
from shokunin.mcp.client.results import DEFAULT_MAX_BYTES, seed_result
from shokunin.mcp.client.servers import ConfiguredServer, read_servers
from shokunin.tools import (
    CONNECT_WAIT_SEC,
    MAX_NAME,
    ArgsValidator,
    LoadedTool,
    RemoteCall,
    ToolInfo,
)


class McpTools:
    """The connections to the servers of ``config_file`` (``{"mcpServers": {...}}``)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> McpTools:
        return cls(settings.mcp_config, state_dir=settings.data_dir / "mcp",
                   max_result_bytes=int(settings.mcp_max_result_mb * 1048576))

    def __init__(self, config_file: Path | None, *, state_dir: Path,
                 max_result_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.config_file = config_file
        self.state_dir = state_dir
        self.max_result_bytes = max_result_bytes  # the bound of one tool result
        self.servers, self.problem = read_servers(config_file)
        self.on_change: Callable[[], None] = lambda: None
        self._connections: dict[str, McpConnection] = {}

    async def start(self, wait: float = CONNECT_WAIT_SEC) -> None:
        """Open a session with every usable server; wait up to ``wait`` for first answers."""
        for server in self.servers:
            if server.spec is not None and server.name not in self._connections:
                connection = McpConnection(server.name, server.spec,
                                           stderr_dir=self.state_dir,
                                           on_change=lambda: self.on_change())
                self._connections[server.name] = connection
                connection.start()
        await asyncio.gather(*(c.wait_settled(wait) for c in self._connections.values()))

    async def close(self) -> None:
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections))

    def status(self) -> list[dict[str, Any]]:
        """Each server's public description (no env or header values), status and tools."""
        rows = []
        for server in self.servers:
            connection = self._connections.get(server.name)
            status, error = self._state(server, connection)
            rows.append({**server.public(), "status": status, "error": error,
                         "tools": [tool_name(server.name, t.name) for t in
                                   (connection.tools if connection else [])]})
        return rows

    def loaded(self) -> list[LoadedTool]:
        """What the registry lists: every tool of a connected server, one entry per other."""
        tools: list[LoadedTool] = []
        if self.problem:
            tools.append(_unavailable("mcp", None, self.problem, self.state_dir))
        for server in self.servers:
            connection = self._connections.get(server.name)
            status, error = self._state(server, connection)
            if status != "ok" or connection is None:
                tools.append(_unavailable(server.name, server.name, f"MCP server "
                                          f"{server.name!r}: {error}", self.state_dir))
                continue
            tools += [_adapt(connection, tool, self.state_dir, self.max_result_bytes)
                      for tool in connection.tools]
        return tools

    @staticmethod
    def _state(server: ConfiguredServer, connection: McpConnection | None
               ) -> tuple[str, str | None]:
        if server.problem:
            return "error", server.problem
        if connection is None:
            return "error", "not connected (the server was not started in this process)"
        if connection.status == "connecting":
            return "connecting", "still connecting"
        return connection.status, connection.error


def tool_name(server: str, tool: str) -> str:
    """``<server>__<tool>``, in the characters and length model APIs accept."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}__{tool}")[:MAX_NAME]


def _unavailable(name: str, server: str | None, error: str, root: Path) -> LoadedTool:
    info = ToolInfo(name=name, source="mcp", server=server, status="error", error=error)
    return LoadedTool(info, root, root)


def _adapt(connection: McpConnection, tool: types.Tool, root: Path,
           max_bytes: int) -> LoadedTool:
    name = tool_name(connection.name, tool.name)
    description = tool.description or tool.title or tool.name
    parameters = {"type": "object", "properties": {}, **tool.input_schema}
    info = ToolInfo(name=name, function_name=name, title=tool.title or tool.name,
                    description=description, source="mcp", server=connection.name,
                    declaration={"name": name, "description": description,
                                 "parameters": parameters})
    try:
        validators.validator_for(parameters).check_schema(parameters)
    except SchemaError as exc:
        info.status, info.error = "error", f"its input schema is not valid: {exc.message}"
        return LoadedTool(info, root, root)
    return LoadedTool(info, root, root, check_args=ArgsValidator(parameters),
                      remote=_caller(connection, tool.name, name, max_bytes))


def _caller(connection: McpConnection, tool: str, name: str, max_bytes: int) -> RemoteCall:
    async def call(args: dict[str, Any], progress: Callable[..., None],
                   workspace: Path) -> dict[str, Any]:
        async def report(done: float, total: float | None, message: str | None) -> None:
            progress(message or (f"{done:g}/{total:g}" if total else f"{done:g}"))

        try:
            result = await connection.call(tool, args, report)
        except McpUnavailable as exc:
            return {"success": False, "error": str(exc)}
        except MCPError as exc:
            return {"success": False,
                    "error": f"MCP server {connection.name!r} refused the call: {exc.message}"}
        return seed_result(result, tool=name, workspace=workspace, max_bytes=max_bytes)

    return call
