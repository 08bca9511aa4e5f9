"""The Studio's Socket.IO face, with python-socketio's AsyncClient against a real server:
subscribe and state sync, a whole pipeline's events in order, resolving by socket and by
REST, pause and resume, both dialects, and bad input."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp
import httpx
import pytest
import socketio

from tests.api.studio.watcher import Watcher, new_project
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def ended(watcher: Watcher, status: str, dialect: str = "seed") -> bool:
    if dialect == "client":
        return any(u["updates"]["status"] == status for u in watcher.named("project:updated"))
    return any(s["newStatus"] == status for s in watcher.named("project:status_changed"))


@pytest.mark.parametrize("transport", ["websocket", "polling"])
async def test_subscribing_sends_a_state_sync_of_the_project(
        live_server: LiveServer, http: httpx.AsyncClient, transport: str) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url, transport=transport) as watcher:
        ack = await watcher.sio.call("subscribe:project", pid, timeout=10)
        assert ack == {"ok": True}
        await watcher.wait(lambda: watcher.named("connection:state_sync"))
        [sync] = watcher.named("connection:state_sync")
        assert sync["projectId"] == pid and sync["hasDiff"] is True
        assert sync["serverState"] == {"currentAgent": "", "progress": 0.0,
                                       "completedTasks": 0, "totalTasks": 11}
        assert ISO.match(sync["timestamp"])
        await watcher.sio.call("subscribe:project", pid, timeout=10)  # again: nothing new
        await watcher.wait(lambda: len(watcher.named("connection:state_sync")) == 2)
        assert watcher.named("connection:state_sync")[1]["hasDiff"] is False


async def test_bad_subscriptions_and_resolutions_get_error_state_and_the_socket_goes_on(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url) as watcher:
        for bad in ("no-such-project", 42, None, {"x": 1}):
            ack = await watcher.sio.call("subscribe:project", bad, timeout=10)
            assert ack["ok"] is False
        ack = await watcher.sio.call("checkpoint:resolve", {"checkpointId": "x",
                                                            "resolution": "maybe"}, timeout=10)
        assert ack["ok"] is False and ack["error"].startswith("resolution:")
        ack = await watcher.sio.call("checkpoint:resolve", {"checkpointId": "nope",
                                                            "resolution": "approved"}, timeout=10)
        assert ack == {"ok": False, "error": "no checkpoint 'nope'"}
        errors = watcher.named("error:state")
        assert [e["errorType"] for e in errors] == ["sync_failed"] * 4 + ["checkpoint_failed"] * 2
        assert all(ISO.match(e["timestamp"]) for e in errors)
        assert (await watcher.sio.call("subscribe:project", pid, timeout=10)) == {"ok": True}


async def test_a_bad_dialect_is_refused_at_connect(live_server: LiveServer) -> None:
    client = socketio.AsyncClient(reconnection=False)
    reasons: list[Any] = []
    client.on("connect_error", reasons.append)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(live_server.url + "?dialect=klingon", transports=["websocket"],
                             wait_timeout=10)
    assert reasons == [{"message": "unknown dialect 'klingon': use seed, client or both"}]


async def run_to_the_end(watcher: Watcher, http: httpx.AsyncClient, pid: str,
                         dialect: str = "seed") -> None:
    """Approve every checkpoint as it is created: by socket and by REST in turn."""
    resolved: set[str] = set()
    by_socket = True
    async with asyncio.timeout(30):
        while not ended(watcher, "completed", dialect):
            for created in watcher.named("checkpoint:created"):
                cid = created["checkpointId"]
                if cid in resolved:
                    continue
                resolved.add(cid)
                if by_socket:
                    ack = await watcher.sio.call("checkpoint:resolve", {
                        "checkpointId": cid, "resolution": "approved"}, timeout=10)
                    assert ack["ok"] is True and ack["checkpoint"]["status"] == "approved"
                else:
                    response = await http.post(f"/api/checkpoints/{cid}/resolve",
                                               json={"resolution": "approved"})
                    assert response.status_code == 200
                by_socket = not by_socket
            await asyncio.sleep(0.02)


async def test_a_whole_pipeline_streams_its_events_in_order(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url, "seed") as watcher:
        await watcher.sio.call("subscribe:project", pid, timeout=10)
        assert (await http.post(f"/api/projects/{pid}/start")).status_code == 200
        await run_to_the_end(watcher, http, pid)
        await watcher.wait(lambda: watcher.named("metrics:update") and watcher.named(
            "metrics:update")[-1]["completedTasks"] == 16)
    names = [event for event, _ in watcher.events]
    assert names[0] == "connection:state_sync"
    assert names.index("project:status_changed") < names.index("agent:started")
    started = {e["agentId"]: i for i, (n, e) in enumerate(watcher.events)
               if n == "agent:started"}
    completed = {e["agentId"]: i for i, (n, e) in enumerate(watcher.events)
                 if n == "agent:completed"}
    assert set(started) == set(completed) and len(completed) == 16  # 11 + 3 + 2 workers
    assert all(started[a] < completed[a] for a in completed)
    created = [e["checkpointId"] for e in watcher.named("checkpoint:created")]
    resolved = [e for e in watcher.named("checkpoint:resolved")]
    assert len(created) == 11 and [r["checkpointId"] for r in resolved] == created
    assert {r["resolution"] for r in resolved} == {"approved"}
    first = watcher.named("checkpoint:created")[0]
    assert set(first) == {"checkpointId", "projectId", "agentId", "checkpointType", "title",
                          "outputPreview", "timestamp"}
    assert first["checkpointType"] == "concept_review" and first["outputPreview"]
    phases = [(p["phase"], p["phaseName"]) for p in watcher.named("project:phase_changed")]
    assert phases == [(2, "Phase 2: 実装"), (3, "Phase 3: 統合・テスト")]
    statuses = [(s["oldStatus"], s["newStatus"])
                for s in watcher.named("project:status_changed")]
    assert statuses == [("draft", "running"), ("running", "completed")]
    log = watcher.named("agent:log")[0]
    assert log["level"] in ("DEBUG", "INFO", "WARN", "ERROR") and log["message"]
    progress = watcher.named("agent:progress")[0]
    assert set(progress) == {"agentId", "progress", "currentTask", "completedTasks",
                             "totalTasks", "timestamp"}
    done = watcher.named("agent:completed")[0]
    assert set(done) == {"agentId", "duration", "tokensUsed", "outputSummary", "timestamp"}
    assert all(ISO.match(data["timestamp"]) for _, data in watcher.events)


async def test_pause_and_resume_are_told_to_subscribers(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url) as watcher:
        await watcher.sio.call("subscribe:project", pid, timeout=10)
        await http.post(f"/api/projects/{pid}/start")
        await watcher.wait(lambda: watcher.named("checkpoint:created"))
        assert (await http.post(f"/api/projects/{pid}/pause")).json()["status"] == "paused"
        paused = await http.post(f"/api/projects/{pid}/pause")
        assert paused.status_code == 409 and paused.json()["code"] == "conflict"
        [created] = watcher.named("checkpoint:created")
        await watcher.sio.call("checkpoint:resolve", {
            "checkpointId": created["checkpointId"], "resolution": "changes_requested",
            "feedback": "もっと暗く"}, timeout=10)
        await watcher.wait(lambda: any(  # the change asked for, logged
            "修正を依頼されました" in json.dumps(log, ensure_ascii=False)
            for log in watcher.named("agent:log")))
        await asyncio.sleep(0.1)  # no event says nothing starts: a short look
        assert len(watcher.named("checkpoint:created")) == 1  # paused: nothing new starts
        assert (await http.post(f"/api/projects/{pid}/resume")).json()["status"] == "running"
        await watcher.wait(lambda: len(watcher.named("checkpoint:created")) == 2)
    statuses = [(s["oldStatus"], s["newStatus"])
                for s in watcher.named("project:status_changed")]
    assert statuses == [("draft", "running"), ("running", "paused"), ("paused", "running")]
    [resolved] = watcher.named("checkpoint:resolved")
    assert resolved["resolution"] == "changes_requested" and resolved["feedback"] == "もっと暗く"
    assert "もっと暗く" in watcher.named("checkpoint:created")[1]["outputPreview"]


async def test_the_client_dialect_sends_the_react_clients_nested_payloads(
        live_server: LiveServer, http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    async with Watcher(live_server.url, "client") as watcher, \
            Watcher(live_server.url, "seed") as seed:
        await watcher.sio.call("subscribe:project", pid, timeout=10)
        await seed.sio.call("subscribe:project", pid, timeout=10)
        await http.post(f"/api/projects/{pid}/start")
        await run_to_the_end(watcher, http, pid, "client")
        await seed.wait(lambda: ended(seed, "completed"))
    [sync] = watcher.named("connection:state_sync")
    assert {"project", "agents", "checkpoints", "metrics", "logs"} <= set(sync)
    assert sync["project"]["id"] == pid and len(sync["agents"]) == 11
    started = watcher.named("agent:started")[0]
    assert started["agent"]["id"] == started["agentId"] and started["projectId"] == pid
    assert started["agent"]["status"] == "running"
    log = watcher.named("agent:log")[0]
    assert set(log["entry"]) >= {"id", "timestamp", "level", "message"}
    assert log["entry"]["level"] in ("debug", "info", "warn", "error")
    created = watcher.named("checkpoint:created")[0]
    assert created["checkpoint"]["status"] == "pending" and created["checkpoint"]["output"]
    assert watcher.named("checkpoint:resolved")[0]["checkpoint"]["status"] == "approved"
    metrics = watcher.named("metrics:update")[-1]
    assert metrics["projectId"] == pid and metrics["metrics"]["progressPercent"] == 100.0
    # the seed project's own backend's names (its toast: 「PHASE 2 - Phase 2: 実装 に移行しました」)
    assert [p["phaseName"] for p in watcher.named("phase:changed")] == [
        "Phase 2: 実装", "Phase 3: 統合・テスト"]
    assert [u["updates"]["status"] for u in watcher.named("project:updated")] == [
        "running", "completed"]
    assert not watcher.named("project:status_changed")  # the seed's names go to the seed
    assert not seed.named("project:updated") and seed.named("project:status_changed")


async def test_with_auth_on_a_socket_needs_the_token_like_every_route(tmp_path: Any) -> None:
    token = "studio-test-token-0123456789abcdef"
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_AUTH_TOKEN": token}).start()
    try:
        # A session of our own: with its own, python-engineio's client closes it before it
        # reads the 401's body, and sometimes raises aiohttp's RuntimeError instead.
        async with aiohttp.ClientSession() as session:
            anonymous = socketio.AsyncClient(reconnection=False, http_session=session)
            with pytest.raises(socketio.exceptions.ConnectionError):
                await anonymous.connect(server.url, transports=["polling"], wait_timeout=5)
        bearer = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            handshake = await http.get("/socket.io/", params={"EIO": "4",
                                                              "transport": "polling"})
            assert handshake.status_code == 401
            assert (await http.get("/api/projects")).status_code == 401
            http.headers.update(bearer)
            pid = await new_project(http)
        client = socketio.AsyncClient(reconnection=False)
        await client.connect(server.url, headers=bearer, transports=["websocket"],
                             wait_timeout=10)
        try:
            assert await client.call("subscribe:project", pid, timeout=10) == {"ok": True}
        finally:
            await client.disconnect()
    finally:
        server.stop()
