"""Every EventBus through the same conformance suite (tests/runs/bus_conformance.py).

``BUSES`` names the buses under test and ``open_buses`` opens one. Today: the in-process bus,
and ``wire``, a model of a bus over a network that keeps the suite honest for one (each
handle is a web process with its own listener; events cross as JSON and arrive after
``publish`` has returned, as through Redis), and ``redis``, the RedisBus on the Redis at
``SHOKUNIN_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``; skipped with the reason
when no Redis answers there), each run in a namespace of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from shokunin.events import BaseEvent, parse_event
from shokunin.runs.bus import EventBus, MemoryBus, Subscription
from shokunin.runs.redis_bus import RedisBus
from tests.runs.bus_conformance import Buses, EventBusConformance
from tests.runs.redis_server import open_redis_bus

BUSES = [pytest.param("memory"), pytest.param("wire"), pytest.param("redis")]
REDIS_PROCESSES = 2  # the most handles a case connects (two web processes)


class _OneInstance:
    """The in-process bus: every handle (web process) is the one instance."""

    def __init__(self) -> None:
        self.bus = MemoryBus()

    def connect(self) -> EventBus:
        return self.bus


class _WireHandle:
    """One process on the modelled network: publishes onto the wire, and a listener task
    fans what comes off it out to this process's subscribers, a little later."""

    def __init__(self, wire: _Wire, seed: int) -> None:
        self._wire = wire
        self._local = MemoryBus()
        self._inbox: asyncio.Queue[str] = asyncio.Queue()
        self._rng = random.Random(seed)
        self.listener = asyncio.ensure_future(self._listen())

    async def _listen(self) -> None:
        while True:
            data = await self._inbox.get()
            await asyncio.sleep(self._rng.random() / 1000)  # the network
            await self._local.publish(parse_event(data))

    async def publish(self, event: BaseEvent) -> None:
        data = event.model_dump_json()
        await asyncio.sleep(0)  # a round trip to the server
        for handle in self._wire.handles:
            handle._inbox.put_nowait(data)

    def subscribe(self, run_id: str) -> Subscription:
        return self._local.subscribe(run_id)

    def subscribe_thread(self, thread_id: str) -> Subscription:
        return self._local.subscribe_thread(thread_id)


class _Wire:
    def __init__(self) -> None:
        self.handles: list[_WireHandle] = []

    def connect(self) -> EventBus:
        handle = _WireHandle(self, seed=len(self.handles))
        self.handles.append(handle)
        return handle

    async def close(self) -> None:
        for handle in self.handles:
            handle.listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await handle.listener


class _RedisProcesses:
    """Web processes on one Redis: each handle is a RedisBus of its own, opened (subscribed)
    beforehand as a process opens its bus when it starts, before it serves anyone."""

    def __init__(self, opened: list[RedisBus]) -> None:
        self.opened = opened
        self._unused = list(opened)

    def connect(self) -> EventBus:
        assert self._unused, f"a case connects more than {REDIS_PROCESSES} handles"
        return self._unused.pop(0)


@asynccontextmanager
async def open_buses(name: str) -> AsyncIterator[Buses]:
    """The bus ``name``, fresh; whatever its handles hold is released on exit."""
    if name == "memory":
        yield _OneInstance()
    elif name == "wire":
        wire = _Wire()
        try:
            yield wire
        finally:
            await wire.close()
    elif name == "redis":
        namespace = f"test-{uuid.uuid4().hex}"  # no other run of the suite hears these
        processes = _RedisProcesses(
            [await open_redis_bus(namespace) for _ in range(REDIS_PROCESSES)])
        try:
            yield processes
        finally:
            for bus in processes.opened:
                await bus.close()
    else:
        raise AssertionError(f"no bus named {name!r}")


@pytest.fixture(params=BUSES)
async def buses(request: pytest.FixtureRequest) -> AsyncIterator[Buses]:
    async with open_buses(request.param) as opened:
        yield opened


class TestEventBus(EventBusConformance):
    """The suite, on every bus of ``BUSES``."""
