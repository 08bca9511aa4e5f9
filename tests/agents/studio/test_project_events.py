"""The Studio on the Runner: a project's own events (a status changed by a person, a
checkpoint resolved) are stored then published with their own gap-free seq, and replayed
after a restart; pause and recovery are the Runner's policies, and still work after one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import update

from shokunin import events as ev
from shokunin.agents.studio.session import agent_id
from shokunin.engine import Engine
from shokunin.store import schema
from tests.agents.studio.conftest import new_project, pending, settle, started, studio_settings
from tests.waiting import eventually


async def test_studio_status_events_are_stored_and_replayed_with_gap_free_seq_after_a_restart(
        tmp_path: Path) -> None:
    engine = await Engine.open(studio_settings(tmp_path))
    try:
        project, checkpoint = await started(engine)
        pid = project["id"]
        await engine.studio.pause(pid)
        await engine.studio.resolve(checkpoint["id"], "revision_requested", "もっと暗く")
        await engine.studio.resume(pid)
        await settle(engine, pid)
    finally:
        await engine.close()

    engine = await Engine.open(studio_settings(tmp_path))  # a new process, same database
    try:
        feed = engine.runner.follow_thread(pid, after="0")
        own: list[ev.BaseEvent] = []
        async with asyncio.timeout(10):
            async for event in feed:
                if not event.run_id:
                    own.append(event)
                if len(own) == 4:
                    break
        feed.close()
    finally:
        await engine.close()
    assert [e.seq for e in own] == [1, 2, 3, 4]
    assert [(e.kind, getattr(e, "new_status", None)) for e in own] == [
        ("project_status", "running"), ("project_status", "paused"),
        ("checkpoint_resolved", None), ("project_status", "running")]
    resolved = own[2]
    assert isinstance(resolved, ev.CheckpointResolved)
    assert (resolved.resolution, resolved.feedback) == ("revision_requested", "もっと暗く")
    assert resolved.checkpoint is not None and resolved.checkpoint.status == "revision_requested"
    assert all(e.thread_id == pid for e in own)


async def test_every_project_event_reaching_subscribe_thread_is_stored_with_seq_above_zero(
        services: Engine) -> None:
    studio = services.studio
    project = await studio.create(new_project())
    pid = project["id"]
    got: list[ev.BaseEvent] = []

    async def read() -> None:
        async for event in services.runner.subscribe_thread(pid):
            got.append(event)

    reader = asyncio.create_task(read())
    subscribed = services.bus._thread_subs  # noqa: SLF001 - the bus's own count
    await eventually(lambda: subscribed.get(pid), what="the reader subscribed")
    await studio.start(pid)
    project = await settle(services, pid)
    [checkpoint] = await pending(services, pid)
    await studio.pause(pid)
    await studio.resolve(checkpoint["id"], "approved", None)
    await studio.resume(pid)
    await settle(services, pid)
    stored_own = await services.store.thread_events_after(pid)
    await eventually(lambda: len([e for e in got if not e.run_id]) >= len(stored_own),
                     what="the reader got the project's own events")
    reader.cancel()
    own = [e for e in got if not e.run_id]
    assert [e.kind for e in own] == ["project_status", "project_status",
                                     "checkpoint_resolved", "project_status"]
    assert all(e.seq > 0 for e in got)
    assert own == await services.store.thread_events_after(pid)
    for run_id in {e.run_id for e in got if e.run_id}:
        stored = {(e.seq, e.kind) for e in await services.store.events_after(run_id)}
        assert {(e.seq, e.kind) for e in got if e.run_id == run_id} <= stored


async def test_pause_and_resume_still_work_after_a_restart(tmp_path: Path) -> None:
    engine = await Engine.open(studio_settings(tmp_path))
    try:
        project, concept = await started(engine)
        pid = project["id"]
        await engine.studio.pause(pid)
    finally:
        await engine.close()

    engine = await Engine.open(studio_settings(tmp_path))  # recovers: still paused
    try:
        studio = engine.studio
        assert (await studio.project(pid))["status"] == "paused"
        await studio.resolve(concept["id"], "approved", None)
        async def concept_done() -> bool:
            return (await studio.agent(concept["agent_id"]))["status"] == "completed"

        # the approved node runs, then the project holds
        await eventually(concept_done, 20, what="the approved concept completed")
        design = await studio.agent(agent_id(pid, "design"))
        assert design["status"] == "pending"  # held at the next node's boundary
        await studio.resume(pid)
        await settle(engine, pid)
        [design_review] = await pending(engine, pid)
        assert design_review["type"] == "design_review"
    finally:
        await engine.close()


async def test_a_run_cut_short_by_a_restart_goes_on_as_the_same_run(tmp_path: Path) -> None:
    engine = await Engine.open(studio_settings(tmp_path))
    try:
        project, concept = await started(engine)
        pid, run_id = project["id"], project["run_id"]
    finally:
        await engine.close()
    engine = await Engine.open(studio_settings(tmp_path), recover=False)
    async with engine.store.engine.begin() as conn:  # as if it died while working
        await conn.execute(update(schema.runs).where(schema.runs.c.id == run_id)
                           .values(status="running"))
    await engine.close()

    engine = await Engine.open(studio_settings(tmp_path))
    try:
        project = await settle(engine, pid)
        assert project["run_id"] == run_id and project["status"] == "running"
        events = await engine.store.events_after(run_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert "run_failed" not in [e.kind for e in events]
        assert (await engine.store.get_run(run_id)).status == "interrupted"
        assert [c["id"] for c in await pending(engine, pid)] == [concept["id"]]
        await engine.studio.resolve(concept["id"], "approved", None)  # and it goes on
        await settle(engine, pid)
        [design_review] = await pending(engine, pid)
        assert design_review["type"] == "design_review"
    finally:
        await engine.close()
