"""The HTTP perimeter: Origin checks, declared body types, body limits, nesting, CORS,
security headers, and errors that never show a traceback."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request, WebSocket
from fastapi.testclient import TestClient
from pydantic import BaseModel
from starlette.websockets import WebSocketDisconnect

from shokunin.api import create_app
from tests.api.perimeter.test_auth import every_route, make_settings

EVIL = "https://evil.example"
SAME = "http://testserver"  # TestClient's Host
CALC = "/api/tools/calculator/execute"
CALC_BODY = '{"args": {"expression": "1 + 1"}}'
JSON = {"Content-Type": "application/json"}


class Item(BaseModel):
    name: str


def with_probes(app: FastAPI) -> FastAPI:
    @app.websocket("/test/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"ok": True})
        await websocket.close()

    @app.post("/test/model")
    async def model(item: Item) -> dict:
        return {"name": item.name}

    @app.post("/test/raw")
    async def raw(request: Request) -> dict:
        return {"bytes": len(await request.body())}

    @app.post("/test/upload", openapi_extra={"requestBody": {"content": {
        "multipart/form-data": {"schema": {"type": "object"}}}}})
    async def upload(request: Request) -> dict:
        return {"bytes": len(await request.body())}

    @app.get("/test/boom")
    async def boom() -> dict:
        raise RuntimeError(f"secret detail in {Path(__file__)}")

    return app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(tmp_path, max_body_bytes=1000, max_upload_bytes=5000,
                             allowed_origins=["https://partner.example"])
    with TestClient(with_probes(create_app(settings)), raise_server_exceptions=False) as c:
        yield c


# -- Origin

def test_a_cross_site_websocket_is_refused(client: TestClient) -> None:
    for path in ("/ws", "/test/ws"):
        with (pytest.raises(WebSocketDisconnect) as refused,
              client.websocket_connect(path, headers={"Origin": EVIL}) as ws):
            ws.receive_text()
        assert refused.value.code == 1008 and "forbidden_origin" in refused.value.reason


def test_a_same_origin_or_allowed_websocket_connects(client: TestClient) -> None:
    for origin in (SAME, "https://partner.example"):
        with client.websocket_connect("/test/ws", headers={"Origin": origin}) as ws:
            assert ws.receive_json() == {"ok": True}
    with client.websocket_connect("/ws", headers={"Origin": SAME}) as ws:
        assert ws.receive_json()["type"] == "map_definition"  # the face's greeting


def test_a_cross_site_text_plain_post_is_refused(client: TestClient) -> None:
    text = {"Content-Type": "text/plain;charset=UTF-8"}
    refused = client.post(CALC, content=CALC_BODY, headers=text | {"Origin": EVIL})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden_origin"
    # The same request from a page whose Origin the browser hid is refused by its type.
    hidden = client.post(CALC, content=CALC_BODY, headers=text)
    assert hidden.status_code == 415 and hidden.json()["code"] == "unsupported_media_type"
    untyped = client.post(CALC, content=CALC_BODY)  # a Blob without a type
    assert untyped.status_code == 415
    marked = client.post(CALC, content=CALC_BODY, headers=JSON | {"Sec-Fetch-Site": "cross-site"})
    assert marked.status_code == 403
    null = client.post(CALC, content=CALC_BODY, headers=JSON | {"Origin": "null"})
    assert null.status_code == 403


def test_a_same_origin_json_post_works(client: TestClient) -> None:
    for origin in ({}, {"Origin": SAME}, {"Origin": "https://partner.example"}):
        response = client.post(CALC, content=CALC_BODY, headers=JSON | origin)
        assert response.status_code == 200, response.text
    assert client.post("/test/model", json={"name": "a"}).json() == {"name": "a"}
    assert client.post("/test/model", content='{"name": "a"}',
                       headers={"Content-Type": "text/plain"}).status_code == 415


def test_cors_answers_only_the_allow_list(client: TestClient) -> None:
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    allowed = client.options(CALC, headers=preflight | {"Origin": "https://partner.example"})
    assert allowed.headers.get("access-control-allow-origin") == "https://partner.example"
    other = client.options(CALC, headers=preflight | {"Origin": EVIL})
    assert "access-control-allow-origin" not in other.headers


# -- bodies

def test_a_body_over_the_limit_is_refused_in_json(client: TestClient) -> None:
    response = client.post("/test/raw", content=b"x" * 1001, headers=JSON)
    assert response.status_code == 413 and response.json()["code"] == "too_large"
    assert client.post("/test/raw", content=b"x" * 1000, headers=JSON).json() == {"bytes": 1000}
    over_all = client.post("/test/raw", content=b"x" * 6000, headers=JSON)
    assert over_all.status_code == 413 and over_all.json()["code"] == "too_large"


def test_a_chunked_body_is_counted_as_it_arrives(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(20):
            yield b"x" * 100

    response = client.post("/test/raw", content=chunks(), headers=JSON)
    assert "content-length" not in response.request.headers
    assert response.status_code == 413 and response.json()["code"] == "too_large"


def test_upload_routes_have_their_own_limit(client: TestClient) -> None:
    multipart = {"Content-Type": "multipart/form-data; boundary=x"}
    assert client.post("/test/upload", content=b"x" * 4000, headers=multipart).json() == {
        "bytes": 4000}
    assert client.post("/test/upload", content=b"x" * 5001, headers=multipart).status_code == 413


def _json_routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    for kind, method, path in every_route(app.routes):
        if kind == "http" and method in ("POST", "PUT", "PATCH") and path not in (
                "/login", "/logout", "/test/raw", "/test/upload",
                "/api/analyst/datasets"):  # multipart: JSON is refused with 415
            yield method, path


def test_deeply_nested_json_is_a_client_error_on_every_json_route(tmp_path: Path) -> None:
    with TestClient(with_probes(create_app(make_settings(tmp_path)))) as client:
        _check_nesting(client)


def _check_nesting(client: TestClient) -> None:
    nested = "[" * 50_000 + "]" * 50_000
    nested_object = '{"args": ' + '{"a": ' * 30_000 + "1" + "}" * 30_000 + "}"
    routes = list(_json_routes(client.app))
    assert len(routes) >= 5  # the tools face and a pydantic-model route
    for method, path in routes:
        for body in (nested, nested_object):
            response = client.request(method, path, content=body, headers=JSON)
            assert response.status_code in (400, 404, 409, 422), (method, path, response.text)
            assert "error" in response.json() or "errors" in response.json(), (path, response.text)
    deep = client.post(CALC, content=nested_object, headers=JSON)
    assert deep.status_code == 400 and deep.json()["code"] == "too_deep"


# -- errors and headers

def test_an_unhandled_error_shows_an_id_not_a_traceback(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="shokunin.api.errors"):
        response = client.get("/test/boom")
    assert response.status_code == 500
    body = response.json()
    assert body["error"] == "internal error" and body["code"] == "internal"
    assert "secret detail" not in response.text and "Traceback" not in response.text
    assert "/" not in body["error"] and str(Path(__file__).parent) not in response.text
    logged = [r for r in caplog.records if body["id"] in r.getMessage()]
    assert logged and logged[0].exc_info is not None


def test_every_error_has_a_message_and_a_code(client: TestClient) -> None:
    cases: list[tuple[Any, int, str]] = [
        (client.get("/no/such/route"), 404, "not_found"),
        (client.post("/test/model", json={"nom": 1}), 422, "invalid_request"),
        (client.delete("/health"), 405, "method_not_allowed"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert response.json()["code"] == code and response.json()["error"]


def test_a_rejected_json_body_is_not_held_in_a_cycle(tmp_path: Path) -> None:
    # Until a full collection, which `shokunin serve` runs only once a minute.
    body = b"{" + b"x" * (2 * 1024 * 1024)
    with TestClient(with_probes(create_app(make_settings(tmp_path)))) as client:
        client.post("/test/model", content=body, headers=JSON)  # warm
        gc.collect()
        gc.disable()
        try:
            answer = client.post("/test/model", content=body, headers=JSON)
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            # bytes and str are not tracked: what a cycle holds is among its referents.
            held = [r for o in gc.garbage for r in gc.get_referents(o)
                    if isinstance(r, bytes | str) and len(r) > 1_000_000]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"
    assert held == []


def test_security_headers_and_the_ui_policy(client: TestClient) -> None:
    for response in (client.get("/"), client.get("/api/tools"), client.get("/no/such")):
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self';" in csp
        assert "img-src 'self' data:" in csp  # plots arrive as data: images
    assert "cdn.jsdelivr.net" in client.get("/docs").headers["content-security-policy"]

