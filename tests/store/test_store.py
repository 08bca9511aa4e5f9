from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import inspect, select, text

from shokunin import events as ev
from shokunin.store import (
    LATEST,
    Store,
    close_checkpointer,
    create_engine,
    migrate,
    open_checkpointer,
)
from shokunin.store import schema as tables
from shokunin.store.migrations import MIGRATIONS


async def _run(store: Store, run_id: str = "r1", thread_id: str = "t1") -> None:
    await store.ensure_thread(thread_id, "echo", "hello")
    await store.create_run(run_id, thread_id, "echo", {"message": "hello"})


async def test_migrate_blank_database_creates_every_table(db_url: str) -> None:
    engine = create_engine(db_url)
    assert await migrate(engine) == [version for version, _ in MIGRATIONS]
    assert await migrate(engine) == []  # idempotent
    async with engine.connect() as conn:
        names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        versions = (await conn.execute(select(tables.schema_version.c.version))).scalars().all()
    await engine.dispose()
    assert {"threads", "runs", "events", "schema_version"} <= names
    assert versions == [version for version, _ in MIGRATIONS]
    assert versions[-1] == LATEST


async def test_migrate_from_oldest_schema_keeps_data(db_url: str) -> None:
    """A database at version 1 with data migrates forward without losing rows."""
    store = await Store.open(db_url)
    await _run(store)
    await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=1, text="kept"))
    await store.close()
    reopened = await Store.open(db_url)
    events = await reopened.events_after("r1")
    await reopened.close()
    assert [e.text for e in events] == ["kept"]


async def test_v1_database_gains_thread_owner_and_keeps_its_threads(db_url: str) -> None:
    """A database made by version 1 (threads without ``owner``) migrates to v2: the old
    thread is kept with no owner, and new threads record theirs."""
    engine = create_engine(db_url)
    async with engine.begin() as conn:
        await conn.execute(text(
            "CREATE TABLE threads (id VARCHAR(64) PRIMARY KEY, agent VARCHAR(64) NOT NULL, "
            "title TEXT NOT NULL, meta JSON NOT NULL, created_at TIMESTAMP NOT NULL)"))
        await conn.execute(text(
            "INSERT INTO threads VALUES ('old', 'echo', 'hi', '{}', '2026-01-01 00:00:00')"))
        await conn.run_sync(lambda c: tables.schema_version.create(c))
        await conn.execute(tables.schema_version.insert().values(
            version=1, applied_at=datetime.now(UTC)))
        await conn.run_sync(lambda c: (tables.runs.create(c), tables.events.create(c)))
    assert 2 in await migrate(engine)
    await engine.dispose()
    store = await Store.open(db_url)
    await store.ensure_thread("new", "echo", "x", owner="key:alice")
    old, new = await store.get_thread("old"), await store.get_thread("new")
    await store.close()
    assert old.title == "hi" and old.owner is None
    assert new.owner == "key:alice"


async def test_events_round_trip_in_order_and_after_seq(store: Store) -> None:
    await _run(store)
    for seq in range(1, 6):
        await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=seq, text=str(seq)))
    assert [e.seq for e in await store.events_after("r1")] == [1, 2, 3, 4, 5]
    tail = await store.events_after("r1", 3)
    assert [(e.kind, e.text) for e in tail] == [("text", "4"), ("text", "5")]
    assert await store.last_seq("r1") == 5


async def test_every_event_kind_survives_storage(store: Store) -> None:
    await _run(store)
    samples = [
        ev.Arrow(room="Kitchen", direction="left"),
        ev.MapShow(content={"floorId": "1F", "rectangles": [], "overlays": []}),
        ev.ToolResult(call_id="c", name="calculator", success=True, result={"v": 3}),
        ev.Image(data_base64="aGk=", format="png"),
        ev.RunFailed(error="boom"),
    ]
    for seq, event in enumerate(samples, 1):
        await store.append_event(event.model_copy(update={
            "run_id": "r1", "thread_id": "t1", "seq": seq}))
    back = await store.events_after("r1")
    assert [e.model_dump(exclude={"ts"}) for e in back] == [
        e.model_copy(update={"run_id": "r1", "thread_id": "t1", "seq": i}).model_dump(
            exclude={"ts"}) for i, e in enumerate(samples, 1)]


async def test_concurrent_appends_are_all_stored(store: Store) -> None:
    """Group commit: 20 runs appending at once lose nothing and keep per-run order."""
    for n in range(20):
        await _run(store, f"r{n}", f"t{n}")

    async def writer(n: int) -> None:
        for seq in range(1, 26):
            await store.append_event(ev.Text(run_id=f"r{n}", thread_id=f"t{n}", seq=seq,
                                             text=f"{n}-{seq}"))

    await asyncio.gather(*(writer(n) for n in range(20)))
    for n in range(20):
        assert [e.seq for e in await store.events_after(f"r{n}")] == list(range(1, 26))


