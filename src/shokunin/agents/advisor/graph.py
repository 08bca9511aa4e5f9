"""The Advisor graph (seed 001): detect the step -> answer. A run with ``set_step`` (the
user chose a step) only moves the focus. State lives in the server's checkpointer, so the
conversation and its step survive a restart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from shokunin import events as ev
from shokunin.agents.advisor.brains import Brain
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.advisor.steps import Settled, settle
from shokunin.runs import RunContext

HISTORY_MESSAGES = 12  # of earlier turns given to a model


class AdvisorState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    message: str
    set_step: str | None
    current_step: str | None
    proposed_step: str | None
    settled: dict[str, Any] | None


@dataclass
class AdvisorDeps:
    ctx: RunContext
    profile: dict[str, Any]


def build_graph(brain: Brain, playbook: Playbook,
                checkpointer: BaseCheckpointSaver | None) -> CompiledStateGraph:
    async def detect(state: AdvisorState, runtime: Runtime[AdvisorDeps]) -> dict[str, Any]:
        ctx = runtime.context.ctx
        current = state.get("current_step")
        chosen = state.get("set_step")
        if chosen is not None:
            await ctx.emit(ev.StepUpdate(step=chosen, confidence="high",
                                         reasoning="ユーザーが選択したステップです。"))
            return {"current_step": None if chosen == UNKNOWN else chosen,
                    "proposed_step": None, "settled": None}
        message = state["message"]
        history = state.get("messages", [])[-HISTORY_MESSAGES:]
        detection = await brain.detect(message, playbook, history)
        settled = settle(current, detection, state.get("proposed_step"), message)
        reasoning = detection.reasoning
        if settled.proposal:
            reasoning += f" 現在のステップは維持し、{settled.proposal} への切り替えを提案します。"
        elif settled.step == current and detection.step not in (current, UNKNOWN):
            reasoning += " 現在のステップを維持します。"
        if settled.step is not None:  # no step yet: nothing to show (the seed's clients
            # would show 「現在のステップ: UNKNOWN」; the origin never sends one)
            await ctx.emit(ev.StepUpdate(step=settled.step, confidence=detection.confidence,
                                         reasoning=reasoning))
        return {"current_step": settled.step, "proposed_step": settled.proposal,
                "settled": {"step": settled.step, "changed": settled.changed,
                            "proposal": settled.proposal, "ask": settled.ask}}

    async def route(state: AdvisorState) -> str:
        return END if state.get("set_step") is not None else "answer"

    async def answer(state: AdvisorState, runtime: Runtime[AdvisorDeps]) -> dict[str, Any]:
        deps = runtime.context
        message = state["message"]
        history = state.get("messages", [])[-HISTORY_MESSAGES:]
        text = await brain.answer(deps.ctx, message, playbook, Settled(**state["settled"]),
                                  deps.profile, history)
        await deps.ctx.emit(ev.Text(text=text))
        return {"messages": [HumanMessage(message), AIMessage(text)]}

    graph = StateGraph(AdvisorState, context_schema=AdvisorDeps)
    graph.add_node("detect", detect)
    graph.add_node("answer", answer)
    graph.add_edge(START, "detect")
    graph.add_conditional_edges("detect", route, ["answer", END])
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer)
