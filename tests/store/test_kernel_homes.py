"""Kernel homes (issue 38, kernel affinity): which process holds a thread's kernel, so its
runs go there and a kernel started elsewhere says what became of the variables. Two stores
on one database stand for two processes (each has its own holder)."""

from __future__ import annotations

from shokunin.store import Store
from shokunin.store.kernel_homes import ELSEWHERE, GONE


async def test_a_threads_first_kernel_and_its_holders_own_again_lose_nothing(
        db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        assert await store.kernel_homes.arrived("t1") is None
        assert await store.kernel_homes.arrived("t1") is None
    finally:
        await store.close()


async def test_a_kernel_started_beside_a_live_holders_says_the_variables_are_elsewhere(
        db_url: str) -> None:
    a, b = await Store.open(db_url), await Store.open(db_url)
    try:
        await a.kernel_homes.arrived("t1")
        assert await b.kernel_homes.arrived("t1") == ELSEWHERE
    finally:
        await a.close()
        await b.close()


async def test_a_kernel_started_after_its_holder_died_says_the_variables_are_gone(
        db_url: str) -> None:
    a, b = await Store.open(db_url), await Store.open(db_url)
    try:
        await a.kernel_homes.arrived("t1")
        await a.close()  # its process is gone
        assert await b.kernel_homes.arrived("t1") == GONE
    finally:
        await b.close()


async def test_a_kernel_its_holder_closed_or_a_deleted_thread_leaves_no_note(
        db_url: str) -> None:
    a, b = await Store.open(db_url), await Store.open(db_url)
    try:
        await a.ensure_thread("t2", "analyst")
        await a.kernel_homes.arrived("t1")
        await a.kernel_homes.left("t1")  # idle: closed by its holder
        assert await b.kernel_homes.arrived("t1") is None
        await a.kernel_homes.arrived("t2")
        assert await a.delete_thread("t2")  # a new thread of the same id has no kernel
        assert await b.kernel_homes.arrived("t2") is None
    finally:
        await a.close()
        await b.close()


async def test_the_queue_of_a_thread_is_its_live_workers_and_none_once_it_is_gone(
        db_url: str) -> None:
    worker, web = await Store.open(db_url), await Store.open(db_url)
    try:
        worker.kernel_homes.queue = "ns.worker1"
        await worker.kernel_homes.arrived("t1")
        assert await web.kernel_homes.queue_of("t1") == "ns.worker1"
        await web.kernel_homes.arrived("t2")  # a web process's kernel: no queue reaches it
        assert await web.kernel_homes.queue_of("t2") is None
        await worker.close()
        assert await web.kernel_homes.queue_of("t1") is None
    finally:
        await web.close()
