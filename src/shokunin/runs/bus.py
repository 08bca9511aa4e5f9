"""EventBus: publish a run's events to whoever listens now.

The bus carries only live events; the store is the record, so a subscriber that misses
anything replays it from there (see ``Runner.stream``).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Protocol

from shokunin.events import BaseEvent


class Subscription(Protocol):
    async def get(self) -> BaseEvent: ...

    def close(self) -> None: ...


class EventBus(Protocol):
    async def publish(self, event: BaseEvent) -> None: ...

    def subscribe(self, run_id: str) -> Subscription: ...


class _MemorySubscription:
    def __init__(self, bus: MemoryBus, run_id: str) -> None:
        self._bus = bus
        self.run_id = run_id
        self.queue: asyncio.Queue[BaseEvent] = asyncio.Queue()

    async def get(self) -> BaseEvent:
        return await self.queue.get()

    def close(self) -> None:
        self._bus._subs[self.run_id].discard(self)
        if not self._bus._subs[self.run_id]:
            del self._bus._subs[self.run_id]


class MemoryBus:
    """In-process bus: one asyncio queue per subscriber."""

    def __init__(self) -> None:
        self._subs: defaultdict[str, set[_MemorySubscription]] = defaultdict(set)

    async def publish(self, event: BaseEvent) -> None:
        for sub in tuple(self._subs.get(event.run_id, ())):
            sub.queue.put_nowait(event)

    def subscribe(self, run_id: str) -> _MemorySubscription:
        sub = _MemorySubscription(self, run_id)
        self._subs[run_id].add(sub)
        return sub

    def subscriber_count(self, run_id: str) -> int:
        return len(self._subs.get(run_id, ()))
