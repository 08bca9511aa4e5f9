"""PostgreSQL briefly down (issue 38, faults): requests get a clear 503 with Retry-After,
the server comes back by itself when the database does, and a tool run through the outage
goes on (a run whose own write failed is ended by the heartbeat: tests/runs/test_leases.py).
The database is reached through a TCP proxy the test cuts, so the real server other tests
use stays up."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.backends import PG_ADMIN_URL, postgres_available
from tests.e2e.topology import SLOW_TOOL, psql, start_slow, status, stored, under_way
from tests.live_server import LiveServer
from tests.tcp_proxy import TcpProxy
from tests.tools.conftest import make_tool
from tests.waiting import wait_until

pytestmark = [pytest.mark.skipif(not postgres_available(),
                                 reason="PostgreSQL not reachable on 127.0.0.1:5432"),
              pytest.mark.postgres, pytest.mark.subprocess]


@pytest.fixture
def behind_proxy(tmp_path: Path) -> Iterator[tuple[LiveServer, TcpProxy]]:
    name = f"shokunin_outage_{uuid.uuid4().hex[:10]}"
    psql(f'CREATE DATABASE "{name}"')
    proxy = TcpProxy(5432).start()
    make_tool(tmp_path / "tool", "slow", SLOW_TOOL)
    url = PG_ADMIN_URL.rsplit("/", 1)[0].replace(":5432", f":{proxy.port}") + f"/{name}"
    server = LiveServer(tmp_path, env={"SHOKUNIN_DATABASE_URL": url,
                                       "SHOKUNIN_RUN_LEASE_SECONDS": "1"})
    try:
        server.start()
        yield server, proxy
    finally:
        server.stop()
        proxy.close()
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_requests_get_503_while_the_database_is_down_and_work_again_after(
        behind_proxy: tuple[LiveServer, TcpProxy]) -> None:
    server, proxy = behind_proxy
    assert httpx.get(f"{server.url}/api/threads", timeout=10).status_code == 200
    proxy.cut()
    down = httpx.get(f"{server.url}/api/threads", timeout=30)
    assert down.status_code == 503, down.text
    assert down.json()["code"] == "database_unavailable"
    assert int(down.headers["retry-after"]) > 0
    assert "try again" in down.json()["error"]
    proxy.start()
    wait_until(lambda: httpx.get(f"{server.url}/api/threads", timeout=10).status_code == 200,
               30, interval=0.2, what="the threads answered again")
    assert httpx.get(f"{server.url}/health", timeout=10).status_code == 200


def test_a_tool_run_through_the_outage_goes_on_and_ends_with_its_events_in_order(
        behind_proxy: tuple[LiveServer, TcpProxy]) -> None:
    """A tool's progress messages said while the database is away are not stored (they
    were never sent either); the run itself goes on and ends, with no gap in its seq."""
    server, proxy = behind_proxy
    run_id, client = start_slow(server, steps=60)
    under_way(server, run_id)  # some progress is stored before the outage
    proxy.cut()
    time.sleep(2.0)  # the outage, under the run
    proxy.start()
    client.join(timeout=60)
    wait_until(lambda: status(server, run_id) == "completed", 30, interval=0.2,
               what="the run completed")
    events = stored(server, run_id)
    assert events[-1]["kind"] == "run_completed"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert 0 < sum(e["kind"] == "progress" for e in events) < 60  # the outage's are not
