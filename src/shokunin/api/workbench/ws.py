"""WS /ws: the Workbench face (seed 000).

A connection has a thread (``?thread=<id>``, else a new one) and a queue: its messages
start runs of the ``workbench`` agent one at a time, in order, and the face sends each
run's events through ``to_wire``. Each message gets an ``id``: one that must wait behind
another is echoed at once as a ``user_message`` with ``queued: true``, and its run's start
is then a ``debug`` with ``content.run == "started"`` and that ``id`` (so the message is
echoed once); a message that starts at once is echoed by its run. A run's closing
``debug`` lists every output of the run (workbench_outputs.py). The client may also replay
a run of its thread after a seq (``{"run_id", "after"}``; a replay always ends with the
run's closing ``debug`` with ``done``) or cancel (``{"cancel": true}``). A client that
leaves does not stop its run: the run completes and stays in the store for replay. When
auth is on, a connection sees only threads its principal owns (or every thread, for the
admin token); its key is checked before each run starts, and its revocation closes the
connection (live_middleware.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic_core import to_json
from starlette.websockets import WebSocketState

from shokunin import events as ev
from shokunin.api.language import language_of
from shokunin.api.workbench import map as workbench_map
from shokunin.api.workbench.outputs import RunOutputs
from shokunin.api.workbench.wire import run_end, to_wire
from shokunin.auth import principal
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.maps import MapError
from shokunin.runs import (
    InvalidThreadId,
    Runner,
    ThreadNotFound,
    may_use,
    new_error_id,
    new_thread_id,
    redact_paths,
)

log = logging.getLogger(__name__)

AGENT = "workbench"
_MAX_SEQ = 2**63  # seq is a 64-bit integer in the store


router = APIRouter(tags=["workbench"])
router.include_router(workbench_map.router)


@dataclass
class _Ask:
    message: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    queued: bool = False


@dataclass
class _Replay:
    run_id: str
    after: int


def _error(message: str, code: str) -> ev.Error:
    return ev.Error(message=message, code=code)


def error_event(exc: ShokuninError, prefix: str = "", suffix: str = "") -> ev.Error:
    """A ``ShokuninError`` as this face's ``error`` message (``to_wire`` sends it as
    ``{"type": "error", "content", "code"}``); ``prefix`` and ``suffix`` frame the message
    in the face's own words."""
    return ev.Error(message=f"{prefix}{exc.message}{suffix}", code=exc.code)


