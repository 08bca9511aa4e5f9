"""Web processes and workers (issue 38, point 2 and its faults): two `shokunin serve` send
their runs through a job queue to two `shokunin worker`, on one database, one Redis bus and
one data folder. A run sent through one web process runs on a worker and is followed and
cancelled through the other; a worker killed mid-run leaves no run 'running'; a web process
killed mid-run stops nothing, its client goes on through the other; a Studio project runs on
the workers and is approved through both; a thread's Analyst runs keep their kernel on one
worker, and when that worker is killed the next run is told its variables are gone. Real
processes, on SAQ's PostgreSQL queue (store on PostgreSQL) and its Redis queue (store on
SQLite)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

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
from tests.live_server import LiveServer, LiveWorker
from tests.runs.redis_server import REDIS_URL, redis_available
from tests.tools.conftest import make_tool
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

LEASE = "2"
SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"


@dataclass
class Topology:
    webs: list[LiveServer]
    workers: list[LiveWorker]
    database_url: str

    def query(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` on the shared database (what no API says: who runs what)."""
        if self.database_url.startswith("sqlite"):
            with sqlite3.connect(self.database_url.split("///", 1)[1]) as conn:
                return conn.execute(sql, params).fetchall()

        async def run() -> list[tuple[Any, ...]]:
            engine = create_async_engine(self.database_url)
            async with engine.connect() as conn:
                rows = (await conn.execute(text(sql), params)).all()
            await engine.dispose()
            return [tuple(r) for r in rows]

        return in_own_loop(run())

    def worker_running(self, run_id: str, timeout: float = 30) -> LiveWorker:
        """The worker whose lease the run holds (waiting until one took it)."""
        def holder() -> LiveWorker | None:
            rows = self.query("SELECT lease_holder FROM runs WHERE id = :id", id=run_id)
            lease = rows[0][0] if rows else None
            return next((worker for worker in self.workers
                         if lease and worker.proc and f":{worker.proc.pid}:" in lease), None)

        return wait_until(holder, timeout, interval=0.1, what=f"a worker taking run {run_id}")


@pytest.fixture(params=[
    pytest.param("postgres", marks=pytest.mark.skipif(
        not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432")),
    "sqlite+redis-queue"])
def topology(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Topology]:
    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL} (set SHOKUNIN_TEST_REDIS_URL)")
    if request.param == "postgres":
        name = f"shokunin_workers_{uuid.uuid4().hex[:10]}"
        psql(f'CREATE DATABASE "{name}"')
        url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
        try:
            yield from _running(tmp_path, url, url)
        finally:
            psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        return
    yield from _running(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}", REDIS_URL)


def _running(root: Path, database_url: str, queue_url: str) -> Iterator[Topology]:
    data = root / "data"  # one data folder for every process: uploads, workspaces
    make_tool(data / "tool", "slow", SLOW_TOOL)
    env = {"SHOKUNIN_DATABASE_URL": database_url, "SHOKUNIN_REDIS_URL": REDIS_URL,
           "SHOKUNIN_QUEUE_URL": queue_url,
           "SHOKUNIN_REDIS_NAMESPACE": f"workers-{uuid.uuid4().hex[:8]}",
           "SHOKUNIN_RUN_LEASE_SECONDS": LEASE, "SHOKUNIN_WORKER_CONCURRENCY": "4"}
    webs = [LiveServer(data, env=env, log_path=root / f"web{i}.log") for i in range(2)]
    workers = [LiveWorker(data, env=env, log_path=root / f"worker{i}.log") for i in range(2)]
    started: list[LiveServer] = []
    try:
        for process in (*webs, *workers):
            process.start()
            started.append(process)
        yield Topology(webs, workers, database_url)
    finally:
        for process in started:
            process.stop()


def test_a_run_sent_through_one_web_process_runs_on_a_worker_followed_on_the_other(
        topology: Topology) -> None:
    a, b = topology.webs
    run_id, client = start_slow(a, steps=30)
    assert topology.worker_running(run_id) in topology.workers
    live = follow(b, run_id)
    client.join(timeout=30)
    assert live[-1]["kind"] == "run_completed"
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    assert sum(e["kind"] == "progress" for e in live) == 30
    assert live == stored(a, run_id)
    assert follow(b, run_id, after=10) == live[10:]


def test_a_cancel_sent_to_the_other_web_process_stops_the_run_on_its_worker(
        topology: Topology) -> None:
    a, b = topology.webs
    run_id, client = start_slow(a, steps=600)
    topology.worker_running(run_id)
    under_way(b, run_id)
    cancelled = httpx.post(f"{b.url}/api/runs/{run_id}/cancel", timeout=30)
    assert cancelled.status_code == 202, cancelled.text
    assert status(b, run_id) == "cancelled"
    assert stored(b, run_id)[-1]["kind"] == "run_cancelled"
    client.join(timeout=30)
    assert not client.is_alive()


def test_a_killed_worker_leaves_no_run_running_and_the_clients_see_the_end(
        topology: Topology) -> None:
    a, b = topology.webs
    run_id, _client = start_slow(a, steps=6000)
    worker = topology.worker_running(run_id)
    seen: list[dict[str, Any]] = []
    follower = threading.Thread(target=follow_into, args=(seen, b, run_id), daemon=True)
    follower.start()
    wait_until(lambda: any(e["kind"] == "progress" for e in seen), 30,
               what="the client on B following the run")
    assert worker.proc is not None
    killed_at = time.monotonic()
    os.kill(worker.proc.pid, signal.SIGKILL)
    worker.proc.wait()
    follower.join(timeout=float(LEASE) * 3 + 20)
    assert not follower.is_alive(), "the client never saw the run end"
    took = time.monotonic() - killed_at
    # A tool was mid-call: running it again could repeat what it did, so the run fails.
    assert seen[-1]["kind"] == "run_failed" and "stopped" in seen[-1]["error"]
    assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))
    assert seen == stored(a, run_id)
    assert status(a, run_id) == "failed"
    print(f"the killed worker's run failed {took:.1f} s after SIGKILL")


