"""A small MCP server written with the SDK's MCPServer, for the tests of MCP tools in shokunin.

``python demo_server.py`` serves stdio; ``python demo_server.py --http PORT TOKEN`` serves
streamable HTTP at /mcp and refuses requests without ``Authorization: Bearer TOKEN``.
``DEMO_MARKERS`` names a folder where ``slow`` notes that it was cancelled and the server
writes its pid.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer

MARKERS = Path(os.environ.get("DEMO_MARKERS", "."))
app = MCPServer("demo")
calls = {"n": 0}


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def bump() -> int:
    """Count this session's calls: the count lives in the server process."""
    calls["n"] += 1
    return calls["n"]


@app.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Report progress once per step, 0.2 s apart."""
    try:
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1} of {steps}")
            await anyio.sleep(0.2)
    except BaseException:
        (MARKERS / "slow-cancelled").write_text("cancelled")
        raise
    return f"{steps} steps done"


@app.tool()
def picture() -> Image:
    """A 1x1 red PNG."""
    return Image(data=_png(), format="png")


@app.tool()
def fail(reason: str) -> str:
    """Always raises with the reason."""
    raise RuntimeError(reason)


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = zlib.compress(b"\x00\xff\x00\x00")
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def _serve_http(port: int, token: str) -> None:
    import uvicorn
    from starlette.types import ASGIApp, Receive, Scope, Send

    inner = app.streamable_http_app(stateless_http=True)

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no token"})
            return
        await inner(scope, receive, send)

    asgi: ASGIApp = guarded  # lifespan messages reach the SDK's app: it runs its manager
    uvicorn.run(asgi, host="127.0.0.1", port=port, log_level="warning")

if __name__ == "__main__":
    MARKERS.mkdir(parents=True, exist_ok=True)
    (MARKERS / "pid").write_text(str(os.getpid()))
    if len(sys.argv) == 4 and sys.argv[1] == "--http":
        _serve_http(int(sys.argv[2]), sys.argv[3])
    else:
        app.run()
