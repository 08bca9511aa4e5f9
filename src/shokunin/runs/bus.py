"""EventBus: publish a run's events to whoever listens now, by run or by thread.

The bus carries only live events; the store is the record, so a subscriber that misses
anything replays it from there (see ``Runner.stream`` and ``Runner.subscribe_thread``).
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

    def subscribe(self, run_id: str) -> Subscription:
        """The events of one run."""
        ...

    def subscribe_thread(self, thread_id: str) -> Subscription:
        """The events of every run on one thread."""
        ...


class LocalSubscription:
    """One subscriber in this process: a queue (bounded by ``maxsize`` when not 0: past it,
    an event is dropped for this subscriber alone, and counted)."""

    def __init__(self, subs: defaultdict[str, set[LocalSubscription]], key: str,
                 maxsize: int = 0) -> None:
        self._subs = subs
        self.key = key
        self.queue: asyncio.Queue[BaseEvent] = asyncio.Queue(maxsize)
        self.dropped = 0
        subs[key].add(self)

    async def get(self) -> BaseEvent:
        return await self.queue.get()

    def offer(self, event: BaseEvent) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:  # a subscriber that does not read: it alone misses this
            self.dropped += 1

    def close(self) -> None:
        subs = self._subs.get(self.key)
        if subs is None:
            return
        subs.discard(self)
        if not subs:
            del self._subs[self.key]


class MemoryBus:
    """In-process bus: one asyncio queue per subscriber."""

    def __init__(self) -> None:
        self._subs: defaultdict[str, set[LocalSubscription]] = defaultdict(set)
        self._thread_subs: defaultdict[str, set[LocalSubscription]] = defaultdict(set)

    async def publish(self, event: BaseEvent) -> None:
        for sub in tuple(self._subs.get(event.run_id, ())):
            sub.offer(event)
        for sub in tuple(self._thread_subs.get(event.thread_id, ())):
            sub.offer(event)

    def subscribe(self, run_id: str) -> LocalSubscription:
        return LocalSubscription(self._subs, run_id)

    def subscribe_thread(self, thread_id: str) -> LocalSubscription:
        return LocalSubscription(self._thread_subs, thread_id)

    def subscriber_count(self, run_id: str) -> int:
        return len(self._subs.get(run_id, ()))