def _is_text(value: object) -> bool:
    """A str that UTF-8 can encode: JSON escapes can carry a lone surrogate ("\\ud800")
    that no database, log or socket can store or send."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Connection:
    def __init__(self, ws: WebSocket, runner: Runner, thread_id: str, max_bytes: int,
                 principal: str | None = None) -> None:
        self.ws = ws
        self.language = language_of(ws)
        self.runner = runner
        self.thread_id = thread_id
        self.max_bytes = max_bytes
        self.principal = principal
        self.queue: asyncio.Queue[_Ask | _Replay] = asyncio.Queue()
        self.current: str | None = None
        self.working = False  # the worker holds an item (a run starting, running, replaying)
        # Echoes of queued messages wait here while the message ahead of them, which its run
        # echoes, is still starting: the chat shows messages in the order they were sent.
        self.held: list[dict[str, Any]] | None = None
        self.cancels = 0
        self._send_lock = asyncio.Lock()

    async def send(self, messages: list[dict[str, Any]]) -> None:
        async with self._send_lock:
            for message in messages:
                # pydantic-core's encoder: a third of json.dumps's time on these messages.
                await self.ws.send_text(to_json(message, fallback=str).decode())

    def wire(self, event: ev.BaseEvent) -> list[dict[str, Any]]:
        return to_wire(event, self.language)

    async def send_event(self, event: ev.BaseEvent, **extra: Any) -> None:
        await self.send([m | extra for m in self.wire(event)])

    # -- client -> server
    async def read(self) -> None:
        while True:
            frame = await self.ws.receive()
            if frame["type"] == "websocket.disconnect":
                return
            raw = frame.get("text")
            size = len(raw.encode()) if raw is not None else len(frame.get("bytes") or b"")
            if size > self.max_bytes:
                await self.send_event(_error(
                    f"message too large: {size} bytes (limit {self.max_bytes})", "too_large"))
                continue
            await self.accept(raw if raw is not None else (frame.get("bytes") or b""))

    async def accept(self, raw: str | bytes) -> None:
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting: RecursionError
            await self.send_event(_error("invalid JSON: send {\"message\": \"...\"}", "bad_json"))
            return
        if not isinstance(data, dict):
            await self.send_event(_error("expected a JSON object such as {\"message\": \"...\"}",
                                         "bad_request"))
        elif data.get("cancel") is True:
            await self.cancel()
        elif "message" in data:
            if _is_text(data["message"]) and data["message"].strip():
                await self.enqueue(_Ask(data["message"]))
            elif isinstance(data["message"], str) and data["message"].strip():
                await self.send_event(_error(
                    "'message' is not valid Unicode text (it contains a lone surrogate such "
                    "as \\ud800)", "bad_request"))
            else:
                await self.send_event(_error("'message' must be a non-empty string",
                                             "bad_request"))
        elif "run_id" in data:
            after = data.get("after", 0)
            if not _is_text(data["run_id"]) or not isinstance(after, int) or isinstance(
                    after, bool) or not 0 <= after < _MAX_SEQ:
                await self.send_event(_error(
                    "replay needs {\"run_id\": \"<id>\", \"after\": <seq >= 0>}", "bad_request"))
            else:
                self.queue.put_nowait(_Replay(data["run_id"], after))
        else:
            await self.send_event(_error(
                "missing 'message': send {\"message\": \"...\"}", "bad_request"))

    async def enqueue(self, ask: _Ask) -> None:
        """Queue a message; one that must wait is echoed now, marked ``queued``."""
        if self.working or not self.queue.empty():
            ask.queued = True
            echo = {"type": "user_message", "content": ask.message, "id": ask.id,
                    "queued": True}
            if self.held is not None:
                self.held.append(echo)
            else:
                await self.send([echo])
        else:
            self.held = []
        self.queue.put_nowait(ask)

    async def release_echoes(self) -> None:
        held, self.held = self.held, None
        if held:
            await self.send(held)

    async def cancel(self) -> None:
        await self.release_echoes()  # the client marks the dropped ones: it must have them
        dropped: list[str] = []
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if isinstance(item, _Ask):
                dropped.append(item.id)
        self.cancels += 1
        if self.current is not None:
            if dropped:  # the client shows these as queued: they will never run
                await self.send([{"type": "debug", "content": {
                    "cancel": "queue dropped", "dropped": len(dropped), "dropped_ids": dropped}}])
            await self.runner.cancel(self.current)  # its end reaches the client via the stream
        else:  # idle, or replaying (a replay is not ours to cancel)
            await self.send([{"type": "debug", "content": {
                "cancel": "nothing to cancel", "dropped": len(dropped),
                "dropped_ids": dropped}}])

    # -- server -> client
    async def work(self) -> None:
        while True:
            item = await self.queue.get()
            self.working = True
            try:
                if isinstance(item, _Ask):
                    await self.ask(item)
                else:
                    await self.replay(item.run_id, item.after)
            except (WebSocketDisconnect, RuntimeError):
                if self.ws.client_state != WebSocketState.CONNECTED:
                    return  # the client left; its runs go on without it
                await self._report(self._log_failure(item))
            except Exception:  # noqa: BLE001 - the connection must go on
                await self._report(self._log_failure(item))
            finally:
                self.working = False
                await self.release_echoes()

    def _log_failure(self, item: _Ask | _Replay) -> str:
        error_id = new_error_id()
        log.exception("workbench connection failed on %r (error %s)", item, error_id)
        return error_id

    async def _report(self, error_id: str) -> None:
        """The client learns that something failed and the id to quote; the log has the rest."""
        with contextlib.suppress(Exception):
            await self.send_event(_error(
                f"Error processing request: internal error (error {error_id})",
                ErrorCode.INTERNAL))

    async def ask(self, ask: _Ask) -> None:
        cancels = self.cancels
        lease = getattr(self.ws.state, "lease", None)
        if lease is not None and not await self.ws.app.state.live.still_valid(lease):
            return  # the key was revoked: the connection is being closed (live.py)
        try:
            # The UI's language goes with a message (when not English): the offline brain
            # answers a message in no language of its own (a SELECT, "Room1") in it.
            language = {} if self.language == "en" else {"language": self.language}
            run_id = await self.runner.start(AGENT, self.thread_id,
                                             {"message": ask.message, **language},
                                             owner=self.principal)
        except ShokuninError as exc:
            await self.release_echoes()
            await self.send_event(error_event(exc, "Error processing request: "))
            return
        self.current = run_id
        outputs = RunOutputs()
        try:
            if self.cancels != cancels:  # cancelled while the run was being started
                await self.runner.cancel(run_id)
            async for event in self.runner.stream(run_id):
                messages = _with_outputs(self.wire(event), outputs)
                if isinstance(event, ev.RunStarted):
                    messages = [_started(m, ask) for m in messages]
                await self.send(messages)
                if isinstance(event, ev.RunStarted):
                    await self.release_echoes()
        finally:
            self.current = None

    async def replay(self, run_id: str, after: int) -> None:
        """Replay a run of this connection's thread; end with its closing ``debug`` even when
        nothing came after ``after``, so the client learns how the run ended."""
        run = await self.runner.store.get_run(run_id)
        if run is None or run.thread_id != self.thread_id:  # others' runs do not exist
            await self.send_event(_error(f"no run {run_id!r}", "not_found"))
            return
        outputs = RunOutputs()
        for event in await self.runner.store.events_after(run_id, 0) if after else []:
            if event.seq > after:
                break
            _with_outputs(self.wire(event), outputs)  # what the client saw before ``after``
        ended = False
        try:
            async for event in self.runner.stream(run_id, after):
                await self.send(_with_outputs(self.wire(event), outputs))
                ended = ev.is_terminal(event)
        except ShokuninError as exc:  # RunNotFound: deleted meanwhile
            await self.send_event(error_event(exc))
            return
        if not ended:
            await self.send(await self._end_of(run_id, outputs))

    async def _end_of(self, run_id: str, outputs: RunOutputs) -> list[dict[str, Any]]:
        store = self.runner.store
        last = await store.last_seq(run_id)
        final = await store.events_after(run_id, last - 1) if last else []
        if final and ev.is_terminal(final[0]):
            return [outputs.close(m) for m in self.wire(final[0]) if m.get("done")]
        run = await store.get_run(run_id)
        return [outputs.close(run_end(run_id, run.status if run else "unknown", last))]


def _with_outputs(messages: list[dict[str, Any]], outputs: RunOutputs
                  ) -> list[dict[str, Any]]:
    """Record a run's messages; its closing debug gets the run's outputs."""
    for message in messages:
        outputs.add(message)
    return [outputs.close(m) if m.get("done") else m for m in messages]


def _started(message: dict[str, Any], ask: _Ask) -> dict[str, Any]:
    """The echo of a message by its run; a message already echoed as queued is not echoed
    twice: its run's start says which message it is, in the debug pane."""
    if message["type"] != "user_message":
        return message
    if not ask.queued:
        return message | {"id": ask.id}
    return {"type": "debug", "content": {"run": "started", "id": ask.id,
                                         "message": ask.message},
            "id": ask.id, "run_id": message["run_id"], "seq": message["seq"]}


