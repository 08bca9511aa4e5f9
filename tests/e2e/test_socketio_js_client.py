"""The Studio's Socket.IO face through the official JavaScript client.

``tests/js/studio_client.mjs`` (socket.io-client 4 on Node) subscribes to a project on a
real server, approves each checkpoint it is sent and prints every event it received; these
tests check what it saw, in the seed's flat dialect and in the React client's nested one.
"""

from __future__ import annotations

import json
import select
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from shokunin.agents.studio.contracts import (
    Agent,
    AgentLogEntry,
    Checkpoint,
    Project,
    ProjectMetrics,
)
from tests.live_server import LiveServer

JS = Path(__file__).resolve().parents[1] / "js"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not on PATH: install Node 20 to run "
                       "the socket.io-client tests"),
    pytest.mark.skipif(not (JS / "node_modules" / "socket.io-client").is_dir(),
                       reason="tests/js/node_modules is absent: run "
                       "`npm ci --prefix tests/js` (scripts/test.sh does)"),
    pytest.mark.subprocess,
]

CONCEPT = {"description": "雨の街を走るアクションゲーム", "platform": "web", "scope": "mvp"}
CHECKPOINT_TYPES = {
    "concept_review", "design_review", "scenario_review", "character_review",
    "world_review", "task_split_review", "code_review", "asset_review",
    "integration_review", "test_review", "final_review"}
AGENTS = 11 + 3 + 2  # the pipeline's agents, 3 code workers and 2 asset workers (mvp)

# Seed 002 section 1.1: each server event's fields, (required, optional).
SEED_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    "agent:started": ({"agentId", "agentType", "projectId", "timestamp"}, set()),
    "agent:progress": ({"agentId", "progress", "currentTask", "completedTasks", "totalTasks",
                        "timestamp"}, set()),
    "agent:completed": ({"agentId", "duration", "tokensUsed", "outputSummary", "timestamp"},
                        set()),
    "agent:log": ({"agentId", "level", "message", "timestamp"}, {"metadata"}),
    "checkpoint:created": ({"checkpointId", "projectId", "agentId", "checkpointType", "title",
                            "outputPreview", "timestamp"}, set()),
    "checkpoint:resolved": ({"checkpointId", "resolution", "timestamp"}, {"feedback"}),
    "project:status_changed": ({"projectId", "oldStatus", "newStatus", "timestamp"}, set()),
    "project:phase_changed": ({"projectId", "phase", "phaseName", "timestamp"}, set()),
    "metrics:update": ({"projectId", "totalTokens", "estimatedTotalTokens", "elapsedSeconds",
                        "estimatedRemainingSeconds", "completedTasks", "totalTasks",
                        "timestamp"}, set()),
    "metrics:tokens": ({"agentId", "tokensUsed", "tokensTotal", "timestamp"}, set()),
    "connection:state_sync": ({"projectId", "serverState", "hasDiff", "timestamp"}, set()),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("studio-js") / "server").start()
    yield live
    live.stop()


def new_project(server: LiveServer) -> str:
    response = httpx.post(f"{server.url}/api/projects", json={"name": "雨の街",
                                                               "concept": CONCEPT})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _fail(proc: subprocess.Popen[str], why: str) -> None:
    proc.kill()
    _, err = proc.communicate()
    pytest.fail(f"{why}; the client said: {err.strip()[-2000:]}")


