"""The peer for bench/mcp_bench.py: a bare SDK ``MCPServer`` with one tool doing the same
work as shokunin's builtin calculator (its own ``evaluate``), nothing around it.

    python bench/peer_mcp_server.py stdio
    python bench/peer_mcp_server.py http --port 8001    # stateless, SSE, at /mcp
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src/shokunin/tools/builtin/"
                       "calculator"))
import calculator_tool  # noqa: E402 - the builtin tool's own module, from its folder

peer = MCPServer("peer")


@peer.tool()
def calculator(expression: str) -> dict[str, Any]:
    """Evaluate an arithmetic expression exactly."""
    return calculator_tool.execute({"expression": expression}, {})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    if args.transport == "stdio":
        peer.run("stdio")
    else:
        peer.run("streamable-http", host="127.0.0.1", port=args.port, stateless_http=True,
                 json_response=False)
