"""The Host check: a name the server was not configured for is refused on every transport
(DNS rebinding), loopback names pass, and ``SHOKUNIN_ALLOWED_HOSTS`` admits others."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from shokunin.api import create_app
from shokunin.api.perimeter.host import host_allowed
from tests.api.perimeter.test_auth import make_settings
from tests.live_server import LiveServer

ATTACKER = "attacker.example"
MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "0"}}}
# One request per transport: REST, a state-changing POST, SSE, Socket.IO, MCP.
HTTP_PROBES = [
    ("GET", "/api/threads", None, {}),
    ("POST", "/api/tools/calculator/execute", '{"args": {"expression": "1 + 1"}}',
     {"Content-Type": "application/json"}),
    ("GET", "/api/runs/nope/events", None, {"Accept": "text/event-stream"}),
    ("GET", "/socket.io/?EIO=4&transport=polling", None, {}),
    ("POST", "/mcp", json.dumps(MCP_INIT),
     {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}),
]


def _client(tmp_path: Path, **extra: Any) -> TestClient:
    settings = make_settings(tmp_path, allowed_hosts=extra.pop("allowed_hosts", []), **extra)
    return TestClient(create_app(settings), raise_server_exceptions=False)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as c:
        yield c


def _refused(response: httpx.Response) -> bool:
    return response.status_code == 400 and response.json()["code"] == "forbidden_host"


@pytest.mark.parametrize("origin", [None, f"http://{ATTACKER}"])
def test_a_foreign_host_is_refused_on_every_http_transport(client: TestClient,
                                                           origin: str | None) -> None:
    for method, path, body, headers in HTTP_PROBES:
        headers = {**headers, "Host": ATTACKER} | ({"Origin": origin} if origin else {})
        response = client.request(method, path, content=body, headers=headers)
        assert _refused(response), (path, response.status_code, response.text)
        assert "SHOKUNIN_ALLOWED_HOSTS" in response.json()["error"]


@pytest.mark.parametrize("origin", [None, f"http://{ATTACKER}"])
def test_a_foreign_host_websocket_is_refused_before_the_handshake(client: TestClient,
                                                                  origin: str | None) -> None:
    headers = {"Host": ATTACKER} | ({"Origin": origin} if origin else {})
    for path in ("/ws", "/socket.io/?EIO=4&transport=websocket"):
        with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect(
                path, headers=headers):
            pass
        assert _refused(refused.value), path


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:9", "[::1]:8000",
                                  "app.localhost", "127.0.0.2"])
def test_loopback_hosts_pass(client: TestClient, host: str) -> None:
    assert client.get("/api/threads", headers={"Host": host}).status_code == 200
    with client.websocket_connect("/ws", headers={"Host": host}) as ws:
        assert ws.receive_json()["type"] == "map_definition"


def test_the_setting_admits_a_host_a_domain_or_every_host(tmp_path: Path) -> None:
    allowed = frozenset({"shokunin.example.com", ".corp.example"})
    assert host_allowed("shokunin.example.com:443", allowed)
    assert host_allowed("corp.example", allowed) and host_allowed("a.b.corp.example", allowed)
    assert not host_allowed("evilcorp.example", allowed)
    assert not host_allowed("shokunin.example.com.attacker.example", allowed)
    assert not host_allowed(None, allowed) and not host_allowed("", allowed)
    assert host_allowed(ATTACKER, frozenset({"*"}))
    with _client(tmp_path, allowed_hosts=[ATTACKER]) as c:
        assert c.get("/api/threads", headers={"Host": ATTACKER}).status_code == 200
        assert _refused(c.get("/api/threads", headers={"Host": "other.example"}))


def test_a_bad_allowed_hosts_entry_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="allowed_hosts"):
        make_settings(tmp_path, allowed_hosts=["https://app.example.com/"])


def test_a_live_server_refuses_a_rebound_name_and_answers_its_own(
        live_server: LiveServer) -> None:
    rebound = {"Host": f"{ATTACKER}:{live_server.port}",
               "Origin": f"http://{ATTACKER}:{live_server.port}"}
    assert _refused(httpx.get(f"{live_server.url}/api/threads", headers=rebound))
    assert httpx.get(f"{live_server.url}/api/threads").status_code == 200
    assert httpx.get(f"{live_server.url}/api/threads",
                     headers={"Host": f"localhost:{live_server.port}"}).status_code == 200

    # websockets' client sends its own Host: the handshake is written by hand.
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=10) as sock:
        sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {rebound['Host']}\r\n"
                      f"Origin: {rebound['Origin']}\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode())
        answer = b""
        while b"forbidden_host" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400") and b"forbidden_host" in answer
