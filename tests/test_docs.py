"""The documentation site builds with ``mkdocs build --strict``, as CI builds it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FACES = ("workbench", "advisor", "studio", "analyst")

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def test_a_page_per_face_and_guide(site: Path) -> None:
    pages = [f"faces/{face}.html" for face in FACES] + [
        "index.html", "api.html", "mcp.html", "maps.html", "tools/writing-tools.html",
        "operations.html", "sandbox.html", "threat-model.html", "architecture.html",
        "development.html", "settings.html"]
    missing = [page for page in pages if not (site / page).is_file()]
    assert not missing


def test_settings_page_lists_the_settings(site: Path) -> None:
    html = (site / "settings.html").read_text(encoding="utf-8")
    assert html.count("<table>") == 1  # the table, between its markers, once
    for name in ("SHOKUNIN_DATABASE_URL", "SHOKUNIN_MODEL", "SHOKUNIN_AUTH_TOKEN",
                 "SHOKUNIN_SANDBOX_MEMORY_MB", "SHOKUNIN_STUDIO_PIPELINE"):
        assert f"<code>{name}</code>" in html, name
    assert "sqlite+aiosqlite:///&lt;data_dir&gt;/shokunin.db" in html


def test_nothing_is_fetched_from_google_fonts(site: Path) -> None:
    for page in site.rglob("*.html"):
        assert "fonts.googleapis.com" not in page.read_text(encoding="utf-8"), page
