"""A URL setting that moves to another host never takes the tool's stored secrets along."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.tools import MASK
from shokunin.tools.settings_store import SettingsStore

SCHEMA = {
    "api_key": {"type": "secret", "default": "", "secret": True},
    "token": {"type": "string", "default": "", "secret": True},
    "base_url": {"type": "string", "default": "https://api.example.com/v1"},
    "host": {"type": "string", "default": ""},
    "label": {"type": "string", "default": ""},
}


@pytest.fixture
def store(tmp_path: Path) -> SettingsStore:
    store = SettingsStore(tmp_path / "settings.json")
    store.save("t", SCHEMA, {"api_key": "sk-admin-key", "token": "tok-admin"})
    return store


def _secrets(store: SettingsStore) -> dict:
    values = store.effective("t", SCHEMA)
    return {"api_key": values["api_key"], "token": values["token"]}


@pytest.mark.parametrize("url", [
    "https://attacker.example.net/v1",
    "http://127.0.0.1:8080/v1",
    "https://api.example.com:8443/v1",  # another port is another service
])
def test_a_base_url_to_another_host_clears_the_stored_secrets(store: SettingsStore,
                                                              url: str) -> None:
    assert store.save("t", SCHEMA, {"base_url": url}) == ["api_key", "token"]
    assert _secrets(store) == {"api_key": "", "token": ""}
    assert store.effective("t", SCHEMA)["base_url"] == url
    assert store.masked("t", SCHEMA)["api_key"] == ""


def test_a_bare_host_setting_counts_as_a_url(store: SettingsStore) -> None:
    assert store.save("t", SCHEMA, {"host": "10.0.0.5"}) == ["api_key", "token"]


def test_secrets_given_in_the_same_save_are_kept(store: SettingsStore) -> None:
    cleared = store.save("t", SCHEMA, {"base_url": "https://other.example.org",
                                       "api_key": "sk-for-other"})
    assert cleared == ["token"]
    assert _secrets(store) == {"api_key": "sk-for-other", "token": ""}


def test_the_mask_is_not_giving_a_secret_anew(store: SettingsStore) -> None:
    assert store.save("t", SCHEMA, {"base_url": "https://other.example.org",
                                    "api_key": MASK, "token": MASK}) == ["api_key", "token"]
    assert _secrets(store) == {"api_key": "", "token": ""}


@pytest.mark.parametrize("values", [
    {"base_url": "https://API.example.com/v2?x=1"},  # same host, other path
    {"base_url": None},  # back to the default, which is the host already used
    {"label": "plain words"},  # not a URL setting
    {"host": ""},
])
def test_the_same_host_keeps_the_secrets(store: SettingsStore, values: dict) -> None:
    assert store.save("t", SCHEMA, values) == []
    assert _secrets(store) == {"api_key": "sk-admin-key", "token": "tok-admin"}


def test_a_value_that_looks_like_a_url_is_a_url_setting(store: SettingsStore) -> None:
    store.save("t", SCHEMA, {"label": "https://a.example.com", "api_key": "k2",
                             "token": "t2"})
    assert store.save("t", SCHEMA, {"label": "https://b.example.com"}) == ["api_key", "token"]


def test_a_rejected_save_clears_nothing(store: SettingsStore) -> None:
    with pytest.raises(Exception, match="unknown"):
        store.save("t", SCHEMA, {"base_url": "https://evil.example", "nope": 1})
    assert _secrets(store) == {"api_key": "sk-admin-key", "token": "tok-admin"}


@pytest.mark.parametrize("key", ["database", "security_level", "ghost", "knowledge_base"])
def test_a_setting_merely_containing_a_url_word_keeps_the_secrets(tmp_path: Path,
                                                                   key: str) -> None:
    schema = {**SCHEMA, key: {"type": "string", "default": "low"}}
    store = SettingsStore(tmp_path / "settings.json")
    store.save("t", schema, {"api_key": "sk-admin-key", "token": "tok-admin"})
    assert store.save("t", schema, {key: "high"}) == []
    assert store.effective("t", schema)["api_key"] == "sk-admin-key"
