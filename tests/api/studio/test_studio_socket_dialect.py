"""A Studio socket with no setting and no ``?dialect=`` serves both kinds of client: the seed
project's React client, replayed frame by frame as it was recorded (``toybox_socket.json``),
finds every field it reads, and a client written from the seed finds the seed's; the seed's
optional fields are left out rather than ``null`` and its numbers are numbers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from tests.api.studio.watcher import Watcher, new_project
from tests.live_server import LiveServer

CLIENT = json.loads(Path(__file__).with_name("toybox_socket.json").read_text("utf-8"))
MISSING = object()


def at(payload: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(payload, dict) or key not in payload:
            return MISSING
        payload = payload[key]
    return payload


async def replay_the_client(url: str, pid: str, http: httpx.AsyncClient
                            ) -> list[tuple[str, Any]]:
    """The client's recorded frames on a raw Engine.IO WebSocket; its checkpoints approved
    the way its buttons do, until the project is completed. Every event it got, in order."""
    handshake = CLIENT["handshake"]
    events: list[tuple[str, Any]] = []
    resolved: set[str] = set()
    ws_url = url.replace("http", "ws", 1) + handshake["path"] + "?" + handshake["query"]
    async with aiohttp.ClientSession() as session, session.ws_connect(
            ws_url, headers={"Origin": handshake["origin"]}) as ws:
        assert (await ws.receive_str()).startswith("0")  # Engine.IO open
        for frame in CLIENT["sent"]:
            await ws.send_str(frame.replace("<project>", pid))
        await http.post(f"/api/projects/{pid}/start")
        async with asyncio.timeout(60):
            while not any(n == "project:updated" and p["updates"]["status"] == "completed"
                          for n, p in events):
                frame = await ws.receive_str()
                if frame == "2":
                    await ws.send_str("3")
                if not frame.startswith("42"):
                    continue
                name, payload = json.loads(frame[2:])[:2]
                events.append((name, payload))
                if name == "checkpoint:created" and payload["checkpointId"] not in resolved:
                    resolved.add(payload["checkpointId"])
                    how = CLIENT["resolve"]
                    response = await http.request(
                        how["method"], how["path"].replace("<checkpoint>",
                                                           payload["checkpointId"]),
                        json=how["body"])
                    assert response.status_code == 200
    return events


async def test_the_react_client_as_recorded_finds_every_field_it_reads_with_no_setting(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    events = await replay_the_client(live_server.url, pid, http)
    names = {name for name, _ in events}
    # asset:updated comes only when a person judges an asset (not in this story)
    assert set(CLIENT["reads"]) - {"asset:updated"} <= names, set(CLIENT["reads"]) - names
    missing = [(name, path) for name, payload in events
               for path in CLIENT["reads"].get(name, []) if at(payload, path) is MISSING]
    assert not missing, missing[:10]
    # what it reads is what it shows: a name, a number, text, an image
    completed = [p for n, p in events if n == "agent:completed"]
    assert all(p["agent"]["metadata"]["displayName"] for p in completed)
    assert all(isinstance(p["tokensUsed"], int) for n, p in events if n == "agent:progress")
    previews = [p["checkpoint"]["output"]["content"]["text"]
                for n, p in events if n == "checkpoint:created"]
    assert all(isinstance(t, str) and t and not t.lstrip().startswith("{") for t in previews)
    assert any("## " in t for t in previews)  # a document's sections as headings
    assert any("![" in t for t in previews)  # the asset review shows its images
    assets = [p["asset"] for n, p in events if n == "asset:created"]
    assert assets and {a["type"] for a in assets} == {"image"}
    assert {a["approvalStatus"] for a in assets} == {"pending"}
    # the file's real size at once, as the assets listing gives it (not "" until a reload)
    listed = {a["id"]: a["size"] for a in (await http.get(f"/api/projects/{pid}/assets")).json()}
    assert {a["id"]: a["size"] for a in assets} == listed
    assert all(size.endswith((" B", " KB")) for size in listed.values())
    # approving the asset review lets the pipeline go on; each file still waits for a
    # person's verdict in the data tab (which opens on "pending")
    assert "asset:updated" not in names
    assert {a["approvalStatus"] for a in (await http.get(
        f"/api/projects/{pid}/assets")).json()} == {"pending"}
    image = await http.get(assets[0]["url"])
    assert image.status_code == 200 and image.text.lstrip().startswith("<svg")
    assert all(isinstance(p["metrics"]["estimatedRemainingSeconds"], int | float)
               for n, p in events if n == "metrics:update")


async def test_a_seed_client_with_no_dialect_gets_the_seeds_fields_on_the_same_connection(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url) as watcher:  # no query, as the seed's client
        assert await watcher.sio.call("subscribe:project", pid, timeout=10) == {"ok": True}
        await http.post(f"/api/projects/{pid}/start")
        await watcher.wait(lambda: watcher.named("checkpoint:created")
                           and watcher.named("metrics:update"))
    [sync] = watcher.named("connection:state_sync")
    assert {"projectId", "serverState", "hasDiff", "timestamp"} <= set(sync)
    started = watcher.named("agent:started")[0]
    assert {"agentId", "agentType", "projectId", "timestamp"} <= set(started)
    created = watcher.named("checkpoint:created")[0]
    assert {"checkpointId", "projectId", "agentId", "checkpointType", "title",
            "outputPreview", "timestamp"} <= set(created)
    log = watcher.named("agent:log")[0]
    assert log["level"] in ("DEBUG", "INFO", "WARN", "ERROR")
    metrics = watcher.named("metrics:update")[0]
    assert {"totalTokens", "estimatedTotalTokens", "elapsedSeconds",
            "estimatedRemainingSeconds", "completedTasks", "totalTasks"} <= set(metrics)
    assert watcher.named("project:status_changed")[0]["newStatus"] == "running"


async def test_the_seeds_optional_fields_are_left_out_and_its_numbers_are_numbers(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url, "seed") as seed, \
            Watcher(live_server.url, "client") as client:
        for watcher in (seed, client):
            await watcher.sio.call("subscribe:project", pid, timeout=10)
        await http.post(f"/api/projects/{pid}/start")
        for watcher in (seed, client):
            await watcher.wait(lambda w=watcher: w.named("checkpoint:created")
                               and w.named("metrics:update"))
        await client.sio.call("subscribe:project", pid, timeout=10)  # a sync with records
        await client.wait(lambda: len(client.named("connection:state_sync")) == 2)
    # (whether there is anything to estimate from is test_studio_wire.py's)
    assert all(isinstance(m["estimatedRemainingSeconds"], int | float)
               for m in seed.named("metrics:update"))
    assert all(isinstance(m["metrics"]["remainingEstimated"], bool)
               for m in client.named("metrics:update"))
    checkpoint = client.named("checkpoint:created")[0]["checkpoint"]
    assert None not in checkpoint["output"].values()  # previewUrl: absent, not null
    sync = client.named("connection:state_sync")[1]
    assert sync["checkpoints"] and all(None not in c["output"].values()
                                       for c in sync["checkpoints"])
    assert sync["logs"] and all(None not in entry.values() for entry in sync["logs"])
    assert isinstance(sync["metrics"]["estimatedRemainingSeconds"], int | float)
    for name, payload in seed.events:
        if name == "agent:log":
            assert payload.get("metadata", {}) is not None


async def test_the_remaining_time_is_a_number_before_any_agent_finished_over_rest_too(
        fresh_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=fresh_server.url, timeout=10) as http:
        pid = await new_project(http)  # a server with no finished agent to go by
        metrics = (await http.get(f"/api/projects/{pid}/metrics")).json()
    assert metrics["estimatedRemainingSeconds"] == 0
    assert metrics["remainingEstimated"] is False


async def test_an_agents_remaining_time_is_a_number_before_any_agent_finished(
        fresh_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=fresh_server.url, timeout=10) as http:
        pid = await new_project(http)  # a server with no finished agent to go by
        agents = (await http.get(f"/api/projects/{pid}/agents")).json()
        for agent in agents:
            metrics = (await http.get(f"/api/agents/{agent['id']}/metrics")).json()
            assert metrics["estimatedRemainingSeconds"] == 0, agent["type"]
            assert metrics["remainingEstimated"] is False


async def test_the_clients_state_sync_lists_the_projects_interventions(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    sent = (await http.post(f"/api/projects/{pid}/interventions", json={
        "targetType": "all", "priority": "normal", "message": "テスト"})).json()
    async with Watcher(live_server.url) as watcher:  # no query, as the React client
        assert await watcher.sio.call("subscribe:project", pid, timeout=10) == {"ok": True}
        await watcher.wait(lambda: watcher.named("connection:state_sync"))
    [sync] = watcher.named("connection:state_sync")
    assert sync["interventions"] == [sent]  # websocketService.ts sets its list from this
