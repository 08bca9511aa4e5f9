"""The seed project's React client's other tabs (``new-sankaku/toybox``,
``langgraph-studio/`` at 3dbf0a2): 連絡 (``src/views/InterventionView.tsx``), an agent's
detail tabs (``src/components/agents/``) and its settings, with the requests as its
``src/services/apiService.ts`` sends them and the fields its ``src/types/`` read."""

from __future__ import annotations

import httpx

from tests.api.studio.test_studio_rest_client import created, http

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


