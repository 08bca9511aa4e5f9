"""A project's figures are sent in the order they were computed: workers that fan out and
finish side by side never make the progress a client shows go backwards."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from shokunin import events as ev
from shokunin.agents.studio.pipeline import Pipeline
from shokunin.agents.studio.session import ProjectSession
from shokunin.engine import Engine
from tests.agents.studio.conftest import new_project
from tests.waiting import eventually


class SentEvents:
    """A run's emitting half: what the session sends, in the order it is sent."""

    def __init__(self, thread_id: str, workspace: Path) -> None:
        self.thread_id, self.workspace = thread_id, workspace
        self.sent: list[ev.BaseEvent] = []

    async def emit(self, event: ev.BaseEvent, **_: Any) -> ev.BaseEvent:
        self.sent.append(event)
        return event

    async def emit_all(self, events: list[ev.BaseEvent], **_: Any) -> list[ev.BaseEvent]:
        self.sent.extend(events)
        return events

    async def gate(self) -> None:
        return None


class SlowFirstRead:
    """The Studio's records, the first read of a project's outputs slow (a busy database
    while the first worker computes its snapshot)."""

    def __init__(self, records: Any) -> None:
        self._records, self._slow = records, False  # made slow once the session is open

    def __getattr__(self, name: str) -> Any:
        return getattr(self._records, name)

    async def outputs(self, **where: Any) -> list[dict[str, Any]]:
        if self._slow:
            self._slow = False
            await asyncio.sleep(0.2)
        return await self._records.outputs(**where)


async def test_workers_completing_side_by_side_send_figures_that_never_go_back(
        services: Engine, tmp_path: Path) -> None:
    studio = services.studio
    project = await studio.create(new_project())
    ctx = SentEvents(project["id"], tmp_path / "ws")
    ctx.workspace.mkdir()
    records = SlowFirstRead(studio.records)
    session = await ProjectSession.open(ctx, records, None,  # type: ignore[arg-type]
                                        Pipeline.model_validate(project["pipeline"]))
    first, second = [await session.agent("code_worker", {"id": f"t{i}", "title": f"課題 {i}"})
                     for i in (1, 2)]
    records._slow = True
    one = asyncio.create_task(session.complete(first, "one"))
    # the first is computing its figures (in its slow read) when the second ends
    await eventually(lambda: not records._slow, what="the first's read")
    await session.complete(second, "two")
    await one
    done = [e.metrics.completed_tasks for e in ctx.sent if isinstance(e, ev.ProjectMetrics)]
    assert done == [1, 2]
