"""The Studio in-process: the server's services on a temporary SQLite file, no HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shokunin.agents.studio.contracts import CreateProjectInput
from shokunin.config import Settings
from shokunin.engine import Engine
from tests.waiting import eventually

CONCEPT = {"description": "雨の街を走るアクションゲーム", "platform": "web", "scope": "mvp",
           "genre": "アクション", "targetAudience": "中高生"}


def studio_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                    tool_settings_file=tmp_path / "settings.json", sandbox_pool_size=0,
                    **overrides)


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[Engine]:
    services = await Engine.open(studio_settings(tmp_path))
    try:
        yield services
    finally:
        await services.close()


def new_project(name: str = "雨の街") -> CreateProjectInput:
    return CreateProjectInput.model_validate({"name": name, "concept": CONCEPT})


async def settle(services: Engine, project_id: str, timeout: float = 20.0) -> dict[str, Any]:
    """Wait until the project's run stops (waits at a checkpoint, or ends); its project."""
    studio = services.studio

    async def settled() -> dict[str, Any] | None:
        project = await studio.project(project_id)
        run_id = project["run_id"]
        await services.runner.wait(run_id)
        waiter = studio._waiters.get(project_id)
        if waiter is not None and not waiter.done():
            await waiter  # a next run of the project: look again
            return None
        run = await services.store.get_run(run_id)
        if run.status != "running" and not services.runner.is_live(run_id):
            return await studio.project(project_id)
        return None

    return await eventually(settled, timeout, what="the project settled")


async def pending(services: Engine, project_id: str) -> list[dict[str, Any]]:
    return [c for c in await services.studio.records.checkpoints(project_id)
            if c["status"] == "pending"]


async def started(services: Engine) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new project, started and waiting at its first checkpoint: both."""
    project = await services.studio.create(new_project())
    await services.studio.start(project["id"])
    project = await settle(services, project["id"])
    [checkpoint] = await pending(services, project["id"])
    return project, checkpoint
