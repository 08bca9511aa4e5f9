"""Scale-out: runs/s and p99 of WS /ws runs for 1, 2, 4 ... web processes, and for 1, 2, 4
... (web + worker) pairs, on one PostgreSQL and one Redis, beside the all-in-one default
(one process, SQLite, no Redis) on the same work.

Topologies (``--topology web pairs``, default both):

- ``web``: N ``shokunin serve`` processes, each running the runs it receives (no job
  queue), each with a data directory of its own.
- ``pairs``: N ``shokunin serve`` + N ``shokunin worker`` (``--worker-concurrency``, default
  the worker's own), all with ``SHOKUNIN_QUEUE_URL`` set, so every run goes from the web
  process that received it through the job queue to a worker, and its events come back
  over Redis. The queue is SAQ on the topology's own PostgreSQL database (``--queue
  postgres``, the default) or on the Redis (``--queue redis``); the processes of a
  topology share one data directory. After the level the bench counts, in the database,
  the runs whose lease names each worker's pid (``lease_holder LIKE '%:<pid>:%'``) and
  stops with an error if no run went through a worker.

Each topology is started fresh (a database of its own, a Redis namespace of its own); the
clients are spread round-robin over its web processes; each client sends M messages on one
connection (the Workbench's offline brain: the run plans a tool call, runs it, answers).
Every run is stored in the shared database and published on Redis. ``--pin`` (``taskset``):
in ``web``, process i on core i mod the cores there are; in ``pairs``, web i on core 2i and
worker i on core 2i+1 (mod the cores), so each pair has two cores of its own when there are
2N cores (and on 2 cores every pair's web process shares core 0, every worker core 1); the
all-in-one default on core 0. Usage:

    python bench/scale_bench.py                         # 1 and 2 of each, 200 clients x 5
    python bench/scale_bench.py --topology pairs --processes 1 2 4 --clients 400 --pin
    python bench/scale_bench.py --topology pairs --queue redis --worker-concurrency 50
    python bench/scale_bench.py --database postgresql+asyncpg://me@db/postgres --redis redis://r:6379/0

Figures: runs/s (completed runs over the wall time of the level; with ``--repeat``, one
per repeat), p50 and p99 of one run (send to its final message), errors, each row's runs/s
over N=1 of the same topology, and over the all-in-one default's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

sys.path.insert(0, str(Path(__file__).parent))
from ws_bench import (  # noqa: E402 - the WS client and the server launcher, shared
    Result,
    Server,
    _free_port,
    _pct,
    _raise_fd_limit,
    _shokunin_env,
    _spawn,
    client,
    stop,
)

MESSAGE = "highlight Kitchen"
WORKER_READY = b"takes runs from queues"


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path


@dataclass
class Topology:
    """One topology's processes and where to check where its runs went."""

    servers: list[Server] = field(default_factory=list)
    workers: list[Worker] = field(default_factory=list)


def start(name: str, data_dir: Path, env: dict[str, str], cpus: str | None) -> Server:
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    return _spawn(name, [sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                         "--log-level", "warning"], {**_shokunin_env(data_dir), **env},
                  data_dir, port, cpus, hello=True)


