from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from shokunin.runs import (
    InvalidRunInput,
    InvalidThreadId,
    RunContext,
    Runner,
    RunNotFound,
    RunStateError,
    UnknownAgent,
)
from tests.waiting import eventually


async def collect(runner: Runner, run_id: str, after: int = 0) -> list:
    return [e async for e in runner.stream(run_id, after)]


async def _stored(runner: Runner, run_id: str, count: int) -> bool:
    """Whether at least ``count`` of the run's events are stored."""
    return len(await runner.store.events_after(run_id)) >= count


async def test_stream_yields_gap_free_seq_and_terminal_event(runner: Runner) -> None:
    run_id = await runner.start("counter", "t1", {"n": 4})
    events = await collect(runner, run_id)
    assert [e.seq for e in events] == list(range(1, 7))
    assert [e.kind for e in events] == ["run_started"] + ["text"] * 4 + ["run_completed"]
    assert events[-1].output == {"count": 4}
    assert {e.run_id for e in events} == {run_id} and {e.thread_id for e in events} == {"t1"}
    assert (await runner.store.get_run(run_id)).status == "completed"


async def test_late_subscriber_replays_then_follows_live(runner: Runner) -> None:
    run_id = await runner.start("counter", "t1", {"n": 6, "delay": 0.05})
    await eventually(lambda: _stored(runner, run_id, 3), what="a few events stored")
    events = await collect(runner, run_id, after=2)
    assert [e.seq for e in events] == list(range(3, 9))
    assert events[-1].kind == "run_completed"


async def test_replay_of_finished_run_after_seq(runner: Runner) -> None:
    run_id = await runner.start("counter", None, {"n": 3})
    await runner.wait(run_id)
    assert [e.seq for e in await collect(runner, run_id, after=3)] == [4, 5]
    assert await collect(runner, run_id, after=5) == []


async def test_two_subscribers_see_the_same_events(runner: Runner) -> None:
    run_id = await runner.start("counter", "t1", {"n": 5, "delay": 0.01})
    a, b = await asyncio.gather(collect(runner, run_id), collect(runner, run_id))
    assert [e.seq for e in a] == [e.seq for e in b] == list(range(1, 8))


async def test_cancel_stops_the_run_and_records_it(runner: Runner) -> None:
    run_id = await runner.start("counter", "t1", {"n": 1000, "delay": 0.01})
    await eventually(lambda: _stored(runner, run_id, 2), what="the run under way")
    assert await runner.cancel(run_id) is True
    events = await collect(runner, run_id)
    assert events[-1].kind == "run_cancelled"
    assert len([e for e in events if e.kind == "text"]) < 1000
    run = await runner.store.get_run(run_id)
    assert run.status == "cancelled" and run.finished_at is not None
    assert await runner.cancel(run_id) is False  # already over


async def test_failure_is_recorded_not_raised(
    runner: Runner, caplog: pytest.LogCaptureFixture
) -> None:
    run_id = await runner.start("broken", "t1", {})
    events = await collect(runner, run_id)
    assert [e.kind for e in events] == ["run_started", "text", "run_failed"]
    run = await runner.store.get_run(run_id)
    assert run.status == "failed" and run.error == events[-1].error
    # The client reads the message and an id; the traceback is in the log under that id.
    match = re.fullmatch(r"disk on fire \(error ([0-9a-f]{12})\)", events[-1].error)
    assert match, events[-1].error
    logged = [r for r in caplog.records if match.group(1) in r.getMessage()]
    assert logged and "ValueError" in logged[0].exc_text


async def test_interrupt_then_resume_continues_the_same_run(runner: Runner) -> None:
    run_id = await runner.start("asker", "t1", {})
    first = await collect(runner, run_id)
    assert first[-1].kind == "run_interrupted" and first[-1].payload == {"question": "proceed?"}
    assert (await runner.store.get_run(run_id)).status == "interrupted"
    await runner.resume(run_id, "yes")
    rest = await collect(runner, run_id, after=first[-1].seq)
    assert [e.kind for e in rest] == ["text", "run_completed"]
    assert rest[0].seq == first[-1].seq + 1  # seq stays gap-free across the resume
    with pytest.raises(RunStateError):
        await runner.resume(run_id, "again")


