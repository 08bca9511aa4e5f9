"""An MCP server for edge cases: a tool whose name holds ``__`` (so ``a`` + ``b__add`` and
``a__b`` + ``add`` are both ``a__b__add``) and a tool answering with many MiB of text.
``DEMO_MARKERS`` names a folder where it writes its pid."""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("edge")


@app.tool(name="b__add")
def b_add(a: int, b: int) -> str:
    """Add, saying who answered."""
    return f"edge says {a + b}"


@app.tool()
def big(mib: int) -> str:
    """``mib`` MiB of text."""
    return "x" * (mib * 1048576)


if __name__ == "__main__":
    Path(os.environ.get("DEMO_MARKERS", "."), "edge-pid").write_text(str(os.getpid()))
    app.run()
