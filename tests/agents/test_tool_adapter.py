"""The agent adapter: StructuredTools that emit ToolCall, Progress and ToolResult events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shokunin.agents.tool_adapter import as_langchain_tools, function_schemas
from shokunin.events import BaseEvent
from shokunin.runs import RunContext
from shokunin.tools import ToolRegistry
from tests.tools.conftest import PROBE, make_tool, registry_for


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[ToolRegistry]:
    """The tools tests' probe tool, in a registry of its own."""
    make_tool(tmp_path / "tool", "probe", PROBE)
    reg = registry_for(tmp_path, tmp_path / "tool")
    yield reg
    await reg.close()


class Recorder:
    """Stands in for the store and the bus: keeps what the run emitted."""

    def __init__(self) -> None:
        self.events: list[BaseEvent] = []

    async def append_event(self, event: BaseEvent) -> None:
        self.events.append(event)

    async def publish(self, event: BaseEvent) -> None:
        pass


def make_ctx(tmp_path: Path, recorder: Recorder) -> RunContext:
    return RunContext(run_id="r1", thread_id="t1", agent="a", store=recorder,  # type: ignore[arg-type]
                      bus=recorder, workspace=tmp_path / "ws")  # type: ignore[arg-type]


def test_function_schemas(registry: ToolRegistry) -> None:
    schemas = function_schemas(registry)
    assert schemas == [{"type": "function", "function": registry.get("probe").declaration}]


async def test_tool_call_emits_events_and_returns_json(registry: ToolRegistry,
                                                       tmp_path: Path) -> None:
    recorder = Recorder()
    ctx = make_ctx(tmp_path, recorder)
    [tool] = as_langchain_tools(registry, ctx)
    assert tool.name == "probe"
    assert tool.args == registry.get("probe").declaration["parameters"]["properties"]
    text = await tool.ainvoke({"mode": "progress"})
    result: dict[str, Any] = json.loads(text)
    assert result["success"] and result["result"] == "done"
    kinds = [e.kind for e in recorder.events]
    assert kinds == ["tool_call", "progress", "progress", "progress", "tool_result"]
    assert recorder.events[1].source == "probe"  # type: ignore[attr-defined]
    assert [e.seq for e in recorder.events] == [1, 2, 3, 4, 5]
    context = json.loads(await tool.ainvoke({"mode": "context"}))["result"]
    assert context["chat_id"] == "t1" and context["workspace"] == str(tmp_path / "ws")
    assert context["emit"] == "function"


async def test_run_abort_aborts_the_tool(registry: ToolRegistry, tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, Recorder())
    [tool] = as_langchain_tools(registry, ctx)
    ctx.abort.set()
    result = json.loads(await tool.ainvoke({"mode": "wait_abort"}))
    assert result["aborted"]


def test_exclude(registry: ToolRegistry, tmp_path: Path) -> None:
    assert as_langchain_tools(registry, make_ctx(tmp_path, Recorder()), exclude={"probe"}) == []
