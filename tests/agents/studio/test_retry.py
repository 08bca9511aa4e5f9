"""Studio.retry: an agent that gave up after its retries tries again and the project goes on
(the rejection's path is driven over the wire in tests/api/studio/test_studio_rejection.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.agents.studio import StudioConflict
from shokunin.engine import Engine
from shokunin.models.scripted import register_script, unregister_script
from tests.agents.studio.conftest import new_project, pending, settle, studio_settings

DOCUMENT = {"summary": "雨の街を走る", "sections": [{"heading": "核", "body": "走る"}]}


@pytest.fixture
async def scripted(tmp_path: Path) -> AsyncIterator[Engine]:
    # the concept's three tries do not fit its schema; after a retry, the model's does
    register_script("retry", [{"summary": 3}] * 3 + [DOCUMENT] * 3)
    services = await Engine.open(studio_settings(tmp_path, model="scripted:retry"))
    try:
        yield services
    finally:
        await services.close()
        unregister_script("retry")


async def test_an_agent_that_gave_up_tries_again_and_the_project_goes_on(
        scripted: Engine) -> None:
    studio = scripted.studio
    project = await studio.create(new_project())
    await studio.start(project["id"])
    failed = await settle(scripted, project["id"])
    assert failed["status"] == "failed"
    agents = {a["type"]: a for a in await studio.records.agents(project["id"])}
    assert agents["concept"]["status"] == "failed"
    assert agents["design"]["status"] == "blocked"
    retried = await studio.retry(agents["concept"]["id"])
    assert retried["status"] in ("pending", "running") and retried["error"] is None
    project = await settle(scripted, project["id"])
    assert project["status"] == "running"
    [checkpoint] = await pending(scripted, project["id"])
    assert checkpoint["agent_id"] == agents["concept"]["id"]
    assert "修正" not in checkpoint["title"]  # nothing was judged: the same version again
    after = {a["type"]: a["status"] for a in await studio.records.agents(project["id"])}
    assert after["concept"] == "running" and after["design"] == "pending"
    events = await scripted.store.events_after(project["run_id"], 0)
    assert [e.kind for e in events].count("agent_failed") == 0  # a new run, going on
    with pytest.raises(StudioConflict, match="失敗または停止した"):
        await studio.retry(agents["concept"]["id"])  # at work again


async def test_a_retry_while_the_project_runs_is_refused(scripted: Engine) -> None:
    studio = scripted.studio
    project = await studio.create(new_project())
    await studio.start(project["id"])
    await settle(scripted, project["id"])
    concept = next(a for a in await studio.records.agents(project["id"])
                   if a["type"] == "concept")
    await studio.records.update_project(project["id"], {"status": "running"})
    with pytest.raises(StudioConflict, match="実行中"):
        await studio.retry(concept["id"])
