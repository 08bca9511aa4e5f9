"""The Studio's Socket.IO face (seed 002 section 1): python-socketio on the server's own
port at ``/socket.io``, behind the same perimeter (Origin, auth) as every route.

Client events: ``subscribe:project`` and ``unsubscribe:project`` (a bare project id
string), ``checkpoint:resolve`` ({checkpointId, resolution, feedback?}). A subscriber joins
the project's room of its dialect and gets ``connection:state_sync``, a snapshot read from
the records: Socket.IO does not replay what a client missed while away, so every
(re)subscription starts from the server's state. Bad input is answered with
``error:state`` (and in the event's acknowledgement), never by dropping the connection.

An Engine.IO connection holds a lease (``live.py``) from the moment it opens, joined to
Socket.IO or not: past the caps its Socket.IO connect is refused (``connect_error`` with
``data: {"code": "too_many_streams"}``) and the Engine.IO connection closed; one that has not
joined within ``JOIN_SEC`` is closed. When its API key is revoked the session gets an
``error:state`` (``errorType: unauthorized``) and the Engine.IO connection itself is closed,
so no new Socket.IO connect can follow on it; the key is checked again before a
subscription or a checkpoint resolution.

A connection that names no dialect gets ``both`` (``wire.py``): every message in the
seed's form and the seed project's React client's at once, so either kind of client works
with no setting. Nothing either sends tells them apart: the React client connects with
``io('', {transports: ['websocket', 'polling']})``, no query, no auth, no extra header, and
subscribes with a bare id and no acknowledgement, exactly as a client written from the seed
does (shokunin's own Studio page among them). ``?dialect=seed`` or ``?dialect=client`` asks
for one form alone.

Events are read through the Runner (``Runner.follow_thread``): the project's runs' events
and its own (a status changed by a person, a checkpoint resolved), every one stored before
it is sent. A subscriber that wants to miss none across a reconnect subscribes with
``{"projectId", "after": null}``: each message it gets then carries a ``position``, and a
later subscription with ``{"projectId", "after": <the last position seen>}`` replays what
came after it (after the state sync), then goes on live. A bare id, or ``{"projectId"}``
without ``after``, gets the messages of its dialect with no ``position``, from the state
sync on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

import socketio
from pydantic import ValidationError

from shokunin import events as ev
from shokunin.agents.studio import Studio, interventions
from shokunin.agents.studio.contracts import (
    Project,
    SocketResolution,
)
from shokunin.agents.studio.metrics import project_metrics
from shokunin.api.perimeter import REVOKED_MESSAGE, Lease, LiveConnections, TooManyStreams
from shokunin.api.studio.wire import (
    DIALECTS,
    Dialect,
    agent_json,
    checkpoint_json,
    metrics_json,
    system_log_json,
    to_wire,
)
from shokunin.errors import ShokuninError
from shokunin.runs import ThreadFeed, owner_scope

log = logging.getLogger(__name__)
SYNC_LOGS = 200  # log entries a client-dialect state sync carries
JOIN_SEC = 10.0  # an Engine.IO connection's time to send its Socket.IO connect


class _EngineHooks(socketio.AsyncServer):
    """python-socketio's server, telling ``StudioSocket`` when an Engine.IO connection
    opens and closes (Socket.IO's own ``connect`` comes only with the client's first
    packet)."""

    def __init__(self, owner: StudioSocket, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._owner = owner

    async def _handle_eio_connect(self, eio_sid: str, environ: dict[str, Any]) -> Any:
        result = await super()._handle_eio_connect(eio_sid, environ)
        self._owner._engine_opened(eio_sid, environ)
        return result

    async def _handle_eio_message(self, eio_sid: str, data: Any) -> None:
        if eio_sid in self.environ:  # not a closed connection's last words
            await super()._handle_eio_message(eio_sid, data)

    async def _handle_eio_disconnect(self, eio_sid: str, reason: Any = None) -> None:
        try:
            await super()._handle_eio_disconnect(eio_sid, reason)
        finally:
            self._owner._engine_closed(eio_sid)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True)


class StudioSocket:
    def __init__(self) -> None:
        # Origins are checked by the perimeter (OriginMiddleware) before a request gets here.
        self.sio = _EngineHooks(self, async_mode="asgi", cors_allowed_origins="*",
                                logger=False, engineio_logger=False)
        self.app = socketio.ASGIApp(self.sio, socketio_path="socket.io")
        self.studio: Studio | None = None
        self.live: LiveConnections | None = None
        # Engine.IO sid -> its lease, or why it has none (past the caps)
        self._leases: dict[str, Lease | TooManyStreams] = {}
        self._join_timers: dict[str, asyncio.TimerHandle] = {}
        self._members: dict[str, set[str]] = {}  # project id -> subscribed sids
        self._feeds: dict[str, asyncio.Task[None]] = {}
        # (sid, project id) -> the feed of a subscriber that keeps its position
        self._own_feeds: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._last_sync: dict[tuple[str, str], str] = {}  # (sid, project) -> updatedAt sent
        self._tasks: set[asyncio.Task[None]] = set()  # revoked sessions being closed
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        self.sio.on("subscribe:project", self._subscribe)
        self.sio.on("unsubscribe:project", self._unsubscribe)
        self.sio.on("checkpoint:resolve", self._resolve)

    async def close(self) -> None:
        tasks = [*self._feeds.values(), *self._own_feeds.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._feeds.clear()
        self._own_feeds.clear()

    # connection
    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        query = parse_qs(environ.get("QUERY_STRING", ""))
        dialect = (query.get("dialect") or ["both"])[0]
        if dialect not in DIALECTS:
            raise socketio.exceptions.ConnectionRefusedError(
                f"unknown dialect {dialect[:20]!r}: use seed, client or both")
        scope = environ.get("asgi.scope") or {}
        state = scope.get("state") or {}
        principal = state.get("principal")
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, "/")
        lease = self._leases.get(eio_sid) if eio_sid else None
        if isinstance(lease, TooManyStreams) or (lease is not None and lease.revoked):
            self._later(self._close_engine(eio_sid))  # once the refusal is sent
            if isinstance(lease, TooManyStreams):
                raise socketio.exceptions.ConnectionRefusedError(
                    str(lease), {"code": lease.code})
            raise socketio.exceptions.ConnectionRefusedError(
                REVOKED_MESSAGE, {"code": "unauthorized"})
        await self.sio.save_session(sid, {"dialect": dialect, "principal": principal})

    def _engine_opened(self, eio_sid: str, environ: dict[str, Any]) -> None:
        """An Engine.IO connection opened: it takes its lease now, and must join soon."""
        loop = asyncio.get_running_loop()
        self._join_timers[eio_sid] = loop.call_later(JOIN_SEC, self._join_late, eio_sid)
        if self.live is None:
            return
        scope = environ.get("asgi.scope") or {}
        state = scope.get("state") or {}
        client = scope.get("client")
        try:
            lease = self.live.open("socketio", client[0] if client else "unknown",
                                   state.get("principal"), state.get("key_id"))
        except TooManyStreams as exc:
            self._leases[eio_sid] = exc  # refused at its Socket.IO connect, in that form
            return
        lease.on_revoke.append(lambda: self._later(self._revoked(eio_sid)))
        self._leases[eio_sid] = lease

    def _engine_closed(self, eio_sid: str) -> None:
        timer = self._join_timers.pop(eio_sid, None)
        if timer is not None:
            timer.cancel()
        lease = self._leases.pop(eio_sid, None)
        if isinstance(lease, Lease) and self.live is not None:
            lease.on_revoke.clear()
            self.live.close(lease)

    def _join_late(self, eio_sid: str) -> None:
        self._join_timers.pop(eio_sid, None)
        if self.sio.manager.sid_from_eio_sid(eio_sid, "/") is None:
            self._later(self._close_engine(eio_sid))

    def _later(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _close_engine(self, eio_sid: str) -> None:
        """Close an Engine.IO connection and its transport. Engine.IO's disconnect sends a
        close packet and forgets the session, but leaves a WebSocket open until the client
        closes it or the ping timeout passes; an empty packet ends its writer, which closes
        the WebSocket."""
        await asyncio.sleep(0)  # let a refusal being sent go first
        socket = self.sio.eio.sockets.get(eio_sid)
        await self.sio.eio.disconnect(eio_sid)  # waits until the close packet is out
        if socket is not None:
            await socket.queue.put(None)

    async def _revoked(self, eio_sid: str) -> None:
        sid = self.sio.manager.sid_from_eio_sid(eio_sid, "/")
        if sid is not None:
            await self.sio.emit("error:state", {"errorType": "unauthorized",
                                                "errorMessage": REVOKED_MESSAGE,
                                                "timestamp": _now()}, to=sid)
            await self.sio.disconnect(sid)
        await self._close_engine(eio_sid)  # no new Socket.IO connect on this transport

    async def _still_valid(self, sid: str) -> bool:
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, "/")
        lease = self._leases.get(eio_sid) if eio_sid else None
        if isinstance(lease, TooManyStreams):
            return False
        return lease is None or self.live is None or await self.live.still_valid(lease)

    async def _disconnect(self, sid: str, *args: Any) -> None:
        for project_id in [p for p, sids in self._members.items() if sid in sids]:
            self._leave(sid, project_id)

    async def _error(self, sid: str, kind: str, message: str) -> dict[str, Any]:
        await self.sio.emit("error:state", {"errorType": kind, "errorMessage": message,
                                            "timestamp": _now()}, to=sid)
        return {"ok": False, "error": message}

    async def _failure(self, sid: str, kind: str, exc: ShokuninError) -> dict[str, Any]:
        """A ``ShokuninError`` on this face: the seed's ``error:state`` (``errorType`` is
        the seed's word for what failed, ``kind``) and the acknowledgement."""
        return await self._error(sid, kind, exc.message)

    async def _project_for(self, sid: str, data: Any) -> tuple[dict[str, Any] | None, str]:
        """The project a subscribe names (a bare id; ``{"projectId"}`` is accepted too)."""
        project_id = data.get("projectId") if isinstance(data, dict) else data
        if not isinstance(project_id, str) or not project_id or len(project_id) > 128:
            return None, "send the project id as a string"
        studio = self.studio
        if studio is None:
            return None, "the Studio is unavailable"
        session = await self.sio.get_session(sid)
        project = await studio.records.project(project_id, owner_scope(session["principal"]))
        if project is None:
            return None, f"no project {project_id[:128]!r}"
        return project, ""

    # subscriptions
    # Handlers take any extra arguments a client sends (python-socketio passes them all).
    async def _subscribe(self, sid: str, data: Any = None, *_extra: Any) -> dict[str, Any]:
        if not await self._still_valid(sid):
            return {"ok": False, "error": REVOKED_MESSAGE}
        project, why = await self._project_for(sid, data)
        if project is None:
            return await self._error(sid, "sync_failed", why)
        session = await self.sio.get_session(sid)
        project_id = project["id"]
        runner = self.studio.runner  # type: ignore[union-attr]
        room = f"{project_id}:{session['dialect']}"
        own = None
        if isinstance(data, dict) and "after" in data:  # it keeps its position
            try:  # subscribed now, before the snapshot: nothing missed
                own = runner.follow_thread(project_id, after=data["after"])
            except ShokuninError as exc:
                return await self._error(sid, "sync_failed", exc.message)
            await self.sio.leave_room(sid, room)
        else:
            await self.sio.enter_room(sid, room)
        self._drop_own_feed(sid, project_id)
        self._members.setdefault(project_id, set()).add(sid)
        feed = self._feeds.get(project_id)
        if own is None and (feed is None or feed.done()):  # subscribed before the snapshot
            self._feeds[project_id] = asyncio.create_task(
                self._feed(project_id, runner.follow_thread(project_id)))
        try:
            await self.sio.emit("connection:state_sync",
                                await self._snapshot(sid, project_id, session["dialect"]),
                                to=sid)
        except Exception as exc:  # noqa: BLE001 - told to the client, the socket goes on
            if own is not None:
                own.close()
            log.exception("state sync of project %s failed", project_id)
            return await self._error(sid, "sync_failed", f"state sync failed: {exc}")
        if own is not None:
            self._own_feeds[(sid, project_id)] = asyncio.create_task(
                self._own_feed(sid, project_id, session["dialect"], own))
        return {"ok": True}

    def _drop_own_feed(self, sid: str, project_id: str) -> None:
        task = self._own_feeds.pop((sid, project_id), None)
        if task is not None:
            task.cancel()

    async def _own_feed(self, sid: str, project_id: str, dialect: Dialect,
                        feed: ThreadFeed) -> None:
        """One subscriber's events, from its position on, each with the position after it."""
        try:
            async for event in feed:
                position = str(feed.position)
                for name, payload in to_wire(event, dialect):
                    await self.sio.emit(name, payload | {"position": position}, to=sid)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the Socket.IO feed of project %s to %s stopped", project_id, sid)
            await self.sio.emit("error:state", {
                "errorType": "sync_failed", "timestamp": _now(),
                "errorMessage": "live updates stopped; subscribe again"}, to=sid)
        finally:
            feed.close()

    async def _unsubscribe(self, sid: str, data: Any = None, *_extra: Any) -> dict[str, Any]:
        project_id = data.get("projectId") if isinstance(data, dict) else data
        if not isinstance(project_id, str):
            return await self._error(sid, "sync_failed", "send the project id as a string")
        session = await self.sio.get_session(sid)
        await self.sio.leave_room(sid, f"{project_id}:{session['dialect']}")
        self._leave(sid, project_id)
        return {"ok": True}

    def _leave(self, sid: str, project_id: str) -> None:
        self._last_sync.pop((sid, project_id), None)
        self._drop_own_feed(sid, project_id)
        members = self._members.get(project_id)
        if members is None:
            return
        members.discard(sid)
        if not members:
            del self._members[project_id]
            feed = self._feeds.pop(project_id, None)
            if feed is not None:
                feed.cancel()

    async def _feed(self, project_id: str, feed: ThreadFeed) -> None:
        """The project's events, to each dialect's room, in order."""
        try:
            async for event in feed:
                for dialect in DIALECTS:
                    for name, payload in to_wire(event, dialect):
                        await self.sio.emit(name, payload, room=f"{project_id}:{dialect}")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the Socket.IO feed of project %s stopped", project_id)
            for dialect in DIALECTS:
                await self.sio.emit("error:state", {
                    "errorType": "sync_failed", "timestamp": _now(),
                    "errorMessage": "live updates stopped; subscribe again"},
                    room=f"{project_id}:{dialect}")
        finally:
            feed.close()

    async def _snapshot(self, sid: str, project_id: str, dialect: Dialect) -> dict[str, Any]:
        """The seed's StateSyncEvent, the client's records, or both side by side."""
        studio = self.studio
        assert studio is not None
        project = await studio.project(project_id)
        agents = await studio.records.agents(project_id)
        metrics = await project_metrics(studio.records, project, studio.phase_name(project))
        sync: dict[str, Any] = {"projectId": project_id}
        if dialect != "client":
            running = [a for a in agents if a["status"] == "running"]
            updated = project["updated_at"].isoformat()
            previous = self._last_sync.get((sid, project_id))
            self._last_sync[(sid, project_id)] = updated
            sync |= {"serverState": {
                        "currentAgent": running[0]["id"] if running else "",
                        "progress": metrics.progress_percent,
                        "completedTasks": metrics.completed_tasks,
                        "totalTasks": metrics.total_tasks},
                     # First sync of this subscriber: whatever it holds may differ.
                     "hasDiff": previous != updated}
        if dialect != "seed":
            logs = await studio.records.logs(project_id=project_id, limit=SYNC_LOGS)
            checkpoints = await studio.records.checkpoints(project_id)
            types = {a["id"]: a["type"] for a in agents}
            sync |= {
                "project": _dump(Project.model_validate(project)),
                "agents": [agent_json(ev.StudioAgentRecord.model_validate(a)) for a in agents],
                "checkpoints": [checkpoint_json(ev.StudioCheckpointRecord.model_validate(c))
                                for c in checkpoints],
                "metrics": metrics_json(ev.StudioMetrics.model_validate(metrics.model_dump())),
                "interventions": interventions.listed(project),  # its 連絡 tab's list
                # the project's log, as the client's log list holds it
                "logs": [system_log_json(ev.StudioLogEntry.model_validate(r), r["agent_id"],
                                         types.get(r["agent_id"], "System")) for r in logs]}
        return sync | {"timestamp": _now()}

    # checkpoints
    async def _resolve(self, sid: str, data: Any = None, *_extra: Any) -> dict[str, Any]:
        studio = self.studio
        if studio is None:
            return await self._error(sid, "checkpoint_failed", "the Studio is unavailable")
        if not await self._still_valid(sid):
            return {"ok": False, "error": REVOKED_MESSAGE}
        try:
            body = SocketResolution.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "payload"
            return await self._error(sid, "checkpoint_failed", f"{where}: {first['msg']}")
        checkpoint = await studio.records.checkpoint(body.checkpoint_id)
        if checkpoint is None or (await self._project_for(sid, checkpoint["project_id"]))[0] \
                is None:
            return await self._error(sid, "checkpoint_failed",
                                     f"no checkpoint {body.checkpoint_id!r}")
        try:
            row = await studio.resolve(body.checkpoint_id, body.resolution, body.feedback)
        except ShokuninError as exc:
            return await self._failure(sid, "checkpoint_failed", exc)
        return {"ok": True,
                "checkpoint": checkpoint_json(ev.StudioCheckpointRecord.model_validate(row))}
