"""A tool with a UI gets ``context["ui_port"]`` and serves its page there, from a child
process of its own, on loopback only; the page lives after the run and ends when stopped,
cancelled, idle, or when the tools close, taking its process with it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from shokunin.tools import ToolError, ToolUi
from shokunin.tools.tool_ui import ToolUis
from shokunin.tools.ui_port import listening_inodes, owns_listener
from tests.tools.conftest import PROBE, make_tool, registry_for
from tests.tools.origin_shapes import make_ui_tool
from tests.waiting import wait_until


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a killed child stays a zombie until reaped: that is gone too
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
            return True
    return False


def _ended(pid: int, port: int) -> None:
    """The page's process gone and its port closed, each within 5 s."""
    wait_until(lambda: _gone(pid), 5, what=f"the UI's process {pid} gone")
    wait_until(lambda: not _accepts(port), 5, what=f"the UI's port {port} closed")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "tool"
    make_ui_tool(root)
    make_tool(root, "probe", PROBE)
    return root


async def test_a_tool_with_an_index_html_gets_a_ui_port_and_its_page_lives(
        tmp_path: Path, root: Path) -> None:
    registry = registry_for(tmp_path, root)
    try:
        assert registry.get("ui_probe").has_ui  # declared by index.html, as in the origin
        result = await registry.execute("ui_probe", {}, thread_id="t1")
        assert result["success"], result
        port, pid = result["result"]["port"], result["result"]["pid"]
        assert result["ui"]["port"] == port
        prefix = f"/api/tools/ui_probe/ui/{result['execution_id']}/"
        key = result["ui"]["url"].removeprefix(prefix).rstrip("/")
        assert result["ui"]["url"] == f"{prefix}{key}/" and len(key) >= 32
        assert pid != os.getpid()  # its own process: it can be stopped
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert "UI OK" in page.text
        ui = registry.live_ui("ui_probe", result["execution_id"])
        assert (ui.port, ui.pid) == (port, pid) and owns_listener(pid, port)
    finally:
        await registry.close()
    _ended(pid, port)  # closing the tools ends the page's process


async def test_the_ui_server_binds_loopback_even_when_the_tool_asks_for_every_address(
        tmp_path: Path, root: Path) -> None:
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("ui_probe", {})
        port = result["ui"]["port"]
        tables = "".join(Path(f"/proc/net/{t}").read_text() for t in ("tcp", "tcp6")
                         if Path(f"/proc/net/{t}").exists())
        mine = [line.split()[1] for line in tables.splitlines()[1:]
                if line.split()[3] == "0A" and line.split()[1].endswith(f":{port:04X}")]
        assert mine == [f"0100007F:{port:04X}"]  # 127.0.0.1, never 0.0.0.0
        assert listening_inodes(port)
    finally:
        await registry.close()


