"""What later Studio agents read back of a project's outputs is bounded and never follows a
link the workspace's kernel planted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shokunin.agents.studio import session
from shokunin.store.safe_files import SafeTree


def test_outputs_read_back_are_bounded_per_file_and_in_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "MAX_FILE_CHARS", 10)
    monkeypatch.setattr(session, "MAX_TREE_CHARS", 25)
    for name in ("a.txt", "b.txt", "c.txt", "d.txt"):
        (tmp_path / "outputs").mkdir(exist_ok=True)
        (tmp_path / "outputs" / name).write_text(name[0] * 1000)
    found = session._read_tree(SafeTree(tmp_path))  # noqa: SLF001
    assert found == {"a.txt": "a" * 10, "b.txt": "b" * 10, "c.txt": "c" * 5}


def test_a_planted_link_in_the_outputs_is_not_read_back(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root-only")
    (tmp_path / "ws" / "outputs").mkdir(parents=True)
    os.symlink(secret, tmp_path / "ws" / "outputs" / "link.txt")
    os.link(secret, tmp_path / "ws" / "outputs" / "hard.txt")
    assert session._read_tree(SafeTree(tmp_path / "ws")) == {}  # noqa: SLF001
