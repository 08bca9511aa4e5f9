"""The Studio with a real HTTP model provider (a fake OpenAI server): a rate limit is told
as error:llm and retried, a model that then hangs times out, and the project fails with the
agent's errorType, its dependents blocked."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.api.studio.test_studio_socket import ended
from tests.api.studio.watcher import Watcher
from tests.fake_openai import API_KEY, FakeOpenAI, Hang, Status
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

PIPELINE = """
phases: [{number: 1, name: planning}]
agents:
  - {type: concept, phase: 1, output: concept_doc, max_retries: 1, timeout_seconds: 4}
  - {type: design, phase: 1, depends_on: [concept], output: design_doc}
"""


async def test_a_rate_limit_is_retried_and_a_model_that_hangs_fails_the_agent(
        tmp_path: Path) -> None:
    (tmp_path / "pipeline.yaml").write_text(PIPELINE, encoding="utf-8")
    with FakeOpenAI() as fake:
        server = LiveServer(tmp_path / "server", env={
            "SHOKUNIN_MODEL": "openai:fake-gpt", "SHOKUNIN_MODEL_BASE_URL": fake.base_url,
            "SHOKUNIN_MODEL_API_KEY": API_KEY, "SHOKUNIN_MODEL_TIMEOUT_SEC": "30",
            "SHOKUNIN_STUDIO_PIPELINE": str(tmp_path / "pipeline.yaml")}).start()
        try:
            # the provider's client retries a 429 twice itself before it gives up; then
            # our retry of the agent meets a model that never answers
            fake.script(*[Status(429)] * 3, Hang())
            async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
                pid = (await http.post("/api/projects", json={"name": "x", "concept": {
                    "description": "d", "platform": "web", "scope": "mvp"}})).json()["id"]
                async with Watcher(server.url) as watcher:
                    await watcher.sio.call("subscribe:project", pid, timeout=10)
                    await http.post(f"/api/projects/{pid}/start")
                    # the project fails first; its blocked dependents are told after
                    await watcher.wait(lambda: ended(watcher, "failed") and any(
                        e["errorType"] == "dependency_error"
                        for e in watcher.named("error:agent")), timeout=60)
                agents = {a["type"]: a for a in
                          (await http.get(f"/api/projects/{pid}/agents")).json()}
        finally:
            server.stop()
    failures = [f for f in watcher.named("agent:failed")
                if f["agentId"] == agents["concept"]["id"]]
    assert [(f["errorType"], f["canRetry"], f["retryCount"]) for f in failures] == [
        ("llm_error", True, 1), ("timeout", False, 1)]
    # each names its agent (the React client's toast), and a try that is retried is at
    # work again for it; the design, blocked before it began, is told by error:agent alone
    assert all(f["agent"]["id"] == f["agentId"] == agents["concept"]["id"]
               for f in watcher.named("agent:failed"))
    assert [p["agentId"] for p in watcher.named("agent:running")] == [agents["concept"]["id"]]
    [llm] = watcher.named("error:llm")
    assert llm["errorType"] == "rate_limit" and "429" in llm["errorMessage"]
    agent_errors = watcher.named("error:agent")
    assert {e["errorType"] for e in agent_errors} == {"timeout", "dependency_error"}
    assert agents["concept"]["status"] == "failed" and agents["design"]["status"] == "blocked"
