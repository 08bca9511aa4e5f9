"""RunContext: what an agent holds while it runs: its ids, the emitter, abort, usage, and
the engine parts it may use (``RunServices``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shokunin.events import BaseEvent
from shokunin.models import Usage
from shokunin.runs.bus import EventBus
from shokunin.runs.holds import Holds
from shokunin.store import Store, Write

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from shokunin.config import Settings
    from shokunin.maps import MapError, MapPackage
    from shokunin.sandbox import Sandbox
    from shokunin.tools import ToolRegistry


@dataclass
class RunServices:
    """The engine parts a run may use (``ctx.services``), set once by ``Engine.open``; each
    is None where a test or a smaller process (``shokunin analyze``) does without it."""

    settings: Settings | None = None
    tools: ToolRegistry | None = None
    sandbox: Sandbox | None = None
    checkpointer: BaseCheckpointSaver | None = None
    map_package: MapPackage | MapError | None = None


@dataclass
class RunContext:
    run_id: str
    thread_id: str
    agent: str
    store: Store
    bus: EventBus
    workspace: Path
    services: RunServices = field(default_factory=RunServices)
    # The human's answer when this is a resumed run (never None then: see Runner.resume).
    resume_value: Any = None
    owner: str | None = None  # the principal that started it (sandbox kernel caps)
    holds: Holds = field(default_factory=Holds)  # the Runner's: threads paused here
    abort: threading.Event = field(default_factory=threading.Event)
    usage: Usage = field(default_factory=Usage)
    # Events of this process's life of the run, so a local subscriber replays without a query.
    history: list[BaseEvent] = field(default_factory=list)
    closing: asyncio.Future[None] | None = None  # recording its end (see Runner._close)
    _seq: int = 0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _loop: asyncio.AbstractEventLoop | None = None

    async def emit(self, event: BaseEvent, *, status: dict[str, Any] | None = None,
                   writes: Sequence[Write] = ()) -> BaseEvent:
        """Number, store, then publish the event; return it as sent. ``status`` (the
        arguments of ``Store.finish_run``) or ``writes`` (an agent's own record changes,
        see ``Store.append_event``) are stored in the same transaction as the event."""
        return (await self._emit([event], status, writes=writes))[0]

    async def emit_all(self, events: list[BaseEvent], *,
                       writes: Sequence[Write] = ()) -> list[BaseEvent]:
        """``emit`` for several events in order, stored in one transaction (with
        ``writes``): one wait for the database instead of one per event."""
        return await self._emit(events, writes=writes) if events else []

    async def open(self, started: BaseEvent, input: dict[str, Any]) -> BaseEvent:
        """Emit the run's first event, stored with the run's row (``Store.create_run``)."""
        return (await self._emit([started], create=input))[0]

    async def _emit(
        self, events: list[BaseEvent], status: dict[str, Any] | None = None,
        create: dict[str, Any] | None = None, writes: Sequence[Write] = (),
    ) -> list[BaseEvent]:
        async with self._lock:
            self._loop = self._loop or asyncio.get_running_loop()
            numbered = [event.model_copy(update={
                "run_id": self.run_id, "thread_id": self.thread_id, "seq": self._seq + i})
                for i, event in enumerate(events, start=1)]
            try:
                if create is not None:
                    await self.store.create_run(self.run_id, self.thread_id, self.agent,
                                                create, first=numbered[0])
                elif status is not None:
                    await self.store.finish_run(self.run_id, final=numbered[0], **status)
                elif len(numbered) == 1:
                    await self.store.append_event(numbered[0], *writes)
                else:
                    await self.store.append_events(numbered, *writes)
            except asyncio.CancelledError:
                self._seq = numbered[-1].seq  # the write was queued and goes on without us
                raise
            # A write that failed (an event that cannot be stored) leaves no gap in seq.
            self._seq = numbered[-1].seq
            self.history.extend(numbered)
            for event in numbered:
                await self.bus.publish(event)
            return numbered

    def emit_threadsafe(self, event: BaseEvent) -> None:
        """Emit from a worker thread (a tool's message_callback), without waiting."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self.emit(event), loop)

    async def gate(self) -> None:
        """A node boundary of a pausable agent: wait here while the thread is held
        (``Runner.hold``), go on at once when it is not."""
        await self.holds.wait(self.thread_id)

    def bind_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
