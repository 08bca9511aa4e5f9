"""RedisBus: the EventBus across processes, on Redis pub/sub (``SHOKUNIN_REDIS_URL``).

The store stays the record (every event is stored before it is published); the bus only
carries live events, so whatever it drops -- a subscriber too slow, Redis away for a while --
a follower fills from the store (``Runner.stream``, ``ThreadFeed``).

Each process holds two Redis connections whatever its number of subscribers: a listener and
a sender.

- The listener pattern-subscribes to the whole namespace (``<namespace>:*``) once, in
  ``open``, and waits for Redis to acknowledge it. ``subscribe()`` is synchronous and a
  subscriber must get every event published after it returned, by any process (the
  conformance suite publishes from another process right after it); a ``SUBSCRIBE`` per run
  would be effective only some time after ``subscribe()`` returned. So every process hears
  every event of its namespace (python-socketio's Redis manager, which carries Socket.IO
  emits, does the same) and fans them out to its own subscribers, by run and by thread.
- The sender publishes from a bounded queue in order, batched in pipelines: a run never
  waits on Redis, and a slow or absent Redis costs remote followers live events, never a
  run its progress.

A message goes to ``<namespace>:run:<run_id>`` (a thread's own events, which have no run:
``<namespace>:thread:<thread_id>``), so ``redis-cli subscribe`` can watch one run. Its body
is the publishing bus's origin id, a space, and the event's JSON (``parse_event`` reads it
back). A process delivers its own events to its subscribers at once and skips their echo.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import defaultdict
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from shokunin.events import BaseEvent, parse_event
from shokunin.runs.bus import LocalSubscription

if TYPE_CHECKING:  # redis is imported when a bus opens: 0.1 s the one-process default saves
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

log = logging.getLogger(__name__)

SETTING = "SHOKUNIN_REDIS_URL"
OPEN_TIMEOUT_SEC = 10.0  # connect, answer PING, acknowledge the subscription
CLOSE_FLUSH_SEC = 2.0  # how long close() lets the sender hand over what is queued
SUBSCRIBER_QUEUE = 4096  # events held for one subscriber; past it, dropped for it alone
SENDER_QUEUE = 10_000  # events waiting to be published; past it, dropped (the store has them)
SENDER_BATCH = 256  # most messages sent in one pipeline
RETRY_SEC = 1.0  # pause before the listener or the sender tries a lost Redis again


def redacted(url: str) -> str:
    """``url`` without its password, fit for a message or a log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username or ''}:***@{parts.hostname or ''}"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


