"""The Workbench keeps its conversation across reloads: the thread id in the URL and
localStorage, its history from the Threads API (CONTRACTS.md), the socket's replay of a run
still in progress shown once, a thread list to reopen earlier conversations."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

DOT = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
       "hKmMIQAAAABJRU5ErkJggg==")
THREAD = "4f1c2a9e0b7d4e3f8a6c5b4d3e2f1a0b"


@pytest.fixture
def threads_api(live_server) -> None:
    """Skip when this build has no Threads API yet (it is built on another branch)."""
    if httpx.get(f"{live_server.url}/api/threads?agent=workbench").status_code == 404:
        pytest.skip("the Threads API (GET /api/threads) answers 404 in this build")


def shown(page) -> dict[str, list[str] | int]:
    """What the chat and image panes show."""
    return {
        "user": page.locator(".msg.user").all_inner_texts(),
        "agent": page.locator(".msg.agent .markdown").all_inner_texts(),
        "code": page.locator(".msg.code pre").all_inner_texts(),
        "errors": page.locator(".msg.error").all_inner_texts(),
        "images": page.locator(".thumb img").count(),
    }


def test_reload_keeps_the_conversation(ui, threads_api) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("calculate 1200*1.1")
    ui.send("plot room areas")
    before = shown(page)
    assert before["user"] == ["calculate 1200*1.1", "plot room areas"]
    assert before["images"] == 1 and len(before["agent"]) == 2
    thread = page.evaluate("localStorage.getItem('shokunin.workbench.thread')")
    assert page.url.endswith(f"#/workbench/{thread}")
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('.msg.user').length === 2")
    ui.wait_connected()
    assert shown(page) == before
    assert page.url.endswith(f"#/workbench/{thread}")
    src = page.locator(".thumb img").get_attribute("src")
    assert src.startswith("data:image/png;base64,iVBOR")
    page.wait_for_timeout(300)  # let the thumbnail decode
    ui.screenshot("history-after-reload")
    ui.send("2Fを表示")  # the same thread goes on
    assert page.locator(".msg.user").count() == 3
    assert ui.errors == []


def test_reload_during_a_run_shows_it_once_and_follows_it(ui, threads_api) -> None:
    """A run still going at reload: part of it comes from the history, the rest from the
    socket's replay; nothing twice, and its end stops the running indicator."""
    page = ui.open()
    ui.wait_connected()
    page.fill(".chat-input", "plot room areas")
    page.press(".chat-input", "Enter")
    page.wait_for_selector(".msg.user")
    page.reload()
    page.wait_for_selector(".msg.user")
    page.wait_for_selector(".debug-entry.done", timeout=60_000)
    expect(page.locator(".chat-running")).to_be_hidden()
    assert page.locator(".msg.user").count() == 1
    assert page.locator(".thumb").count() == 1
    assert page.locator(".msg.agent .markdown").count() == 1
    assert page.locator(".debug-entry.done").count() == 1


def test_thread_list_reopens_an_older_conversation(ui, threads_api) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("calculate 1200*1.1")
    first = page.evaluate("localStorage.getItem('shokunin.workbench.thread')")
    page.click(".thread-new")
    assert page.url.endswith("#/workbench")
    assert page.locator(".msg").count() == 0
    ui.wait_connected()
    ui.send("highlight Kitchen")
    second = page.evaluate("localStorage.getItem('shokunin.workbench.thread')")
    assert second != first and page.url.endswith(f"#/workbench/{second}")
    page.click(".thread-toggle")
    items = page.locator(".thread-item")  # the server's other tests' threads are there too
    items.first.wait_for()
    assert [items.nth(i).get_attribute("data-thread") for i in (0, 1)] == [second, first]
    assert items.nth(0).get_attribute("aria-current") == "true"
    assert items.nth(1).get_attribute("aria-current") is None
    assert "highlight Kitchen" in items.nth(0).inner_text()
    ui.screenshot("history-thread-list")
    items.nth(1).click()
    page.wait_for_function("() => document.querySelectorAll('.msg.user').length === 1 && "
                           "document.querySelector('.msg.user').innerText === 'calculate 1200*1.1'")
    assert page.url.endswith(f"#/workbench/{first}")
    assert page.locator(".thread-panel").is_hidden()
    assert page.evaluate("localStorage.getItem('shokunin.workbench.thread')") == first
    ui.wait_connected()
    page.go_back()  # the browser's Back returns to the other conversation
    page.wait_for_function(
        "() => document.querySelector('.msg.user')?.innerText === 'highlight Kitchen'")
    assert ui.errors == []


