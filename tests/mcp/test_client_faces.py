"""An MCP server's tools from every side of shokunin: over HTTP with headers, in an agent run
driven by the scripted model, in the tools API and server list, and in the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from shokunin.cli.app import app as cli_app
from shokunin.mcp.client.tools import McpTools
from shokunin.models import register_script, unregister_script
from shokunin.runs import Runner
from shokunin.tools import ToolRegistry
from tests.agents.conftest import MakeRunner
from tests.live_server import LiveServer, free_port
from tests.mcp.test_client_tools import DEMO, demo_stdio
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

TOKEN = "demo-http-token-0123456789"


@pytest.fixture
def http_demo(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(DEMO), "--http", str(port), TOKEN],
                            env={"DEMO_MARKERS": str(tmp_path / "http"),
                                 "PYTHONPATH": ":".join(sys.path)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"

    def answers() -> bool:
        try:
            httpx.get(url, timeout=0.5)
        except httpx.HTTPError:
            return False
        return True

    try:
        wait_until(answers, 30, interval=0.1, what="the demo MCP server answering")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


async def test_an_http_server_is_reached_with_its_headers_and_refuses_without_them(
        tmp_path: Path, http_demo: str) -> None:
    config = write_config(tmp_path / "mcp.json", {
        "remote": {"url": http_demo, "headers": {"Authorization": f"Bearer {TOKEN}"}},
        "nokey": {"url": http_demo},
    })
    registry = ToolRegistry([], tmp_path / "s.json", workspace_root=tmp_path / "ws",
                            mcp=McpTools(config, state_dir=tmp_path / "mcp"))
    await registry.connect()
    try:
        tools = {info.name: info for info in registry.list()}
        assert tools["nokey"].status == "error"
        seen: list[str] = []
        result = await registry.execute("remote__slow", {"steps": 2}, progress=seen.append)
        assert result["result"] == {"result": "2 steps done"}
        assert seen == ["step 1 of 2", "step 2 of 2"]  # progress over streamed responses
    finally:
        await registry.close()


@pytest.fixture
def script() -> Iterator[str]:
    register_script("mcp-add", [
        {"tool_calls": [{"name": "demo__add", "args": {"a": 19, "b": 23}}]},
        "19 + 23 = 42 (the demo server's add).",
    ])
    yield "scripted:mcp-add"
    unregister_script("mcp-add")


@pytest.fixture
async def runner_with_mcp(tmp_path: Path, script: str,
                          make_runner: MakeRunner) -> AsyncIterator[Runner]:
    config = write_config(tmp_path / "mcp.json", {"demo": demo_stdio(tmp_path)})
    registry = ToolRegistry([], tmp_path / "s.json", workspace_root=tmp_path / "workspaces",
                            mcp=McpTools(config, state_dir=tmp_path / "mcp"))
    await registry.connect()
    yield await make_runner(script, tools=registry)
    await registry.close()


async def test_an_agent_run_calls_an_mcp_tool_chosen_by_the_model(
        runner_with_mcp: Runner) -> None:
    run_id = await runner_with_mcp.start("workbench", "t-mcp", {"message": "add 19 and 23"})
    events = [e async for e in runner_with_mcp.stream(run_id)]
    calls = [e for e in events if e.kind == "tool_call"]
    results = [e for e in events if e.kind == "tool_result"]
    # The graph reports the model's call, and the tool adapter the execution under it.
    assert {(c.name, str(c.args)) for c in calls} == {("demo__add", "{'a': 19, 'b': 23}")}
    assert all(r.success for r in results)
    assert {"result": 42} in [r.result for r in results]
    assert events[-1].kind == "run_completed"
    text = [e.text for e in events if e.kind == "text"]  # type: ignore[attr-defined]
    assert text == ["19 + 23 = 42 (the demo server's add)."]


@pytest.fixture
def server_with_mcp(tmp_path: Path) -> Iterator[LiveServer]:
    data = tmp_path / "data"
    write_config(data / "userdata" / "mcp.json", {
        "demo": {**demo_stdio(tmp_path), "env": {**demo_stdio(tmp_path)["env"],
                                                  "DEMO_SECRET": "env-secret-value"}},
        "gone": {"command": str(tmp_path / "missing-binary")},
    })
    server = LiveServer(data).start()
    yield server
    server.stop()


def test_the_tools_api_lists_runs_and_reports_mcp_servers(server_with_mcp: LiveServer) -> None:
    base = server_with_mcp.url
    tools = {t["name"]: t for t in httpx.get(f"{base}/api/tools").json()["tools"]}
    assert (tools["demo__add"]["source"], tools["demo__add"]["server"]) == ("mcp", "demo")
    assert tools["gone"]["status"] == "error" and "command not found" in tools["gone"]["error"]
    answer = httpx.post(f"{base}/api/tools/demo__add/execute",
                        json={"args": {"a": 5, "b": 6}}, timeout=30).json()
    assert answer["success"] is True and answer["result"] == {"result": 11}
    servers = httpx.get(f"{base}/api/mcp/servers").json()
    assert "env-secret-value" not in json.dumps(servers)
    by_name = {s["name"]: s for s in servers["servers"]}
    assert by_name["demo"]["status"] == "ok" and "demo__slow" in by_name["demo"]["tools"]
    assert by_name["demo"]["env"] == ["DEMO_MARKERS", "DEMO_SECRET", "PYTHONPATH"]
    assert by_name["gone"]["status"] == "error"


def test_the_cli_lists_shows_and_runs_mcp_tools_with_their_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_config(tmp_path / "mcp.json", {"demo": demo_stdio(tmp_path)})
    monkeypatch.setenv("SHOKUNIN_MCP_CONFIG", str(config))
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", "[]")
    monkeypatch.setenv("COLUMNS", "200")
    cli = CliRunner()
    listed = cli.invoke(cli_app, ["tools", "list"])
    assert listed.exit_code == 0
    line = next(row for row in listed.stdout.splitlines() if row.startswith("demo__add"))
    assert "mcp:demo" in line and " ok " in f"{line} "
    shown = cli.invoke(cli_app, ["tools", "show", "demo__add", "--json"])
    assert shown.exit_code == 0, shown.output
    tool = json.loads(shown.stdout)["tool"]
    assert (tool["source"], tool["server"], tool["status"]) == ("mcp", "demo", "ok")
    ran = cli.invoke(cli_app, ["tools", "run", "demo__add", "--args", '{"a": 1, "b": 2}',
                               "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["result"] == {"result": 3}
