"""Run leases (issue 38, faults): several processes on one database each run their own runs;
one that is gone leaves orphans that exactly one other claims, a cancel reaches the process
that runs the run, and a live process's runs are never touched. Two engines of one process
stand for two processes (each has its own lease holder), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from shokunin import events as ev
from shokunin.runs import MemoryBus, RunContext, Runner
from shokunin.store import RunStatus, Store, schema
from shokunin.store.leases import Orphan, holder_gone
from tests.backends import database_url, postgres_available
from tests.runs.conftest import BACKENDS, Asker, Counter, Thinker
from tests.tcp_proxy import TcpProxy
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess

LEASE = 1.0  # seconds: a heartbeat every 0.2 s


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with database_url(request.param, tmp_path) as url:
        yield url


@contextlib.asynccontextmanager
async def process(db_url: str, tmp_path: Path, *, recover: bool = True
                  ) -> AsyncIterator[Runner]:
    """A stand-in for one `shokunin serve`: its store (its own lease holder), a runner with
    the test agents, and the heartbeat."""
    runner = Runner(await Store.open(db_url, lease_seconds=LEASE), MemoryBus(),
                    tmp_path / "ws")
    for agent in (Counter(), Asker(), Thinker()):
        runner.register(agent)
    if recover:
        await runner.recover()
    beat = asyncio.create_task(runner.keep_leases(recover=recover))
    try:
        yield runner
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        await runner.shutdown()
        await runner.store.close()


@contextlib.asynccontextmanager
async def child_run(db_url: str, tmp_path: Path, *agent: str
                    ) -> AsyncIterator[tuple[str, int]]:
    """Another real process running a long run (``agent``: its name and input JSON):
    (its run id, its pid); killed after."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.runs.lease_child", db_url, str(tmp_path / "ws"),
        str(LEASE), *agent, stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).parents[2])
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 60)
        yield line.decode().strip(), child.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()


async def status_of(runner: Runner, run_id: str) -> RunStatus:
    run = await runner.store.get_run(run_id)
    assert run is not None
    return run.status


