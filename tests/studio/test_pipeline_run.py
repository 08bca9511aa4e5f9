"""The whole pipeline on the offline brain: checkpoints, approvals, revisions, rejection."""

from __future__ import annotations

from shokunin.api.services import Services
from tests.studio.conftest import new_project, pending, settle


async def approve_all(services: Services, project_id: str, limit: int = 40) -> dict:
    for _ in range(limit):
        project = await settle(services, project_id)
        waiting = await pending(services, project_id)
        if not waiting:
            return project
        for checkpoint in waiting:
            await services.studio.resolve(checkpoint["id"], "approved", None)
    raise AssertionError("the pipeline did not finish")


async def test_a_project_approved_at_every_checkpoint_completes_with_every_agent_done(
        services: Services) -> None:
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
