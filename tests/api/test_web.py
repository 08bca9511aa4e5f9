"""GET / and /static/*: the page, content types, and no way out of the web folder."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import web
from shokunin.api.app import create_app
from shokunin.config import Settings
from tests.live_server import LiveServer


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("web")  # the lifespan binds the auth middleware's key store
    settings = Settings(data_dir=root / "data", tools_dirs=[root / "tool"],
                        tool_settings_file=root / "userdata" / "s.json", sandbox_pool_size=0)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_index_is_html(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/app.js">' in response.text


@pytest.mark.parametrize(("path", "types"), [
    ("/static/css/app.css", ("text/css",)),
    ("/static/js/app.js", ("text/javascript", "application/javascript")),
    ("/static/js/map-viewer.js", ("text/javascript", "application/javascript")),
    ("/static/images/icon.svg", ("image/svg+xml",)),
])
def test_static_content_types(client: TestClient, path: str, types: tuple[str, ...]) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] in types


@pytest.mark.parametrize("path", [
    "/static/%2e%2e/api/app.py",
    "/static/%2E%2E/%2E%2E/pyproject.toml",
    "/static/..%2fapi%2fapp.py",
    "/static/css/%2e%2e/%2e%2e/api/web.py",
    "/static//etc/passwd",
    "/static/",
    "/static/js",
    "/static/nope.js",
])
def test_static_refuses_what_is_not_a_web_file(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_literal_dot_dot_is_refused_by_the_real_server(live_server: LiveServer) -> None:
    # httpx normalises "..", so send the raw request line with http.client.
    for path in ("/static/../api/app.py", "/static/js/../../api/web.py"):
        conn = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=10)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        assert response.status == 404, path
        assert b"APIRouter" not in body


def test_resolve_static_stays_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.js").write_text("x")
    (tmp_path / "secret.txt").write_text("s")
    (tmp_path / "web" / "link.txt").symlink_to(tmp_path / "secret.txt")
    root = tmp_path / "web"
    assert web.resolve_static("a.js", root) == (root / "a.js").resolve()
    assert web.resolve_static("../secret.txt", root) is None
    assert web.resolve_static("link.txt", root) is None
    assert web.resolve_static(".", root) is None


def test_missing_page_still_answers_200(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    monkeypatch.setattr(web, "WEB_DIR", tmp_path)
    response = client.get("/")
    assert response.status_code == 200
    assert "not found" in response.text
