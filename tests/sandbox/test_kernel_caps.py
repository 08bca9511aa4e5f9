"""Kernel caps: 50 clients asking for a plot once left 44 kernels using 6.1 GiB.

A global cap and a cap per owner; beyond them the least recently used idle kernel is shut
down, else the cell waits a bounded time, else it is refused with SandboxBusy. Idle
kernels are also shut down while memory is low.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from shokunin.sandbox import ExecPythonInput, ExecResult, Sandbox
from shokunin.sandbox.kernel import KernelState
from shokunin.sandbox.quota import POLL_SEC, KernelQuota, SandboxBusy, mem_available_mb
from tests.sandbox.conftest import sandbox_settings
from tests.waiting import eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]

BLOCK = "import time\ntime.sleep(3600)"


def cell(code: str, timeout: int = 60) -> ExecPythonInput:
    return ExecPythonInput(code=code, timeout_sec=timeout)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def capped() -> AsyncIterator[Sandbox]:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0, sandbox_max_kernels=2,
                                  sandbox_max_kernels_per_owner=1, sandbox_queue_sec=120.0))
    await sb.start()
    yield sb
    await sb.shutdown()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest_asyncio.fixture(loop_scope="module")
async def sb(capped: Sandbox) -> AsyncIterator[Sandbox]:
    """The capped sandbox with no kernel held, and its wait back to the default."""
    for thread in capped.threads():
        await capped.close_thread(thread)
    capped._quota.queue_sec = 120.0  # noqa: SLF001
    capped.min_free_mb = 0
    yield capped


class Blocker:
    """A cell that keeps its kernel busy until ``release``."""

    def __init__(self, sandbox: Sandbox, thread: str, owner: str | None = None) -> None:
        self.abort = threading.Event()
        self.task = asyncio.create_task(sandbox.execute(
            thread, cell(BLOCK, timeout=300), abort=self.abort, owner=owner))
        self.sandbox, self.thread = sandbox, thread

    async def running(self) -> None:
        kernels = self.sandbox._kernels  # noqa: SLF001
        await eventually(lambda: self.thread in kernels
                         and kernels[self.thread].state is KernelState.BUSY,
                         100, what=f"{self.thread} running its cell")

    async def release(self) -> ExecResult:
        self.abort.set()
        return await self.task


async def queued(sandbox: Sandbox, thread: str) -> None:
    """Wait until ``thread``'s first cell waits for a kernel slot: it holds the thread's
    lock, taken just before it asks the quota (nothing is awaited in between)."""
    locks = sandbox._locks  # noqa: SLF001
    await eventually(lambda: thread in locks and locks[thread].locked(), 30,
                     what=f"{thread} waiting for a kernel")


async def test_beyond_the_cap_the_least_recently_used_idle_kernel_makes_room(
        sb: Sandbox) -> None:
    assert (await sb.execute("a", cell("x = 1"))).ok
    assert (await sb.execute("b", cell("y = 2"))).ok
    assert (await sb.execute("a", cell("x += 1"))).ok  # now b is the least recently used
    result = await sb.execute("c", cell("print('c runs')"))
    assert result.ok and result.stdout == "c runs\n"
    assert sorted(sb.threads()) == ["a", "c"]
    again = await sb.execute("b", cell("print(y)"))
    assert again.error_type == "NameError"
    assert again.stderr.startswith("Note: this thread's earlier kernel was shut down because "
                                   "another conversation needed a kernel (limit 2 kernels")


async def test_when_every_kernel_is_busy_the_cell_waits_for_one(sb: Sandbox) -> None:
    first, second = Blocker(sb, "busy-1"), Blocker(sb, "busy-2")
    await first.running()
    await second.running()
    waiting = asyncio.create_task(sb.execute("late", cell("print('late runs')")))
    await queued(sb, "late")
    await asyncio.sleep(2 * POLL_SEC)  # nothing to wait for: it must not get in meanwhile
    assert not waiting.done(), "two kernels are busy: the third thread must wait"
    assert sb._quota.in_use == 2  # noqa: SLF001
    assert (await first.release()).error_type == "Interrupted"
    result = await waiting
    assert result.ok and result.stdout == "late runs\n"
    assert sorted(sb.threads()) == ["busy-2", "late"]
    assert (await second.release()).error_type == "Interrupted"


async def test_when_no_kernel_comes_free_in_time_the_cell_is_refused(sb: Sandbox) -> None:
    sb._quota.queue_sec = 0.5  # noqa: SLF001
    first, second = Blocker(sb, "busy-1"), Blocker(sb, "busy-2")
    await first.running()
    await second.running()
    result = await sb.execute("refused", cell("print('never')"))
    assert (result.ok, result.error_type) == (False, "SandboxBusy")
    assert result.error_message == ("2 kernels in use (limit 2) and none came free within "
                                    "0.5 s; try again shortly")
    assert result.stderr.startswith("SandboxBusy: ") and "refused" not in sb.threads()
    await first.release()
    await second.release()


async def test_a_cell_cancelled_while_waiting_takes_no_slot(sb: Sandbox) -> None:
    first, second = Blocker(sb, "busy-1"), Blocker(sb, "busy-2")
    await first.running()
    await second.running()
    waiting = asyncio.create_task(sb.execute("gives-up", cell("1")))
    await queued(sb, "gives-up")
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await first.release()
    assert (await sb.execute("next", cell("print('next runs')"))).stdout == "next runs\n"
    assert sorted(sb.threads()) == ["busy-2", "next"]
    assert sb._quota.in_use == 2  # noqa: SLF001
    await second.release()


async def test_a_cell_aborted_while_waiting_is_interrupted(sb: Sandbox) -> None:
    first, second = Blocker(sb, "busy-1"), Blocker(sb, "busy-2")
    await first.running()
    await second.running()
    stop = threading.Event()
    waiting = asyncio.create_task(sb.execute("stops", cell("1"), abort=stop))
    await queued(sb, "stops")
    stop.set()
    result = await waiting
    assert (result.error_type, result.error_message) == ("Interrupted", "execution was aborted")
    assert sb._quota.in_use == 2 and "stops" not in sb.threads()  # noqa: SLF001
    await first.release()
    await second.release()


async def test_one_owner_cannot_take_more_than_its_share(sb: Sandbox) -> None:
    assert (await sb.execute("alice-1", cell("v = 1"), owner="alice")).ok
    assert (await sb.execute("alice-2", cell("v = 2"), owner="alice")).ok
    assert sb.threads() == ["alice-2"], "alice's own idle kernel made room"
    assert (await sb.execute("bob-1", cell("v = 3"), owner="bob")).ok
    sb._quota.queue_sec = 0.5  # noqa: SLF001
    busy = Blocker(sb, "alice-2", owner="alice")
    await busy.running()
    result = await sb.execute("alice-3", cell("1"), owner="alice")
    assert result.error_type == "SandboxBusy", result
    assert result.error_message.startswith("1 kernel in use by this client (limit 1 per "
                                           "client)")
    assert "bob-1" in sb.threads(), "another client's idle kernel is not taken for alice"
    await busy.release()


async def test_low_memory_shuts_idle_kernels_down_and_keeps_busy_ones(sb: Sandbox) -> None:
    assert (await sb.execute("idle", cell("z = 1"))).ok
    busy = Blocker(sb, "working")
    await busy.running()
    sb.idle_sec, saved = 3600.0, sb.idle_sec
    sb.min_free_mb = 1 << 40  # more than any machine has: memory is always "low"
    try:
        closed = await sb.reap_idle()
    finally:
        sb.idle_sec, sb.min_free_mb = saved, 0
    assert closed == ["idle"] and sb.threads() == ["working"]
    await busy.release()
    after = await sb.execute("idle", cell("z"))
    assert after.error_type == "NameError" and "because memory was low" in after.stderr


async def test_available_memory_is_read() -> None:
    available = mem_available_mb()
    assert available is None or available > 0


async def test_quota_never_waits_past_its_bound() -> None:
    quota = KernelQuota(max_kernels=1, max_per_owner=1, queue_sec=0.2)

    async def evict(_thread: str) -> None:
        raise AssertionError("nothing is idle")

    await quota.admit("t1", "thread:t1", list, evict)
    with pytest.raises(SandboxBusy, match=r"1 kernel in use \(limit 1\)"):
        await quota.admit("t2", "thread:t2", list, evict)
    quota.release("t1")
    await quota.admit("t2", "thread:t2", list, evict)
    assert quota.in_use == 1


async def test_quota_hands_a_released_slot_to_a_waiter() -> None:
    quota = KernelQuota(max_kernels=1, max_per_owner=1, queue_sec=60)

    async def evict(_thread: str) -> None:
        raise AssertionError("nothing is idle")

    await quota.admit("t1", "thread:t1", list, evict)
    waiter = asyncio.create_task(quota.admit("t2", "thread:t2", list, evict))
    await asyncio.sleep(0)  # (a turn of the loop: the waiter is in its wait)
    assert not waiter.done()
    quota.release("t1")
    await waiter
    assert quota.in_use == 1 and quota.held_by("thread:t2") == 1