def start_worker(name: str, data_dir: Path, env: dict[str, str], cpus: str | None,
                 concurrency: int | None) -> Worker:
    """A ``shokunin worker`` (no HTTP): ready once its log says it takes runs."""
    data_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "shokunin", "worker", "--log-level", "info", "--grace", "5"]
    if concurrency is not None:
        argv += ["--concurrency", str(concurrency)]
    if cpus:
        argv = ["taskset", "-c", cpus, *argv]
    path = data_dir / f"{name}.log"
    with open(path, "wb") as log:
        proc = subprocess.Popen(argv, env={**_shokunin_env(data_dir), **env}, stdout=log,
                                stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited:\n{path.read_text()[-3000:]}")
        if WORKER_READY in path.read_bytes():
            return Worker(name, proc, path)
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{name} did not start:\n{path.read_text()[-3000:]}")


def stop_worker(worker: Worker) -> None:
    worker.proc.terminate()
    try:
        worker.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.proc.kill()
        worker.proc.wait()


async def level(servers: list[Server], clients: int, messages: int) -> Result:
    result = Result(f"{len(servers)}", clients)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.gather(*(client(servers[n % len(servers)], n, [MESSAGE], messages, result)
                           for n in range(clients)))
    result.wall = loop.time() - t0
    return result


async def _admin(database: str, sql: str) -> None:
    engine = create_async_engine(database, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(sql))
    await engine.dispose()


async def _where_runs_went(database: str, workers: list[Worker]) -> tuple[int, list[int], str]:
    """All runs of the topology's database, how many each worker's pid holds, and the runs
    (and the PostgreSQL queue's jobs) by status."""
    engine = create_async_engine(database)
    try:
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT count(*) FROM runs"))).scalar_one()
            held = [(await conn.execute(
                text("SELECT count(*) FROM runs WHERE lease_holder LIKE :pattern"),
                {"pattern": f"%:{w.proc.pid}:%"})).scalar_one() for w in workers]
            statuses = "runs " + ", ".join(f"{s} {n}" for s, n in await conn.execute(
                text("SELECT status, count(*) FROM runs GROUP BY status ORDER BY status")))
            tables = await conn.execute(text("SELECT to_regclass('saq_jobs') IS NOT NULL"))
            if tables.scalar_one():
                statuses += "; queue jobs " + ", ".join(
                    f"{s} {n}" for s, n in await conn.execute(text(
                        "SELECT status, count(*) FROM saq_jobs GROUP BY status ORDER BY status")))
    finally:
        await engine.dispose()
    return total, held, statuses


def run_topology(name: str, count: int, data_dirs: list[Path], env: dict[str, str],
                 cpus: list[str | None], clients: int, messages: int,
                 pairs: bool = False, worker_cpus: list[str | None] | None = None,
                 concurrency: int | None = None, database: str | None = None,
                 console: Console | None = None) -> tuple[Result, str]:
    """Start ``count`` web processes (and as many workers with ``pairs``), warm them up,
    run the level, and say where its runs went ("" without workers)."""
    topology = Topology()
    try:
        for i in range(count):
            topology.servers.append(start(f"{name}-web{i}", data_dirs[i], env, cpus[i]))
        if pairs:
            assert worker_cpus is not None
            for i in range(count):
                topology.workers.append(start_worker(f"{name}-worker{i}", data_dirs[i], env,
                                                     worker_cpus[i], concurrency))
        asyncio.run(level(topology.servers, min(clients, 20), 1))  # warm up: imports, pools
        result = asyncio.run(level(topology.servers, clients, messages))
        result.server = name
        where = ""
        if pairs:
            assert database is not None
            total, held, statuses = asyncio.run(_where_runs_went(database, topology.workers))
            where = f"{sum(held)}/{total}"
            if console is not None:
                console.print(f"{name}: {total} runs in the database, on workers: " + ", ".join(
                    f"pid {w.proc.pid} {n}" for w, n in zip(topology.workers, held,
                                                             strict=True)) + f" ({statuses})")
            if sum(held) == 0:
                logs = "\n".join(f"--- {w.log}\n{w.log.read_text()[-2000:]}"
                                 for w in topology.workers)
                raise SystemExit(f"{name}: no run went through a worker ({total} runs in "
                                 f"the database, none held by pids "
                                 f"{[w.proc.pid for w in topology.workers]}):\n{logs}")
        return result, where
    finally:
        for worker in topology.workers:
            stop_worker(worker)
        for server in topology.servers:
            stop(server)


def _pin(i: int, pin: bool) -> str | None:
    return str(i % (os.cpu_count() or 1)) if pin else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topology", nargs="+", choices=["web", "pairs", "both"],
                        default=["both"], help="web: N web processes running their own "
                        "runs; pairs: N web + N worker processes over the job queue")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2],
                        help="N: web processes, or (web + worker) pairs")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pin", action="store_true",
                        help="web: process i on core i; pairs: web i on core 2i, worker i on "
                             "2i+1 (mod cores)")
    parser.add_argument("--queue", choices=["postgres", "redis"], default="postgres",
                        help="the pairs' job queue: the topology's PostgreSQL database, or Redis")
    parser.add_argument("--worker-concurrency", type=int, default=None,
                        help="shokunin worker --concurrency (default: the worker's own)")
    parser.add_argument("--database", default="postgresql+asyncpg://postgres@127.0.0.1:5432/"
                        "postgres", help="an admin URL of the PostgreSQL to use")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--keep", type=Path, help="keep the data directories and the "
                        "processes' logs here (default: a temporary directory, removed)")
    args = parser.parse_args()
    kinds = (["web", "pairs"] if "both" in args.topology else
             [k for k in ("web", "pairs") if k in args.topology])
    _raise_fd_limit()
    console = Console(width=150)
    results: dict[tuple[str, int], list[Result]] = {}
    where: dict[tuple[str, int], list[str]] = {}
    with contextlib.ExitStack() as stack:
        root = args.keep or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="scale-bench-")))
        for repeat in range(args.repeat):
            base = root / f"r{repeat}"
            result, _ = run_topology("all-in-one", 1, [base / "all-in-one-0"], {},
                                     [_pin(0, args.pin)], args.clients, args.messages)
            results.setdefault(("all-in-one", 1), []).append(result)
            console.print(f"all-in-one: {result.throughput:.0f} runs/s")
            for kind in kinds:
                for count in args.processes:
                    name = f"shokunin_scale_{uuid.uuid4().hex[:10]}"
                    database = args.database.rsplit("/", 1)[0] + f"/{name}"
                    asyncio.run(_admin(args.database, f'CREATE DATABASE "{name}"'))
                    try:
                        env = {"SHOKUNIN_DATABASE_URL": database,
                               "SHOKUNIN_REDIS_URL": args.redis,
                               "SHOKUNIN_REDIS_NAMESPACE": name}
                        label = f"{kind}-{count}"
                        if kind == "web":
                            result, went = run_topology(
                                label, count, [base / f"{label}-{i}" for i in range(count)],
                                env, [_pin(i, args.pin) for i in range(count)], args.clients,
                                args.messages)
                        else:
                            env["SHOKUNIN_QUEUE_URL"] = (
                                args.redis if args.queue == "redis"
                                else database.replace("+asyncpg", "", 1))
                            result, went = run_topology(
                                label, count, [base / label] * count, env,
                                [_pin(2 * i, args.pin) for i in range(count)], args.clients,
                                args.messages, pairs=True,
                                worker_cpus=[_pin(2 * i + 1, args.pin) for i in range(count)],
                                concurrency=args.worker_concurrency, database=database,
                                console=console)
                        results.setdefault((kind, count), []).append(result)
                        where.setdefault((kind, count), []).append(went)
                        console.print(f"{label}: {result.throughput:.0f} runs/s, "
                                      f"{len(result.errors)} errors")
                    finally:
                        asyncio.run(_admin(args.database,
                                           f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    report(console, results, where, args)


def report(console: Console, results: dict[tuple[str, int], list[Result]],
           where: dict[tuple[str, int], list[str]], args: argparse.Namespace) -> None:
    queue = "PostgreSQL" if args.queue == "postgres" else "Redis"
    concurrency = args.worker_concurrency or "default"
    table = Table(title=f"WS runs, {args.clients} clients x {args.messages} messages "
                        f"({os.cpu_count()} cores{', pinned' if args.pin else ''}; pairs: "
                        f"{queue} queue, worker concurrency {concurrency})")
    for column in ("topology", "runs/s", "p50 ms", "p99 ms", "errors", "vs N=1",
                   "vs all-in-one", "runs on workers"):
        table.add_column(column, justify="left" if column == "topology" else "right")
    base = results[("all-in-one", 1)]
    for (kind, count), runs in results.items():
        if kind == "all-in-one":
            label = "all-in-one (SQLite, no Redis)"
        elif kind == "web":
            label = f"{count} web process{'es' if count != 1 else ''} (PostgreSQL + Redis)"
        else:
            label = (f"{count} web + {count} worker{'s' if count != 1 else ''} "
                     f"(PostgreSQL + Redis, {queue} queue)")
        rates = [r.throughput for r in runs]
        lat = [x for r in runs for x in r.latencies]
        one = results.get((kind, 1))
        vs_one = ("" if one is None or kind == "all-in-one" else
                  f"{sum(rates) / sum(r.throughput for r in one):.2f}x")
        vs_all = f"{sum(rates) / sum(r.throughput for r in base):.2f}x"
        table.add_row(label, " / ".join(f"{x:.0f}" for x in rates), f"{_pct(lat, 50):.0f}",
                      f"{_pct(lat, 99):.0f}", str(sum(len(r.errors) for r in runs)),
                      vs_one, vs_all, " / ".join(w for w in where.get((kind, count), []) if w))
    console.print(table)
    for (kind, count), runs in results.items():
        for r in runs:
            for error in sorted(set(r.errors))[:3]:
                console.print(f"[red]{kind} {count}: {error}")


if __name__ == "__main__":
    main()
