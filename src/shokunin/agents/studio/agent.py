"""StudioAgent: one run of a project's pipeline graph on the project's thread.

Input ``{"fresh": true}`` starts the pipeline; ``{"continue": true}`` goes on from the last
checkpoint LangGraph saved (a project whose run was cut short by a restart). The run waits
(``Interrupted``) while a checkpoint is pending; checkpoints resolved while the run was busy
are answered here, from the records, so no resolution is lost to a race. The only answers
it takes are those records (``check_resume``): a checkpoint is answered by resolving it.

Its Runner policies: it is pausable (every node first awaits ``ctx.gate()``: a project
paused is a thread the Runner holds) and it recovers (``recover``: at start-up every project
recorded running or paused goes on from LangGraph's last checkpoint, in the run the old
process left when there is one).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from shokunin.agents.driver import drive
from shokunin.agents.studio.brains import Brain
from shokunin.agents.studio.graph import StudioDeps, build_graph
from shokunin.agents.studio.metrics import elapsed_seconds
from shokunin.agents.studio.pipeline import Pipeline
from shokunin.agents.studio.session import ProjectSession, derived_id
from shokunin.runs import Interrupted, InvalidRunInput, RunContext, Runner, RunStateError
from shokunin.store import RunStatus
from shokunin.store.studio_records import StudioRecords, now

NAME = "studio"
log = logging.getLogger(__name__)


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

    def __init__(self, brain: Brain, records: StudioRecords,
                 checkpointer: BaseCheckpointSaver | None) -> None:
        self.brain = brain
        self.records = records
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
        session = await ProjectSession.open(ctx, self.records, self.brain, pipeline)
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
                    # Failed beside them: branches waiting for a person end, so the run
                    # ends and their agents are blocked; their checkpoints stay pending.
                    answers |= session.close_waits(stop.payload, answers)
                if not answers:
                    await session.metrics()
                    raise
                ctx.resume_value, graph_input = answers, None

    async def recover(self, runner: Runner, orphans: Sequence[str], starting: bool) -> int:
        """(``Runner.recover``) Projects whose runs a gone process left go on (``orphans``,
        now this process's); at start-up also every other running or paused project whose
        run is not live in another process: a paused one is held again (its run waits at
        its next node), one whose run ended is given a new run. Return how many."""
        left = set(orphans)
        projects = await self.records.projects_with_status("running", "paused")
        going_on = 0
        for project in projects:
            run_id = project["run_id"]
            if run_id not in left:
                if not starting:
                    continue
                run = await runner.store.get_run(run_id) if run_id else None
                if run is not None and run.status == RunStatus.RUNNING:
                    continue  # another live process runs it
            if project["status"] == "paused":
                await runner.hold(project["id"])
            else:  # the clock counts what the old process did, not the time it was down
                await self.records.update_project(project["id"], {
                    "elapsed_seconds": await _elapsed_until_stop(runner, project),
                    "running_since": now()})
            try:
                await revive(runner, self.records, project)
            except Exception:  # one project that cannot go on must not stop the others
                log.exception("project %s could not be resumed", project["id"])
            going_on += 1
        return going_on


async def answer(runner: Runner, records: StudioRecords, project_id: str) -> str | None:
    """Resume the project's run if it waits at checkpoints that are now resolved. Return
    the run's id if it is busy, here or in another process (it answers what it sees
    resolved when it stops, but it may have looked just before this resolution was
    stored: look again when it stops), else None."""
    project = await records.project(project_id)
    run_id = project and project["run_id"]
    if not run_id:
        return None
    if runner.is_live(run_id):
        return run_id
    run = await runner.store.get_run(run_id)
    if run is not None and run.status == RunStatus.RUNNING:  # a worker's, or queued
        return run_id
    if run is None or run.status != RunStatus.INTERRUPTED:
        return None
    answers = await answers_from_records(records, await runner.waiting_for(run_id))
    if answers:
        with contextlib.suppress(RunStateError):  # resumed by someone else first
            await runner.resume(run_id, answers)
    return None


async def revive(runner: Runner, records: StudioRecords, project: dict[str, Any]) -> None:
    """Give a running (or paused) project a run again if its last one did not finish: the
    run a previous process left 'running' goes on (same run), one waiting at checkpoints is
    answered if they are resolved, and one that ended without finishing the project is
    followed by a new run. LangGraph goes on from its last checkpoint, so finished agents
    are not redone."""
    run_id = project["run_id"]
    run = await runner.store.get_run(run_id) if run_id else None
    if run_id and runner.is_live(run_id):
        return
    if run is not None and run.status == RunStatus.RUNNING:  # left by a previous process
        await runner.revive(run_id, {"continue": True})
        log.info("project %s goes on from its last checkpoint (run %s)", project["id"], run_id)
        return
    if run is not None and run.status == RunStatus.INTERRUPTED:
        await answer(runner, records, project["id"])
        return
    if run is None and project["status"] == "draft":
        return
    new_run = derived_id(project["id"], "run", now().isoformat())
    await records.update_project(project["id"], {"run_id": new_run})
    await runner.start(NAME, project["id"], {"continue": True}, run_id=new_run)
    log.info("project %s goes on from its last checkpoint (run %s)", project["id"], new_run)


async def _elapsed_until_stop(runner: Runner, project: dict[str, Any]) -> float:
    """Running time up to the last event of its run (when the old process stopped)."""
    store = runner.store
    run_id = project["run_id"]
    last = await store.events_after(run_id, await store.last_seq(run_id) - 1) \
        if run_id else []
    return elapsed_seconds(project, last[-1].ts if last else project["updated_at"])
