"""The seed project's React client's nine settings panels (``GlobalConfigView.tsx``): every
request each panel makes when it opens is answered (a panel that loads with
``Promise.all`` shows nothing if one of its requests fails), with the fields it reads, from
what shokunin has or as an empty state; its saves are refused in Japanese, saying where the
setting lives. The requests and fields are read from ``src/components/settings/*.tsx`` and
``src/services/apiService.ts`` at 3dbf0a2."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.studio.watcher import new_project

# panel -> the requests it makes as it opens (<p>: the project) and what it reads of each
PANELS: dict[str, list[tuple[str, list[str]]]] = {
    "自動承認設定": [("/api/projects/<p>/auto-approval-rules", ["rules"])],
    "AI 同時実行数": [("/api/config/concurrent-limits",
                      ["default_max_concurrent", "provider_overrides"]),
                     ("/api/config/websocket", ["maxReconnectAttempts", "reconnectDelay",
                                                "reconnectDelayMax", "timeout"])],
    "AI 使用モデル": [("/api/config/ai-services", ["providers", "usageCategories"]),
                      ("/api/projects/<p>/settings/usage-categories", [])],
    "AI コスト管理": [("/api/config/global-cost-settings", ["global_enabled"]),
                      ("/api/cost/budget-status", ["usage_percent"]),
                      ("/api/cost/history?year=2026&month=1&limit=20&offset=0", []),
                      ("/api/cost/summary?year=2026&month=1", [])],
    "AI APIキー管理": [("/api/api-keys", []), ("/api/ai-providers", []),
                       ("/api/ai-service-types", ["types", "labels"])],
    "AI 詳細設定": [("/api/projects/<p>/settings/advanced", [
        "qualityCheck.quality_threshold", "qualityCheck.escalation.enabled",
        "tokenBudget.default_limit", "tokenBudget.enforcement", "dagExecution.enabled",
        "toolExecution.max_iterations", "toolExecution.timeout_seconds",
        "toolExecution.loop_detection_threshold", "temperatureDefaults",
        "contextPolicy.auto_downgrade_threshold", "contextPolicy.llm_summary.enabled",
        "contextPolicy.llm_summary.max_tokens"])],
    "AI Agentプロンプト": [("/api/config/principles", ["principles", "defaults", "uiPhases"]),
                           ("/api/projects/<p>/settings/principles",
                            ["overrides", "enabledPrinciples"])],
    "生成結果保存先": [("/api/projects/<p>/settings/output", ["default_dir"])],
    "データ管理": [("/api/backups", []), ("/api/archives", []),
                   ("/api/archive/stats", ["total.agent_logs", "older_than_retention.traces"])],
}
SAVES = [("PUT", "/api/config/concurrent-limits", {"default_max_concurrent": 3,
                                                   "provider_overrides": {}}),
         ("PUT", "/api/config/websocket", {"maxReconnectAttempts": 10}),
         ("PUT", "/api/projects/<p>/settings/usage-categories/agents",
          {"provider": "openai", "model": "gpt-4o"}),
         ("PUT", "/api/projects/<p>/settings/advanced", {"dagExecution": {"enabled": False}}),
         ("PUT", "/api/projects/<p>/settings/principles", {"enabledPrinciples": []}),
         ("PUT", "/api/projects/<p>/settings/output", {"default_dir": "/tmp/x"}),
         ("PUT", "/api/api-keys/openai", {"apiKey": "sk-test"}),
         ("PUT", "/api/archive/retention", {"retentionDays": 7}),
         ("POST", "/api/archive/cleanup", {})]


def at(payload: Any, path: str) -> Any:
    for key in path.split("."):
        assert isinstance(payload, dict) and key in payload, path
        payload = payload[key]
    return payload


@pytest.mark.parametrize("panel", list(PANELS))
async def test_each_settings_panel_gets_every_request_it_opens_with(
        http: httpx.AsyncClient, panel: str) -> None:
    pid = await new_project(http)
    for path, fields in PANELS[panel]:
        response = await http.get(path.replace("<p>", pid))
        assert response.status_code == 200, (panel, path, response.text)
        for field in fields:
            at(response.json(), field)


async def test_the_panels_show_what_shokunin_has_and_leave_the_rest_empty(
        http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    [usage] = (await http.get(f"/api/projects/{pid}/settings/usage-categories")).json()
    assert (usage["provider"], usage["model"], usage["service_type"]) == (
        "offline", "offline", "llm")
    master = (await http.get("/api/config/ai-services")).json()
    assert usage["provider"] in master["providers"]  # the client's select finds it
    reset = await http.delete(f"/api/projects/{pid}/settings/usage-categories/agents")
    assert reset.status_code == 200 and reset.json()["model"] == usage["model"]
    types = (await http.get("/api/ai-service-types")).json()
    providers = (await http.get("/api/ai-providers")).json()
    assert types["types"] == ["llm"] and providers[0]["serviceTypes"][0] in types["types"]
    limits = (await http.get("/api/config/concurrent-limits")).json()
    assert limits["default_max_concurrent"] is None and limits["provider_overrides"] == {}
    advanced = (await http.get(f"/api/projects/{pid}/settings/advanced")).json()
    assert advanced["dagExecution"]["enabled"] is True  # ready agents run side by side
    assert advanced["toolExecution"]["timeout_seconds"] == 300  # the pipeline's
    assert advanced["tokenBudget"]["default_limit"] is None  # no budget: empty, not made up
    assert advanced["temperatureDefaults"] == {}
    output = (await http.get(f"/api/projects/{pid}/settings/output")).json()
    assert output["default_dir"].startswith("/") and output["default_dir"].endswith(
        f"{pid}/outputs")
    principles = (await http.get(f"/api/projects/{pid}/settings/principles")).json()
    assert principles == {"defaults": {}, "overrides": {}, "enabledPrinciples": []}
    stats = (await http.get("/api/archive/stats")).json()
    assert stats["total"]["traces"] == 0 and stats["older_than_retention"] == {
        "traces": 0, "agent_logs": 0, "system_logs": 0}
    assert isinstance(stats["total"]["agent_logs"], int)


async def test_a_panels_save_is_refused_in_japanese_saying_where_the_setting_lives(
        http: httpx.AsyncClient) -> None:
    pid = await new_project(http)
    for method, path, body in SAVES:
        response = await http.request(method, path.replace("<p>", pid), json=body)
        assert response.status_code == 501, (path, response.text)
        answer = response.json()
        assert answer["code"] == "unavailable"
        assert any("\u3040" <= ch <= "\u30ff" for ch in answer["error"]), answer["error"]
    model = await http.put(f"/api/projects/{pid}/settings/usage-categories/agents",
                           json={"provider": "openai", "model": "gpt-4o"})
    assert "SHOKUNIN_MODEL" in model.json()["error"]
