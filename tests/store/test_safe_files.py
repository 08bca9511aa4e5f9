"""SafeTree: names below a trusted folder never reach outside it, however the tree's owner
(a kernel) laid links in it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shokunin.store import safe_files
from shokunin.store.safe_files import SafeTree, UnsafePath


@pytest.fixture(params=["openat2", "per-component"])
def tree(request: pytest.FixtureRequest, tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> SafeTree:
    if request.param == "per-component":
        monkeypatch.setattr(safe_files, "_openat2_works", False)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    (tmp_path / "ws").mkdir()
    return SafeTree(tmp_path / "ws")


def test_plain_files_are_written_read_and_listed(tree: SafeTree) -> None:
    tree.write_bytes("a/b/c.txt", b"hello")
    tree.replace("a/d.txt", b"atomic")
    assert tree.read_bytes("a/b/c.txt") == b"hello"
    assert tree.files() == ["a/b/c.txt", "a/d.txt"]
    assert tree.is_file("a/d.txt") and not tree.is_file("a")
    tree.remove_tree("a")
    assert tree.files() == []


def test_a_symlinked_file_is_refused_not_followed(tree: SafeTree) -> None:
    secret = tree.root.parent / "outside" / "secret.txt"
    os.symlink(secret, tree.root / "data.csv")
    with pytest.raises(UnsafePath):
        tree.read_bytes("data.csv")
    with pytest.raises(UnsafePath):
        tree.write_bytes("data.csv", b"overwritten")
    assert secret.read_text() == "secret"
    assert not tree.is_file("data.csv")


def test_a_symlinked_folder_on_the_way_is_refused_for_reads_and_writes(tree: SafeTree) -> None:
    outside = tree.root.parent / "outside"
    os.symlink(outside, tree.root / "datasets")
    with pytest.raises(UnsafePath):
        tree.read_bytes("datasets/secret.txt")
    with pytest.raises(UnsafePath):
        tree.write_bytes("datasets/new/data.csv", b"x")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_hard_link_to_a_file_elsewhere_is_refused(tree: SafeTree) -> None:
    os.link(tree.root.parent / "outside" / "secret.txt", tree.root / "copy.txt")
    with pytest.raises(UnsafePath, match="not a plain file"):
        tree.read_bytes("copy.txt")


def test_a_fifo_is_refused_without_hanging(tree: SafeTree) -> None:
    os.mkfifo(tree.root / "pipe.csv")
    with pytest.raises(UnsafePath):
        tree.read_bytes("pipe.csv")


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside/secret.txt", "a/../../x", "",
                                  "a\\b", "a\0b"])
def test_names_that_leave_the_tree_are_refused(tree: SafeTree, name: str) -> None:
    with pytest.raises(UnsafePath):
        tree.read_bytes(name)


def test_links_are_skipped_by_listing_and_removed_not_followed(tree: SafeTree) -> None:
    outside = tree.root.parent / "outside"
    (tree.root / "out").mkdir()
    (tree.root / "out" / "ok.txt").write_text("ok")
    os.symlink(outside, tree.root / "out" / "dir-link")
    os.symlink(outside / "secret.txt", tree.root / "out" / "file-link")
    assert tree.files() == ["out/ok.txt"]
    tree.remove_tree("out")
    assert (outside / "secret.txt").read_text() == "secret"
    assert not (tree.root / "out").exists()


def test_a_read_is_bounded(tree: SafeTree) -> None:
    tree.write_bytes("big.bin", b"x" * 100)
    with pytest.raises(UnsafePath, match="larger"):
        tree.read_bytes("big.bin", limit=10)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file of another owner")
def test_a_file_of_a_foreign_owner_is_refused(tree: SafeTree) -> None:
    tree.write_bytes("theirs.txt", b"x")
    os.chown(tree.root / "theirs.txt", 4242, 4242)
    with pytest.raises(UnsafePath, match="another user"):
        tree.read_bytes("theirs.txt")


def test_read_resolved_refuses_a_folder_that_became_a_link(tree: SafeTree) -> None:
    (tree.root / "sub").mkdir()
    (tree.root / "sub" / "secret.txt").write_text("mine")
    checked = tree.root.resolve() / "sub" / "secret.txt"
    assert safe_files.read_resolved(checked) == b"mine"
    (tree.root / "sub" / "secret.txt").unlink()
    (tree.root / "sub").rmdir()
    os.symlink(tree.root.parent / "outside", tree.root / "sub")  # swapped after the check
    with pytest.raises(UnsafePath):
        safe_files.read_resolved(checked)


def test_a_linked_sub_folder_lists_nothing_but_a_linked_root_is_refused(
        tree: SafeTree, tmp_path: Path) -> None:
    os.symlink(tmp_path / "outside", tree.root / "outputs")
    assert tree.files("outputs") == []
    os.symlink(tmp_path / "outside", tmp_path / "root-link")
    with pytest.raises(UnsafePath):
        SafeTree(tmp_path / "root-link").files()
