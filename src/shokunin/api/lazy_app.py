"""An ASGI app opened by its first request: a route most servers never serve (``/mcp``,
``/socket.io``) does not make every start pay for its library's import.

The app comes from an async context manager (``open``) that is entered once, by a task of
its own, and left when the web server's lifespan ends (``running()``): a library whose
app needs a task group (the MCP SDK's session manager) enters and leaves it in one task,
whichever request came first. Requests that come while it opens wait for it; one that
fails to open is the error of the requests that waited, and the next request tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
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
        self._app: ASGIApp | None = None  # open, and not closing
        self._opened: asyncio.Future[ASGIApp] | None = None  # the open under way, or done
        self._task: asyncio.Task[None] | None = None  # holds the app open
        self._stop: asyncio.Event | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await (self._app or await self._load())(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The web server's lifespan: leaving it closes the app if a request opened it (or
        stops it opening)."""
        self._stop = asyncio.Event()  # this loop's
        try:
            yield
        finally:
            self._stop.set()
            self._app = None  # no request is handed an app that is closing
            task, opened, self._task, self._opened = self._task, self._opened, None, None
            if task is not None:
                if opened is not None and not opened.done():
                    task.cancel()  # still opening: an open that hangs must not hold the end
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _load(self) -> ASGIApp:
        if self._stop is None or self._stop.is_set():
            raise RuntimeError(f"{self.name} is served only while the server runs")
        if self._opened is None:  # no open under way: this request starts one
            self._opened = opened = asyncio.get_running_loop().create_future()
            # The error is the waiting requests'; marked seen when none is left to see it.
            opened.add_done_callback(lambda f: f.cancelled() or f.exception())
            # A context of its own: the task outlives the request that happened to start it.
            self._task = asyncio.create_task(self._hold(opened), name=f"{self.name} app",
                                             context=contextvars.Context())
        opened = self._opened
        try:
            return await asyncio.shield(opened)  # a request that leaves stops no open
        except asyncio.CancelledError:
            if opened.cancelled():  # the server ended while it opened, not this request
                raise RuntimeError(f"{self.name} is served only while the server runs"
                                   ) from None
            raise
        except Exception:
            if self._opened is opened:
                self._opened = self._task = None  # the next request tries again
            raise

    async def _hold(self, opened: asyncio.Future[ASGIApp]) -> None:
        assert self._stop is not None
        try:
            async with self._open() as app:
                if self._stop.is_set():  # the server ended while it opened
                    opened.cancel()
                    return
                self._app = app
                opened.set_result(app)
                await self._stop.wait()
                self._app = None
        except asyncio.CancelledError:
            opened.cancel()
            raise
        except Exception as exc:
            if opened.done():
                raise  # failed as it closed: the lifespan's error
            opened.set_exception(exc)
