"""A thread's stored events become the messages the user saw."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from shokunin import events as ev
from shokunin.runs.history import iso, thread_messages
from shokunin.store import RunRow, RunStatus

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _run(run_id: str, status: RunStatus = RunStatus.COMPLETED, message: str = "hi",
         error: str | None = None) -> RunRow:
    return RunRow(id=run_id, thread_id="t", agent="a", status=status,
                  input={"message": message}, error=error, usage={}, created_at=T0,
                  finished_at=T0)


def _events(run_id: str, *events: ev.BaseEvent) -> list[ev.BaseEvent]:
    return [e.model_copy(update={"run_id": run_id, "thread_id": "t", "seq": seq})
            for seq, e in enumerate(events, 1)]


def _shape(messages: list[dict[str, Any]]) -> list[tuple[str, int, str, str]]:
    return [(m["run_id"], m["seq"], m["role"], m["type"]) for m in messages]


def test_each_shown_kind_becomes_a_message_with_its_own_fields() -> None:
    events = _events(
        "r1", ev.RunStarted(agent="a", input={"message": "hi"}),
        ev.Text(text="hello"), ev.Code(code="1+1", step="s1"),
        ev.CodeResult(ok=True, stdout="2\n", step="s1"),
        ev.Image(data_base64="aGk=", path="plot.png"),
        ev.Table(markdown="|a|\n|-|\n|1|"),
        ev.ToolCall(call_id="c1", name="calc", args={"x": 1}),
        ev.Progress(message="working"), ev.Log(message="noise"), ev.Debug(content={"d": 1}),
        ev.ToolResult(call_id="c1", name="calc", success=True, result={"v": 2}),
        ev.RunCompleted(output={}))
    messages = thread_messages([_run("r1")], events)
    assert _shape(messages) == [
        ("r1", 0, "user", "user_message"), ("r1", 2, "assistant", "text"),
        ("r1", 3, "assistant", "code"), ("r1", 4, "assistant", "code_result"),
        ("r1", 5, "assistant", "image"), ("r1", 6, "assistant", "table"),
        ("r1", 7, "assistant", "tool_call"), ("r1", 10, "assistant", "debug"),
        ("r1", 11, "assistant", "tool_result"), ("r1", 12, "assistant", "run_completed")]
    assert messages[0]["data"] == {"text": "hi"} and messages[0]["ts"] == "2026-01-02T03:04:05Z"
    assert messages[2]["data"] == {"code": "1+1", "language": "python", "step": "s1"}
    assert messages[3]["data"] == {"ok": True, "stdout": "2\n", "stderr": "", "error_type": None,
                                   "error_message": None, "step": "s1"}
    assert messages[4]["data"] == {"data_base64": "aGk=", "format": "png", "path": "plot.png"}
    assert messages[7]["data"] == {"content": {"d": 1}}
    assert messages[8]["data"] == {"call_id": "c1", "name": "calc", "success": True,
                                   "result": {"v": 2}, "error": None, "aborted": False}


def test_text_deltas_are_joined_per_stretch_when_no_text_event() -> None:
    events = _events(
        "r1", ev.TextDelta(delta="Hel"), ev.TextDelta(delta="lo"), ev.Metrics(),
        ev.TextDelta(delta="!"), ev.ToolCall(call_id="c", name="n"), ev.TextDelta(delta="done"),
        ev.RunCompleted())
    messages = thread_messages([_run("r1")], events)
    assert [(m["type"], m["seq"], m["data"].get("text")) for m in messages[1:]] == [
        ("text", 1, "Hello!"), ("metrics", 3, None), ("tool_call", 5, None),
        ("text", 6, "done"), ("run_completed", 7, None)]


def test_deltas_are_dropped_when_the_run_also_sent_its_text() -> None:
    events = _events("r1", ev.TextDelta(delta="Hel"), ev.TextDelta(delta="lo"),
                     ev.Text(text="Hello"), ev.RunCompleted())
    messages = thread_messages([_run("r1")], events)
    assert [(m["type"], m["data"]) for m in messages[1:]] == [
        ("text", {"text": "Hello"}), ("run_completed", {"output": {}})]


def test_failed_and_cancelled_runs_end_with_an_error_message() -> None:
    failed = _events("r1", ev.Text(text="trying"), ev.RunFailed(error="ValueError: boom"))
    cancelled = _events("r2", ev.Text(text="slow"), ev.RunCancelled())
    messages = thread_messages(
        [_run("r1", RunStatus.FAILED, error="ValueError: boom"), _run("r2", RunStatus.CANCELLED)],
        failed + cancelled)
    assert _shape(messages) == [
        ("r1", 0, "user", "user_message"), ("r1", 1, "assistant", "text"),
        ("r1", 2, "assistant", "error"), ("r1", 2, "assistant", "run_failed"),
        ("r2", 0, "user", "user_message"), ("r2", 1, "assistant", "text"),
        ("r2", 2, "assistant", "error"), ("r2", 2, "assistant", "run_cancelled")]
    assert messages[2]["data"] == {"message": "ValueError: boom", "code": "run_failed"}
    assert messages[6]["data"] == {"message": "cancelled", "code": "run_cancelled"}


def test_a_run_that_reported_its_error_gets_no_second_one() -> None:
    events = _events("r1", ev.Error(message="no model", code="model"), ev.RunFailed(error="x"))
    messages = thread_messages([_run("r1", RunStatus.FAILED)], events)
    assert [(m["type"], m["data"]) for m in messages[1:]] == [
        ("error", {"message": "no model", "code": "model"}),
        ("run_failed", {"error": "x", "code": None, "said": None})]


def test_interrupted_run_shows_its_question_and_runs_keep_their_order() -> None:
    first = _events("r1", ev.RunInterrupted(payload={"question": "go?"}))
    second = _events("r2", ev.Text(text="later"))
    messages = thread_messages([_run("r1", RunStatus.INTERRUPTED), _run("r2", message="next")],
                               list(reversed(second + first)))
    assert _shape(messages) == [
        ("r1", 0, "user", "user_message"), ("r1", 1, "assistant", "run_interrupted"),
        ("r2", 0, "user", "user_message"), ("r2", 1, "assistant", "text")]
    assert messages[1]["data"] == {"payload": {"question": "go?"}}


def test_iso_reads_naive_values_as_utc() -> None:
    assert iso(datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05Z"
    assert iso(None) is None


def test_map_commands_debug_entries_and_the_end_are_messages_in_their_order() -> None:
    """A reload restores the map and the debug pane, not only the chat."""
    events = _events(
        "r1", ev.Debug(content={"step": 1}), ev.MapShow(content={"floorId": "2F"}),
        ev.HighlightRoom(rooms=["Kitchen"]), ev.Arrow(room="Kitchen", direction="left"),
        ev.ClearArrows(), ev.ClearMap(), ev.RunCompleted())
    messages = thread_messages([_run("r1")], events)
    assert [(m["type"], m["data"]) for m in messages[1:]] == [
        ("debug", {"content": {"step": 1}}), ("map", {"content": {"floorId": "2F"}}),
        ("highlight_room", {"rooms": ["Kitchen"]}),
        ("arrow", {"room": "Kitchen", "direction": "left"}), ("clear_arrows", {}),
        ("clear_map", {}), ("run_completed", {"output": {}})]
