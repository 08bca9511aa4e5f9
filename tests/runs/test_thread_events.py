"""A thread's own events (not a run's): stored then published with their own gap-free seq,
replayed from a position by ``Runner.follow_thread``; and the Runner's policies an agent
declares: pause (``ctx.gate()`` while the thread is held) and recovery at start-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from shokunin import events as ev
from shokunin.runs import MemoryBus, RunContext, Runner, ThreadPosition
from shokunin.store import Store
from tests.backends import database_url
from tests.runs.conftest import BACKENDS, Asker, Counter
from tests.waiting import eventually


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with database_url(request.param, tmp_path) as url:
        yield url


async def open_runner(db_url: str, tmp_path: Path, *agents: Any) -> Runner:
    runner = Runner(await Store.open(db_url), MemoryBus(), tmp_path / "ws")
    for agent in agents or (Counter(), Asker()):
        runner.register(agent)
    return runner


async def close_runner(runner: Runner) -> None:
    await runner.shutdown()
    await runner.store.close()


def status(new: str) -> ev.ProjectStatus:
    return ev.ProjectStatus(project_id="p", old_status="x", new_status=new)


async def test_thread_events_are_stored_then_published_with_a_gap_free_seq_per_thread(
        db_url: str, tmp_path: Path) -> None:
    runner = await open_runner(db_url, tmp_path)
    await runner.store.ensure_thread("a", "counter")
    await runner.store.ensure_thread("b", "counter")
    sub = runner.bus.subscribe_thread("a")
    sent = [await runner.publish_thread_event("a", status(s)) for s in ("1", "2", "3")]
    await runner.publish_thread_event("b", status("1"))
    assert [e.seq for e in sent] == [1, 2, 3] and {e.run_id for e in sent} == {""}
    published = [sub.queue.get_nowait() for _ in range(3)]  # type: ignore[attr-defined]
    stored = await runner.store.thread_events_after("a")
    assert published == stored == sent
    assert [e.seq for e in await runner.store.thread_events_after("b")] == [1]
    await close_runner(runner)

    again = await open_runner(db_url, tmp_path)  # a restart: the seq goes on
    assert (await again.publish_thread_event("a", status("4"))).seq == 4
    assert [e.seq for e in await again.store.thread_events_after("a", 2)] == [3, 4]
    await close_runner(again)


async def test_an_event_that_cannot_be_stored_is_never_published(
        db_url: str, tmp_path: Path) -> None:
    runner = await open_runner(db_url, tmp_path)
    await runner.store.ensure_thread("a", "counter")
    sub = runner.bus.subscribe_thread("a")
    with pytest.raises(Exception):  # noqa: B017, PT011 - the storage's own refusal
        await runner.publish_thread_event("a", ev.Log(message="\ud800"))
    assert sub.queue.empty()  # type: ignore[attr-defined]
    assert (await runner.publish_thread_event("a", status("ok"))).seq == 1  # no gap
    await close_runner(runner)


async def test_follow_thread_replays_after_a_position_then_goes_live_missing_none(
        db_url: str, tmp_path: Path) -> None:
    runner = await open_runner(db_url, tmp_path)
    first = await runner.start("counter", "t", {"n": 3})
    await runner.wait(first)
    await runner.publish_thread_event("t", status("a"))
    await runner.publish_thread_event("t", status("b"))
    seen = ThreadPosition(1, first, 2)  # a client saw the first status and 2 of 5 events
    feed = runner.follow_thread("t", after=str(seen))
    got: list[ev.BaseEvent] = []

    async def read() -> None:
        async for event in feed:
            got.append(event)

    reader = asyncio.create_task(read())
    second = await runner.start("counter", "t", {"n": 2})
    await runner.wait(second)
    await runner.publish_thread_event("t", status("c"))
    await eventually(lambda: len(got) >= 3 + 2 + 4, 5, what="every event of the thread")
    reader.cancel()
    keys = [(e.run_id, e.seq) for e in got]
    assert len(keys) == len(set(keys))  # none twice
    assert [k for k in keys if k[0] == first] == [(first, 3), (first, 4), (first, 5)]
    assert [k for k in keys if k[0] == ""] == [("", 2), ("", 3)]
    assert [k for k in keys if k[0] == second] == [(second, s) for s in (1, 2, 3, 4)]
    assert feed.position == ThreadPosition(3, second, 4)
    with pytest.raises(Exception, match="not a thread position"):
        runner.follow_thread("t", after="garbage")
    await close_runner(runner)


async def test_every_thread_event_reaching_subscribe_thread_has_its_seq(
        db_url: str, tmp_path: Path) -> None:
    runner = await open_runner(db_url, tmp_path)
    await runner.store.ensure_thread("t", "counter")
    got: list[ev.BaseEvent] = []

    async def read() -> None:
        async for event in runner.subscribe_thread("t"):
            got.append(event)

    reader = asyncio.create_task(read())
    subscribed = runner.bus._thread_subs  # noqa: SLF001 - the bus's own count
    await eventually(lambda: subscribed.get("t"), what="the reader subscribed")
    for s in ("a", "b", "c"):
        await runner.publish_thread_event("t", status(s))
    await eventually(lambda: len(got) >= 3, 5, what="the three thread events")
    reader.cancel()
    assert [e.seq for e in got] == [1, 2, 3]
    assert got == await runner.store.thread_events_after("t")
    await close_runner(runner)


class Pausable:
    """Passes a gate before each of its ``n`` steps. ``at_gate`` seen from another task: it
    waits there (a gate of a thread not held does not wait)."""

    name = "pausable"

    def __init__(self) -> None:
        self.at_gate = False

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        for i in range(input.get("n", 3)):
            self.at_gate = True
            await ctx.gate()
            self.at_gate = False
            await ctx.emit(ev.Text(text=f"step {i}"))
        return {}


async def test_a_held_thread_waits_at_its_gate_until_released(tmp_path: Path) -> None:
    pausable = Pausable()
    runner = await open_runner(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", tmp_path, pausable)
    await runner.hold("t")
    run_id = await runner.start("pausable", "t", {"n": 2})
    await eventually(lambda: pausable.at_gate, what="the run at its gate")
    assert [e.kind for e in await runner.store.events_after(run_id)] == ["run_started"]
    await runner.release("t")
    await runner.wait(run_id)
    assert [e.kind for e in await runner.store.events_after(run_id)][-1] == "run_completed"
    await close_runner(runner)


class Recovering(Counter):
    """Declares recovery: revives its runs a previous process left, with ``{"n": 1}``."""

    name = "recovering"

    async def recover(self, runner: Runner, orphans: Sequence[str], starting: bool) -> int:
        for run_id in sorted(orphans)[1:]:  # the other is left: the Runner fails it
            await runner.revive(run_id, {"n": 1})
        return len(orphans[:1])


async def test_recover_fails_the_runs_of_agents_without_recovery_and_revives_the_others(
        db_url: str, tmp_path: Path) -> None:
    store = await Store.open(db_url)  # what a previous process left: three runs running
    for run_id, agent in (("counted", "counter"), ("revived", "recovering"),
                          ("left", "recovering")):
        await store.ensure_thread(f"t-{run_id}", agent)
        await store.create_run(run_id, f"t-{run_id}", agent, {"n": 2}, first=ev.RunStarted(
            run_id=run_id, thread_id=f"t-{run_id}", seq=1, agent=agent))
    await store.close()

    runner = await open_runner(db_url, tmp_path, Counter(), Recovering(), Asker())
    asked = await runner.start("asker", "q", {})
    await runner.wait(asked)
    recovery = await runner.recover()
    assert (recovery.failed, recovery.revived) == (2, 1)
    await runner.wait("revived")
    events = await runner.store.events_after("revived")
    assert (await runner.store.get_run("revived")).status == "completed"
    assert [e.seq for e in events] == [1, 2, 3]  # the same run went on, its seq gap-free
    assert [e.kind for e in events] == ["run_started", "text", "run_completed"]
    for failed in ("counted", "left"):
        assert (await runner.store.get_run(failed)).status == "failed"
        assert [e.kind for e in await runner.store.events_after(failed)] == [
            "run_started", "run_failed"]
    assert (await runner.store.get_run(asked)).status == "interrupted"  # left to resume
    await close_runner(runner)


async def test_a_deleted_threads_own_events_go_with_it(tmp_path: Path) -> None:
    runner = await open_runner(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", tmp_path)
    await runner.store.ensure_thread("t", "counter")
    await runner.publish_thread_event("t", status("a"))
    await runner.hold("t")
    assert await runner.store.delete_thread("t")
    runner.forget_thread("t")
    assert await runner.store.thread_events_after("t") == []
    assert not runner.holds.is_held("t")
    await runner.store.ensure_thread("t", "counter")
    assert (await runner.publish_thread_event("t", status("b"))).seq == 1
    await close_runner(runner)
