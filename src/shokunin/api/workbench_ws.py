"""WS /ws: the Workbench face (seed 000).

A connection has a thread (``?thread=<id>``, else a new one) and a queue: its messages
start runs of the ``workbench`` agent one at a time, in order, and the face sends each
run's events through ``to_wire``. The client may also replay a run after a seq
(``{"run_id", "after"}``) or cancel (``{"cancel": true}``). A client that leaves does not
stop its run: the run completes and stays in the store for replay.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import uuid
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketState

from shokunin import events as ev
from shokunin.api import workbench_map
from shokunin.api.workbench_wire import to_wire
from shokunin.maps import MapError
from shokunin.runs import RunError, Runner, RunNotFound

log = logging.getLogger(__name__)

AGENT = "workbench"
_MAX_SEQ = 2**63  # seq is a 64-bit integer in the store
_THREAD_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


router = APIRouter(tags=["workbench"])
router.include_router(workbench_map.router)


@dataclass
class _Ask:
    message: str


@dataclass
class _Replay:
    run_id: str
    after: int


def _error(message: str, code: str) -> ev.Error:
    return ev.Error(message=message, code=code)


class _Connection:
    def __init__(self, ws: WebSocket, runner: Runner, thread_id: str, max_bytes: int) -> None:
        self.ws = ws
        self.runner = runner
        self.thread_id = thread_id
        self.max_bytes = max_bytes
        self.queue: asyncio.Queue[_Ask | _Replay] = asyncio.Queue()
        self.current: str | None = None
        self.cancels = 0
        self._send_lock = asyncio.Lock()

    async def send(self, messages: list[dict[str, Any]]) -> None:
        async with self._send_lock:
            for message in messages:
                await self.ws.send_text(json.dumps(message, ensure_ascii=False, default=str))

    async def send_event(self, event: ev.BaseEvent, **extra: Any) -> None:
        await self.send([m | extra for m in to_wire(event)])

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
            if isinstance(data["message"], str) and data["message"].strip():
                self.queue.put_nowait(_Ask(data["message"]))
            else:
                await self.send_event(_error("'message' must be a non-empty string",
                                             "bad_request"))
        elif "run_id" in data:
            after = data.get("after", 0)
            if not isinstance(data["run_id"], str) or not isinstance(after, int) or isinstance(
                    after, bool) or not 0 <= after < _MAX_SEQ:
                await self.send_event(_error(
                    "replay needs {\"run_id\": \"<id>\", \"after\": <seq >= 0>}", "bad_request"))
            else:
                self.queue.put_nowait(_Replay(data["run_id"], after))
        else:
            await self.send_event(_error(
                "missing 'message': send {\"message\": \"...\"}", "bad_request"))

    async def cancel(self) -> None:
        dropped = 0
        while not self.queue.empty():
            self.queue.get_nowait()
            dropped += 1
        self.cancels += 1
        if self.current is not None:
            await self.runner.cancel(self.current)  # its end reaches the client via the stream
        else:  # idle, or replaying (a replay is not ours to cancel)
            await self.send([{"type": "debug", "content": {
                "cancel": "nothing to cancel", "dropped": dropped}}])

    # -- server -> client
    async def work(self) -> None:
        while True:
            item = await self.queue.get()
            try:
                if isinstance(item, _Ask):
                    await self.ask(item.message)
                else:
                    await self.replay(item.run_id, item.after)
            except (WebSocketDisconnect, RuntimeError) as exc:
                if self.ws.client_state != WebSocketState.CONNECTED:
                    return  # the client left; its runs go on without it
                log.exception("workbench connection failed on %r", item)
                await self._report(exc)
            except Exception as exc:  # noqa: BLE001 - the connection must go on
                log.exception("workbench connection failed on %r", item)
                await self._report(exc)

    async def _report(self, exc: Exception) -> None:
        with contextlib.suppress(Exception):
            await self.send_event(_error(
                f"Error processing request: {type(exc).__name__}: {exc}", "server_error"))

    async def ask(self, message: str) -> None:
        cancels = self.cancels
        try:
            run_id = await self.runner.start(AGENT, self.thread_id, {"message": message})
        except RunError as exc:
            await self.send_event(_error(f"Error processing request: {exc}", "run_error"))
            return
        self.current = run_id
        try:
            if self.cancels != cancels:  # cancelled while the run was being started
                await self.runner.cancel(run_id)
            async for event in self.runner.stream(run_id):
                await self.send_event(event)
        finally:
            self.current = None

    async def replay(self, run_id: str, after: int) -> None:
        try:
            async for event in self.runner.stream(run_id, after):
                await self.send_event(event)
        except RunNotFound:
            await self.send_event(_error(f"no run {run_id!r}", "not_found"))


@router.websocket("/ws")
async def workbench_ws(ws: WebSocket, thread: str | None = None) -> None:
    await ws.accept()
    services = ws.app.state.services
    thread_id = thread or uuid.uuid4().hex
    conn = _Connection(ws, services.runner, thread_id, services.settings.ws_max_message_bytes)
    worker: asyncio.Task[None] | None = None
    try:
        if not _THREAD_ID.fullmatch(thread_id):
            conn.thread_id = uuid.uuid4().hex
            await conn.send_event(_error(
                f"bad thread id {thread_id!r}: use letters, digits, '-', '_' or '.'; "
                f"using a new thread {conn.thread_id}", "bad_thread"))
        pkg = workbench_map.current_map(ws.app)
        if isinstance(pkg, MapError):
            await conn.send_event(_error(str(pkg), "map_error"))
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
