"""Running in-process tools: context, progress, abort, timeout, malformed results, files."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from shokunin.events import BaseEvent, Text
from shokunin.tools import MASK, ToolNotFound, ToolRegistry
from tests.waiting import eventually


async def test_context_has_the_seed_keys(registry: ToolRegistry, tmp_path: Path) -> None:
    result = await registry.execute("probe", {"mode": "context"}, thread_id="t1",
                                    execution_id="e1")
    context = result["result"]
    assert result["execution_id"] == "e1"
    assert context["tool_dir"] == str((tmp_path / "tool" / "probe").resolve())
    assert context["settings"] == {"api_key": "", "limit": 10, "ratio": 0.5, "verbose": False}
    assert context["execution_id"] == "e1"
    assert context["has_venv"] is False and context["venv_python"] is None
    assert context["message_callback"] == "function"
    assert context["abort_event"] == "Event" and context["runtime"] == "Runtime"
    assert context["chat_id"] == "t1"
    assert context["workspace"] == str(tmp_path / "workspaces" / "t1")
    assert "emit" not in context  # no run, no emit


async def test_emit_is_given_to_in_process_tools(registry: ToolRegistry) -> None:
    seen: list[BaseEvent] = []
    result = await registry.execute("probe", {"mode": "emit"}, emit=seen.append)
    assert result["success"] and isinstance(seen[0], Text)


async def test_progress_messages_arrive_in_order(registry: ToolRegistry) -> None:
    messages: list[str] = []
    result = await registry.execute("probe", {"mode": "progress"}, progress=messages.append)
    assert result["success"] and messages == ["step 0", "step 1", "step 2"]


@pytest.mark.parametrize(("mode", "reason"), [
    ("raise", "the tool raised ValueError: boom"),
    ("not_dict", "malformed result: execute() returned str"),
    ("no_success", 'malformed result: "success" must be true or false'),
    ("non_json", "not JSON-serialisable"),
])
async def test_failures_become_results(registry: ToolRegistry, mode: str, reason: str) -> None:
    result = await registry.execute("probe", {"mode": mode})
    assert result["success"] is False and reason in result["error"]
    assert set(result) == {"success", "result", "error", "files", "aborted", "execution_id"}


async def test_invalid_args_are_a_failed_result(registry: ToolRegistry) -> None:
    result = await registry.execute("probe", {"mode": 3})
    assert not result["success"] and "invalid args at mode" in result["error"]
    with pytest.raises(ToolNotFound):
        await registry.execute("nope", {})


async def test_timeout_returns_without_waiting_for_a_hung_thread(
        registry: ToolRegistry) -> None:
    started = time.monotonic()
    result = await registry.execute("probe", {"mode": "hang"}, timeout=0.2)
    assert time.monotonic() - started < 2
    assert result == {**result, "success": False, "error": "timed out after 0.2 s"}
    # the loop and other calls are unaffected
    assert (await registry.execute("probe", {"mode": "progress"}))["success"]


async def test_per_tool_timeout_setting(registry: ToolRegistry) -> None:
    registry.save_settings("probe", {"timeout_sec": 0.2})
    result = await registry.execute("probe", {"mode": "hang"})
    assert result["error"] == "timed out after 0.2 s"


async def test_abort_by_execution_id(registry: ToolRegistry) -> None:
    messages: list[str] = []
    call = asyncio.ensure_future(registry.execute(
        "probe", {"mode": "wait_abort"}, execution_id="x1", progress=messages.append))
    await eventually(lambda: messages, what="the tool running")
    assert await registry.abort("x1")
    result = await call
    assert result["aborted"] and not result["success"] and result["error"] == "中断されました"
    assert not await registry.abort("x1")  # finished: nothing to abort


async def test_abort_through_the_callers_event(registry: ToolRegistry) -> None:
    event = threading.Event()
    messages: list[str] = []
    call = asyncio.ensure_future(registry.execute("probe", {"mode": "wait_abort"},
                                                  abort=event, progress=messages.append))
    await eventually(lambda: messages, what="the tool running")
    event.set()
    assert (await asyncio.wait_for(call, 5))["aborted"]


async def test_abort_of_a_tool_that_ignores_it_returns_after_a_grace(
        registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shokunin.tools.executor.ABORT_GRACE_SEC", 0.1)
    call = asyncio.ensure_future(registry.execute("probe", {"mode": "hang"}, execution_id="h"))
    await eventually(lambda: registry.abort("h"), what="the call running, to abort")
    result = await asyncio.wait_for(call, 5)
    assert result["aborted"] and result["error"] == "中断されました"


async def test_files_must_be_inside_tool_folder_or_workspace(
        registry: ToolRegistry, tmp_path: Path) -> None:
    workspace = tmp_path / "workspaces" / "t"
    inside = [str(workspace / "out.csv"), str(tmp_path / "tool" / "probe" / "x.png"), "rel.txt"]
    for path in inside:
        result = await registry.execute("probe", {"mode": "file", "path": path}, thread_id="t")
        assert result["success"], result
        assert Path(result["files"][0]["path"]).is_absolute()
    outside = ["/etc/passwd", str(tmp_path / "tool" / "probe" / ".." / "x"), "../../x"]
    for path in outside:
        result = await registry.execute("probe", {"mode": "file", "path": path}, thread_id="t")
        assert not result["success"] and "outside the tool folder" in result["error"]


async def test_symlink_escape_is_refused(registry: ToolRegistry, tmp_path: Path) -> None:
    link = tmp_path / "tool" / "probe" / "link"
    link.symlink_to("/etc")
    result = await registry.execute("probe", {"mode": "file", "path": str(link / "passwd")})
    assert "outside" in result["error"]


async def test_ten_concurrent_executions(registry: ToolRegistry) -> None:
    started = time.monotonic()
    results = await asyncio.gather(*[
        registry.execute("probe", {"mode": "sleep"}) for _ in range(10)])
    assert all(r["success"] for r in results)
    assert len({r["execution_id"] for r in results}) == 10
    assert len({r["result"] for r in results}) == 10  # each in its own thread
    assert time.monotonic() - started < 2.5  # in parallel, not 10 x 0.3 s


async def test_secrets_are_masked_in_results_errors_and_progress(
        registry: ToolRegistry, caplog: pytest.LogCaptureFixture) -> None:
    registry.save_settings("probe", {"api_key": "sk-very-secret"})
    messages: list[str] = []
    result = await registry.execute("probe", {"mode": "leak"}, progress=messages.append)
    assert result["error"] == f"rejected key {MASK}" and messages == [f"using {MASK}"]
    raised = await registry.execute("probe", {"mode": "leak", "path": "raise"})
    assert raised["error"] == f"the tool raised RuntimeError: bad key {MASK}"
    assert "sk-very-secret" not in caplog.text
