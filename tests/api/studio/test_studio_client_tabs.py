"""The seed project's React client's other tabs (``new-sankaku/toybox``,
``langgraph-studio/`` at 3dbf0a2): 連絡 (``src/views/InterventionView.tsx``), an agent's
detail tabs (``src/components/agents/``) and its settings, with the requests as its
``src/services/apiService.ts`` sends them and the fields its ``src/types/`` read."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.studio.test_studio_rest_client import completed, created, http

__all__ = ["http"]  # the fixture, shared

# InterventionView.handleSubmit: "all" sends no targetAgentId (undefined, left out by JSON)
TO_ALL = {"targetType": "all", "priority": "normal", "message": "テスト"}
INTERVENTION_KEYS = {"id", "projectId", "targetType", "targetAgentId", "priority", "message",
                     "attachedFileIds", "status", "responses", "createdAt", "deliveredAt",
                     "acknowledgedAt", "processedAt"}


def test_an_intervention_as_the_client_sends_it_is_kept_and_listed_not_pretended_read(
        http: httpx.Client) -> None:
    pid = created(http)["id"]
    response = http.post(f"/api/projects/{pid}/interventions", json=TO_ALL)
    assert response.status_code == 201, response.text
    sent = response.json()
    assert set(sent) >= INTERVENTION_KEYS
    assert (sent["projectId"], sent["targetType"], sent["message"]) == (pid, "all", "テスト")
    # nobody read it: 送信待ち, never delivered, no agent's answer; its note says why
    assert sent["status"] == "pending" and sent["deliveredAt"] is None
    assert sent["responses"] == [] and "読みません" in sent["note"]
    assert http.get(f"/api/projects/{pid}/interventions").json() == [sent]
    assert http.get(f"/api/interventions/{sent['id']}").json() == sent


def test_an_intervention_to_one_agent_names_an_agent_of_the_project(
        http: httpx.Client) -> None:
    pid = created(http)["id"]
    agent = http.get(f"/api/projects/{pid}/agents").json()[0]
    to_one = {**TO_ALL, "targetType": "specific", "targetAgentId": agent["id"],
              "priority": "urgent"}
    sent = http.post(f"/api/projects/{pid}/interventions", json=to_one).json()
    assert (sent["targetAgentId"], sent["priority"]) == (agent["id"], "urgent")
    wrong = http.post(f"/api/projects/{pid}/interventions",
                      json={**to_one, "targetAgentId": "nobody"})
    assert wrong.status_code == 422 and "エージェント" in wrong.json()["error"]
    empty = http.post(f"/api/projects/{pid}/interventions", json={**TO_ALL, "message": ""})
    assert empty.status_code == 422 and empty.json()["field"] == "body.message"


def test_a_follow_up_is_the_operators_and_a_deleted_intervention_is_gone(
        http: httpx.Client) -> None:
    pid = created(http)["id"]
    sent = http.post(f"/api/projects/{pid}/interventions", json=TO_ALL).json()
    answered = http.post(f"/api/interventions/{sent['id']}/respond",
                         json={"message": "追加です"}).json()
    [reply] = answered["responses"]
    assert (reply["sender"], reply["agentId"], reply["message"]) == ("operator", None, "追加です")
    assert http.delete(f"/api/interventions/{sent['id']}").status_code == 204
    assert http.get(f"/api/projects/{pid}/interventions").json() == []
    assert http.get(f"/api/interventions/{sent['id']}").status_code == 404
    assert http.get("/api/interventions/nothing").status_code == 404




# an agent's detail tabs (AgentAccordionDetail.tsx: sequence, prompt, snapshots)
SEQUENCE_KEYS = {"agentId", "agentType", "participants", "messages", "status",
                 "totalDurationMs", "totalTokens"}
MESSAGE_KEYS = {"id", "from", "to", "type", "label", "timestamp", "tokens", "durationMs",
                "sourceId", "sourceType", "pairId", "model", "cost", "callIndex"}
PROMPT_KEYS = {"agentId", "agentType", "systemPrompt", "systemComponents", "userPrompt",
               "userComponents", "principles", "basePromptFile", "hasQualityFeedback"}


def test_an_agents_sequence_prompt_and_snapshots_come_from_its_records(
        http: httpx.Client) -> None:
    pid = completed(http)
    agents = {a["type"]: a for a in http.get(f"/api/projects/{pid}/agents").json()}
    concept, leader = agents["concept"], agents["code_leader"]

    seq = http.get(f"/api/agents/{concept['id']}/sequence").json()
    assert set(seq) == SEQUENCE_KEYS and seq["status"] == "completed"
    assert all(set(m) == MESSAGE_KEYS for m in seq["messages"])
    ids = {p["id"] for p in seq["participants"]}
    assert all(m["from"] in ids and m["to"] in ids for m in seq["messages"])
    kinds = [m["type"] for m in seq["messages"]]
    assert kinds == ["input", "request", "response", "output", "response"]
    call = seq["messages"][2]
    assert call["model"] == "offline" and call["cost"] == 0 and call["durationMs"] >= 0
    assert seq["messages"][-1]["label"].startswith("承認")

    team = http.get(f"/api/agents/{leader['id']}/workers").json()
    assert team == [a for a in http.get(f"/api/projects/{pid}/agents").json()
                    if a["type"] == "code_worker"]
    assert team and {w["parentAgentId"] for w in team} == {leader["id"]}
    led = http.get(f"/api/agents/{leader['id']}/sequence").json()
    handed = [m for m in led["messages"] if m["type"] == "delegation"]
    assert {m["to"] for m in handed} == {w["id"] for w in team}
    assert all(m["sourceType"] == "agent" for m in handed)

    prompt = http.get(f"/api/agents/{concept['id']}/system-prompt").json()
    assert set(prompt) == PROMPT_KEYS
    # offline: nothing went to a model, and the tab says so before what a model would get
    first = prompt["systemComponents"][0]
    assert first["label"] == "オフラインの頭脳" and "送っていません" in first["content"]
    assert "concept_doc" in prompt["systemComponents"][1]["content"]
    assert [c["label"] for c in prompt["userComponents"]][:2] == ["プロジェクト", "コンセプト"]
    assert http.get(f"/api/agents/{concept['id']}/snapshots").json() == []
    for tab in ("sequence", "system-prompt", "snapshots", "workers"):
        assert http.get(f"/api/agents/nobody/{tab}").status_code == 404


# the settings and data views' other routes (apiService.ts: languagesApi, projectTreeApi,
# aiProviderApi, apiKeyApi, backupApi, archiveApi, autoApprovalApi, getPrinciplesList)
def test_what_the_settings_views_ask_for_is_answered_from_what_shokunin_has(
        http: httpx.Client) -> None:
    pid = completed(http)
    langs = http.get("/api/languages").json()
    assert langs["defaultPrimary"] == "ja" and {"value", "label", "nativeName"} == set(
        langs["languages"][0])
    tree = http.get(f"/api/projects/{pid}/tree").json()
    assert (tree["type"], tree["path"]) == ("directory", "")
    outputs, uploads = tree["children"]
    assert (outputs["name"], uploads["name"]) == ("outputs", "uploads")

    def files(node: dict[str, Any]) -> list[dict[str, Any]]:
        if node["type"] == "file":
            return [node]
        return [f for child in node["children"] for f in files(child)]

    written = {o["filePath"] for o in http.get(f"/api/projects/{pid}/agents").json()
               for o in http.get(f"/api/agents/{o['id']}/outputs").json() if o.get("filePath")}
    found = files(outputs)
    assert written and written <= {f["path"] for f in found}
    assert all(f["size"] > 0 and f["mimeType"] for f in found)
    [provider] = http.get("/api/ai-providers").json()
    assert (provider["id"], provider["models"]) == ("offline", ["offline"])
    assert http.get("/api/api-keys").json() == {}
    assert http.get("/api/backups").json() == {"backups": []}
    assert http.get("/api/archives").json() == {"archives": []}
    assert http.get(f"/api/projects/{pid}/auto-approval-rules").json() == {"rules": []}
    principles = http.get("/api/config/principles").json()
    assert principles["principles"] == [] and len(principles["uiPhases"]) == 3
    assert http.get("/api/projects/nothing/tree").status_code == 404
