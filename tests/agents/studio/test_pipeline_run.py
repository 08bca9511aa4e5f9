"""The whole pipeline on the offline brain: checkpoints, approvals, revisions, rejection."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

from shokunin.agents.studio import StudioConflict, StudioNotFound
from shokunin.agents.studio.contracts import ProjectConfig
from shokunin.agents.studio.metrics import elapsed_seconds, project_metrics
from shokunin.agents.studio.session import agent_id
from shokunin.engine import Engine
from shokunin.store import schema
from shokunin.store.rows import RunStatus
from tests.agents.studio.conftest import new_project, pending, settle, started
from tests.waiting import eventually


async def _status_is(studio: Any, agent: str, status: str) -> bool:
    return (await studio.agent(agent))["status"] == status


async def approve_all(services: Engine, project_id: str, limit: int = 40) -> dict:
    for _ in range(limit):
        project = await settle(services, project_id)
        waiting = await pending(services, project_id)
        if not waiting:
            return project
        for checkpoint in waiting:
            await services.studio.resolve(checkpoint["id"], "approved", None)
    raise AssertionError("the pipeline did not finish")


async def test_a_project_approved_at_every_checkpoint_completes_with_every_agent_done(
        services: Engine) -> None:
    studio = services.studio
    project = await studio.create(new_project())
    await studio.start(project["id"])
    final = await approve_all(services, project["id"])
    assert final["status"] == "completed"
    agents = await studio.records.agents(project["id"])
    assert {a["status"] for a in agents} == {"completed"}
    types = [a["type"] for a in agents]
    assert types.count("code_worker") == 3 and types.count("asset_worker") == 2
    checkpoints = await studio.records.checkpoints(project["id"])
    assert sorted(c["type"] for c in checkpoints) == sorted([
        "concept_review", "design_review", "scenario_review", "character_review",
        "world_review", "task_split_review", "code_review", "asset_review",
        "integration_review", "test_review", "final_review"])
    outputs = await studio.records.outputs(project_id=project["id"])
    # nine documents, one per agent that is not a leader or a worker; 3 code files, 2 assets
    assert len(outputs) == len({o["id"] for o in outputs}) == 9 + 3 + 2
    assert final["current_phase"] == 3


async def test_changes_requested_rerun_the_agent_with_the_feedback_and_ask_again(
        services: Engine) -> None:
    studio = services.studio
    project, first = await started(services)
    await studio.resolve(first["id"], "changes_requested", "敵をもっと増やして")
    await settle(services, project["id"])
    [second] = await pending(services, project["id"])
    assert second["id"] != first["id"] and second["agent_id"] == first["agent_id"]
    assert "修正 1 回目" in second["title"]
    assert "敵をもっと増やして" in second["output"]["summary"]
    assert (await studio.checkpoint(first["id"]))["status"] == "revision_requested"
    outputs = await studio.records.outputs(agent_id=first["agent_id"])
    assert [o["content"]["attempt"] for o in outputs] == [0, 1]
    await studio.resolve(second["id"], "approved", None)
    await settle(services, project["id"])
    agent = await studio.agent(first["agent_id"])
    assert agent["status"] == "completed"
    logs = [e["message"] for e in await studio.records.logs(agent_id=agent["id"])]
    # the node replayed its first answer on resume: the request is still logged once
    assert sum(m.startswith("修正を依頼されました") for m in logs) == 1
    [design] = await pending(services, project["id"])
    assert design["type"] == "design_review"


async def test_a_rejection_fails_the_project_and_blocks_what_depends_on_it(
        services: Engine) -> None:
    studio = services.studio
    project, concept = await started(services)
    await studio.resolve(concept["id"], "rejected", "方向性が違う")
    final = await settle(services, project["id"])
    assert final["status"] == "failed"
    by_type = {a["type"]: a for a in await studio.records.agents(project["id"])}
    assert by_type["concept"]["status"] == "failed"
    assert "方向性が違う" in by_type["concept"]["error"]
    assert by_type["design"]["status"] == "blocked"
    assert by_type["reviewer"]["status"] == "blocked"
    run = await services.store.get_run(final["run_id"])
    assert run.status == "completed"  # the run ended; the project failed


async def test_resolving_a_checkpoint_twice_or_after_the_end_is_a_conflict(
        services: Engine) -> None:
    studio = services.studio
    project, concept = await started(services)
    await studio.resolve(concept["id"], "approved", None)
    with pytest.raises(StudioConflict, match="already approved"):
        await studio.resolve(concept["id"], "rejected", None)
    await settle(services, project["id"])
    [design] = await pending(services, project["id"])
    await studio.resolve(design["id"], "rejected", None)
    await settle(services, project["id"])
    with pytest.raises(StudioConflict, match="失敗しているため.*再試行"):
        await studio.resolve(design["id"], "approved", None)


async def test_an_approval_stored_as_another_process_s_run_stops_resumes_it_when_it_has(
        services: Engine) -> None:
    """Issue 51: a worker runs the project's run; it looked for resolved checkpoints just
    before this approval was stored, and stops waiting for it. The web process that took
    the approval saw the run running elsewhere: it must look again once the run stops,
    not drop the approval (3 of 4 projects stalled so)."""
    studio = services.studio
    project, concept = await started(services)
    run_id = project["run_id"]
    async with services.store.engine.begin() as conn:  # a worker took it up again
        await conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(
            status=RunStatus.RUNNING, lease_holder="worker-host:4242:token",
            lease_until=datetime.now(UTC) + timedelta(minutes=5)))
    assert not services.runner.is_live(run_id)
    await studio.resolve(concept["id"], "approved", None)
    waiter = studio._waiters.get(project["id"])  # noqa: SLF001
    assert waiter is not None and not waiter.done()  # it looks again when the run stops
    # the worker stops, waiting for the approval it did not see (status and event as it
    # left them: the run's last event is still its run_interrupted)
    await services.store.finish_run(run_id, RunStatus.INTERRUPTED)
    await asyncio.wait_for(waiter, 30)
    await settle(services, project["id"])
    assert (await studio.agent(concept["agent_id"]))["status"] == "completed"
    [design] = await pending(services, project["id"])
    assert design["type"] == "design_review"


async def test_pause_stops_at_the_next_node_and_resume_goes_on(services: Engine) -> None:
    studio = services.studio
    project, concept = await started(services)
    await studio.pause(project["id"])
    await studio.resolve(concept["id"], "approved", None)  # allowed while paused
    # the answer took effect: the node that waited for it was past its boundary
    await eventually(lambda: _status_is(studio, concept["agent_id"], "completed"),
                     what="the approved node completed")
    await asyncio.sleep(0.1)  # nothing to wait for: the next node must not start meanwhile
    design = await studio.agent(agent_id(project["id"], "design"))
    assert design["status"] == "pending"  # the next node waits at its boundary
    assert services.runner.is_live((await studio.project(project["id"]))["run_id"])
    with pytest.raises(StudioConflict):
        await studio.pause(project["id"])
    await studio.resume(project["id"])
    await settle(services, project["id"])
    [design_review] = await pending(services, project["id"])
    assert design_review["type"] == "design_review"
    figures = await project_metrics(studio.records, await studio.project(project["id"]),
                                    "planning")
    assert figures.completed_tasks == 1 and figures.total_tasks == 11


async def test_wrong_transitions_are_conflicts(services: Engine) -> None:
    studio = services.studio
    project = await studio.create(new_project())
    for action in (studio.pause, studio.resume):
        with pytest.raises(StudioConflict, match="only from"):
            await action(project["id"])
    await studio.start(project["id"])
    with pytest.raises(StudioConflict, match="cannot go from running to running"):
        await studio.start(project["id"])
    with pytest.raises(StudioNotFound):
        await studio.start("nope")


async def test_a_paused_project_whose_next_node_waits_can_be_deleted(
        services: Engine) -> None:
    studio = services.studio
    project, concept = await started(services)
    await studio.pause(project["id"])
    await studio.resolve(concept["id"], "approved", None)
    await eventually(lambda: _status_is(studio, concept["agent_id"], "completed"),
                     what="the approved node completed")
    run_id = (await studio.project(project["id"]))["run_id"]
    assert services.runner.is_live(run_id)  # its design node waits at the boundary
    await studio.delete(project["id"])
    assert not services.runner.is_live(run_id)
    assert (await services.store.get_run(run_id)) is None  # gone with its thread
    with pytest.raises(StudioNotFound):
        await studio.project(project["id"])


async def test_a_project_failing_ends_its_other_branches_and_leaves_their_checkpoints_open(
        services: Engine) -> None:
    studio = services.studio
    project, concept = await started(services)
    await studio.resolve(concept["id"], "approved", None)
    await settle(services, project["id"])
    [design] = await pending(services, project["id"])
    await studio.resolve(design["id"], "approved", None)
    await settle(services, project["id"])
    three = {c["type"]: c for c in await pending(services, project["id"])}
    assert set(three) == {"scenario_review", "character_review", "world_review"}
    await studio.resolve(three["scenario_review"]["id"], "rejected", "違う")
    final = await settle(services, project["id"])
    assert final["status"] == "failed"
    assert (await services.store.get_run(final["run_id"])).status == "completed"
    agents = {a["type"]: a for a in await studio.records.agents(project["id"])}
    assert agents["scenario"]["status"] == "failed"
    assert {agents[t]["status"] for t in ("character", "world", "task_split")} == {"blocked"}
    assert "再試行" in agents["world"]["error"]
    # only what the person rejected is rejected: the others still wait for their answer
    statuses = {c["type"]: c["status"] for c in await studio.records.checkpoints(project["id"])}
    assert statuses["scenario_review"] == "rejected"
    assert statuses["character_review"] == statuses["world_review"] == "pending"


async def test_a_project_recorded_running_before_its_graph_began_starts_from_the_top(
        services: Engine) -> None:
    studio = services.studio
    project = await studio.create(new_project())
    # as if the server died between the status and the run's first step
    await studio.records.update_project(project["id"], {"status": "running"})
    assert (await services.runner.recover()).revived == 1  # as at the next start
    project = await settle(services, project["id"])
    assert project["status"] == "running"
    [checkpoint] = await pending(services, project["id"])
    assert checkpoint["type"] == "concept_review"


async def test_start_and_delete_at_once_never_leave_a_run_without_its_project(
        services: Engine) -> None:
    studio = services.studio
    for _ in range(5):
        project = await studio.create(new_project())
        results = await asyncio.gather(studio.start(project["id"]), studio.delete(
            project["id"]), return_exceptions=True)
        assert all(r is None or isinstance(r, dict | StudioNotFound) for r in results), results

    async def none_left() -> bool:
        threads = [t for t in await services.store.list_threads() if t.agent == "studio"]
        return threads == [] and await studio.records.projects() == []

    await eventually(none_left, what="no project and no studio thread left")


async def test_elapsed_time_after_a_crash_counts_until_the_last_event_not_the_downtime(
        services: Engine) -> None:
    studio = services.studio
    project, _ = await started(services)
    last = (await services.store.events_after(project["run_id"]))[-1].ts
    await studio.records.update_project(project["id"], {
        "elapsed_seconds": 10.0, "running_since": last - timedelta(seconds=5)})
    await services.runner.recover()  # as at the next start, the old process gone
    recovered = await studio.project(project["id"])
    assert 14.9 < elapsed_seconds(recovered) < 16.0


async def test_a_project_without_asset_generation_runs_no_asset_workers(
        services: Engine) -> None:
    studio = services.studio
    body = new_project()
    body.config = ProjectConfig(enable_asset_generation=False)
    project = await studio.create(body)
    await studio.start(project["id"])
    final = await approve_all(services, project["id"])
    assert final["status"] == "completed"
    agents = await studio.records.agents(project["id"])
    assert [a["type"] for a in agents].count("asset_worker") == 0
    assert {a["status"] for a in agents} == {"completed"}
    types = [c["type"] for c in await studio.records.checkpoints(project["id"])]
    assert "asset_review" not in types and len(types) == 10
