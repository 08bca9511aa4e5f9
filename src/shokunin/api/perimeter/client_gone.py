"""Work whose answer only the client wants, stopped when the client leaves: an upload's
parse waiting for a slot or running in its child is no use to a closed connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

from starlette.requests import Request

from shokunin.api.errors import ApiError

T = TypeVar("T")


async def unless_client_leaves(request: Request, work: Awaitable[T]) -> T:
    """``await work``; cancelled (and a 400 ``client_gone`` that no one reads raised) when the
    client disconnects first. Call it once the request's body has been read: what comes
    after it on ``receive`` is the disconnect."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnect(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, watcher):
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending
    if task.cancelled():
        raise ApiError(400, "the client left before the answer was ready", "client_gone")
    return task.result()


async def _disconnect(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass
