"""WS /ws under load: N concurrent clients each send M messages to the offline brain.

Starts its own server (``shokunin serve`` on a free port, temporary data folder), then for
each client count reports throughput (runs/s), p50/p99 latency from ``user_message`` to
the run's closing ``debug`` (done), and errors. Usage:

    python bench/ws_bench.py                    # 100, 500 and 1000 clients x 10 messages
    python bench/ws_bench.py --clients 500 --messages 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets
from rich.console import Console
from rich.table import Table

REQUESTS = ["Kitchenに左矢印を表示して", "highlight Kitchen", "2Fを表示", "clear the map",
            "how many rooms are on 2F?"]
REPLY_TIMEOUT = 120.0


@dataclass
class Result:
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall: float = 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def start_server(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
    env.update({"SHOKUNIN_DATA_DIR": str(data_dir), "SHOKUNIN_MODEL": "offline",
                "SHOKUNIN_TOOLS_DIRS": f'["{data_dir / "tool"}"]',
                "SHOKUNIN_TOOL_SETTINGS_FILE": str(data_dir / "settings.json"),
                "SHOKUNIN_SANDBOX_POOL_SIZE": "0"})
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 - lives as long as the server
    # The child inherits the raised descriptor limit.
    proc = subprocess.Popen([sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                             "--log-level", "warning"], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((data_dir / "server.log").read_text()[-3000:])
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, f"ws://127.0.0.1:{port}/ws"
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


async def client(ws_url: str, n: int, messages: int, result: Result) -> None:
    try:
        async with websockets.connect(ws_url, max_size=None, open_timeout=60,
                                      ping_interval=None) as ws:
            await asyncio.wait_for(ws.recv(), REPLY_TIMEOUT)  # map_definition
            for i in range(messages):
                await ws.send(json.dumps({"message": REQUESTS[(n + i) % len(REQUESTS)]}))
                started = None
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), REPLY_TIMEOUT))
                    kind = message["type"]
                    if kind == "user_message":
                        started = time.perf_counter()
                    elif kind == "error":
                        result.errors.append(message["content"])
                    elif message.get("done"):
                        if started is not None:
                            result.latencies.append(time.perf_counter() - started)
                        if message["content"]["run"] != "completed":
                            result.errors.append(f"run {message['content']['run']}")
                        break
    except Exception as exc:  # noqa: BLE001 - every failure is a figure in the table
        result.errors.append(f"{type(exc).__name__}: {exc}")


async def run_level(ws_url: str, clients: int, messages: int) -> Result:
    result = Result(clients)
    t0 = time.perf_counter()
    await asyncio.gather(*(client(ws_url, n, messages, result) for n in range(clients)))
    result.wall = time.perf_counter() - t0
    return result


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def report(results: list[Result], messages: int) -> None:
    table = Table(title=f"WS /ws, offline brain, {messages} messages per client")
    for col in ("clients", "runs", "errors", "wall s", "runs/s", "p50 ms", "p99 ms", "max ms"):
        table.add_column(col, justify="right")
    for r in results:
        runs = len(r.latencies)
        table.add_row(str(r.clients), str(runs), str(len(r.errors)), f"{r.wall:.1f}",
                      f"{runs / r.wall:.0f}" if r.wall else "-", f"{_pct(r.latencies, 50):.0f}",
                      f"{_pct(r.latencies, 99):.0f}",
                      f"{max(r.latencies) * 1000:.0f}" if r.latencies else "-")
    console = Console()
    console.print(table)
    for r in results:
        for error in sorted(set(r.errors))[:5]:
            console.print(f"[red]{r.clients} clients: {error}[/red]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 500, 1000])
    parser.add_argument("--messages", type=int, default=10)
    args = parser.parse_args()
    _raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="shokunin-bench-") as tmp:
        proc, ws_url = start_server(Path(tmp))
        try:
            results = [asyncio.run(run_level(ws_url, n, args.messages)) for n in args.clients]
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    report(results, args.messages)


if __name__ == "__main__":
    main()
