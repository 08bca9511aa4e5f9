"""A process that starts a long run and waits to be killed (``test_leases``): ``python -m
tests.runs.lease_child <database url> <workspace> <lease seconds>`` prints the run's id."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from shokunin.runs import MemoryBus, Runner
from shokunin.store import Store
from tests.runs.conftest import Counter


async def main(url: str, workspace: str, lease: float) -> None:
    runner = Runner(await Store.open(url, lease_seconds=lease), MemoryBus(), Path(workspace))
    runner.register(Counter())
    beat = asyncio.create_task(runner.keep_leases(recover=False))
    run_id = await runner.start("counter", None, {"n": 100000, "delay": 0.05})
    print(run_id, flush=True)
    await beat  # until killed


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
