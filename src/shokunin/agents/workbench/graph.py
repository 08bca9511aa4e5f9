"""The Workbench graph: brain -> tools -> brain ... until the brain answers.

The same graph runs with either brain; only the decision inside the brain node differs.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, InvalidToolCall, ToolMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from shokunin import events as ev
from shokunin.agents.workbench.brain import Brain
from shokunin.agents.workbench.decision import report, step_number
from shokunin.agents.workbench.deps import RunDeps
from shokunin.agents.workbench.state import WorkbenchState
from shokunin.agents.workbench.tools import CellFailed


def _as_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False,
                                                             default=str)


def _plugin_error(content: str) -> str | None:
    """The error of a failed plugin call: plugins answer ``{"success": false, "error"}``."""
    if not content.startswith("{"):
        return None
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("success") is False:
        return str(data.get("error") or "the tool failed")
    return None


async def _call(deps: RunDeps, call: dict[str, Any]) -> ToolMessage:
    name = call["name"]
    tool = deps.tools.get(name)
    error: str | None = None
    failure: dict[str, Any] | None = None  # a failed cell's kind, for the reply's words
    if tool is None:
        error = f"unknown tool {name!r}; available tools: {', '.join(deps.tools)}"
    else:
        try:
            content = _as_text(await tool.ainvoke(call["args"]))
            error = _plugin_error(content)
        except CellFailed as exc:
            error, failure = str(exc), exc.failure
        except Exception as exc:  # noqa: BLE001 - a tool's failure is a result for the brain
            error = str(exc) or type(exc).__name__
    if error is not None:
        # The reply says it once in the user's words; the detail is for the debug pane.
        await deps.ctx.emit(ev.Debug(content={"tool_error": {"tool": name, "error": error}}))
        return ToolMessage(content=f"Error: {error}", tool_call_id=call["id"], name=name,
                           status="error", artifact=failure)
    return ToolMessage(content=content, tool_call_id=call["id"], name=name)


async def _refuse(deps: RunDeps, call: InvalidToolCall) -> ToolMessage:
    """Answer a call whose arguments did not parse: the model reads why and can call again,
    and the provider gets the answer every call needs before the conversation goes on."""
    name = call.get("name") or "(no name)"
    reason = call.get("error") or "its arguments are not a JSON object"
    args = call.get("args") or ""
    await deps.ctx.emit(ev.Debug(content={"tool_error": {
        "tool": name, "error": f"the model sent arguments that are not valid JSON: {args[:200]}",
        "code": "invalid_tool_call"}}))
    return ToolMessage(
        content=f"Error: the arguments of this call are not valid JSON ({reason}): {args}\n"
                "Call the tool again with a JSON object as its arguments.",
        tool_call_id=call["id"] or "", name=name, status="error")


def build_graph(brain: Brain, checkpointer: BaseCheckpointSaver | None) -> CompiledStateGraph:
    # The brain routes itself (a Command): a conditional edge would cost a runnable of its
    # own on every step.
    async def decide(state: WorkbenchState, runtime: Runtime[RunDeps]) -> Command[str]:
        deps = runtime.context
        message = await brain.decide(state["messages"], deps)
        await report(deps, message, step_number(state["messages"]), brain.name)
        calls = message.tool_calls or any(c.get("id") for c in message.invalid_tool_calls)
        return Command(update={"messages": [message]}, goto="tools" if calls else END)

    async def act(state: WorkbenchState, runtime: Runtime[RunDeps]) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        # One after another: the map events of a step must arrive in the order asked for.
        answers = [await _call(runtime.context, c) for c in last.tool_calls]
        answers += [await _refuse(runtime.context, c) for c in last.invalid_tool_calls
                    if c.get("id")]
        return {"messages": answers}

    graph = StateGraph(WorkbenchState, context_schema=RunDeps)
    graph.add_node("brain", decide, destinations=("tools", END))
    graph.add_node("tools", act)
    graph.add_edge(START, "brain")
    graph.add_edge("tools", "brain")
    return graph.compile(checkpointer=checkpointer)
