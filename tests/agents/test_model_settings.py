"""The Models page's use case (agents/model_settings.py): saved in the data folder as the
tools' secrets are (0600, the key masked when read back, cleared when it would follow the
settings to another host or provider), applied when the engine opens unless the
environment names the model, and tested with the check ``shokunin models test`` runs."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from shokunin.agents.model_settings import FILE_NAME, ModelSettings, apply_saved, environment
from shokunin.config import Settings
from shokunin.models import ModelUnreachable
from shokunin.tools import MASK, SettingsInvalid
from tests.fake_openai import API_KEY, FakeOpenAI
from tests.live_server import free_port

KEY = "sk-secret-0123456789"


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SHOKUNIN_MODEL", "SHOKUNIN_MODEL_BASE_URL", "SHOKUNIN_MODEL_API_KEY",
                 "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


def _stored(settings: Settings) -> dict[str, str]:
    return json.loads((settings.data_dir / FILE_NAME).read_text())["model"]


LOCAL = {"provider": "openai", "model": "qwen2.5", "base_url": "http://127.0.0.1:8080/v1",
         "api_key": KEY}


def test_a_saved_key_is_kept_private_and_never_shown_back(settings: Settings) -> None:
    view = ModelSettings(settings).save(LOCAL)
    assert view["values"] == {**LOCAL, "api_key": MASK}
    assert view["schema"]["api_key"]["is_set"] is True
    assert KEY not in json.dumps(view) and KEY not in json.dumps(ModelSettings(settings).view())
    path = settings.data_dir / FILE_NAME
    assert _stored(settings)["api_key"] == KEY
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # the mask sent back keeps the key
    ModelSettings(settings).save({**LOCAL, "api_key": MASK, "model": "llama3"})
    assert _stored(settings) == {**LOCAL, "model": "llama3"}


def test_a_key_never_follows_the_base_url_to_another_host(settings: Settings) -> None:
    ModelSettings(settings).save(LOCAL)
    moved = ModelSettings(settings).save({"base_url": "https://elsewhere.example.com/v1",
                                          "api_key": MASK})
    assert moved["schema"]["api_key"]["is_set"] is False and "api_key" not in _stored(settings)
    ModelSettings(settings).save({"api_key": "sk-for-elsewhere"})
    assert _stored(settings)["api_key"] == "sk-for-elsewhere"


def test_a_key_never_follows_the_provider(settings: Settings) -> None:
    ModelSettings(settings).save({**LOCAL, "base_url": ""})
    with pytest.raises(SettingsInvalid) as refused:  # no key left for Anthropic: refused
        ModelSettings(settings).save({"provider": "anthropic", "model": "claude-x",
                                      "api_key": MASK})
    assert "SHOKUNIN_MODEL_API_KEY" in refused.value.errors["api_key"]
    assert _stored(settings)["api_key"] == KEY  # a refused save writes nothing
    ModelSettings(settings).save({"provider": "anthropic", "model": "claude-x",
                                  "api_key": "sk-ant-new-key"})
    assert _stored(settings)["api_key"] == "sk-ant-new-key"


def test_a_setting_that_cannot_make_a_model_is_refused_by_field(settings: Settings) -> None:
    with pytest.raises(SettingsInvalid) as refused:
        ModelSettings(settings).save({"provider": "openai", "model": ""})
    assert set(refused.value.errors) == {"model"}
    with pytest.raises(SettingsInvalid) as refused:
        ModelSettings(settings).save({"provider": "gemini", "model": "x"})
    assert set(refused.value.errors) == {"provider"}


def test_saved_settings_apply_when_the_engine_next_opens(settings: Settings) -> None:
    ModelSettings(settings).save(LOCAL)
    assert ModelSettings(settings).view()["restart_needed"] is True  # not before
    opened = apply_saved(settings)
    assert (opened.model, opened.model_base_url) == ("openai:qwen2.5", LOCAL["base_url"])
    assert opened.model_api_key is not None and opened.model_api_key.get_secret_value() == KEY
    assert ModelSettings(opened).view()["restart_needed"] is False
    assert ModelSettings(opened).view()["in_use"] == {
        "model": "openai:qwen2.5", "base_url": LOCAL["base_url"], "key_set": True}


def test_the_environment_decides_while_it_names_the_model(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOKUNIN_MODEL", "offline")
    settings = Settings(data_dir=tmp_path / "data")
    ModelSettings(settings).save(LOCAL)
    assert apply_saved(settings).model == "offline"
    view = ModelSettings(settings).view()
    assert view["environment"] == ["SHOKUNIN_MODEL"] and view["restart_needed"] is False


def test_saved_settings_applied_at_open_are_not_taken_for_the_environment(
        settings: Settings) -> None:
    """Review, point 3: the settings apply_saved makes mark the model fields as set
    (model_copy), which is not the environment setting them."""
    ModelSettings(settings).save(LOCAL)
    opened = apply_saved(settings)  # the server restarted with only SHOKUNIN_DATA_DIR set
    view = ModelSettings(opened).view()
    assert view["environment"] == [] and view["restart_needed"] is False
    assert view["in_use"]["model"] == "openai:qwen2.5"
    back = ModelSettings(opened).save({"provider": "offline", "model": ""})
    assert back["environment"] == [] and back["restart_needed"] is True  # after a restart
    assert apply_saved(settings).model == "offline"


def test_the_environment_is_the_process_environment_or_the_env_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert environment({}, tmp_path / "none.env") == []
    assert environment({"SHOKUNIN_MODEL_API_KEY": "k", "HOME": "/"}, tmp_path / "none.env") == [
        "SHOKUNIN_MODEL_API_KEY"]
    (tmp_path / ".env").write_text("SHOKUNIN_DATA_DIR=/x\nshokunin_model_base_url=http://h/v1\n")
    assert environment({}, tmp_path / ".env") == ["SHOKUNIN_MODEL_BASE_URL"]
    monkeypatch.chdir(tmp_path)  # Settings' own .env, read from the working folder
    assert environment() == ["SHOKUNIN_MODEL_BASE_URL"]
    assert apply_saved(Settings(data_dir=tmp_path / "data")).model == "offline"


def test_a_key_stays_when_only_the_port_changes(settings: Settings) -> None:
    """Review, point 4: the key field left blank (the mask) keeps the key on the same host."""
    ModelSettings(settings).save(LOCAL)
    moved = ModelSettings(settings).save({**LOCAL, "base_url": "http://127.0.0.1:8081/v1",
                                          "api_key": MASK})
    assert moved["key_cleared"] is None and moved["schema"]["api_key"]["is_set"] is True
    assert _stored(settings) == {**LOCAL, "base_url": "http://127.0.0.1:8081/v1"}
    elsewhere = ModelSettings(settings).save({**LOCAL, "base_url": "http://10.0.0.9:8081/v1",
                                              "api_key": MASK})
    assert elsewhere["key_cleared"] == "host" and "api_key" not in _stored(settings)
    ModelSettings(settings).save({"api_key": KEY})
    ollama = ModelSettings(settings).save({"provider": "ollama", "model": "qwen2.5"})
    assert ollama["key_cleared"] == "provider" and "api_key" not in _stored(settings)


def test_saved_settings_that_no_longer_make_a_model_are_left_out(settings: Settings) -> None:
    (settings.data_dir).mkdir(parents=True)
    (settings.data_dir / FILE_NAME).write_text(json.dumps({"model": {
        "provider": "openai", "model": "gpt-4.1-mini"}}))  # no key, no local server
    assert apply_saved(settings).model == "offline"


async def test_the_test_checks_the_form_with_the_stored_key(settings: Settings) -> None:
    with FakeOpenAI() as fake:
        form = {"provider": "openai", "model": "fake-gpt", "base_url": fake.base_url}
        ModelSettings(settings).save({**form, "api_key": API_KEY})
        ok = await ModelSettings(settings).test({**form, "api_key": MASK})
        assert ok.ok and ok.latency_ms is not None and fake.checks == 1
        # the form moved to another host: the stored key is not sent there
        moved = await ModelSettings(settings).test({**form, "base_url": fake.base_url.replace(
            "127.0.0.1", "localhost"), "api_key": MASK})
    assert not moved.ok and "SHOKUNIN_MODEL_API_KEY" in moved.said("en")
    closed = f"http://127.0.0.1:{free_port()}/v1"
    refused = await ModelSettings(settings).test({**form, "base_url": closed, "api_key": "k"})
    assert isinstance(refused.error, ModelUnreachable)
    assert refused.said("ja") == ModelUnreachable(closed).said("ja")
