"""One Sandbox per test module (kernels take ~1.5 s to start), shut down at the end."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from shokunin.config import Settings
from shokunin.sandbox import Sandbox
from tests.waiting import eventually

SECRET = "s3cr3t-value-the-kernel-must-not-see"


def sandbox_settings(data_dir: Path, **overrides: object) -> Settings:
    values = {"data_dir": data_dir, "sandbox_pool_size": 1, "sandbox_memory_mb": 1024,
              "sandbox_cpu_sec": 120, "sandbox_max_procs": 64, "sandbox_file_mb": 16,
              "sandbox_idle_sec": 600.0}
    values.update(overrides)
    return Settings(**values)


# A cell's first line that says it has begun (pandas is loaded in every kernel): a file in
# its workspace, which ``begun`` waits for.
BEGIN = "import pandas as pd\npd.DataFrame().to_csv('begun')\n"


async def begun(sandbox: Sandbox, thread_id: str, timeout: float = 60) -> None:
    """Wait until the thread's cell that starts with ``BEGIN`` is running in its kernel."""
    marker = sandbox._default_workspace(thread_id) / "begun"  # noqa: SLF001
    await eventually(marker.exists, timeout, what=f"the cell of {thread_id} begun")
    marker.unlink()  # (for the thread's next cell)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sandbox() -> AsyncIterator[Sandbox]:
    # World-traversable like a real ./data (pytest's tmp folders are 0700, which would
    # hide the data folder from the kernel for the wrong reason).
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    (data_dir / "shokunin.db").write_text("server secrets\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHOKUNIN_TEST_SECRET", SECRET)
        sb = Sandbox(sandbox_settings(data_dir))
        await sb.start()
        await sb.pool.wait_filled()
        yield sb
        await sb.shutdown()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bare() -> AsyncIterator[Sandbox]:
    """A sandbox whose kernels start without the audit hook: the OS wall on its own."""
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0))
    sb._ensure_runtime()  # noqa: SLF001
    sb._walls = dataclasses.replace(  # noqa: SLF001
        sb._walls, extra_env={"SHOKUNIN_SANDBOX_AUDIT": "off"})  # noqa: SLF001
    await sb.start()
    yield sb
    await sb.shutdown()
    shutil.rmtree(data_dir, ignore_errors=True)
