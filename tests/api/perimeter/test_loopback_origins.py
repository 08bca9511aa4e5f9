"""Loopback origins: a client's own dev server (vite on localhost:5173, a preview on
127.0.0.1:4391) proxies to shokunin with its own ``Origin``; a server bound to loopback lets
them in on any port, a server bound beyond it does not, and a refusal names the setting."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from shokunin.api import create_app
from tests.api.perimeter.test_auth import make_settings

# What the Advisor client (SME-Agency-Price-Transfer-Support-AI frontend/src/App.tsx) sends
# first, through its vite proxy (changeOrigin rewrites Host, the browser's Origin stays).
SESSION = "/api/session"
SESSION_BODY = {"user_info": {}}
DEV_ORIGINS = ("http://localhost:5173", "http://127.0.0.1:4391", "http://[::1]:3000",
               "http://studio.localhost:5173", "https://localhost:8443")
FOREIGN = ("https://evil.example", "http://localhost.evil.example:5173",
           "http://127.0.0.2.nip.io:5173", "http://192.168.1.5:5173", "null")


def app_client(tmp_path: Path, **settings: object) -> TestClient:
    return TestClient(create_app(make_settings(tmp_path, **settings)),
                      raise_server_exceptions=False)


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path) as client:  # the default bind address, 127.0.0.1
        yield client


def test_a_loopback_bound_server_accepts_a_dev_proxy_origin_on_any_port(
        loopback: TestClient) -> None:
    for origin in DEV_ORIGINS:
        answer = loopback.post(SESSION, json=SESSION_BODY, headers={"Origin": origin})
        assert answer.status_code == 200, (origin, answer.text)
        assert answer.json()["session_id"]


def test_a_loopback_bound_server_opens_websockets_from_a_dev_proxy_origin(
        loopback: TestClient) -> None:
    with loopback.websocket_connect("/ws", headers={"Origin": "http://localhost:5173"}) as ws:
        assert ws.receive_json()["type"] == "map_definition"
    polling = loopback.get("/socket.io/", params={"EIO": "4", "transport": "polling"},
                           headers={"Origin": "http://localhost:5173"})
    assert polling.status_code == 200 and polling.text.startswith("0{")


def test_other_origins_are_refused_with_the_setting_that_allows_them(
        loopback: TestClient) -> None:
    for origin in FOREIGN:
        answer = loopback.post(SESSION, json=SESSION_BODY, headers={"Origin": origin})
        assert answer.status_code == 403, origin
        body = answer.json()
        assert body["code"] == "forbidden_origin"
        assert "SHOKUNIN_ALLOWED_ORIGINS" in body["error"], body


def test_a_server_bound_beyond_loopback_refuses_loopback_origins_unless_listed(
        tmp_path: Path) -> None:
    token = "t" * 32
    auth = {"Authorization": f"Bearer {token}", "Origin": "http://localhost:5173"}
    with app_client(tmp_path / "a", host="0.0.0.0", auth_token=token) as client:
        refused = client.post(SESSION, json=SESSION_BODY, headers=auth)
        assert refused.status_code == 403
        assert "SHOKUNIN_ALLOWED_ORIGINS" in refused.json()["error"]
    with app_client(tmp_path / "b", host="0.0.0.0", auth_token=token,
                    allowed_origins=["http://localhost:5173"]) as client:
        assert client.post(SESSION, json=SESSION_BODY, headers=auth).status_code == 200


def test_a_refused_websocket_names_the_setting_in_its_close_reason(
        loopback: TestClient) -> None:
    origin = "https://a-rather-long-subdomain-name.evil.example:8443"
    with (pytest.raises(WebSocketDisconnect) as refused,
          loopback.websocket_connect("/ws", headers={"Origin": origin}) as ws):
        ws.receive_text()
    assert refused.value.code == 1008
    assert refused.value.reason.startswith("forbidden_origin")
    assert "SHOKUNIN_ALLOWED_ORIGINS" in refused.value.reason
