"""Scale-out: runs/s and p99 of WS /ws runs for 1, 2, 4 ... web processes on one PostgreSQL
and one Redis, beside the all-in-one default (one process, SQLite, no Redis) on the same work.

Each topology is started fresh (a database of its own, a Redis namespace of its own); the
clients are spread round-robin over its processes; each client sends M messages on one
connection (the Workbench's offline brain: the run plans a tool call, runs it, answers).
Every run is stored in the shared database and published on Redis. ``--pin`` gives process
i the core i mod the cores there are (``taskset``), so on a machine with cores to spare each
process has its own. Usage:

    python bench/scale_bench.py                         # 1 and 2 processes, 200 clients x 5
    python bench/scale_bench.py --processes 1 2 4 --clients 400 --repeat 3 --pin
    python bench/scale_bench.py --database postgresql+asyncpg://me@db/postgres --redis redis://r:6379/0

The runs still execute in the web process that received them (no separate workers yet), so
a "process" here is one ``shokunin serve`` doing both. Figures: runs/s (completed runs over
the wall time of the level), p50 and p99 of one run (send to its final message), errors,
and each topology's runs/s over one process's on the same database, and over the
all-in-one default's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import uuid
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


def start(name: str, data_dir: Path, env: dict[str, str], cpus: str | None) -> Server:
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    return _spawn(name, [sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                         "--log-level", "warning"], {**_shokunin_env(data_dir), **env},
                  data_dir, port, cpus, hello=True)


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


def run_topology(name: str, count: int, root: Path, env: dict[str, str], pin: bool,
                 clients: int, messages: int) -> Result:
    cores = os.cpu_count() or 1
    servers = []
    try:
        for i in range(count):
            servers.append(start(f"{name}-{i}", root / f"{name}-{i}", env,
                                 str(i % cores) if pin else None))
        asyncio.run(level(servers, min(clients, 20), 1))  # warm up: imports, pools
        result = asyncio.run(level(servers, clients, messages))
        result.server = name
        return result
    finally:
        for server in servers:
            stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pin", action="store_true", help="process i on core i mod cores")
    parser.add_argument("--database", default="postgresql+asyncpg://postgres@127.0.0.1:5432/"
                        "postgres", help="an admin URL of the PostgreSQL to use")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    _raise_fd_limit()
    console = Console(width=150)
    results: dict[str, list[Result]] = {}
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        root = Path(tmp)
        for repeat in range(args.repeat):
            results.setdefault("all-in-one", []).append(run_topology(
                "all-in-one", 1, root / f"r{repeat}", {}, args.pin, args.clients,
                args.messages))
            for count in args.processes:
                name = f"shokunin_scale_{uuid.uuid4().hex[:10]}"
                asyncio.run(_admin(args.database, f'CREATE DATABASE "{name}"'))
                try:
                    env = {"SHOKUNIN_DATABASE_URL": args.database.rsplit("/", 1)[0] + f"/{name}",
                           "SHOKUNIN_REDIS_URL": args.redis,
                           "SHOKUNIN_REDIS_NAMESPACE": name}
                    results.setdefault(f"{count}", []).append(run_topology(
                        f"{count}", count, root / f"r{repeat}", env, args.pin, args.clients,
                        args.messages))
                finally:
                    asyncio.run(_admin(args.database,
                                       f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    one = results[str(args.processes[0])] if args.processes[0] == 1 else None
    table = Table(title=f"WS runs, {args.clients} clients x {args.messages} messages "
                        f"({os.cpu_count()} cores{', pinned' if args.pin else ''})")
    for column in ("topology", "runs/s", "p50 ms", "p99 ms", "errors", "vs 1 process",
                   "vs all-in-one"):
        table.add_column(column, justify="left" if column == "topology" else "right")
    base = results["all-in-one"]
    for key, runs in results.items():
        label = "all-in-one (SQLite, no Redis)" if key == "all-in-one" else (
            f"{key} process{'es' if key != '1' else ''} (PostgreSQL + Redis)")
        rates = [r.throughput for r in runs]
        lat = [x for r in runs for x in r.latencies]
        vs_one = ("" if one is None or key == "all-in-one" else
                  f"{sum(rates) / sum(r.throughput for r in one):.2f}x")
        vs_all = f"{sum(rates) / sum(r.throughput for r in base):.2f}x"
        table.add_row(label, " / ".join(f"{x:.0f}" for x in rates), f"{_pct(lat, 50):.0f}",
                      f"{_pct(lat, 99):.0f}", str(sum(len(r.errors) for r in runs)),
                      vs_one, vs_all)
    console.print(table)
    for key, runs in results.items():
        for r in runs:
            for error in r.errors[:3]:
                console.print(f"[red]{key}: {error}")


if __name__ == "__main__":
    main()