def test_a_killed_web_process_stops_no_run_and_its_client_goes_on_through_the_other(
        topology: Topology) -> None:
    a, b = topology.webs
    seen: list[tuple[str, str]] = []  # (SSE event name, id: the run event's seq)
    got_some = threading.Event()

    def client() -> None:
        try:
            with httpx.stream("POST", f"{a.url}/api/tools/slow/execute/stream",
                              json={"args": {"steps": 40}}, timeout=60) as stream:
                name = ""
                for line in stream.iter_lines():
                    if line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("id:"):
                        seen.append((name, line[3:].strip()))
                    elif line.startswith("data:") and name == "started":
                        seen.append(("run", json.loads(line[5:])["run_id"]))
                    if sum(n == "progress" for n, _ in seen) >= 5:
                        got_some.set()
        except httpx.HTTPError:
            pass  # its server was killed under it

    reader = threading.Thread(target=client, daemon=True)
    reader.start()
    assert got_some.wait(30), "no progress through A"
    assert a.proc is not None
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait()
    reader.join(timeout=10)
    run_id = next(value for name, value in seen if name == "run")
    seqs = [int(value) for name, value in seen if name != "run"]
    assert seqs == sorted(set(seqs))  # the face sends the kinds its clients know
    rest = follow(b, run_id, after=seqs[-1])  # the client reconnects to B from its last id
    assert [e["seq"] for e in rest] == list(range(seqs[-1] + 1, seqs[-1] + 1 + len(rest)))
    assert rest[-1]["kind"] == "run_completed"  # the worker ran it to its end
    whole = stored(b, run_id)
    assert whole[seqs[-1]:] == rest
    assert sum(e["kind"] == "progress" for e in whole) == 40


def test_a_studio_project_runs_on_the_workers_and_is_approved_through_both_web_processes(
        topology: Topology) -> None:
    watcher, resolved = in_own_loop(watch_and_approve(*topology.webs))
    created = [e["checkpointId"] for e in watcher.named("checkpoint:created")]
    assert len(created) == 11 and created == resolved
    completed = [e["agentId"] for e in watcher.named("agent:completed")]
    assert len(completed) == len(set(completed)) == 16
    holders = {r[0] for r in topology.query("SELECT lease_holder FROM runs WHERE agent = "
                                            "'studio'")}
    pids = {f":{w.proc.pid}:" for w in topology.workers if w.proc}
    assert holders and all(any(p in h for p in pids) for h in holders)


def test_a_threads_runs_keep_their_kernel_and_a_killed_workers_variables_are_said_gone(
        topology: Topology) -> None:
    a, b = topology.webs
    with open(SAMPLES / "sales_en.csv", "rb") as f:
        upload = httpx.post(f"{a.url}/api/analyst/datasets",
                            files={"file": ("sales_en.csv", f)}, timeout=60)
    assert upload.status_code == 201, upload.text
    dataset = upload.json()["id"]
    first = _ask(a, dataset, "total revenue by region")
    holder = topology.worker_running(first)
    assert _notes(_events(a, first)) == []
    for web in (b, a, b):  # through either web process, the same worker: its kernel
        run_id = _ask(web, dataset, "average revenue by region")
        events = _events(web, run_id)
        assert events[-1]["kind"] == "run_completed"
        assert topology.worker_running(run_id) is holder
        assert _notes(events) == []
    assert holder.proc is not None
    os.kill(holder.proc.pid, signal.SIGKILL)
    holder.proc.wait()
    after = _ask(b, dataset, "total revenue by region")
    events = _events(b, after)
    assert events[-1]["kind"] == "run_completed"
    assert topology.worker_running(after) is not holder
    assert _notes(events) == ["Note: this thread's earlier kernel was lost: the process that "
                              "held it stopped; variables from before are gone."]


def _ask(server: LiveServer, dataset: str, question: str) -> str:
    answer = httpx.post(f"{server.url}/api/analyst/runs",
                        json={"dataset_id": dataset, "question": question}, timeout=30)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["run_id"])


def _events(server: LiveServer, run_id: str) -> list[dict[str, Any]]:
    events = []
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    return [e for e in events if "kind" in e]


def _notes(events: list[dict[str, Any]]) -> list[str]:
    return [line for e in events if e["kind"] == "code_result"
            for line in (e.get("stderr") or "").splitlines() if line.startswith("Note:")]
