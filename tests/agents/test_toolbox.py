"""The Workbench's tools are built once and shared by runs: a plugin the registry gains
later is offered to the next run, and each call still reports to the run that made it."""

from __future__ import annotations

import shutil
from pathlib import Path

from shokunin import events as ev
from shokunin.config import PACKAGE_DIR
from shokunin.tools import ToolRegistry
from tests.agents.conftest import MakeRunner, ask


async def test_a_plugin_added_by_a_reload_is_offered_to_the_next_run(
        make_runner: MakeRunner, tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    registry = ToolRegistry([(folder, "user")], tmp_path / "settings.json",
                            workspace_root=tmp_path / "workspaces")
    try:
        runner = await make_runner(tools=registry)
        before = await ask(runner, "what is 2**10 + 3?")
        assert not [e for e in before if isinstance(e, ev.ToolResult)]

        shutil.copytree(PACKAGE_DIR / "tools" / "builtin" / "calculator", folder / "calculator")
        registry.reload()
        runs = [await ask(runner, "what is 2**10 + 3?"), await ask(runner, "what is 7 * 6?")]
        # Read back once both ended: a call reported to the wrong run would show up here.
        stored = [await runner.store.events_after(events[0].run_id) for events in runs]
    finally:
        await registry.close()
    for events, answer in zip(stored, ("1027", "42"), strict=True):
        results = [e for e in events if isinstance(e, ev.ToolResult) and e.name == "calculator"]
        assert results and all(r.success and answer in str(r.result) for r in results)
    calls = [[e for e in events if isinstance(e, ev.ToolCall)] for events in stored]
    assert len(calls[0]) == len(calls[1]) > 0
