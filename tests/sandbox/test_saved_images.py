"""Image files a cell wrote: new or changed ones only, bounded, never through a link."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from shokunin.sandbox import saved_images
from shokunin.sandbox.saved_images import snapshot, written_images


def test_new_and_changed_images_are_found_with_their_format(tmp_path: Path) -> None:
    (tmp_path / "old.png").write_bytes(b"old")
    (tmp_path / "same.jpg").write_bytes(b"same")
    before = snapshot(tmp_path)
    (tmp_path / "old.png").write_bytes(b"changed!")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "plot.SVG").write_text("<svg/>")
    (tmp_path / "data.csv").write_text("a,b")
    found = {i.path: (i.format, base64.b64decode(i.data_base64)) for i in
             written_images(tmp_path, before)}
    assert found == {"old.png": ("png", b"changed!"), "sub/plot.SVG": ("svg", b"<svg/>")}


def test_at_most_twenty_images_and_ten_megabytes_per_cell(tmp_path: Path) -> None:
    many, big = tmp_path / "many", tmp_path / "big"
    many.mkdir()
    big.mkdir()
    for i in range(25):
        (many / f"f{i:02}.png").write_bytes(b"x" * 10)
    assert len(written_images(many, {})) == saved_images.MAX_IMAGES == 20
    (big / "huge.png").write_bytes(b"x" * (saved_images.MAX_BYTES + 1))
    (big / "small.png").write_bytes(b"x")
    assert [i.path for i in written_images(big, {})] == ["small.png"]


def test_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(b"secret")
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(outside / "secret.png", work / "link.png")
    os.symlink(outside, work / "dir")
    assert written_images(work, {}) == []


def test_no_workspace_no_images() -> None:
    assert snapshot(None) == {} and written_images(None, {}) == []