def test_new_conversation_starts_empty_and_a_reload_keeps_it_new(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Kitchen")
    page.click(".thread-new")
    ui.wait_connected()
    assert page.locator(".msg").count() == 0 and page.locator(".chat-empty").is_visible()
    assert page.evaluate("localStorage.getItem('shokunin.workbench.thread')") is None
    assert page.locator(".thumb").count() == 0 and ui.map_state()["rectangles"] == []



def test_a_deleted_thread_reopens_as_a_new_conversation(ui, threads_api) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Kitchen")
    thread = page.evaluate("localStorage.getItem('shokunin.workbench.thread')")
    assert httpx.delete(f"{ui.server.url}/api/threads/{thread}").status_code == 204
    page.reload()
    ui.wait_connected()
    page.wait_for_function("() => location.hash === '#/workbench'")
    assert page.locator(".msg").count() == 0 and page.locator(".chat-empty").is_visible()
    assert page.evaluate("localStorage.getItem('shokunin.workbench.thread')") is None
    ui.send("2Fを表示")
    assert page.url.endswith(f"#/workbench/{thread}")  # the id is free again: used anew

# A thread as CONTRACTS.md's GET /api/threads/{id}/messages gives it, with every kind.
MESSAGES = [
    {"run_id": "r1", "seq": 0, "role": "user", "type": "user_message",
     "data": {"text": "面積を表にして"}},
    {"run_id": "r1", "seq": 2, "role": "assistant", "type": "code",
     "data": {"code": "print(1)", "language": "python", "step": "Step 1"}},
    {"run_id": "r1", "seq": 3, "role": "assistant", "type": "code_result",
     "data": {"ok": True, "stdout": "1\n", "stderr": "", "error_type": None,
              "error_message": None, "step": "Step 1"}},
    {"run_id": "r1", "seq": 4, "role": "assistant", "type": "tool_call",
     "data": {"call_id": "c1", "name": "calculator", "args": {"expression": "1+1"}}},
    {"run_id": "r1", "seq": 5, "role": "assistant", "type": "tool_result",
     "data": {"call_id": "c1", "name": "calculator", "success": True, "result": 2,
              "error": None, "aborted": False}},
    {"run_id": "r1", "seq": 6, "role": "assistant", "type": "table",
     "data": {"markdown": "| room | m² |\n|---|---|\n| Kitchen | 12 |", "html": "<table></table>"}},
    {"run_id": "r1", "seq": 7, "role": "assistant", "type": "image",
     "data": {"data_base64": DOT, "format": "png", "path": "areas.png"}},
    {"run_id": "r1", "seq": 8, "role": "assistant", "type": "text",
     "data": {"text": "**done** <img src=x onerror=\"window.pwned=1\">"}},
    {"run_id": "r2", "seq": 0, "role": "user", "type": "user_message", "data": {"text": "boom"}},
    {"run_id": "r2", "seq": 3, "role": "assistant", "type": "error",
     "data": {"message": "ValueError: bad", "code": "run_failed"}},
    {"run_id": "r3", "seq": 0, "role": "user", "type": "user_message", "data": {"text": "slow"}},
    {"run_id": "r3", "seq": 2, "role": "assistant", "type": "error",
     "data": {"message": "cancelled by the client", "code": "run_cancelled"}},
]
RUNS = [{"id": r, "agent": "workbench", "status": s, "input": {}, "error": None,
         "created_at": "2026-11-23T10:00:00Z", "finished_at": "2026-11-23T10:00:01Z",
         "usage": None} for r, s in (("r1", "completed"), ("r2", "failed"), ("r3", "cancelled"))]


def test_history_is_rendered_as_the_live_messages_are(ui) -> None:
    """Every message kind of the contract, served as the contract says, is shown as the
    socket's message of the same event would be (code blocks, tables, images, red errors,
    Markdown sanitised, a code result as the output under its code); tool calls are not,
    as live."""
    page = ui.page
    page.route(f"**/api/threads/{THREAD}/messages", lambda route: route.fulfill(
        json={"thread_id": THREAD, "messages": MESSAGES}))
    page.route(f"**/api/threads/{THREAD}/runs", lambda route: route.fulfill(json={"runs": RUNS}))
    ui.open(f"#/workbench/{THREAD}")
    page.wait_for_selector(".msg.cancelled")
    ui.wait_connected()
    seen = shown(page)
    assert seen["user"] == ["面積を表にして", "boom", "slow"]
    assert seen["code"] == ["print(1)", "1"]
    assert page.locator(".msg.output .code-step").inner_text() == "Step 1"
    assert seen["errors"] == ["Error processing request: ValueError: bad", "Cancelled"]
    assert seen["images"] == 1
    table, text = page.locator(".msg.agent .markdown").all()
    assert table.locator("td").all_inner_texts() == ["Kitchen", "12"]
    assert text.locator("strong").inner_text() == "done" and text.locator("img").count() == 0
    assert page.locator(".code-step").all_inner_texts() == ["Step 1", "Step 1"]
    assert page.locator(".thumb span").inner_text() == "areas.png"
    assert page.evaluate("window.pwned") is None
    color = page.locator(".msg.error").first.evaluate("e => getComputedStyle(e).color")
    assert color == "rgb(198, 40, 40)"
    assert not page.locator(".chat-running").is_visible()
    history = json.loads(page.locator(".debug-entry pre").first.inner_text())
    assert history == {"history": {"thread_id": THREAD, "runs": 3, "messages": 10}}
    # A replay of a shown message over the socket is not shown again.
    page.evaluate("window.shokunin.ws.receive({type: 'text', content: '**done** <img src=x "
                  "onerror=\"window.pwned=1\">', run_id: 'r1', seq: 8})")
    page.evaluate("window.shokunin.ws.receive({type: 'user_message', content: 'boom', "
                  "run_id: 'r2', seq: 1})")
    assert page.locator(".msg.agent .markdown").count() == 2
    assert page.locator(".msg.user").count() == 3
    ui.screenshot("history-contract")


def test_a_run_still_going_in_the_history_is_followed_over_the_socket(ui) -> None:
    """The history's last run is running: the client asks the socket to replay it after
    the last seq it showed (the server answers that it has no such run, here)."""
    page = ui.page
    page.route(f"**/api/threads/{THREAD}/messages", lambda route: route.fulfill(
        json={"thread_id": THREAD, "messages": MESSAGES[:3]}))
    page.route(f"**/api/threads/{THREAD}/runs", lambda route: route.fulfill(
        json={"runs": [RUNS[0] | {"status": "running", "finished_at": None}]}))
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    ui.open(f"#/workbench/{THREAD}")
    page.wait_for_selector(".msg.code")
    ui.wait_connected()
    expect(page.locator(".msg.error")).to_have_text("no run 'r1'")  # the server's answer
    assert json.loads(sent[0]) == {"run_id": "r1", "after": 3}
    expect(page.locator(".chat-running")).to_be_hidden()  # nothing left to wait for


def test_history_that_cannot_be_read_is_said_in_red(ui) -> None:
    page = ui.page
    page.route(f"**/api/threads/{THREAD}/**", lambda route: route.fulfill(
        status=500, json={"error": "database is locked", "code": "server_error"}))
    ui.open(f"#/workbench/{THREAD}")
    error = page.locator(".msg.error")
    expect(error).to_contain_text("database is locked")
    ui.wait_connected()  # the conversation can still go on