async def test_a_process_starting_leaves_another_live_processes_runs_alone(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as a:
        run_id = await a.start("counter", None, {"n": 80, "delay": 0.05})
        async with process(db_url, tmp_path) as b:  # starts while A's run runs
            # no event says B left it alone: two leases, ten of B's looks for orphans
            await asyncio.sleep(2 * LEASE)
            assert await status_of(b, run_id) == RunStatus.RUNNING
        await a.wait(run_id)
        events = await a.store.events_after(run_id)
        assert events[-1].kind == "run_completed" and len(events) == 82


async def test_a_killed_processes_run_is_failed_by_a_live_one_with_an_event(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as b, child_run(db_url, tmp_path) as (run_id, pid):
        await eventually(lambda: _has_text(b, run_id), 10, what="a text event of the run")
        await asyncio.sleep(2 * LEASE)  # (as above: ten of B's looks for orphans)
        assert await status_of(b, run_id) == RunStatus.RUNNING  # alive: left alone
        os.kill(pid, signal.SIGKILL)
        await eventually(lambda: _ended(b, run_id), 2 * LEASE + 5, what="the run's end")
        events = await b.store.events_after(run_id)
        assert events[-1].kind == "run_failed" and "stopped" in events[-1].error
        assert [e.seq for e in events] == list(range(1, len(events) + 1))  # nothing lost


async def test_an_expired_lease_of_another_machine_is_claimed_by_exactly_one_process(
        db_url: str, tmp_path: Path) -> None:
    """A holder on another host is never known dead: only its lease running out says so."""
    async with process(db_url, tmp_path, recover=False) as a:
        await a.store.ensure_thread("t", "counter")
        await a.store.create_run("r", "t", "counter", {}, first=ev.RunStarted(
            run_id="r", thread_id="t", seq=1, agent="counter"))
        elsewhere = "other-host:1234:abcdef"
        async with a.store.engine.begin() as conn:
            await conn.execute(update(schema.runs).where(schema.runs.c.id == "r").values(
                lease_holder=elsewhere, lease_until=datetime.now(UTC) + timedelta(hours=1)))
        assert not holder_gone(elsewhere)
        assert await a.store.leases.orphans() == []  # live lease: not an orphan
        async with a.store.engine.begin() as conn:
            await conn.execute(update(schema.runs).where(schema.runs.c.id == "r").values(
                lease_until=datetime.now(UTC) - timedelta(seconds=1)))
        [orphan] = await a.store.leases.orphans()
        assert orphan == Orphan("r", "t", "counter", elsewhere)
        async with process(db_url, tmp_path, recover=False) as b:
            won = await asyncio.gather(a.store.leases.claim(orphan),
                                       b.store.leases.claim(orphan))
            assert sorted(won) == [False, True]


async def test_a_cancel_asked_of_another_process_stops_the_run_there(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as a, process(db_url, tmp_path) as b:
        run_id = await a.start("counter", None, {"n": 1000, "delay": 0.05})
        await eventually(lambda: _has_text(b, run_id), 10, what="a text event of the run")
        assert await b.cancel(run_id) is True  # returns once it has ended there
        assert await status_of(b, run_id) == RunStatus.CANCELLED
        assert (await b.store.events_after(run_id))[-1].kind == "run_cancelled"
        assert not a.is_live(run_id)


async def test_a_run_waiting_for_an_answer_is_resumed_by_another_process(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as a, process(db_url, tmp_path) as b:
        run_id = await a.start("asker", None, {})
        await a.wait(run_id)
        await b.resume(run_id, "yes")
        await b.wait(run_id)
        run = await b.store.get_run(run_id)
        assert run is not None and run.status == RunStatus.COMPLETED
        assert run.lease_holder == b.store.leases.holder


def test_a_dead_process_of_this_machine_is_known_gone_at_once() -> None:
    host = os.uname().nodename
    assert holder_gone(None) and holder_gone("")
    assert holder_gone(f"{host}:{os.getpid()}:not-open-here")  # a closed engine of ours
    assert not holder_gone(f"{host}:1:x")  # init: alive
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    assert holder_gone(f"{host}:{child}:x")


async def _has_text(runner: Runner, run_id: str) -> bool:
    return any(e.kind == "text" for e in await runner.store.events_after(run_id))


async def _ended(runner: Runner, run_id: str) -> bool:
    return await status_of(runner, run_id) != RunStatus.RUNNING


async def test_a_run_whose_end_could_not_be_recorded_is_failed_once_the_database_is_back(
        tmp_path: Path) -> None:
    """PostgreSQL away under a run: its emit fails, so it fails, and recording that fails
    too; the heartbeat finds the run 'running' with no task and fails it, with an event,
    when the database answers again."""
    if not postgres_available():
        pytest.skip("PostgreSQL not reachable on 127.0.0.1:5432")
    async with database_url("postgres", tmp_path) as url:
        proxy = TcpProxy(5432).start()
        try:
            via = url.replace(":5432", f":{proxy.port}")
            async with process(via, tmp_path, recover=False) as a:
                run_id = await a.start("counter", None, {"n": 100000, "delay": 0.05})
                await eventually(lambda: _has_text(a, run_id), 10, what="a text event of the run")
                await asyncio.to_thread(proxy.cut)
                await eventually(lambda: _not_live(a, run_id), 30,
                                 what="the run no longer live here")
                await asyncio.sleep(1.0)
                await asyncio.to_thread(proxy.start)
                await eventually(lambda: _ended(a, run_id), 30, what="the run's end")
                events = await a.store.events_after(run_id)
                assert events[-1].kind == "run_failed"
                assert [e.seq for e in events] == list(range(1, len(events) + 1))
        finally:
            await asyncio.to_thread(proxy.close)


async def _not_live(runner: Runner, run_id: str) -> bool:
    return not runner.is_live(run_id)


class Stepper:
    """A pausable agent: a numbered line, then its gate, ``n`` times. ``at_gate`` seen from
    another task: it waits there (a gate of a thread not held does not wait)."""

    name = "stepper"

    def __init__(self) -> None:
        self.at_gate = False

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        for i in range(input["n"]):
            await ctx.emit(ev.Text(text=f"#{i}"))
            self.at_gate = True
            await ctx.gate()
            self.at_gate = False
            await asyncio.sleep(0.02)
        return {}


async def test_a_hold_asked_of_another_process_pauses_the_run_there_until_released(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as a, process(db_url, tmp_path) as b:
        stepper = Stepper()
        a.register(stepper)
        run_id = await a.start("stepper", None, {"n": 100000})
        await eventually(lambda: _has_text(a, run_id), 10, what="a text event of the run")
        thread = (await a.store.get_run(run_id)).thread_id  # type: ignore[union-attr]
        await b.hold(thread)  # B does not run it: A learns at its next heartbeat
        await eventually(lambda: _at_gate(stepper), 10, what="the stepper at its gate")
        held_at = len(await a.store.events_after(run_id))
        await asyncio.sleep(LEASE / 2)  # A's heartbeats, which must not let it go meanwhile
        assert len(await a.store.events_after(run_id)) == held_at  # waits at its gate
        await b.release(thread)
        await eventually(lambda: _more(a, run_id, held_at + 5), 10,
                         what="five more events of the run")
        assert a.is_live(run_id)


async def _at_gate(stepper: Stepper) -> bool:
    return stepper.at_gate


async def _more(runner: Runner, run_id: str, count: int) -> bool:
    return len(await runner.store.events_after(run_id)) >= count


async def test_a_killed_processes_run_that_did_nothing_with_side_effects_starts_again(
        db_url: str, tmp_path: Path) -> None:
    """Cut short in the middle of a model's answer: the run starts again in a live process
    from the thread's last checkpoint, says so, and completes; not failed."""
    async with process(db_url, tmp_path) as b, child_run(
            db_url, tmp_path, "thinker", '{"n": 60, "delay": 0.05}') as (run_id, pid):
        await eventually(lambda: _says(b, run_id, "text_delta"), 10,
                         what="a text_delta event of the run")
        os.kill(pid, signal.SIGKILL)
        await eventually(lambda: _ended(b, run_id), 2 * LEASE + 15, what="the run's end")
        events = await b.store.events_after(run_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert events[-1].kind == "run_completed"
        logs = [e for e in events if e.kind == "log"]
        assert len(logs) == 1 and "starts again" in logs[0].message  # type: ignore[attr-defined]
        after = events[events.index(logs[0]) + 1:]
        assert sum(e.kind == "text_delta" for e in after) == 60  # the whole answer again
        assert await status_of(b, run_id) == RunStatus.COMPLETED


async def test_a_killed_processes_run_that_had_called_a_tool_is_failed_not_started_again(
        db_url: str, tmp_path: Path) -> None:
    async with process(db_url, tmp_path) as b, child_run(
            db_url, tmp_path, "thinker",
            '{"n": 100000, "delay": 0.05, "tool": true}') as (run_id, pid):
        await eventually(lambda: _says(b, run_id, "text_delta"), 10,
                         what="a text_delta event of the run")
        os.kill(pid, signal.SIGKILL)
        await eventually(lambda: _ended(b, run_id), 2 * LEASE + 15, what="the run's end")
        events = await b.store.events_after(run_id)
        assert events[-1].kind == "run_failed"
        assert not [e for e in events if e.kind == "log"]
        assert await status_of(b, run_id) == RunStatus.FAILED


async def _says(runner: Runner, run_id: str, kind: str) -> bool:
    return any(e.kind == kind for e in await runner.store.events_after(run_id))


async def test_two_processes_run_the_runs_of_one_thread_one_at_a_time_in_order(
        db_url: str, tmp_path: Path) -> None:
    """Web processes that run runs themselves (no queue): a thread's second run, started
    on B while A runs its first, runs after it."""
    async with process(db_url, tmp_path) as a, process(db_url, tmp_path) as b:
        a.shares_threads = b.shares_threads = True  # as the engine sets with a Redis bus
        first = await a.start("counter", "t-turns", {"n": 10, "delay": 0.05})
        second = await b.start("counter", "t-turns", {"n": 2})
        await a.wait(first)
        await b.wait(second)
        ended = (await a.store.events_after(first))[-1].ts
        began = [e.ts for e in await b.store.events_after(second) if e.kind == "text"]
        assert ended <= min(began)


async def test_a_follower_in_another_process_gets_the_end_of_a_run_that_ends_as_it_reads(
        db_url: str, tmp_path: Path) -> None:
    """Following through the store a run another process runs: the run ends between the
    follower's read of its events and its look at the run's status. The follower still
    gets the run's last event (it stopped one event short before)."""
    async with process(db_url, tmp_path) as a, process(db_url, tmp_path) as b:
        run_id = await a.start("counter", None, {"n": 3, "delay": 1.5})
        read = b.store.events_after
        ended_meanwhile = False

        async def events_after(*args: Any, **kwargs: Any) -> list[ev.BaseEvent]:
            nonlocal ended_meanwhile
            events = await read(*args, **kwargs)
            if not ended_meanwhile and events:
                ended_meanwhile = True
                await a.wait(run_id)  # it ends right after this read
            return events

        b.store.events_after = events_after  # type: ignore[method-assign]
        followed = [e.kind async for e in b.stream(run_id)]
        assert ended_meanwhile
        assert followed[-1] == "run_completed"
        assert followed.count("text") == 3
