"""Auth and perimeter against a real server process: revocation takes effect while it
runs, a refused WebSocket sees close code 1008, and a chunked body is bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from shokunin.config import Settings
from tests.api.perimeter.test_auth import create_key, revoke_key
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess


@pytest.fixture
def keyed_server(tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    data = tmp_path / "server"
    key = create_key(Settings(data_dir=data), "alice")
    server = LiveServer(data, env={"SHOKUNIN_MAX_BODY_BYTES": "2000"}).start()
    yield server, key
    server.stop()


def test_revoking_a_key_takes_effect_on_the_running_server(
        keyed_server: tuple[LiveServer, str]) -> None:
    server, key = keyed_server
    bearer = {"Authorization": f"Bearer {key}"}
    assert httpx.get(f"{server.url}/api/tools", headers=bearer).status_code == 200
    assert httpx.get(f"{server.url}/api/tools").status_code == 401
    revoke_key(Settings(data_dir=server.data_dir), "alice")
    refused = httpx.get(f"{server.url}/api/tools", headers=bearer)
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"


def test_a_refused_websocket_reads_1008(keyed_server: tuple[LiveServer, str]) -> None:
    server, key = keyed_server

    async def close_code(headers: dict[str, str]) -> int | None:
        async with websockets.connect(server.ws_url, additional_headers=headers) as ws:
            try:
                await asyncio.wait_for(ws.recv(), timeout=10)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
            return None

    assert asyncio.run(close_code({})) == 1008
    assert asyncio.run(close_code({"Authorization": f"Bearer {key}",
                                   "Origin": "https://evil.example"})) == 1008


def test_a_chunked_body_over_the_limit_gets_413(keyed_server: tuple[LiveServer, str]) -> None:
    server, key = keyed_server

    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b'{"args": {}}' * 10

    response = httpx.post(f"{server.url}/api/tools/calculator/execute", content=chunks(),
                          headers={"Authorization": f"Bearer {key}",
                                   "Content-Type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 413 and response.json()["code"] == "too_large"