@router.websocket("/ws")
async def workbench_ws(ws: WebSocket, thread: str | None = None) -> None:
    await ws.accept()
    services = ws.app.state.engine
    conn = _Connection(ws, services.runner, thread or new_thread_id(),
                       services.settings.ws_max_message_bytes, principal(ws))
    worker: asyncio.Task[None] | None = None
    try:
        if thread:
            await _check_thread(conn, thread)
        pkg = workbench_map.current_map(ws.app)
        if isinstance(pkg, MapError):
            await conn.send_event(_error(redact_paths(str(pkg)), "map_error"))
        else:
            await conn.send_event(ev.MapDefinition(definition=pkg.as_wire()),
                                  thread_id=conn.thread_id)
        worker = asyncio.create_task(conn.work(), name=f"ws-{conn.thread_id}")
        await conn.read()
    except WebSocketDisconnect:
        pass
    finally:
        if worker is not None:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                await worker


async def _check_thread(conn: _Connection, thread: str) -> None:
    """A thread the connection may not use (a bad id, or another principal's) is replaced
    by a new one, and the client is told why."""
    try:
        if await may_use(conn.runner.store, conn.principal, thread):
            return
        refused: ShokuninError = ThreadNotFound(f"no thread {thread!r}")
    except InvalidThreadId as exc:
        refused = exc
    conn.thread_id = new_thread_id()  # the connection goes on, on a new thread
    await conn.send_event(error_event(refused, suffix=f"; using a new thread {conn.thread_id}"))
