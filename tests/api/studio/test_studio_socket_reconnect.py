"""A Studio socket that reconnects with the position of the last event it saw gets what it
missed while away (after the state sync), then goes on live; one that does not ask for
positions gets the seed's messages unchanged (``test_studio_socket.py``)."""

from __future__ import annotations

import httpx

from tests.api.studio.watcher import Watcher
from tests.live_server import LiveServer

CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}


async def test_a_socket_that_reconnects_with_its_last_position_gets_the_project_events_it_missed(
        live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        pid = (await http.post("/api/projects", json={"name": "雨",
                                                      "concept": CONCEPT})).json()["id"]
        away = Watcher(live_server.url)
        await away.sio.connect(away.url, transports=["websocket"], wait_timeout=10)
        ack = await away.sio.call("subscribe:project", {"projectId": pid, "after": None},
                                  timeout=10)
        assert ack == {"ok": True}
        await http.post(f"/api/projects/{pid}/start")
        # the last event before the run waits for a person: the metrics after its checkpoint
        await away.wait(lambda: away.named("checkpoint:created")
                        and away.named("metrics:update"))
        [created] = away.named("checkpoint:created")
        last = away.events[-1][1]["position"]
        assert all("position" in data for name, data in away.events
                   if name != "connection:state_sync")
        await away.sio.disconnect()

        # while it is away: a pause, a change requested, a resume (and the new attempt)
        await http.post(f"/api/projects/{pid}/pause")
        await http.post(f"/api/checkpoints/{created['checkpointId']}/resolve",
                        json={"resolution": "revision_requested", "feedback": "もっと暗く"})
        await http.post(f"/api/projects/{pid}/resume")

        back = Watcher(live_server.url)
        await back.sio.connect(back.url, transports=["websocket"], wait_timeout=10)
        try:
            ack = await back.sio.call("subscribe:project", {"projectId": pid, "after": last},
                                      timeout=10)
            assert ack == {"ok": True}
            await back.wait(lambda: len(back.named("checkpoint:created")) == 1)
            await back.wait(lambda: back.named("metrics:update"))
            bad = await back.sio.call("subscribe:project", {"projectId": pid,
                                                            "after": "nonsense"}, timeout=10)
            assert bad["ok"] is False and "position" in bad["error"]
        finally:
            await back.sio.disconnect()
    names = [name for name, _ in back.events]
    assert names[0] == "connection:state_sync"
    statuses = [(s["oldStatus"], s["newStatus"]) for s in back.named("project:status_changed")]
    assert statuses == [("running", "paused"), ("paused", "running")]  # none it had seen
    [resolved] = back.named("checkpoint:resolved")
    assert resolved["checkpointId"] == created["checkpointId"]
    assert resolved["resolution"] == "changes_requested" and resolved["feedback"] == "もっと暗く"
    [again] = back.named("checkpoint:created")  # the second attempt, not the first again
    assert again["checkpointId"] != created["checkpointId"]
    assert names.index("project:status_changed") < names.index("checkpoint:resolved")
    positions = [data["position"] for name, data in back.events if "position" in data]
    assert len(positions) == len(back.events) - 2  # all but the sync and the refusal
