"""WS /ws under load, shokunin beside a hand-rolled LangGraph peer, in one run.

Starts both servers as separate processes on their own ports (``shokunin serve`` with the
offline brain, and bench/peer_ws_server.py), then for each client count and each repeat
runs N concurrent clients x M messages against one, then the other, back to back. Latency
runs from the client's send of a message to the run's final message (shokunin: the
``debug`` with ``done``; peer: its one reply). One table per client count: runs/s, p50,
p99, errors, the server's CPU time per run (user + system, all threads: the figure least
disturbed by other load on the machine), its peak memory, and the ratios to the peer. Usage:

    python bench/ws_bench.py                          # 100 and 500 clients x 10 messages
    python bench/ws_bench.py --clients 500 --repeat 3 --server-cpus 0 --client-cpus 1
    python bench/ws_bench.py --message "how many rooms are on 2F?" "highlight Kitchen"
    python bench/ws_bench.py --servers shokunin peer peer-agent   # + the 3-step peer
    python bench/ws_bench.py --servers shokunin shokunin-one-node peer --message hello

``shokunin-one-node`` is shokunin running the peer's own one-node graph as its Workbench
agent (bench/shokunin_one_node_server.py): the same LangGraph work as the peer, so its ratio
is the engine's own cost (Runner, store, seed 000's messages), without the Workbench's.

The default message, "highlight Kitchen", is a map command: the offline brain plans a
``highlight_room`` call, the tool runs, the brain answers; no sandbox, no model.
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

REPLY_TIMEOUT = 120.0
PEER = Path(__file__).with_name("peer_ws_server.py")
ONE_NODE = Path(__file__).with_name("shokunin_one_node_server.py")


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    ws_url: str
    hello: bool  # sends one message (the map definition) on connect


@dataclass
class Result:
    server: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall: float = 0.0
    cpu: float = 0.0  # the server's CPU seconds (all threads) during the level
    peak_rss_mb: float = 0.0  # the server's peak resident memory so far

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0

    @property
    def cpu_per_run(self) -> float:
        return self.cpu / len(self.latencies) if self.latencies else 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _spawn(name: str, argv: list[str], env: dict[str, str], data_dir: Path, port: int,
           cpus: str | None, hello: bool) -> Server:
    if cpus:
        argv = ["taskset", "-c", cpus, *argv]
    log = open(data_dir / f"{name}.log", "wb")  # noqa: SIM115 - lives as long as the server
    # The child inherits the raised descriptor limit.
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((data_dir / f"{name}.log").read_text()[-3000:])
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return Server(name, proc, f"ws://127.0.0.1:{port}/ws", hello)
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{name} did not start")


def start_shokunin(data_dir: Path, cpus: str | None) -> Server:
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    return _spawn("shokunin", [sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                               "--log-level", "warning"], _shokunin_env(data_dir), data_dir,
                  port, cpus, hello=True)


def _shokunin_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
    env.update({"SHOKUNIN_DATA_DIR": str(data_dir), "SHOKUNIN_MODEL": "offline",
                "SHOKUNIN_TOOLS_DIRS": f'["{data_dir / "tool"}"]',
                "SHOKUNIN_TOOL_SETTINGS_FILE": str(data_dir / "settings.json"),
                "SHOKUNIN_SANDBOX_POOL_SIZE": "0"})
    return env


def start_shokunin_one_node(data_dir: Path, cpus: str | None) -> Server:
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    return _spawn("shokunin-one-node", [sys.executable, str(ONE_NODE), "--port", str(port)],
                  _shokunin_env(data_dir), data_dir, port, cpus, hello=True)


def start_peer(data_dir: Path, cpus: str | None, graph: str = "one") -> Server:
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    name = "peer" if graph == "one" else f"peer-{graph}"
    return _spawn(name, [sys.executable, str(PEER), "--port", str(port), "--graph", graph,
                         "--db", str(data_dir / "checkpoints.db")],
                  dict(os.environ), data_dir, port, cpus, hello=False)


def start_peer_agent(data_dir: Path, cpus: str | None) -> Server:
    return start_peer(data_dir, cpus, "agent")


STARTERS = {"shokunin": start_shokunin, "shokunin-one-node": start_shokunin_one_node,
            "peer": start_peer, "peer-agent": start_peer_agent}


def stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.proc.kill()


async def client(server: Server, n: int, texts: list[str], messages: int,
                 result: Result) -> None:
    try:
        async with websockets.connect(server.ws_url, max_size=None, open_timeout=60,
                                      ping_interval=None) as ws:
            if server.hello:
                await asyncio.wait_for(ws.recv(), REPLY_TIMEOUT)  # map_definition
            for i in range(messages):
                started = time.perf_counter()
                await ws.send(json.dumps({"message": texts[(n + i) % len(texts)]}))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), REPLY_TIMEOUT))
                    if message["type"] == "error":
                        result.errors.append(str(message["content"]))
                    if message.get("done"):
                        result.latencies.append(time.perf_counter() - started)
                        run = message["content"].get("run") if isinstance(
                            message["content"], dict) else None
                        if run not in (None, "completed"):
                            result.errors.append(f"run {run}")
                        break
    except Exception as exc:  # noqa: BLE001 - every failure is a figure in the table
        result.errors.append(f"{type(exc).__name__}: {exc}")


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_seconds(pid: int) -> float:
    """User + system time of a process so far: robust to other load on a shared machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_level(server: Server, clients: int, texts: list[str], messages: int) -> Result:
    result = Result(server.name, clients)
    cpu0, t0 = _cpu_seconds(server.proc.pid), time.perf_counter()
    await asyncio.gather(*(client(server, n, texts, messages, result) for n in range(clients)))
    result.wall = time.perf_counter() - t0
    result.cpu = _cpu_seconds(server.proc.pid) - cpu0
    result.peak_rss_mb = _peak_rss_mb(server.proc.pid)
    return result