async def test_duplicate_seq_is_refused_and_writer_keeps_working(store: Store) -> None:
    await _run(store)
    await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=1, text="a"))
    try:
        await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=1, text="dup"))
    except Exception as exc:  # noqa: BLE001 - driver-specific IntegrityError
        assert "unique" in str(exc).lower() or "constraint" in str(exc).lower()
    else:
        raise AssertionError("a duplicate (run_id, seq) must be refused")
    await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=2, text="b"))
    assert [e.text for e in await store.events_after("r1")] == ["a", "b"]


async def test_finish_and_stale_runs(store: Store) -> None:
    await _run(store, "done", "t1")
    await _run(store, "stale", "t1")
    await store.append_event(ev.Text(run_id="stale", thread_id="t1", seq=1, text="half"))
    await store.finish_run("done", "completed", usage={"total_tokens": 7})
    assert await store.fail_runs(["done", "stale"], "restart") == 1
    tail = await store.events_after("stale")
    assert [(e.seq, e.kind) for e in tail] == [(1, "text"), (2, "run_failed")]
    assert tail[-1].error == "restart"
    assert await store.events_after("done") == []
    done, stale = await store.get_run("done"), await store.get_run("stale")
    assert (done.status, done.usage["total_tokens"]) == ("completed", 7)
    assert (stale.status, stale.error) == ("failed", "restart")
    assert await store.get_run("nope") is None


async def test_bad_write_in_a_batch_fails_alone(store: Store) -> None:
    """Writes queued together commit together; a bad one must not take the others down."""
    await _run(store)
    await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=1, text="first"))
    results = await asyncio.gather(
        store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=2, text="good")),
        store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=1, text="duplicate")),
        store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=3, text="also good")),
        return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Exception)
    assert [e.text for e in await store.events_after("r1")] == ["first", "good", "also good"]


async def test_racing_thread_creation_is_safe(store: Store) -> None:
    await asyncio.gather(*(store.ensure_thread("same", "workbench") for _ in range(8)))
    assert (await store.get_thread("same")).agent == "workbench"


async def test_stop_commits_what_was_queued(db_url: str) -> None:
    store = await Store.open(db_url)
    await _run(store)
    writes = [asyncio.create_task(store.append_event(
        ev.Text(run_id="r1", thread_id="t1", seq=n, text=str(n)))) for n in range(1, 51)]
    await asyncio.sleep(0)  # queued, not yet committed
    await store.close()
    await asyncio.gather(*writes)
    reopened = await Store.open(db_url)
    assert len(await reopened.events_after("r1")) == 50
    await reopened.close()


async def test_a_lone_run_commits_each_event_at_once_and_many_runs_share_commits(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer waits a moment for company only under load: a lone run's events, written
    one after another, must not each wait for the linger (it made one tool call ~20 ms)."""
    from shokunin.store import event_writer

    lingers: list[float] = []
    sleep = asyncio.sleep

    async def counted(delay: float, *args: object) -> object:
        if delay == event_writer._LINGER:
            lingers.append(delay)
        return await sleep(delay, *args)

    monkeypatch.setattr(event_writer.asyncio, "sleep", counted)
    await _run(store)
    for seq in range(1, 41):
        await store.append_event(ev.Text(run_id="r1", thread_id="t1", seq=seq, text=str(seq)))
    assert lingers == []

    async def writer(run: str) -> None:
        for seq in range(1, 41):
            await store.append_event(ev.Text(run_id=run, thread_id="t1", seq=seq, text="x"))

    await asyncio.gather(*(store.create_run(f"r{n}", "t1", "echo", {}) for n in range(2, 22)))
    await asyncio.gather(*(writer(f"r{n}") for n in range(2, 22)))
    assert lingers  # twenty runs at once: commits wait for company
    assert await store.last_seq("r21") == 40


async def test_processes_starting_together_on_a_new_database_all_migrate_it_once(
        db_url: str) -> None:
    """Several web processes and workers started at once (compose, systemd) each migrate
    the same new database: every one of them starts, and each step is applied once."""
    engines = [create_engine(db_url) for _ in range(4)]
    try:
        applied = await asyncio.gather(*(migrate(engine) for engine in engines))
        async with engines[0].connect() as conn:
            versions = (await conn.execute(
                select(tables.schema_version.c.version))).scalars().all()
    finally:
        for engine in engines:
            await engine.dispose()
    assert sorted(v for steps in applied for v in steps) == [v for v, _ in MIGRATIONS]
    assert versions == [version for version, _ in MIGRATIONS]


async def test_processes_starting_together_on_a_new_database_all_set_up_the_checkpointer(
        db_url: str) -> None:
    stores = [await Store.open(db_url) for _ in range(4)]
    try:
        savers = await asyncio.gather(*(open_checkpointer(s) for s in stores),
                                      return_exceptions=True)
        assert [type(s).__name__ for s in savers if isinstance(s, BaseException)] == []
        for saver in savers:
            await close_checkpointer(saver)  # type: ignore[arg-type]
    finally:
        for store in stores:
            await store.close()
