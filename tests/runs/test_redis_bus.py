"""The Redis bus beyond the conformance suite: two engines (two web processes) on one database
and one Redis, where one follows a run the other runs; its errors at open; its namespaces; its
bound on a subscriber that does not read. Each test has a namespace of its own."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shokunin import events as ev
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.runs import RedisBus, RunContext, follow
from shokunin.runs import redis_bus as redis_bus_module
from tests.runs.redis_server import REDIS_URL, open_redis_bus
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess

TIMEOUT = 30.0  # generous: a loaded 2-core machine


def namespace() -> str:
    return f"test-{uuid.uuid4().hex}"


def text(run_id: str, seq: int) -> ev.Text:
    return ev.Text(run_id=run_id, thread_id="t", seq=seq, text=f"#{seq}")


@pytest.fixture
async def redis_url() -> str:
    """The test Redis's URL, once it answers (else the test is skipped with the reason)."""
    await (await open_redis_bus(namespace())).close()
    return REDIS_URL


class Gated:
    """Says "before", waits for the test to open ``gate``, says "after": a run that is
    certainly still running while another process follows it."""

    name = "gated"

    def __init__(self) -> None:
        self.gate = asyncio.Event()

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        await ctx.emit(ev.Text(text="before"))
        await self.gate.wait()
        await ctx.emit(ev.Text(text="after"))
        return {"done": True}


@contextlib.asynccontextmanager
async def two_processes(tmp_path: Path, url: str) -> AsyncIterator[tuple[Engine, Engine]]:
    """Two engines on one SQLite file and one Redis namespace; A owns the runs."""
    options = Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, redis_url=url,
                       redis_namespace=namespace())
    async with await Engine.open(options, faces={"analyst"}, mcp_clients=False) as a, \
            await Engine.open(options, faces={"analyst"}, mcp_clients=False,
                              recover=False) as b:
        yield a, b


async def test_a_run_started_through_one_engine_is_followed_live_through_another(
    tmp_path: Path, redis_url: str
) -> None:
    async with two_processes(tmp_path, redis_url) as (a, b):
        assert isinstance(a.bus, RedisBus) and isinstance(b.bus, RedisBus)
        gated = Gated()
        a.runner.register(gated)
        run_id = await a.runner.start("gated", None, {})
        on_b = b.bus.subscribe(run_id)  # what reaches process B's bus from A
        followed: list[ev.BaseEvent] = []
        said_before = asyncio.Event()

        async def follow_on_b() -> None:
            async for event in follow(b.runner, run_id, cancel_on_exit=False):
                followed.append(event)
                if getattr(event, "text", None) == "before":
                    said_before.set()

        following = asyncio.create_task(follow_on_b())
        await asyncio.wait_for(said_before.wait(), TIMEOUT)
        assert not b.runner.is_live(run_id)  # B follows a run that runs in A
        gated.gate.set()
        await asyncio.wait_for(following, TIMEOUT)

        _, stored = await a.store.run_with_events(run_id, 0)
        assert [(e.seq, e.kind) for e in followed] == [(e.seq, e.kind) for e in stored]
        assert followed == stored and followed[-1].kind == "run_completed"
        live: list[ev.BaseEvent] = []  # the end came through Redis, not from the store
        while not live or live[-1].kind != "run_completed":
            live.append(await asyncio.wait_for(on_b.get(), TIMEOUT))
        assert [e.seq for e in live] == [e.seq for e in stored][-len(live):]
        assert [getattr(e, "text", None) for e in live[-2:]] == ["after", None]
        on_b.close()


async def test_an_engine_without_redis_url_uses_the_in_process_bus(tmp_path: Path) -> None:
    options = Settings(data_dir=tmp_path / "data", sandbox_pool_size=0)
    assert options.redis_url is None
    async with await Engine.open(options, faces={"analyst"}, mcp_clients=False) as engine:
        assert not isinstance(engine.bus, RedisBus)


async def test_closing_the_engine_closes_its_redis_bus(tmp_path: Path, redis_url: str) -> None:
    options = Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, redis_url=redis_url,
                       redis_namespace=namespace())
    engine = await Engine.open(options, faces={"analyst"}, mcp_clients=False)
    bus = engine.bus
    assert isinstance(bus, RedisBus)
    await engine.close()
    assert bus._listener.done() and bus._sender.done()


def a_port_nobody_listens_on() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_redis_down_at_open_is_a_clear_error_naming_the_setting(tmp_path: Path) -> None:
    url = f"redis://:hunter2-secret@127.0.0.1:{a_port_nobody_listens_on()}/0"
    options = Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, redis_url=url)
    with pytest.raises(ConnectionError) as caught:
        await Engine.open(options, faces={"analyst"}, mcp_clients=False)
    message = str(caught.value)
    assert "SHOKUNIN_REDIS_URL" in message and "does not answer" in message
    assert "hunter2" not in message and ":***@127.0.0.1" in message  # no password in a log


