"""The Studio's REST contract (seed 002 section 2): every route, its shapes and codes."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.live_server import LiveServer
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp",
           "genre": "アクション", "targetAudience": "中高生"}
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
PROJECT_KEYS = {"id", "name", "description", "concept", "status", "currentPhase", "state",
                "config", "createdAt", "updatedAt"}
AGENT_KEYS = {"id", "projectId", "type", "status", "progress", "currentTask", "tokensUsed",
              "startedAt", "completedAt", "error", "parentAgentId", "metadata", "createdAt"}
CHECKPOINT_KEYS = {"id", "projectId", "agentId", "type", "title", "description", "output",
                   "status", "feedback", "resolvedAt", "createdAt", "updatedAt"}
METRICS_KEYS = {"projectId", "totalTokensUsed", "estimatedTotalTokens", "elapsedTimeSeconds",
                "estimatedRemainingSeconds", "estimatedEndTime", "completedTasks",
                "totalTasks", "progressPercent", "currentPhase", "phaseName"}


@pytest.fixture
def http(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        yield client


def create(http: httpx.Client, **extra: Any) -> dict[str, Any]:
    response = http.post("/api/projects", json={"name": "雨の街", "concept": CONCEPT, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def wait_pending(http: httpx.Client, pid: str, count: int = 1) -> list[dict[str, Any]]:
    """The project's pending checkpoints, once there are ``count`` of them."""
    def found() -> list[dict[str, Any]] | None:
        pending = [c for c in http.get(f"/api/projects/{pid}/checkpoints").json()
                   if c["status"] == "pending"]
        return pending if len(pending) >= count else None

    return wait_until(found, 20, what=f"{count} pending checkpoint(s)")


def approve_all(http: httpx.Client, pid: str) -> dict[str, Any]:
    """Approve each checkpoint as it comes until the project has ended: the project."""
    def ended() -> dict[str, Any] | None:
        project = http.get(f"/api/projects/{pid}").json()
        if project["status"] != "running":
            return project
        for checkpoint in http.get(f"/api/projects/{pid}/checkpoints").json():
            if checkpoint["status"] == "pending":
                http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
                          json={"resolution": "approved"})
        return None

    return wait_until(ended, 30, what="the project's end")


def test_a_created_project_is_a_draft_in_the_seeds_shape_and_listed(http: httpx.Client) -> None:
    project = create(http, description="説明", config={"llmProvider": "claude",
                                                      "maxTokensPerAgent": 4000})
    assert set(project) == PROJECT_KEYS
    assert project["status"] == "draft" and project["currentPhase"] == 1
    assert project["concept"] == CONCEPT
    assert project["config"] == {"llmProvider": "claude", "maxTokensPerAgent": 4000}
    assert ISO.match(project["createdAt"]) and ISO.match(project["updatedAt"])
    assert http.get(f"/api/projects/{project['id']}").json() == project
    assert project["id"] in [p["id"] for p in http.get("/api/projects").json()]
    agents = http.get(f"/api/projects/{project['id']}/agents").json()
    assert len(agents) == 11 and all(set(a) == AGENT_KEYS for a in agents)
    assert {a["status"] for a in agents} == {"pending"}
    assert http.get(f"/api/projects/{project['id']}/checkpoints").json() == []


@pytest.mark.parametrize(("body", "field"), [
    ({"concept": CONCEPT}, "body.name"),
    ({"name": "x"}, "body.concept"),
    ({"name": "  ", "concept": CONCEPT}, "body.name"),
    ({"name": "x", "concept": {**CONCEPT, "platform": "switch"}}, "body.concept.platform"),
    ({"name": "x", "concept": {**CONCEPT, "scope": None}}, "body.concept.scope"),
    ({"name": "x", "concept": CONCEPT, "owner": "me"}, "body.owner"),
    ({"name": "x", "concept": CONCEPT, "config": {"llmProvider": "llama"}},
     "body.config.llmProvider"),
])
def test_an_invalid_project_is_422_naming_the_field(
        http: httpx.Client, body: dict[str, Any], field: str) -> None:
    response = http.post("/api/projects", json=body)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert response.json()["field"].startswith(field)


