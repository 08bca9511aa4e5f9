"""The Advisor's chat over SSE, in the wire form the seed's React client (and its later
version) reads.

``POST /api/chat`` with ``{"message", "session_id"}`` starts a run and streams it; every
message is one ``data: <json>`` line, switched on ``type``:

    run         {run_id, session_id}  first: where to resume
    status      {status: thinking | tool_use | none, message[, tool]}  what the answer is
                waiting for, as the later client shows it (思考中... / 検索中... / none)
    content     {data: the whole answer so far, delta: what this event added}; a tool's
                marker 「*[<tool> を使用中]*」 stays in it, as the seed client draws it
    tool_use    {tool, args}          once per tool call
    step_update {step, title, confidence, reasoning}  (a question with no step yet sends
                none; UNKNOWN comes only when the user chooses it, POST .../step)
    sources     {sources: [{source, heading, score}]}  knowledge-base hits
    diagram     {diagram: {filename, url}}
    done        {content, current_step}
    error       {code, error: what the user reads, in the playbook's language, and what to
                do (a model's failure: its class's sentence, code model_unreachable ...);
                detail: the developer's text, when there is one}

The message that ends an event's messages carries ``id: <seq>``. A client that dropped
resumes with ``GET /api/chat/runs/{run_id}/events`` and ``Last-Event-ID`` (the content so
far is rebuilt from the stored events); ``GET /api/runs/{run_id}/events`` gives the
engine's own events. A client that leaves ``POST /api/chat`` (the later client's stop
button aborts its fetch) cancels the run; its events stay stored.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request

from shokunin import events as ev
from shokunin.agents.advisor import MAX_MESSAGE_CHARS, UNKNOWN, sessions
from shokunin.agents.advisor import NAME as AGENT
from shokunin.api.advisor import wording
from shokunin.api.advisor.sessions import DIAGRAMS, advisor
from shokunin.api.errors import ApiError
from shokunin.api.runs import sse
from shokunin.api.runs.runs import visible_run
from shokunin.auth import principal
from shokunin.errors import ShokuninError, user_language
from shokunin.runs import follow
from shokunin.store import RunRow

router = APIRouter(prefix="/api", tags=["advisor"])

THINKING = "思考中..."
# what the later client shows while a tool runs (the origin's own words)
TOOL_STATUS = {"web_search": "検索中...", "search_knowledge_base": "検索中...",
               "generate_diagram": "図を生成中...", "calculator": "計算中..."}


def tool_marker(tool: str) -> str:
    """The seed client's marker for a tool call, kept in the answer's text on the wire."""
    return f"\n\n*[{tool} を使用中]*\n\n"


def _message(payload: dict[str, Any], seq: int | None = None) -> sse.ServerSentEvent:
    return sse.ServerSentEvent(id=None if seq is None else str(seq),
                               raw_data=json.dumps(payload, ensure_ascii=False))


def _error(problem: wording.Problem, language: str, code: str | None = None,
           detail: str | None = None, **fill: Any) -> dict[str, Any]:
    """Every error of the Advisor's chat, before a run or in it: ``{"type": "error",
    "code", "error"[, "detail"]}``; ``error`` is ``problem`` in the user's language,
    ``code`` the error's own machine code (else the problem's)."""
    payload = {"type": "error", "code": str(code or problem.code),
               "error": problem.said(language).format(**fill)}
    if detail:
        payload["detail"] = detail
    return payload


def _failure(exc: ShokuninError, language: str) -> dict[str, Any]:
    return _error(wording.problem_of(exc), language, exc.code, exc.message)


def _status(status: str, message: str = "", tool: str | None = None) -> dict[str, Any]:
    """The later client's status line, keys in the origin's order."""
    if tool is None:
        return {"type": "status", "status": status, "message": message}
    return {"type": "status", "status": status, "tool": tool,
            "message": TOOL_STATUS.get(tool, f"{tool}を実行中...")}


class ChatWire:
    """Engine events -> the client's messages; keeps what the client shows so far."""

    def __init__(self, titles: dict[str, str], language: str) -> None:
        self.content = ""  # the answer so far, with the tools' markers
        self.answer_from = 0  # where the answer's text since the last marker starts
        self.titles = titles
        self.language = language
        self.step: str | None = None
        self.thinking = False

    def _answered(self) -> list[dict[str, Any]]:
        if not self.thinking:
            return []
        self.thinking = False
        return [_status("none")]

    def payloads(self, event: ev.BaseEvent) -> list[dict[str, Any]]:
        if isinstance(event, ev.RunStarted):
            self.thinking = True
            return [{"type": "run", "run_id": event.run_id, "session_id": event.thread_id},
                    _status("thinking", THINKING)]
        if isinstance(event, ev.TextDelta):
            self.content += event.delta
            return [*self._answered(),
                    {"type": "content", "data": self.content, "delta": event.delta}]
        if isinstance(event, ev.Text):  # the whole answer: what was streamed, or all of it
            before, self.content = self.content, self.content[:self.answer_from] + event.text
            if self.content == before:
                return self._answered()
            return [*self._answered(), {"type": "content", "data": self.content, "delta": ""}]
        if isinstance(event, ev.ToolCall):
            self.content += tool_marker(event.name)
            self.answer_from = len(self.content)
            self.thinking = False
            return [_status("tool_use", tool=event.name),
                    {"type": "tool_use", "tool": event.name, "args": event.args}]
        if isinstance(event, ev.ToolResult):
            self.thinking = True
            out = [_status("thinking", THINKING)]
            if event.name == "search_knowledge_base":
                hits = (event.result or {}).get("results", []) if event.success else []
                out.append({"type": "sources", "sources": [
                    {k: h.get(k) for k in ("source", "heading", "score")} for h in hits]})
            return out
        if isinstance(event, ev.Image) and event.path and event.path.startswith(
                f"{DIAGRAMS}/"):
            name = event.path.rsplit("/", 1)[-1]
            return [{"type": "diagram", "diagram": {
                "filename": name, "url": f"/api/diagrams/{name}?session_id={event.thread_id}"}}]
        if isinstance(event, ev.StepUpdate):
            self.step = None if event.step == UNKNOWN else event.step
            return [{"type": "step_update", "step": event.step,
                     "title": self.titles.get(event.step, ""),
                     "confidence": event.confidence, "reasoning": event.reasoning}]
        if isinstance(event, ev.RunCompleted):
            self.thinking = True  # the origin always clears the status before done
            return [*self._answered(),
                    {"type": "done", "content": self.content, "current_step": self.step}]
        if isinstance(event, ev.RunFailed):
            self.thinking = True
            if event.said:  # a failure the user can act on (a model's): its own sentence
                said = event.said.get(user_language(self.language, default="ja"))
                return [*self._answered(), {"type": "error", "code": event.code or "run_failed",
                                            "error": said or event.error, "detail": event.error}]
            return [*self._answered(),
                    _error(wording.FAILED, self.language, detail=event.error)]
        if isinstance(event, ev.RunCancelled):
            self.thinking = True
            return [*self._answered(), _error(wording.CANCELLED, self.language)]
        return []


