"""A thread's history: its stored events turned into the messages the user saw.

Each run gives its user message (the run's input, seq 0), then one message per shown
event (text, code, code results, images, tables, tool calls and results, errors, a wait
for a human, and what a face shows beside the chat: map commands, debug entries, token
usage and the run's end, so a reload restores the map and the debug pane too). Text that
came only as ``text_delta`` events is joined into one ``text`` message per stretch of
deltas (side kinds do not end a stretch); a failed or cancelled run ends with an ``error``
message unless it already has one. Progress and logs are not messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from shokunin import events as ev
from shokunin.store import RunRow, RunStatus

CHAT_KINDS = frozenset({"text", "code", "code_result", "image", "table", "tool_call",
                        "tool_result", "error", "run_interrupted"})
# Shown beside the chat: they do not end a stretch of text deltas.
SIDE_KINDS = frozenset({"debug", "map", "highlight_room", "arrow", "clear_arrows", "clear_map",
                        "metrics", "run_completed", "run_failed", "run_cancelled"})
SHOWN_KINDS = CHAT_KINDS | SIDE_KINDS
_ENVELOPE = {"run_id", "thread_id", "seq", "ts", "kind"}
_ENDING_CODES = {RunStatus.FAILED: "run_failed", RunStatus.CANCELLED: "run_cancelled"}


def iso(value: datetime | None) -> str | None:
    """An ISO 8601 UTC timestamp ending in ``Z``; a naive value (SQLite) is UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _message(event: ev.BaseEvent, role: str, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": event.run_id, "seq": event.seq, "ts": iso(event.ts), "role": role,
            "type": kind, "data": data}


def _run_messages(run: RunRow, events: list[ev.BaseEvent]) -> list[dict[str, Any]]:
    user = {"run_id": run.id, "seq": 0, "ts": iso(run.created_at), "role": "user",
            "type": "user_message", "data": {"text": str(run.input.get("message", ""))}}
    messages = [user]
    has_text = any(e.kind == "text" for e in events)
    deltas: list[ev.TextDelta] = []

    def flush() -> None:
        if deltas:
            messages.append(_message(deltas[0], "assistant", "text",
                                     {"text": "".join(d.delta for d in deltas)}))
            deltas.clear()

    terminal: ev.BaseEvent | None = None
    for event in events:
        kind = event.kind
        if isinstance(event, ev.TextDelta):
            if not has_text:
                deltas.append(event)
        elif kind in SHOWN_KINDS:
            if kind in CHAT_KINDS:
                flush()
            messages.append(_message(event, "assistant", kind,
                                     event.model_dump(mode="json", exclude=_ENVELOPE)))
        if ev.is_terminal(event):
            terminal = event
    flush()
    code = _ENDING_CODES.get(run.status)
    if code is not None and not any(m["type"] == "error" for m in messages):
        if isinstance(terminal, ev.RunFailed):
            text = terminal.error
        elif isinstance(terminal, ev.RunCancelled):
            text = terminal.reason
        else:
            text = run.error or str(run.status)
        where = terminal or (events[-1] if events else None)
        messages.append({"run_id": run.id, "seq": where.seq if where else 0,
                         "ts": iso(where.ts if where else run.finished_at),
                         "role": "assistant", "type": "error",
                         "data": {"message": text, "code": code}})
    # Joined deltas keep their first seq; a failed run's error goes before its end, as live.
    return sorted(messages, key=lambda m: (m["seq"], m["type"] in SIDE_KINDS))


def thread_messages(
    runs: Iterable[RunRow], events: Iterable[ev.BaseEvent]
) -> list[dict[str, Any]]:
    """The thread's messages, oldest first: ``runs`` (store rows, oldest first) and the
    thread's stored ``events`` (any order within a run)."""
    by_run: dict[str, list[ev.BaseEvent]] = {}
    for event in events:
        by_run.setdefault(event.run_id, []).append(event)
    messages: list[dict[str, Any]] = []
    for run in runs:
        messages += _run_messages(run, sorted(by_run.get(run.id, []), key=lambda e: e.seq))
    return messages
