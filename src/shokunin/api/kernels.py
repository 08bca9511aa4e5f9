"""GET /api/kernels: what the sandbox's live kernels cost in memory, for operators.

PSS and USS per thread's kernel and for the template they are forked from (see
``sandbox/memory.py``): behind the same token as the rest of ``/api``, since it names the
threads that hold a kernel.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

router = APIRouter(prefix="/api", tags=["sandbox"])


@router.get("/kernels")
async def kernels(request: Request) -> dict:
    return await request.app.state.engine.sandbox.memory()
