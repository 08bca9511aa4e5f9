"""Runs on workers through the job queue (issue 38, point 2): a web process sends, a worker
takes; cancel, resume and kernel affinity reach the worker; a lost job or a job stuck in a
gone worker's queue leaves no run 'running'. Two runners of one process stand for a web
process and workers (each has its own lease holder), on SAQ's PostgreSQL queue (with the
store on PostgreSQL) and on its Redis queue (with the store on SQLite)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.runs import MemoryBus, QueueUnavailable, Runner, RunQueue
from shokunin.store import RunStatus, Store
from tests.backends import database_url, postgres_available
from tests.live_server import free_port
from tests.runs.conftest import Asker, Counter, Thinker
from tests.runs.redis_server import REDIS_URL, redis_available
from tests.tcp_proxy import TcpProxy
from tests.waiting import eventually

LEASE = 1.0


@pytest.fixture(params=[
    pytest.param("postgres", marks=pytest.mark.skipif(
        not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432")),
    "redis"])
async def urls(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[str, str]]:
    """(database URL, queue URL): PostgreSQL for both, or SQLite and Redis."""
    if request.param == "redis":
        if not redis_available():
            pytest.skip(f"no Redis at {REDIS_URL} (set SHOKUNIN_TEST_REDIS_URL)")
        yield f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}", REDIS_URL
        return
    async with database_url("postgres", tmp_path) as url:
        yield url, url


@pytest.fixture
def namespace() -> str:
    return f"q{uuid.uuid4().hex[:10]}"


@contextlib.asynccontextmanager
async def process(urls: tuple[str, str], namespace: str, tmp_path: Path, *, worker: bool,
                  take: bool = True) -> AsyncIterator[Runner]:
    """A `shokunin serve` with a queue (``worker=False``: it sends its runs), or a
    `shokunin worker` (taking jobs unless ``take=False``), with the heartbeat."""
    db, queue_url = urls
    store = await Store.open(db, lease_seconds=LEASE)
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    for agent in (Counter(), Asker(), Thinker()):
        runner.register(agent)
    queue = await RunQueue.open(queue_url, namespace)
    runner.use_queue(queue, send=not worker)
    tasks = [asyncio.create_task(runner.keep_leases(recover=True))]
    if worker:
        store.kernel_homes.queue = queue.own(store.leases.holder)
        if take:
            tasks.append(asyncio.create_task(queue.work(store.leases.holder, 5, runner.take)))
    try:
        yield runner
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await runner.shutdown()
        await queue.close()
        await store.close()


async def kinds(runner: Runner, run_id: str) -> list[str]:
    return [e.kind for e in await runner.store.events_after(run_id)]


async def test_a_run_sent_by_a_web_process_runs_on_a_worker_and_streams_from_the_web(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as worker:
        run_id = await web.start("counter", None, {"n": 5, "delay": 0.02})
        assert not web.is_live(run_id)  # nothing of it runs in the web process
        seen = [e.kind async for e in web.stream(run_id)]
        assert seen == ["run_started"] + ["text"] * 5 + ["run_completed"]
        run = await web.store.get_run(run_id)
        assert run is not None and run.status == RunStatus.COMPLETED
        assert run.lease_holder == worker.store.leases.holder


async def test_a_run_cancelled_before_a_worker_took_it_ends_cancelled_and_never_runs(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web:
        run_id = await web.start("counter", None, {"n": 3})
        assert await web.cancel(run_id) is True
        assert await kinds(web, run_id) == ["run_started", "run_cancelled"]
        async with process(urls, namespace, tmp_path, worker=True):
            # a job sent after it is taken and run: a leftover job ahead of it would have been
            later = await web.start("counter", None, {"n": 1})
            await eventually(lambda: _status_is(web, later, RunStatus.COMPLETED), 15,
                             what="the run completed")
        assert await kinds(web, run_id) == ["run_started", "run_cancelled"]
        run = await web.store.get_run(run_id)
        assert run is not None and run.status == RunStatus.CANCELLED


async def test_a_cancel_sent_to_the_web_process_stops_the_run_on_its_worker(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as worker:
        run_id = await web.start("counter", None, {"n": 400, "delay": 0.05})
        await eventually(lambda: _says_text(web, run_id), 15, what="a text event of the run")
        assert worker.is_live(run_id)
        assert await web.cancel(run_id) is True
        events = await web.store.events_after(run_id)
        assert events[-1].kind == "run_cancelled"
        assert 1 <= sum(e.kind == "text" for e in events) < 400
        assert not worker.is_live(run_id)


async def test_an_answer_sent_to_the_web_process_resumes_the_run_on_a_worker(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as worker:
        run_id = await web.start("asker", None, {})
        assert [e.kind async for e in web.stream(run_id)][-1] == "run_interrupted"
        await web.resume(run_id, "yes")
        assert not web.is_live(run_id)
        await eventually(lambda: _status_is(web, run_id, RunStatus.COMPLETED), 15,
                         what="the run completed")
        events = await web.store.events_after(run_id)
        assert [e.kind for e in events][-2:] == ["text", "run_completed"]
        assert events[-2].text == "answer: yes"  # type: ignore[attr-defined]
        run = await web.store.get_run(run_id)
        assert run is not None and run.lease_holder == worker.store.leases.holder


async def test_the_runs_of_a_thread_go_to_the_worker_that_holds_its_kernel(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as a, \
            process(urls, namespace, tmp_path, worker=True) as b:
        first = await web.start("counter", "thread-kernel", {"n": 1})
        await eventually(lambda: _status_is(web, first, RunStatus.COMPLETED), 15,
                         what="the run completed")
        for holder in (a, b):  # whichever worker holds the kernel gets every later run
            await holder.store.kernel_homes.arrived("thread-kernel")  # its kernel now
            for _ in range(4):
                run_id = await web.start("counter", "thread-kernel", {"n": 1})
                await eventually(lambda r=run_id: _status_is(web, r, RunStatus.COMPLETED), 15,
                                 what="the run completed")
                run = await web.store.get_run(run_id)
                assert run is not None and run.lease_holder == holder.store.leases.holder


async def test_a_job_the_queue_lost_leaves_a_run_that_is_failed_not_running_forever(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web:
        run_id = await web.start("counter", None, {"n": 3})
        run = await web.store.get_run(run_id)
        assert run is not None and run.lease_holder is not None
        assert web.queue is not None
        queue_name, key = run.lease_holder.removeprefix("queue:").split("/")
        await web.queue.drop((queue_name, key))  # as if the queue lost it
        await eventually(lambda: _status_is(web, run_id, RunStatus.FAILED), 6 * LEASE + 5,
                         what="the run failed")
        events = await web.store.events_after(run_id)
        assert events[-1].kind == "run_failed"
        assert "stopped unfinished" in events[-1].error  # type: ignore[attr-defined]


async def test_a_job_waiting_in_the_queue_of_a_gone_worker_moves_to_a_live_one(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True, take=False) as gone:
        # A worker that holds the thread's kernel but takes nothing (it hangs, or died on
        # another machine and its home has not run out yet): the run waits in its queue.
        await web.start("counter", "thread-moved", {"n": 1})  # makes the thread
        await gone.store.kernel_homes.arrived("thread-moved")
        run_id = await web.start("counter", "thread-moved", {"n": 2})
        run = await web.store.get_run(run_id)
        assert run is not None and gone.store.leases.holder.rsplit(":", 1)[-1] in (
            run.lease_holder or "")
        async with process(urls, namespace, tmp_path, worker=True) as live:
            await eventually(lambda: _status_is(web, run_id, RunStatus.COMPLETED), 6 * LEASE + 10,
                             what="the run completed")
            run = await web.store.get_run(run_id)
            assert run is not None and run.lease_holder == live.store.leases.holder


async def _says_text(runner: Runner, run_id: str) -> bool:
    return "text" in await kinds(runner, run_id)


async def _status_is(runner: Runner, run_id: str, status: RunStatus) -> bool:
    run = await runner.store.get_run(run_id)
    return run is not None and run.status == status


@pytest.mark.skipif(not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432")
@pytest.mark.postgres
async def test_a_worker_whose_database_and_queue_were_briefly_away_takes_runs_again(
        tmp_path: Path) -> None:
    """PostgreSQL (the store and SAQ's queue) cut for a few seconds under a worker: it
    takes the next run once the database is back, without a restart."""
    async with database_url("postgres", tmp_path) as url:
        proxy = TcpProxy(5432).start()
        try:
            via = url.replace(":5432", f":{proxy.port}")
            namespace = f"q{uuid.uuid4().hex[:10]}"
            async with process((url, url), namespace, tmp_path, worker=False) as web, \
                    process((via, via), namespace, tmp_path, worker=True) as worker:
                first = await web.start("counter", None, {"n": 1})
                await eventually(lambda: _status_is(web, first, RunStatus.COMPLETED), 15,
                                 what="the run completed")
                await asyncio.to_thread(proxy.cut)
                await asyncio.sleep(3.0)
                await asyncio.to_thread(proxy.start)
                again = await web.start("counter", None, {"n": 2})
                await eventually(lambda: _status_is(web, again, RunStatus.COMPLETED), 60,
                                 what="the run completed")
                run = await web.store.get_run(again)
                assert run is not None and run.lease_holder == worker.store.leases.holder
        finally:
            proxy.close()


async def test_a_run_taken_by_a_worker_without_its_agent_is_failed_saying_why(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as worker:
        del worker.agents["asker"]  # a worker started with that face off
        run_id = await web.start("asker", None, {})
        await eventually(lambda: _status_is(web, run_id, RunStatus.FAILED), 15,
                         what="the run failed")
        events = await web.store.events_after(run_id)
        assert events[-1].kind == "run_failed"
        assert "has no asker agent" in events[-1].error  # type: ignore[attr-defined]


async def test_a_job_taken_by_a_worker_that_died_before_taking_the_run_is_not_waited_for(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    """The worker marked the job active, then died before the run's lease was its own: the
    job never ends, and the run must not wait for it forever."""
    async with process(urls, namespace, tmp_path, worker=False) as web:
        run_id = await web.start("counter", None, {"n": 3})
        assert web.queue is not None
        saq_queue = await web.queue._queue(web.queue.shared)
        job = await saq_queue.dequeue(timeout=5)  # what a worker does first
        assert job is not None and job.kwargs["run_id"] == run_id
        await job.update(status="active")  # ... and then it was killed
        await eventually(lambda: _status_is(web, run_id, RunStatus.FAILED), 6 * LEASE + 5,
                         what="the run failed")
        assert (await web.store.events_after(run_id))[-1].kind == "run_failed"


@pytest.mark.parametrize("url", ["redis://127.0.0.1:{port}/0", "http://127.0.0.1:{port}/",
                                 "nonsense"])
async def test_a_queue_url_that_cannot_be_used_stops_the_start_saying_why(url: str) -> None:
    with pytest.raises(QueueUnavailable, match="SHOKUNIN_QUEUE_URL"):
        await RunQueue.open(url.format(port=free_port()), "q")


async def test_an_answer_the_queue_did_not_take_leaves_the_run_waiting_for_it_again(
        namespace: str, tmp_path: Path) -> None:
    """Resuming while the queue is away: the caller gets QueueUnavailable (503), the run
    still waits for its answer, and the same answer sent again once the queue is back
    resumes it."""
    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL} (set SHOKUNIN_TEST_REDIS_URL)")
    proxy = TcpProxy(int(REDIS_URL.rsplit(":", 1)[1].split("/")[0])).start()
    try:
        via = (f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}",
               f"redis://127.0.0.1:{proxy.port}/0")
        async with process(via, namespace, tmp_path, worker=False) as web, \
                process(via, namespace, tmp_path, worker=True):
            run_id = await web.start("asker", None, {})
            await eventually(lambda: _status_is(web, run_id, RunStatus.INTERRUPTED), 15,
                             what="the run interrupted")
            await asyncio.to_thread(proxy.cut)
            with pytest.raises(QueueUnavailable):
                await web.resume(run_id, "yes")
            assert await _status_is(web, run_id, RunStatus.INTERRUPTED)
            await asyncio.to_thread(proxy.start)
            await web.resume(run_id, "yes")
            await eventually(lambda: _status_is(web, run_id, RunStatus.COMPLETED), 30,
                             what="the run completed")
            kinds_seen = await kinds(web, run_id)
            assert kinds_seen[-2:] == ["text", "run_completed"]
            assert "run_failed" not in kinds_seen
    finally:
        proxy.close()


async def test_the_runs_of_one_thread_run_one_at_a_time_in_order_across_workers(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    """Two workers free, a thread's second run sent while its first runs: it runs after
    the first has ended, as in one process (two at once would race on its checkpoint and
    its kernel)."""
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True), \
            process(urls, namespace, tmp_path, worker=True):
        for _ in range(3):
            first = await web.start("counter", "thread-turns", {"n": 10, "delay": 0.05})
            second = await web.start("counter", "thread-turns", {"n": 2})
            for run_id in (first, second):
                await eventually(lambda r=run_id: _status_is(web, r, RunStatus.COMPLETED), 30,
                                 what="the run completed")
            ended = (await web.store.events_after(first))[-1].ts
            began = [e.ts for e in await web.store.events_after(second) if e.kind == "text"]
            assert ended <= min(began)


async def test_a_stopping_worker_leaves_its_runs_to_the_others_instead_of_cancelling_them(
        urls: tuple[str, str], namespace: str, tmp_path: Path) -> None:
    async with process(urls, namespace, tmp_path, worker=False) as web, \
            process(urls, namespace, tmp_path, worker=True) as a, \
            process(urls, namespace, tmp_path, worker=True) as b:
        run_id = await web.start("thinker", None, {"n": 40, "delay": 0.05})
        await eventually(lambda: _says_text_delta(web, run_id), 15,
                         what="a text_delta event of the run")
        running = a if a.is_live(run_id) else b
        assert running.is_live(run_id)
        assert await running.leave() == [run_id]  # its grace is over
        await eventually(lambda: _status_is(web, run_id, RunStatus.COMPLETED), 30,
                         what="the run completed")
        events = await web.store.events_after(run_id)
        assert "run_cancelled" not in [e.kind for e in events]
        assert [e.kind for e in events if e.kind == "log"] == ["log"]  # started again


async def _says_text_delta(runner: Runner, run_id: str) -> bool:
    return "text_delta" in await kinds(runner, run_id)
