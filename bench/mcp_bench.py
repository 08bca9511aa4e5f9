"""Tool-call overhead through shokunin's MCP server on loopback, beside the peers.

One cheap builtin tool (the calculator, ``2+3``) called N times one after another on one
connection, each way: shokunin's own ``POST /api/tools/calculator/execute``; shokunin's MCP
server over streamable HTTP at ``/mcp`` and over stdio (``shokunin mcp serve``); and a bare
SDK ``MCPServer`` doing the same work (bench/peer_mcp_server.py) over both transports.
Every shokunin call is a stored run of the ``tool`` agent; the peer's is a function call.

The other way round, the peer is then an MCP server shokunin uses: its tool called through
shokunin's ToolRegistry (the long-lived session every agent's call goes through), and
through ``POST /api/tools/peer__calculator/execute`` (a stored run), beside the SDK's own
``Client`` calling it directly (the "peer: bare MCPServer, stdio" row).

    python bench/mcp_bench.py              # 300 calls each, after 20 warm-up calls
    python bench/mcp_bench.py --calls 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters
from rich.console import Console
from rich.table import Table

from shokunin.mcp.client.tools import McpTools
from shokunin.tools import ToolRegistry

HERE = Path(__file__).resolve().parent
ARGS = {"expression": "2+3"}
WARMUP = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shokunin_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
    env.update({"SHOKUNIN_DATA_DIR": str(data_dir), "SHOKUNIN_SANDBOX_POOL_SIZE": "0",
                "SHOKUNIN_TOOLS_DIRS": "[]",
                "SHOKUNIN_MCP_CONFIG": str(data_dir / "mcp.json")})
    return env


def peer_config(path: Path) -> Path:
    """An MCP configuration listing the peer over stdio, as a user would list a server."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"peer": {
        "command": sys.executable, "args": [str(HERE / "peer_mcp_server.py"), "stdio"]}}}))
    return path


async def via_registry(base: Path, n: int) -> list[float]:
    registry = ToolRegistry([], base / "settings.json", workspace_root=base / "ws",
                            mcp=McpTools(peer_config(base / "mcp.json"), state_dir=base))
    await registry.connect()
    try:
        async def call() -> None:
            result = await registry.execute("peer__calculator", ARGS)
            assert result["result"]["result"]["value"] == "5", result  # the seed dict
        return await timed(n, call)
    finally:
        await registry.close()


def spawn(argv: list[str], env: dict[str, str], port: int, log: Path
          ) -> subprocess.Popen[bytes]:
    """Start a server; ready once it accepts connections (uvicorn listens after startup)."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[2]} exited:\n{log.read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{argv} did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def timed(n: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    for _ in range(WARMUP):
        await call()
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def via_rest(url: str, n: int, tool: str = "calculator") -> list[float]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        async def call() -> None:
            answer = (await http.post(f"/api/tools/{tool}/execute", json={"args": ARGS})).json()
            value = answer["result"] if tool == "calculator" else answer["result"]["result"]
            assert value["value"] == "5", answer
        return await timed(n, call)


async def via_mcp(server: str | StdioServerParameters, n: int) -> list[float]:
    async with Client(server) as client:
        async def call() -> None:
            result = await client.call_tool("calculator", ARGS)
            assert not result.is_error and '"5"' in result.content[0].text, result
        return await timed(n, call)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def main(calls: int) -> None:
    table = Table(title=f"MCP tool-call overhead on loopback (calculator 2+3, {calls} calls)")
    for column in ("path", "p50 ms", "p99 ms", "aim"):
        table.add_column(column, justify="left" if column == "path" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        port, peer_port = free_port(), free_port()
        (base / "http").mkdir()
        peer_config(base / "http" / "mcp.json")
        shokunin = spawn([sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                          "--log-level", "warning"], shokunin_env(base / "http"),
                         port, base / "shokunin.log")
        peer = spawn([sys.executable, str(HERE / "peer_mcp_server.py"), "http", "--port",
                      str(peer_port)], dict(os.environ), peer_port, base / "peer.log")
        try:
            rows = [
                ("shokunin REST POST /api/tools/.../execute", "-",
                 await via_rest(f"http://127.0.0.1:{port}", calls)),
                ("shokunin MCP, streamable HTTP /mcp", "< 20",
                 await via_mcp(f"http://127.0.0.1:{port}/mcp", calls)),
                ("shokunin MCP, stdio (shokunin mcp serve)", "< 20", await via_mcp(
                    StdioServerParameters(command=sys.executable,
                                          args=["-m", "shokunin", "mcp", "serve"],
                                          env=shokunin_env(base / "stdio")), calls)),
                ("peer: bare MCPServer, streamable HTTP", "-",
                 await via_mcp(f"http://127.0.0.1:{peer_port}/mcp", calls)),
                ("peer: bare MCPServer, stdio", "-", await via_mcp(
                    StdioServerParameters(command=sys.executable,
                                          args=[str(HERE / "peer_mcp_server.py"), "stdio"]),
                    calls)),
                ("peer as a shokunin tool: registry, stdio", "-",
                 await via_registry(base / "registry", calls)),
                ("peer as a shokunin tool: REST (stored run)", "-",
                 await via_rest(f"http://127.0.0.1:{port}", calls, "peer__calculator")),
            ]
        finally:
            stop(shokunin)
            stop(peer)
    for name, aim, samples in rows:
        p50, p99 = percentiles(samples)
        table.add_row(name, f"{p50:.2f}", f"{p99:.2f}", aim)
    Console().print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))
