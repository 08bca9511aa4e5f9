"""The pipeline as one LangGraph graph per project (thread = project).

One node per agent; a leader with workers is three: the leader's plan, its workers (one
``Send`` per task of their kind in the task breakdown) and its review, where the leader's
checkpoint covers what the workers wrote. Dependencies are edges (a node with several waits
for all). A node with a checkpoint loops: write the output, create the checkpoint,
``interrupt()``; approved -> done, rejected -> the project (or the phase) stops,
changes requested -> write again with the feedback and ask again. Every attempt that reaches
its checkpoint calls ``interrupt()`` once, so LangGraph replays the answers in order when
the node re-runs. A node first waits while the project is paused (a node boundary).
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt

from shokunin.agents.studio.brains import Job
from shokunin.agents.studio.contracts import parse_resolution
from shokunin.agents.studio.pipeline import AgentSpec, Pipeline
from shokunin.agents.studio.session import GaveUp, ProjectSession


def _merge(left: dict[str, str], right: dict[str, str]) -> dict[str, str]:
    return {**left, **right}


class StudioState(TypedDict, total=False):
    outcome: Annotated[dict[str, str], _merge]  # agent (or worker) key -> how it ended
    stopped: Annotated[bool, operator.or_]  # the project failed: nothing more runs
    tasks: list[dict[str, Any]]  # the task breakdown's tasks


@dataclass
class StudioDeps:
    session: ProjectSession


def worker_key(worker_type: str, task_id: str) -> str:
    return f"{worker_type}/{task_id}"


def build_graph(pipeline: Pipeline, checkpointer: BaseCheckpointSaver | None
                ) -> CompiledStateGraph:
    graph = StateGraph(StudioState, context_schema=StudioDeps)
    ends: dict[str, str] = {}
    for spec in pipeline.agents:
        end = spec.type
        if spec.workers:
            review = f"{spec.type}_review"
            graph.add_node(spec.type, _leader_node(spec))
            graph.add_node(spec.workers.type, _worker_node(spec))
            graph.add_node(review, _review_node(spec, pipeline))
            graph.add_conditional_edges(spec.type, _fan_out(spec, review),
                                        [spec.workers.type, review])
            graph.add_edge(spec.workers.type, review)
            end = review
        else:
            graph.add_node(spec.type, _agent_node(spec, pipeline))
        ends[spec.type] = end
        deps = [ends[d] for d in spec.depends_on]
        graph.add_edge(deps if len(deps) > 1 else (deps[0] if deps else START), spec.type)
    return graph.compile(checkpointer=checkpointer)


def _why_blocked(spec: AgentSpec, state: StudioState, pipeline: Pipeline) -> str | None:
    if state.get("stopped"):
        return "プロジェクトが停止したため実行しません"
    outcome = state.get("outcome", {})
    for dep in spec.depends_on:
        if outcome.get(dep) != "completed":
            return f"依存する {dep} が完了していません ({outcome.get(dep, '未実行')})"
    for other, how in outcome.items():
        rejected = pipeline.by_type.get(other)
        if how == "rejected" and rejected and rejected.on_reject == "phase" and (
                rejected.phase == spec.phase):
            return f"同じフェーズの {other} が却下されたため実行しません"
    return None


async def _start(spec: AgentSpec, state: StudioState, runtime: Runtime[StudioDeps],
                 pipeline: Pipeline) -> tuple[ProjectSession, dict[str, Any], str | None]:
    session = runtime.context.session
    agent = await session.agent(spec)
    await session.boundary(passed=session.is_running(agent))
    why = _why_blocked(spec, state, pipeline)
    if why:
        await session.fail(agent, why, status="blocked", error_type="dependency_error")
    else:
        await session.enter_phase(spec.phase)
    return session, agent, why


def _job(session: ProjectSession, spec: AgentSpec, inputs: dict[str, Any], attempt: int,
         feedback: str | None, task: dict[str, Any] | None = None) -> Job:
    output = spec.workers.output if spec.workers and task else spec.output
    return Job(agent_type=spec.workers.type if spec.workers and task else spec.type,
               output_type=output, title=(task or {}).get("title") or spec.title or spec.type,
               project_name=session.name, concept=session.concept,
               inputs=inputs, feedback=feedback, task=task, attempt=attempt,
               timeout_seconds=spec.timeout_seconds)


Make = Callable[[int, str | None], Awaitable[list[dict[str, Any]]]]


async def _review_loop(session: ProjectSession, spec: AgentSpec, agent: dict[str, Any],
                       make: Make) -> dict[str, Any]:
    """Write, ask, and write again until the output is approved or rejected (from the
    attempt a brush-up asked for, if one did)."""
    attempt, feedback = session.first_attempt(spec.type)
    while True:
        try:
            outputs = await make(attempt, feedback)
        except GaveUp as exc:
            await session.fail(agent, str(exc), error_type=exc.error_type)
            await session.set_status("failed", from_status=("running", "paused"))
            return {"outcome": {spec.type: "failed"}, "stopped": True}
        summary = "; ".join(str((o["content"] or {}).get("summary", "")) for o in outputs)
        update: dict[str, Any] = {"outcome": {spec.type: "completed"}}
        if spec.output == "task_breakdown" and outputs:
            update["tasks"] = session.wanted((outputs[-1]["content"] or {}).get("tasks", []))
        if spec.checkpoint is None:
            await session.complete(agent, summary)
            return update
        checkpoint = await session.checkpoint(spec, agent, attempt, outputs)
        answer = interrupt({"checkpointId": checkpoint["id"], "agentId": agent["id"],
                            "checkpointType": spec.checkpoint})
        if answer.get("closed"):  # the project failed beside it: the checkpoint stays open
            await session.fail(agent, str(answer.get("feedback")), status="blocked",
                               error_type="dependency_error")
            return {"outcome": {spec.type: "blocked"}}
        resolution = parse_resolution(str(answer.get("resolution")))
        if resolution == "approved":
            await session.log(agent, f"承認されました: {checkpoint['title']}",
                              once=f"approved/{attempt}")
            await session.complete(agent, summary)
            return update
        if resolution == "rejected":
            reason = f"却下されました: {answer.get('feedback') or '理由の記載なし'}"
            await session.fail(agent, reason, error_type="rejected")
            if spec.on_reject == "project":
                await session.set_status("failed", from_status=("running", "paused"))
                return {"outcome": {spec.type: "rejected"}, "stopped": True}
            return {"outcome": {spec.type: "rejected"}}
        attempt += 1
        feedback = str(answer.get("feedback") or "") or "(フィードバックなし)"
        await session.log(agent, f"修正を依頼されました: {feedback}", level="warn",
                          once=f"revision/{attempt}")


def _agent_node(spec: AgentSpec, pipeline: Pipeline):  # noqa: ANN202 - a graph node
    async def node(state: StudioState, runtime: Runtime[StudioDeps]) -> dict[str, Any]:
        session, agent, blocked = await _start(spec, state, runtime, pipeline)
        if blocked:
            return {"outcome": {spec.type: "blocked"}}
        inputs: dict[str, Any] = await session.upstream(spec)
        if spec.phase == 3:
            inputs["files"] = await session.files()

        async def make(attempt: int, feedback: str | None) -> list[dict[str, Any]]:
            job = _job(session, spec, inputs, attempt, feedback)
            return [await session.produce(spec, agent, job, spec.max_retries)]

        return await _review_loop(session, spec, agent, make)

    return node


def _tasks(spec: AgentSpec, state: StudioState) -> list[dict[str, Any]]:
    assert spec.workers is not None
    return [t for t in state.get("tasks", []) if t.get("kind") == spec.workers.tasks]


def _leader_node(spec: AgentSpec):  # noqa: ANN202 - a graph node
    async def node(state: StudioState, runtime: Runtime[StudioDeps]) -> dict[str, Any]:
        session = runtime.context.session
        _s, agent, blocked = await _start(spec, state, runtime, session.pipeline)
        if blocked:
            return {"outcome": {spec.type: "blocked"}}
        assert spec.workers is not None
        if agent["status"] == "completed":  # the graph begun again (after a stop or a
            return {}  # brush-up): its workers and review replay what they did, no more
        tasks = _tasks(spec, state)
        await session.begin(agent, "タスクの割り振り")
        for task in tasks:
            await session.agent(spec.workers.type, task, parent=agent["id"])
        ids = [t["id"] for t in tasks]
        await session.log(agent, f"{len(tasks)} 件のタスクを {spec.workers.type} に割り振りました",
                          metadata={"tasks": ids}, once="assign:" + ",".join(ids))
        await session.progress(agent, 20, "ワーカーの作業待ち", 0, len(tasks))
        return {}

    return node


def _fan_out(spec: AgentSpec, review: str):  # noqa: ANN202 - a conditional edge
    def route(state: StudioState) -> list[Send] | str:
        assert spec.workers is not None
        if state.get("outcome", {}).get(spec.type) == "blocked":
            return review
        tasks = _tasks(spec, state)
        return [Send(spec.workers.type, {"task": t}) for t in tasks] if tasks else review

    return route


def _worker_node(spec: AgentSpec):  # noqa: ANN202 - a graph node
    assert spec.workers is not None
    worker_type = spec.workers.type

    async def node(payload: dict[str, Any], runtime: Runtime[StudioDeps]) -> dict[str, Any]:
        session = runtime.context.session
        task = payload["task"]
        leader = await session.agent(spec)
        worker = await session.agent(worker_type, task, parent=leader["id"])
        await session.boundary(passed=session.is_running(worker))
        key = worker_key(worker_type, task["id"])
        job = _job(session, spec, await session.upstream(spec), 0, None, task)
        try:
            output = await session.produce(spec, worker, job, spec.max_retries)
        except GaveUp as exc:
            await session.fail(worker, str(exc), error_type=exc.error_type)
            return {"outcome": {key: "failed"}}
        await session.complete(worker, str((output["content"] or {}).get("summary", "")))
        return {"outcome": {key: "completed"}}

    return node


def _review_node(spec: AgentSpec, pipeline: Pipeline):  # noqa: ANN202 - a graph node
    assert spec.workers is not None
    worker_type = spec.workers.type

    async def node(state: StudioState, runtime: Runtime[StudioDeps]) -> dict[str, Any]:
        session = runtime.context.session
        leader = await session.agent(spec)
        await session.boundary(passed=session.was_asked(leader))
        replay = leader["status"] == "completed"  # approved before: its figures stay
        outcome = state.get("outcome", {})
        if outcome.get(spec.type) == "blocked":
            return {}
        tasks = _tasks(spec, state)
        if not tasks:  # nothing of its kind to do: nothing to review
            await session.log(leader, "割り振るタスクがないため、確認なしで完了しました",
                              once="no-tasks")
            await session.complete(leader, "タスクなし")
            return {"outcome": {spec.type: "completed"}}
        failed = [t["id"] for t in tasks
                  if outcome.get(worker_key(worker_type, t["id"])) != "completed"]
        if failed:
            await session.fail(leader, f"ワーカーが失敗しました: {', '.join(failed)}",
                               error_type="dependency_error")
            await session.set_status("failed", from_status=("running", "paused"))
            return {"outcome": {spec.type: "failed"}, "stopped": True}
        inputs = await session.upstream(spec)

        async def make(attempt: int, feedback: str | None) -> list[dict[str, Any]]:
            rows = []
            for number, task in enumerate(tasks):
                worker = await session.agent(worker_type, task, parent=leader["id"])
                job = _job(session, spec, inputs, attempt, feedback, task)
                row = await session.produce(spec, worker, job, spec.max_retries)
                if attempt:
                    await session.complete(worker, str((row["content"] or {}).get("summary")))
                if not replay:
                    await session.progress(
                        leader, 20 + 70 * (number + 1) // max(1, len(tasks)),
                        "ワーカーの出力をまとめています", number + 1, len(tasks))
                rows.append(row)
            return rows

        return await _review_loop(session, spec, leader, make)

    return node
