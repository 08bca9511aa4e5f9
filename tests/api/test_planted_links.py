"""Links a kernel plants in its workspace never make the server read outside it.

The kernel owns its thread's workspace, so it can put a symlink or a hard link under any
name there. Each test plants one, as the kernel would (the test process writes the
workspace directly), next to a 0600 file the server can read and the kernel cannot, and
checks that the route answers without the file's bytes.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.live_server import LiveServer

SECRET = b"root-only secret: the server must never serve this"
CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp",
           "genre": "アクション", "targetAudience": "中高生"}
DIAGRAM = "0123456789abcdef.png"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET)
    path.chmod(0o600)
    return path


def workspace(server: LiveServer, thread_id: str) -> Path:
    folder = server.data_dir / "workspaces" / thread_id
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def plant(target: Path, link: Path, kind: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink":
        link.symlink_to(target)
    else:
        os.link(target, link)


def advisor_session(server: LiveServer) -> str:
    answer = httpx.post(f"{server.url}/api/session", json={})
    assert answer.status_code == 200, answer.text
    return answer.json()["session_id"]


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_a_planted_diagram_link_is_neither_listed_nor_served(
        live_server: LiveServer, secret: Path, kind: str) -> None:
    sid = advisor_session(live_server)
    plant(secret, workspace(live_server, sid) / "diagrams" / DIAGRAM, kind)
    latest = httpx.get(f"{live_server.url}/api/diagrams/latest", params={"session_id": sid})
    assert latest.json() == {"diagram": None}
    for params in ({"session_id": sid}, {}):
        answer = httpx.get(f"{live_server.url}/api/diagrams/{DIAGRAM}", params=params)
        assert answer.status_code == 404 and SECRET not in answer.content


def test_a_diagrams_folder_linked_elsewhere_is_not_followed(
        live_server: LiveServer, secret: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / DIAGRAM).write_bytes(SECRET)
    sid = advisor_session(live_server)
    plant(elsewhere, workspace(live_server, sid) / "diagrams", "symlink")
    answer = httpx.get(f"{live_server.url}/api/diagrams/{DIAGRAM}", params={"session_id": sid})
    assert answer.status_code == 404 and SECRET not in answer.content


def studio_project(server: LiveServer) -> str:
    answer = httpx.post(f"{server.url}/api/projects", json={"name": "links", "concept": CONCEPT})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_a_planted_output_link_is_not_served_nor_zipped(
        live_server: LiveServer, secret: Path, kind: str) -> None:
    pid = studio_project(live_server)
    outputs = workspace(live_server, pid) / "outputs"
    (outputs / "src").mkdir(parents=True)
    (outputs / "src" / "main.js").write_text("console.log('ok')")
    plant(secret, outputs / "src" / "leak.js", kind)
    answer = httpx.get(f"{live_server.url}/api/projects/{pid}/files/outputs/src/leak.js")
    assert answer.status_code == 404 and SECRET not in answer.content
    ok = httpx.get(f"{live_server.url}/api/projects/{pid}/files/outputs/src/main.js")
    assert ok.status_code == 200 and ok.text == "console.log('ok')"
    archive = httpx.get(f"{live_server.url}/api/projects/{pid}/outputs.zip")
    assert archive.status_code == 200
    with zipfile.ZipFile(io.BytesIO(archive.content)) as z:
        assert "outputs/src/main.js" in z.namelist()
        assert "outputs/src/leak.js" not in z.namelist()
        assert all(SECRET not in z.read(name) for name in z.namelist())


def test_an_outputs_folder_linked_elsewhere_is_not_zipped(
        live_server: LiveServer, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "deep").mkdir(parents=True)
    (elsewhere / "deep" / "x.txt").write_bytes(SECRET)
    pid = studio_project(live_server)
    plant(elsewhere, workspace(live_server, pid) / "outputs", "symlink")
    archive = httpx.get(f"{live_server.url}/api/projects/{pid}/outputs.zip")
    with zipfile.ZipFile(io.BytesIO(archive.content)) as z:
        assert all(SECRET not in z.read(name) for name in z.namelist())
    answer = httpx.get(f"{live_server.url}/api/projects/{pid}/files/outputs/deep/x.txt")
    assert answer.status_code == 404 and SECRET not in answer.content
