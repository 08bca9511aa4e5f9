"""An ASGI app opened by its first request: a route most servers never serve (``/mcp``,
``/socket.io``) does not make every start pay for its library's import.

The app comes from an async context manager (``open``) that is entered once, by a task of
its own, and left when the web server's lifespan ends (``running()``): a library whose
app needs a task group (the MCP SDK's session manager) enters and leaves it in one task,
whichever request came first.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from starlette.types import ASGIApp, Receive, Scope, Send


class LazyApp:
    """Route or mount this; serve requests inside ``running()``."""

    def __init__(self, name: str,
                 open: Callable[[], AbstractAsyncContextManager[ASGIApp]]) -> None:
        self.name = name
        self._open = open
        self._app: ASGIApp | None = None
        self._loading: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def loaded(self) -> bool:
        return self._app is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await (self._app or await self._load())(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The web server's lifespan: leaving it closes the app if a request opened it."""
        self._stop, self._loading = asyncio.Event(), asyncio.Lock()  # this loop's
        try:
            yield
        finally:
            self._stop.set()
            if self._task is not None:
                await self._task
                self._task = None

    async def _load(self) -> ASGIApp:
        if self._loading is None or self._stop is None or self._stop.is_set():
            raise RuntimeError(f"{self.name} is served only while the server runs")
        async with self._loading:
            if self._app is not None:
                return self._app
            opened = asyncio.Event()
            # A context of its own: the task outlives the request that happened to start it.
            task = self._task = asyncio.create_task(
                self._hold(opened), name=f"{self.name} app", context=contextvars.Context())
            waiting = asyncio.create_task(opened.wait())
            await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            if not opened.is_set():  # it failed to open: its error is this request's
                self._task = None  # and the next request tries again
                await task
                raise RuntimeError(f"{self.name} stopped as it opened")
            if self._app is None:  # the server stopped meanwhile
                raise RuntimeError(f"{self.name} is served only while the server runs")
            return self._app

    async def _hold(self, opened: asyncio.Event) -> None:
        assert self._stop is not None
        async with self._open() as app:
            self._app = app
            opened.set()
            await self._stop.wait()
        self._app = None
