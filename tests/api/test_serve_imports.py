"""What the web server imports before it serves (issue 50, point 2): the stack its faces
run on, not the libraries of routes nobody asked for yet. ``/mcp`` (the MCP SDK) and
``/socket.io`` (python-socketio and aiohttp) are opened by their first request; pandas,
DuckDB and numpy come with the first upload or vector, matplotlib with the first diagram.
A fresh interpreter serves ``/health``, then each lazy route, and says what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

_SERVE = """
import json, sys
from fastapi.testclient import TestClient
from shokunin.api import create_app
from shokunin.config import Settings

def top():
    return sorted({m.split(".")[0] for m in sys.modules})

data = sys.argv[1]
settings = Settings(data_dir=data + "/data", tools_dirs=[], sandbox_pool_size=0,
                    tool_settings_file=data + "/s.json")
seen = {}
with TestClient(create_app(settings)) as client:
    assert client.get("/health").status_code == 200
    seen["health"] = top()
    mcp = client.post("/mcp", json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}}},
        headers={"Accept": "application/json, text/event-stream"})
    seen["mcp"] = [mcp.status_code, "serverInfo" in mcp.text, top()]
    sio = client.get("/socket.io/?EIO=4&transport=polling")
    seen["socket"] = [sio.status_code, sio.text[:1], top()]
print(json.dumps(seen))
"""

LAZY = {"mcp", "mcp_types", "socketio", "engineio", "aiohttp", "pandas", "numpy", "pyarrow",
        "duckdb", "matplotlib"}


def test_health_is_served_before_the_libraries_of_lazy_routes_are_imported(
        tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _SERVE, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(LAZY & set(seen["health"])) == []
    status, initialized, modules = seen["mcp"]
    assert status == 200 and initialized  # the SDK came with the first request, and answered
    assert {"mcp", "mcp_types"} <= set(modules)
    status, packet, modules = seen["socket"]
    assert status == 200 and packet == "0"  # Engine.IO's open packet
    assert "socketio" in modules
