"""The Advisor's sessions, playbook and diagrams, as the seed's React client uses them.

A session is a thread of the ``advisor`` agent; its profile (``user_info``, the client's
camelCase keys) is kept in the thread's meta. Messages and ``current_step`` are read from
the stored runs, so they survive a restart.

    POST   /api/session                {"user_info": {...}} -> {"session_id"}
    GET    /api/sessions               newest first
    DELETE /api/session/{id}
    POST   /api/session/{id}/clear     the conversation restarts; the profile is kept
    GET    /api/session/{id}/messages  {"messages": [{"role", "content"}], "current_step"}
                                       (+ each answer's tools and sources, the step's detail)
    POST   /api/session/{id}/step      {"step"}: the user moves the focus
    GET    /api/playbook               the steps
    GET    /api/diagrams/latest[?session_id=]   {"diagram": null | {"filename", "url"}}
    GET    /api/diagrams/{filename}    the PNG
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from shokunin import events as ev
from shokunin.agents.advisor import NAME as AGENT
from shokunin.agents.advisor import UNKNOWN, sessions
from shokunin.api.errors import ApiError, json_object
from shokunin.auth import principal
from shokunin.engine import Engine
from shokunin.runs import ThreadNotFound
from shokunin.store import SafeTree, ThreadRow, UnsafePath

router = APIRouter(prefix="/api", tags=["advisor"])

PROFILE_KEYS = ("industry", "products", "companySize", "region", "clientIndustry",
                "priceTransferStatus")
MAX_PROFILE_VALUE = 500
DIAGRAMS = "diagrams"
SEARCHED_SESSIONS = 1000  # for a diagram asked for by file name alone
MAX_DIAGRAM_BYTES = 32 * 1024 * 1024
_DIAGRAM_NAME = re.compile(r"^[0-9a-f]{8,64}\.png$")


def _engine(request: Request) -> Engine:
    return request.app.state.engine


def advisor(request: Request) -> Any:
    """The Advisor agent; 503 with the reason when its playbook could not be loaded."""
    runner = _engine(request).runner
    agent = runner.agents.get(AGENT)
    if agent is None:
        why = _engine(request).why_unavailable("advisor") or "it is not configured"
        raise ApiError(503, f"the Advisor is unavailable: {why}", "advisor_unavailable")
    return agent


def _profile(raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ApiError(400, "'user_info' must be an object with any of "
                       f"{', '.join(PROFILE_KEYS)}", "bad_request")
    unknown = sorted(set(raw) - set(PROFILE_KEYS))
    if unknown:
        raise ApiError(400, f"unknown user_info keys {unknown[:5]}; use "
                       f"{', '.join(PROFILE_KEYS)}", "bad_request")
    profile = {}
    for key, value in raw.items():
        if value is None:
            continue
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ApiError(400, f"user_info.{key} must be text", "bad_request")
        if len(str(value)) > MAX_PROFILE_VALUE:
            raise ApiError(400, f"user_info.{key} is longer than {MAX_PROFILE_VALUE} "
                           "characters", "bad_request")
        profile[key] = str(value)
    return profile


async def advisor_session(request: Request, session_id: str) -> ThreadRow:
    """The session's thread, if it exists, is an Advisor session and the caller may see it."""
    advisor(request)
    return await sessions.session(_engine(request).store, principal(request), session_id)


@router.post("/session")
async def create_session(request: Request) -> dict[str, Any]:
    advisor(request)
    body = await json_object(request, '{"user_info": {"industry": "...", ...}}')
    profile = _profile(body.get("user_info"))
    title = " / ".join(v for k, v in profile.items() if k in ("industry", "products"))
    session_id = await sessions.open_session(_engine(request).store, principal(request),
                                             profile, title)
    return {"session_id": session_id}


@router.get("/sessions")
async def list_sessions(request: Request, limit: int = 50) -> dict[str, Any]:
    threads = await sessions.session_ids(_engine(request).store, principal(request),
                                         max(1, min(limit, 200)))
    return {"sessions": [{"session_id": t.id, "title": t.title,
                          "created_at": t.created_at, "updated_at": t.updated_at}
                         for t in threads]}


@router.delete("/session/{session_id}")
async def delete_session(request: Request, session_id: str) -> dict[str, Any]:
    advisor(request)
    await sessions.delete(_engine(request).runner, principal(request), session_id)
    return {"deleted": session_id}


@router.post("/session/{session_id}/clear")
async def clear_session(request: Request, session_id: str) -> dict[str, Any]:
    """Forget the conversation and its step (runs, events, checkpoints, diagrams); the
    session id and its profile stay."""
    advisor(request)
    await sessions.clear(_engine(request).runner, principal(request), session_id)
    return {"session_id": session_id, "cleared": True}