def watch(server: LiveServer, project_id: str, dialect: str, start_from_script: bool
          ) -> list[dict[str, Any]]:
    """Run the JS client on the project until it completes; the events it received.

    The project is started once the client has subscribed: by the script itself (fetch),
    or here by REST when the script prints its ``{"subscribed": true}`` line."""
    command = [NODE or "node", str(JS / "studio_client.mjs"), "--url", server.url,
               "--project", project_id, "--dialect", dialect, "--timeout", "60"]
    proc = subprocess.Popen(command + (["--start"] if start_from_script else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not start_from_script:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""  # type: ignore[union-attr]
        if json.loads(line or "{}") != {"subscribed": True}:
            _fail(proc, f"the client did not subscribe (it printed {line!r})")
        started = httpx.post(f"{server.url}/api/projects/{project_id}/start")
        assert started.status_code == 200, started.text
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        _fail(proc, "the client did not finish in 90 s")
    assert proc.returncode == 0, f"the client failed ({proc.returncode}): {err.strip()}"
    events = [json.loads(line) for line in out.splitlines()]
    final = httpx.get(f"{server.url}/api/projects/{project_id}").json()
    assert final["status"] == "completed"
    return events


def named(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["event"] == name]


def _times(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every ``timestamp`` and ``...At`` string anywhere in a payload."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and (key == "timestamp" or key.endswith("At")):
                yield f"{where}.{key}", item
            else:
                yield from _times(item, f"{where}.{key}")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _times(item, f"{where}[{number}]")


def assert_times_have_zones(events: list[dict[str, Any]]) -> None:
    for event in events:
        for where, text in _times(event["data"], event["event"]):
            assert datetime.fromisoformat(text).tzinfo is not None, f"{where}: {text!r}"


def assert_agents_start_before_they_complete(events: list[dict[str, Any]]) -> None:
    started: dict[str, int] = {}
    completed: dict[str, int] = {}
    for number, event in enumerate(events):
        if event["event"] == "agent:started":
            assert event["data"]["agentId"] not in started, "an agent started twice"
            started[event["data"]["agentId"]] = number
        elif event["event"] == "agent:completed":
            assert event["data"]["agentId"] not in completed, "an agent completed twice"
            completed[event["data"]["agentId"]] = number
    assert len(started) == len(completed) == AGENTS
    assert started.keys() == completed.keys()
    assert all(started[agent] < completed[agent] for agent in completed)


def assert_each_checkpoint_approved_after_creation(events: list[dict[str, Any]],
                                                   ids: list[str]) -> None:
    resolved = [e["checkpointId"] for e in named(events, "checkpoint:resolved")]
    assert len(ids) == len(set(ids)) == 11
    assert sorted(resolved) == sorted(ids)
    position = {(e["event"], e["data"].get("checkpointId")): n for n, e in enumerate(events)}
    assert all(position[("checkpoint:created", c)] < position[("checkpoint:resolved", c)]
               for c in ids)
    assert {e["resolution"] for e in named(events, "checkpoint:resolved")} == {"approved"}


def test_the_js_client_sees_a_whole_pipeline_in_the_seed_dialect(server: LiveServer) -> None:
    project_id = new_project(server)
    events = watch(server, project_id, "seed", start_from_script=False)

    first = events[0]
    assert first["event"] == "connection:state_sync"
    sync = first["data"]
    assert set(sync) == {"projectId", "serverState", "hasDiff", "timestamp"}
    assert sync["projectId"] == project_id
    assert set(sync["serverState"]) == {"currentAgent", "progress", "completedTasks",
                                        "totalTasks"}
    assert sync["serverState"]["currentAgent"] == ""  # a draft: nobody runs yet
    assert sync["serverState"]["completedTasks"] == 0
    assert sync["serverState"]["totalTasks"] == 11
    assert isinstance(sync["serverState"]["progress"], int | float)
    assert sync["hasDiff"] is True  # the subscriber's first sync

    for event in events:  # only the seed's events, each with the seed's fields
        assert event["event"] in SEED_FIELDS, event
        required, optional = SEED_FIELDS[event["event"]]
        assert required <= event["data"].keys() <= required | optional, event
    assert {e["level"] for e in named(events, "agent:log")} <= {"DEBUG", "INFO", "WARN",
                                                                 "ERROR"}
    # ProjectMetrics: null until there is a sample to estimate from (contracts.py)
    assert all(isinstance(m["estimatedRemainingSeconds"], int | float | None)
               for m in named(events, "metrics:update"))
    assert all(m["projectId"] == project_id for m in named(events, "metrics:update"))

    assert_agents_start_before_they_complete(events)
    created = named(events, "checkpoint:created")
    assert {c["checkpointType"] for c in created} == CHECKPOINT_TYPES
    assert all(c["projectId"] == project_id and c["outputPreview"] for c in created)
    assert_each_checkpoint_approved_after_creation(events, [c["checkpointId"] for c in created])
    assert [p["phase"] for p in named(events, "project:phase_changed")] == [2, 3]
    assert_times_have_zones(events)

    statuses = named(events, "project:status_changed")
    assert [(s["oldStatus"], s["newStatus"]) for s in statuses] == [
        ("draft", "running"), ("running", "completed")]
    assert events[-1] == {"event": "project:status_changed", "data": statuses[-1]}


def test_the_js_client_sees_a_whole_pipeline_in_the_client_dialect(server: LiveServer
                                                                   ) -> None:
    project_id = new_project(server)
    events = watch(server, project_id, "client", start_from_script=True)

    first = events[0]
    assert first["event"] == "connection:state_sync"
    sync = first["data"]
    assert {"project", "agents", "checkpoints", "metrics", "logs"} <= sync.keys()
    assert Project.model_validate(sync["project"]).status == "draft"
    assert sync["project"]["id"] == project_id
    assert [Agent.model_validate(a).status for a in sync["agents"]] == ["pending"] * 11
    assert sync["checkpoints"] == [] and sync["logs"] == []
    assert ProjectMetrics.model_validate(sync["metrics"]).project_id == project_id

    assert not [e for e in events if e["event"].startswith("error:")]
    for started in named(events, "agent:started"):
        assert {"agent", "agentId", "projectId"} <= started.keys()
        agent = Agent.model_validate(started["agent"])
        assert (agent.id, agent.project_id, agent.status) == (
            started["agentId"], project_id, "running")
    logs = named(events, "agent:log")
    assert logs
    for log in logs:
        assert {"agentId", "entry"} <= log.keys()
        assert {"id", "timestamp", "level", "message"} <= log["entry"].keys()
        AgentLogEntry.model_validate(log["entry"])
    assert {log["entry"]["level"] for log in logs} <= {"debug", "info", "warn", "error"}
    created = named(events, "checkpoint:created")
    for item in created:
        checkpoint = Checkpoint.model_validate(item["checkpoint"])
        assert (checkpoint.id, checkpoint.project_id, checkpoint.status) == (
            item["checkpointId"], project_id, "pending")
    assert {c["checkpoint"]["type"] for c in created} == CHECKPOINT_TYPES
    for item in named(events, "checkpoint:resolved"):
        assert Checkpoint.model_validate(item["checkpoint"]).status == "approved"
    metrics = named(events, "metrics:update")
    assert metrics
    for item in metrics:
        assert set(item) == {"projectId", "metrics"}
        assert ProjectMetrics.model_validate(item["metrics"]).project_id == project_id
    last = ProjectMetrics.model_validate(metrics[-1]["metrics"])
    # every agent done, the workers counted too once they exist
    assert (last.completed_tasks, last.total_tasks, last.progress_percent) == (
        AGENTS, AGENTS, 100)
    phases = named(events, "phase:changed")
    assert [(p["projectId"], p["phase"], p["phaseName"]) for p in phases] == [
        (project_id, 2, "Phase 2: 実装"), (project_id, 3, "Phase 3: 統合・テスト")]

    assert_agents_start_before_they_complete(events)
    assert_each_checkpoint_approved_after_creation(events, [c["checkpointId"] for c in created])
    assert_times_have_zones(events)

    updates = named(events, "project:updated")
    assert [(u["projectId"], u["updates"]["status"]) for u in updates] == [
        (project_id, "running"), (project_id, "completed")]
    assert events[-1] == {"event": "project:updated", "data": updates[-1]}
