"""Kernels of one thread in two processes (issue 38, kernel affinity): two sandboxes with
their own kernel homes on one database stand for two workers. A kernel is never used once
it is not the thread's any more (the thread deleted, or a step ran elsewhere), and a kernel
that starts without the thread's variables says why, wherever it starts."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from shokunin.sandbox import ExecPythonInput, Sandbox
from shokunin.store import Store
from tests.sandbox.conftest import sandbox_settings

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]


def cell(code: str) -> ExecPythonInput:
    return ExecPythonInput(code=code, timeout_sec=60)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def workers() -> AsyncIterator[tuple[Sandbox, Sandbox, Store]]:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    url = f"sqlite+aiosqlite:///{data_dir / 'shared.db'}"
    stores = [await Store.open(url), await Store.open(url)]
    sandboxes = []
    for i, store in enumerate(stores):
        store.kernel_homes.shared = True  # as the engine sets with several processes
        sb = Sandbox(sandbox_settings(data_dir / f"w{i}", sandbox_pool_size=0,
                                      sandbox_max_kernels=1, sandbox_max_kernels_per_owner=1),
                     homes=store.kernel_homes)
        await sb.start()
        sandboxes.append(sb)
    yield sandboxes[0], sandboxes[1], stores[1]
    for sb in sandboxes:
        await sb.shutdown()
    for store in stores:
        await store.close()
    shutil.rmtree(data_dir, ignore_errors=True)


async def test_a_deleted_threads_kernel_on_another_worker_is_not_a_new_threads(
        workers: tuple[Sandbox, Sandbox, Store]) -> None:
    a, _b, web = workers
    await web.ensure_thread("t-del", "analyst")
    assert (await a.execute("t-del", cell("secret = 'from the deleted thread'"))).ok
    assert await web.delete_thread("t-del")  # through another process: A's kernel lives on
    await web.ensure_thread("t-del", "analyst")  # a new thread, the same id
    result = await a.execute("t-del", cell("print(secret)"))
    assert result.error_type == "NameError"  # a fresh kernel, not the deleted thread's
    assert "Note:" not in result.stderr


async def test_a_kernel_left_behind_when_a_step_ran_elsewhere_is_not_used_again(
        workers: tuple[Sandbox, Sandbox, Store]) -> None:
    a, b, _web = workers
    assert (await a.execute("t-stale", cell("x = 'old, from step 1 on A'"))).ok
    moved = await b.execute("t-stale", cell("x = 'step 2 on B'"))
    assert moved.ok and moved.stderr.startswith(
        "Note: this thread's kernel is in another process, which did not take this step")
    await b.close_thread("t-stale")  # idle on B
    back = await a.execute("t-stale", cell("print(x)"))
    assert back.error_type == "NameError"  # A's kernel of step 1 is not the thread's now
    assert "old, from step 1" not in back.stdout


async def test_a_kernel_the_caps_shut_down_is_said_gone_on_whichever_worker_runs_next(
        workers: tuple[Sandbox, Sandbox, Store]) -> None:
    a, b, _web = workers
    for thread in a.threads():
        await a.close_thread(thread)
    assert (await a.execute("t-cap1", cell("y = 1"))).ok
    assert (await a.execute("t-cap2", cell("z = 2"))).ok  # the cap (1) shuts t-cap1's down
    result = await b.execute("t-cap1", cell("print(y)"))
    assert result.error_type == "NameError"
    assert result.stderr.startswith("Note: this thread's earlier kernel was shut down because "
                                    "another conversation needed a kernel")