def test_unknown_ids_are_404(http: httpx.Client) -> None:
    for method, path in [("GET", "/api/projects/nope"), ("PATCH", "/api/projects/nope"),
                         ("DELETE", "/api/projects/nope"), ("POST", "/api/projects/nope/start"),
                         ("GET", "/api/projects/nope/agents"),
                         ("GET", "/api/projects/nope/metrics"), ("GET", "/api/agents/nope"),
                         ("GET", "/api/agents/nope/logs"), ("GET", "/api/agents/nope/metrics"),
                         ("GET", "/api/checkpoints/nope"),
                         ("POST", "/api/checkpoints/nope/resolve")]:
        body = {"resolution": "approved"} if path.endswith("resolve") else (
            {} if method == "PATCH" else None)
        response = http.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["code"] == "not_found"
    pid = create(http)["id"]
    assert http.post(f"/api/projects/{pid}/explode").status_code == 404


def test_wrong_transitions_are_409_and_right_ones_change_the_status(http: httpx.Client) -> None:
    pid = create(http)["id"]
    for action in ("pause", "resume"):
        response = http.post(f"/api/projects/{pid}/{action}")
        assert response.status_code == 409 and "only from" in response.json()["error"]
    assert http.post(f"/api/projects/{pid}/start").json()["status"] == "running"
    assert http.post(f"/api/projects/{pid}/start").status_code == 409
    patched = http.patch(f"/api/projects/{pid}", json={"concept": {**CONCEPT, "scope": "full"}})
    assert patched.status_code == 409 and "draft" in patched.json()["error"]
    assert http.post(f"/api/projects/{pid}/pause").json()["status"] == "paused"
    assert http.post(f"/api/projects/{pid}/resume").json()["status"] == "running"


def test_patch_changes_only_the_fields_given(http: httpx.Client) -> None:
    project = create(http, description="old")
    pid = project["id"]
    patched = http.patch(f"/api/projects/{pid}", json={"name": "新しい名前"}).json()
    assert patched["name"] == "新しい名前" and patched["description"] == "old"
    patched = http.patch(f"/api/projects/{pid}", json={
        "description": None, "concept": {**CONCEPT, "scope": "full"}}).json()
    assert "description" not in patched and patched["concept"]["scope"] == "full"
    assert http.patch(f"/api/projects/{pid}", json={"status": "completed"}).status_code == 422
    assert http.get(f"/api/projects/{pid}").json()["status"] == "draft"


def test_checkpoints_resolve_in_either_spelling_once(http: httpx.Client) -> None:
    pid = create(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    [checkpoint] = wait_pending(http, pid)
    assert set(checkpoint) == CHECKPOINT_KEYS
    assert checkpoint["type"] == "concept_review" and checkpoint["status"] == "pending"
    assert checkpoint["output"]["documentType"] == "concept_doc"
    assert checkpoint["output"]["content"]["draft"] is True  # offline: marked as a draft
    assert http.get(f"/api/checkpoints/{checkpoint['id']}").json() == checkpoint
    bad = http.post(f"/api/checkpoints/{checkpoint['id']}/resolve", json={"resolution": "ok"})
    assert bad.status_code == 422 and bad.json()["field"].startswith("body.resolution")
    resolved = http.post(f"/api/checkpoints/{checkpoint['id']}/resolve", json={
        "resolution": "revision_requested", "feedback": "短く"}).json()
    assert resolved["status"] == "revision_requested" and resolved["feedback"] == "短く"
    assert ISO.match(resolved["resolvedAt"])
    again = http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
                      json={"resolution": "approved"})
    assert again.status_code == 409
    second = next(c for c in wait_pending(http, pid) if c["id"] != checkpoint["id"])
    socket_spelling = http.post(f"/api/checkpoints/{second['id']}/resolve", json={
        "resolution": "changes_requested", "feedback": "もう一度"}).json()
    assert socket_spelling["status"] == "revision_requested"


