"""A thread a broken tool call once poisoned is sent to the provider without that call."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from shokunin.agents.workbench.brain import answered_only


def test_unanswered_broken_calls_are_not_sent_again() -> None:
    broken = AIMessage("", invalid_tool_calls=[{
        "name": "draw_arrow", "args": '{"room_name": Kitchen}', "id": "call_1",
        "error": "not JSON", "type": "invalid_tool_call"}])
    answered = AIMessage("", invalid_tool_calls=[{
        "name": "draw_arrow", "args": "{", "id": "call_2", "error": "not JSON",
        "type": "invalid_tool_call"}])
    reply = ToolMessage("Error: not valid JSON", tool_call_id="call_2", status="error")
    history = [HumanMessage("arrow"), broken, HumanMessage("again"), answered, reply]
    assert answered_only(history) == [HumanMessage("arrow"), HumanMessage("again"), answered,
                                      reply]
