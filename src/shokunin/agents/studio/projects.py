"""The Studio's use cases: what the REST and Socket.IO faces ask of projects.

Project lifecycle (seed ProjectStatus)::

    draft --start--> running --pause--> paused --resume--> running
                     running --(all approved)--> completed
                     running --(rejected, or an agent gave up)--> failed
    failed --retry--> running              (what failed tries again, what it blocked is
                                            pending; the run goes on from what was approved)

    running/paused --stop--> draft       (what was written stays; a start goes on from it)
    any --initialize--> draft              (agents, outputs, checkpoints, logs forgotten)
    completed --brushup--> draft           (the chosen agents write again with the user's
                                            instructions when it starts)

A wrong transition raises ``StudioConflict`` (409), an unknown id ``StudioNotFound`` (404).
A project is a thread and its pipeline one run on it: pause holds the thread (the run waits
at its next node, ``Runner.hold``), recovery after a restart is the agent's
(``StudioAgent.recover``, called by ``Runner.recover``). Changes made outside a run (a
status changed by a person, a checkpoint resolved) are the thread's own events: stored,
then published, numbered per project (``Runner.publish_thread_event``), so a client that
follows the project (``Runner.follow_thread``) sees them with the run's and misses none.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

from shokunin import events as ev
from shokunin.agents.studio.agent import NAME, answer, revive
from shokunin.agents.studio.contracts import (
    BrushupInput,
    CreateProjectInput,
    UpdateProjectInput,
    parse_resolution,
)
from shokunin.agents.studio.errors import StudioConflict, StudioInvalid, StudioNotFound
from shokunin.agents.studio.metrics import elapsed_seconds
from shokunin.agents.studio.pipeline import Pipeline
from shokunin.agents.studio.session import agent_id, checkpoint_record, derived_id
from shokunin.runs import Runner, RunNotFound, delete_thread
from shokunin.store.safe_files import SafeTree
from shokunin.store.studio_records import StudioRecords, now


class Studio:
    def __init__(self, runner: Runner, records: StudioRecords, pipeline: Pipeline) -> None:
        self.runner = runner
        self.records = records
        self.pipeline = pipeline
        # One change of a project at a time (a start is not beside its delete; a pause's
        # record and the Runner's hold agree).
        self._locks: dict[str, asyncio.Lock] = {}
        # A resolution that came while the run was busy: look again when it stops.
        self._waiters: dict[str, asyncio.Task[None]] = {}

    def _lock(self, project_id: str) -> asyncio.Lock:
        return self._locks.setdefault(project_id, asyncio.Lock())

    async def _tell(self, project_id: str, event: ev.BaseEvent) -> None:
        await self.runner.publish_thread_event(project_id, event)

    # reading
    async def project(self, project_id: str, owner: str | None = None) -> dict[str, Any]:
        """The project (with ``owner``, only if that owner's); StudioNotFound otherwise."""
        project = await self.records.project(project_id, owner)
        if project is None:
            raise StudioNotFound(f"no project {project_id!r}")
        return project

    async def agent(self, agent_id_: str) -> dict[str, Any]:
        agent = await self.records.agent(agent_id_)
        if agent is None:
            raise StudioNotFound(f"no agent {agent_id_!r}")
        return agent

    async def checkpoint(self, checkpoint_id: str) -> dict[str, Any]:
        checkpoint = await self.records.checkpoint(checkpoint_id)
        if checkpoint is None:
            raise StudioNotFound(f"no checkpoint {checkpoint_id!r}")
        return checkpoint

    def phase_name(self, project: dict[str, Any]) -> str:
        return Pipeline.model_validate(project["pipeline"]).phase_name(project["current_phase"])

    # changing
    @staticmethod
    def _agent_rows(project_id: str, pipeline: Pipeline) -> list[dict[str, Any]]:
        """A new project's agents: one pending agent per agent type of its pipeline."""
        at = now()
        return [{"id": agent_id(project_id, spec.type), "project_id": project_id,
                 "type": spec.type, "status": "pending", "progress": 0, "tokens_used": 0,
                 "parent_agent_id": None, "metadata": {
                     "phase": spec.phase, "title": spec.title,
                     "displayName": spec.title or spec.type},
                 "created_at": at} for spec in pipeline.agents]

    async def create(self, body: CreateProjectInput, owner: str | None = None
                     ) -> dict[str, Any]:
        project_id = uuid.uuid4().hex
        await self.runner.store.ensure_thread(project_id, NAME, title=body.name, owner=owner)
        at = now()
        agents = self._agent_rows(project_id, self.pipeline)
        await self.records.add_project({
            "id": project_id, "name": body.name, "description": body.description,
            "concept": body.concept.model_dump(by_alias=True, exclude_none=True),
            "config": body.config.model_dump(by_alias=True, exclude_none=True)
            if body.config else None,
            "status": "draft", "current_phase": min(p.number for p in self.pipeline.phases),
            "state": {}, "pipeline": self.pipeline.model_dump(mode="json"),
            "elapsed_seconds": 0.0, "created_at": at, "updated_at": at}, agents)
        return await self.project(project_id)

    async def update(self, project_id: str, body: UpdateProjectInput) -> dict[str, Any]:
        project = await self.project(project_id)
        values: dict[str, Any] = {}
        fields = body.model_fields_set
        if "name" in fields and body.name is not None:
            values["name"] = body.name.strip() or project["name"]
        if "description" in fields:
            values["description"] = body.description
        if "config" in fields:
            values["config"] = body.config.model_dump(by_alias=True, exclude_none=True) \
                if body.config else None
        if "concept" in fields and body.concept is not None:
            concept = body.concept.model_dump(by_alias=True, exclude_none=True)
            # a form that sends the whole project back sends the concept unchanged too
            if concept != project["concept"] and project["status"] != "draft":
                raise StudioConflict("the concept can only change while the project is a "
                                     f"draft; it is {project['status']}")
            values["concept"] = concept
        if body.status == "draft" and project["status"] != "draft":
            await self.stop(project_id)
        if values:
            await self.records.update_project(project_id, values)
        return await self.project(project_id)

    async def _halt(self, project: dict[str, Any]) -> None:
        """End the project's run (held, running or waiting at a checkpoint) and forget its
        graph's state: the next start begins the graph again, and finds what the records
        keep (approved outputs are not made again: their ids are derived)."""
        await self.runner.release(project["id"])  # a held node would hold its run
        waiter = self._waiters.pop(project["id"], None)
        if waiter is not None:
            waiter.cancel()
        if project["run_id"]:
            with contextlib.suppress(RunNotFound):
                await self.runner.cancel(project["run_id"])
        checkpointer = self.runner.services.checkpointer
        if checkpointer is not None:
            await checkpointer.adelete_thread(project["id"])

    async def stop(self, project_id: str) -> dict[str, Any]:
        """Running or paused -> draft: the run ends; agents that were working are pending
        again, and what the project wrote stays for its next start."""
        async with self._lock(project_id):
            project = await self.project(project_id)
            if project["status"] not in ("running", "paused"):
                raise StudioConflict(f"停止できるのは実行中か一時停止中のプロジェクトだけです"
                                     f"(現在: {project['status']})。")
            await self._halt(project)
            working = [a["id"] for a in await self.records.agents(project_id)
                       if a["status"] == "running"]
            await self.records.update_agents(working, {"status": "pending",
                                                       "current_task": None})
            return await self._transition(project_id, "draft", ("running", "paused"),
                                          {"run_id": None})

    async def initialize(self, project_id: str) -> dict[str, Any]:
        """Any status -> a draft as new: its run ends, its agents are pending again and its
        outputs (records and the files under ``outputs/``), checkpoints and logs are
        deleted; its name, concept, config and pipeline stay."""
        async with self._lock(project_id):
            project = await self.project(project_id)
            await self._halt(project)
            pipeline = Pipeline.model_validate(project["pipeline"])
            tree = SafeTree(self.runner.workspace(project_id))  # a kernel's links: not followed
            await asyncio.to_thread(tree.remove_tree, "outputs")
            await self.records.reset_project(project_id, {
                "status": "draft", "current_phase": min(p.number for p in pipeline.phases),
                "state": {}, "run_id": None, "elapsed_seconds": 0.0, "running_since": None},
                self._agent_rows(project_id, pipeline))
            if project["status"] != "draft":
                await self._tell(project_id, ev.ProjectStatus(
                    project_id=project_id, old_status=project["status"], new_status="draft"))
            return await self.project(project_id)

    async def brushup(self, project_id: str, body: BrushupInput) -> dict[str, Any]:
        """Completed -> draft, to make the chosen agents' work again: when it starts, each
        chosen agent writes a new version (its next attempt) with the user's instructions
        as the reviewer's feedback, and asks for approval again; the others keep theirs."""
        async with self._lock(project_id):
            project = await self.project(project_id)
            if project["status"] != "completed":
                raise StudioConflict("ブラッシュアップできるのは完了したプロジェクトだけです"
                                     f"(現在: {project['status']})。完了してからもう一度お試し"
                                     "ください。")
            pipeline = Pipeline.model_validate(project["pipeline"])
            chosen = body.selected_agents or [spec.type for spec in pipeline.agents]
            unknown = sorted(set(chosen) - set(pipeline.by_type))
            if unknown:
                raise StudioInvalid(f"このプロジェクトにないエージェントです: "
                                    f"{', '.join(unknown)}。次から選んでください: "
                                    f"{', '.join(pipeline.by_type)}")
            agents = await self.records.agents(project_id)
            attempts = await self._attempts(project_id, agents)
            state = dict(project["state"] or {})
            brushed = dict((state.get("brushup") or {}).get("agents") or {})
            again: list[str] = []
            for agent_type in chosen:
                leader = agent_id(project_id, agent_type)
                team = [a["id"] for a in agents
                        if a["id"] == leader or a["parent_agent_id"] == leader]
                brushed[agent_type] = {"attempt": max(attempts.get(a, 0) for a in team),
                                       "feedback": _instructions(body, agent_type)}
                again += team
            await self._halt(project)  # a finished run's graph state: start afresh
            await self.records.update_agents(again, {
                "status": "pending", "progress": 0, "current_task": None, "error": None,
                "started_at": None, "completed_at": None})
            state["brushup"] = {"agents": brushed,
                                "request": body.model_dump(mode="json", by_alias=True)}
            return await self._transition(project_id, "draft", ("completed",), {
                "state": state, "run_id": None,
                "current_phase": min(pipeline.by_type[t].phase for t in chosen)})

    async def judge_assets(self, project_id: str, asset_ids: list[str], status: str
                           ) -> dict[str, Any]:
        """A person's verdict on asset files (outputs with a file), kept in the project's
        ``state.assetApprovals`` beside the checkpoint that covered them; an unknown id is
        StudioNotFound."""
        async with self._lock(project_id):
            project = await self.project(project_id)
            known = {o["id"] for o in await self.records.outputs(project_id=project_id)
                     if o["file_path"]}
            unknown = [i for i in asset_ids if i not in known]
            if unknown:
                raise StudioNotFound(f"no asset {unknown[0]!r} in the project")
            state = dict(project["state"] or {})
            state["assetApprovals"] = {**(state.get("assetApprovals") or {}),
                                       **dict.fromkeys(asset_ids, status)}
            await self.records.update_project(project_id, {"state": state})
            return await self.project(project_id)

    async def retry(self, agent_id_: str) -> dict[str, Any]:
        """A failed (or blocked) agent tries again, and its project goes on: the seed
        project's client's 再試行.

        Every agent that failed (the project cannot go on past any of them: it is these
        agents, a leader with its workers, and the work a person rejected) and every agent
        the failure blocked are pending again, each told (``AgentRetried``). Work a person
        rejected is written again as its next version, with the rejection's reason as the
        reviewer's feedback, and asked for approval again. A failed project runs again
        (failed -> running): its graph begins afresh and finds what the records keep, so
        approved work is not made again and the checkpoints still pending wait for a person
        again; a stopped project's (a draft's) next start does the same. Retrying while the
        project runs, or an agent that neither failed nor was blocked, is a
        ``StudioConflict``."""
        agent = await self.agent(agent_id_)
        project_id = agent["project_id"]
        async with self._lock(project_id):
            project = await self.project(project_id)
            agents = {a["id"]: a for a in await self.records.agents(project_id)}
            agent = agents[agent_id_]
            if agent["status"] not in RETRYABLE:
                raise StudioConflict(f"再試行できるのは、失敗または停止したエージェントだけです"
                                     f"(現在: {agent['status']})。")
            if project["status"] not in ("failed", "draft"):
                raise StudioConflict(f"プロジェクトの実行中は再試行できません(現在: "
                                     f"{project['status']})。実行が終わってから、もう一度"
                                     "お試しください。")
            state = dict(project["state"] or {})
            brushup = dict(state.get("brushup") or {})
            loops = dict(brushup.get("agents") or {})
            leads = {(agents.get(a["parent_agent_id"] or "") or a)["id"]
                     for a in agents.values() if a["status"] == "failed"} or {agent["id"]}
            for lead_id in leads:  # where each write-and-ask loop begins again
                team = [a for a in agents.values()
                        if lead_id in (a["id"], a["parent_agent_id"])]
                restart = await self._restart_point(project_id, agents[lead_id], team)
                if restart is not None:
                    loops[agents[lead_id]["type"]] = restart
            brushup["agents"] = loops
            state["brushup"] = brushup
            again = [a for a in agents.values() if a["status"] in RETRYABLE]
            await self._halt(project)  # a finished run's graph state: start afresh
            await self.records.update_agents([a["id"] for a in again], {
                "status": "pending", "progress": 0, "current_task": None, "error": None,
                "started_at": None, "completed_at": None})
            for row in again:
                fresh = await self.agent(row["id"])
                await self._tell(project_id, ev.AgentRetried(
                    agent_id=row["id"], previous_status=row["status"],
                    agent=ev.StudioAgentRecord.model_validate(fresh)))
            if project["status"] == "draft":
                await self.records.update_project(project_id, {"state": state})
            else:
                run_id = derived_id(project_id, "run", now().isoformat())
                await self._transition(project_id, "running", ("failed",),
                                       {"run_id": run_id, "state": state})
                try:
                    await self.runner.start(NAME, project_id, {"fresh": True}, run_id=run_id)
                except BaseException:  # no run: the project failed as it was
                    await self.records.update_project(project_id, {
                        "status": "failed", "run_id": project["run_id"],
                        "running_since": None})
                    raise
            return await self.agent(agent_id_)

    async def _restart_point(self, project_id: str, lead: dict[str, Any],
                             team: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Where a retried agent's loop begins again: after a version a person rejected (or
        asked to change, when the change then failed), its next version with their words
        as the feedback; None to begin where it failed (nothing of it was judged)."""
        judged = [c for c in await self.records.checkpoints(project_id)
                  if c["agent_id"] == lead["id"]]
        if not judged or judged[-1]["status"] not in ("rejected", "revision_requested"):
            return None
        attempts = await self._attempts(project_id, team)
        feedback = judged[-1]["feedback"] or (
            "却下されたため書き直します(理由の記載なし)" if judged[-1]["status"] == "rejected"
            else "(フィードバックなし)")
        return {"attempt": max(attempts.values()), "feedback": feedback}

    async def _attempts(self, project_id: str, agents: list[dict[str, Any]]
                        ) -> dict[str, int]:
        """Per agent, how many versions it has written (outputs and checkpoints are one
        per attempt): a brush-up's version is the next."""
        counts: dict[str, int] = {}
        by_agent: dict[str, set[str]] = {}
        for row in await self.records.checkpoints(project_id):
            counts[row["agent_id"]] = counts.get(row["agent_id"], 0) + 1
        for row in await self.records.outputs(project_id=project_id):
            by_agent.setdefault(row["agent_id"], set()).add(row["id"])
        return {a["id"]: max(counts.get(a["id"], 0), len(by_agent.get(a["id"], ())))
                for a in agents}

    async def delete(self, project_id: str) -> None:
        async with self._lock(project_id):  # not beside a start that has not begun its run
            project = await self.project(project_id)
            await self.runner.release(project_id)  # a held node would hold its run
            if project["run_id"]:  # stop it, or close it if it waits at a checkpoint
                with contextlib.suppress(RunNotFound):
                    await self.runner.cancel(project["run_id"])
            await delete_thread(self.runner, project_id)
        self._locks.pop(project_id, None)

    async def _transition(self, project_id: str, new: str, from_: tuple[str, ...],
                          extra: dict[str, Any] | None = None) -> dict[str, Any]:
        project = await self.project(project_id)
        values = {"status": new, **(extra or {})}
        if new == "running":
            values["running_since"] = now()
        elif project["running_since"] is not None:
            values |= {"elapsed_seconds": elapsed_seconds(project), "running_since": None}
        if not await self.records.update_project(project_id, values, from_status=from_):
            current = (await self.project(project_id))["status"]
            raise StudioConflict(f"cannot go from {current} to {new}; "
                                 f"only from {' or '.join(from_)}")
        await self._tell(project_id, ev.ProjectStatus(
            project_id=project_id, old_status=project["status"], new_status=new))
        return await self.project(project_id)

    async def start(self, project_id: str) -> dict[str, Any]:
        async with self._lock(project_id):
            run_id = derived_id(project_id, "run", now().isoformat())
            project = await self._transition(project_id, "running", ("draft",),
                                             {"run_id": run_id})
            try:
                await self.runner.start(NAME, project_id, {"fresh": True}, run_id=run_id)
            except BaseException:  # no run: the project is a draft again
                await self.records.update_project(project_id, {
                    "status": "draft", "run_id": None, "running_since": None})
                raise
            return project

    async def pause(self, project_id: str) -> dict[str, Any]:
        async with self._lock(project_id):  # the record and the Runner's hold agree
            project = await self._transition(project_id, "paused", ("running",))
            await self.runner.hold(project_id)  # the nodes that start from now on wait
            return project

    async def resume(self, project_id: str) -> dict[str, Any]:
        async with self._lock(project_id):
            project = await self._transition(project_id, "running", ("paused",))
            await self.runner.release(project_id)
        await self._revive(project)
        return project

    async def resolve(self, checkpoint_id: str, resolution: str, feedback: str | None
                      ) -> dict[str, Any]:
        status = parse_resolution(resolution)
        checkpoint = await self.checkpoint(checkpoint_id)
        project = await self.project(checkpoint["project_id"])
        if project["status"] not in ("running", "paused"):
            raise StudioConflict(_UNANSWERABLE.get(project["status"], _UNANSWERABLE["completed"]))
        if not await self.records.resolve_checkpoint(checkpoint_id, status, feedback):
            current = (await self.checkpoint(checkpoint_id))["status"]
            raise StudioConflict(f"the checkpoint is already {current}")
        resolved = await self.checkpoint(checkpoint_id)
        await self._tell(project["id"], ev.CheckpointResolved(
            checkpoint_id=checkpoint_id, resolution=status, feedback=feedback,
            checkpoint=checkpoint_record(resolved)))
        await self.kick(project["id"])
        return resolved

    # the run behind a project
    async def kick(self, project_id: str) -> None:
        """Resume the project's run if it waits at checkpoints that are now resolved; if it
        is busy, look again when it stops (it answers what it sees resolved itself)."""
        async with self._lock(project_id):
            busy = await answer(self.runner, self.records, project_id)
            if busy is not None and project_id not in self._waiters:
                self._waiters[project_id] = asyncio.create_task(
                    self._kick_after(busy, project_id))

    async def _kick_after(self, run_id: str, project_id: str) -> None:
        """Look again each time the run stops, until it stops for good: a resolution that
        came while it was busy is answered then."""
        try:
            while True:
                await self.runner.wait(run_id)
                await asyncio.sleep(0)  # let the run's end be recorded
                self._waiters.pop(project_id, None)  # a busy run from now gets a new waiter
                await self.kick(project_id)
                if project_id in self._waiters or not self.runner.is_live(run_id):
                    return
                self._waiters[project_id] = asyncio.current_task()  # type: ignore[assignment]
        finally:
            if self._waiters.get(project_id) is asyncio.current_task():
                del self._waiters[project_id]

    async def _revive(self, project: dict[str, Any]) -> None:
        async with self._lock(project["id"]):
            await revive(self.runner, self.records, project)

    async def close(self) -> None:
        for waiter in list(self._waiters.values()):
            waiter.cancel()
        # A stop is not running time: the clock of each running project stops here.
        for project in await self.records.projects_with_status("running"):
            await self.records.update_project(project["id"], {
                "elapsed_seconds": elapsed_seconds(project), "running_since": now()})


RETRYABLE = ("failed", "blocked")  # agent statuses a retry takes
# why a checkpoint cannot be answered, by the project's status
_UNANSWERABLE = {
    "failed": "プロジェクトが失敗しているため、この確認にはまだ答えられません。失敗した"
              "エージェントを再試行すると、続きから答えられます。",
    "draft": "プロジェクトが止まっているため、この確認には答えられません。開始すると、ここから"
             "答えられます。",
    "completed": "プロジェクトは完了しています。この確認にはもう答えられません。",
}


def _instructions(body: BrushupInput, agent_type: str) -> str:
    """What the user asked of one agent in a brush-up, as a reviewer's feedback."""
    parts = [body.agent_instructions.get(agent_type, "").strip(),
             "、".join(body.agent_options.get(agent_type, [])),
             body.custom_instruction.strip()]
    return "\n".join(p for p in parts if p) or "ブラッシュアップ(追加の指示なし)"