def test_agents_logs_outputs_and_metrics_after_a_whole_run(http: httpx.Client) -> None:
    pid = create(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    assert approve_all(http, pid)["status"] == "completed"
    agents = http.get(f"/api/projects/{pid}/agents").json()
    assert len(agents) == 16 and {a["status"] for a in agents} == {"completed"}
    leader = next(a for a in agents if a["type"] == "code_leader")
    workers = [a for a in agents if a["parentAgentId"] == leader["id"]]
    assert [w["type"] for w in workers] == ["code_worker"] * 3
    assert http.get(f"/api/agents/{leader['id']}").json() == leader
    metrics = http.get(f"/api/agents/{leader['id']}/metrics").json()
    assert metrics["totalTasks"] == 3 and metrics["completedTasks"] == 3
    assert len(metrics["subAgentMetrics"]) == 3 and metrics["activeSubAgents"] == 0
    logs = http.get(f"/api/agents/{workers[0]['id']}/logs").json()
    assert logs and {"id", "timestamp", "level", "message"} <= set(logs[0])
    [output] = http.get(f"/api/agents/{workers[0]['id']}/outputs").json()
    assert output["outputType"] == "code" and output["filePath"].startswith("outputs/src/")
    source = http.get(f"/api/projects/{pid}/files/{output['filePath']}")
    assert source.status_code == 200 and "オフライン下書き" in source.text
    figures = http.get(f"/api/projects/{pid}/metrics").json()
    assert set(figures) == METRICS_KEYS | {"generationCounts", "remainingEstimated"}
    assert (figures["completedTasks"], figures["totalTasks"], figures["progressPercent"]) == (
        16, 16, 100.0)
    assert figures["currentPhase"] == 3 and figures["phaseName"] == "Phase 3: 統合・テスト"
    assert figures["estimatedRemainingSeconds"] == 0.0 and figures["elapsedTimeSeconds"] > 0
    project_logs = http.get(f"/api/projects/{pid}/logs").json()
    assert {entry["agentId"] for entry in project_logs} == {a["id"] for a in agents}
    assert http.get(f"/api/projects/{pid}/interventions").json() == []
    assets = http.get(f"/api/projects/{pid}/assets").json()
    assert len(assets) == 2 and all(http.get(a["url"]).status_code == 200 for a in assets)
    archive = zipfile.ZipFile(io.BytesIO(http.get(f"/api/projects/{pid}/outputs.zip").content))
    names = archive.namelist()
    assert "documents/concept_doc.json" in names and "documents/review_result.json" in names
    assert sum(n.startswith("outputs/src/") for n in names) == 3
    assert sum(n.startswith("outputs/assets/") for n in names) == 2


def test_files_outside_the_outputs_are_not_served(http: httpx.Client) -> None:
    pid = create(http)["id"]
    for path in ("%2e%2e/%2e%2e/%2e%2e/etc/passwd", "outputs/%2e%2e/%2e%2e/x",
                 "outputs/..%2fsecret", "../../../etc/passwd"):
        response = http.get(f"/api/projects/{pid}/files/{path}")
        assert response.status_code in (404, 405) and "root:" not in response.text


def test_deleting_a_running_project_cancels_its_run_and_forgets_it(http: httpx.Client) -> None:
    pid = create(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    wait_pending(http, pid)
    assert http.delete(f"/api/projects/{pid}").status_code == 204
    assert http.get(f"/api/projects/{pid}").status_code == 404
    assert pid not in [p["id"] for p in http.get("/api/projects").json()]


def test_the_eta_is_unknown_until_agents_of_a_type_have_finished(
        fresh_server: LiveServer) -> None:
    with httpx.Client(base_url=fresh_server.url, timeout=10) as http:
        first = create(http)["id"]
        http.post(f"/api/projects/{first}/start")
        wait_pending(http, first)
        figures = http.get(f"/api/projects/{first}/metrics").json()
        # no sample, no progress: a number all the same (the seed's type), marked a guess
        assert figures["estimatedRemainingSeconds"] == 0
        assert figures["remainingEstimated"] is False and figures["estimatedEndTime"] is None
        approve_all(http, first)
        second = create(http)["id"]
        http.post(f"/api/projects/{second}/start")
        wait_pending(http, second)
        figures = http.get(f"/api/projects/{second}/metrics").json()
        assert figures["estimatedRemainingSeconds"] > 0
        assert ISO.match(figures["estimatedEndTime"])


def test_a_studio_whose_pipeline_is_broken_answers_503_with_the_reason(tmp_path: Any) -> None:
    broken = tmp_path / "pipeline.yaml"
    broken.write_text("phases: [{number: 1, name: a}]\nagents: [{type: nobody}]\n")
    server = LiveServer(tmp_path / "server",
                        env={"SHOKUNIN_STUDIO_PIPELINE": str(broken)}).start()
    try:
        response = httpx.get(f"{server.url}/api/projects", timeout=10)
        assert response.status_code == 503
        assert response.json()["code"] == "studio_unavailable"
        assert "agents.0" in response.json()["error"]
        assert httpx.get(f"{server.url}/api/playbook", timeout=10).status_code == 200
    finally:
        server.stop()
