"""The store's thread queries, on every backend: list, summary, runs, events, delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shokunin import events as ev
from shokunin.store import Store


async def _run(store: Store, run_id: str, thread_id: str, agent: str = "echo",
               status: str | None = None) -> None:
    await store.ensure_thread(thread_id, agent, title=f"title {thread_id}")
    await store.create_run(run_id, thread_id, agent, {"message": run_id})
    for seq in (1, 2):
        await store.append_event(ev.Text(run_id=run_id, thread_id=thread_id, seq=seq,
                                         text=f"{run_id}-{seq}"))
    if status is not None:
        await store.finish_run(run_id, status)


async def test_list_threads_newest_activity_first_with_counts(store: Store) -> None:
    await _run(store, "r1", "a", status="completed")
    await _run(store, "r2", "b", status="failed")
    await _run(store, "r3", "a")  # "a" is active again
    await _run(store, "r4", "c", agent="other")
    await store.ensure_thread("empty", "echo")
    rows = await store.list_threads(agent="echo")
    assert [(r.id, r.run_count, r.last_status) for r in rows] == [
        ("empty", 0, None), ("a", 2, "running"), ("b", 1, "failed")]
    assert rows[1].title == "title a"
    assert [r.id for r in await store.list_threads(limit=2)] == ["empty", "c"]


async def test_list_threads_before_pages_on_last_activity(store: Store) -> None:
    for name in ("a", "b", "c"):
        await _run(store, f"r{name}", name)
    rows = await store.list_threads()
    cut = rows[1].updated_at
    cut = (cut if cut.tzinfo else cut.replace(tzinfo=UTC)).astimezone(UTC)
    older = await store.list_threads(before=cut)
    assert [r.id for r in older] == ["a"]
    assert await store.list_threads(before=datetime(2000, 1, 1, tzinfo=UTC)) == []
    newer = await store.list_threads(before=datetime.now(UTC) + timedelta(days=1))
    assert [r.id for r in newer] == ["c", "b", "a"]


async def test_thread_runs_and_events_in_order(store: Store) -> None:
    await _run(store, "r1", "t")
    await _run(store, "r2", "t")
    await _run(store, "r3", "u")
    assert [r.id for r in await store.thread_runs("t")] == ["r1", "r2"]
    assert [(e.run_id, e.seq) for e in await store.thread_events("t")] == [
        ("r1", 1), ("r1", 2), ("r2", 1), ("r2", 2)]
    summary = await store.thread_summary("t")
    assert summary is not None and summary.run_count == 2
    assert await store.thread_summary("nope") is None


async def test_delete_thread_removes_only_that_thread(store: Store) -> None:
    await _run(store, "r1", "t", status="completed")
    await _run(store, "r2", "u", status="completed")
    assert await store.delete_thread("t") is True
    assert await store.get_thread("t") is None and await store.get_run("r1") is None
    assert await store.events_after("r1") == [] and await store.thread_runs("t") == []
    assert await store.delete_thread("t") is False
    assert [e.seq for e in await store.events_after("r2")] == [1, 2]
