"""A page of our own that does what the later Advisor client (a628280) does with its
価格転嫁検討ツール form, in a real browser against a real server (issue 36): each field
``parseFloat(value) || 0``, both sales above 0 or it refuses, ``POST /api/cost-analysis``
with the JSON body, then on ``success`` a summary written with ``toLocaleString`` and
``toFixed(2)`` on every figure it reads, else an alert 「分析エラー: <message>」. A figure
that is not a number would throw there. The client's own code stays out of the repository."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import ARTIFACTS
from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

FIELDS = ("before_sales", "before_cost", "before_expenses", "current_sales", "current_cost",
          "current_expenses")
PAGE = """<!doctype html><html lang="ja"><meta charset="utf-8"><title>cost form</title>
<h2>価格転嫁検討ツール</h2>
""" + "".join(f'<input id="{f}" type="number">' for f in FIELDS) + """
<button id="run">分析実行</button><pre id="summary"></pre>
<script>
const FIELDS = """ + str(list(FIELDS)) + """;
const signed = (n, text) => `${n >= 0 ? "+" : ""}${text}`;
const change = c => `${signed(c.amount, c.amount.toLocaleString())}円 `
  + `(${signed(c.rate, c.rate.toFixed(2))}%)`;
const side = (title, s) => `【${title}】\\n売上高: ${s.sales.toLocaleString()}円\\n`
  + `売上原価: ${s.cost.toLocaleString()}円\\n`
  + `販管費・その他経費: ${s.expenses.toLocaleString()}円\\n`
  + `総コスト: ${s.total_cost.toLocaleString()}円\\n利益: ${s.profit.toLocaleString()}円\\n`
  + `利益率: ${s.profit_rate.toFixed(2)}%`;
document.getElementById("run").onclick = async () => {
  const data = {};
  for (const f of FIELDS) data[f] = parseFloat(document.getElementById(f).value) || 0;
  if (data.before_sales <= 0 || data.current_sales <= 0) {
    alert("売上高は0より大きい値を入力してください"); return;
  }
  const response = await fetch("/api/cost-analysis", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(data)});
  const body = await response.json();
  if (!body.success) { alert(`分析エラー: ${body.message}`); return; }
  const r = body.result, c = r.changes;
  document.getElementById("summary").textContent = [
    side("コスト高騰前の状況", r.before), side("現在の状況", r.current),
    `【コスト高騰の影響】\\n売上高: ${change(c.sales)}\\n売上原価: ${change(c.cost)}\\n`
      + `販管費・その他経費: ${change(c.expenses)}\\n総コスト: ${change(c.total_cost)}\\n`
      + `利益: ${change(c.profit)}`,
    `【参考価格の算出】\\n参考価格: ${r.reference_price.toLocaleString()}円\\n`
      + `差額: ${signed(r.price_gap, r.price_gap.toLocaleString())}円 `
      + `(${signed(r.price_gap_rate, r.price_gap_rate.toFixed(2))}%)`,
  ].join("\\n\\n");
};
</script></html>"""


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    page = browser.new_page(locale="ja-JP")
    page.set_default_timeout(30_000)
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.accept()))
    page.route(f"{url}/cost-form/", lambda route: route.fulfill(
        status=200, content_type="text/html; charset=utf-8", body=PAGE))
    page.goto(f"{url}/cost-form/")
    return page, alerts


def _submit(page: Any, figures: dict[str, str]) -> None:
    for field, value in figures.items():
        page.fill(f"#{field}", value)
    page.click("#run")


def test_the_forms_summary_shows_every_figure_the_client_formats(
        browser: Any, live_server: LiveServer) -> None:
    page, alerts = _open(browser, live_server.url)
    try:
        _submit(page, {"before_sales": "10000000", "before_cost": "6000000",
                       "before_expenses": "2000000", "current_sales": "10000000",
                       "current_cost": "7000000", "current_expenses": "2000000"})
        page.wait_for_function("document.getElementById('summary').textContent")
        summary = page.inner_text("#summary")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "advisor-cost-analysis-form.png"))
    finally:
        page.close()
    assert not alerts, alerts
    for line in ("総コスト: 8,000,000円", "利益率: 20.00%", "利益: 1,000,000円", "利益率: 10.00%",
                 "売上原価: +1,000,000円 (+16.67%)", "総コスト: +1,000,000円 (+12.50%)",
                 "利益: -1,000,000円 (-50.00%)", "販管費・その他経費: +0円 (+0.00%)",
                 "参考価格: 11,250,000円", "差額: +1,250,000円 (+12.50%)"):
        assert line in summary, (line, summary)


def test_a_negative_figure_is_an_alert_that_says_what_to_enter(
        browser: Any, live_server: LiveServer) -> None:
    page, alerts = _open(browser, live_server.url)
    try:
        _submit(page, {"before_sales": "1000", "before_cost": "-600", "current_sales": "1000",
                       "current_cost": "700"})
        for _ in range(40):  # the alert comes once the answer is read
            if alerts:
                break
            page.wait_for_timeout(250)
    finally:
        page.close()
    assert alerts == ["分析エラー: コスト高騰前の売上原価: 0以上の金額を入力してください"
                      "（マイナスは使えません）"]
