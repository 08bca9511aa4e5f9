"""decision.report: a step is reported as an answer only when it calls no tool at all."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from langchain_core.messages import AIMessage

from shokunin.agents.workbench.decision import report


class _Hold:
    released = False

    async def release(self) -> None:
        self.released = True


async def test_a_step_of_only_broken_calls_is_not_reported_as_an_answer() -> None:
    emitted: list[Any] = []

    async def emit_all(events: list[Any]) -> None:
        emitted.extend(events)

    deps = SimpleNamespace(ctx=SimpleNamespace(emit_all=emit_all), hold=_Hold(), step="")
    message = AIMessage("I'll draw it.", invalid_tool_calls=[{
        "name": "draw_arrow", "args": "{bad", "id": "c1", "error": "not JSON",
        "type": "invalid_tool_call"}])
    await report(deps, message, 1, "llm")  # type: ignore[arg-type]
    assert [e.kind for e in emitted] == ["debug"]
    assert emitted[0].content["agent_response"]["logs"][0]["tool_calls"] == ["draw_arrow"]
    assert emitted[0].content["parsed_outputs"] == []
    assert not deps.hold.released  # the images of the run wait for the real answer