async def test_a_bad_redis_url_is_a_clear_error_naming_the_setting() -> None:
    with pytest.raises(ValueError, match=r"SHOKUNIN_REDIS_URL='http://127\.0\.0\.1:6379' is "
                                         r"not a Redis URL.*redis://host:6379/0"):
        await RedisBus.open("http://127.0.0.1:6379", namespace())


async def test_two_namespaces_on_one_redis_never_hear_each_other(redis_url: str) -> None:
    ours, theirs = await open_redis_bus(namespace()), await open_redis_bus(namespace())
    listener = await RedisBus.open(redis_url, ours.namespace)  # another process of ours
    try:
        sub = listener.subscribe("r")
        await theirs.publish(text("r", 1))  # another deployment, same run id
        await theirs._outbox.join()  # handed to Redis: it would come before ours
        await ours.publish(text("r", 2))
        got = await asyncio.wait_for(sub.get(), TIMEOUT)
        assert got.seq == 2
        assert sub.queue.empty()  # theirs was published first and did not come
    finally:
        for bus in (ours, theirs, listener):
            await bus.close()


async def test_a_subscriber_that_never_reads_holds_a_bounded_queue(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_bus_module, "SUBSCRIBER_QUEUE", 5)
    publisher, listener = await open_redis_bus(namespace()), None
    try:
        listener = await RedisBus.open(redis_url, publisher.namespace)
        stuck, reader = listener.subscribe("r"), listener.subscribe_thread("t")
        for seq in range(1, 21):
            await publisher.publish(text("r", seq))
            assert (await asyncio.wait_for(reader.get(), TIMEOUT)).seq == seq
        assert stuck.queue.qsize() == 5 and stuck.dropped == 15
        assert [stuck.queue.get_nowait().seq for _ in range(5)] == [1, 2, 3, 4, 5]
    finally:
        await publisher.close()
        if listener is not None:
            await listener.close()


class Ticker:
    """Says a numbered line every 50 ms, ``n`` times."""

    name = "ticker"

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        for i in range(input["n"]):
            await ctx.emit(ev.Text(text=f"#{i}"))
            await asyncio.sleep(0.05)
        return {"n": input["n"]}


@contextlib.asynccontextmanager
async def own_redis() -> AsyncIterator[tuple[str, Any]]:
    """A Redis of this test's own (it is restarted), on a free port: its URL and a restart
    function."""
    import shutil
    import subprocess

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no"]
    proc = [subprocess.Popen(args, stdout=subprocess.DEVNULL)]

    def accepts() -> bool:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        return False

    async def up() -> None:
        await eventually(accepts, 5, interval=0.05, what="redis-server listening")

    async def restart(down_for: float) -> None:
        proc[0].kill()
        proc[0].wait()
        await asyncio.sleep(down_for)
        proc[0] = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        await up()

    await up()
    try:
        yield f"redis://127.0.0.1:{port}/0", restart
    finally:
        proc[0].kill()
        proc[0].wait()


async def test_a_follower_in_another_process_misses_nothing_across_a_redis_restart(
        tmp_path: Path) -> None:
    """Redis killed and started again (empty) while A runs and B follows: the run never
    waits on Redis, B goes on from the database meanwhile and from Redis again after, and
    gets every event once, in order."""
    async with own_redis() as (url, restart), two_processes(tmp_path, url) as (a, b):
        a.runner.register(Ticker())
        run_id = await a.runner.start("ticker", None, {"n": 120})  # about 6 s
        followed: list[ev.BaseEvent] = []

        async def follow_on_b() -> None:
            async for event in follow(b.runner, run_id, cancel_on_exit=False):
                followed.append(event)

        following = asyncio.create_task(follow_on_b())
        await eventually(lambda: len(followed) >= 10, what="B following the run live")
        await restart(down_for=1.5)
        on_b = b.bus.subscribe(run_id)  # after the restart: live through Redis again
        await asyncio.wait_for(following, TIMEOUT)
        _, stored = await a.store.run_with_events(run_id, 0)
        assert followed == stored and stored[-1].kind == "run_completed"
        assert [e.seq for e in followed] == list(range(1, 123))
        live: list[ev.BaseEvent] = []
        while not live or live[-1].kind != "run_completed":
            live.append(await asyncio.wait_for(on_b.get(), TIMEOUT))
        assert live[-1] == stored[-1]
        on_b.close()
