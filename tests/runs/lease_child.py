"""A process that starts a long run and waits to be killed (``test_leases``): ``python -m
tests.runs.lease_child <database url> <workspace> <lease seconds> [<agent> <input JSON>]``
prints the run's id (by default a counter that never ends)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from shokunin.runs import MemoryBus, Runner
from shokunin.store import Store
from tests.runs.conftest import Counter, Thinker


async def main(url: str, workspace: str, lease: float, agent: str, input: str) -> None:
    runner = Runner(await Store.open(url, lease_seconds=lease), MemoryBus(), Path(workspace))
    runner.register(Counter())
    runner.register(Thinker())
    beat = asyncio.create_task(runner.keep_leases(recover=False))
    run_id = await runner.start(agent, None, json.loads(input))
    print(run_id, flush=True)
    await beat  # until killed


if __name__ == "__main__":
    agent, input = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (
        "counter", '{"n": 100000, "delay": 0.05}')
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), agent, input))
