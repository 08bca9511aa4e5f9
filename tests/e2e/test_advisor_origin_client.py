"""A page of our own that speaks the origin's Advisor client dialect, in a real browser
against a real server (issue 36). It does what the seed's React client does with the chat
stream (tests/api/advisor/origin_client.py has the rules, checked against the built client):
``fetch`` POST /api/chat, read ``data:`` lines, ``content`` replaces the text, ``tool_use``
appends 「*[<tool> を使用中]*」, ``step_update`` sets the step indicator, ``status`` sets the
later client's status line, ``done`` and ``error`` end the answer; its stop button aborts
the fetch, as the later client's does. The clients' own code stays out of the repository."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import ARTIFACTS
from tests.fake_openai import FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer
from tests.waiting import wait_until

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html lang="ja"><meta charset="utf-8"><title>origin dialect</title>
<div id="step"></div><div id="status"></div><pre id="answer"></pre>
<input id="q"><button id="send">送信</button><button id="stop">停止</button>
<script>
let session = null, controller = null, text = "";
const show = () => { document.getElementById("answer").textContent = text; };
fetch("/api/session", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({user_info: {industry: "製造業"}})})
  .then(r => r.json()).then(j => { session = j.session_id; document.body.dataset.ready = 1; });
async function send(message) {
  text = ""; show(); document.body.dataset.busy = 1;
  controller = new AbortController();
  try {
    const response = await fetch("/api/chat", {method: "POST", signal: controller.signal,
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({message, session_id: session})});
    const reader = response.body.getReader(), decoder = new TextDecoder();
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      for (const line of decoder.decode(value).split("\\n")) {
        if (!line.startsWith("data: ")) continue;
        const e = JSON.parse(line.slice(6));
        if (e.type === "content") text = e.data || "";
        else if (e.type === "tool_use") text += `\\n\\n*[${e.tool} を使用中]*\\n\\n`;
        else if (e.type === "step_update") {
          document.getElementById("step").textContent = `現在のステップ: ${e.step}`;
        } else if (e.type === "status") {
          document.getElementById("status").textContent = e.status === "none" ? "" : e.message;
        } else if (e.type === "done") text = e.content || text;
        else if (e.type === "error") text = `❌ エラー: ${e.error}`;
        show();
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") { text = `❌ ${error}`; show(); }
  }
  delete document.body.dataset.busy;
}
document.getElementById("send").onclick = () => send(document.getElementById("q").value);
document.getElementById("stop").onclick = () => controller && controller.abort();
</script></html>"""

COST_QUESTION = "材料費と労務費が上がったので、製品の原価を計算し直したい。450+300+150"


def _open(browser: Any, url: str) -> Any:
    page = browser.new_page(locale="ja-JP")
    page.set_default_timeout(60_000)
    page.route(f"{url}/origin-client/", lambda route: route.fulfill(
        status=200, content_type="text/html; charset=utf-8", body=PAGE))
    page.goto(f"{url}/origin-client/")
    page.wait_for_selector("body[data-ready]")
    return page


def _ask(page: Any, question: str) -> str:
    page.fill("#q", question)
    page.click("#send")
    page.wait_for_selector("body[data-busy]", state="detached")
    return page.inner_text("#answer")


def test_the_origin_dialect_shows_step_markers_answer_and_a_readable_error(
        browser: Any, live_server: LiveServer) -> None:
    page = _open(browser, live_server.url)
    try:
        small_talk = _ask(page, "よろしくお願いします")
        assert page.inner_text("#step") == ""  # no 「現在のステップ: UNKNOWN」
        assert "UNKNOWN" not in small_talk
        answer = _ask(page, COST_QUESTION)
        assert page.inner_text("#step") == "現在のステップ: STEP_0_CHECK_3"
        for tool in ("calculator", "search_knowledge_base"):
            assert f"*[{tool} を使用中]*" in answer
        assert "**900**" in answer and page.inner_text("#status") == ""
        session = page.evaluate("session")
        assert httpx.delete(f"{live_server.url}/api/session/{session}").status_code == 200
        error = _ask(page, "見積書の作り方は？")
        assert error == ("❌ エラー: セッションが見つかりません。ページを再読み込みして"
                         "新しい相談を始めてください。")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "advisor-origin-dialect.png"))
    finally:
        page.close()


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("origin-dialect-model")) as both:
        yield both


def test_the_stop_button_cancels_the_answer_on_the_server(
        browser: Any, model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply('{"step": "STEP_0_CHECK_3", "confidence": "high", "reasoning": "原価"}'),
                Reply(" ".join(f"説明{i}。" for i in range(1500))))  # 15 s of answer
    page = _open(browser, server.url)
    try:
        page.fill("#q", "原価計算について詳しく")
        page.click("#send")
        page.wait_for_function("document.getElementById('answer').textContent.length > 20")
        assert "step" not in page.inner_text("#answer")  # the detector's JSON is not text
        page.click("#stop")
        page.wait_for_selector("body[data-busy]", state="detached")
        runs = httpx.get(f"{server.url}/api/threads/{page.evaluate('session')}/runs").json()
        run_id = runs["runs"][0]["id"]
        def ended() -> str | None:
            status = httpx.get(f"{server.url}/api/runs/{run_id}").json()["status"]
            return status if status != "running" else None

        status = wait_until(ended, 30, what="the run's end")  # a loaded machine: seconds
        assert status == "cancelled"
    finally:
        page.close()
