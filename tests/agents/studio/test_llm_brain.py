"""The model's brain: structured outputs, tokens from usage, retries, giving up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shokunin.engine import Engine
from shokunin.models.scripted import register_script, unregister_script
from tests.agents.studio.conftest import new_project, settle, started, studio_settings

DOCUMENT = {"summary": "雨の街を走る", "sections": [{"heading": "核", "body": "走る"}]}


@pytest.fixture
async def scripted(tmp_path: Path, request: pytest.FixtureRequest
                   ) -> AsyncIterator[Engine]:
    register_script("studio", request.param)
    services = await Engine.open(studio_settings(tmp_path, model="scripted:studio"))
    try:
        yield services
    finally:
        await services.close()
        unregister_script("studio")


async def events_of(services: Engine, run_id: str) -> list[Any]:
    return await services.store.events_after(run_id, 0)


@pytest.mark.parametrize("scripted", [[{"summary": 3}, DOCUMENT]], indirect=True)
async def test_an_output_that_does_not_fit_is_retried_and_tokens_are_counted(
        scripted: Engine) -> None:
    studio = scripted.studio
    project, checkpoint = await started(scripted)
    assert checkpoint["output"]["summary"] == "雨の街を走る"
    assert checkpoint["output"]["content"]["sections"] == DOCUMENT["sections"]
    events = await events_of(scripted, project["run_id"])
    [failed] = [e for e in events if e.kind == "agent_failed"]
    assert (failed.error_type, failed.can_retry, failed.retry_count, failed.max_retries) == (
        "validation_error", True, 1, 2)
    assert "summary" in failed.error_message
    agent = await studio.agent(checkpoint["agent_id"])
    tokens = [e for e in events if e.kind == "agent_tokens"]
    assert agent["tokens_used"] > 0 and tokens[-1].tokens_total == agent["tokens_used"]
    [output] = await studio.records.outputs(agent_id=agent["id"])
    assert output["tokens_used"] == agent["tokens_used"]


@pytest.mark.parametrize("scripted", [[{"summary": 3}] * 3], indirect=True)
async def test_an_agent_that_fails_every_retry_fails_the_project(scripted: Engine) -> None:
    studio = scripted.studio
    project = await studio.create(new_project())
    await studio.start(project["id"])
    project = await settle(scripted, project["id"])
    assert project["status"] == "failed"
    events = await events_of(scripted, project["run_id"])
    agents = {a["type"]: a for a in await studio.records.agents(project["id"])}
    failures = [e for e in events if e.kind == "agent_failed"]
    concept = [f for f in failures if f.agent_id == agents["concept"]["id"]]
    assert [(f.retry_count, f.can_retry) for f in concept] == [(1, True), (2, True),
                                                               (2, False)]
    # the other ten agents never ran: each is told blocked by its dependency
    assert sorted({f.error_type for f in failures if f not in concept}) == ["dependency_error"]
    assert len(failures) - len(concept) == len(agents) - 1
    assert agents["concept"]["status"] == "failed"
    assert agents["design"]["status"] == "blocked"
    statuses = [(e.old_status, e.new_status) for e in events if e.kind == "project_status"]
    assert statuses == [("running", "failed")]
