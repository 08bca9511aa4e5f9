"""MCP both ways: shokunin's tools as an MCP server, MCP servers' tools inside shokunin."""

from typing import Any

_SERVER_NAMES = {"McpEndpoint": "shokunin.mcp.server_http", "build_server": "shokunin.mcp.server",
                 "serve_stdio": "shokunin.mcp.server"}


def __getattr__(name: str) -> Any:
    # The server side imports the web faces (api/, which import tools/): loaded on first
    # use, so a module of tools/ may import this package's client side without a cycle.
    if name in _SERVER_NAMES:
        import importlib

        return getattr(importlib.import_module(_SERVER_NAMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["McpEndpoint", "build_server", "serve_stdio"]
