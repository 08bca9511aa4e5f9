"""A tool's own web UI through the API: served under the tool's path, behind the perimeter,
sandboxed, with the caller's credentials and the tool's cookies kept apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.api.tools import ui_proxy
from shokunin.config import Settings
from tests.tools.origin_shapes import make_ui_tool

TOKEN = "tok-" + "x" * 40


def _app(tmp_path: Path, **settings: object) -> TestClient:
    tools = tmp_path / "tool"
    make_ui_tool(tools)
    return TestClient(create_app(Settings(
        data_dir=tmp_path / "data", tools_dirs=[tools],
        tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0,
        **settings)))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _app(tmp_path) as test_client:
        yield test_client


def _run(client: TestClient, **headers: str) -> str:
    """Run the UI tool; the path its page is served under (holding the page's secret key)."""
    body = client.post("/api/tools/ui_probe/execute", json={}, headers=headers).json()
    assert body["success"], body
    url = str(body["ui"]["url"])
    prefix = f"/api/tools/ui_probe/ui/{body['run_id']}/"
    assert url.startswith(prefix) and url.endswith("/")
    assert len(url[len(prefix):-1]) >= 32  # the key: unguessable
    return url


def _keyless(url: str) -> str:
    """The page's address without its key: a route like any other."""
    return url.rstrip("/").rsplit("/", 1)[0]


def test_the_page_is_served_under_the_tool_in_a_sandbox(client: TestClient) -> None:
    url = _run(client)
    page = client.get(url)
    assert page.status_code == 200 and "UI OK" in page.text
    csp = page.headers["content-security-policy"]
    assert csp.startswith("sandbox ") and "allow-same-origin" not in csp
    assert "frame-ancestors 'self'" in csp and page.headers["x-frame-options"] == "SAMEORIGIN"
    # the tool's cookie would land on shokunin's origin; the others widen or wipe it
    for dropped in ("set-cookie", "access-control-allow-origin", "clear-site-data"):
        assert dropped not in page.headers
    assert client.get(url.rstrip("/"), follow_redirects=False).headers["location"] == url
    assert client.get(_keyless(url), follow_redirects=False).headers["location"] == url


def test_credentials_and_hop_by_hop_headers_never_reach_the_tool(client: TestClient) -> None:
    url = _run(client)
    seen = client.get(url + "headers?q=1", headers={
        "Authorization": "Bearer secret-token", "Cookie": "shokunin_token=abc",
        "X-Api-Key": "k", "Connection": "keep-alive, x-hop", "X-Hop": "1",
        "Proxy-Authorization": "Basic x", "Accept-Language": "ja"}).json()
    sent = {k.lower(): v for k, v in seen["headers"].items()}
    assert seen["path"] == "/headers?q=1"
    for never in ("authorization", "cookie", "x-api-key", "x-hop", "proxy-authorization"):
        assert never not in sent
    assert sent["accept-language"] == "ja"
    assert sent["host"].startswith("127.0.0.1:")
    assert sent["x-forwarded-prefix"] == url.rstrip("/")
    posted = client.post(url + "echo", content=b'{"a": 1}',
                         headers={"Content-Type": "application/json"})
    assert posted.json() == {"got": '{"a": 1}'}


def test_redirects_stay_under_the_prefix_and_paths_cannot_climb(client: TestClient) -> None:
    url = _run(client)
    moved = client.get(url + "redirect", follow_redirects=False)
    assert moved.status_code == 302 and moved.headers["location"] == url + "headers?from=redirect"
    for climb in ("%2e%2e/%2e%2e/settings", "a/%2e%2e/b", "a%5cb", "%2e/x"):
        refused = client.get(url + climb)
        assert refused.status_code == 400 and refused.json()["code"] == "bad_request"


def test_an_oversized_answer_is_refused(client: TestClient,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    url = _run(client)
    monkeypatch.setattr(ui_proxy, "MAX_RESPONSE_BYTES", 1024 * 1024)
    big = client.get(url + "big")
    assert big.status_code == 502 and big.json()["code"] == "too_large"


def test_stop_ends_the_page_and_unknown_ones_are_404(client: TestClient) -> None:
    url = _run(client)
    run_id = _keyless(url).rsplit("/", 1)[1]
    key = url.rstrip("/").rsplit("/", 1)[1]
    assert client.get(f"/api/tools/probe/ui/{run_id}/{key}/").status_code == 404
    assert client.get("/api/tools/ui_probe/ui/" + "0" * 32 + f"/{key}/").status_code == 404
    assert client.get(f"{_keyless(url)}/{'k' * len(key)}/").status_code == 404
    stopped = client.delete(_keyless(url))
    assert stopped.json() == {"stopped": True, "execution_id": run_id}
    gone = client.get(url)
    assert gone.status_code == 404 and gone.json()["code"] == "not_found"
    assert client.delete(_keyless(url)).status_code == 404


def test_with_auth_on_the_key_alone_opens_the_page_and_nothing_else(tmp_path: Path) -> None:
    """The sandboxed page's own requests carry no login cookie: its address's key lets it
    in; without the key (or with a wrong one) the token is needed as on every route."""
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with _app(tmp_path, auth_token=TOKEN) as client:
        url = _run(client, **bearer)
        page = client.get(url)  # no token: a sub-request of the sandboxed page
        assert page.status_code == 200 and "UI OK" in page.text
        assert client.get(url + "headers").status_code == 200
        wrong = url.rstrip("/").rsplit("/", 1)[0] + "/" + "k" * 32 + "/"
        assert client.get(wrong).status_code == 401
        assert client.get(_keyless(url), follow_redirects=False).status_code == 401
        moved = client.get(_keyless(url), headers=bearer, follow_redirects=False)
        assert moved.status_code == 307 and moved.headers["location"] == url
        assert client.delete(_keyless(url)).status_code == 401


def test_the_sandboxed_page_may_fetch_its_own_api_but_nothing_else(client: TestClient) -> None:
    """A page under ``sandbox`` has an opaque origin: its fetches say ``Origin: null``, which
    only its own address (by its key) lets through."""
    url = _run(client)
    null = {"Origin": "null", "Content-Type": "application/json"}
    own = client.post(url + "echo", content=b'{"a": 1}', headers=null)
    assert own.status_code == 200 and own.json() == {"got": '{"a": 1}'}
    other = client.post("/api/tools/calculator/execute",
                        json={"args": {"expression": "1 + 1"}}, headers=null)
    assert other.status_code == 403 and other.json()["code"] == "forbidden_origin"
    wrong = url.rstrip("/").rsplit("/", 1)[0] + "/" + "k" * 32 + "/echo"
    assert client.post(wrong, content=b"{}", headers=null).status_code == 403


def test_the_pages_own_fetch_may_read_its_answer_cross_origin(client: TestClient) -> None:
    """The browser lets the sandboxed page read an answer only with CORS headers for its
    ``null`` origin, after a preflight for a JSON body (answered here, not by the tool)."""
    url = _run(client)
    asked = client.options(url + "echo", headers={
        "Origin": "null", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, x-custom"})
    assert asked.status_code == 204
    assert asked.headers["access-control-allow-origin"] == "null"
    assert "POST" in asked.headers["access-control-allow-methods"]
    assert asked.headers["access-control-allow-headers"] == "content-type"  # not x-custom
    assert "access-control-allow-credentials" not in asked.headers
    own = client.post(url + "echo", content=b'{"a": 1}', headers={
        "Origin": "null", "Content-Type": "application/json"})
    assert own.headers["access-control-allow-origin"] == "null"
    assert "access-control-allow-origin" not in client.get(url).headers  # no Origin: none


def test_root_absolute_links_of_a_page_written_for_the_root_stay_under_the_prefix(
        client: TestClient) -> None:
    url = _run(client)
    page = client.get(url).text
    assert f'href="{url}headers?from=abs"' in page
    assert 'href="headers"' in page  # a relative one is left alone
    followed = client.get(url + "headers?from=abs").json()
    assert followed["path"] == "/headers?from=abs"


def test_websocket_upgrades_are_not_proxied(client: TestClient) -> None:
    url = _run(client)
    with pytest.raises(Exception), client.websocket_connect(url + "ws"):  # noqa: B017
        pass
