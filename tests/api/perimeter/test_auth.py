"""Auth: every route of every kind refuses a caller without a valid token, the principal
each token runs as, the login cookie, and keys that are stored only hashed."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request, WebSocket
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.testclient import TestClient
from limits import RateLimitItemPerMinute
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocketDisconnect

try:
    from fastapi.routing import iter_route_contexts
except ImportError:  # FastAPI before lazily included routers
    iter_route_contexts = None

from shokunin.api import create_app
from shokunin.api.perimeter.auth import COOKIE, PUBLIC_PATHS
from shokunin.api.perimeter.login_limit import LoginLimiter
from shokunin.auth import KeyStore
from shokunin.config import Settings
from shokunin.store import create_engine, migrate

ADMIN_TOKEN = "admin-token-0123456789abcdef"
PARAM_VALUES = {"int": "1", "path": "a/b"}


def make_settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                    tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0,
                    **extra)


def create_key(settings: Settings, name: str) -> str:
    async def go() -> str:
        engine = create_engine(settings.resolved_database_url)
        await migrate(engine)
        try:
            return (await KeyStore(engine).create(name))[1]
        finally:
            await engine.dispose()

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(go())


def revoke_key(settings: Settings, name: str) -> None:
    async def go() -> None:
        engine = create_engine(settings.resolved_database_url)
        try:
            await KeyStore(engine).revoke(name)
        finally:
            await engine.dispose()

    asyncio.run(go())


def with_probes(app: FastAPI) -> FastAPI:
    """Routes standing in for faces that land later: one that reports the principal, a
    WebSocket, and a mounted sub-app (Socket.IO, MCP)."""

    @app.get("/test/principal")
    async def principal(request: Request) -> dict:
        return {"principal": request.state.principal}

    @app.websocket("/test/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"principal": websocket.state.principal})
        await websocket.close()

    async def sub_app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": 1000})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"mounted"})

    app.mount("/test/mounted", sub_app)
    return app


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, auth_token=ADMIN_TOKEN)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(with_probes(create_app(settings))) as test_client:
        yield test_client


def _fill(path: str) -> str:
    return re.sub(r"{[^}:]+(?::(\w+))?}", lambda m: PARAM_VALUES.get(m[1] or "", "x"), path)


def _flatten(routes: list[Any]) -> Iterator[tuple[Any, str]]:
    """(route, full path): FastAPI >= 0.16x keeps included routers lazily in ``app.routes``
    and flattens them with ``iter_route_contexts``; older ones list the routes flat."""
    if iter_route_contexts is None:
        yield from ((route, route.path) for route in routes)
        return
    for context in iter_route_contexts(routes):
        yield context.original_route, context.path


def every_route(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """(kind, method, path) for every route, mounted routers walked recursively; a mounted
    app that is not a router is probed at its prefix."""
    for route, path in _flatten(routes):
        if isinstance(route, APIRoute | Route):
            for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
                yield "http", method, prefix + _fill(path)
        elif isinstance(route, APIWebSocketRoute | WebSocketRoute):
            yield "websocket", "", prefix + _fill(path)
        elif isinstance(route, Mount):
            inner = getattr(route.app, "routes", None)
            if inner is not None:
                yield from every_route(inner, prefix + _fill(path))
            else:
                yield "http", "GET", prefix + _fill(path) + "/"
                yield "websocket", "", prefix + _fill(path) + "/"
        else:
            raise AssertionError(f"the enumeration does not know {route!r}: teach it")


def test_the_enumeration_covers_every_kind_of_route(client: TestClient) -> None:
    found = list(every_route(client.app.routes))
    kinds = {(kind, path) for kind, _, path in found}
    assert ("websocket", "/ws") in kinds and ("websocket", "/test/ws") in kinds
    assert ("http", "/test/mounted/") in kinds and ("websocket", "/test/mounted/") in kinds
    assert any(kind == "http" and path.endswith("/stream") for kind, path in kinds)  # SSE
    assert len(found) > 15


def test_every_route_refuses_a_missing_or_wrong_token(client: TestClient) -> None:
    # Every wrong token here is one guess: the guess limit (login_limit) must not answer.
    client.app.state.login_limiter = LoginLimiter(RateLimitItemPerMinute(100_000))
    checked = 0
    for kind, method, path in every_route(client.app.routes):
        if path in PUBLIC_PATHS:
            continue
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"},
                        {"Cookie": f"{COOKIE}=d3Jvbmc="}):
            if kind == "http":
                response = client.request(method, path, headers=headers)
                assert response.status_code == 401, (method, path, headers, response.text)
                assert response.json()["code"] == "unauthorized"
            else:
                with (pytest.raises(WebSocketDisconnect) as refused,
                      client.websocket_connect(path, headers=headers) as ws):
                    ws.receive_text()
                assert refused.value.code == 1008, (path, headers)
            checked += 1
    assert checked > 40
    # Unknown paths too: the router's own 404 must not tell a stranger what exists.
    assert client.get("/no/such/route").status_code == 401


def test_a_sample_of_routes_accepts_the_token(client: TestClient) -> None:
    bearer = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    for path in ("/", "/api/tools", "/api/map", "/openapi.json", "/docs", "/test/mounted/"):
        assert client.get(path, headers=bearer).status_code == 200, path
    with client.websocket_connect("/test/ws", headers=bearer) as ws:
        assert ws.receive_json() == {"principal": "admin"}
    with client.websocket_connect("/test/mounted/", headers=bearer):
        pass


def test_public_paths_need_no_token(client: TestClient) -> None:
    assert client.get("/health").json()["status"] == "ok"
    assert "<form" in client.get("/login").text
    assert client.get("/login.css").status_code == 200


def test_a_browser_without_the_cookie_is_sent_to_the_login_page(client: TestClient) -> None:
    response = client.get("/", headers={"Accept": "text/html"}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login"


def test_the_token_is_not_accepted_in_the_url(client: TestClient) -> None:
    assert client.get(f"/api/tools?token={ADMIN_TOKEN}").status_code == 401
    assert client.get(f"/api/tools?access_token={ADMIN_TOKEN}").status_code == 401


def test_principal_of_admin_token_and_of_a_key(settings: Settings, tmp_path: Path) -> None:
    key = create_key(settings, "alice")
    with TestClient(with_probes(create_app(settings))) as client:
        def principal(token: str) -> Any:
            return client.get("/test/principal",
                              headers={"Authorization": f"Bearer {token}"}).json()["principal"]

        assert principal(ADMIN_TOKEN) == "admin"
        assert principal(key) == "key:alice"
        with client.websocket_connect("/test/ws", headers={"Authorization": f"Bearer {key}"}) as ws:
            assert ws.receive_json() == {"principal": "key:alice"}
        wrong = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
        assert client.get("/test/principal",
                          headers={"Authorization": f"Bearer {wrong}"}).status_code == 401


def test_without_auth_the_principal_is_none(tmp_path: Path) -> None:
    with TestClient(with_probes(create_app(make_settings(tmp_path)))) as client:
        assert client.get("/test/principal").json() == {"principal": None}
        with client.websocket_connect("/test/ws") as ws:
            assert ws.receive_json() == {"principal": None}


def test_a_key_turns_auth_on_and_revoking_every_key_keeps_it_on(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    create_key(settings, "bob")
    revoke_key(settings, "bob")
    with TestClient(with_probes(create_app(settings))) as client:
        assert client.get("/test/principal").status_code == 401


def test_login_sets_an_httponly_strict_cookie_that_opens_http_and_websocket(
        client: TestClient) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    wrong = client.post("/login", content="token=nope", headers=form)
    assert wrong.status_code == 401 and "not valid" in wrong.text
    assert COOKIE not in wrong.cookies
    right = client.post("/login", content=f"token={ADMIN_TOKEN}", headers=form,
                        follow_redirects=False)
    assert right.status_code == 303 and right.headers["location"] == "/"
    cookie = right.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert client.get("/api/tools").status_code == 200  # the client keeps the cookie
    with client.websocket_connect("/test/ws") as ws:
        assert ws.receive_json() == {"principal": "admin"}
    client.post("/logout")
    assert client.get("/api/tools").status_code == 401


def test_keys_are_stored_only_as_a_slow_salted_hash(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    token = create_key(settings, "carol")
    secret = token.split("_", 2)[2]  # shk_<hex id>_<secret>; the secret may hold "_"
    database = settings.data_dir / "shokunin.db"
    with sqlite3.connect(database) as conn:
        rows = conn.execute("SELECT * FROM api_keys").fetchall()
    assert len(rows) == 1
    stored = " ".join(str(value) for value in rows[0])
    assert secret not in stored and token not in stored
    assert re.search(r"scrypt\$\d+\$\d+\$\d+\$", stored)
    for path in settings.data_dir.iterdir():  # the WAL and the file itself, byte for byte
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
