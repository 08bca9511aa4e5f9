"""The later Advisor client's 価格転嫁検討ツール form (a628280, ``handleCostAnalysisSubmit``):
``POST /api/cost-analysis`` with six numbers, answered in the origin's form (``success``,
``result``, ``message``); every field the client reads is checked against figures worked
out by hand. The analysis is a stored run of the builtin ``cost_impact`` tool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings

TOKEN = "cost-analysis-admin-token-0123456789"
# axios posts JSON.stringify of the form's parseFloat(...) || 0 values: compact, numbers
# without ".0", a blank field as 0. The form's own placeholders (例: 10000000 ...).
PLACEHOLDERS = (b'{"before_sales":10000000,"before_cost":6000000,"before_expenses":2000000,'
                b'"current_sales":10000000,"current_cost":7000000,"current_expenses":2000000}')
# Recorded from the built client in Chromium: 販管費 before left blank, a decimal 原価 now.
RECORDED = (b'{"before_sales":10000000,"before_cost":6000000,"before_expenses":0,'
            b'"current_sales":10500000,"current_cost":7200000.5,"current_expenses":2100000}')
AXIOS = {"Content-Type": "application/json", "Accept": "application/json, text/plain, */*"}


def _settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[],
                    tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0,
                    **extra)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path_factory.mktemp("cost")))) as test_client:
        yield test_client


def _post(client: TestClient, body: bytes | dict[str, Any]) -> Any:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/api/cost-analysis", content=content, headers=AXIOS)


def test_the_forms_placeholders_get_every_figure_the_client_reads(client: TestClient) -> None:
    answer = _post(client, PLACEHOLDERS)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["success"] is True and body["message"] == "分析が完了しました"
    result = body["result"]
    # Before: 6,000,000 + 2,000,000 = 8,000,000 of cost; 2,000,000 of profit, 20 % of sales.
    assert result["before"] == {"sales": 10_000_000, "cost": 6_000_000, "expenses": 2_000_000,
                                "total_cost": 8_000_000, "profit": 2_000_000,
                                "profit_rate": 20}
    # Now: 9,000,000 of cost, 1,000,000 of profit, 10 %.
    assert result["current"] == {"sales": 10_000_000, "cost": 7_000_000, "expenses": 2_000_000,
                                 "total_cost": 9_000_000, "profit": 1_000_000,
                                 "profit_rate": 10}
    changes = result["changes"]
    assert changes["sales"] == {"amount": 0, "rate": 0}
    assert changes["cost"]["amount"] == 1_000_000
    assert changes["cost"]["rate"] == pytest.approx(100 / 6)  # 1,000,000 / 6,000,000
    assert changes["expenses"] == {"amount": 0, "rate": 0}
    assert changes["total_cost"] == {"amount": 1_000_000, "rate": 12.5}  # / 8,000,000
    assert changes["profit"] == {"amount": -1_000_000, "rate": -50}  # / 2,000,000
    # Keeping a 20 % margin on 9,000,000 of cost: 9,000,000 / 0.8 = 11,250,000, which is
    # 1,250,000 (12.5 %) above today's sales.
    assert result["reference_price"] == 11_250_000
    assert result["price_gap"] == 1_250_000 and result["price_gap_rate"] == 12.5
    assert result["needs_pass_through"] is True
    # The client calls toLocaleString / toFixed on each: every one is a JSON number.
    numbers = [*result["before"].values(), *result["current"].values(),
               *(v for change in changes.values() for v in change.values()),
               result["reference_price"], result["price_gap"], result["price_gap_rate"]]
    assert all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers)


def test_blank_fields_come_as_zero_and_decimals_stay_exact(client: TestClient) -> None:
    body = _post(client, RECORDED).json()
    assert body["success"] is True, body
    result = body["result"]
    assert result["before"] == {"sales": 10_000_000, "cost": 6_000_000, "expenses": 0,
                                "total_cost": 6_000_000, "profit": 4_000_000,
                                "profit_rate": 40}
    # 7,200,000.5 + 2,100,000 = 9,300,000.5 of cost; 1,199,999.5 of profit on 10,500,000.
    assert result["current"]["total_cost"] == 9_300_000.5
    assert result["current"]["profit"] == 1_199_999.5
    assert result["current"]["profit_rate"] == pytest.approx(1_199_999.5 / 105_000)
    changes = result["changes"]
    assert changes["sales"] == {"amount": 500_000, "rate": 5}
    assert changes["cost"]["amount"] == 1_200_000.5
    assert changes["cost"]["rate"] == pytest.approx(1_200_000.5 / 60_000)
    assert changes["expenses"] == {"amount": 2_100_000, "rate": 0}  # no base, no rate
    assert changes["total_cost"]["amount"] == 3_300_000.5
    assert changes["profit"]["amount"] == -2_800_000.5
    assert changes["profit"]["rate"] == pytest.approx(-2_800_000.5 / 40_000)
    # A 40 % margin kept on 9,300,000.5: 9,300,000.5 / 0.6 = 15,500,000.833...
    assert result["reference_price"] == pytest.approx(15_500_000 + 5 / 6)
    assert result["price_gap"] == pytest.approx(5_000_000 + 5 / 6)
    assert result["price_gap_rate"] == pytest.approx((5_000_000 + 5 / 6) / 105_000)


def test_a_margin_that_held_needs_no_pass_through(client: TestClient) -> None:
    result = _post(client, {"before_sales": 1000, "before_cost": 600, "before_expenses": 200,
                            "current_sales": 1100, "current_cost": 660,
                            "current_expenses": 200}).json()["result"]
    assert result["current"]["profit_rate"] == pytest.approx(240 / 11)  # 240 of 1,100
    assert result["reference_price"] == 1075 and result["price_gap"] == -25  # 860 / 0.8
    assert result["needs_pass_through"] is False


def test_the_analysis_is_a_stored_run_of_the_cost_impact_tool(client: TestClient) -> None:
    body = _post(client, PLACEHOLDERS).json()
    run = client.get(f"/api/runs/{body['run_id']}").json()
    assert (run["agent"], run["status"]) == ("tool", "completed")
    assert run["input"] == {"tool": "cost_impact", "args": json.loads(PLACEHOLDERS),
                            "timeout": None}
    events = client.get(f"/api/runs/{body['run_id']}/events").text
    assert "tool_result" in events


@pytest.mark.parametrize(("figures", "words"), [
    ({"before_cost": -6_000_000}, "コスト高騰前の売上原価: 0以上の金額を入力してください"),
    ({"current_expenses": -1}, "現在の販管費・その他経費: 0以上"),
    ({"current_sales": 0}, "現在の売上高は0より大きい金額を入力してください"),
    ({"before_sales": 0}, "コスト高騰前の売上高は0より大きい"),
    ({"before_cost": 0, "before_expenses": 0}, "コスト高騰前の売上原価か販管費・その他経費を入力"),
    ({"current_cost": 1e16}, "1,000兆円以下"),
])
def test_figures_it_cannot_analyse_are_a_failed_analysis_in_japanese(
        client: TestClient, figures: dict[str, float], words: str) -> None:
    answer = _post(client, json.loads(PLACEHOLDERS) | figures)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["success"] is False and body["result"] is None
    assert words in body["message"], body["message"]  # the client alerts 分析エラー: <message>


@pytest.mark.parametrize("body", [
    b"{not json", b"[1, 2]",
    json.dumps({k: v for k, v in json.loads(PLACEHOLDERS).items() if k != "current_cost"}
               ).encode(),
    json.dumps(json.loads(PLACEHOLDERS) | {"before_sales": "1000"}).encode(),
    json.dumps(json.loads(PLACEHOLDERS) | {"before_sales": True}).encode(),
    json.dumps(json.loads(PLACEHOLDERS) | {"profit": 1}).encode(),
])
def test_a_body_that_is_not_the_form_is_a_400_in_the_apis_error_form(
        client: TestClient, body: bytes) -> None:
    answer = _post(client, body)
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"error", "code"}
    assert answer.json()["code"] in ("bad_request", "bad_json")


def test_with_auth_on_the_form_needs_the_login(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, auth_token=TOKEN))) as client:
        assert _post(client, PLACEHOLDERS).status_code == 401
        client.headers["Authorization"] = f"Bearer {TOKEN}"
        assert _post(client, PLACEHOLDERS).json()["success"] is True
