"""The Advisor's chat over SSE, in the wire form the seed's React client reads.

``POST /api/chat`` with ``{"message", "session_id"}`` starts a run and streams it; every
message is ``id: <seq>`` and one ``data: <json>`` line, switched on ``type``:

    content     {data: the whole answer so far, delta: what this event added}
    tool_use    {tool, args}          once per tool call
    step_update {step, title, confidence, reasoning}
    done        {content, current_step}
    error       {error, code}
    run         {run_id, session_id}  first: where to resume
    sources     {sources: [{source, heading, score}]}  knowledge-base hits
    diagram     {diagram: {filename, url}}

The old client ignores ``id:`` lines and the extra types. A client that dropped resumes
with ``GET /api/chat/runs/{run_id}/events`` and ``Last-Event-ID`` (the content so far is
rebuilt from the stored events); ``GET /api/runs/{run_id}/events`` gives the engine's own
events. A disconnect never cancels the run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request

from shokunin import events as ev
from shokunin.agents.advisor import MAX_MESSAGE_CHARS, UNKNOWN, sessions
from shokunin.agents.advisor import NAME as AGENT
from shokunin.api.advisor.sessions import DIAGRAMS, advisor
from shokunin.api.errors import ApiError
from shokunin.api.runs import sse
from shokunin.api.runs.runs import visible_run
from shokunin.auth import principal
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.store import RunRow

router = APIRouter(prefix="/api", tags=["advisor"])


def _message(payload: dict[str, Any], seq: int | None = None) -> sse.ServerSentEvent:
    return sse.ServerSentEvent(id=None if seq is None else str(seq),
                               raw_data=json.dumps(payload, ensure_ascii=False))


def _error(exc: ShokuninError, hint: str = "") -> sse.ServerSentEvent:
    """A ``ShokuninError`` in the Advisor's stream (seed 001): a data-only message
    ``{"type": "error", "error", "code"}``; ``hint`` says what to do next."""
    return _message({"type": "error", "error": exc.message + hint, "code": exc.code})


class ChatWire:
    """Engine events -> the client's messages; keeps the answer so far."""

    def __init__(self, titles: dict[str, str]) -> None:
        self.content = ""
        self.titles = titles
        self.step: str | None = None

    def payload(self, event: ev.BaseEvent) -> dict[str, Any] | None:
        if isinstance(event, ev.TextDelta):
            self.content += event.delta
            return {"type": "content", "data": self.content, "delta": event.delta}
        if isinstance(event, ev.Text):
            self.content = event.text
            return {"type": "content", "data": self.content, "delta": ""}
        if isinstance(event, ev.ToolCall):
            return {"type": "tool_use", "tool": event.name, "args": event.args}
        if isinstance(event, ev.ToolResult) and event.name == "search_knowledge_base":
            hits = (event.result or {}).get("results", []) if event.success else []
            return {"type": "sources", "sources": [
                {k: h.get(k) for k in ("source", "heading", "score")} for h in hits]}
        if isinstance(event, ev.Image) and event.path and event.path.startswith(
                f"{DIAGRAMS}/"):
            name = event.path.rsplit("/", 1)[-1]
            return {"type": "diagram", "diagram": {
                "filename": name, "url": f"/api/diagrams/{name}?session_id={event.thread_id}"}}
        if isinstance(event, ev.StepUpdate):
            self.step = None if event.step == UNKNOWN else event.step
            return {"type": "step_update", "step": event.step,
                    "title": self.titles.get(event.step, ""),
                    "confidence": event.confidence, "reasoning": event.reasoning}
        if isinstance(event, ev.RunCompleted):
            return {"type": "done", "content": self.content, "current_step": self.step}
        if isinstance(event, ev.RunFailed):
            return {"type": "error", "error": event.error, "code": "run_failed"}
        if isinstance(event, ev.RunCancelled):
            return {"type": "error", "error": "the answer was cancelled", "code": "cancelled"}
        if isinstance(event, ev.RunStarted):
            return {"type": "run", "run_id": event.run_id, "session_id": event.thread_id}
        return None


def _titles(request: Request) -> dict[str, str]:
    book = advisor(request).playbook
    return {UNKNOWN: book.unknown.title, **{s.id: s.title for s in book.steps}}


async def _stream(request: Request, run_id: str, after: int = 0
                  ) -> AsyncIterator[sse.ServerSentEvent]:
    runner = request.app.state.engine.runner
    wire = ChatWire(_titles(request))
    if after:  # rebuild the answer so far from what the client already saw
        for event in await runner.store.events_after(run_id, 0):
            if event.seq <= after:
                wire.payload(event)
    try:
        async for event in runner.stream(run_id, after):
            payload = wire.payload(event)
            if payload is not None:
                yield _message(payload, event.seq)
    except ShokuninError as exc:  # RunNotFound: deleted while we were about to stream it
        yield _error(exc)


async def _json_body(request: Request) -> Any:
    """The body, read before the stream starts (a generator route cannot read it later);
    None when it is not JSON: the stream then says so as an error event."""
    try:
        return await request.json()
    except ValueError:
        return None


@router.post("/chat", response_class=sse.EventSourceResponse)
async def chat(request: Request, body: Any = Depends(_json_body)
               ) -> AsyncIterator[sse.ServerSentEvent]:
    message = body.get("message") if isinstance(body, dict) else None
    session_id = body.get("session_id") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip() or not isinstance(session_id, str):
        yield _message({"type": "error", "code": "bad_request", "error": (
            'send {"message": "...", "session_id": "..."} (create a session with '
            "POST /api/session)")})
        return
    if len(message) > MAX_MESSAGE_CHARS:
        yield _message({"type": "error", "code": "bad_request", "error": (
            f"the message is longer than {MAX_MESSAGE_CHARS} characters")})
        return
    try:
        advisor(request)
        run_id = await sessions.ask(request.app.state.engine.runner, principal(request),
                                    session_id, message)
    except ShokuninError as exc:  # the seed client's order: type, code, error
        hint = "; create a session with POST /api/session" \
            if exc.code == ErrorCode.NOT_FOUND else ""
        yield _message({"type": "error", "code": exc.code, "error": exc.message + hint})
        return
    async for item in _stream(request, run_id):
        yield item


@router.get("/chat/runs/{run_id}/events", response_class=sse.EventSourceResponse)
async def chat_events(request: Request, run: RunRow = Depends(visible_run),
                      after: int = Depends(sse.resume_after)
                      ) -> AsyncIterator[sse.ServerSentEvent]:
    if run.agent != AGENT:
        raise ApiError(404, f"run {run.id!r} is not an Advisor run", "not_found")
    async for item in _stream(request, run.id, after):
        yield item
