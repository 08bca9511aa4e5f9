"""MCP both ways: ``server/`` is shokunin as an MCP server (a face, over stdio and at
``/mcp``); ``client/`` brings the configured MCP servers' tools into the tool registry."""

__all__: list[str] = []
