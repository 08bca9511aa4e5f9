"""The rejection path as the seed project's React client takes it (issue 48.5): its Socket.IO
connection with no setting (both forms), its REST calls (``checkpointApi.resolve``,
``agentApi.retry``, ``assetApi.updateStatus``), and what it then shows, read the way its
``websocketService.ts`` reads the events (``toybox_view.py``).

One rejection is one rejected checkpoint and one failed agent, each event naming its agent;
the other branches' checkpoints stay pending; 再試行 writes the rejected work again and the
project goes on; assets wait for a person's verdict in the data tab."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.studio.toybox_view import UNKNOWN, ToyboxView, display_name
from tests.api.studio.watcher import CONCEPT, Watcher
from tests.live_server import LiveServer
from tests.waiting import eventually

SIDE_BY_SIDE = {"scenario_review", "character_review", "world_review"}
NAMED = ("agent:started", "agent:completed", "agent:failed", "agent:retry", "agent:running")


async def pending(http: httpx.AsyncClient, pid: str) -> list[dict[str, Any]]:
    return [c for c in (await http.get(f"/api/projects/{pid}/checkpoints")).json()
            if c["status"] == "pending"]


async def resolve(http: httpx.AsyncClient, checkpoint_id: str, resolution: str,
                  feedback: str | None = None) -> httpx.Response:
    """``checkpointApi.resolve``, as the client's review view sends it."""
    body = {"resolution": resolution} | ({"feedback": feedback} if feedback else {})
    return await http.post(f"/api/checkpoints/{checkpoint_id}/resolve", json=body)


async def agents_of(http: httpx.AsyncClient, pid: str) -> dict[str, dict[str, Any]]:
    return {a["type"]: a for a in (await http.get(f"/api/projects/{pid}/agents")).json()}


async def three_waiting(http: httpx.AsyncClient, watcher: Watcher,
                        concept: dict[str, Any] = CONCEPT) -> tuple[str, dict[str, Any]]:
    """A project the watcher follows, approved until scenario, character and world wait
    side by side: its id and those three checkpoints by type."""
    pid = (await http.post("/api/projects", json={"name": "雨", "concept": concept})).json()[
        "id"]
    await watcher.sio.emit("subscribe:project", pid)  # the client's way: a bare id
    await watcher.wait(lambda: watcher.named("connection:state_sync"))
    await http.post(f"/api/projects/{pid}/start")
    for kind in ("concept_review", "design_review"):
        [checkpoint] = await eventually(lambda: pending(http, pid), 30,
                                        what=f"the {kind} pending")
        assert checkpoint["type"] == kind
        assert (await resolve(http, checkpoint["id"], "approved")).status_code == 200

    async def three() -> dict[str, Any] | None:
        waiting = {c["type"]: c for c in await pending(http, pid)}
        return waiting if set(waiting) == SIDE_BY_SIDE else None

    return pid, await eventually(three, 30, what="scenario, character and world waiting")


