"""Seed 004's graph: START -> reason -> route_after_reason -> run_code | report | END;
run_code -> reason; report -> END.

``reason`` decides (a brain: offline or a model); a clarification waits for the user with
``interrupt()`` and decides again with the answer. ``run_code`` runs the brain's code in the
thread's sandbox kernel; a failed cell goes back to ``reason``, which may fix it, at most
``max_attempts`` cells per question. ``report`` writes the answer from the cells.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from shokunin import events as ev
from shokunin.agents.analyst import answer, kernel_code
from shokunin.agents.analyst.contracts import (
    Cell,
    ReasonDecision,
    ReasonNodeInput,
    ReasonNodeOutput,
    ReportNodeInput,
    ReportNodeOutput,
    ReportOutput,
    RouteAfterReasonInput,
    RouteAfterReasonOutput,
    RunCodeNodeInput,
    RunCodeNodeOutput,
)
from shokunin.agents.analyst.offline import is_ja
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.agents.outcomes import cell_failure
from shokunin.runs import RunContext
from shokunin.sandbox import ExecPythonInput, ExecResult

CELL_TIMEOUT_SEC = 120
MAX_QUESTIONS = 5  # clarifications asked for one question before it is reported as unclear


class AnalystState(TypedDict, total=False):
    messages: Annotated[Sequence[AnyMessage], add_messages]
    dataset_id: str
    question: str  # this turn's question (with the answers to its clarifications)
    decision: dict[str, Any] | None
    cells: Annotated[list[dict[str, Any]], operator.add]  # every cell of the thread
    turn_start: int  # index in ``cells`` of this question's first cell
    report: dict[str, Any] | None


class Brain(Protocol):
    name: str

    async def decide(self, question: str, record: DatasetRecord, cells: list[Cell],
                     max_attempts: int) -> ReasonDecision: ...

    async def write_code(self, question: str, instruction: str, record: DatasetRecord,
                         cells: list[Cell]) -> str: ...

    async def summarize(self, question: str, record: DatasetRecord, cells: list[Cell]) -> str:
        ...


@dataclass
class AnalystDeps:
    """What the nodes use during one run (LangGraph runtime context, never checkpointed)."""

    ctx: RunContext
    record: DatasetRecord
    max_attempts: int


def this_turn(state: AnalystState) -> list[Cell]:
    return [Cell.model_validate(c) for c in state.get("cells", [])[state.get("turn_start", 0):]]


def build_graph(brain: Brain, checkpointer: BaseCheckpointSaver | None) -> CompiledStateGraph:
    async def reason(state: AnalystState, runtime: Runtime[AnalystDeps]) -> dict[str, Any]:
        deps = runtime.context
        question = state["question"]
        cells = this_turn(state)
        last = cells[-1] if cells else None
        ReasonNodeInput(messages=list(state["messages"]), dataset_id=state["dataset_id"],
                        profile=deps.record.profile.model_dump(mode="json"),
                        last_exec=last.result if last else None,
                        last_code=last.code if last else None)  # the seed's contract
        decision = await brain.decide(question, deps.record, cells, deps.max_attempts)
        await _progress(deps.ctx, "reason", decision)
        if decision.action != "ask_clarification":
            return {"decision": ReasonNodeOutput(decision=decision).decision.model_dump()}
        # The run waits at each question; resumed, the node runs again from its start and
        # LangGraph hands each interrupt() its answer in order, so the decisions above are
        # made again (the same ones: nothing else changed) until a new question waits.
        said: list[AnyMessage] = []
        for _ in range(MAX_QUESTIONS):
            if decision.action != "ask_clarification":
                break
            asked = decision.clarification_question or ""
            answer = str(interrupt({"question": asked}))
            said += [AIMessage(asked), HumanMessage(answer)]
            question = f"{question}\n{answer}"
            decision = await brain.decide(question, deps.record, cells, deps.max_attempts)
            await _progress(deps.ctx, "reason", decision)
        if decision.action == "ask_clarification":  # still unclear: report what was asked
            decision = ReasonDecision(action="report")
        return {"messages": said, "question": question, "decision": decision.model_dump()}

    async def route_after_reason(state: AnalystState) -> RouteAfterReasonOutput:
        action = RouteAfterReasonInput.model_validate({"decision": state["decision"]}
                                                      ).decision.action
        return {"run_code": "run_code", "report": "report"}.get(action, END)  # type: ignore[return-value]

    async def run_code(state: AnalystState, runtime: Runtime[AnalystDeps]) -> dict[str, Any]:
        deps = runtime.context
        decision = ReasonDecision.model_validate(state["decision"])
        instruction = RunCodeNodeInput(dataset_id=state["dataset_id"], analysis_instruction=(
            decision.analysis_instruction or "")).analysis_instruction
        cells = this_turn(state)
        code = await brain.write_code(state["question"], instruction, deps.record, cells)
        sandbox = deps.ctx.services.sandbox
        if not hasattr(sandbox, "run_in"):
            raise RuntimeError("the Python sandbox is not available on this server")
        result = await sandbox.run_in(deps.ctx, ExecPythonInput(
            code=kernel_code.cell(deps.record, code), timeout_sec=CELL_TIMEOUT_SEC),
            step=f"Cell {len(cells) + 1}", shown=code)
        out = RunCodeNodeOutput(last_code=code, last_exec=result)
        cell = Cell(instruction=instruction, code=out.last_code, result=out.last_exec)
        return {"cells": [cell.model_dump(mode="json")]}

    async def report(state: AnalystState, runtime: Runtime[AnalystDeps]) -> dict[str, Any]:
        deps = runtime.context
        cells = this_turn(state)
        last = cells[-1].result if cells else None
        ReportNodeInput(decision=ReasonDecision.model_validate(state["decision"]), last_exec=last)
        summary = await brain.summarize(state["question"], deps.record, cells)
        if last is not None and not last.ok and last.error_type and not _tells(summary, last):
            # whatever the brain wrote, the report says the last cell failed, and how, in
            # the question's language
            ja = is_ja(state["question"])
            said = cell_failure(last.error_type, last.error_message, ja)
            summary += (f"\n\n（{len(cells)} 回目の計算が失敗しました: {said}）" if ja else
                        f"\n\n(The last of {len(cells)} cells failed: {said})")
        out = ReportOutput(summary=summary,
                           plot_png_base64=last.plot_png_base64 if last else [],
                           table_markdown=last.table_markdown if last else [],
                           # the cell's JSON_OUT; its result for the summary stays inside
                           json=[v for v in last.json if answer.find([v]) is None]
                           if last else [])
        await deps.ctx.emit(ev.Text(text=summary))
        return {"report": ReportNodeOutput(report=out).report.model_dump(),
                "messages": [AIMessage(summary)]}

    graph = StateGraph(AnalystState, context_schema=AnalystDeps)
    graph.add_node("reason", reason)
    graph.add_node("run_code", run_code)
    graph.add_node("report", report)
    graph.add_edge(START, "reason")
    graph.add_conditional_edges("reason", route_after_reason, ["run_code", "report", END])
    graph.add_edge("run_code", "reason")
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)


def _tells(summary: str, failed: ExecResult) -> bool:
    """Whether a report already says how the cell failed: by its error type, or in the
    words every agent gives that failure (``cell_failure``)."""
    return failed.error_type in summary or any(
        cell_failure(failed.error_type, failed.error_message, ja) in summary
        for ja in (True, False))


async def _progress(ctx: RunContext, node: str, decision: ReasonDecision) -> None:
    await ctx.emit(ev.Debug(content={"node": node, "decision": decision.model_dump()}))
