"""Brush-up and initialize on the engine: what a chosen agent writes again, with what, and
that a brush-up's run goes on after a restart like any run."""

from __future__ import annotations

from pathlib import Path

from shokunin.agents.studio.contracts import BrushupInput
from shokunin.agents.studio.session import agent_id
from shokunin.engine import Engine
from tests.agents.studio.conftest import new_project, pending, settle, studio_settings
from tests.agents.studio.test_pipeline_run import approve_all


def brushup(*agents: str, **instructions: str) -> BrushupInput:
    return BrushupInput.model_validate({
        "selectedAgents": list(agents), "agentInstructions": instructions,
        "agentOptions": {}, "customInstruction": "全体を短く", "clearAssets": False,
        "referenceImageIds": []})


async def test_a_brushed_leader_rewrites_its_workers_outputs_and_survives_a_restart(
        tmp_path: Path) -> None:
    engine = await Engine.open(studio_settings(tmp_path))
    try:
        studio = engine.studio
        pid = (await studio.create(new_project()))["id"]
        await studio.start(pid)
        assert (await approve_all(engine, pid))["status"] == "completed"
        before = len(await studio.records.outputs(project_id=pid))
        await studio.brushup(pid, brushup("code_leader", code_leader="コメントを増やす"))
        project = await studio.project(pid)
        assert project["status"] == "draft" and project["current_phase"] == 2
        leader = agent_id(pid, "code_leader")
        workers = [a for a in await studio.records.agents(pid)
                   if a["parent_agent_id"] == leader]
        assert {a["status"] for a in workers} == {"pending"}
        await studio.start(pid)
        await settle(engine, pid)
        [checkpoint] = await pending(engine, pid)
        assert checkpoint["agent_id"] == leader
        assert "コメントを増やす\n全体を短く" in checkpoint["output"]["summary"]
    finally:
        await engine.close()

    engine = await Engine.open(studio_settings(tmp_path))  # a new process, same database
    try:
        assert (await approve_all(engine, pid))["status"] == "completed"
        outputs = await engine.studio.records.outputs(project_id=pid)
        assert len(outputs) == before + len(workers)  # one new version per worker, once
        assert {a["status"] for a in await engine.studio.records.agents(pid)} == {
            "completed"}
    finally:
        await engine.close()


async def test_initialize_forgets_the_graph_so_a_start_runs_every_agent_again(
        services: Engine) -> None:
    studio = services.studio
    pid = (await studio.create(new_project()))["id"]
    await studio.start(pid)
    await approve_all(services, pid)
    await studio.initialize(pid)
    assert await studio.records.outputs(project_id=pid) == []
    await studio.start(pid)
    assert (await approve_all(services, pid))["status"] == "completed"
    assert len(await studio.records.outputs(project_id=pid)) == 14


async def test_agents_not_chosen_replay_without_a_trace_when_a_brush_up_runs(
        services: Engine) -> None:
    studio = services.studio
    pid = (await studio.create(new_project()))["id"]
    await studio.start(pid)
    await approve_all(services, pid)
    leader = agent_id(pid, "code_leader")
    logs_before = await studio.records.logs(agent_id=leader)
    await studio.brushup(pid, brushup("concept", concept="明るく"))
    await studio.start(pid)
    assert (await approve_all(services, pid))["status"] == "completed"
    again = await studio.agent(leader)
    assert (again["status"], again["progress"]) == ("completed", 100)
    assert len(await studio.records.logs(agent_id=leader)) == len(logs_before)
    concept = await studio.records.outputs(agent_id=agent_id(pid, "concept"))
    assert len(concept) == 2 and "明るく" in concept[-1]["content"]["summary"]


async def test_a_stop_while_workers_wait_for_review_and_a_start_tell_nothing_twice(
        services: Engine) -> None:
    studio = services.studio
    pid = (await studio.create(new_project()))["id"]
    await studio.start(pid)
    leader = agent_id(pid, "code_leader")
    for _ in range(40):  # approve until the code leader's review waits
        await settle(services, pid)
        waiting = await pending(services, pid)
        if any(c["agent_id"] == leader for c in waiting):
            break
        for checkpoint in waiting:
            await studio.resolve(checkpoint["id"], "approved", None)
    await studio.stop(pid)
    await studio.start(pid)
    assert (await approve_all(services, pid))["status"] == "completed"
    told = [e for e in await studio.records.logs(agent_id=leader)
            if "割り振りました" in e["message"]]
    assert len(told) == 1
    assert len(await studio.records.outputs(project_id=pid)) == 14
