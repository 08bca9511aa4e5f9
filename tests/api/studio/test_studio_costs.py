"""The toybox client's model settings and cost views (``aiServiceApi.getMaster``,
``costApi.getPricing``, ``globalCostApi.getBudgetStatus``, ``costReportApi.getHistory`` /
``getSummary``, ``costAnalyticsApi.getDaily`` / ``getPrediction`` in
``src/services/apiService.ts``): served from the configured model and the recorded usage,
per owner, with no invented price."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin.api import create_app
from shokunin.config import Settings
from tests.api.runs.test_threads_api import PrincipalFromHeader
from tests.api.studio.test_studio_rest import approve_all
from tests.api.studio.test_studio_rest_client import CLIENT_CREATE_CHOSEN

ALICE, BOB = {"x-principal": "key:alice"}, {"x-principal": "key:bob"}
NOW = datetime.now(UTC)
# as the client sends them: CostView's fetches carry no query; CostReportPanel's the month
# shown and its page (pageSize 20)
CLIENT_GETS = ["/api/config/ai-services", "/api/config/pricing",
               "/api/config/global-cost-settings", "/api/cost/daily",
               "/api/cost/prediction", "/api/cost/budget-status",
               f"/api/cost/summary?year={NOW.year}&month={NOW.month}",
               f"/api/cost/history?year={NOW.year}&month={NOW.month}&limit=20&offset=0"]


def app_with(tmp_path: Path, **settings: object) -> TestClient:
    app = create_app(Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, tools_dirs=[],
                              tool_settings_file=tmp_path / "s.json", **settings))
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_with(tmp_path) as client:
        yield client


def test_every_route_the_cost_and_model_views_call_answers(client: TestClient) -> None:
    for path in CLIENT_GETS:
        response = client.get(path, headers=ALICE)
        assert response.status_code == 200, (path, response.text)


def test_the_model_settings_name_the_configured_model_the_offline_brain_by_default(
        client: TestClient) -> None:
    master = client.get("/api/config/ai-services", headers=ALICE).json()
    assert master["serviceTypes"] == ["llm"] and master["offline"] is True
    assert master["configuredBy"] == "SHOKUNIN_MODEL"
    offline = master["providers"]["offline"]  # AIModelSettings reads providers[id].models
    assert offline["defaultModel"] == "offline" and offline["models"][0]["id"] == "offline"
    assert master["services"]["llm"]["default"] == {"provider": "offline", "model": "offline"}
    assert master["usageCategories"][0]["service_type"] == "llm"
    # the offline brain runs here: its price is known, nothing
    priced = client.get("/api/config/pricing", headers=ALICE).json()
    assert priced["models"] == {"offline": {"provider": "offline", "priced": True,
                                            "pricing": {"input": 0, "output": 0}}}


def test_a_remote_models_price_is_not_invented(tmp_path: Path) -> None:
    with app_with(tmp_path, model="openai:gpt-4.1-mini", model_api_key="k",
                  model_base_url="http://127.0.0.1:9/v1") as client:
        master = client.get("/api/config/ai-services", headers=ALICE).json()
        assert master["offline"] is False and master["providers"]["openai"]["defaultModel"] \
            == "gpt-4.1-mini"
        priced = client.get("/api/config/pricing", headers=ALICE).json()
    # the client's calculateCost finds no model with an input/output price: it shows 0
    assert priced["models"]["gpt-4.1-mini"]["pricing"] == {}
    assert priced["priced"] is False and "わかりません" in priced["note"]
    assert priced["currency"] == "USD"


def test_cost_figures_are_the_recorded_model_calls_of_the_callers_projects(
        client: TestClient) -> None:
    pid = client.post("/api/projects", json=CLIENT_CREATE_CHOSEN, headers=ALICE).json()["id"]
    client.post(f"/api/projects/{pid}/start", headers=ALICE)
    client.headers.update(ALICE)  # approve_all's requests, as Alice
    assert approve_all(client, pid)["status"] == "completed"
    agents = client.get(f"/api/projects/{pid}/agents", headers=ALICE).json()
    outputs = [o for a in agents
               for o in client.get(f"/api/agents/{a['id']}/outputs", headers=ALICE).json()]
    history = client.get(CLIENT_GETS[-1], headers=ALICE).json()
    assert history["total"] == len(outputs) == len(history["items"]) > 0  # under a page
    assert {i["project_id"] for i in history["items"]} == {pid}
    assert sum(i["total_tokens"] for i in client.get(
        "/api/cost/history?limit=500", headers=ALICE).json()["items"]) == sum(
        a["tokensUsed"] for a in agents)
    item = history["items"][0]
    assert item["service_type"] == "llm" and item["cost_known"] is True
    assert (item["input_tokens"], item["output_tokens"]) == (0, 0)  # the split is not recorded
    summary = client.get(CLIENT_GETS[-2], headers=ALICE).json()
    assert summary["by_service"]["llm"]["call_count"] == len(outputs)
    assert summary["by_project"] == {pid: {"call_count": len(outputs)}}
    daily = client.get("/api/cost/daily", headers=ALICE).json()
    assert sum(d["call_count"] for d in daily["daily"]) == len(outputs)
    assert daily["service_types"] == ["llm"]
    budget = client.get("/api/cost/budget-status", headers=ALICE).json()
    assert budget["is_over_budget"] is False and budget["budget_set"] is False
    prediction = client.get("/api/cost/prediction", headers=ALICE).json()
    assert prediction["calls_this_month"] == len(outputs)
    assert prediction["elapsed_days"] + prediction["remaining_days"] == \
        prediction["days_in_month"]
    # another owner sees none of it
    theirs = client.get(CLIENT_GETS[-1], headers=BOB).json()
    assert (theirs["total"], theirs["items"]) == (0, [])
    assert client.get("/api/cost/summary", headers=BOB).json()["by_project"] == {}


def test_a_wrong_month_or_page_is_a_422_naming_the_field(client: TestClient) -> None:
    response = client.get("/api/cost/history?month=13&limit=20&offset=0", headers=ALICE)
    assert response.status_code == 422
    assert "month" in response.text


def test_no_budget_is_shown_as_none_and_saving_one_says_why_not(client: TestClient) -> None:
    settings = client.get("/api/config/global-cost-settings", headers=ALICE).json()
    assert settings["global_enabled"] is False and settings["global_monthly_limit"] == 0
    # GlobalCostManagement's save: globalCostApi.updateSettings(form)
    refused = client.put("/api/config/global-cost-settings", headers=ALICE, json={
        "global_enabled": True, "global_monthly_limit": 100, "alert_threshold": 80,
        "stop_on_budget_exceeded": False})
    assert refused.status_code == 501
    assert "予算を設定する機能がありません" in refused.json()["error"]
