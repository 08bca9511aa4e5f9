"""Revoking an API key ends its live connections on a running server: its WebSocket gets
an ``error`` and close 1008, its SSE stream a last ``error`` event, its Socket.IO session an
``error:state`` and a disconnect; and a message sent over such a connection starts no run.
The key is revoked as ``shokunin auth revoke-key`` does it, in another process's store."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import pytest
import socketio
import websockets
from websockets.exceptions import ConnectionClosed

from shokunin.api.perimeter.auth import COOKIE, encode_cookie
from shokunin.config import Settings
from tests.api.perimeter.test_auth import create_key, revoke_key
from tests.live_server import LiveServer
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess

ADMIN = "admin-token-0123456789abcdef"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "server", env={"SHOKUNIN_AUTH_TOKEN": ADMIN}).start()
    yield live
    live.stop()


async def _key(server: LiveServer, name: str = "alice") -> str:
    return await asyncio.to_thread(create_key, Settings(data_dir=server.data_dir), name)


async def _revoke(server: LiveServer, name: str = "alice") -> float:
    """Revoke in a worker thread (as the CLI would, from outside); the time it was done."""
    await asyncio.to_thread(revoke_key, Settings(data_dir=server.data_dir), name)
    return time.monotonic()


def _runs_on(server: LiveServer, thread_id: str) -> int:
    with sqlite3.connect(server.data_dir / "shokunin.db") as db:
        return db.execute("select count(*) from runs where thread_id = ?",
                          (thread_id,)).fetchone()[0]


async def test_revoking_a_key_closes_its_websocket_and_a_later_message_starts_no_run(
        server: LiveServer) -> None:
    key = await _key(server)
    async with websockets.connect(server.ws_url, additional_headers={
            "Authorization": f"Bearer {key}"}) as ws:
        first = json.loads(await ws.recv())
        thread_id = first["thread_id"]
        revoked_at = await _revoke(server)
        await ws.send(json.dumps({"message": "hello"}))  # before the server noticed
        received: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                while True:
                    received.append(json.loads(await ws.recv()))
        took = time.monotonic() - revoked_at
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert {"type": "error", "code": "unauthorized"}.items() <= received[-1].items()
    assert took < 5, f"closed {took:.1f} s after the revocation"
    assert _runs_on(server, thread_id) == 0
    assert not [m for m in received if m.get("type") == "user_message"]


async def test_revoking_a_key_ends_its_sse_stream_with_an_error_event(
        server: LiveServer) -> None:
    key = await _key(server)
    bearer = {"Authorization": f"Bearer {key}"}
    async with websockets.connect(server.ws_url, additional_headers=bearer) as ws:
        thread_id = json.loads(await ws.recv())["thread_id"]
        await ws.send(json.dumps({"message": "hello"}))
        async with asyncio.timeout(30):
            while not json.loads(await ws.recv()).get("done"):
                pass
    async with httpx.AsyncClient(base_url=server.url, timeout=10, headers=bearer) as http, \
            http.stream("GET", f"/api/threads/{thread_id}/events") as stream:
        assert stream.status_code == 200
        lines = stream.aiter_lines()
        revoked_at = await _revoke(server)
        seen: list[str] = []
        async with asyncio.timeout(10):
            async for line in lines:
                seen.append(line)
        took = time.monotonic() - revoked_at
    assert "event: error" in seen
    data = json.loads(seen[seen.index("event: error") + 1].removeprefix("data: "))
    assert data["code"] == "unauthorized"
    assert took < 5, f"ended {took:.1f} s after the revocation"


@pytest.mark.parametrize("transport", ["websocket", "polling"])
async def test_revoking_a_key_disconnects_its_socketio_session_and_refuses_its_events(
        server: LiveServer, transport: str) -> None:
    key = await _key(server)
    # The login cookie: the client sends extra headers with its first request only.
    cookies = aiohttp.ClientSession(cookies={COOKIE: encode_cookie(key)})
    sio = socketio.AsyncClient(reconnection=False, http_session=cookies)
    states: list[Any] = []
    gone = asyncio.Event()
    sio.on("error:state", states.append)
    sio.on("disconnect", gone.set)
    await sio.connect(server.url, transports=[transport], wait_timeout=10)
    try:
        revoked_at = await _revoke(server)
        if transport == "websocket":  # (long-polling: the request carrying it gets a 401)
            answer = await sio.call("checkpoint:resolve", {
                "checkpointId": "cp", "resolution": "approved"}, timeout=5)
            assert answer == {"ok": False,
                              "error": "the API key of this connection was revoked"}
        async with asyncio.timeout(10):
            await gone.wait()
        took = time.monotonic() - revoked_at
    finally:
        if sio.connected:
            await sio.eio.disconnect(abort=True)
        await cookies.close()
    # The client runs its event handlers as tasks: the notice that came before the close
    # may be handled after the disconnect was told
    await eventually(lambda: states, 5, what="the error:state of the revoked session")
    assert [s["errorType"] for s in states] == ["unauthorized"]
    assert took < 5, f"disconnected {took:.1f} s after the revocation"


async def test_the_admin_and_other_keys_keep_their_connections(server: LiveServer) -> None:
    alice = await _key(server, "alice")
    bob = await _key(server, "bob")
    async with websockets.connect(server.ws_url, additional_headers={
            "Authorization": f"Bearer {alice}"}) as ws_alice, websockets.connect(
            server.ws_url, additional_headers={"Authorization": f"Bearer {bob}"}) as ws_bob, \
            websockets.connect(server.ws_url, additional_headers={
                "Authorization": f"Bearer {ADMIN}"}) as ws_admin:
        for ws in (ws_alice, ws_bob, ws_admin):
            await ws.recv()
        await _revoke(server, "alice")
        with pytest.raises(ConnectionClosed):  # the poll of the key store that found it
            async with asyncio.timeout(10):
                while True:
                    await ws_alice.recv()
        for ws in (ws_bob, ws_admin):
            await ws.send(json.dumps({"run_id": "nope", "after": 0}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["code"] == "not_found"


async def test_a_revoked_socketio_transport_is_closed_and_cannot_connect_again(
        server: LiveServer) -> None:
    key = await _key(server)
    url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    seen: list[str] = []
    async with websockets.connect(url, ping_interval=None, additional_headers={
            "Authorization": f"Bearer {key}"}) as ws:
        assert (await ws.recv()).startswith("0")  # Engine.IO open
        await ws.send("40")
        assert (await ws.recv()).startswith("40")  # Socket.IO connected
        await _revoke(server)
        with pytest.raises(ConnectionClosed):  # the Engine.IO transport itself ends
            async with asyncio.timeout(10):
                while True:
                    seen.append(message := await ws.recv())
                    if message.startswith("41"):  # a client may try to connect again
                        await ws.send("40")
    assert not [m for m in seen if m.startswith("40")], seen  # and gets no new session
