"""The Studio's REST face as the seed project's React client uses it (``new-sankaku/toybox``,
``langgraph-studio/`` at 3dbf0a2): the exact bodies it sends and the fields it reads.

The bodies are recorded from the client's source: ``src/views/ProjectView.tsx``
(``handleCreateProject``, ``handleSaveEdit``, ``handleStopProject``,
``handleInitializeProject``, ``handleBrushupProject``) and ``src/services/apiService.ts``;
the fields read from ``src/stores/*Store.ts``, ``WorkflowDiagram.tsx``,
``OutputSummaryGrid.tsx``, ``ActivitySidebar.tsx``, ``LogsView.tsx`` and ``DataView/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.studio.test_studio_rest import approve_all, wait_pending
from tests.live_server import LiveServer
from tests.waiting import wait_until

IDEA = "宇宙ステーションを探索して資源を集めるサバイバルゲーム。"
# handleCreateProject: the form as it is when no platform/scope/scale button was pressed
# (its first render, before /api/config/project-options answered, leaves them "").
CLIENT_CREATE = {
    "name": "NebulaForge",
    "description": IDEA[:50],
    "concept": {"description": IDEA, "platform": "", "scope": "",
                "references": "Astroneer, FTL"},
    "config": {"aiServiceSettings": {}, "scale": "",
               "assetGeneration": {"enableImageGeneration": False,
                                   "enableBGMGeneration": False,
                                   "enableVoiceSynthesis": False,
                                   "enableVideoGeneration": False},
               "contentPermissions": {"violenceLevel": 0, "sexualLevel": 0}},
}
# the same form with the buttons pressed (values from the options this server serves)
CLIENT_CREATE_CHOSEN = {**CLIENT_CREATE,
                        "concept": {**CLIENT_CREATE["concept"], "platform": "desktop",
                                    "scope": "full"},
                        "config": {**CLIENT_CREATE["config"], "scale": "medium"}}
STOP = {"status": "draft"}  # handleStopProject: projectApi.update(id, {status: 'draft'})
BRUSHUP = {  # handleBrushupProject's options
    "selectedAgents": ["concept"], "agentOptions": {},
    "agentInstructions": {"concept": "もっと明るい雰囲気に"}, "clearAssets": False,
    "customInstruction": "", "referenceImageIds": []}


@pytest.fixture
def http(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=20) as client:
        yield client


def created(http: httpx.Client, body: dict[str, Any] = CLIENT_CREATE) -> dict[str, Any]:
    response = http.post("/api/projects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def wait_status(http: httpx.Client, pid: str, status: str) -> dict[str, Any]:
    """The project, once its status is ``status``."""
    def project() -> dict[str, Any] | None:
        found = http.get(f"/api/projects/{pid}").json()
        return found if found["status"] == status else None

    return wait_until(project, 20, what=f"the project {status}")


def completed(http: httpx.Client) -> str:
    pid = created(http, CLIENT_CREATE_CHOSEN)["id"]
    http.post(f"/api/projects/{pid}/start")
    assert approve_all(http, pid)["status"] == "completed"
    return pid


# creating and editing
def test_the_clients_create_form_is_accepted_and_its_own_fields_are_kept(
        http: httpx.Client) -> None:
    project = created(http)
    assert project["concept"] == {**CLIENT_CREATE["concept"], "platform": "web",
                                  "scope": "mvp"}  # an empty choice is the default
    assert project["config"] == CLIENT_CREATE["config"]
    assert http.get(f"/api/projects/{project['id']}").json() == project
    chosen = created(http, CLIENT_CREATE_CHOSEN)
    assert (chosen["concept"]["platform"], chosen["concept"]["scope"]) == ("desktop", "full")
    assert chosen["config"]["scale"] == "medium"


@pytest.mark.parametrize(("change", "field"), [
    ({"concept": {**CLIENT_CREATE["concept"], "platform": "switch"}}, "body.concept.platform"),
    ({"config": {**CLIENT_CREATE["config"], "maxTokensPerAgent": "lots"}},
     "body.config.maxTokensPerAgent"),
    ({"config": {**CLIENT_CREATE["config"], "enableAssetGeneration": [True]}},
     "body.config.enableAssetGeneration"),
    ({"extra": 1}, "body.extra"),
])
def test_the_seeds_own_fields_are_still_checked(
        http: httpx.Client, change: dict[str, Any], field: str) -> None:
    response = http.post("/api/projects", json={**CLIENT_CREATE, **change})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert response.json()["field"].startswith(field)


@pytest.mark.parametrize(("request_", "field", "words"), [
    # handleCreateProject with the name left empty, a blank one, a platform of its own
    (("POST", "/api/projects", {**CLIENT_CREATE, "name": ""}), "body.name",
     ["「プロジェクト名」(name)", "入れて送ってください"]),
    (("POST", "/api/projects", {**CLIENT_CREATE, "name": "  "}), "body.name",
     ["「プロジェクト名」(name)", "空白だけの名前は使えません"]),
    (("POST", "/api/projects", {**CLIENT_CREATE, "concept": {
        **CLIENT_CREATE["concept"], "platform": "switch"}}), "body.concept.platform",
     ["「プラットフォーム」(concept.platform)", "'web', 'desktop' or 'mobile'",
      "のどれかを送ってください"]),
    # CostReportPanel's page, with a month past December
    (("GET", "/api/cost/history?year=2026&month=13&limit=20&offset=0", None), "query.month",
     ["「月」(month)", "12 以下で送ってください"]),
])
def test_a_studio_validation_error_says_in_japanese_which_field_and_what_to_send(
        http: httpx.Client, request_: tuple[str, str, Any], field: str, words: list[str]
        ) -> None:
    method, path, body = request_
    response = http.request(method, path, json=body)
    assert response.status_code == 422
    answer = response.json()  # extractApiError shows data.error to the user
    assert (answer["code"], answer["field"]) == ("invalid_request", field)
    assert ".".join(str(p) for p in answer["errors"][0]["loc"]) == field
    for word in words:
        assert word in answer["error"], answer["error"]
    assert "Input should" not in answer["error"] and "Field required" not in answer["error"]


def test_the_clients_edit_form_saves_a_started_project_it_sends_back_whole(
        http: httpx.Client) -> None:
    project = created(http)
    pid = project["id"]
    http.post(f"/api/projects/{pid}/start")
    wait_pending(http, pid)
    http.post(f"/api/projects/{pid}/pause")
    # handleSaveEdit: {...currentProject.concept, ...} and {...currentProject.config, ...}
    edit = {"name": "NebulaForge 2", "description": IDEA[:50],
            "concept": {**project["concept"], "description": IDEA, "platform": "web",
                        "scope": "mvp", "references": "Astroneer, FTL"},
            "config": {**project["config"], "aiServiceSettings": {}, "scale": "large"}}
    saved = http.patch(f"/api/projects/{pid}", json=edit)
    assert saved.status_code == 200, saved.text
    assert saved.json()["name"] == "NebulaForge 2"
    assert saved.json()["config"]["scale"] == "large"
    changed = http.patch(f"/api/projects/{pid}", json={
        "concept": {**project["concept"], "description": "別のゲーム"}})
    assert changed.status_code == 409 and "draft" in changed.json()["error"]


# the stop, initialize and brush-up buttons
def test_the_stop_button_returns_a_running_project_to_draft_and_a_start_goes_on(
        http: httpx.Client) -> None:
    pid = created(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    [first] = wait_pending(http, pid)
    stopped = http.patch(f"/api/projects/{pid}", json=STOP)
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] == "draft"
    agents = http.get(f"/api/projects/{pid}/agents").json()
    assert "running" not in {a["status"] for a in agents}
    assert http.patch(f"/api/projects/{pid}", json=STOP).json()["status"] == "draft"
    assert http.post(f"/api/projects/{pid}/start").json()["status"] == "running"
    [again] = wait_pending(http, pid)
    assert again["id"] == first["id"]  # what it wrote stays: asked again, not redone
    assert len(http.get(f"/api/agents/{first['agentId']}/outputs").json()) == 1


def test_the_stop_of_a_project_that_does_not_run_is_409(http: httpx.Client) -> None:
    pid = created(http)["id"]
    # a draft stays a draft (nothing to stop); a completed one cannot be stopped
    assert http.patch(f"/api/projects/{pid}", json=STOP).status_code == 200
    done = completed(http)
    response = http.patch(f"/api/projects/{done}", json=STOP)
    assert response.status_code == 409 and "停止できるのは" in response.json()["error"]


def test_a_paused_project_stops_and_a_waiting_one_initializes(http: httpx.Client) -> None:
    pid = created(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    wait_pending(http, pid)
    http.post(f"/api/projects/{pid}/pause")
    assert http.patch(f"/api/projects/{pid}", json=STOP).json()["status"] == "draft"
    http.post(f"/api/projects/{pid}/start")
    wait_pending(http, pid)  # waiting at its checkpoint, its run held open
    project = http.post(f"/api/projects/{pid}/initialize").json()
    assert project["status"] == "draft"
    assert http.get(f"/api/projects/{pid}/checkpoints").json() == []
    assert http.post(f"/api/projects/{pid}/start").json()["status"] == "running"
    [checkpoint] = wait_pending(http, pid)
    assert checkpoint["type"] == "concept_review"


def test_initialize_resets_the_project_and_deletes_its_outputs(http: httpx.Client) -> None:
    pid = completed(http)
    assets = http.get(f"/api/projects/{pid}/assets").json()
    assert assets
    project = http.post(f"/api/projects/{pid}/initialize")
    assert project.status_code == 200, project.text
    assert (project.json()["status"], project.json()["currentPhase"]) == ("draft", 1)
    assert project.json()["concept"]["references"] == "Astroneer, FTL"  # the project stays
    agents = http.get(f"/api/projects/{pid}/agents").json()
    assert len(agents) == 11 and {a["status"] for a in agents} == {"pending"}
    for route in ("checkpoints", "logs", "assets"):
        assert http.get(f"/api/projects/{pid}/{route}").json() == []
    assert http.get(assets[0]["url"]).status_code == 404
    metrics = http.get(f"/api/projects/{pid}/metrics").json()
    assert (metrics["completedTasks"], metrics["totalTokensUsed"]) == (0, 0)
    assert metrics["generationCounts"] == {}
    http.post(f"/api/projects/{pid}/start")
    [checkpoint] = wait_pending(http, pid)
    assert checkpoint["type"] == "concept_review"


def test_brushup_makes_the_chosen_agent_write_again_with_the_instructions(
        http: httpx.Client) -> None:
    pid = completed(http)
    concept = next(a for a in http.get(f"/api/projects/{pid}/agents").json()
                   if a["type"] == "concept")
    response = http.post(f"/api/projects/{pid}/brushup", json=BRUSHUP)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "draft"
    agents = {a["type"]: a for a in http.get(f"/api/projects/{pid}/agents").json()}
    assert agents["concept"]["status"] == "pending" and agents["design"]["status"] == "completed"
    http.post(f"/api/projects/{pid}/start")
    [checkpoint] = wait_pending(http, pid)
    assert checkpoint["agentId"] == concept["id"]
    assert "もっと明るい雰囲気に" in checkpoint["output"]["summary"]
    assert approve_all(http, pid)["status"] == "completed"
    assert len(http.get(f"/api/agents/{concept['id']}/outputs").json()) == 2
    design = agents["design"]["id"]
    assert len(http.get(f"/api/agents/{design}/outputs").json()) == 1  # not chosen: kept


def test_brushup_is_only_for_a_completed_project_and_known_agents(http: httpx.Client) -> None:
    pid = created(http)["id"]
    response = http.post(f"/api/projects/{pid}/brushup", json=BRUSHUP)
    assert response.status_code == 409 and "完了したプロジェクト" in response.json()["error"]
    done = completed(http)
    response = http.post(f"/api/projects/{done}/brushup",
                         json={**BRUSHUP, "selectedAgents": ["painter"]})
    assert response.status_code == 422 and "painter" in response.json()["error"]
    response = http.post(f"/api/projects/{done}/brushup/suggest-images",
                         json={"customInstruction": "", "count": 3})
    assert response.status_code == 501 and "文章" in response.json()["error"]


# what the client reads
def test_project_options_give_the_seeds_platforms_and_scopes(http: httpx.Client) -> None:
    options = http.get("/api/config/project-options").json()
    assert [p["value"] for p in options["platforms"]] == ["web", "desktop", "mobile"]
    assert [s["value"] for s in options["scopes"]] == ["mvp", "full"]
    assert all({"value", "label", "description"} <= set(o)
               for o in options["platforms"] + options["scopes"])
    assert options["defaults"]["platform"] == "web" and options["defaults"]["scope"] == "mvp"
    assert {o["value"] for o in options["scaleOptions"]} == {"small", "medium", "large"}
    assert set(options["projectDefaults"]) == {"assetGeneration", "contentPermissions"}
    assert len(options["violenceRatingOptions"]) == 5  # the form's slider is 0..4


def test_agent_definitions_draw_the_pipeline_so_the_dashboard_counts_its_agents(
        http: httpx.Client) -> None:
    definitions = http.get("/api/agent-definitions").json()
    nodes = [kind for phase in definitions["uiPhases"] for kind in phase["agents"]]
    assert len(nodes) == 11  # WorkflowDiagram's totalCount: 「完了: n/11」, not n/0
    assert {"concept", "code_leader", "reviewer"} <= set(nodes)
    assert {"code_worker", "asset_worker"} <= set(definitions["agents"])  # toasts name them
    concept = definitions["agents"]["concept"]
    assert concept["label"] == "ゲームコンセプト" and concept["phase"] == 1
    assert definitions["workflowDependencies"]["task_split"] == ["scenario", "character",
                                                                 "world"]
    settings = http.get("/api/config/ui-settings").json()
    assert settings["uiPhases"] == definitions["uiPhases"]
    assert settings["checkpointTypeLabels"]["concept_review"] == "コンセプト"
    assert settings["agentRoles"]["code_worker"] == "worker"
    assert http.get("/api/brushup/options").json()["agents"]["concept"] == {"options": []}
    assert http.get("/api/config/websocket").json() == {  # seed 002 section 3
        "maxReconnectAttempts": 5, "reconnectDelay": 1000, "reconnectDelayMax": 5000,
        "timeout": 10000}


def test_a_route_the_studio_does_not_serve_is_a_plain_404(http: httpx.Client) -> None:
    pid = created(http)["id"]
    for method, path in [("GET", f"/api/projects/{pid}/settings/cost"),
                         ("POST", f"/api/projects/{pid}/explode"),
                         ("GET", f"/api/projects/{pid}/start")]:
        response = http.request(method, path)
        assert response.status_code in (404, 405), (method, path)
        assert response.json()["error"]
    # a project's sub-path the Studio does not have is not "method not allowed"
    assert http.get(f"/api/projects/{pid}/settings/cost").status_code == 404


def test_the_provider_monitor_counts_the_agents_at_work(http: httpx.Client) -> None:
    pid = created(http)["id"]
    http.post(f"/api/projects/{pid}/start")
    wait_pending(http, pid)
    [(provider, info)] = http.get("/api/providers/monitor").json().items()
    assert provider == "offline"
    assert info["status"] == "connected" and info["generating"] >= 1
    assert {"failed", "lastChecked", "latency", "errorMessage"} <= set(info)


def test_files_uploaded_as_the_client_sends_them_are_listed_and_served(
        http: httpx.Client) -> None:
    pid = created(http)["id"]
    assert http.get(f"/api/projects/{pid}/files").json() == []
    # fileUploadApi.uploadBatch: FormData with each file under "files"
    batch = http.post(f"/api/projects/{pid}/files/batch", files=[
        ("files", ("企画書.md", "# 企画\n".encode(), "text/markdown")),
        ("files", ("hero.png", b"\x89PNG\r\n", "image/png"))])
    assert batch.status_code == 200, batch.text
    assert (batch.json()["totalUploaded"], batch.json()["totalErrors"]) == (2, 0)
    # fileUploadApi.upload: "file" and "description"; a taken name gets a number
    one = http.post(f"/api/projects/{pid}/files", files={
        "file": ("../hero.png", b"\x89PNG2", "image/png")}, data={"description": "主人公"})
    assert one.status_code == 201, one.text
    assert (one.json()["filename"], one.json()["description"]) == ("hero-2.png", "主人公")
    listed = {f["filename"]: f for f in http.get(f"/api/projects/{pid}/files").json()}
    assert set(listed) == {"企画書.md", "hero.png", "hero-2.png"}
    assert listed["hero.png"]["category"] == "image" and listed["hero.png"]["sizeBytes"] == 6
    assert listed["企画書.md"]["category"] == "document"
    assert http.get(listed["hero-2.png"]["url"]).content == b"\x89PNG2"
    bad = http.post(f"/api/projects/{pid}/files/batch", json={"files": []})
    assert bad.status_code in (400, 415) and bad.json()["error"]


def test_a_whole_run_reads_right_on_the_dashboard_sidebar_logs_and_assets(
        http: httpx.Client) -> None:
    pid = completed(http)
    metrics = http.get(f"/api/projects/{pid}/metrics").json()
    counts = metrics["generationCounts"]  # OutputSummaryGrid's tiles
    assert counts["documents"] == {"count": 8, "unit": "件", "calls": 8}
    assert counts["scenarios"]["count"] == 1 and counts["scenarios"]["unit"] == "本"
    assert counts["code"]["unit"] == "行" and counts["code"]["count"] > 3
    assert counts["images"]["count"] == 3  # scope full: three images
    # ... on the client's own tiles: player and enemy sprites, one stage background
    assert counts["characters"] == {"count": 2, "unit": "体", "calls": 2}
    assert counts["backgrounds"] == {"count": 1, "unit": "枚", "calls": 1}
    assert "ui" not in counts and "effects" not in counts
    logs = http.get(f"/api/projects/{pid}/logs").json()  # LogsView filters on source
    assert {"source", "details"} <= set(logs[0])
    assert {entry["source"] for entry in logs} >= {"concept", "code_worker"}
    assets = http.get(f"/api/projects/{pid}/assets").json()
    assert len(assets) == 3
    for asset in assets:  # the data tab filters on type and approvalStatus
        assert asset["type"] == "image" and asset["outputType"] == "asset_image"
        assert asset["approvalStatus"] == "pending"  # a person judges each one there
        assert asset["size"].endswith(" B") or asset["size"].endswith(" KB")
        image = http.get(asset["url"])
        assert image.status_code == 200
        assert image.headers["content-type"].startswith("image/svg+xml")


def test_optional_seed_fields_are_absent_not_null(http: httpx.Client) -> None:
    project = created(http, {**CLIENT_CREATE, "description": None})
    assert "description" not in project
    pid = project["id"]
    http.post(f"/api/projects/{pid}/start")
    [checkpoint] = wait_pending(http, pid)
    assert "previewUrl" not in checkpoint["output"]
    assert None not in checkpoint["output"].values()
    http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
              json={"resolution": "revision_requested", "feedback": "短く"})
    wait_pending(http, pid)  # the revision is logged without progress or metadata
    for route in (f"/api/agents/{checkpoint['agentId']}/logs", f"/api/projects/{pid}/logs"):
        logs = http.get(route).json()
        assert any("progress" not in e for e in logs)
        assert all(e.get(key, 0) is not None for e in logs for key in ("progress", "metadata"))


def test_the_data_tabs_approve_and_reject_buttons_judge_assets(http: httpx.Client) -> None:
    pid = completed(http)
    first, second, third = http.get(f"/api/projects/{pid}/assets").json()
    # assetApi.updateStatus: PATCH .../assets/<id> {approvalStatus}
    rejected = http.patch(f"/api/projects/{pid}/assets/{first['id']}",
                          json={"approvalStatus": "rejected"})
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["approvalStatus"] == "rejected"
    # assetApi.bulkUpdateStatus: PATCH .../assets/bulk {assetIds, approvalStatus}
    bulk = http.patch(f"/api/projects/{pid}/assets/bulk", json={
        "assetIds": [second["id"], third["id"]], "approvalStatus": "rejected"}).json()
    assert bulk["updated"] == 2 and {a["approvalStatus"] for a in bulk["assets"]} == {
        "rejected"}
    listed = {a["id"]: a["approvalStatus"] for a in
              http.get(f"/api/projects/{pid}/assets").json()}
    assert set(listed.values()) == {"rejected"}
    assert http.patch(f"/api/projects/{pid}/assets/nope",
                      json={"approvalStatus": "approved"}).status_code == 404
    assert http.patch(f"/api/projects/{pid}/assets/{first['id']}",
                      json={"approvalStatus": "maybe"}).status_code == 422
    # assetApi.requestRegeneration: POST .../assets/<id>/regenerate {feedback}
    again = http.post(f"/api/projects/{pid}/assets/{first['id']}/regenerate",
                      json={"feedback": "もっと明るく"})
    assert again.status_code == 501 and "ブラッシュアップ" in again.json()["error"]