def _language(request: Request) -> str:
    agent = request.app.state.engine.runner.agents.get(AGENT)
    return agent.playbook.language if agent is not None else "ja"


def _titles(request: Request) -> dict[str, str]:
    book = advisor(request).playbook
    return {UNKNOWN: book.unknown.title, **{s.id: s.title for s in book.steps}}


async def _stream(request: Request, run_id: str, after: int = 0, *,
                  cancel_on_exit: bool = False) -> AsyncIterator[sse.ServerSentEvent]:
    """The run's messages after ``after``; with ``cancel_on_exit``, a client that leaves
    before the end cancels the run (``runs.follow``)."""
    runner = request.app.state.engine.runner
    wire = ChatWire(_titles(request), _language(request))
    if after:  # rebuild the answer so far from what the client already saw
        for event in await runner.store.events_after(run_id, 0):
            if event.seq <= after:
                wire.payloads(event)
    try:
        async with contextlib.aclosing(follow(runner, run_id, after_seq=after,
                                              cancel_on_exit=cancel_on_exit)) as events:
            async for event in events:
                payloads = wire.payloads(event)
                for i, payload in enumerate(payloads, start=1):
                    # the id goes on an event's last message: a client resuming from it
                    # has seen all of that event
                    yield _message(payload, event.seq if i == len(payloads) else None)
    except ShokuninError as exc:  # RunNotFound: deleted while we were about to stream it
        yield _message(_failure(exc, wire.language))


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
    language = _language(request)
    message = body.get("message") if isinstance(body, dict) else None
    session_id = body.get("session_id") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        yield _message(_error(wording.NO_MESSAGE, language, detail=(
            'send {"message": "...", "session_id": "..."}')))
        return
    if not isinstance(session_id, str) or not session_id:
        yield _message(_error(wording.NO_SESSION, language, wording.NO_MESSAGE.code, detail=(
            'send {"message": "...", "session_id": "..."} (create a session with '
            "POST /api/session)")))
        return
    if len(message) > MAX_MESSAGE_CHARS:
        yield _message(_error(wording.TOO_LONG, language, limit=MAX_MESSAGE_CHARS, detail=(
            f"the message is longer than {MAX_MESSAGE_CHARS} characters")))
        return
    try:
        advisor(request)
        run_id = await sessions.ask(request.app.state.engine.runner, principal(request),
                                    session_id, message)
    except ShokuninError as exc:
        yield _message(_failure(exc, language))
        return
    async with contextlib.aclosing(_stream(request, run_id, cancel_on_exit=True)) as stream:
        async for item in stream:
            yield item


@router.get("/chat/runs/{run_id}/events", response_class=sse.EventSourceResponse)
async def chat_events(request: Request, run: RunRow = Depends(visible_run),
                      after: int = Depends(sse.resume_after)
                      ) -> AsyncIterator[sse.ServerSentEvent]:
    if run.agent != AGENT:
        raise ApiError(404, f"run {run.id!r} is not an Advisor run", "not_found")
    async with contextlib.aclosing(_stream(request, run.id, after)) as stream:
        async for item in stream:
            yield item