def _pct(values: list[float], q: int) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def _spread(values: list[float], fmt: str) -> str:
    if len(values) == 1:
        return format(values[0], fmt)
    return (f"{format(statistics.median(values), fmt)} "
            f"({format(min(values), fmt)}-{format(max(values), fmt)})")


def report(results: list[Result], clients: list[int], messages: int, texts: list[str],
           servers: int) -> None:
    console = Console(width=max(Console().width, 160))
    for n in clients:
        table = Table(title=f"WS /ws, {n} clients x {messages} messages, {texts!r}; "
                            "ratio = server/peer")
        for col in ("server", "runs", "errors", "wall s", "runs/s", "p50 ms", "p99 ms",
                    "max ms", "cpu ms/run", "peak MB", "runs/s ratio", "p99 ratio",
                    "cpu ratio"):
            table.add_column(col, justify="right")
        level = [r for r in results if r.clients == n]
        peers = [r for r in level if r.server == "peer"]
        ratios: dict[str, list[tuple[float, float, float]]] = {}
        for i, r in enumerate(level):
            peer = peers[min(i // servers, len(peers) - 1)] if peers else None
            shown = ["", "", ""]
            if peer is not None and r.server != "peer" and peer.throughput:
                ratio = (r.throughput / peer.throughput,
                         _pct(r.latencies, 99) / _pct(peer.latencies, 99),
                         r.cpu_per_run / peer.cpu_per_run if peer.cpu_per_run else float("nan"))
                ratios.setdefault(r.server, []).append(ratio)
                shown = [f"{x:.2f}" for x in ratio]
            table.add_row(r.server, str(len(r.latencies)), str(len(r.errors)), f"{r.wall:.1f}",
                          f"{r.throughput:.0f}", f"{_pct(r.latencies, 50):.0f}",
                          f"{_pct(r.latencies, 99):.0f}",
                          f"{max(r.latencies) * 1000:.0f}" if r.latencies else "-",
                          f"{r.cpu_per_run * 1000:.2f}", f"{r.peak_rss_mb:.0f}", *shown)
        if any(len(v) > 1 for v in ratios.values()):
            table.add_section()
            for name, values in ratios.items():
                table.add_row(f"{name} median (min-max)", "", "", "", "", "", "", "", "", "",
                              *(_spread([x[k] for x in values], ".2f") for k in range(3)))
        console.print(table)
    for r in results:
        for error in sorted(set(r.errors))[:5]:
            console.print(f"[red]{r.server}, {r.clients} clients: {error}[/red]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--messages", type=int, default=10, help="messages per client")
    parser.add_argument("--message", nargs="+", default=["highlight Kitchen"],
                        help="the text(s) sent; client n's i-th message is text (n+i) mod len")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of both servers")
    parser.add_argument("--servers", nargs="+", choices=list(STARTERS),
                        default=["shokunin", "peer"],
                        help="peer-agent: the peer with shokunin's brain -> tool -> brain "
                             "shape; shokunin-one-node: shokunin running the peer's graph")
    parser.add_argument("--server-cpus", help="pin both servers to these CPUs (taskset -c)")
    parser.add_argument("--client-cpus", help="pin this client process to these CPUs")
    args = parser.parse_args()
    _raise_fd_limit()
    if args.client_cpus:
        os.sched_setaffinity(0, {int(c) for c in args.client_cpus.split(",")})
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="shokunin-bench-") as tmp:
        servers: list[Server] = []
        try:
            for name in args.servers:
                servers.append(STARTERS[name](Path(tmp) / name, args.server_cpus))
                print(f"{name}: pid {servers[-1].proc.pid}", file=sys.stderr, flush=True)
            for n in args.clients:
                for _ in range(args.repeat):
                    for server in servers:
                        results.append(asyncio.run(
                            run_level(server, n, args.message, args.messages)))
                        r = results[-1]
                        print(f"{r.server} {n} clients: {r.throughput:.0f} runs/s, p99 "
                              f"{_pct(r.latencies, 99):.0f} ms, {len(r.errors)} errors",
                              file=sys.stderr, flush=True)
        finally:
            for server in servers:
                stop(server)
    report(results, args.clients, args.messages, args.message, len(args.servers))


if __name__ == "__main__":
    main()
