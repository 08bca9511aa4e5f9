"""Global tool settings belong to the admin: an API key reads them but never changes them,
and a URL setting moved to another host takes no stored secret along (REST and CLI)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from shokunin.api import create_app
from shokunin.cli.app import app as cli_app
from shokunin.config import Settings
from shokunin.tools import MASK
from tests.api.perimeter.test_auth import ADMIN_TOKEN, create_key, make_settings
from tests.tools.conftest import PROBE, make_tool

URL_PROBE = PROBE.replace(
    '"limit": {', '"base_url": {"type": "string", "default": "https://api.example.com"},\n'
    '            "limit": {')
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    make_tool(tmp_path / "tool", "probe", URL_PROBE)
    return make_settings(tmp_path, auth_token=ADMIN_TOKEN)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _stored(settings: Settings) -> dict:
    return json.loads(settings.tool_settings_file.read_text())["probe"]


def test_an_api_key_may_not_change_tool_settings(settings: Settings, client: TestClient) -> None:
    assert client.put("/api/tools/probe/settings", headers=ADMIN,
                      json={"values": {"api_key": "sk-admin"}}).status_code == 200
    key = {"Authorization": f"Bearer {create_key(settings, 'mallory')}"}
    refused = client.put("/api/tools/probe/settings", headers=key, json={"values": {
        "base_url": "http://127.0.0.1:9/steal", "limit": 3}})
    assert refused.status_code == 403
    assert refused.json()["code"] == "admin_only" and "admin" in refused.json()["error"]
    assert _stored(settings) == {"api_key": "sk-admin"}
    shown = client.get("/api/tools/probe/settings", headers=key)  # reading stays open
    assert shown.status_code == 200 and shown.json()["values"]["api_key"] == MASK


def test_the_admin_moving_a_url_to_another_host_clears_the_secret(
        settings: Settings, client: TestClient) -> None:
    client.put("/api/tools/probe/settings", headers=ADMIN, json={"values": {"api_key": "sk-a"}})
    moved = client.put("/api/tools/probe/settings", headers=ADMIN,
                       json={"values": {"base_url": "https://other.example.org"}})
    assert moved.status_code == 200
    assert moved.json() == {"values": {**moved.json()["values"], "api_key": ""},
                            "cleared_secrets": ["api_key"]}
    assert "api_key" not in _stored(settings)
    again = client.put("/api/tools/probe/settings", headers=ADMIN, json={"values": {
        "base_url": "https://third.example.org", "api_key": "sk-for-third"}})
    assert "cleared_secrets" not in again.json() and _stored(settings)["api_key"] == "sk-for-third"


def test_without_auth_the_single_user_changes_settings(tmp_path: Path) -> None:
    make_tool(tmp_path / "tool", "probe", URL_PROBE)
    with TestClient(create_app(make_settings(tmp_path))) as client:
        assert client.put("/api/tools/probe/settings",
                          json={"values": {"limit": 4}}).status_code == 200


def test_the_cli_clears_the_secret_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tool(tmp_path / "tool", "probe", URL_PROBE)
    settings_file = tmp_path / "userdata" / "s.json"
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", json.dumps([str(tmp_path / "tool")]))
    monkeypatch.setenv("SHOKUNIN_TOOL_SETTINGS_FILE", str(settings_file))
    monkeypatch.setenv("COLUMNS", "200")
    cli = CliRunner()
    assert cli.invoke(cli_app, ["tools", "settings", "probe", "--set", "api_key=sk-cli"]
                      ).exit_code == 0
    moved = cli.invoke(cli_app, ["tools", "settings", "probe", "--set",
                                 "base_url=http://10.1.2.3/"])
    assert moved.exit_code == 0 and "cleared" in moved.stdout and "api_key" in moved.stdout
    assert json.loads(settings_file.read_text())["probe"] == {"base_url": "http://10.1.2.3/"}
