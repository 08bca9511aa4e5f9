"""What one run of a project does to its records: the actions of the graph's nodes.

Every action is safe to repeat: LangGraph re-runs an interrupted node from its start, and
a project resumed after a crash re-runs the nodes that had not finished. Rows have derived
ids and are written only if absent; events are emitted only on a real change (an agent
that is already running is not started again, a checkpoint that exists is not created
again), so a replay neither duplicates nor loses an output.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from shokunin import events as ev
from shokunin.agents.studio.brains import Brain, Job, JobFailed, Produced
from shokunin.agents.studio.markdown import output_markdown
from shokunin.agents.studio.metrics import elapsed_seconds, project_metrics
from shokunin.agents.studio.pipeline import AgentSpec, Pipeline
from shokunin.errors import ShokuninError
from shokunin.runs import RunContext
from shokunin.store import Write
from shokunin.store.safe_files import SafeTree, UnsafePath, parts
from shokunin.store.studio_records import StudioRecords, now
from shokunin.store.studio_records import agents as agents_table
from shokunin.store.studio_records import checkpoints as checkpoints_table
from shokunin.store.studio_records import logs as logs_table
from shokunin.store.studio_records import outputs as outputs_table

_IDS = uuid.UUID("6f1b7c0e-58a4-4c8e-9d0f-0b9a4b6c2d11")  # namespace of derived ids


def derived_id(*parts: str) -> str:
    return uuid.uuid5(_IDS, "/".join(parts)).hex


def agent_id(project_id: str, agent_type: str, task_id: str | None = None) -> str:
    return derived_id(project_id, agent_type, *([task_id] if task_id else []))


MAX_FILE_CHARS = 200_000  # of one output file read back for later agents
MAX_TREE_CHARS = 2_000_000  # of all of them together
# why an agent that waited for approval stopped when its project failed beside it
CLOSED = ("プロジェクトが失敗したため、承認待ちのまま止まりました。失敗したエージェントを"
          "再試行すると、この確認から続けられます。")


class GaveUp(ShokuninError):  # noqa: N818 - the agent gave up after its retries
    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def checkpoint_record(row: dict[str, Any]) -> ev.StudioCheckpointRecord:
    return ev.StudioCheckpointRecord.model_validate(row)


class ProjectSession:
    """One run's view of its project. The run is the only writer of its project's agents,
    outputs and checkpoints, so it reads them once (``open``) and keeps them as it writes;
    the service changes only the project's status and checkpoints' resolutions."""

    def __init__(self, ctx: RunContext, records: StudioRecords, brain: Brain,
                 pipeline: Pipeline, project: dict[str, Any]) -> None:
        self.ctx = ctx
        self.records = records
        self.brain = brain
        self.pipeline = pipeline
        self.project_id = ctx.thread_id
        self.name, self.concept = project["name"], project["concept"] or {}
        self.config: dict[str, Any] = project["config"] or {}
        # agent type -> where a brush-up restarts its loop: {"attempt": n, "feedback": ...}
        self.brushed: dict[str, dict[str, Any]] = (
            (project["state"] or {}).get("brushup") or {}).get("agents") or {}
        self.workspace = SafeTree(ctx.workspace)  # the kernel's too: no link is followed
        self._agents: dict[str, dict[str, Any]] = {}
        self._outputs: dict[str, dict[str, Any]] = {}
        self._checkpoints: set[str] = set()
        self._logged: set[str] = set()
        # Workers fan out and complete side by side: each snapshot of the figures is
        # computed and sent under this lock, so one computed earlier is never sent after
        # a newer one (the client's progress would go backwards).
        self._figures = asyncio.Lock()

    @classmethod
    async def open(cls, ctx: RunContext, records: StudioRecords, brain: Brain,
                   pipeline: Pipeline) -> ProjectSession:
        project = await records.project(ctx.thread_id)
        if project is None:
            raise LookupError(f"no project {ctx.thread_id}")
        session = cls(ctx, records, brain, pipeline, project)
        session._agents = {a["id"]: a for a in await records.agents(ctx.thread_id)}
        session._outputs = {o["id"]: o for o in await records.outputs(project_id=ctx.thread_id)}
        session._checkpoints = {c["id"] for c in await records.checkpoints(ctx.thread_id)}
        session._logged = await records.log_ids(ctx.thread_id)
        return session

    # the project
    async def project(self) -> dict[str, Any]:
        project = await self.records.project(self.project_id)
        if project is None:
            raise LookupError(f"project {self.project_id} is gone")
        return project

    async def gate(self) -> None:
        """A node boundary: wait here while the project is paused (the Runner holds its
        thread)."""
        await self.ctx.gate()

    async def enter_phase(self, phase: int) -> None:
        if await self.records.update_project(self.project_id, {"current_phase": phase},
                                             where_phase_below=phase):
            await self.ctx.emit(ev.PhaseChanged(
                project_id=self.project_id, phase=phase,
                phase_name=self.pipeline.phase_name(phase)))

    async def set_status(self, new: str, *, from_status: tuple[str, ...]) -> bool:
        project = await self.project()
        values: dict[str, Any] = {"status": new}
        if new != "running" and project["running_since"] is not None:
            values |= {"elapsed_seconds": elapsed_seconds(project), "running_since": None}
        if not await self.records.update_project(self.project_id, values,
                                                 from_status=from_status):
            return False
        await self.ctx.emit(ev.ProjectStatus(project_id=self.project_id,
                                             old_status=project["status"], new_status=new))
        return True

    async def metrics(self) -> None:
        await self._with_metrics([])

    async def _with_metrics(self, events: list[ev.BaseEvent],
                            writes: Sequence[Write] = ()) -> None:
        """Emit ``events`` and then the project's figures as they are now, in one commit;
        the figures are computed and sent in order (``_figures``)."""
        async with self._figures:
            await self.ctx.emit_all([*events, await self._metrics()], writes=writes)

    async def _metrics(self) -> ev.ProjectMetrics:
        """The project's figures, from the agents as this run keeps them."""
        project = await self.project()
        figures = await project_metrics(self.records, project,
                                        self.pipeline.phase_name(project["current_phase"]),
                                        agents=list(self._agents.values()))
        return ev.ProjectMetrics(metrics=ev.StudioMetrics.model_validate(figures.model_dump()))

    # agents
    async def agent(self, spec: AgentSpec | str, task: dict[str, Any] | None = None,
                    parent: str | None = None) -> dict[str, Any]:
        """The agent's row, created if it is a worker seen for the first time. Its
        ``metadata.displayName`` is what a person calls it: the pipeline's title for the
        agent, a worker's task title."""
        agent_type = spec if isinstance(spec, str) else spec.type
        row_id = agent_id(self.project_id, agent_type, task["id"] if task else None)
        row = self._agents.get(row_id)
        if row is None:
            name = (task or {}).get("title") or (
                spec.title if isinstance(spec, AgentSpec) else "") or agent_type
            row = self._agents[row_id] = await self.records.ensure_agent({
                "id": row_id, "project_id": self.project_id, "type": agent_type,
                "status": "pending", "progress": 0, "tokens_used": 0,
                "parent_agent_id": parent, "created_at": now(),
                "metadata": {"displayName": name} | ({"task": task} if task else {})})
        return row

    def _agent_write(self, row_id: str, values: dict[str, Any]) -> Write:
        """The change of an agent's row, to be stored with the event that tells of it."""
        self._agents[row_id] = {**self._agents[row_id], **values}
        return self.records.update_write(agents_table, row_id, values)

    async def begin(self, agent: dict[str, Any], what: str) -> None:
        agent = self._agents[agent["id"]]
        if agent["status"] == "running":
            return  # a re-run of the node: it started before
        values = {"status": "running", "progress": 0, "current_task": what, "error": None,
                  "completed_at": None, "started_at": agent["started_at"] or now()}
        write = self._agent_write(agent["id"], values)
        await self.ctx.emit(ev.AgentStarted(
            agent=ev.StudioAgentRecord.model_validate({**agent, **values})),
                            writes=[write])

    async def log(self, agent: dict[str, Any], message: str, level: str = "info",
                  progress: int | None = None, metadata: dict[str, Any] | None = None,
                  once: str | None = None, extra: Sequence[Write] = ()) -> None:
        """Add a log entry (with ``extra`` writes, in its transaction); with ``once`` (a
        key), only the first time: what a node logs after an ``interrupt()`` it replays on
        resume is logged once."""
        told = self._log(agent, message, level, progress, metadata, once)
        if told is not None:
            await self.ctx.emit(told[0], writes=[*extra, told[1]])

    def _log(self, agent: dict[str, Any], message: str, level: str = "info",
             progress: int | None = None, metadata: dict[str, Any] | None = None,
             once: str | None = None) -> tuple[ev.AgentLog, Write] | None:
        """A log entry's event and row (None if ``once`` was logged before)."""
        row = {"id": derived_id(agent["id"], "log", once) if once else uuid.uuid4().hex,
               "project_id": self.project_id, "agent_id": agent["id"], "timestamp": now(),
               "level": level, "message": message, "progress": progress, "metadata": metadata}
        if row["id"] in self._logged:
            return None
        self._logged.add(row["id"])
        return (ev.AgentLog(agent_id=agent["id"], entry=ev.StudioLogEntry.model_validate(row),
                            agent_type=agent["type"]),
                self.records.insert_write(logs_table, row))

    async def progress(self, agent: dict[str, Any], percent: int, what: str,
                       done: int = 0, total: int = 1) -> None:
        write = self._agent_write(agent["id"], {"progress": percent, "current_task": what})
        await self.ctx.emit(ev.AgentProgress(agent_id=agent["id"], progress=percent,
                                             current_task=what, completed_tasks=done,
                                             total_tasks=total,
                                             tokens_used=self._tokens(agent)), writes=[write])

    def _tokens(self, agent: dict[str, Any]) -> int:
        return int(self._agents[agent["id"]]["tokens_used"] or 0)

    async def produce(self, spec: AgentSpec, agent: dict[str, Any], job: Job,
                      max_retries: int) -> dict[str, Any]:
        """The agent's output for ``job.attempt``: the stored one if this attempt wrote it
        before, else the brain's, with retries. Raise ``GaveUp`` after the last retry."""
        output_id = derived_id(agent["id"], "output", str(job.attempt))
        stored = self._outputs.get(output_id)
        if stored is not None:
            return stored
        await self.gate()  # new work (a revision inside a node too) waits while paused
        await self.begin(agent, job.title)
        for retry in range(max_retries + 1):
            await self.progress(agent, 10, f"{job.title}: 作成中" + (
                f"(再試行 {retry})" if retry else ""))
            started = time.perf_counter()
            try:
                produced = await self.brain.produce(job)
            except JobFailed as exc:
                can_retry = retry < max_retries
                # the last failure is the agent's: it fails in the same commit
                await self.fail(agent, str(exc), error_type=exc.error_type,
                                can_retry=can_retry,
                                retry_count=retry + 1 if can_retry else retry,
                                max_retries=max_retries, llm_error=exc.llm_error,
                                retry_after=exc.retry_after,
                                logged=(f"{exc.error_type}: {exc}", {"retry": retry}))
                if not can_retry:
                    raise GaveUp(exc.error_type, str(exc)) from None
                await asyncio.sleep(min(exc.retry_after or 0, 30))
                continue
            elapsed_ms = int((time.perf_counter() - started) * 1000)
            return await self._store(spec, agent, job, produced, output_id, elapsed_ms)
        raise AssertionError("unreachable")

    async def _store(self, spec: AgentSpec, agent: dict[str, Any], job: Job,
                     produced: Produced, output_id: str, elapsed_ms: int) -> dict[str, Any]:
        first_file, first_size = None, None
        for rel, text in produced.files.items():
            data = text.encode("utf-8")
            try:
                name = "/".join(["outputs", *parts(rel)])
                # atomic: a crash leaves the old file or the new one, never half
                await asyncio.to_thread(self.workspace.replace, name, data)
            except UnsafePath as exc:
                raise GaveUp("validation_error", f"output path {rel!r}: {exc}") from None
            if first_file is None:
                first_file, first_size = name, len(data)
        output_type = (spec.workers.output if spec.workers and job.task else spec.output)
        row = {"id": output_id, "project_id": self.project_id, "agent_id": agent["id"],
               "output_type": output_type,
               "content": produced.content | {"summary": produced.summary,
                                              "attempt": job.attempt},
               "file_path": first_file, "tokens_used": produced.tokens,
               "generation_time_ms": elapsed_ms, "created_at": now()}
        fresh = self._agents[agent["id"]]
        tokens = int(fresh["tokens_used"] or 0) + produced.tokens
        what = f"{job.title}: 出力済み"
        told = self._log(agent, f"出力を作成: {produced.summary}", progress=90,
                         metadata={"outputId": output_id, "tokens": produced.tokens})
        assert told is not None  # a fresh entry: never logged before
        log_event, log_row = told
        events: list[ev.BaseEvent] = [log_event]
        if produced.tokens:
            events.append(ev.AgentTokens(agent_id=agent["id"], tokens_used=produced.tokens,
                                         tokens_total=tokens))
        events.append(ev.AgentProgress(agent_id=agent["id"], progress=90, current_task=what,
                                       completed_tasks=0, total_tasks=1, tokens_used=tokens))
        events.append(ev.OutputCreated(output=ev.StudioOutputRecord.model_validate(
            row | {"summary": produced.summary, "agent_type": fresh["type"],
                   "size_bytes": first_size})))
        # The output, the agent's figures and what tells of them: one commit.
        await self.ctx.emit_all(events, writes=[
            self.records.insert_write(outputs_table, row), log_row,
            self._agent_write(agent["id"], {
                "tokens_used": tokens, "progress": 90, "current_task": what,
                "duration_ms": int(fresh["duration_ms"] or 0) + elapsed_ms})])
        self._outputs[output_id] = row
        return row

    async def complete(self, agent: dict[str, Any], summary: str) -> None:
        fresh = self._agents[agent["id"]]
        if fresh["status"] == "completed":
            return
        at = now()
        duration = fresh["duration_ms"]
        if duration is None:  # a leader without a checkpoint: from its start to now
            duration = _since(fresh["started_at"], at)
        write = self._agent_write(agent["id"], {
            "status": "completed", "progress": 100, "current_task": None,
            "completed_at": at, "duration_ms": duration})
        await self._with_metrics([ev.AgentCompleted(
            agent_id=agent["id"], duration_ms=int(duration),
            tokens_used=int(fresh["tokens_used"] or 0), output_summary=summary[:500],
            agent=ev.StudioAgentRecord.model_validate(self._agents[agent["id"]]))],
            writes=[write])

    async def fail(self, agent: dict[str, Any], error: str, *, error_type: str,
                   status: str = "failed", can_retry: bool = False, retry_count: int = 0,
                   max_retries: int = 0, llm_error: str | None = None,
                   retry_after: float | None = None,
                   logged: tuple[str, dict[str, Any]] | None = None) -> None:
        """Tell that the agent's work failed (``error_type``: the seed's kind, or
        ``rejected`` when a person rejected it), with its record: a try that is retried
        (``can_retry``) leaves it running; otherwise it is marked ``status`` (failed, or
        blocked by what it depends on), once. ``logged``: the log entry's message and
        metadata, if not ``error``."""
        fresh = self._agents[agent["id"]]
        if fresh["status"] in ("failed", "blocked", "completed"):
            return
        writes = []
        if not can_retry:
            writes.append(self._agent_write(agent["id"], {
                "status": status, "error": error, "current_task": None,
                "completed_at": now()}))
        message, metadata = logged or (error, None)
        level = "warn" if status == "blocked" else "error"
        told = self._log(agent, message, level=level, metadata=metadata)
        events: list[ev.BaseEvent] = [ev.AgentFailed(
            agent_id=agent["id"], error_type=error_type, error_message=error,
            can_retry=can_retry, retry_count=retry_count, max_retries=max_retries,
            llm_error=llm_error, retry_after=retry_after,
            agent=ev.StudioAgentRecord.model_validate(self._agents[agent["id"]]))]
        if told is not None:
            events.append(told[0])
            writes.append(told[1])
        await self.ctx.emit_all(events, writes=writes)

    # checkpoints
    async def checkpoint(self, spec: AgentSpec, agent: dict[str, Any], attempt: int,
                         outputs: list[dict[str, Any]]) -> dict[str, Any]:
        """The checkpoint of this attempt, created (and told) once."""
        assert spec.checkpoint is not None
        checkpoint_id = derived_id(agent["id"], "checkpoint", str(attempt))
        if checkpoint_id in self._checkpoints:
            row = await self.records.checkpoint(checkpoint_id)
            assert row is not None
            if row["status"] == "pending":
                await self._waiting_again(agent)
            return row
        fresh = self._agents[agent["id"]]
        writes = []
        if fresh["duration_ms"] is None:  # a leader: its work ends when its workers' does,
            # not when a human approves it (the ETA's samples must not count waiting)
            writes.append(self._agent_write(agent["id"], {
                "duration_ms": _since(fresh["started_at"], now())}))
        summary = "\n".join(str((o["content"] or {}).get("summary", "")) for o in outputs)
        content: dict[str, Any] = (outputs[0]["content"] or {}) if len(outputs) == 1 else {
            "outputs": [{"agentId": o["agent_id"], "filePath": o["file_path"],
                         **(o["content"] or {})} for o in outputs]}
        # What a person reads in a preview; the structure stays beside it.
        content = content | {"text": output_markdown(content, self._file_url)}
        at = now()
        row = {
            "id": checkpoint_id, "project_id": self.project_id, "agent_id": agent["id"],
            "type": spec.checkpoint, "title": f"{spec.title or spec.type} の確認"
            + (f"(修正 {attempt} 回目)" if attempt else ""),
            "description": f"{spec.type} の出力 ({spec.output}) を確認してください。",
            "output": {"documentType": spec.output, "summary": summary[:4000],
                       "content": content, "assets": _assets(outputs, self._agents, self.workspace),
                       "tokensUsed": sum(o["tokens_used"] for o in outputs),
                       "generationTimeMs": sum(o["generation_time_ms"] for o in outputs)},
            "status": "pending", "feedback": None, "resolved_at": None,
            "created_at": at, "updated_at": at}
        writes.append(self._agent_write(agent["id"], {"progress": 95,
                                                      "current_task": "承認待ち"}))
        # Stored with its events: a client told of it can resolve it at once.
        await self.ctx.emit_all([
            ev.AgentProgress(agent_id=agent["id"], progress=95, current_task="承認待ち",
                             completed_tasks=0, total_tasks=1, tokens_used=self._tokens(agent)),
            ev.CheckpointCreated(checkpoint_id=checkpoint_id,
                                 checkpoint=checkpoint_record(row))],
            writes=[*writes, self.records.insert_write(checkpoints_table, row)])
        self._checkpoints.add(checkpoint_id)
        return row

    async def _waiting_again(self, agent: dict[str, Any]) -> None:
        """The agent's checkpoint, made before, still waits for a person (the project was
        stopped, or failed beside it and was retried): the agent waits for approval again."""
        fresh = self._agents[agent["id"]]
        if fresh["status"] == "running":
            return
        values = {"status": "running", "progress": 95, "current_task": "承認待ち",
                  "error": None, "completed_at": None,
                  "started_at": fresh["started_at"] or now()}
        write = self._agent_write(agent["id"], values)
        await self.ctx.emit_all([
            ev.AgentStarted(agent=ev.StudioAgentRecord.model_validate(self._agents[agent["id"]])),
            ev.AgentProgress(agent_id=agent["id"], progress=95, current_task="承認待ち",
                             completed_tasks=0, total_tasks=1, tokens_used=self._tokens(agent))],
            writes=[write])

    def _file_url(self, path: str) -> str:
        """Where the REST face serves one of the project's output files."""
        return f"/api/projects/{self.project_id}/files/{quote(path)}"

    def first_attempt(self, agent_type: str) -> tuple[int, str | None]:
        """Where the agent's write-and-ask loop starts: attempt 0, or the attempt a brush-up
        asked for (``Studio.brushup``) with the user's instructions as its feedback."""
        found = self.brushed.get(agent_type)
        return (int(found["attempt"]), str(found["feedback"])) if found else (0, None)

    def wanted(self, tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The breakdown's tasks this project wants done: no asset tasks when its config
        says ``enableAssetGeneration: false``."""
        if self.config.get("enableAssetGeneration") is False:
            return [t for t in tasks if t.get("kind") != "asset"]
        return tasks

    @staticmethod
    def close_waits(payload: dict[str, Any], answered: dict[str, Any]) -> dict[str, Any]:
        """The run's own answers to the checkpoints its other branches wait at when the
        project failed beside them (marked ``closed``): each branch ends and its agent is
        blocked, while the checkpoint itself stays pending in the records. Only what a
        person rejected is rejected; the others can still be answered once a retry
        (``Studio.retry``) lets the project go on."""
        return {pending["id"]: {"closed": True, "feedback": CLOSED}
                for pending in payload.get("interrupts", []) if pending["id"] not in answered}

    async def boundary(self, passed: bool) -> None:
        """A node's start: wait while the project is paused, unless the node is past its
        boundary already (``passed``: LangGraph replays a node that waited at a checkpoint,
        and an answer given while paused must take effect)."""
        if not passed:
            await self.gate()

    def is_running(self, agent: dict[str, Any]) -> bool:
        return self._agents[agent["id"]]["status"] == "running"

    def was_asked(self, agent: dict[str, Any]) -> bool:
        """Whether the agent's first checkpoint exists (its review node ran before)."""
        return derived_id(agent["id"], "checkpoint", "0") in self._checkpoints

    async def upstream(self, spec: AgentSpec) -> dict[str, dict[str, Any]]:
        """The latest outputs of the agent's dependencies, by output type."""
        found: dict[str, dict[str, Any]] = {}
        for dep in spec.depends_on:
            dep_id = agent_id(self.project_id, dep)
            rows = [o for o in self._outputs.values() if o["agent_id"] == dep_id]
            if rows:
                found[self.pipeline.by_type[dep].output] = rows[-1]["content"] or {}
        return found

    async def files(self) -> dict[str, str]:
        """The text of every file the project's outputs wrote, by relative path."""
        return await asyncio.to_thread(_read_tree, self.workspace)


def _assets(outputs: list[dict[str, Any]], agents: dict[str, dict[str, Any]],
            tree: SafeTree) -> list[dict[str, Any]]:
    """The image and sound files among a checkpoint's outputs (JSON: stored in its row),
    with their sizes now."""
    return [{"id": o["id"], "project_id": o["project_id"], "agent_id": o["agent_id"],
             "agent_type": agents[o["agent_id"]]["type"], "output_type": o["output_type"],
             "file_path": o["file_path"], "summary": str((o["content"] or {}).get("summary", "")),
             "size_bytes": _size(tree, o["file_path"]), "created_at": o["created_at"].isoformat()}
            for o in outputs if o["output_type"].startswith("asset_") and o["file_path"]]


def _size(tree: SafeTree, path: str) -> int | None:
    try:
        return tree.stat(path).st_size
    except (OSError, UnsafePath):  # gone, or no longer a plain file: not known
        return None


def _since(started: datetime | None, at: datetime) -> int:
    if started is None:
        return 0
    if started.tzinfo is None:  # SQLite gives back naive UTC
        started = started.replace(tzinfo=at.tzinfo)
    return max(0, int((at - started).total_seconds() * 1000))


def _read_tree(tree: SafeTree) -> dict[str, str]:
    """The text of the plain files under ``outputs/`` (links and half-written ``.part`` files
    left out), at most ``MAX_FILE_CHARS`` each and ``MAX_TREE_CHARS`` in all: what an agent
    reads back goes into a prompt, and a kernel could have written there too."""
    found: dict[str, str] = {}
    budget = MAX_TREE_CHARS
    for name in tree.files("outputs"):
        if name.endswith(".part") or budget <= 0:
            continue
        with contextlib.suppress(OSError, UnsafePath), tree.open_binary(name) as f:
            text = f.read(min(MAX_FILE_CHARS, budget) * 4).decode("utf-8", errors="replace")
            text = text[:min(MAX_FILE_CHARS, budget)]
            found[name.removeprefix("outputs/")] = text
            budget -= len(text)
    return found
