"""Venv tools: own environment, child process, progress, abort, timeout, restarts."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from shokunin.tools import ToolRegistry
from shokunin.tools import venv as venv_module
from tests.tools.conftest import VENV_TOOL, make_tool, registry_for
from tests.waiting import eventually


@pytest.fixture
async def vreg(tmp_path: Path, venv_root: Path) -> ToolRegistry:
    registry = registry_for(tmp_path, venv_root)
    yield registry
    await registry.close()


async def test_runs_in_its_own_isolated_venv_child(vreg: ToolRegistry, venv_root: Path) -> None:
    messages: list[str] = []
    result = await vreg.execute("venv_probe", {"mode": "info"}, progress=messages.append,
                                thread_id="th")
    assert result["success"], result
    info = result["result"]
    assert info["pid"] != os.getpid()
    assert Path(info["prefix"]) == (venv_root / "venv_probe" / ".venv").resolve()
    assert info["jsonschema"] is False  # no --system-site-packages, no server venv
    assert messages == ["step 1", "step 2"]
    context = info["context"]
    assert context["has_venv"] is True and context["chat_id"] == "th"
    assert context["venv_python"].endswith(".venv/bin/python")
    assert {"tool_dir", "settings", "execution_id", "workspace", "message_callback",
            "abort_event"} <= set(context)
    assert "emit" not in context


async def test_warm_child_is_reused_and_restarted_after_death(vreg: ToolRegistry) -> None:
    first = (await vreg.execute("venv_probe", {"mode": "info"}))["result"]["pid"]
    second = (await vreg.execute("venv_probe", {"mode": "info"}))["result"]["pid"]
    assert first == second
    died = await vreg.execute("venv_probe", {"mode": "die"})
    assert not died["success"] and "exited (code 3)" in died["error"]
    third = (await vreg.execute("venv_probe", {"mode": "info"}))["result"]["pid"]
    assert third != first


async def test_abort_reaches_the_child(vreg: ToolRegistry) -> None:
    messages: list[str] = []
    call = asyncio.ensure_future(vreg.execute("venv_probe", {"mode": "wait_abort"},
                                              execution_id="va", progress=messages.append))
    await eventually(lambda: messages, 120, what="the tool running in its venv")
    assert await vreg.abort("va")
    result = await asyncio.wait_for(call, 5)
    assert result["aborted"] and result["error"] == "中断されました"
    assert (await vreg.execute("venv_probe", {"mode": "ok"}))["success"]


async def test_timeout_kills_the_child(vreg: ToolRegistry) -> None:
    before = (await vreg.execute("venv_probe", {"mode": "info"}))["result"]["pid"]
    result = await vreg.execute("venv_probe", {"mode": "hang"}, timeout=0.3)
    assert result["error"] == "timed out after 0.3 s"
    after = (await vreg.execute("venv_probe", {"mode": "info"}))["result"]["pid"]
    assert after != before


@pytest.mark.parametrize(("mode", "reason"), [
    ("raise", "the tool raised KeyError: 'nope'"),
    ("non_json", "malformed result: result is not JSON-serialisable"),
])
async def test_child_failures_are_results(vreg: ToolRegistry, mode: str, reason: str) -> None:
    result = await vreg.execute("venv_probe", {"mode": mode})
    assert not result["success"] and reason in result["error"]


async def test_ten_concurrent_venv_calls(vreg: ToolRegistry) -> None:
    results = await asyncio.gather(*[vreg.execute("venv_probe", {"mode": "ok"})
                                      for _ in range(10)])
    assert all(r["success"] for r in results)


async def test_build_reports_progress_and_rebuilds_when_requirements_change(
        tmp_path: Path) -> None:
    folder = make_tool(tmp_path / "tool", "fresh", VENV_TOOL.replace("venv_probe", "fresh"),
                       requirements="# v1\n")
    registry = registry_for(tmp_path, tmp_path / "tool")
    messages: list[str] = []
    try:
        assert (await registry.execute("fresh", {"mode": "ok"}, progress=messages.append))[
            "success"]
        assert any("仮想環境を作成しています" in m for m in messages)
        assert venv_module.is_ready(folder)
        messages.clear()
        assert (await registry.execute("fresh", {"mode": "ok"}, progress=messages.append))[
            "success"]
        assert messages == []  # built once
        (folder / "requirements.txt").write_text("# v2\n")
        assert not venv_module.is_ready(folder)
        await registry.execute("fresh", {"mode": "ok"}, progress=messages.append)
        assert any("作り直しています" in m for m in messages)
        assert venv_module.is_ready(folder)
    finally:
        await registry.close()


async def test_failed_build_is_a_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tool(tmp_path / "tool", "nobuild", VENV_TOOL.replace("venv_probe", "nobuild"),
              requirements="--no-index\nnot-a-package-anywhere-xyz\n")
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    registry = registry_for(tmp_path, tmp_path / "tool")
    result = await registry.execute("nobuild", {"mode": "ok"})
    assert not result["success"] and "venv build failed" in result["error"]
    assert not venv_module.is_ready(tmp_path / "tool" / "nobuild")


def test_venv_is_isolated_from_system_site_packages(venv_root: Path) -> None:
    cfg = (venv_root / "venv_probe" / ".venv" / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in cfg


STDLIB_NAMES = '''
import secrets
import venv

TOOL_NAME = "stdlib user"
TOOL_DESCRIPTION = "imports standard modules whose names the server's own modules share"
TOOL_ICON = "x"


def get_function_declaration():
    return {"name": "stdlib_user", "description": "x",
            "parameters": {"type": "object", "properties": {}}}


def execute(args, context):
    return {"success": True, "result": [venv.__file__, len(secrets.token_hex(4))]}
'''


async def test_the_servers_modules_do_not_shadow_a_venv_tools_imports(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    folder = make_tool(root, "stdlib_user", STDLIB_NAMES, requirements="# none\n")
    venv_module.VenvManager().ensure(folder)
    registry = registry_for(tmp_path, root)
    try:
        result = await registry.execute("stdlib_user", {})
    finally:
        await registry.close()
    assert result["success"], result
    assert "shokunin" not in result["result"][0] and result["result"][1] == 8
