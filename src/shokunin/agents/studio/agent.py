"""StudioAgent: one run of a project's pipeline graph on the project's thread.

Input ``{"fresh": true}`` starts the pipeline; ``{"continue": true}`` goes on from the last
checkpoint LangGraph saved (a project whose run was cut short by a restart). The run waits
(``Interrupted``) while a checkpoint is pending; checkpoints resolved while the run was busy
are answered here, from the records, so no resolution is lost to a race. The only answers
it takes are those records (``check_resume``): a checkpoint is answered by resolving it.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from shokunin.agents.driver import drive
from shokunin.agents.studio.brains import Brain
from shokunin.agents.studio.graph import StudioDeps, build_graph
from shokunin.agents.studio.pauses import Pauses
from shokunin.agents.studio.pipeline import Pipeline
from shokunin.agents.studio.session import ProjectSession
from shokunin.runs import Interrupted, InvalidRunInput, RunContext
from shokunin.store.studio_records import StudioRecords

NAME = "studio"


async def answers_from_records(records: StudioRecords, payload: dict[str, Any]
                               ) -> dict[str, Any]:
    """The resume map for the run's pending interrupts whose checkpoints are resolved."""
    answers = {}
    for pending in payload.get("interrupts", []):
        value = pending.get("value") or {}
        checkpoint = await records.checkpoint(str(value.get("checkpointId", "")))
        if checkpoint is not None and checkpoint["status"] != "pending":
            answers[pending["id"]] = {"resolution": checkpoint["status"],
                                      "feedback": checkpoint["feedback"]}
    return answers


class StudioAgent:
    name = NAME

    def __init__(self, brain: Brain, records: StudioRecords, pauses: Pauses,
                 checkpointer: BaseCheckpointSaver | None) -> None:
        self.brain = brain
        self.records = records
        self.pauses = pauses
        self.checkpointer = checkpointer
        self._graphs: dict[str, CompiledStateGraph] = {}

    def graph(self, pipeline: Pipeline) -> CompiledStateGraph:
        """One compiled graph per pipeline definition (projects keep the one they began with)."""
        key = json.dumps(pipeline.model_dump(mode="json"), sort_keys=True)
        if key not in self._graphs:
            self._graphs[key] = build_graph(pipeline, self.checkpointer)
        return self._graphs[key]

    async def check_resume(self, value: Any, waiting: dict[str, Any]) -> None:
        """Refuse any answer but the records' (``answers_from_records``), as the Studio
        itself resumes when a checkpoint is resolved: "garbage" failed the project for good,
        and an answer for a pending checkpoint would go past its record."""
        answers = await answers_from_records(self.records, waiting)
        if not (isinstance(value, dict) and value
                and all(key in answers and answers[key] == v for key, v in value.items())):
            raise InvalidRunInput(
                "a Studio project's run goes on when its checkpoint is resolved (POST "
                "/api/checkpoints/<id>/resolve), not with a resume value")

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        project = await self.records.project(ctx.thread_id)
        if project is None:
            raise LookupError(f"no project {ctx.thread_id}")
        pipeline = Pipeline.model_validate(project["pipeline"])
        session = await ProjectSession.open(ctx, self.records, self.brain, pipeline,
                                            self.pauses)
        graph_input: Any = None  # go on from the thread's last checkpoint
        if input.get("fresh") or not (await self.graph(pipeline).aget_state(
                {"configurable": {"thread_id": ctx.thread_id}})).values:
            # a new project, or one stopped before its graph's first step: from the start
            graph_input = {"outcome": {}, "stopped": False, "tasks": []}
        try:
            state = await self._drive(graph_input, ctx, session, pipeline)
        except (Interrupted, GeneratorExit):
            raise
        except Exception:
            await session.set_status("failed", from_status=("running", "paused"))
            raise
        outcome = state.get("outcome", {})
        failed = sorted(k for k, how in outcome.items() if how != "completed")
        final = "failed" if failed or state.get("stopped") else "completed"
        await session.set_status(final, from_status=("running", "paused"))
        await session.metrics()
        return {"status": final, "not_completed": failed}

    async def _drive(self, graph_input: Any, ctx: RunContext, session: ProjectSession,
                     pipeline: Pipeline) -> dict[str, Any]:
        graph = self.graph(pipeline)
        while True:
            try:
                return await drive(graph, ctx, graph_input, context=StudioDeps(session),
                                   durability="sync", models=self.brain.name != "offline")
            except Interrupted as stop:
                answers = await answers_from_records(self.records, stop.payload)
                if (await session.project())["status"] == "failed":
                    # Failed beside them: branches waiting for a person are closed, so the
                    # run ends and their agents are blocked, not waiting forever.
                    answers |= await session.close_checkpoints(stop.payload, answers)
                if not answers:
                    await session.metrics()
                    raise
                ctx.resume_value, graph_input = answers, None
