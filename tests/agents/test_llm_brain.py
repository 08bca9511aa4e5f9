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
    events = await ask(runner, "Kitchenに左矢印を表示して")
    assert kinds(events) == ["run_started", "debug", "code", "arrow", "map", "debug", "text",
                             "metrics", "run_completed"]
    assert events[1].content["brain"] == "llm"  # type: ignore[attr-defined]
    assert events[2].code == ('draw_arrow(room_name="Kitchen", direction="left")\n'  # type: ignore
                              'show_map(floor_id="1F", highlight_rooms="Kitchen")')
    assert events[6].text == "Drew the arrow."  # type: ignore[attr-defined]
    assert events[7].total_tokens > 0  # type: ignore[attr-defined]

    # Same thread: the model sees the earlier turn (checkpointer), and a tool error.
    events = await ask(runner, "arrow in the attic")
    assert kinds(events) == ["run_started", "debug", "code", "error", "debug", "text",
                             "metrics", "run_completed"]
    assert "valid rooms" in events[3].message  # type: ignore[attr-defined]
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
