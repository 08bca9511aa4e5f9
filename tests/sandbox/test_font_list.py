"""matplotlib's font list is built once per machine and set of fonts (issue 50, point 2):
a start copies the kept one instead of spending a child process on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shokunin.sandbox import font_list


def test_a_start_copies_the_list_built_once(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    built: list[Path] = []
    real_build = font_list.build

    def build(into: Path) -> None:
        built.append(into)
        real_build(into)

    monkeypatch.setattr(font_list, "build", build)
    font_list.copy_into(tmp_path / "first")
    font_list.copy_into(tmp_path / "second")
    assert len(built) == 1  # the second start copied it
    for start in ("first", "second"):
        (listed,) = (tmp_path / start).glob("fontlist-*.json")
        assert json.loads(listed.read_text())["ttflist"]  # matplotlib's own, with fonts

    monkeypatch.setattr(font_list, "fingerprint", lambda: "other-fonts")
    font_list.copy_into(tmp_path / "third")  # a font added: a new list
    assert len(built) == 2


def test_a_failed_build_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(font_list, "build", lambda into: into.mkdir(exist_ok=True))
    font_list.copy_into(tmp_path / "start")
    assert list((tmp_path / "cache" / "shokunin").iterdir()) == []


def test_a_font_fontconfig_found_elsewhere_makes_a_new_list(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib lists fontconfig's fonts too, from folders of fontconfig's own
    configuration: fc-cache rewriting its cache after a font is added changes the key."""
    caches = tmp_path / "fontconfig"
    caches.mkdir()
    monkeypatch.setattr(font_list, "FONTCONFIG_CACHES", (str(caches),))
    before = font_list.fingerprint()
    assert font_list.fingerprint() == before
    (caches / "new-font-cache-1").write_bytes(b"")  # what fc-cache does
    assert font_list.fingerprint() != before
