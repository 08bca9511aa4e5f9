"""The LLM path: a scripted chat model drives the same graph, tools and events."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from shokunin.models import register_script, unregister_script
from tests.agents.conftest import MakeRunner, ask, kinds


@pytest.fixture
def script() -> Iterator[str]:
    register_script("wb-llm", [
        {"tool_calls": [{"name": "draw_arrow",
                         "args": {"room_name": "Kitchen", "direction": "left"}},
                        {"name": "show_map",
                         "args": {"floor_id": "1F", "highlight_rooms": "Kitchen"}}]},
        "Drew the arrow.",
        {"tool_calls": [{"name": "draw_arrow", "args": {"room_name": "Attic",
                                                         "direction": "up"}}]},
        "Attic is not a room here.",
    ])
    yield "scripted:wb-llm"
    unregister_script("wb-llm")


async def test_scripted_model_drives_the_graph(make_runner: MakeRunner, script: str) -> None:
    runner = await make_runner(script)
    streamed = await ask(runner, "Kitchenに左矢印を表示して")
    events = [e for e in streamed if e.kind != "text_delta"]
    assert kinds(events) == ["run_started", "debug", "code", "tool_call", "tool_call", "arrow",
                             "map", "tool_result", "tool_result", "debug", "text", "metrics",
                             "run_completed"]
    assert [e.seq for e in streamed] == list(range(1, len(streamed) + 1))
    assert events[1].content["brain"] == "llm"  # type: ignore[attr-defined]
    assert events[2].code == ('draw_arrow(room_name="Kitchen", direction="left")\n'  # type: ignore
                              'show_map(floor_id="1F", highlight_rooms="Kitchen")')
    calls = [(e.call_id, e.name, e.args) for e in events[3:5]]  # type: ignore[attr-defined]
    assert [c[1:] for c in calls] == [
        ("draw_arrow", {"room_name": "Kitchen", "direction": "left"}),
        ("show_map", {"floor_id": "1F", "highlight_rooms": "Kitchen"})]
    results = events[7:9]
    assert [(r.call_id, r.success) for r in results] == [  # type: ignore[attr-defined]
        (calls[0][0], True), (calls[1][0], True)]
    # The model streams its answer: the deltas make up the text, before the text event.
    deltas = [e for e in streamed if e.kind == "text_delta"]
    assert len(deltas) == 3 and "".join(d.delta for d in deltas) == "Drew the arrow."
    assert all(d.seq < events[10].seq for d in deltas)
    assert events[10].text == "Drew the arrow."  # type: ignore[attr-defined]
    assert events[11].total_tokens > 0  # type: ignore[attr-defined]

    # Same thread: the model sees the earlier turn (checkpointer), and a tool error.
    events = [e for e in await ask(runner, "arrow in the attic")
              if e.kind != "text_delta"]
    assert kinds(events) == ["run_started", "debug", "code", "tool_call", "debug",
                             "tool_result", "debug", "text", "metrics", "run_completed"]
    # The error is the debug pane's; the model's reply says it to the user.
    failure = events[4].content["tool_error"]  # type: ignore[attr-defined]
    assert failure["tool"] == "draw_arrow" and "valid rooms" in failure["error"]
    assert events[5].success is False  # type: ignore[attr-defined]
    assert "unknown room 'Attic'" in events[5].error  # type: ignore[attr-defined]
    model = runner.agents["workbench"].brain.model  # type: ignore[attr-defined]
    last_prompt = model.asked[-1]
    humans = [m.content for m in last_prompt if isinstance(m, HumanMessage)]
    assert humans == ["Kitchenに左矢印を表示して", "arrow in the attic"]
    errors = [m for m in last_prompt if isinstance(m, ToolMessage) and m.status == "error"]
    assert "unknown room 'Attic'" in errors[0].content


async def test_a_model_failure_fails_the_run(make_runner: MakeRunner) -> None:
    register_script("wb-empty", [])
    try:
        events = await ask(await make_runner("scripted:wb-empty"), "hi")
    finally:
        unregister_script("wb-empty")
    assert kinds(events) == ["run_started", "run_failed"]
    assert "ran out of responses" in events[-1].error  # type: ignore[attr-defined]
