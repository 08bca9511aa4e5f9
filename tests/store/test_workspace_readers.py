"""The server's readers of a workspace outside the HTTP routes (a cell's saved images, a
tool's result files sent over MCP) read through SafeTree: a hard link or a folder swapped
for a link after the check never hands them a file from elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shokunin.mcp.server import content as server_content
from shokunin.sandbox.saved_images import snapshot, written_images

SECRET = b"\x89PNG\r\n\x1a\n root-only bytes the server must not pass on"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret.png"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    path.chmod(0o600)
    return path


def test_a_hard_linked_image_is_not_collected_from_a_cell(tmp_path: Path,
                                                           secret: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    before = snapshot(workspace)
    (workspace / "mine.png").write_bytes(b"\x89PNG\r\n\x1a\n mine")
    os.link(secret, workspace / "chart.png")
    found = written_images(workspace, before)
    assert [image.path for image in found] == ["mine.png"]


def test_a_result_file_whose_folder_became_a_link_is_not_sent(tmp_path: Path,
                                                              secret: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "out").mkdir(parents=True)
    (workspace / "out" / "secret.png").write_bytes(b"checked")
    checked = str((workspace / "out" / "secret.png").resolve())
    (workspace / "out" / "secret.png").unlink()
    (workspace / "out").rmdir()
    (workspace / "out").symlink_to(secret.parent)  # swapped after the registry's check
    [block] = server_content.file_blocks([{"path": checked, "name": "secret.png"}], "r1")
    assert block.type == "text" and "secret.png" in block.text
    assert SECRET.decode(errors="replace") not in block.text


def test_a_hard_linked_result_file_is_not_sent(tmp_path: Path, secret: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.link(secret, workspace / "result.png")
    [block] = server_content.file_blocks([{"path": str(workspace / "result.png")}], "r1")
    assert block.type == "text" and "not a plain file" in block.text
