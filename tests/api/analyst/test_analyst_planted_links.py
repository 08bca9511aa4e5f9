"""Links a kernel plants in its thread's workspace (issue 34, point 1, the Analyst's part):
the root server must neither read through them (preview) nor write through them (upload).
The test plants them as the kernel would, with plain ``os.symlink``/``os.link`` in the
workspace folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from tests.api.analyst.test_analyst_datasets import _error, _settings, _upload

SECRET = b"root:$6$secret-hash-nobody-may-read:19000:0:99999:7:::\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as client:
        yield client


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A root-only file outside every workspace, a table by its looks."""
    path = tmp_path / "outside" / "shadow.csv"
    path.parent.mkdir()
    path.write_bytes(b"user,hash\n" + SECRET)
    path.chmod(0o600)
    return path


def _workspace(client: TestClient, thread_id: str) -> Path:
    return client.app.state.engine.runner.workspace(thread_id)  # type: ignore[attr-defined]


def _dataset_file(client: TestClient, record: dict[str, object]) -> Path:
    return _workspace(client, str(record["thread_id"])) / str(record["path"])


def _replace_with(path: Path, plant: object) -> None:
    path.unlink()
    plant(path)  # type: ignore[operator]



def _emptied(folder: Path) -> Path:
    """Remove the dataset's folder (as the kernel could), so a link can take its name."""
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    return folder

def test_preview_refuses_a_data_csv_replaced_by_a_symlink(client: TestClient,
                                                          secret: Path) -> None:
    record = _upload(client).json()
    _replace_with(_dataset_file(client, record), lambda p: os.symlink(secret, p))
    response = client.get(f"/api/analyst/datasets/{record['id']}/preview")
    assert b"secret-hash" not in response.content
    assert "not one the server wrote" in _error(response, 400, "unsafe_file")


def test_preview_refuses_a_data_csv_replaced_by_a_hard_link(client: TestClient,
                                                            secret: Path) -> None:
    record = _upload(client).json()
    _replace_with(_dataset_file(client, record), lambda p: os.link(secret, p))
    response = client.get(f"/api/analyst/datasets/{record['id']}/preview")
    assert b"secret-hash" not in response.content
    _error(response, 400, "unsafe_file")


def test_preview_refuses_a_dataset_folder_replaced_by_a_link(client: TestClient,
                                                             secret: Path) -> None:
    record = _upload(client).json()
    folder = _emptied(_dataset_file(client, record).parent)
    (secret.parent / "data.csv").symlink_to(secret)
    os.symlink(secret.parent, folder)
    response = client.get(f"/api/analyst/datasets/{record['id']}/preview")
    assert b"secret-hash" not in response.content
    _error(response, 400, "unsafe_file")


def test_an_upload_is_not_written_through_a_planted_datasets_link(
        client: TestClient, tmp_path: Path) -> None:
    record = _upload(client).json()
    workspace = _workspace(client, record["thread_id"])
    elsewhere = tmp_path / "anywhere"
    elsewhere.mkdir()
    os.rename(workspace / "datasets", workspace / "old-datasets")
    os.symlink(elsewhere, workspace / "datasets")
    response = _upload(client, thread_id=record["thread_id"])
    assert "not a plain folder" in _error(response, 400, "unsafe_file")
    assert list(elsewhere.iterdir()) == []
    assert (workspace / "datasets").is_symlink()  # left as planted, not followed to delete


def test_deleting_a_dataset_does_not_follow_a_planted_link(client: TestClient,
                                                           secret: Path) -> None:
    record = _upload(client).json()
    folder = _emptied(_dataset_file(client, record).parent)
    os.symlink(secret.parent, folder)
    assert client.delete(f"/api/analyst/datasets/{record['id']}").status_code == 204
    assert secret.read_bytes().endswith(SECRET)
