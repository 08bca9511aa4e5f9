"""ThreadFeed: every event of a thread -- its runs' and its own -- from a position on,
stored ones first, then live ones, missing none (``Runner.follow_thread``).

The feed subscribes to the bus when it is made, before it reads the store, so nothing falls
between the replay and the live part; an event seen twice (stored and live) is yielded
once, and a gap in a stream (a run's seq, or the thread's own) is filled from the store.
``position`` is where the feed is: after each event, what a client sends back to go on.
"""

from __future__ import annotations

import heapq
from collections.abc import AsyncIterator

from shokunin import events as ev
from shokunin.runs.bus import EventBus
from shokunin.runs.position import ThreadPosition
from shokunin.store import Store

_THREAD = ""  # the stream key of the thread's own events (they have no run id)


class ThreadFeed:
    def __init__(self, store: Store, bus: EventBus, thread_id: str,
                 after: ThreadPosition | None) -> None:
        self.store = store
        self.thread_id = thread_id
        self._after = after
        self.position = after or ThreadPosition()
        self._sub = bus.subscribe_thread(thread_id)  # now: before any read of the store
        self._last: dict[str, int] = {}  # stream (run id, or "") -> last seq yielded

    def close(self) -> None:
        self._sub.close()

    def __aiter__(self) -> AsyncIterator[ev.BaseEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[ev.BaseEvent]:
        try:
            if self._after is None:  # from now: where the thread is
                self.position = await self._now()
            else:
                for event in await self._missed(self._after):
                    if self._fresh(event):
                        yield self._seen(event)
            self._last.setdefault(_THREAD, self.position.thread_seq)
            if self.position.run_id is not None:
                self._last.setdefault(self.position.run_id, self.position.run_seq)
            while True:
                event = await self._sub.get()
                stream = event.run_id
                seen = self._last.get(stream)
                if seen is not None and event.seq <= seen:
                    continue
                if seen is not None and event.seq > seen + 1:  # fill from the store
                    for missed in await self._stream_after(stream, seen):
                        if missed.seq >= event.seq:
                            break
                        yield self._seen(missed)
                yield self._seen(event)
        finally:
            self.close()

    def _fresh(self, event: ev.BaseEvent) -> bool:
        seen = self._last.get(event.run_id)
        return seen is None or event.seq > seen

    def _seen(self, event: ev.BaseEvent) -> ev.BaseEvent:
        self._last[event.run_id] = event.seq
        self.position = self.position.after(event)
        return event

    async def _stream_after(self, stream: str, seq: int) -> list[ev.Event]:
        if stream == _THREAD:
            return await self.store.thread_events_after(self.thread_id, seq)
        return await self.store.events_after(stream, seq)

    async def _now(self) -> ThreadPosition:
        runs = await self.store.thread_runs(self.thread_id)
        thread_seq = await self.store.last_thread_seq(self.thread_id)
        if not runs:
            return ThreadPosition(thread_seq)
        last = runs[-1].id
        return ThreadPosition(thread_seq, last, await self.store.last_seq(last))

    async def _missed(self, after: ThreadPosition) -> list[ev.BaseEvent]:
        """What came after ``after``, the thread's own and its runs' events merged in time
        order (each stream in its seq order)."""
        own = await self.store.thread_events_after(self.thread_id, after.thread_seq)
        runs: list[ev.BaseEvent] = []
        if after.run_id is None:
            run_ids = [run.id for run in await self.store.thread_runs(self.thread_id)]
        else:
            runs += await self.store.events_after(after.run_id, after.run_seq)
            run_ids = await self.store.runs_after(self.thread_id, after.run_id)
        for run_id in run_ids:
            runs += await self.store.events_after(run_id)
        return list(heapq.merge(own, runs, key=lambda event: event.ts))
