"""The toybox client's Studio routes keep to their owner: another principal's project is
404 on every one of them, as on the seed's routes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin.api import create_app
from shokunin.config import Settings
from tests.api.runs.test_threads_api import PrincipalFromHeader
from tests.api.studio.test_studio_rest_client import BRUSHUP, CLIENT_CREATE, STOP
from tests.waiting import wait_until

ALICE, BOB = {"x-principal": "key:alice"}, {"x-principal": "key:bob"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, tools_dirs=[],
                              tool_settings_file=tmp_path / "s.json"))
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    with TestClient(app) as client:
        yield client


def test_another_owner_cannot_see_or_change_a_project_through_the_clients_routes(
        client: TestClient) -> None:
    pid = client.post("/api/projects", json=CLIENT_CREATE, headers=ALICE).json()["id"]
    calls = [("GET", f"/api/projects/{pid}/files", None),
             ("GET", f"/api/projects/{pid}/assets", None),
             ("PATCH", f"/api/projects/{pid}", STOP),
             ("POST", f"/api/projects/{pid}/initialize", None),
             ("POST", f"/api/projects/{pid}/brushup", BRUSHUP),
             ("POST", f"/api/projects/{pid}/brushup/suggest-images", {}),
             ("PATCH", f"/api/projects/{pid}/assets/bulk",
              {"assetIds": ["x"], "approvalStatus": "approved"}),
             ("PATCH", f"/api/projects/{pid}/assets/x", {"approvalStatus": "approved"}),
             ("POST", f"/api/projects/{pid}/assets/x/regenerate", {"feedback": "x"}),
             # the settings panels and 再試行
             ("GET", f"/api/projects/{pid}/settings/usage-categories", None),
             ("GET", f"/api/projects/{pid}/settings/advanced", None),
             ("GET", f"/api/projects/{pid}/settings/principles", None),
             ("GET", f"/api/projects/{pid}/settings/output", None),
             ("DELETE", f"/api/projects/{pid}/settings/usage-categories/agents", None),
             ("PUT", f"/api/projects/{pid}/settings/output", {"default_dir": "/x"})]
    agent = client.get(f"/api/projects/{pid}/agents", headers=ALICE).json()[0]["id"]
    calls.append(("POST", f"/api/agents/{agent}/retry", None))
    for method, path, body in calls:
        response = client.request(method, path, json=body, headers=BOB)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["code"] == "not_found"
    refused = client.post(f"/api/projects/{pid}/files/batch", headers=BOB,
                          files=[("files", ("a.txt", b"a", "text/plain"))])
    assert refused.status_code == 404
    assert client.get(f"/api/projects/{pid}/files", headers=ALICE).json() == []
    assert client.post(f"/api/projects/{pid}/initialize", headers=ALICE).status_code == 200


def test_the_provider_monitor_counts_only_the_callers_agents(client: TestClient) -> None:
    pid = client.post("/api/projects", json=CLIENT_CREATE, headers=ALICE).json()["id"]
    client.post(f"/api/projects/{pid}/start", headers=ALICE)
    mine = client.get("/api/providers/monitor", headers=ALICE).json()["offline"]
    theirs = client.get("/api/providers/monitor", headers=BOB).json()["offline"]
    assert (theirs["generating"], theirs["failed"]) == (0, 0)
    assert mine["status"] == theirs["status"] == "connected"


def test_the_data_panels_counts_are_only_the_callers(client: TestClient) -> None:
    pid = client.post("/api/projects", json=CLIENT_CREATE, headers=ALICE).json()["id"]
    client.post(f"/api/projects/{pid}/start", headers=ALICE)
    logs = wait_until(lambda: client.get(f"/api/projects/{pid}/logs", headers=ALICE).json(),
                      20, what="a log entry of the run")
    mine = client.get("/api/archive/stats", headers=ALICE).json()["total"]["agent_logs"]
    theirs = client.get("/api/archive/stats", headers=BOB).json()["total"]["agent_logs"]
    assert mine >= len(logs) > 0 and theirs == 0

