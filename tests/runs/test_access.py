"""Who may see a thread, written once (runs/access.py) and used by every face: its rules on a
real store, and a tripwire that fails when a face reads thread ownership itself again."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.runs import (
    InvalidThreadId,
    ThreadNotFound,
    ThreadOfAnotherFace,
    may_use,
    sees,
    thread_for,
    visible_thread,
)
from shokunin.runs.access import listed_threads
from shokunin.store import Store

SRC = Path(__file__).resolve().parents[2] / "src/shokunin"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
    await store.ensure_thread("t-alice", "analyst", title="a", owner="alice")
    await store.ensure_thread("t-bob", "advisor", title="b", owner="bob")
    yield store
    await store.close()


async def test_an_owner_sees_its_thread_and_no_one_elses(store: Store) -> None:
    assert (await visible_thread(store, "alice", "t-alice")).id == "t-alice"
    with pytest.raises(ThreadNotFound, match="no thread 't-bob'"):
        await visible_thread(store, "alice", "t-bob")
    assert await sees(store, "alice", "t-alice") and not await sees(store, "alice", "t-bob")


async def test_the_admin_and_a_server_without_auth_see_every_thread(store: Store) -> None:
    for who in (None, "admin"):
        assert (await visible_thread(store, who, "t-bob")).id == "t-bob"
        assert {t.id for t in await listed_threads(store, who, agent=None, limit=10)} == {
            "t-alice", "t-bob"}


async def test_another_owners_thread_is_answered_as_a_missing_one(store: Store) -> None:
    """Ids cannot be probed: the same error and message for both."""
    errors = []
    for thread_id in ("t-bob", "t-nobody"):
        with pytest.raises(ThreadNotFound) as caught:
            await visible_thread(store, "alice", thread_id, noun="session")
        errors.append((caught.value.status, caught.value.code, str(caught.value)[:12]))
    assert errors[0] == errors[1] == (404, "not_found", "no session '")


async def test_a_thread_of_another_agent_is_not_found_by_that_face(store: Store) -> None:
    with pytest.raises(ThreadNotFound):
        await visible_thread(store, "alice", "t-alice", agent="advisor")


async def test_a_malformed_id_is_refused_before_any_query(store: Store) -> None:
    for call in (visible_thread(store, None, "../x"), may_use(store, "alice", "a b"),
                 thread_for(store, None, "x" * 200, agent="analyst", title="")):
        with pytest.raises(InvalidThreadId):
            await call


async def test_a_run_may_go_on_a_new_thread_or_a_visible_one_only(store: Store) -> None:
    assert await may_use(store, "alice", "t-new")
    assert await may_use(store, "alice", "t-alice")
    assert not await may_use(store, "alice", "t-bob")


async def test_thread_for_makes_a_thread_owned_by_the_caller_or_checks_the_named_one(
        store: Store) -> None:
    made, created = await thread_for(store, "alice", None, agent="analyst", title="new")
    assert created and (await store.thread_summary(made)).owner == "alice"
    assert await thread_for(store, "alice", "t-alice", agent="analyst", title="") == (
        "t-alice", False)
    with pytest.raises(ThreadNotFound):
        await thread_for(store, "alice", "t-bob", agent="advisor", title="")
    with pytest.raises(ThreadOfAnotherFace):
        await thread_for(store, "bob", "t-bob", agent="analyst", title="")


async def test_listing_shows_an_owner_only_its_threads(store: Store) -> None:
    listed = await listed_threads(store, "bob", agent=None, limit=10)
    assert [t.id for t in listed] == ["t-bob"]


def test_no_module_but_runs_access_reads_thread_ownership() -> None:
    """The visibility check was written seven times (three REST faces, the tools API, the
    WebSocket, two MCP faces); a new copy of it fails here."""
    check = re.compile(r"\b(may_see|thread_summary)\(|\[[\"']owner[\"']\]"
                       r"|\b(thread|row|summary)\.owner\s*[!=]=")
    allowed = {SRC / "runs/access.py", SRC / "store/store.py", SRC / "store/rows.py"}
    copies = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py") if path not in allowed
              for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if check.search(line)]
    assert copies == []
