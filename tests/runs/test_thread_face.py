"""A thread belongs to the agent (face) that made it: the Runner refuses another's run on it,
before anything is written, in this process and in a new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.runs import MemoryBus, RunError, Runner, ThreadOfAnotherFace
from shokunin.runs.deletion import delete_thread
from tests.runs.conftest import Asker, Counter


async def test_another_agent_is_refused_on_a_thread_and_nothing_is_written(
        runner: Runner) -> None:
    first = await runner.start("counter", "t-face", {"n": 1})
    await runner.wait(first)
    with pytest.raises(ThreadOfAnotherFace, match="belongs to the counter agent") as caught:
        await runner.start("asker", "t-face", {})
    assert isinstance(caught.value, RunError)
    assert caught.value.code == "thread_belongs_to_other_face"
    runs = await runner.store.thread_runs("t-face")
    assert [run.agent for run in runs] == ["counter"]
    assert (await runner.store.get_thread("t-face")).agent == "counter"
    again = await runner.start("counter", "t-face", {"n": 1})  # its own face goes on
    await runner.wait(again)


async def test_a_thread_made_outside_the_runner_is_checked_too(runner: Runner) -> None:
    await runner.store.ensure_thread("t-studio", "studio", title="a project")
    with pytest.raises(ThreadOfAnotherFace, match="studio"):
        await runner.start("counter", "t-studio", {})
    assert await runner.store.thread_runs("t-studio") == []


async def test_a_new_process_knows_whose_thread_it_is(tmp_path: Path, runner: Runner) -> None:
    await runner.wait(await runner.start("counter", "t-restart", {"n": 1}))
    other = Runner(runner.store, MemoryBus(), tmp_path / "ws2")
    for agent in (Counter(), Asker()):
        other.register(agent)
    with pytest.raises(ThreadOfAnotherFace):
        await other.start("asker", "t-restart", {})


async def test_a_deleted_thread_may_be_made_again_by_another_face(runner: Runner) -> None:
    await runner.wait(await runner.start("counter", "t-again", {"n": 1}))
    await delete_thread(runner, "t-again")
    run_id = await runner.start("asker", "t-again", {})
    await runner.wait(run_id)
    assert (await runner.store.get_thread("t-again")).agent == "asker"
