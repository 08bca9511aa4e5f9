"""A malformed thread id (a thread, an Advisor session, the thread of an Analyst upload or of
a tool execution) is answered one way on every route of every face that takes one:
``bad_thread_id``, with 400 wherever an HTTP status says it. It was answered four ways
(400 or 422; ``bad_thread_id``, ``bad_session_id``, the WebSocket's ``bad_thread``).

Where the error comes inside an answer already begun (the WebSocket, the Advisor's chat
stream, an MCP tool result), the transport's own error form carries the same code."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
import websockets
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.live_server import LiveServer

BAD = ".hidden"  # well-formed in a URL, a query and JSON; not a thread id (leading '.')
CODE = "bad_thread_id"
STATUS = 400

# (method, path, request options) of every REST route that takes a thread id
HTTP_ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", f"/api/threads/{BAD}", {}),
    ("GET", f"/api/threads/{BAD}/runs", {}),
    ("GET", f"/api/threads/{BAD}/messages", {}),
    ("GET", f"/api/threads/{BAD}/events", {}),  # SSE: refused before the stream begins
    ("DELETE", f"/api/threads/{BAD}", {}),
    ("GET", f"/api/session/{BAD}/messages", {}),
    ("POST", f"/api/session/{BAD}/clear", {}),
    ("POST", f"/api/session/{BAD}/step", {"json": {"step": "UNKNOWN"}}),
    ("DELETE", f"/api/session/{BAD}", {}),
    ("GET", "/api/diagrams/latest", {"params": {"session_id": BAD}}),
    ("GET", "/api/diagrams/0123456789abcdef.png", {"params": {"session_id": BAD}}),
    ("POST", "/api/analyst/datasets", {"data": {"thread_id": BAD},
                                       "files": {"file": ("a.csv", b"x,y\n1,2\n", "text/csv")}}),
    ("POST", "/api/tools/calculator/execute",
     {"json": {"args": {"expression": "1+1"}, "thread_id": BAD}}),
    ("POST", "/api/tools/calculator/execute/stream",  # SSE: refused before it begins
     {"json": {"args": {"expression": "1+1"}, "thread_id": BAD}}),
]


Probe = Callable[[LiveServer], tuple[int | None, str]]  # HTTP status (None: in-band), code


def _http(method: str, path: str, options: dict[str, Any]) -> Probe:
    def probe(server: LiveServer) -> tuple[int | None, str]:
        answer = httpx.request(method, f"{server.url}{path}", timeout=30, **options)
        return answer.status_code, answer.json()["code"]
    return probe


def _advisor_chat(server: LiveServer) -> tuple[int | None, str]:
    """The Advisor's chat (seed 001) answers in its stream: a data-only error message."""
    with httpx.stream("POST", f"{server.url}/api/chat", timeout=30,
                      json={"message": "こんにちは", "session_id": BAD}) as stream:
        data = [json.loads(line[5:]) for line in stream.iter_lines()
                if line.startswith("data:")]
    [error] = [d for d in data if d.get("type") == "error"]
    return None, error["code"]


def _workbench_ws(server: LiveServer) -> tuple[int | None, str]:
    """The Workbench WebSocket says why in an ``error`` message, then goes on, on a new
    thread."""
    async def first() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_url}?thread={BAD}") as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), 20))
    message = asyncio.run(first())
    assert message["type"] == "error"
    return None, message["code"]


def _mcp_ask_advisor(server: LiveServer) -> tuple[int | None, str]:
    """MCP's ``ask_advisor``: a tool error whose structured content has the code."""
    async def call() -> types.CallToolResult:
        http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120))
        async with http, Client(streamable_http_client(f"{server.url}/mcp",
                                                       http_client=http)) as client:
            return await client.call_tool("ask_advisor", {"question": "こんにちは",
                                                          "session_id": BAD})
    result = asyncio.run(call())
    assert result.is_error and result.structured_content is not None
    return None, result.structured_content["code"]


PROBES: dict[str, Probe] = {
    **{f"{method} {path}": _http(method, path, options)
       for method, path, options in HTTP_ROUTES},
    "SSE POST /api/chat": _advisor_chat,
    "WS /ws?thread=": _workbench_ws,
    "MCP ask_advisor": _mcp_ask_advisor,
}


@pytest.mark.parametrize("route", list(PROBES))
def test_a_malformed_thread_id_is_answered_one_way(live_server: LiveServer,
                                                   route: str) -> None:
    status, code = PROBES[route](live_server)
    assert code == CODE
    assert status in (STATUS, None)  # None: no HTTP status, the error came in-band
