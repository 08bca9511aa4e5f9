"""The Studio's wire, byte for byte: a project driven through create, start, a checkpoint,
pause, a change request while paused, resume, an approval by socket and one by REST, over
REST and python-socketio (both dialects) against a real server. Every REST answer and every
server event is compared with ``wire_transcript.json``, recorded before the Studio moved
onto the Runner (volatile values -- ids, times, durations -- normalised).

Record again (only when the wire is meant to change): ``SHOKUNIN_RECORD_WIRE=1 pytest
tests/agents/studio/test_wire_transcript.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.studio.watcher import Watcher
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

TRANSCRIPT = Path(__file__).with_name("wire_transcript.json")
CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}
ID = re.compile(r"^[0-9a-f]{32}$")
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
VOLATILE = re.compile(r"(?i)(duration|elapsed|timems|remaining|seconds)")


class Normaliser:
    """Ids become ``<id N>`` in order of first appearance, times ``<time>``, durations
    ``<n>``: what is left is what every run of the same story says."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}

    def __call__(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float) and VOLATILE.search(key):
            return "<n>"
        if isinstance(value, str):
            value = ID.sub(lambda m: self.ids.setdefault(m[0], f"<id {len(self.ids)}>"),
                           value)
            for raw in re.findall(r"[0-9a-f]{32}", value):
                value = value.replace(raw, self.ids.setdefault(raw, f"<id {len(self.ids)}>"))
            return ISO.sub("<time>", value)
        return value


async def _story(url: str) -> dict[str, Any]:
    rest: list[tuple[str, int, Any]] = []
    seed, client = Watcher(url, "seed"), Watcher(url, "client")

    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        async def call(method: str, path: str, **kwargs: Any) -> Any:
            response = await http.request(method, path, **kwargs)
            body = response.json() if response.content else None
            rest.append((f"{method} {path}", response.status_code, body))
            return body

        await seed.sio.connect(seed.url, transports=["websocket"], wait_timeout=10)
        await client.sio.connect(client.url, transports=["websocket"], wait_timeout=10)
        try:
            pid = (await call("POST", "/api/projects", json={"name": "雨",
                                                                "concept": CONCEPT}))["id"]
            for watcher in (seed, client):
                assert await watcher.sio.call("subscribe:project", pid, timeout=10) == {
                    "ok": True}
                await watcher.wait(lambda w=watcher: w.named("connection:state_sync"))
            await call("POST", f"/api/projects/{pid}/start")
            # Each wait for a person ends with the project's metrics: the story acts once it
            # has (acting before, its events and the run's would come in either order).
            for watcher in (seed, client):
                await watcher.wait(lambda w=watcher: w.named("checkpoint:created")
                                   and w.named("metrics:update"))
            await call("POST", f"/api/projects/{pid}/pause")
            await call("POST", f"/api/projects/{pid}/pause")  # 409
            [first] = seed.named("checkpoint:created")
            await call("POST", f"/api/checkpoints/{first['checkpointId']}/resolve",
                       json={"resolution": "revision_requested", "feedback": "もっと暗く"})
            # resolved, then the change asked for is logged (by the client's dialect twice:
            # the agent's log and the system log)
            for watcher, system_logs in ((seed, 0), (client, 2)):
                await watcher.wait(lambda w=watcher, n=system_logs: (
                    w.named("checkpoint:resolved") and len(w.named("agent:log")) == 2
                    and len(w.named("system_log:created")) == n))
            await asyncio.sleep(0.1)  # paused: nothing new starts (no event says it did not)
            await call("POST", f"/api/projects/{pid}/resume")
            for watcher in (seed, client):
                await watcher.wait(lambda w=watcher: len(w.named("checkpoint:created")) == 2
                                   and len(w.named("metrics:update")) == 2)
            second = seed.named("checkpoint:created")[1]["checkpointId"]
            ack = await seed.sio.call("checkpoint:resolve", {
                "checkpointId": second, "resolution": "approved"}, timeout=10)
            rest.append(("socket checkpoint:resolve", 0, ack))
            for watcher in (seed, client):  # the design agent's checkpoint
                await watcher.wait(lambda w=watcher: len(w.named("checkpoint:created")) == 3
                                   and len(w.named("metrics:update")) == 4)
            for path in ("", "/agents", "/checkpoints", "/metrics", "/logs"):
                await call("GET", f"/api/projects/{pid}{path}")
            third = seed.named("checkpoint:created")[2]["checkpointId"]
            await call("POST", f"/api/checkpoints/{third}/resolve",
                       json={"resolution": "approved"})
            for watcher in (seed, client):
                await watcher.wait(lambda w=watcher: len(w.named("checkpoint:resolved")) == 3)
        finally:
            await seed.sio.disconnect()
            await client.sio.disconnect()

    def until_third_resolution(events: list[tuple[str, Any]]) -> list[list[Any]]:
        out, resolved = [], 0
        for name, data in events:
            out.append([name, data])
            resolved += name == "checkpoint:resolved"
            if resolved == 3:
                break
        return out

    for _, _, body in rest:  # rows of one instant come in any order: by type
        if isinstance(body, list) and body and "type" in body[0] and "status" in body[0]:
            body.sort(key=lambda row: row["type"])
    for name, data in client.events:
        if name == "connection:state_sync":
            data["agents"].sort(key=lambda row: row["type"])
    normalise = Normaliser()
    return normalise({"rest": [list(r) for r in rest],
                      "seed": until_third_resolution(seed.events),
                      "client": until_third_resolution(client.events)})


def test_the_studio_wire_is_what_it_was_before_the_studio_moved_onto_the_runner(
        tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server").start()
    try:
        transcript = asyncio.run(_story(server.url))
    finally:
        server.stop()
    if os.environ.get("SHOKUNIN_RECORD_WIRE") == "1":
        TRANSCRIPT.write_text(json.dumps(transcript, ensure_ascii=False, indent=1) + "\n")
    recorded = json.loads(TRANSCRIPT.read_text())
    assert transcript["rest"] == recorded["rest"]
    assert transcript["seed"] == recorded["seed"]
    assert transcript["client"] == recorded["client"]
