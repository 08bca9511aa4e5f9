"""Connection limits: a half-sent request is closed within the header timeout, one address
holds a bounded number of connections, live connections (WebSocket, SSE, Socket.IO) past
the per-client and per-key caps are refused with ``429 too_many_streams`` in each
protocol's form, and a follower waiting for events holds no database connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import socketio
import websockets
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.exc import TimeoutError as PoolTimeout

from shokunin import events as ev
from shokunin.api import create_app
from shokunin.api.studio.socket import JOIN_SEC
from shokunin.config import Settings
from shokunin.runs import MemoryBus, RunContext, Runner
from shokunin.store import Store
from tests.api.perimeter.test_auth import create_key, make_settings
from tests.live_server import LiveServer
from tests.waiting import eventually, wait_until

pytestmark = pytest.mark.subprocess

ADMIN = "admin-token-0123456789abcdef"


def _refused(status: int, body: bytes | str) -> bool:
    return status == 429 and json.loads(body)["code"] == "too_many_streams"


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    data = tmp_path / "server"
    key = create_key(Settings(data_dir=data), "alice")
    server = LiveServer(data, env={"SHOKUNIN_AUTH_TOKEN": ADMIN,
                                   "SHOKUNIN_MAX_STREAMS_PER_CLIENT": "3",
                                   "SHOKUNIN_MAX_STREAMS_PER_KEY": "2"}).start()
    yield server, key
    server.stop()


async def _ws_status(server: LiveServer, token: str) -> int:
    try:
        async with websockets.connect(server.ws_url, additional_headers={
                "Authorization": f"Bearer {token}"}):
            return 101
    except websockets.InvalidStatus as exc:
        assert _refused(exc.response.status_code, exc.response.body)
        return exc.response.status_code


async def test_live_connections_past_the_caps_are_refused_on_every_transport(
        capped: tuple[LiveServer, str]) -> None:
    server, key = capped
    bearer = {"Authorization": f"Bearer {key}"}
    async with contextlib.AsyncExitStack() as held:
        first = await held.enter_async_context(
            websockets.connect(server.ws_url, additional_headers=bearer))
        thread_id = json.loads(await first.recv())["thread_id"]
        await first.send(json.dumps({"message": "hello"}))  # the thread exists from now on
        while not json.loads(await asyncio.wait_for(first.recv(), 30)).get("done"):
            pass
        await held.enter_async_context(websockets.connect(server.ws_url,
                                                          additional_headers=bearer))
        assert await _ws_status(server, key) == 429  # alice's third: the key's cap (2)
        admin = {"Authorization": f"Bearer {ADMIN}"}
        await held.enter_async_context(websockets.connect(server.ws_url,
                                                          additional_headers=admin))
        # This address now holds 3, its cap: every transport refuses the next one.
        assert await _ws_status(server, ADMIN) == 429
        async with httpx.AsyncClient(base_url=server.url, headers=admin, timeout=10) as http:
            sse = await http.get(f"/api/threads/{thread_id}/events")
            assert _refused(sse.status_code, sse.content)
            sio = socketio.AsyncClient(reconnection=False)
            why: list[Any] = []
            sio.on("connect_error", why.append)
            with pytest.raises(socketio.exceptions.ConnectionError):
                await sio.connect(server.url, headers=admin, transports=["websocket"],
                                  wait_timeout=10)
            assert why and why[0]["data"]["code"] == "too_many_streams"
            await first.close()

            async def streams() -> bool:
                async with http.stream("GET", f"/api/threads/{thread_id}/events") as stream:
                    return stream.status_code == 200

            await eventually(streams, what="a place freed by the close")


async def test_engineio_connections_hold_a_live_place_before_they_join_socketio(
        capped: tuple[LiveServer, str]) -> None:
    server, _key = capped
    eio = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    admin = {"Authorization": f"Bearer {ADMIN}"}
    async with contextlib.AsyncExitStack() as held:
        for _ in range(3):  # the address's cap: open, never joined, answering no ping
            ws = await held.enter_async_context(websockets.connect(
                eio, ping_interval=None, additional_headers=admin))
            assert (await ws.recv()).startswith("0")
        async with websockets.connect(eio, ping_interval=None,
                                      additional_headers=admin) as extra:
            assert (await extra.recv()).startswith("0")
            await extra.send("40")
            refusal = await asyncio.wait_for(extra.recv(), 10)
            assert refusal.startswith("44") and "too_many_streams" in refusal
            with pytest.raises(websockets.ConnectionClosed):  # and the transport ends
                while True:
                    await asyncio.wait_for(extra.recv(), 10)
        assert await _ws_status(server, ADMIN) == 429  # the other faces count them too


async def test_an_engineio_connection_that_never_joins_is_closed_and_frees_its_place(
        capped: tuple[LiveServer, str]) -> None:
    server, _key = capped
    eio = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    admin = {"Authorization": f"Bearer {ADMIN}"}
    async with contextlib.AsyncExitStack() as held:
        idle = []
        for _ in range(3):
            idle.append(await held.enter_async_context(websockets.connect(
                eio, ping_interval=None, additional_headers=admin)))
        assert await _ws_status(server, ADMIN) == 429
        started = time.monotonic()
        for ws in idle:
            with pytest.raises(websockets.ConnectionClosed):
                while True:  # the open packet, the close packet, then the close itself
                    await asyncio.wait_for(ws.recv(), JOIN_SEC + 5)
        assert time.monotonic() - started < JOIN_SEC + 5

    async def free() -> bool:
        return await _ws_status(server, ADMIN) == 101

    await eventually(free, what="their places free again")


def test_a_half_sent_request_is_closed_within_the_header_timeout(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_HEADER_TIMEOUT_SEC": "1"}).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            for _ in range(5):  # a byte now and then must not keep it open
                time.sleep(0.3)
                with contextlib.suppress(OSError):
                    sock.sendall(b"X")
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            took = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408") and b'"code": "timeout"' in answer
        assert took < 5, f"closed after {took:.1f} s"
        # A whole request is served as before, and a kept-alive one is timed out as well.
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /health HTTP/1.1\r\n")
            rest = b""
            while chunk := sock.recv(4096):
                rest += chunk
        assert b"408" in rest
        # A body that stops coming is timed out too.
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(b"POST /api/tools/calculator/execute HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                         b'{"args": ')
            body_answer = b""
            while chunk := sock.recv(4096):
                body_answer += chunk
            took = time.monotonic() - started
        assert body_answer.startswith(b"HTTP/1.1 408") and took < 5
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()


def test_a_body_sent_with_pauses_just_under_the_timeout_is_bounded_in_total(
        tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_HEADER_TIMEOUT_SEC": "1",
                                                  "SHOKUNIN_BODY_TIMEOUT_SEC": "3"}).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(b"POST /api/tools/calculator/execute HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            sock.settimeout(0.7)
            answer = b""
            while time.monotonic() - started < 15:
                try:  # a byte every 0.7 s: each pause under the 1 s header timeout
                    if not (chunk := sock.recv(4096)):
                        break
                    answer += chunk
                except TimeoutError:
                    with contextlib.suppress(OSError):
                        sock.sendall(b" ")
            took = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408") and b"SHOKUNIN_BODY_TIMEOUT_SEC" in answer
        assert 2.5 < took < 6, f"closed after {took:.1f} s"
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()


def test_one_address_holds_a_bounded_number_of_connections(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server",
                        env={"SHOKUNIN_MAX_CONNECTIONS_PER_CLIENT": "3"}).start()
    try:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=10)
                for _ in range(3)]
        try:
            for sock in held:  # answered, so counted, and kept alive
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as extra:
                answer = extra.recv(4096)
            assert answer.startswith(b"HTTP/1.1 503")
            assert b'"code": "too_many_connections"' in answer
        finally:
            for sock in held:
                sock.close()
        wait_until(lambda: httpx.get(f"{server.url}/health").status_code == 200,
                   what="the closed connections' places free again")
    finally:
        server.stop()


async def test_upgraded_websockets_stay_in_their_address_connection_count(
        tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server",
                        env={"SHOKUNIN_MAX_CONNECTIONS_PER_CLIENT": "3"}).start()
    eio = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    try:
        async with contextlib.AsyncExitStack() as held:
            for _ in range(3):  # raw Engine.IO WebSockets that never join Socket.IO
                await held.enter_async_context(websockets.connect(eio, ping_interval=None))
            with pytest.raises(websockets.InvalidStatus) as refused:
                await websockets.connect(eio, ping_interval=None)
            assert refused.value.response.status_code == 503

        async def accepted() -> bool:
            try:
                async with websockets.connect(eio, ping_interval=None):
                    return True
            except websockets.InvalidStatus as exc:
                assert exc.response.status_code == 503
                return False

        await eventually(accepted, what="the closed connections' places free again")
        async with websockets.connect(eio, ping_interval=None) as again:
            assert (await again.recv()).startswith("0")  # freed places are given again
    finally:
        server.stop()


class Quiet:
    """Says one thing, then waits until released: a run with nothing to say."""

    name = "quiet"

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        await ctx.emit(ev.Text(text="hello"))
        await self.release.wait()
        return {}


async def test_a_follower_waiting_on_a_quiet_run_holds_no_database_connection(
        tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    quiet = Quiet()
    runner.register(quiet)
    pool = store.engine.sync_engine.pool
    checkouts = 0

    def counted(*_args: Any) -> None:
        nonlocal checkouts
        checkouts += 1

    try:
        run_id = await runner.start("quiet", None, {})
        run = await store.get_run(run_id)
        assert run is not None
        seen: list[str] = []

        async def follow(events: Any) -> None:
            async for item in events:
                seen.append(item.kind)

        followers = [asyncio.create_task(follow(runner.stream(run_id))) for _ in range(50)]
        followers += [asyncio.create_task(follow(runner.subscribe_thread(run.thread_id)))
                      for _ in range(50)]
        await eventually(lambda: seen.count("text") >= 50,  # every run follower replayed
                         what="the store replayed to every run follower")
        event.listen(pool, "checkout", counted)
        samples = []
        for _ in range(20):  # two seconds of waiting
            await asyncio.sleep(0.1)
            samples.append(pool.checkedout())
        event.remove(pool, "checkout", counted)
        assert samples == [0] * 20 and checkouts == 0
        quiet.release.set()
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
    finally:
        quiet.release.set()
        await runner.shutdown()
        await store.close()


def test_a_database_pool_that_stays_taken_answers_503_busy_not_500(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path))

    @app.get("/test/pool")
    async def pool() -> None:
        raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached")

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/test/pool")
    assert answer.status_code == 503 and answer.json()["code"] == "busy"
    assert answer.headers["retry-after"] == "1"
