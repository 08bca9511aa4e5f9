"""MCP servers' tools inside shokunin: listed by the registry, called over one session each,
with progress, abort, timeouts, files and a clear status for a server that is down."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from shokunin.mcp.client.tools import McpTools
from shokunin.tools import ToolRegistry
from tests.waiting import eventually

DEMO = Path(__file__).with_name("demo_server.py")

MakeRegistry = Callable[[dict[str, Any]], Awaitable[ToolRegistry]]


def demo_stdio(markers: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO)],
            "env": {"DEMO_MARKERS": str(markers), "PYTHONPATH": os.pathsep.join(sys.path)}}


@pytest.fixture
async def make_registry(tmp_path: Path) -> AsyncIterator[MakeRegistry]:
    made: list[ToolRegistry] = []

    async def make(servers: dict[str, Any]) -> ToolRegistry:
        config = tmp_path / f"mcp-{len(made)}.json"
        config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
        registry = ToolRegistry([], tmp_path / "settings.json",
                                workspace_root=tmp_path / "workspaces",
                                mcp=McpTools(config, state_dir=tmp_path / "mcp"))
        made.append(registry)
        await registry.connect()
        return registry

    yield make
    for registry in made:
        await registry.close()


async def test_stdio_server_tools_are_listed_with_their_source_and_input_schema(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    tools = {info.name: info for info in registry.list()}
    assert {"demo__add", "demo__bump", "demo__slow", "demo__picture", "demo__fail"} <= set(tools)
    add = tools["demo__add"]
    assert (add.source, add.server, add.status, add.function_name) == (
        "mcp", "demo", "ok", "demo__add")
    assert add.description == "Add two integers."
    assert add.declaration is not None
    assert add.declaration["parameters"]["required"] == ["a", "b"]
    assert add.declaration["parameters"]["properties"]["a"]["type"] == "integer"


async def test_a_call_returns_the_seed_result_and_bad_arguments_are_refused_before_sending(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    result = await registry.execute("demo__add", {"a": 2, "b": 40})
    assert result["success"] is True and result["error"] is None
    assert result["result"] == {"result": 42}
    refused = await registry.execute("demo__add", {"a": "two", "b": 1})
    assert refused["success"] is False and "invalid args at a" in refused["error"]
    raised = await registry.execute("demo__fail", {"reason": "the disk is full"})
    # MCPServer keeps the exception's text to itself: the error is the server's own words.
    assert raised["success"] is False and raised["error"] == "Error executing tool fail"


async def test_calls_share_one_long_lived_session_per_server(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    counts = [(await registry.execute("demo__bump", {}))["result"]["result"] for _ in range(3)]
    assert counts == [1, 2, 3]  # a new session (a new process) per call would say 1, 1, 1
    together = await asyncio.gather(*(registry.execute("demo__add", {"a": i, "b": 1})
                                      for i in range(5)))
    assert [r["result"]["result"] for r in together] == [1, 2, 3, 4, 5]


async def test_progress_notifications_reach_the_caller(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    seen: list[str] = []
    result = await registry.execute("demo__slow", {"steps": 3}, progress=seen.append)
    assert result["result"] == {"result": "3 steps done"}
    assert seen == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]


async def test_abort_cancels_the_request_on_the_server(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    abort = threading.Event()
    seen: list[str] = []

    def progress(message: str) -> None:
        seen.append(message)
        if len(seen) == 2:
            abort.set()

    result = await registry.execute("demo__slow", {"steps": 50}, progress=progress, abort=abort)
    assert result["aborted"] is True and result["success"] is False
    await eventually((tmp_path / "slow-cancelled").exists, 5, interval=0.1,
                     what="the server hearing the cancellation")  # a moment later
    # The session goes on after a cancelled request.
    assert (await registry.execute("demo__add", {"a": 1, "b": 1}))["result"] == {"result": 2}


async def test_a_timeout_stops_the_call_and_says_so(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    result = await registry.execute("demo__slow", {"steps": 50}, timeout=0.5)
    assert result["success"] is False and result["error"] == "timed out after 0.5 s"
    await eventually((tmp_path / "slow-cancelled").exists, 5, interval=0.1,
                     what="the server hearing the cancellation")


async def test_an_image_comes_back_as_a_file_in_the_callers_workspace(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    result = await registry.execute("demo__picture", {}, thread_id="t-images")
    assert result["success"] is True
    [file] = result["files"]
    path = Path(file["path"])
    assert file["type"] == "image/png" and path.suffix == ".png"
    assert path.parent == (tmp_path / "workspaces" / "t-images").resolve()
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


async def test_a_down_server_is_listed_with_its_reason_and_the_others_still_work(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({
        "gone": {"command": str(tmp_path / "no-such-server")},
        "dies": {"command": sys.executable,
                 "args": ["-c", "import os, sys; print('bad API key', os.environ['KEY'], "
                          "file=sys.stderr); sys.exit(3)"],
                 "env": {"KEY": "sk-never-shown"}},
        "typo": {"comand": "x"},
        "demo": demo_stdio(tmp_path),
    })
    tools = {info.name: info for info in registry.list()}
    assert tools["gone"].status == "error" and tools["gone"].source == "mcp"
    assert "command not found" in (tools["gone"].error or "")
    assert "bad API key ********" in (tools["dies"].error or "")  # its stderr says why
    assert "sk-never-shown" not in (tools["dies"].error or "")
    assert '"command"' in (tools["typo"].error or "")
    assert tools["demo__add"].ok
    assert (await registry.execute("demo__add", {"a": 1, "b": 2}))["result"] == {"result": 3}


async def test_a_server_that_dies_is_reported_then_reconnected(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    registry = await make_registry({"demo": demo_stdio(tmp_path)})
    assert (await registry.execute("demo__bump", {}))["result"] == {"result": 1}
    first_pid = (tmp_path / "pid").read_text()
    os.kill(int(first_pid), signal.SIGKILL)
    down = await registry.execute("demo__bump", {})
    assert down["success"] is False and "MCP server 'demo'" in down["error"]
    assert {i.name: i for i in registry.list()}["demo"].status == "error"  # listed as down
    await eventually(lambda: "demo__bump" in {i.name for i in registry.list()}, 10,
                     interval=0.1, what="the server reconnected")  # after about a second
    assert (tmp_path / "pid").read_text() != first_pid
    again = await registry.execute("demo__bump", {})
    assert again["result"] == {"result": 1}  # a new process: its count starts again


def test_the_server_list_never_shows_env_values_header_values_or_url_secrets(
        tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "local": {"command": "npx", "args": ["-y", "some-server"],
                  "env": {"API_KEY": "sk-local-secret-1"}},
        "remote": {"url": "https://user:pw-secret@mcp.example.com/mcp?key=q-secret",
                   "headers": {"Authorization": "Bearer h-secret"}},
    }}), encoding="utf-8")
    status = McpTools(config, state_dir=tmp_path).status()
    text = json.dumps(status)
    for secret in ("sk-local-secret-1", "pw-secret", "q-secret", "h-secret"):
        assert secret not in text
    local, remote = status
    assert local["env"] == ["API_KEY"] and remote["headers"] == ["Authorization"]
    assert remote["url"] == "https://mcp.example.com/mcp?key=%2A%2A%2A"


def test_an_unreadable_configuration_is_one_listed_reason(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text("{not json", encoding="utf-8")
    registry = ToolRegistry([], tmp_path / "settings.json", workspace_root=tmp_path,
                            mcp=McpTools(config, state_dir=tmp_path))
    [entry] = registry.list()
    assert entry.name == "mcp" and entry.status == "error"
    assert "not a readable JSON file" in (entry.error or "")


async def test_shokunin_listed_as_its_own_mcp_server_does_not_start_itself_again(
        make_registry: MakeRegistry, tmp_path: Path) -> None:
    """``shokunin mcp serve`` opens no MCP client sessions (it does not serve their tools),
    so a configuration listing shokunin stops at one level instead of starting processes
    without end."""
    config = {"mcpServers": {"me": {"command": sys.executable,
                                    "args": ["-m", "shokunin", "mcp", "serve"]}}}
    data = tmp_path / "data"
    data.mkdir()
    (data / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    registry = await make_registry({"me": {
        "command": sys.executable, "args": ["-m", "shokunin", "mcp", "serve"],
        "env": {"SHOKUNIN_DATA_DIR": str(data), "SHOKUNIN_MCP_CONFIG": str(data / "mcp.json"),
                "SHOKUNIN_SANDBOX_POOL_SIZE": "0", "SHOKUNIN_TOOLS_DIRS": "[]",
                "PYTHONPATH": os.pathsep.join(sys.path)}}})
    tools = {info.name: info for info in registry.list()}
    assert tools["me__calculator"].ok  # shokunin's own tools, served by the child
    assert not [name for name in tools if name.startswith("me__me__")]
    result = await registry.execute("me__calculator", {"expression": "6 * 7"})
    assert result["success"] is True and result["result"]["result"]["value"] == "42"
    children = _servers_started_by(os.getpid())
    assert len(children) == 1
    assert _servers_started_by(children[0]) == []  # the child started no shokunin of its own


def _servers_started_by(pid: int) -> list[int]:
    """Processes running ``shokunin mcp serve`` whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError):
            continue
        parent = next(line.split()[1] for line in status.splitlines()
                      if line.startswith("PPid:"))
        if int(parent) == pid and b"shokunin mcp serve" in command:
            found.append(int(entry.name))
    return found


