"""Several `shokunin serve` processes on one database and one Redis (issue 38): a run started
through one is followed live through another, resumed there after a drop, cancelled from
there; a process killed with SIGKILL leaves no run 'running' (another fails it with an
event, or a Studio project goes on there) and misses nothing for its clients. Real
processes, real Redis, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.api.studio.watcher import Watcher, new_project
from tests.backends import PG_ADMIN_URL, postgres_available
from tests.live_server import LiveServer
from tests.runs.redis_server import REDIS_URL, redis_available
from tests.tools.conftest import make_tool

T = TypeVar("T")
LEASE = "2"  # seconds a process vouches for its runs: a dead one's are taken within it

SLOW_TOOL = '''
import time

TOOL_NAME = "slow"
TOOL_DESCRIPTION = "counts slowly, saying each step"
TOOL_ICON = "x"


def get_function_declaration():
    return {"name": "slow", "description": "x", "parameters": {"type": "object",
            "properties": {"steps": {"type": "integer"}}}}


def execute(args, context):
    for i in range(args.get("steps", 10)):
        if context["abort_event"].is_set():
            return {"success": False, "error": "aborted", "aborted": True}
        context["message_callback"](f"step {i}")
        time.sleep(0.1)
    return {"success": True, "result": args.get("steps", 10)}
'''


def _servers(root: Path, database_url: str, count: int = 2) -> list[LiveServer]:
    namespace = f"scale-{uuid.uuid4().hex[:8]}"
    servers = []
    for i in range(count):
        folder = root / f"web{i}"
        make_tool(folder / "tool", "slow", SLOW_TOOL)
        servers.append(LiveServer(folder, env={
            "SHOKUNIN_DATABASE_URL": database_url, "SHOKUNIN_REDIS_URL": REDIS_URL,
            "SHOKUNIN_REDIS_NAMESPACE": namespace, "SHOKUNIN_RUN_LEASE_SECONDS": LEASE}))
    return servers


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(
    not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432"))])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[LiveServer]]:
    """Two web processes, A and B, sharing a database and a Redis."""
    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL} (set SHOKUNIN_TEST_REDIS_URL)")
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
        servers = _servers(tmp_path, url)
        yield from _running(servers)
        return
    name = f"shokunin_scale_{uuid.uuid4().hex[:10]}"
    _psql(f'CREATE DATABASE "{name}"')
    try:
        servers = _servers(tmp_path, PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}")
        yield from _running(servers)
    finally:
        _psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _running(servers: list[LiveServer]) -> Iterator[list[LiveServer]]:
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


def in_own_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end in a thread of its own: a browser test before may leave its
    event loop running in this one (Playwright's sync API)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _psql(sql: str) -> None:
    async def run() -> None:
        engine = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            await conn.execute(text(sql))
        await engine.dispose()

    in_own_loop(run())


def _start_slow(server: LiveServer, steps: int) -> tuple[str, threading.Thread]:
    """Start the slow tool through ``server``'s SSE face, its client kept reading in a
    thread (leaving would cancel the run); the run's id and that thread."""
    started = threading.Event()
    seen: dict[str, str] = {}

    def client() -> None:
        try:
            with httpx.stream("POST", f"{server.url}/api/tools/slow/execute/stream",
                              json={"args": {"steps": steps}}, timeout=600) as stream:
                for event, data in _sse(stream.iter_lines()):
                    if event == "started":
                        seen["run_id"] = data["run_id"]
                        started.set()
        except httpx.HTTPError:
            pass  # its server was killed under it

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    assert started.wait(30), "the tool's run did not start"
    return seen["run_id"], thread


def _sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    event, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()
        elif not line and data:
            yield event, json.loads(data)
            event, data = "message", ""


def _follow(server: LiveServer, run_id: str, after: int = 0) -> list[dict[str, Any]]:
    """The run's events through ``server``'s runs SSE face, from ``after`` to its end (the
    stream's closing ``end`` message left out)."""
    headers = {"Last-Event-ID": str(after)} if after else {}
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", headers=headers,
                      timeout=60) as stream:
        return [data for event, data in _sse(stream.iter_lines()) if event != "end"]