def _own_address() -> str | None:
    """This machine's own non-loopback address, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for UDP connect
        except OSError:
            return None
        address = str(sock.getsockname()[0])
    return None if address.startswith("127.") else address


@pytest.mark.parametrize("host", ["", "0.0.0.0", "own"])
async def test_every_address_or_a_lan_one_becomes_loopback(tmp_path: Path, root: Path,
                                                           host: str) -> None:
    if host == "own":
        host = _own_address() or pytest.skip("this machine has no non-loopback address")
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("ui_probe", {"mode": f"bind:{host}"})
    finally:
        await registry.close()
    assert result["success"] and result["result"] == "127.0.0.1", result


async def test_a_tool_without_a_ui_gets_no_port(tmp_path: Path, root: Path) -> None:
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("probe", {"mode": "context"})
        assert "ui_port" not in result["result"] and "ui" not in result
    finally:
        await registry.close()


async def test_stopping_the_ui_ends_its_process(tmp_path: Path, root: Path) -> None:
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("ui_probe", {})
        port, pid, run = result["ui"]["port"], result["result"]["pid"], result["execution_id"]
        with pytest.raises(ToolError) as other:
            registry.live_ui("probe", run)  # another tool's name: not its UI
        assert other.value.status == 404
        registry.stop_ui("ui_probe", run)
        _ended(pid, port)
        with pytest.raises(ToolError):
            registry.live_ui("ui_probe", run)
    finally:
        await registry.close()


async def test_cancelling_a_running_ui_tool_stops_its_server(tmp_path: Path,
                                                             root: Path) -> None:
    registry = registry_for(tmp_path, root)
    abort = threading.Event()
    said: list[str] = []
    try:
        call = asyncio.ensure_future(registry.execute(
            "ui_probe", {"mode": "wait_abort"}, abort=abort, progress=said.append,
            execution_id="cancelled-run"))
        while not said and not call.done():
            await asyncio.sleep(0.02)
        abort.set()
        result = await call
        assert said, result
        assert result["aborted"] and "ui" not in result
        port = int(said[0].split()[1])
        wait_until(lambda: not _accepts(port), 5,  # its server ended with the run
                   what=f"the UI's port {port} closed")
        with pytest.raises(ToolError):
            registry.live_ui("ui_probe", "cancelled-run")
    finally:
        await registry.close()


async def test_a_port_the_result_reports_is_proxied_only_when_the_tool_listens_there(
        tmp_path: Path, root: Path) -> None:
    registry = registry_for(tmp_path, root)
    stranger = socket.socket()
    stranger.bind(("127.0.0.1", 0))
    stranger.listen()
    try:
        own = await registry.execute("ui_probe", {"mode": "own_port"})
        assert own["success"] and _accepts(own["ui"]["port"])
        lied = await registry.execute("ui_probe", {"mode": "own_port",
                                                   "told": stranger.getsockname()[1]})
        assert lied["success"] and "ui" not in lied  # another process's port: never proxied
    finally:
        stranger.close()
        await registry.close()


async def test_a_ui_tool_that_serves_nothing_leaves_no_live_ui(tmp_path: Path,
                                                                root: Path) -> None:
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("ui_probe", {"mode": "no_server"})
        assert result["success"] and "ui" not in result
        with pytest.raises(ToolError):
            registry.live_ui("ui_probe", result["execution_id"])
    finally:
        await registry.close()


def _fake(execution_id: str, stopped: list[str], used: float | None = None) -> ToolUi:
    ui = ToolUi(execution_id, "t", 1, os.getpid(), lambda: stopped.append(execution_id))
    if used is not None:
        ui.used = used
    return ui


def test_idle_uis_expire_and_the_least_recently_used_go_past_the_cap() -> None:
    stopped: list[str] = []
    uis = ToolUis(idle_sec=60, max_live=2)
    uis.add(_fake("old", stopped, used=time.monotonic() - 120))
    uis.add(_fake("a", stopped))
    assert stopped == ["old"]  # idle past 60 s
    uis.add(_fake("b", stopped))
    uis.add(_fake("c", stopped))
    assert stopped == ["old", "a"] and {u.execution_id for u in uis.live()} == {"b", "c"}
    uis.stop_all()
    assert sorted(stopped) == ["a", "b", "c", "old"] and uis.live() == []


def test_the_sweep_stops_idle_uis_by_itself() -> None:
    stopped: list[str] = []
    uis = ToolUis(idle_sec=0.05, max_live=4)
    uis.add(_fake("x", stopped))
    wait_until(lambda: stopped, 5, what="the sweep stopping the idle UI")
    assert stopped == ["x"] and uis.live() == []


HOLDER = '''
import asyncio, sys
from pathlib import Path
from shokunin.tools import ToolRegistry

async def main():
    tmp = Path(sys.argv[1])
    registry = ToolRegistry([(tmp / "tool", "user")], tmp / "s.json",
                            workspace_root=tmp / "ws")
    result = await registry.execute("ui_probe", {})
    print(result["result"]["pid"], result["ui"]["port"], flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
'''


def test_a_killed_server_leaves_no_tool_ui_behind(tmp_path: Path) -> None:
    """kill -9 of the server closes the child's pipe; the child exits with its server."""
    make_ui_tool(tmp_path / "tool")
    script = tmp_path / "holder.py"
    script.write_text(HOLDER, encoding="utf-8")
    holder = subprocess.Popen([sys.executable, str(script), str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        pid, port = map(int, holder.stdout.readline().split())
        assert _accepts(port)
    finally:
        holder.kill()
        holder.wait()
    _ended(pid, port)
