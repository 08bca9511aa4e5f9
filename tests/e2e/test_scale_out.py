"""Several `shokunin serve` processes on one database and one Redis (issue 38): a run started
through one is followed live through another, resumed there after a drop, cancelled from
there; a process killed with SIGKILL leaves no run 'running' (another fails it with an
event, or a Studio project goes on there) and misses nothing for its clients. Real
processes, real Redis, SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.backends import PG_ADMIN_URL, postgres_available
from tests.e2e.topology import (
    SLOW_TOOL,
    follow,
    follow_into,
    in_own_loop,
    psql,
    start_slow,
    status,
    stored,
    under_way,
    watch_and_approve,
)
from tests.live_server import LiveServer
from tests.runs.redis_server import REDIS_URL, redis_available
from tests.tools.conftest import make_tool
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

LEASE = "2"  # seconds a process vouches for its runs: a dead one's are taken within it


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
    psql(f'CREATE DATABASE "{name}"')
    try:
        servers = _servers(tmp_path, PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}")
        yield from _running(servers)
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _running(servers: list[LiveServer]) -> Iterator[list[LiveServer]]:
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


def test_a_run_started_on_one_process_is_followed_live_on_the_other(
        pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, client = start_slow(a, steps=30)
    live = follow(b, run_id)  # on B, while A runs it
    client.join(timeout=30)
    assert live[-1]["kind"] == "run_completed"
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    assert sum(e["kind"] == "progress" for e in live) == 30
    assert live == stored(a, run_id)  # what B streamed is what A stored
    assert follow(b, run_id, after=10) == live[10:]  # a reconnect after seq 10, on B


def test_a_cancel_sent_to_the_other_process_stops_the_run(pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, client = start_slow(a, steps=600)
    under_way(b, run_id)
    cancelled = httpx.post(f"{b.url}/api/runs/{run_id}/cancel", timeout=30)
    assert cancelled.status_code == 202, cancelled.text
    assert status(b, run_id) == "cancelled"
    assert stored(b, run_id)[-1]["kind"] == "run_cancelled"
    client.join(timeout=30)
    assert not client.is_alive()  # A's own client saw the end too


def test_a_killed_process_leaves_no_run_running_and_its_clients_see_the_end(
        pair: list[LiveServer]) -> None:
    a, b = pair
    run_id, _client = start_slow(a, steps=6000)
    seen: list[dict[str, Any]] = []
    follower = threading.Thread(target=follow_into, args=(seen, b, run_id), daemon=True)
    follower.start()
    wait_until(lambda: any(e["kind"] == "progress" for e in seen), 30,
               what="the client on B following the run")
    assert a.proc is not None
    killed_at = time.monotonic()
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait()
    follower.join(timeout=float(LEASE) * 3 + 20)
    assert not follower.is_alive(), "the client on B never saw the run end"
    took = time.monotonic() - killed_at
    assert seen[-1]["kind"] == "run_failed" and "stopped" in seen[-1]["error"]
    assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))  # nothing lost
    assert seen == stored(b, run_id)
    assert status(b, run_id) == "failed"
    print(f"killed run failed by the other process {took:.1f} s after SIGKILL")


def test_a_studio_project_started_on_one_process_is_watched_and_approved_on_the_other(
        pair: list[LiveServer]) -> None:
    """Socket.IO on B follows a project A runs (its events reach B through the bus, so no
    Socket.IO manager is needed); each approval, sent to A or B in turn, resumes the run
    wherever it lands; B's socket sees the whole pipeline once."""
    watcher, resolved = in_own_loop(watch_and_approve(*pair))
    created = [e["checkpointId"] for e in watcher.named("checkpoint:created")]
    assert len(created) == 11 and created == resolved  # each once, in order
    completed = [e["agentId"] for e in watcher.named("agent:completed")]
    assert len(completed) == len(set(completed)) == 16


