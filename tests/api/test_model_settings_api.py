"""The Models page's API (api/model_settings.py): the admin's alone when auth is on; the
key never leaves in clear; the test answers with the failure class's message in the
caller's language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.models import ModelUnreachable
from shokunin.tools import MASK
from tests.api.perimeter.test_auth import ADMIN_TOKEN, create_key, make_settings
from tests.live_server import free_port

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
KEY = "sk-secret-0123456789"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in ("SHOKUNIN_MODEL", "SHOKUNIN_MODEL_BASE_URL", "SHOKUNIN_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return make_settings(tmp_path, auth_token=ADMIN_TOKEN)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_an_api_key_may_neither_read_change_nor_test_them(settings: Settings,
                                                          client: TestClient) -> None:
    key = {"Authorization": f"Bearer {create_key(settings, 'mallory')}",
           "Accept-Language": "ja"}
    for method, path in [("GET", "/api/model/settings"), ("PUT", "/api/model/settings"),
                         ("POST", "/api/model/test")]:
        refused = client.request(method, path, headers=key, json={"values": {
            "provider": "openai", "model": "x", "base_url": "http://127.0.0.1:9/steal"}})
        assert refused.status_code == 403, (method, path)
        assert refused.json()["code"] == "admin_only" and "管理者" in refused.json()["error"]
    assert not (settings.data_dir / "model_settings.json").exists()


def test_the_admin_saves_and_the_key_is_never_sent_back(settings: Settings,
                                                        client: TestClient) -> None:
    values = {"provider": "openai", "model": "qwen2.5",
              "base_url": "http://127.0.0.1:8080/v1", "api_key": KEY}
    saved = client.put("/api/model/settings", headers=ADMIN, json={"values": values})
    assert saved.status_code == 200
    shown = client.get("/api/model/settings", headers=ADMIN)
    for answer in (saved, shown):
        assert KEY not in answer.text
        assert answer.json()["values"]["api_key"] == MASK
        assert answer.json()["restart_needed"] is True  # the running engine opened before
    assert json.loads((settings.data_dir / "model_settings.json").read_text())["model"][
        "api_key"] == KEY


def test_a_refused_field_is_named(client: TestClient) -> None:
    refused = client.put("/api/model/settings", headers=ADMIN,
                         json={"values": {"provider": "openai", "model": ""}})
    assert refused.status_code == 422 and set(refused.json()["errors"]) == {"model"}


@pytest.mark.parametrize(("headers", "language"), [
    ({"Accept-Language": "ja-JP,ja;q=0.9"}, "ja"), ({"Cookie": "shokunin_lang=en"}, "en")])
def test_the_test_says_the_failure_class_in_the_callers_language(
        client: TestClient, headers: dict[str, str], language: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    answer = client.post("/api/model/test", headers={**ADMIN, **headers}, json={"values": {
        "provider": "openai", "model": "gpt-test", "base_url": url, "api_key": KEY}})
    assert answer.status_code == 200
    body = answer.json()
    assert (body["ok"], body["code"], body["latency_ms"]) == (False, "model_unreachable", None)
    assert body["message"] == ModelUnreachable(url).said(language)
    assert body["said"] == {"ja": ModelUnreachable(url).said("ja"),
                            "en": ModelUnreachable(url).said("en")}
    assert KEY not in answer.text


def test_after_a_restart_the_saved_model_is_in_use_not_the_environments(
        settings: Settings) -> None:
    """Review, point 3: saved, the server restarted with only its data folder set: the page
    says the saved model is in use (no environment variable decides), and switching back to
    offline says it takes effect after a restart."""
    values = {"provider": "openai", "model": "qwen2.5",
              "base_url": "http://127.0.0.1:8080/v1", "api_key": KEY}
    with TestClient(create_app(settings)) as before:
        assert before.put("/api/model/settings", headers=ADMIN,
                          json={"values": values}).json()["restart_needed"] is True
    with TestClient(create_app(settings)) as restarted:
        shown = restarted.get("/api/model/settings", headers=ADMIN).json()
        assert shown["environment"] == [] and shown["restart_needed"] is False
        assert shown["in_use"] == {"model": "openai:qwen2.5", "base_url": values["base_url"],
                                   "key_set": True}
        back = restarted.put("/api/model/settings", headers=ADMIN, json={"values": {
            "provider": "offline", "model": "", "base_url": "", "api_key": MASK}}).json()
    assert back["environment"] == [] and back["restart_needed"] is True
    assert back["in_use"]["model"] == "openai:qwen2.5"  # until the restart
    assert back["key_cleared"] == "provider"


def test_a_port_change_keeps_the_key_and_a_new_host_says_it_dropped_it(
        client: TestClient) -> None:
    """Review, point 4: the key field left blank ("change it only to change it")."""
    values = {"provider": "openai", "model": "qwen2.5",
              "base_url": "http://127.0.0.1:8080/v1", "api_key": KEY}
    client.put("/api/model/settings", headers=ADMIN, json={"values": values})
    port = client.put("/api/model/settings", headers=ADMIN, json={"values": {
        **values, "base_url": "http://127.0.0.1:9090/v1", "api_key": MASK}}).json()
    assert port["schema"]["api_key"]["is_set"] is True and port["key_cleared"] is None
    host = client.put("/api/model/settings", headers=ADMIN, json={"values": {
        **values, "base_url": "http://192.0.2.7:9090/v1", "api_key": MASK}}).json()
    assert host["schema"]["api_key"]["is_set"] is False and host["key_cleared"] == "host"
