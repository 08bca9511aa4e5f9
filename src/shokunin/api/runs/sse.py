"""Server-sent events, the one way every stream is sent.

Streams are FastAPI generator routes with ``response_class=EventSourceResponse``
(``fastapi.sse``): FastAPI writes the wire format, sends a keep-alive comment when a
stream is idle, and cancels the generator when the client leaves. Each message from a run
has ``event:`` = the event kind (or the face's own name for it), ``id:`` = the event's seq
and ``data:`` = JSON. A client resumes after the seq it last saw with the ``Last-Event-ID``
header (browsers' EventSource sends it on reconnect) or the ``after`` query parameter.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from fastapi import Request
from fastapi.sse import EventSourceResponse, ServerSentEvent

from shokunin import events as ev
from shokunin.api.errors import ApiError
from shokunin.errors import ShokuninError
from shokunin.runs import Runner, follow

__all__ = ["EventSourceResponse", "ServerSentEvent", "error_message", "event_message",
           "resume_after", "run_messages", "thread_event_message", "thread_resume_after"]

MAX_SEQ = 2**63 - 1  # seq is a 64-bit integer in the store

Translate = Callable[[ev.BaseEvent], ServerSentEvent | None]


def error_message(exc: ShokuninError) -> ServerSentEvent:
    """A ``ShokuninError`` once a stream has begun: ``event: error``, ``data:`` the JSON
    error form ``{"error", "code"}`` (before it begins, the HTTP answer says it)."""
    return ServerSentEvent(event="error", data={"error": exc.message, "code": exc.code})


def event_message(event: ev.BaseEvent) -> ServerSentEvent:
    """The event as it is: ``event:`` kind, ``id:`` seq, ``data:`` the event's JSON."""
    return ServerSentEvent(event=event.kind, id=str(event.seq),
                           raw_data=event.model_dump_json())


def thread_event_message(event: ev.BaseEvent) -> ServerSentEvent:
    """As ``event_message``, for a stream of many runs: ``id:`` is ``<run_id>:<seq>``. A
    thread's own event (no run: a Studio project's status) carries no id, so the browser's
    ``Last-Event-ID`` stays a run event's, which this stream can resume from."""
    return ServerSentEvent(event=event.kind,
                           id=f"{event.run_id}:{event.seq}" if event.run_id else None,
                           raw_data=event.model_dump_json())


def _last_event_id(request: Request, after: str | None) -> str | None:
    return request.headers.get("last-event-id") or after or None


def thread_resume_after(request: Request, after: str | None = None) -> tuple[str, int] | None:
    """Dependency: the ``(run_id, seq)`` a thread stream resumes after (``Last-Event-ID``
    ``<run_id>:<seq>``, else ``?after=``); None to start from now."""
    raw = _last_event_id(request, after)
    if raw is None:
        return None
    run_id, _, seq = raw.rpartition(":")
    if not run_id or not seq.isascii() or not seq.isdigit() or int(seq) > MAX_SEQ:
        raise ApiError(400, f"bad event id {raw[:140]!r}: resume a thread stream with the "
                       "last id received, <run_id>:<seq>", "bad_event_id")
    return run_id, int(seq)


def resume_after(request: Request, after: str | None = None) -> int:
    """Dependency: the seq a client resumes after (``Last-Event-ID``, else ``?after=``),
    0 for the whole stream; a value that is not a seq is a 400 before the stream starts."""
    raw = _last_event_id(request, after)
    if raw is None:
        return 0
    if not raw.isascii() or not raw.isdigit() or int(raw) > MAX_SEQ:
        raise ApiError(400, f"bad event id {raw[:40]!r}: resume with the last seq received "
                       "(Last-Event-ID header or ?after=), a whole number", "bad_event_id")
    return int(raw)


async def run_messages(
    runner: Runner, run_id: str, after: int = 0, translate: Translate = event_message,
    *, end: bool = True, cancel_on_exit: bool = False,
) -> AsyncIterator[ServerSentEvent]:
    """The run's events after ``after`` (stored, then live until the run ends) as SSE
    messages; with ``end``, a final ``end`` message (no id) says the run's status, so a
    client knows the stream closed on purpose and does not reconnect. With
    ``cancel_on_exit``, a client that leaves before the end cancels the run
    (``runs.follow``): the stream was the only one waiting for it."""
    try:
        async for event in follow(runner, run_id, after_seq=after,
                                  cancel_on_exit=cancel_on_exit):
            message = translate(event)
            if message is not None:
                yield message
    except ShokuninError as exc:  # RunNotFound: deleted while we were about to stream it
        yield error_message(exc)
        return
    if end:
        run = await runner.store.get_run(run_id)
        yield ServerSentEvent(event="end", data={
            "run_id": run_id, "status": run.status if run else "deleted"})
