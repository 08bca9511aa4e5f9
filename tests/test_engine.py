"""The engine is assembled in one place (engine.py) and started one way for every process:
``serve`` (owns the runs: recovers), ``mcp serve`` and ``analyze`` (beside a server: leave
its runs alone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shokunin import events as ev
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.store import Store

SRC = Path(__file__).resolve().parents[1] / "src/shokunin"


def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", sandbox_pool_size=0)


async def a_run_left_running(tmp_path: Path, *, called_a_tool: bool = True) -> str:
    """A run a previous process left 'running' (it stopped mid-run), after it had called a
    tool, or before it had done anything with side effects."""
    store = await Store.open(settings(tmp_path).resolved_database_url)
    try:
        await store.ensure_thread("t1", "workbench")
        await store.create_run("r1", "t1", "workbench", {"message": "hi"},
                               first=ev.RunStarted(run_id="r1", thread_id="t1", seq=1,
                                                   agent="workbench", input={}))
        if called_a_tool:
            await store.append_event(ev.ToolCall(run_id="r1", thread_id="t1", seq=2,
                                                 call_id="c", name="query_db", args={}))
    finally:
        await store.close()
    return "r1"


async def test_the_engine_holds_every_part_and_every_face_agent(tmp_path: Path) -> None:
    async with await Engine.open(settings(tmp_path)) as engine:
        assert set(engine.runner.agents) == {"workbench", "analyst", "advisor", "studio", "tool"}
        assert engine.runner.services.tools is engine.tools
        assert engine.runner.services.sandbox is engine.sandbox
        assert engine.runner.services.checkpointer is engine.checkpointer
        assert engine.studio is not None and engine.unavailable == {}


async def test_the_process_that_owns_the_runs_fails_what_a_previous_one_left_half_done(
        tmp_path: Path) -> None:
    run_id = await a_run_left_running(tmp_path)
    async with await Engine.open(settings(tmp_path)) as engine:
        assert (await engine.store.get_run(run_id)).status == "failed"


async def test_the_process_that_owns_the_runs_starts_again_what_one_left_untouched(
        tmp_path: Path) -> None:
    run_id = await a_run_left_running(tmp_path, called_a_tool=False)
    async with await Engine.open(settings(tmp_path)) as engine:
        await engine.runner.wait(run_id)
        events = await engine.store.events_after(run_id)
        assert (await engine.store.get_run(run_id)).status == "completed"
        assert [e.kind for e in events][:2] == ["run_started", "log"]


async def test_a_process_beside_a_server_leaves_its_runs_alone(tmp_path: Path) -> None:
    """``mcp serve`` and ``analyze`` may share the database with a live server."""
    run_id = await a_run_left_running(tmp_path)
    async with await Engine.open(settings(tmp_path), recover=False, mcp_clients=False) as engine:
        assert (await engine.store.get_run(run_id)).status == "running"


async def test_a_face_that_cannot_load_is_unavailable_with_its_reason(tmp_path: Path) -> None:
    broken = tmp_path / "pipeline.yaml"
    broken.write_text("phases: []\nagents: []\n", encoding="utf-8")
    options = settings(tmp_path).model_copy(update={"studio_pipeline": broken})
    async with await Engine.open(options) as engine:
        assert engine.studio is None and "studio" not in engine.runner.agents
        assert engine.why_unavailable("studio") and engine.why_unavailable("advisor") is None


def test_nothing_but_engine_py_assembles_the_engine() -> None:
    """The engine was assembled in api/app.py and started three ways (the web app, MCP, the
    CLI); a second assembly fails here."""
    parts = re.compile(r"Store\.open\(|open_checkpointer\(|\bRunner\(|\bSandbox\(|"
                       r"ToolRegistry\.from_settings\(|build_agents\(|MemoryBus\(")
    found = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py")
             if path.name != "engine.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if parts.search(line) and not line.lstrip().startswith(("def ", "async def "))]
    assert found == []


async def test_a_face_that_does_not_exist_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such face: analyser"):
        await Engine.open(settings(tmp_path), recover=False, faces={"analyser"})
