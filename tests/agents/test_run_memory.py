"""A finished Workbench run is freed at once, by reference counting.

Runs kept alive in cycles end up in the collector's oldest generation under load and are
freed only by a full collection: a pause of about a second for a few thousand runs.
"""

from __future__ import annotations

import gc

from shokunin.agents.workbench.deps import RunDeps
from shokunin.runs import RunContext
from tests.agents.conftest import MakeRunner, ask


async def test_a_finished_run_leaves_no_cyclic_garbage(make_runner: MakeRunner) -> None:
    runner = await make_runner()
    await ask(runner, "highlight Kitchen")  # warm: imports, caches, the thread's first run
    gc.collect()
    gc.disable()
    try:
        for message in ("highlight Kitchen", "hello", "draw an up arrow in Lobby"):
            await ask(runner, message)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, RunContext | RunDeps)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
