"""WS /ws helpers for the provider tests: send a message, read the run's messages."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import websockets

from tests.live_server import LiveServer

TIMEOUT = 60.0


async def recv(ws: websockets.ClientConnection) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))


async def ask(ws: websockets.ClientConnection, text: str) -> list[dict[str, Any]]:
    """Send one message; the messages up to the run's closing ``debug`` with ``done``."""
    await ws.send(json.dumps({"message": text}))
    out = []
    while not (out and out[-1].get("done")):
        out.append(await recv(ws))
    return out


async def connect(server: LiveServer) -> websockets.ClientConnection:
    ws = await websockets.connect(server.ws_url, max_size=None)
    assert (await recv(ws))["type"] == "map_definition"
    return ws


def of_type(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == kind]
