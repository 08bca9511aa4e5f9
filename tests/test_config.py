from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_setting_is_documented_in_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [f"SHOKUNIN_{name.upper()}" for name in Settings.model_fields
               if f"`SHOKUNIN_{name.upper()}`" not in text]
    assert not missing, f"README settings table lacks {missing}"


def test_env_prefix_and_types(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SHOKUNIN_PORT", "9123")
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", '["/a", "/b"]')
    settings = Settings()
    assert settings.port == 9123
    assert settings.tools_dirs == [Path("/a"), Path("/b")]
    assert settings.resolved_database_url == f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}"


def test_bad_value_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOKUNIN_PORT", "eighty")
    with pytest.raises(ValueError, match="port"):
        Settings()


def test_api_key_is_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOKUNIN_MODEL_API_KEY", "sk-very-secret")
    settings = Settings()
    assert "sk-very-secret" not in repr(settings) and "sk-very-secret" not in str(
        settings.model_dump())
    assert settings.model_api_key.get_secret_value() == "sk-very-secret"
