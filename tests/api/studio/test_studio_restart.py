"""kill -9 of the server in the middle of a Studio project, then a restart: the project
goes on from LangGraph's last checkpoint; no agent output is written twice or lost.

The model is a fake OpenAI server: one of three agents running side by side hangs (its
request is never answered) while the other two finish, so the kill lands mid-step."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_openai import API_KEY, FakeOpenAI, Hang, Reply
from tests.live_server import LiveServer
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

UNIVERSAL = json.dumps({  # fits every output schema (pydantic ignores the other keys)
    "summary": "雨の街", "sections": [{"heading": "h", "body": "b"}],
    "tasks": [{"id": "loop", "kind": "code", "title": "t", "description": "d"},
              {"id": "hero", "kind": "asset", "title": "t", "description": "d"}],
    "path": "assets/x.svg", "language": "svg", "content": "<svg/>", "svg": "<svg/>"},
    ensure_ascii=False)
CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}


def pending(http: httpx.Client, project_id: str) -> list[dict[str, Any]]:
    return [c for c in http.get(f"/api/projects/{project_id}/checkpoints").json()
            if c["status"] == "pending"]


def test_a_project_killed_mid_step_resumes_after_restart_without_redoing_agents(
        tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        env = {"SHOKUNIN_MODEL": "openai:fake-gpt", "SHOKUNIN_MODEL_BASE_URL": fake.base_url,
               "SHOKUNIN_MODEL_API_KEY": API_KEY}
        server = LiveServer(tmp_path / "server", env=env).start()
        try:
            # concept, design, then scenario/character/world side by side: one hangs
            fake.script(Reply(UNIVERSAL), Reply(UNIVERSAL), Reply(UNIVERSAL), Reply(UNIVERSAL),
                        Hang())
            http = httpx.Client(base_url=server.url, timeout=10)
            project = http.post("/api/projects", json={"name": "雨", "concept": CONCEPT}).json()
            pid = project["id"]
            http.post(f"/api/projects/{pid}/start").raise_for_status()
            for _ in range(2):  # concept, design
                [checkpoint] = wait_until(lambda: pending(http, pid), 30, interval=0.1,
                                          what="a pending checkpoint")
                http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
                          json={"resolution": "approved"}).raise_for_status()
                wait_until(lambda cp=checkpoint: not any(
                    c["id"] == cp["id"] for c in pending(http, pid)), 30, interval=0.1,
                    what="the approved checkpoint no longer pending")
            two = wait_until(lambda: len(pending(http, pid)) == 2 and pending(http, pid), 30,
                             interval=0.1, what="two pending checkpoints")
            wait_until(lambda: len(fake.requests) == 5, 30, interval=0.1,
                       what="five model requests")  # the third is hanging now
            before = {a["type"]: a for a in http.get(f"/api/projects/{pid}/agents").json()}
            hung = next(t for t in ("scenario", "character", "world")
                        if before[t]["status"] == "running" and before[t]["progress"] < 90)
            server.proc.kill()  # SIGKILL: no shutdown, no cleanup
            server.proc.wait()

            fake.script(Reply(UNIVERSAL))  # the hung agent's second try is answered
            server.start()
            third = wait_until(lambda: len(pending(http, pid)) == 3 and pending(http, pid), 30,
                               interval=0.1, what="three pending checkpoints")
            assert {c["id"] for c in two} < {c["id"] for c in third}  # the two kept theirs
            agents = {a["type"]: a for a in http.get(f"/api/projects/{pid}/agents").json()}
            assert agents["concept"]["status"] == agents["design"]["status"] == "completed"
            assert agents[hung]["progress"] >= 90
            # 2 + 3 answered before the kill (one never arrived), 1 after: nothing redone
            assert len(fake.requests) == 6
            outputs = Counter()
            for agent in agents.values():
                rows = http.get(f"/api/agents/{agent['id']}/outputs").json()
                outputs[agent["type"]] = len(rows)
            assert outputs == Counter({"concept": 1, "design": 1, "scenario": 1,
                                       "character": 1, "world": 1})
            checkpoints = http.get(f"/api/projects/{pid}/checkpoints").json()
            assert len(checkpoints) == len({c["id"] for c in checkpoints}) == 5
            assert http.get(f"/api/projects/{pid}").json()["status"] == "running"
            fake.script(Reply(UNIVERSAL))  # task_split, once the three are approved
            for checkpoint in third:
                http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
                          json={"resolution": "approved"}).raise_for_status()
            [split] = wait_until(lambda: [c for c in pending(http, pid)
                                          if c["type"] == "task_split_review"], 30,
                                 interval=0.1, what="the task split review pending")
            assert len(fake.requests) == 7
        finally:
            server.stop()
