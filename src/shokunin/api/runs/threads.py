"""The threads API: list a face's threads, read one thread's runs and messages as the
user saw them, delete a thread. JSON; errors are ``{"error", "code"}`` (api/errors.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from shokunin.api.errors import ApiError
from shokunin.api.runs import sse
from shokunin.auth import principal
from shokunin.runs import Runner, access, delete_thread, iso, thread_messages
from shokunin.store import RunRow, ThreadSummary

router = APIRouter(prefix="/api", tags=["threads"])

MAX_LIMIT = 200


def runner_of(request: Request) -> Runner:
    return request.app.state.engine.runner


def thread_view(row: ThreadSummary) -> dict[str, Any]:
    return {"id": row.id, "agent": row.agent, "title": row.title,
            "created_at": iso(row.created_at), "updated_at": iso(row.updated_at),
            "run_count": row.run_count, "last_status": row.last_status}


def run_view(row: RunRow) -> dict[str, Any]:
    return {"id": row.id, "thread_id": row.thread_id, "agent": row.agent,
            "status": row.status, "input": row.input, "error": row.error,
            "created_at": iso(row.created_at), "finished_at": iso(row.finished_at),
            "usage": row.usage}


async def visible_thread(request: Request, thread_id: str) -> ThreadSummary:
    """Dependency: the thread's summary row, if the id is valid and the caller may see it."""
    return await access.visible_thread(runner_of(request).store, principal(request), thread_id)


def _limit(raw: str | None) -> int:
    if raw is None:
        return 50
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise ApiError(400, f"limit must be a whole number from 1 to {MAX_LIMIT}",
                       "bad_request")
    return int(raw)


def _before(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise ApiError(400, "before must be an ISO 8601 timestamp such as "
                       "2026-01-31T12:00:00Z (an updated_at from the list)",
                       "bad_request") from None
    return value.replace(tzinfo=value.tzinfo or UTC).astimezone(UTC)


@router.get("/threads")
async def list_threads(request: Request, agent: str | None = None, limit: str | None = None,
                       before: str | None = None) -> dict[str, Any]:
    rows = await access.listed_threads(runner_of(request).store, principal(request),
                                       agent=agent, limit=_limit(limit), before=_before(before))
    return {"threads": [thread_view(row) for row in rows]}


@router.get("/threads/{thread_id}")
async def get_thread(thread: ThreadSummary = Depends(visible_thread)) -> dict[str, Any]:
    return thread_view(thread)


@router.get("/threads/{thread_id}/runs")
async def get_thread_runs(request: Request, thread: ThreadSummary = Depends(visible_thread)
                          ) -> dict[str, Any]:
    runs = await runner_of(request).store.thread_runs(thread.id)
    return {"runs": [run_view(run) for run in runs]}


@router.get("/threads/{thread_id}/messages")
async def get_thread_messages(request: Request,
                              thread: ThreadSummary = Depends(visible_thread)
                              ) -> dict[str, Any]:
    store = runner_of(request).store
    runs = await store.thread_runs(thread.id)
    events = await store.thread_events(thread.id)
    return {"thread_id": thread.id, "messages": thread_messages(runs, events)}


@router.delete("/threads/{thread_id}", status_code=204)
async def remove_thread(request: Request, thread: ThreadSummary = Depends(visible_thread)
                        ) -> Response:
    deleted = await delete_thread(runner_of(request), thread.id)  # RunStateError: 409
    if not deleted:  # deleted by another request in between
        raise ApiError(404, f"no thread {thread.id!r}", "not_found")
    return Response(status_code=204)


async def thread_resume_point(request: Request,
                              thread: ThreadSummary = Depends(visible_thread),
                              resume: tuple[str, int] | None = Depends(sse.thread_resume_after)
                              ) -> tuple[str, int] | None:
    """Dependency: the resume point of a thread stream, whose run must be on that thread."""
    if resume is not None:
        run = await runner_of(request).store.get_run(resume[0])
        if run is None or run.thread_id != thread.id:
            raise ApiError(400, f"bad event id: run {resume[0][:100]!r} is not on thread "
                           f"{thread.id!r}", "bad_event_id")
    return resume


@router.get("/threads/{thread_id}/events", response_class=sse.EventSourceResponse)
async def thread_events(request: Request, thread: ThreadSummary = Depends(visible_thread),
                        resume: tuple[str, int] | None = Depends(thread_resume_point)
                        ) -> AsyncIterator[sse.ServerSentEvent]:
    """Every event of every run on the thread from now on (``id:`` ``<run_id>:<seq>``);
    resuming after ``<run_id>:<seq>`` first sends the rest of that run and every run
    started after it. The stream lasts until the client leaves."""
    runner = runner_of(request)
    after_run = None
    if resume is not None:
        after_run, seq = resume
        async for event in runner.stream(after_run, seq):
            yield sse.thread_event_message(event)
    async for event in runner.subscribe_thread(thread.id, after_run=after_run):
        yield sse.thread_event_message(event)
