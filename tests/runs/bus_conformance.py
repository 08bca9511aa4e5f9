"""The EventBus conformance suite: what every bus promises, written once against the protocol.

``EventBusConformance`` holds the cases; a test module runs them on a bus by subclassing it
(as ``TestEventBus``) beside a ``buses`` fixture parametrized by bus name (see
test_bus_conformance.py, where the Redis bus joins the list). The cases use only the
protocol: ``publish``, ``subscribe(run_id)``, ``subscribe_thread(thread_id)``, ``get`` and
``close``.

``buses`` is a ``Buses``: ``connect()`` returns a handle onto the same bus as a web process
holds it (the in-memory bus: the one instance; a Redis bus: a new client on the same server).
A subscriber on any handle gets what any handle publishes.

What a bus promises:

- An event published after ``subscribe`` returned reaches that subscriber; one published
  before does not (the bus is live only: the store is the record, and the Runner replays
  from it).
- A subscriber that keeps reading gets every event, equal to the one published (type, kind,
  fields, seq), in the order its publisher published them.
- ``close`` stops delivery, may be called again, and touches no other subscriber.
- A ``get`` cancelled (a timeout, a client gone) loses no event.
- A subscriber that never reads does not hold up publishing or the other subscribers; the
  bus may drop events for it (the Runner fills gaps from the store).

The cases suit a bus with network latency: every read awaits ``get`` with a generous timeout
(no reliance on delivery inside ``publish``), and no case measures time. Absence ("does not
get it") is checked once a witness on the same handle has received a later event, then over
a short grace: the grace can only let a wrong bus through late, never fail a right one.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterable
from typing import Protocol

import pytest

from shokunin import events as ev
from shokunin.runs.bus import EventBus, Subscription

GET_TIMEOUT = 10.0  # generous: a bus over a network, a loaded CI machine
BULK_TIMEOUT = 60.0
QUIET = 0.2  # the grace over which an absence is checked (see the module docstring)


class Buses(Protocol):
    def connect(self) -> EventBus:
        """A handle onto the bus under test, as one web process holds it."""
        ...


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def text(run_id: str, thread_id: str, seq: int, body: str = "") -> ev.Text:
    return ev.Text(run_id=run_id, thread_id=thread_id, seq=seq,
                   text=body or f"{run_id}#{seq}")


async def receive(sub: Subscription, n: int) -> list[ev.BaseEvent]:
    """The next ``n`` events of ``sub``, each awaited with a generous timeout."""
    return [await asyncio.wait_for(sub.get(), GET_TIMEOUT) for _ in range(n)]


async def assert_gets_nothing(sub: Subscription) -> None:
    """``sub`` has nothing to give (call it once a witness got a later event)."""
    with pytest.raises(TimeoutError):
        got = await asyncio.wait_for(sub.get(), QUIET)
        pytest.fail(f"got {got!r}")


def close_all(subs: Iterable[Subscription]) -> None:
    for sub in subs:
        sub.close()


def keys(events: Iterable[ev.BaseEvent]) -> list[tuple[str, int]]:
    return [(e.run_id, e.seq) for e in events]


class EventBusConformance:
    """Every EventBus passes these; a subclass named ``Test...`` runs them on ``buses``."""

    @pytest.fixture
    def bus(self, buses: Buses) -> EventBus:
        return buses.connect()

    # --- delivery and order ---------------------------------------------------------------

    async def test_a_run_subscriber_gets_that_runs_events_in_publish_order(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        sub = bus.subscribe(run)
        published = [text(run, thread, seq) for seq in range(1, 51)]
        for event in published:
            await bus.publish(event)
        assert keys(await receive(sub, 50)) == keys(published)
        sub.close()

    async def test_a_thread_subscriber_gets_every_run_on_that_thread_in_publish_order(
        self, bus: EventBus
    ) -> None:
        thread = new_id("thread")
        runs = [new_id("run") for _ in range(3)]
        sub = bus.subscribe_thread(thread)
        published = [text(run, thread, seq) for seq in range(1, 11) for run in runs]
        for event in published:  # the runs interleaved
            await bus.publish(event)
        assert keys(await receive(sub, len(published))) == keys(published)
        sub.close()

    async def test_a_subscriber_waiting_in_get_is_woken_by_a_publish(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        by_run, by_thread = bus.subscribe(run), bus.subscribe_thread(thread)
        waiting = [asyncio.ensure_future(asyncio.wait_for(s.get(), GET_TIMEOUT))
                   for s in (by_run, by_thread)]
        for _ in range(3):
            await asyncio.sleep(0)  # both are blocked in get now
        await bus.publish(text(run, thread, 1))
        assert keys(await asyncio.gather(*waiting)) == [(run, 1), (run, 1)]
        close_all((by_run, by_thread))

    async def test_a_get_cancelled_by_a_timeout_loses_no_event(self, bus: EventBus) -> None:
        # The Runner reads under asyncio.timeout and a client may leave mid-get.
        run, thread = new_id("run"), new_id("thread")
        sub = bus.subscribe(run)
        for _ in range(3):
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(sub.get(), QUIET)
        pending = asyncio.ensure_future(sub.get())
        await asyncio.sleep(0)
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pending
        published = [text(run, thread, seq) for seq in (1, 2)]
        for event in published:
            await bus.publish(event)
        assert keys(await receive(sub, 2)) == keys(published)
        sub.close()

    async def test_publishing_with_no_subscriber_is_accepted(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        await asyncio.wait_for(  # nobody listens: no error, no wait
            asyncio.gather(*(bus.publish(text(run, thread, seq)) for seq in range(1, 101))),
            BULK_TIMEOUT)
        sub = bus.subscribe(run)
        await bus.publish(text(run, thread, 101))
        got = [await asyncio.wait_for(sub.get(), GET_TIMEOUT)]
        while got[-1].seq != 101:  # a bus with latency may still hand over the last few
            got.append(await asyncio.wait_for(sub.get(), GET_TIMEOUT))
        assert {e.run_id for e in got} == {run}
        assert [e.seq for e in got] == sorted({e.seq for e in got})
        sub.close()

    # --- who gets what -------------------------------------------------------------------

    async def test_no_event_crosses_to_another_run_or_thread(self, bus: EventBus) -> None:
        thread_x, thread_y = new_id("thread"), new_id("thread")
        run_a, run_b, run_c = new_id("run"), new_id("run"), new_id("run")
        shared = new_id("same")  # one string used as a run id and as a thread id
        placement = {run_a: thread_x, run_b: thread_y, run_c: thread_x, shared: thread_y}
        subs = {
            ("run", run_a): bus.subscribe(run_a), ("run", run_b): bus.subscribe(run_b),
            ("run", shared): bus.subscribe(shared),
            ("thread", thread_x): bus.subscribe_thread(thread_x),
            ("thread", thread_y): bus.subscribe_thread(thread_y),
            ("thread", shared): bus.subscribe_thread(shared),
        }
        published = [text(run, thread, seq) for seq in range(1, 6)
                     for run, thread in placement.items()]
        published.append(text(new_id("run"), shared, 1))  # a run on thread ``shared``
        for event in published:
            await bus.publish(event)
        for (scope, key), sub in subs.items():
            want = [e for e in published
                    if (e.run_id if scope == "run" else e.thread_id) == key]
            assert keys(await receive(sub, len(want))) == keys(want), (scope, key)
        # Everything each one should get came first, in order; now nothing else may come.
        end = [text(run, thread, 99) for run, thread in placement.items()]
        for event in end:
            await bus.publish(event)
        for (scope, key), sub in subs.items():
            want = [e for e in end if (e.run_id if scope == "run" else e.thread_id) == key]
            assert keys(await receive(sub, len(want))) == keys(want), (scope, key)
        await asyncio.gather(*(assert_gets_nothing(sub) for sub in subs.values()))
        close_all(subs.values())

    async def test_every_subscriber_of_a_run_or_thread_gets_every_event(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        subs = [bus.subscribe(run) for _ in range(3)] + [
            bus.subscribe_thread(thread) for _ in range(3)]
        published = [text(run, thread, seq) for seq in range(1, 21)]
        for event in published:
            await bus.publish(event)
        for sub in subs:
            assert keys(await receive(sub, 20)) == keys(published)
        close_all(subs)

    async def test_two_hundred_subscribers_all_get_the_event(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        subs = [bus.subscribe(run) for _ in range(100)] + [
            bus.subscribe_thread(thread) for _ in range(100)]
        await bus.publish(text(run, thread, 1))
        got = await asyncio.wait_for(
            asyncio.gather(*(asyncio.wait_for(s.get(), BULK_TIMEOUT) for s in subs)),
            BULK_TIMEOUT)
        assert keys(got) == [(run, 1)] * 200
        close_all(subs)

    async def test_a_subscriber_on_another_handle_gets_what_this_handle_publishes(
        self, buses: Buses
    ) -> None:
        # Two web processes: one runs the agent, the other serves the client.
        publisher, listener = buses.connect(), buses.connect()
        run, thread = new_id("run"), new_id("thread")
        by_run, by_thread = listener.subscribe(run), listener.subscribe_thread(thread)
        published = [text(run, thread, seq) for seq in range(1, 11)]
        for event in published:
            await publisher.publish(event)
        assert keys(await receive(by_run, 10)) == keys(published)
        assert keys(await receive(by_thread, 10)) == keys(published)
        close_all((by_run, by_thread))

    # --- live only -----------------------------------------------------------------------

    async def test_a_subscription_opened_after_a_publish_does_not_get_it(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        witness = bus.subscribe(run)
        await bus.publish(text(run, thread, 1))
        assert keys(await receive(witness, 1)) == [(run, 1)]  # event 1 has gone by
        late_run, late_thread = bus.subscribe(run), bus.subscribe_thread(thread)
        await bus.publish(text(run, thread, 2))
        assert keys(await receive(late_run, 1)) == [(run, 2)]
        assert keys(await receive(late_thread, 1)) == [(run, 2)]
        close_all((witness, late_run, late_thread))

    # --- closing -------------------------------------------------------------------------

    async def test_close_stops_delivery(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        witness = bus.subscribe(run)
        closed_run, closed_thread = bus.subscribe(run), bus.subscribe_thread(thread)
        close_all((closed_run, closed_thread))
        await bus.publish(text(run, thread, 1))
        assert keys(await receive(witness, 1)) == [(run, 1)]
        await assert_gets_nothing(closed_run)
        await assert_gets_nothing(closed_thread)
        witness.close()

    async def test_close_is_idempotent(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        used, unused = bus.subscribe(run), bus.subscribe_thread(thread)
        await bus.publish(text(run, thread, 1))
        assert keys(await receive(used, 1)) == [(run, 1)]
        for _ in range(3):
            close_all((used, unused))
        # and the run and thread can be subscribed again
        again_run, again_thread = bus.subscribe(run), bus.subscribe_thread(thread)
        await bus.publish(text(run, thread, 2))
        assert keys(await receive(again_run, 1)) == [(run, 2)]
        assert keys(await receive(again_thread, 1)) == [(run, 2)]
        close_all((again_run, again_run, again_thread, again_thread))

    async def test_closing_one_subscriber_leaves_the_others_receiving(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        run_subs = [bus.subscribe(run) for _ in range(3)]
        thread_subs = [bus.subscribe_thread(thread) for _ in range(3)]
        await bus.publish(text(run, thread, 1))
        run_subs[0].close()
        thread_subs[1].close()
        thread_subs[1].close()  # a second close must not take another one with it
        await bus.publish(text(run, thread, 2))
        for sub in (run_subs[1], run_subs[2], thread_subs[0], thread_subs[2]):
            assert keys(await receive(sub, 2)) == [(run, 1), (run, 2)]
        close_all(run_subs + thread_subs)

    # --- fidelity -------------------------------------------------------------------------

    async def test_events_come_back_equal_to_what_was_published(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        sub, by_thread = bus.subscribe(run), bus.subscribe_thread(thread)
        at = {"run_id": run, "thread_id": thread}
        published: list[ev.BaseEvent] = [
            ev.RunStarted(**at, seq=1, agent="workbench", input={"message": "こんにちは"}),
            ev.TextDelta(**at, seq=2, delta="原価を転嫁 🍣 — ‮rtl‬ \"quoted\" \\ \n\t\x00 end"),
            ev.ToolCall(**at, seq=3, call_id="c1", name="lookup",
                        args={"q": "東京", "n": 3, "deep": {"list": [1, 2.5, None, True]}}),
            ev.ToolResult(**at, seq=4, call_id="c1", name="lookup", success=True,
                          result={"rows": [{"名前": "寿司", "price": 1200}], "big": 2**62,
                                  "ratio": 0.1, "none": None, "empty": {}}),
            ev.Table(**at, seq=5, markdown="| a | b |\n|---|---|\n| 1 | 2 |", html=None),
            ev.Progress(**at, seq=6, message="半分", fraction=0.5, source="tool"),
            ev.Log(**at, seq=7, level="warning", message="𝔘𝔫𝔦𝔠𝔬𝔡𝔢", data={"k": ["v"]}),
            ev.Error(**at, seq=8, message="boom", code=None),
            ev.RunCompleted(**at, seq=9, output={"answer": "完了"}),
        ]
        for event in published:
            await bus.publish(event)
        for got in (await receive(sub, 9), await receive(by_thread, 9)):
            assert [type(e) for e in got] == [type(e) for e in published]
            assert [e.kind for e in got] == [e.kind for e in published]  # type: ignore
            assert [e.model_dump() for e in got] == [e.model_dump() for e in published]
            assert got == published
        close_all((sub, by_thread))

    async def test_a_large_payload_comes_back_whole(self, bus: EventBus) -> None:
        run, thread = new_id("run"), new_id("thread")
        sub = bus.subscribe(run)
        image = ev.Image(run_id=run, thread_id=thread, seq=1,
                         data_base64="iVBORw0KGgo" + "A" * (2 * 1024 * 1024))
        long_text = text(run, thread, 2, "長い文章。" * 100_000)  # 1.5 MB of UTF-8
        await bus.publish(image)
        await bus.publish(long_text)
        got = await asyncio.wait_for(receive(sub, 2), BULK_TIMEOUT)
        assert got == [image, long_text]
        sub.close()

    # --- load -----------------------------------------------------------------------------

    async def test_concurrent_publishers_keep_each_publishers_order(
        self, bus: EventBus
    ) -> None:
        thread = new_id("thread")
        runs = [new_id("run") for _ in range(8)]
        per_run = 50
        by_thread = bus.subscribe_thread(thread)
        by_run = {run: bus.subscribe(run) for run in runs}

        async def publish_run(run: str) -> None:
            for seq in range(1, per_run + 1):
                await bus.publish(text(run, thread, seq))
                await asyncio.sleep(0)  # let the other publishers in

        await asyncio.wait_for(asyncio.gather(*(publish_run(r) for r in runs)), BULK_TIMEOUT)
        got = await asyncio.wait_for(receive(by_thread, len(runs) * per_run), BULK_TIMEOUT)
        for run in runs:
            assert [e.seq for e in got if e.run_id == run] == list(range(1, per_run + 1))
            assert [e.seq for e in await receive(by_run[run], per_run)] == list(
                range(1, per_run + 1))
        close_all([by_thread, *by_run.values()])

    async def test_a_subscriber_that_never_reads_does_not_block_publishing_to_others(
        self, bus: EventBus
    ) -> None:
        run, thread = new_id("run"), new_id("thread")
        stuck = [bus.subscribe(run), bus.subscribe_thread(thread)]  # never read
        reader = bus.subscribe(run)
        count = 2000
        received: list[ev.BaseEvent] = []

        async def read() -> None:
            while len(received) < count:
                received.append(await asyncio.wait_for(reader.get(), GET_TIMEOUT))

        async def publish() -> None:
            for seq in range(1, count + 1):
                await bus.publish(text(run, thread, seq, f"{seq}:" + "x" * 1000))

        # bounded, never a deadlock: the stuck subscribers hold up neither side
        await asyncio.wait_for(asyncio.gather(read(), publish()), BULK_TIMEOUT)
        assert [e.seq for e in received] == list(range(1, count + 1))
        close_all([*stuck, reader])