class RedisBus:
    """The EventBus of a process among several, on one Redis; open it with ``open``."""

    def __init__(self, client: Redis, pubsub: PubSub, namespace: str) -> None:
        self._client = client
        self._pubsub = pubsub
        self.namespace = namespace
        self._origin = uuid.uuid4().hex.encode()
        self._subs: defaultdict[str, set[LocalSubscription]] = defaultdict(set)
        self._thread_subs: defaultdict[str, set[LocalSubscription]] = defaultdict(set)
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(SENDER_QUEUE)
        self._unsent = 0  # dropped since the last message the sender could hand over
        self._listener = asyncio.create_task(self._listen(), name="redis-bus-listener")
        self._sender = asyncio.create_task(self._send(), name="redis-bus-sender")

    @classmethod
    async def open(cls, url: str, namespace: str = "shokunin") -> RedisBus:
        """Connect to Redis at ``url`` and subscribe to ``namespace`` (letters, digits,
        ``_.-``: see ``Settings.redis_namespace``); return once Redis has acknowledged the
        subscription. A bad URL or a Redis that does not answer raises
        ``ValueError`` or ``ConnectionError`` naming ``SHOKUNIN_REDIS_URL``."""
        from redis.asyncio import Redis
        from redis.exceptions import RedisError

        try:
            client = Redis.from_url(
                url, socket_connect_timeout=OPEN_TIMEOUT_SEC, socket_keepalive=True)
        except ValueError as exc:
            raise ValueError(f"{SETTING}={redacted(url)!r} is not a Redis URL ({exc}); "
                             "use redis://host:6379/0 (or rediss://, unix://)") from None
        pubsub = client.pubsub(ignore_subscribe_messages=False)
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_SEC):
                await client.ping()
                await pubsub.psubscribe(f"{namespace}:*")
                while (message := await pubsub.get_message(timeout=OPEN_TIMEOUT_SEC)) is None \
                        or message["type"] != "psubscribe":
                    pass  # nothing else can come before the acknowledgement
        except (RedisError, OSError, TimeoutError) as exc:
            await pubsub.aclose()
            await client.aclose()
            raise ConnectionError(
                f"Redis at {SETTING}={redacted(url)!r} does not answer "
                f"({type(exc).__name__}: {exc or 'timed out'}); start Redis there, or unset "
                f"{SETTING} to run in one process without it") from None
        return cls(client, pubsub, namespace)

    # --- the EventBus protocol ----------------------------------------------------------

    async def publish(self, event: BaseEvent) -> None:
        self._deliver(event)
        channel = (f"{self.namespace}:run:{event.run_id}" if event.run_id
                   else f"{self.namespace}:thread:{event.thread_id}")
        try:
            self._outbox.put_nowait((channel, self._origin + b" " + event.model_dump_json(
                ).encode()))
        except asyncio.QueueFull:  # Redis is away or slower than the runs: the store has it
            if not self._unsent:
                log.warning("Redis bus: the send queue is full; other processes get events "
                            "from the store until Redis keeps up")
            self._unsent += 1

    def subscribe(self, run_id: str) -> LocalSubscription:
        return LocalSubscription(self._subs, run_id, SUBSCRIBER_QUEUE)

    def subscribe_thread(self, thread_id: str) -> LocalSubscription:
        return LocalSubscription(self._thread_subs, thread_id, SUBSCRIBER_QUEUE)

    async def close(self) -> None:
        """Hand over what is queued (briefly), stop the listener and the sender, and close
        both connections."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_FLUSH_SEC):
                await self._outbox.join()
        for task in (self._listener, self._sender):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._pubsub.aclose()
        await self._client.aclose()

    # --- the two tasks -------------------------------------------------------------------

    def _deliver(self, event: BaseEvent) -> None:
        for sub in tuple(self._subs.get(event.run_id, ())):
            sub.offer(event)
        for sub in tuple(self._thread_subs.get(event.thread_id, ())):
            sub.offer(event)

    async def _listen(self) -> None:
        from redis.exceptions import RedisError

        failing = False  # say so once per outage, not once a second
        while True:
            try:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=None)
            except (RedisError, OSError) as exc:  # redis-py reconnects and resubscribes
                log.log(logging.DEBUG if failing else logging.WARNING,
                        "Redis bus: listening failed (%s); other processes' events come "
                        "from the store until Redis is back", exc)
                failing = True
                await asyncio.sleep(RETRY_SEC)
                continue
            if message is None or message["type"] != "pmessage":
                continue  # an acknowledgement (of the resubscription after a reconnect)
            if failing:
                log.warning("Redis bus: listening again")
                failing = False
            origin, _, data = message["data"].partition(b" ")
            if origin == self._origin or not (self._subs or self._thread_subs):
                continue  # delivered in publish(), or nobody here listens
            try:
                event = parse_event(data)
            except ValueError:  # not one of ours: another program on the namespace
                log.warning("Redis bus: ignored a message on %s that is not an event",
                            message["channel"])
                continue
            self._deliver(event)

    async def _send(self) -> None:
        from redis.exceptions import RedisError

        while True:
            batch = [await self._outbox.get()]
            while len(batch) < SENDER_BATCH and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for channel, body in batch:
                        pipe.publish(channel, body)
                    await pipe.execute()
                if self._unsent:
                    log.warning("Redis bus: publishing again; %d events were not published "
                                "(they are stored)", self._unsent)
                    self._unsent = 0
            except (RedisError, OSError) as exc:  # the store has them: followers read it
                if not self._unsent:
                    log.warning("Redis bus: publishing failed (%s); other processes get "
                                "this process's events from the store until Redis is back",
                                exc)
                self._unsent += len(batch)
                await asyncio.sleep(RETRY_SEC)
            finally:
                for _ in batch:
                    self._outbox.task_done()