async def test_closing_while_a_server_is_still_connecting_stops_its_process(
        tmp_path: Path) -> None:
    """A server that never answers the handshake (here ``sleep``) is still connecting when
    shokunin stops; closing must not leave its process behind."""
    pid_file = tmp_path / "silent.pid"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"silent": {
        "command": "/bin/sh", "args": ["-c", f"echo $$ > {pid_file}; exec sleep 1000"]}}}),
        encoding="utf-8")
    mcp = McpTools(config, state_dir=tmp_path / "mcp")
    await mcp.start(wait=0)
    await eventually(lambda: pid_file.is_file() and pid_file.read_text().strip(),
                     what="the server's process started")
    pid = int(pid_file.read_text())
    await mcp.close()
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not exited, not zombie) process."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))
    if state == "Z":
        return False
    os.kill(pid, signal.SIGKILL)  # do not leave it behind when the assertion fails
    return True


def test_a_refused_url_is_not_echoed_with_its_password_or_query(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "socket": {"url": "wss://user:pw-secret@mcp.example.com/mcp?key=q-secret"},
        "hostless": {"url": "http:///mcp?key=q-secret"},
    }}), encoding="utf-8")
    mcp = McpTools(config, state_dir=tmp_path)
    text = json.dumps(mcp.status()) + json.dumps([t.info.error for t in mcp.loaded()])
    for secret in ("pw-secret", "q-secret"):
        assert secret not in text
    socket, hostless = mcp.status()
    assert "wss" in socket["error"] and "host" in hostless["error"]


async def test_a_down_server_named_like_a_folder_tool_still_says_why_it_is_down(
        tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    (tools / "clock").mkdir(parents=True)
    (tools / "clock" / "clock_tool.py").write_text(
        'TOOL_NAME = "clock"\nTOOL_DESCRIPTION = "d"\nTOOL_ICON = "c"\n'
        "def get_function_declaration():\n"
        '    return {"name": "clock", "description": "d", "parameters": '
        '{"type": "object", "properties": {}}}\n'
        "def execute(args, context):\n    return {\"success\": True, \"result\": 1}\n",
        encoding="utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"clock": {
        "command": str(tmp_path / "no-such-server")}}}), encoding="utf-8")
    registry = ToolRegistry([(tools, "user")], tmp_path / "settings.json",
                            workspace_root=tmp_path / "workspaces",
                            mcp=McpTools(config, state_dir=tmp_path / "mcp"))
    try:
        await registry.connect()
        entry = next(i for i in registry.list() if i.source == "mcp")
        assert entry.status == "error" and "command not found" in (entry.error or "")
        assert registry.get("clock").ok  # the folder tool keeps its name
    finally:
        await registry.close()
