"""``LazyApp``: a route's app opened by its first request, once however many come at once,
in a task of its own (a task group entered and left by one task), closed with the server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.lazy_app import LazyApp
from tests.waiting import eventually


class Opener:
    def __init__(self, failures: int = 0) -> None:
        self.opened = self.closed = 0
        self.failures = failures
        self.tasks: set[asyncio.Task[object] | None] = set()

    @asynccontextmanager
    async def open(self) -> AsyncIterator[ASGIApp]:
        self.tasks.add(asyncio.current_task())
        await asyncio.sleep(0)  # let the other first requests arrive meanwhile
        if self.failures:
            self.failures -= 1
            raise OSError("the library is missing")
        self.opened += 1
        try:
            yield PlainTextResponse(f"opened {self.opened}")
        finally:
            self.tasks.add(asyncio.current_task())
            self.closed += 1


def _app(lazy: LazyApp) -> ASGIApp:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with lazy.running():
            yield

    app = Starlette(lifespan=lifespan)
    app.mount("/lazy", lazy)
    return app


async def _serve(app: ASGIApp, calls: int) -> list[httpx.Response]:
    messages: asyncio.Queue[dict[str, object]] = asyncio.Queue()
    sent: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    async def receive() -> dict[str, object]:
        return await messages.get()

    async def send(message: dict[str, object]) -> None:
        await sent.put(message)

    scope: Scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    life = asyncio.create_task(app(scope, receive, send))  # type: ignore[arg-type]
    await messages.put({"type": "lifespan.startup"})
    assert (await sent.get())["type"] == "lifespan.startup.complete"
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                               base_url="http://testserver")
    async with client:
        answers = await asyncio.gather(*(client.get("/lazy/") for _ in range(calls)),
                                       return_exceptions=True)
    await messages.put({"type": "lifespan.shutdown"})
    assert (await sent.get())["type"] == "lifespan.shutdown.complete"
    await life
    return answers  # type: ignore[return-value]


async def test_the_first_requests_open_it_once_and_the_server_s_end_closes_it() -> None:
    opener = Opener()
    lazy = LazyApp("probe", opener.open)
    assert opener.opened == 0  # nothing opened before a request
    answers = await _serve(_app(lazy), 5)
    assert [a.text for a in answers] == ["opened 1"] * 5
    assert (opener.opened, opener.closed) == (1, 1)
    assert len(opener.tasks) == 1  # opened and closed by one task, not by a request's


async def test_an_app_that_fails_to_open_fails_that_request_and_the_next_tries_again() -> None:
    opener = Opener(failures=1)
    lazy = LazyApp("probe", opener.open)
    app = _app(lazy)
    with pytest.raises(OSError, match="library is missing"):
        answers = await _serve(app, 1)
        raise answers[0]  # type: ignore[misc]
    answers = await _serve(app, 2)
    assert [a.text for a in answers] == ["opened 1"] * 2


async def test_outside_the_server_s_lifespan_it_refuses() -> None:
    lazy = LazyApp("probe", Opener().open)

    async def nothing() -> dict[str, object]:
        return {}

    async def ignore(message: dict[str, object]) -> None:
        return None

    scope: Scope = {"type": "http", "path": "/"}
    receive: Receive = nothing  # type: ignore[assignment]
    send: Send = ignore  # type: ignore[assignment]
    with pytest.raises(RuntimeError, match="only while the server runs"):
        await lazy(scope, receive, send)


async def _call(lazy: LazyApp) -> None:
    async def nothing() -> dict[str, object]:
        return {"type": "http.request", "body": b""}

    async def ignore(message: dict[str, object]) -> None:
        return None

    await lazy({"type": "http", "path": "/"}, nothing, ignore)  # type: ignore[arg-type]


async def test_the_server_s_end_stops_an_open_under_way_and_refuses_who_waited_for_it() -> None:
    opens: list[int] = []

    @asynccontextmanager
    async def hangs() -> AsyncIterator[ASGIApp]:
        opens.append(1)
        await asyncio.Event().wait()  # an open that never ends
        yield PlainTextResponse("never")

    lazy = LazyApp("probe", hangs)
    running = lazy.running()
    await running.__aenter__()
    first, second = (asyncio.create_task(_call(lazy)) for _ in range(2))
    await eventually(lambda: opens, what="the open began")
    await asyncio.wait_for(running.__aexit__(None, None, None), 5)  # not held by the open
    for request in (first, second):
        with pytest.raises(RuntimeError, match="only while the server runs"):
            await request
    assert opens == [1]  # the request that waited opened nothing after the end


async def test_a_request_that_comes_while_the_app_closes_is_refused_not_handed_it() -> None:
    closing = asyncio.Event()
    served: list[bool] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        served.append(closing.is_set())

    @asynccontextmanager
    async def slow_to_close() -> AsyncIterator[ASGIApp]:
        yield app
        closing.set()
        await asyncio.sleep(0.2)  # its feeds or task group ending

    lazy = LazyApp("probe", slow_to_close)
    running = lazy.running()
    await running.__aenter__()
    await _call(lazy)
    end = asyncio.create_task(running.__aexit__(None, None, None))
    await closing.wait()
    with pytest.raises(RuntimeError, match="only while the server runs"):
        await _call(lazy)
    await end
    assert served == [False]