_stored = _follow  # of an ended run: what the store holds


def _status(server: LiveServer, run_id: str) -> str:
    return str(httpx.get(f"{server.url}/api/runs/{run_id}", timeout=10).json()["status"])


def test_a_run_started_on_one_process_is_followed_live_on_the_other(
        pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, client = _start_slow(a, steps=30)
    live = _follow(b, run_id)  # on B, while A runs it
    client.join(timeout=30)
    assert live[-1]["kind"] == "run_completed"
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    assert sum(e["kind"] == "progress" for e in live) == 30
    assert live == _stored(a, run_id)  # what B streamed is what A stored
    assert _follow(b, run_id, after=10) == live[10:]  # a reconnect after seq 10, on B


def test_a_cancel_sent_to_the_other_process_stops_the_run(pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, client = _start_slow(a, steps=600)
    time.sleep(0.5)
    cancelled = httpx.post(f"{b.url}/api/runs/{run_id}/cancel", timeout=30)
    assert cancelled.status_code == 202, cancelled.text
    assert _status(b, run_id) == "cancelled"
    assert _stored(b, run_id)[-1]["kind"] == "run_cancelled"
    client.join(timeout=30)
    assert not client.is_alive()  # A's own client saw the end too


def test_a_killed_process_leaves_no_run_running_and_its_clients_see_the_end(
        pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, _client = _start_slow(a, steps=6000)
    seen: list[dict[str, Any]] = []
    follower = threading.Thread(target=lambda: seen.extend(_follow(b, run_id)), daemon=True)
    follower.start()
    time.sleep(1.0)
    assert a.proc is not None
    killed_at = time.monotonic()
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait()
    follower.join(timeout=float(LEASE) * 3 + 20)
    assert not follower.is_alive(), "the client on B never saw the run end"
    took = time.monotonic() - killed_at
    assert seen[-1]["kind"] == "run_failed" and "stopped" in seen[-1]["error"]
    assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))  # nothing lost
    assert seen == _stored(b, run_id)
    assert _status(b, run_id) == "failed"
    print(f"killed run failed by the other process {took:.1f} s after SIGKILL")


def test_a_studio_project_started_on_one_process_is_watched_and_approved_on_the_other(
        pair: list[LiveServer]) -> None:
    """Socket.IO on B follows a project A runs (its events reach B through the bus, so no
    Socket.IO manager is needed); each approval, sent to A or B in turn, resumes the run
    wherever it lands; B's socket sees the whole pipeline once."""
    watcher, resolved = in_own_loop(_watch_and_approve(*pair))
    created = [e["checkpointId"] for e in watcher.named("checkpoint:created")]
    assert len(created) == 11 and created == resolved  # each once, in order
    completed = [e["agentId"] for e in watcher.named("agent:completed")]
    assert len(completed) == len(set(completed)) == 16


async def _watch_and_approve(a: LiveServer, b: LiveServer) -> tuple[Watcher, list[str]]:
    async with httpx.AsyncClient(base_url=a.url, timeout=30) as on_a, \
            httpx.AsyncClient(base_url=b.url, timeout=30) as on_b:
        pid = await new_project(on_a)
        async with Watcher(b.url, "seed") as watcher:
            assert (await watcher.sio.call("subscribe:project", pid, timeout=10))["ok"]
            assert (await on_a.post(f"/api/projects/{pid}/start")).status_code == 200
            resolved: list[str] = []
            async with asyncio.timeout(60):
                while not [s for s in watcher.named("project:status_changed")
                           if s.get("newStatus") == "completed"]:
                    for created in watcher.named("checkpoint:created"):
                        cid = created["checkpointId"]
                        if cid not in resolved:
                            http = (on_a, on_b)[len(resolved) % 2]
                            response = await http.post(f"/api/checkpoints/{cid}/resolve",
                                                       json={"resolution": "approved"})
                            assert response.status_code == 200, response.text
                            resolved.append(cid)
                    await asyncio.sleep(0.05)
    return watcher, resolved