async def reject_character(http: httpx.AsyncClient, watcher: Watcher, pid: str,
                           three: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Reject the character's work as the client's reject button does, and wait until the
    run has ended (the last agent, blocked, is told last); the agents by type."""
    response = await resolve(http, three["character_review"]["id"], "rejected", "主人公が弱い")
    assert response.status_code == 200, response.text
    agents = await agents_of(http, pid)
    reviewer = agents["reviewer"]["id"]
    await watcher.wait(lambda: any(e["agentId"] == reviewer
                                   for e in watcher.named("error:agent")))
    return await agents_of(http, pid)


async def test_every_agent_event_of_a_rejection_names_its_agent(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    async with Watcher(live_server.url) as watcher:  # no query: the React client's way
        pid, three = await three_waiting(http, watcher)
        agents = await reject_character(http, watcher, pid, three)
    # every agent event the client names an agent in carries the agent's record
    for name, payload in watcher.events:
        if name in NAMED:
            assert payload["agent"]["id"] == payload["agentId"], name
            assert display_name(payload["agent"]) != UNKNOWN, name
    view = ToyboxView().replay(watcher.events)
    errors = [text for kind, text in view.toasts if kind == "error"]
    assert not [text for text in errors if UNKNOWN in text]
    # one toast for the rejected agent, one for each branch stopped while it waited; none
    # for the agents that never ran (the client has no "blocked": they stay waiting)
    assert sorted(errors) == sorted(f"{display_name(agents[t])} がエラーで停止しました"
                                    for t in ("character", "scenario", "world"))


async def test_the_rejected_agent_shows_failed_with_the_reason_not_running(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    async with Watcher(live_server.url) as watcher:
        pid, three = await three_waiting(http, watcher)
        agents = await reject_character(http, watcher, pid, three)
    view = ToyboxView().replay(watcher.events)
    character = view.agents[agents["character"]["id"]]
    assert character["status"] == "failed"  # not "running 95%"
    assert "主人公が弱い" in character["error"]
    for kind in ("scenario", "world"):
        assert view.agents[agents[kind]["id"]]["status"] == "failed"
    for kind in ("task_split", "code_leader", "reviewer"):
        assert view.agents[agents[kind]["id"]]["status"] == "pending"
    # and over REST, as a reload shows it
    assert agents["character"]["status"] == "failed"
    assert agents["character"]["currentTask"] is None
    assert "主人公が弱い" in agents["character"]["error"]
    assert {agents[t]["status"] for t in ("scenario", "world", "task_split")} == {"blocked"}


async def test_one_rejection_rejects_one_checkpoint_and_the_others_stay_pending(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    async with Watcher(live_server.url) as watcher:
        pid, three = await three_waiting(http, watcher)
        await reject_character(http, watcher, pid, three)
    rejected = [p for p in watcher.named("checkpoint:resolved")
                if p["resolution"] == "rejected"]
    assert [p["checkpointId"] for p in rejected] == [three["character_review"]["id"]]
    statuses = {c["type"]: c["status"]
                for c in (await http.get(f"/api/projects/{pid}/checkpoints")).json()}
    assert statuses["character_review"] == "rejected"
    assert statuses["scenario_review"] == statuses["world_review"] == "pending"
    view = ToyboxView().replay(watcher.events)  # the client's review list agrees
    assert {c["status"] for c in view.checkpoints.values()
            if c["type"] in SIDE_BY_SIDE - {"character_review"}} == {"pending"}
    # the project failed: a pending one is answered after a retry, and the refusal says so
    refused = await resolve(http, three["world_review"]["id"], "approved")
    assert refused.status_code == 409 and "再試行" in refused.json()["error"]
    assert (await http.get(f"/api/projects/{pid}")).json()["status"] == "failed"


async def test_retry_writes_the_rejected_work_again_and_the_project_goes_on(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    async with Watcher(live_server.url) as watcher:
        pid, three = await three_waiting(http, watcher)
        agents = await reject_character(http, watcher, pid, three)
        character = agents["character"]["id"]
        seen = len(watcher.events)
        # agentApi.retry: POST /api/agents/<id>/retry -> {success, agent}
        response = await http.post(f"/api/agents/{character}/retry")
        assert response.status_code == 200, response.text
        assert response.json()["success"] is True
        assert response.json()["agent"]["id"] == character
        assert response.json()["agent"]["status"] in ("pending", "running")

        async def revised() -> list[dict[str, Any]]:
            return [c for c in await pending(http, pid) if c["agentId"] == character]

        [again] = await eventually(revised, 30, what="the character's revised checkpoint")
        assert again["id"] != three["character_review"]["id"]
        assert "(修正 1 回目)" in again["title"]
        assert "主人公が弱い" in again["output"]["summary"]  # the reason, as its feedback
        # the branches that waited wait again, for the same checkpoints
        waiting = {c["id"] for c in await pending(http, pid)}
        assert {three["scenario_review"]["id"], three["world_review"]["id"]} <= waiting
        await watcher.wait(lambda: all(
            a["status"] == "running" for a in ToyboxView().replay(watcher.events)
            .by_type().values() if a["type"] in ("scenario", "world", "character")))
        retried = [p for n, p in watcher.events[seen:] if n == "agent:retry"]
        assert character in {p["agentId"] for p in retried}
        assert {p["previousStatus"] for p in retried} <= {"failed", "blocked"}
        assert any(n == "project:updated" and p["updates"]["status"] == "running"
                   for n, p in watcher.events[seen:])
        # a retry of an agent at work, or of none, is refused
        assert (await http.post(f"/api/agents/{character}/retry")).status_code == 409
        assert (await http.post("/api/agents/nope/retry")).status_code == 404
        for checkpoint in await pending(http, pid):
            await resolve(http, checkpoint["id"], "approved")

        async def finished() -> str | None:
            for checkpoint in await pending(http, pid):
                await resolve(http, checkpoint["id"], "approved")
            status = (await http.get(f"/api/projects/{pid}")).json()["status"]
            return status if status != "running" else None

        assert await eventually(finished, 60, what="the project's end") == "completed"
    final = await agents_of(http, pid)
    assert final["character"]["status"] == "completed" and final["character"]["error"] is None


async def test_assets_wait_for_a_persons_verdict_in_the_data_tab(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    concept = {**CONCEPT, "scope": "full"}  # three images
    async with Watcher(live_server.url) as watcher:
        pid, _ = await three_waiting(http, watcher, concept)

        async def finished() -> str | None:
            for checkpoint in await pending(http, pid):
                # the asset review is sent back once: its images are made again
                again = checkpoint["type"] == "asset_review" and "修正" not in checkpoint[
                    "title"]
                await resolve(http, checkpoint["id"],
                              "revision_requested" if again else "approved",
                              "もっと明るく" if again else None)
            status = (await http.get(f"/api/projects/{pid}")).json()["status"]
            return status if status != "running" else None

        assert await eventually(finished, 60, what="the project's end") == "completed"
    created = [p["asset"] for n, p in watcher.events if n == "asset:created"]
    assert len(created) == 6 and {a["approvalStatus"] for a in created} == {"pending"}
    assert not watcher.named("asset:updated")  # approving a checkpoint judges no file
    # the data tab opens on "pending": each image's latest version is there
    assets = (await http.get(f"/api/projects/{pid}/assets")).json()
    assert len(assets) == 3 and {a["approvalStatus"] for a in assets} == {"pending"}
    assert {a["id"] for a in assets} <= {a["id"] for a in created[3:]}
    first, second, third = assets
    # assetApi.updateStatus and bulkUpdateStatus
    approved = await http.patch(f"/api/projects/{pid}/assets/{first['id']}",
                                json={"approvalStatus": "approved"})
    assert approved.status_code == 200 and approved.json()["approvalStatus"] == "approved"
    bulk = await http.patch(f"/api/projects/{pid}/assets/bulk", json={
        "assetIds": [second["id"], third["id"]], "approvalStatus": "rejected"})
    assert bulk.json()["updated"] == 2
    listed = {a["id"]: a["approvalStatus"]
              for a in (await http.get(f"/api/projects/{pid}/assets")).json()}
    assert listed == {first["id"]: "approved", second["id"]: "rejected",
                      third["id"]: "rejected"}
    old = created[0]["id"]  # a version made again is no longer listed, nor judged
    assert (await http.patch(f"/api/projects/{pid}/assets/{old}",
                             json={"approvalStatus": "approved"})).status_code == 404
