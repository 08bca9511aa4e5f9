from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from shokunin import config
from shokunin.config import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SETTINGS_PAGE = ROOT / "docs" / "settings.md"


def settings_hook() -> ModuleType:
    """docs/hooks/settings_page.py, the MkDocs hook that writes the settings table."""
    spec = importlib.util.spec_from_file_location(
        "settings_page", ROOT / "docs" / "hooks" / "settings_page.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_settings_page_covers_every_setting_with_its_default() -> None:
    hook = settings_hook()
    assert hook.MARKER in SETTINGS_PAGE.read_text(encoding="utf-8")
    table = hook.settings_table()
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines()
            if line.startswith("| `SHOKUNIN_")}
    assert set(rows) == {f"SHOKUNIN_{name.upper()}" for name in Settings.model_fields}
    for name, field in Settings.model_fields.items():
        row = rows[f"SHOKUNIN_{name.upper()}"]
        assert hook.default_text(field).replace("|", "\\|") in row, row
        assert field.description, f"{name} has no Field(description=...) for the settings page"
    assert "| `SHOKUNIN_PORT` | integer | `8000` |" in table
    assert "| `SHOKUNIN_DATA_DIR` | path | `./data` |" in table
    assert "| `SHOKUNIN_DATABASE_URL` | text | unset |" in table
    # a default computed from this machine is described, not this machine's value
    assert ("| `SHOKUNIN_SANDBOX_MAX_KERNELS` | integer | what the memory holds at 4 times "
            "a kernel's cost") in table


def test_settings_page_in_the_repository_holds_the_current_table() -> None:
    """A reader of the repository (not only of the built site) sees every setting."""
    hook = settings_hook()
    page = SETTINGS_PAGE.read_text(encoding="utf-8")
    assert page == hook.with_table(page), (
        "docs/settings.md's table differs from Settings: run "
        ".venv/bin/python docs/hooks/settings_page.py")
    assert "| `SHOKUNIN_DATA_DIR` | path | `./data` |" in page


def test_readme_copies_no_settings_table() -> None:
    text = README.read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*`SHOKUNIN_\w+`", text, re.MULTILINE)
    assert not rows, f"README copies settings rows by hand: {rows[:3]}; docs/settings.md has them"


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


def test_redis_url_and_namespace_are_read_and_the_url_never_printed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().redis_url is None  # the default: one process, no Redis
    monkeypatch.setenv("SHOKUNIN_REDIS_URL", "redis://:pa55word@redis.internal:6379/2")
    monkeypatch.setenv("SHOKUNIN_REDIS_NAMESPACE", "staging-eu")
    settings = Settings()
    assert settings.redis_url is not None
    assert settings.redis_url.get_secret_value() == "redis://:pa55word@redis.internal:6379/2"
    assert settings.redis_namespace == "staging-eu"
    assert "pa55word" not in repr(settings) and "pa55word" not in str(settings.model_dump())


@pytest.mark.parametrize("namespace", ["", "a:b", "shokunin*", "a b", "x" * 65])
def test_a_redis_namespace_that_would_mix_channels_is_refused(
    monkeypatch: pytest.MonkeyPatch, namespace: str
) -> None:
    # ":" separates the namespace from the channel; glob characters would widen the
    # pattern subscription to other deployments' channels
    monkeypatch.setenv("SHOKUNIN_REDIS_NAMESPACE", namespace)
    with pytest.raises(ValueError, match="redis_namespace"):
        Settings()


def test_the_kernel_cap_follows_what_kernels_cost() -> None:
    """Forked kernels cost 40 MB after a typical cell, cold ones 100 (bench/kernel_density.py):
    the default lets 2.5 times more forked kernels live on the same memory."""
    forked = Settings(sandbox_template=True).sandbox_max_kernels
    cold = Settings(sandbox_template=False).sandbox_max_kernels
    gib = config._memory_gib()  # noqa: SLF001
    assert forked == min(512, max(2, gib * 1024 // 160))
    assert cold == min(512, max(2, gib * 1024 // 400))
    assert forked >= 2 * cold or cold == 2


def test_every_path_setting_is_absolute_once_loaded(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths cross process boundaries (kernels, workers, tools' processes) whose working
    folder is another: each is made absolute from the folder the settings load in (issue
    48: a normal user's kernels looked for 'data/workspaces/<id>' in their own folder)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", '["./tool", "more/tools"]')
    monkeypatch.setenv("SHOKUNIN_KNOWLEDGE_INDEX", "kb/index.sqlite")
    settings = Settings(data_dir=Path("data"))
    paths = {name: getattr(settings, name) for name in Settings.model_fields
             if isinstance(getattr(settings, name), Path | list)}
    flat = [(name, p) for name, v in paths.items()
            for p in (v if isinstance(v, list) else [v]) if isinstance(p, Path)]
    assert {"data_dir", "tools_dirs", "tool_settings_file", "knowledge_index"} <= set(paths)
    assert all(p.is_absolute() for _, p in flat), flat
    assert settings.data_dir == tmp_path.resolve() / "data"
    assert settings.tools_dirs == [tmp_path.resolve() / "tool", tmp_path.resolve() / "more/tools"]
    assert "data_dir" in settings.model_fields_set and "port" not in settings.model_fields_set