async def test_unknown_agent_and_run(runner: Runner) -> None:
    with pytest.raises(UnknownAgent):
        await runner.start("nobody", None, {})
    with pytest.raises(RunNotFound):
        await collect(runner, "missing")
    with pytest.raises(RunNotFound):
        await runner.cancel("missing")


async def test_fifty_concurrent_runs_each_complete(runner: Runner) -> None:
    ids = await asyncio.gather(*(runner.start("counter", f"t{i}", {"n": 5}) for i in range(50)))
    streams = await asyncio.gather(*(collect(runner, r) for r in ids))
    assert all([e.seq for e in s] == list(range(1, 8)) for s in streams)


async def test_stream_follows_a_run_live_in_another_process(runner: Runner) -> None:
    """Another Runner on the same store (another server process) sees the run through the
    store: replay, then polling, until the run's terminal event."""
    from shokunin.runs import MemoryBus

    other = Runner(runner.store, MemoryBus(), runner.workspace_root)
    run_id = await runner.start("counter", "t1", {"n": 8, "delay": 0.2})
    events = [e async for e in other.stream(run_id, after_seq=1)]
    assert [e.seq for e in events] == list(range(2, 11))
    assert events[-1].kind == "run_completed"


async def test_cancel_before_the_first_step_is_recorded(
    runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose task is cancelled before it took a step (so its body never ran) must
    still end as cancelled, with its terminal event."""
    launch = runner._launch

    def launch_then_cancel(ctx, input):  # noqa: ANN001, ANN202 - wraps a private method
        launch(ctx, input)
        runner._tasks[ctx.run_id].cancel()

    monkeypatch.setattr(runner, "_launch", launch_then_cancel)
    run_id = await runner.start("counter", "t1", {"n": 3})
    events = await asyncio.wait_for(collect(runner, run_id), 5)
    assert [e.kind for e in events] == ["run_started", "run_cancelled"]
    assert (await runner.store.get_run(run_id)).status == "cancelled"


async def test_cancel_right_after_start(runner: Runner) -> None:
    run_id = await runner.start("counter", "t1", {"n": 3})
    assert await runner.cancel(run_id) is True
    events = await asyncio.wait_for(collect(runner, run_id), 5)
    assert events[-1].kind == "run_cancelled"
    assert [e.kind for e in events].count("run_cancelled") == 1


async def test_runs_of_one_thread_take_turns(runner: Runner) -> None:
    """Two runs on one thread would race on its checkpoint: the second waits its turn."""
    first = await runner.start("counter", "same", {"n": 5, "delay": 0.02})
    second = await runner.start("counter", "same", {"n": 5, "delay": 0.02})
    a, b = await asyncio.gather(collect(runner, first), collect(runner, second))
    assert a[-1].kind == b[-1].kind == "run_completed"
    first_text_b = min(e.ts for e in b if e.kind == "text")
    assert first_text_b >= a[-1].ts
    other = await runner.start("counter", "elsewhere", {"n": 1})  # other threads don't wait
    assert (await collect(runner, other))[-1].kind == "run_completed"
    assert runner._thread_locks == {}


async def test_two_resumes_at_once_one_wins(runner: Runner) -> None:
    run_id = await runner.start("asker", "t1", {})
    asked = await collect(runner, run_id)
    results = await asyncio.gather(runner.resume(run_id, "a"), runner.resume(run_id, "b"),
                                   return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == ["NoneType", "RunStateError"]
    rest = await collect(runner, run_id, asked[-1].seq)
    assert [e.kind for e in rest] == ["text", "run_completed"]


async def test_input_that_cannot_be_stored_is_refused_before_any_row(runner: Runner) -> None:
    """A lone surrogate passes JSON escapes but cannot be encoded as UTF-8: the run is refused
    up front, instead of a run row left 'running' with no events."""
    with pytest.raises(InvalidRunInput, match="surrogate"):
        await runner.start("counter", "t-new", {"message": "\ud800"}, run_id="r-bad")
    assert await runner.store.get_run("r-bad") is None
    assert await runner.store.get_thread("t-new") is None


async def test_a_run_whose_first_write_fails_leaves_no_run_behind(
    runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run row and its run_started event are one write: a failed write leaves neither,
    # so no run is ever stuck 'running' without events.
    async def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(runner.store, "create_run", disk_full)
    with pytest.raises(OSError):
        await runner.start("counter", "t1", {"n": 1}, run_id="r1")
    assert await runner.store.get_run("r1") is None
    assert not runner.is_live("r1")
    monkeypatch.undo()
    run_id = await runner.start("counter", "t1", {"n": 1})  # the thread still works
    await runner.wait(run_id)
    assert (await runner.store.get_run(run_id)).status == "completed"


async def test_a_run_starts_with_its_row_and_first_event_in_one_write(runner: Runner) -> None:
    writes: list[list[str]] = []
    real = runner.store._writer._submit

    async def spy(what: list) -> None:
        writes.append([getattr(stmt, "table", None).name for stmt, _ in what])
        await real(what)

    runner.store._writer._submit = spy  # type: ignore[method-assign]
    run_id = await runner.start("counter", "t1", {"n": 1})
    await runner.wait(run_id)
    assert writes[:2] == [["threads"], ["runs", "events"]]


async def test_start_validates_the_thread_id_and_records_the_owner(runner: Runner) -> None:
    with pytest.raises(InvalidThreadId):
        await runner.start("counter", "../escape", {"n": 1})
    run_id = await runner.start("counter", "owned", {"n": 1}, owner="key:alice")
    await runner.start("counter", "owned", {"n": 1}, owner="key:bob")  # not the creator
    await runner.wait(run_id)
    assert (await runner.store.get_thread("owned")).owner == "key:alice"


async def test_thread_subscription_sees_every_new_run_of_its_thread(runner: Runner) -> None:
    seen: list = []

    async def watch() -> None:
        async for event in runner.subscribe_thread("t1"):
            seen.append(event)
            if sum(e.kind == "run_completed" for e in seen) == 2:
                return

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0)  # subscribed
    first = await runner.start("counter", "t1", {"n": 2})
    await runner.start("counter", "elsewhere", {"n": 2})
    second = await runner.start("counter", "t1", {"n": 3})
    await asyncio.wait_for(watcher, 10)
    assert {e.thread_id for e in seen} == {"t1"}
    assert [e.seq for e in seen if e.run_id == first] == list(range(1, 5))
    assert [e.seq for e in seen if e.run_id == second] == list(range(1, 6))


async def test_thread_subscription_after_a_run_replays_the_later_runs(runner: Runner) -> None:
    old = await runner.start("counter", "t1", {"n": 1})
    await runner.wait(old)
    missed = await runner.start("counter", "t1", {"n": 2})
    await runner.wait(missed)
    seen: list = []

    async def watch() -> None:
        async for event in runner.subscribe_thread("t1", after_run=old):
            seen.append(event)
            if sum(e.kind == "run_completed" for e in seen) == 2:
                return

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0)  # subscribed (had it not, the store replay would cover the run)
    new = await runner.start("counter", "t1", {"n": 1})
    await asyncio.wait_for(watcher, 10)
    assert [(e.run_id, e.seq) for e in seen] == [
        *((missed, s) for s in range(1, 5)), *((new, s) for s in range(1, 4))]


async def test_replay_from_zero_of_a_resumed_run_goes_past_the_interrupt(runner: Runner) -> None:
    """A client reconnecting to an approved run sees its continuation, not just the
    question: run_interrupted ends a replay only while the run still waits."""
    run_id = await runner.start("asker", "t1", {})
    asked = await collect(runner, run_id)
    await runner.resume(run_id, "yes")
    await runner.wait(run_id)
    whole = await asyncio.wait_for(collect(runner, run_id), 5)
    assert [e.kind for e in whole] == ["run_started", "run_interrupted", "text",
                                       "run_completed"]
    assert [e.seq for e in whole] == [1, 2, 3, 4] and whole[1] == asked[-1]


class _OwnerProbe:
    name = "owner_probe"

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(ctx.owner)
        return {}


async def test_the_starting_principal_is_the_runs_owner_for_sandbox_caps(runner: Runner) -> None:
    probe = _OwnerProbe()
    runner.register(probe)
    await runner.wait(await runner.start("owner_probe", "capped", {}, owner="key:alice"))
    await runner.wait(await runner.start("owner_probe", None, {}))
    assert probe.seen == ["key:alice", None]
