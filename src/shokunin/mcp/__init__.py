"""MCP both ways: shokunin's tools as an MCP server, MCP servers' tools inside shokunin."""
