"""GET /api/kernels: what the sandbox's live kernels cost in memory, for operators.

PSS and USS per thread's kernel and for the template they are forked from (see
``sandbox/memory.py``). Auth off or the admin token: every kernel, with its pid, and the
template. An API key: only the kernels of threads it may see (``runs.access``), without
pids and without the template, since thread ids are names its owner chose and pids are the
host's; the totals (``pooled``, ``max_kernels``) say nothing of anyone's threads.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.auth import principal
from shokunin.runs import access, owner_scope

router = APIRouter(prefix="/api", tags=["sandbox"])


@router.get("/kernels")
async def kernels(request: Request) -> dict[str, Any]:
    engine = request.app.state.engine
    report: dict[str, Any] = await engine.sandbox.memory()
    who = principal(request)
    if owner_scope(who) is None:
        return report
    store = engine.runner.store
    return {"kernels": [{k: v for k, v in kernel.items() if k != "pid"}
                        for kernel in report["kernels"]
                        if await access.sees(store, who, kernel["thread_id"])],
            "pooled": report["pooled"], "max_kernels": report["max_kernels"]}
