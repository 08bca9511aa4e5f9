"""``/socket.io``'s app (``socket.py``), opened by its first request: python-socketio
imports its clients and aiohttp with it (0.3 s), which a server whose Studio page is never
opened need not pay at start."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from starlette.types import ASGIApp

if TYPE_CHECKING:
    from shokunin.agents.studio import Studio
    from shokunin.api.perimeter import LiveConnections


@asynccontextmanager
async def studio_socket_app(studio: Studio | None,
                            live: LiveConnections) -> AsyncIterator[ASGIApp]:
    """The Studio's Socket.IO app while it is open; leaving it stops its project feeds."""
    module = await asyncio.to_thread(importlib.import_module, "shokunin.api.studio.socket")
    socket = module.StudioSocket()
    socket.studio = studio
    socket.live = live
    try:
        yield socket.app
    finally:
        await socket.close()