async def conversation(store: Any, session_id: str
                       ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The session's messages as the user saw them (an answer with its tool calls and
    knowledge sources; an answer stopped or broken mid-way is kept as far as it was
    written, marked ``"stopped": true``, as the origin keeps it), and the last step update
    (None: 未判定)."""
    messages: list[dict[str, Any]] = []
    step: dict[str, Any] | None = None
    runs = {run.id: run for run in await store.thread_runs(session_id)}
    tools: dict[str, list[dict[str, Any]]] = {}
    sources: dict[str, list[dict[str, Any]]] = {}
    written: dict[str, str] = {}  # the streamed text of an answer not yet whole

    def answer(run_id: str, text: str, **more: Any) -> None:
        messages.append({"role": "assistant", "content": text,
                         "tools": tools.pop(run_id, []), "sources": sources.pop(run_id, []),
                         **more})

    for event in await store.thread_events(session_id):
        run = runs.get(event.run_id)
        if run is None:
            continue
        message = (run.input or {}).get("message")
        if isinstance(event, ev.RunStarted) and isinstance(message, str):
            messages.append({"role": "user", "content": message})
        elif isinstance(event, ev.ToolCall):
            tools.setdefault(event.run_id, []).append({"tool": event.name, "args": event.args})
        elif isinstance(event, ev.ToolResult) and event.name == "search_knowledge_base":
            hits = (event.result or {}).get("results", []) if event.success else []
            sources[event.run_id] = [{k: h.get(k) for k in ("source", "heading", "score")}
                                     for h in hits]
        elif isinstance(event, ev.TextDelta):
            written[event.run_id] = written.get(event.run_id, "") + event.delta
        elif isinstance(event, ev.Text):
            written.pop(event.run_id, None)
            answer(event.run_id, event.text)
        elif isinstance(event, ev.RunCancelled | ev.RunFailed) and written.get(event.run_id):
            answer(event.run_id, written.pop(event.run_id), stopped=True)
        elif isinstance(event, ev.StepUpdate):
            step = {"step": event.step, "confidence": event.confidence,
                    "reasoning": event.reasoning}
    return messages, step


@router.get("/session/{session_id}/messages")
async def session_messages(request: Request, session_id: str) -> dict[str, Any]:
    thread = await advisor_session(request, session_id)
    messages, step = await conversation(_engine(request).store, session_id)
    current = None if step is None or step["step"] == UNKNOWN else step["step"]
    return {"messages": messages, "current_step": current, "step": step,
            "user_info": (thread.meta or {}).get("user_info") or {}}


@router.post("/session/{session_id}/step")
async def set_step(request: Request, session_id: str) -> dict[str, Any]:
    await advisor_session(request, session_id)
    body = await json_object(request, '{"step": "STEP_0_CHECK_3"}')
    step = body.get("step")
    agent = advisor(request)
    if not isinstance(step, str) or (step != UNKNOWN and agent.playbook.step(step) is None):
        raise ApiError(400, f"'step' must be one of the playbook's step ids or {UNKNOWN}",
                       "bad_request")
    run_id = await sessions.set_step(_engine(request).runner, principal(request), session_id,
                                     step)
    return {"session_id": session_id, "run_id": run_id, "step": step}


@router.get("/playbook")
async def playbook(request: Request) -> dict[str, Any]:
    book = advisor(request).playbook
    return {"id": book.id, "title": book.title, "language": book.language,
            "unknown": {"id": UNKNOWN, **book.unknown.model_dump()},
            "steps": [{"id": s.id, "title": s.title, "description": s.description,
                       "examples": s.examples, "tools": s.tools, "next": s.next}
                      for s in book.steps]}


def _diagram_files(workspace: Path) -> list[tuple[int, str]]:
    """(mtime, file name) of the session's diagrams: plain files only, links skipped."""
    tree = SafeTree(workspace)
    found = []
    for name in tree.files(DIAGRAMS):
        if _DIAGRAM_NAME.match(name.removeprefix(f"{DIAGRAMS}/")):
            with contextlib.suppress(OSError, UnsafePath):
                found.append((tree.stat(name).st_mtime_ns, name.removeprefix(f"{DIAGRAMS}/")))
    return found


def _diagram_png(workspace: Path, filename: str) -> bytes | None:
    try:
        return SafeTree(workspace).read_bytes(f"{DIAGRAMS}/{filename}", MAX_DIAGRAM_BYTES)
    except (OSError, UnsafePath):
        return None


async def _sessions_to_search(request: Request, session_id: str | None,
                              limit: int = 50) -> list[str]:
    if session_id:
        await advisor_session(request, session_id)
        return [session_id]
    threads = await sessions.session_ids(_engine(request).store, principal(request), limit)
    return [t.id for t in threads]


@router.get("/diagrams/latest")
async def latest_diagram(request: Request, session_id: str | None = None) -> dict[str, Any]:
    """The newest diagram of the session (or of the caller's recent sessions). A session
    that does not exist (deleted, another user's) has none: ``{"diagram": null}``, as the
    origin answers its client, which polls every 2 s; a malformed id is still a 400."""
    runner = _engine(request).runner
    try:
        searched = await _sessions_to_search(request, session_id)
    except ThreadNotFound:
        return {"diagram": None}
    files = [(*f, sid) for sid in searched
             for f in await asyncio.to_thread(_diagram_files, runner.workspace(sid))]
    if not files:
        return {"diagram": None}
    _, name, sid = max(files)
    return {"diagram": {"filename": name, "url": f"/api/diagrams/{name}?session_id={sid}"}}


@router.get("/diagrams/{filename}")
async def diagram_file(request: Request, filename: str,
                       session_id: str | None = None) -> Response:
    """The PNG; ``session_id`` (as ``latest`` gives it) says where, else the caller's
    sessions are searched, newest first."""
    if not _DIAGRAM_NAME.match(filename):
        raise ApiError(404, f"no diagram {filename[:80]!r}", "not_found")
    runner = _engine(request).runner
    for sid in await _sessions_to_search(request, session_id, limit=SEARCHED_SESSIONS):
        png = await asyncio.to_thread(_diagram_png, runner.workspace(sid), filename)
        if png is not None:
            return Response(png, media_type="image/png")
    raise ApiError(404, f"no diagram {filename!r}", "not_found")
