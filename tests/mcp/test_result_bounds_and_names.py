"""An MCP tool's result is bounded without losing the session, and a tool name keeps its
owner while a server reconnects."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from shokunin.mcp.client.tools import McpTools
from shokunin.tools import ToolRegistry
from tests.mcp.test_client_tools import demo_stdio
from tests.waiting import eventually

EDGE = Path(__file__).with_name("edge_server.py")


def edge_stdio(markers: Path) -> dict:
    return {"command": sys.executable, "args": [str(EDGE)],
            "env": {"DEMO_MARKERS": str(markers), "PYTHONPATH": os.pathsep.join(sys.path)}}


async def _registry(tmp_path: Path, servers: dict, max_bytes: int = 1048576) -> ToolRegistry:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    registry = ToolRegistry([], tmp_path / "settings.json",
                            workspace_root=tmp_path / "workspaces",
                            mcp=McpTools(config, state_dir=tmp_path / "mcp",
                                         max_result_bytes=max_bytes))
    await registry.connect()
    return registry


async def test_a_huge_result_is_cut_with_a_note_and_the_session_goes_on(
        tmp_path: Path) -> None:
    registry = await _registry(tmp_path, {"edge": edge_stdio(tmp_path)})
    try:
        result = await registry.execute("edge__big", {"mib": 8}, timeout=60)
        assert result["success"] is True
        text = json.dumps(result["result"])
        assert len(text) < 1.2 * 1048576 and "text cut at 1.0 MiB of 8.0 MiB" in text
        assert "SHOKUNIN_MCP_MAX_RESULT_MB" in text
        again = await registry.execute("edge__b__add", {"a": 1, "b": 2})
        assert again["success"] and "edge says 3" in json.dumps(again["result"])
    finally:
        await registry.close()


async def test_a_colliding_name_stays_with_the_first_configured_server_across_a_reconnect(
        tmp_path: Path) -> None:
    # "a" (first) offers b__add, "a__b" offers add: both are "a__b__add".
    registry = await _registry(tmp_path, {"a": edge_stdio(tmp_path),
                                          "a__b": demo_stdio(tmp_path)})
    try:
        names = {info.name: info for info in registry.list()}
        assert names["a__b__add"].server == "a" and names["_a__b__add"].server == "a__b"
        os.kill(int((tmp_path / "edge-pid").read_text()), signal.SIGKILL)
        down = await registry.execute("a__b__add", {"a": 1, "b": 2})
        assert down["success"] is False  # "a" is down: its name is not handed to "a__b"
        names = {info.name: info for info in registry.list()}
        assert "a__b__add" not in names or names["a__b__add"].server == "a"
        assert names["_a__b__add"].server == "a__b"
        await eventually(lambda: any(i.name == "a__b__add" and i.ok for i in registry.list()),
                         15, interval=0.1, what="a__b__add back")
        back = await registry.execute("a__b__add", {"a": 1, "b": 2})
        assert back["success"] and "edge says 3" in json.dumps(back["result"])
        moved = await registry.execute("_a__b__add", {"a": 1, "b": 2})
        assert moved["result"] == {"result": 3}  # the demo server's add, renamed
    finally:
        await registry.close()
