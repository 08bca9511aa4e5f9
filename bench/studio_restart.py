"""A ``shokunin serve`` killed with ``kill -9`` and started again: how long until it answers
``/health``, until a Socket.IO handshake succeeds and until the Studio's state sync of a
project that was waiting at a checkpoint arrives (what the seed project's React client needs
to find the server again: its reconnect gives up about 14 s after the server went away).

Each restart is measured with no project and with ``--projects`` projects left waiting at
their checkpoints (the Studio's recovery then has them to go on with): the difference is the
Studio's part. The imports alone (``python -c "import shokunin.api"``) are the part every
face pays. Wall time moves with the machine's load; the server's CPU seconds to ``/health``
do not much, so both are printed, with the load average.

    python bench/studio_restart.py [--repeat 3] [--projects 5] [--port 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import socketio
from rich.console import Console
from rich.table import Table

CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def imports() -> tuple[float, float]:
    start = time.perf_counter()
    before = os.times()
    subprocess.run([sys.executable, "-c", "import shokunin.api, shokunin.cli.app"],
                   check=True)
    after = os.times()
    return (time.perf_counter() - start,
            after.children_user + after.children_system
            - before.children_user - before.children_system)


class Server:
    def __init__(self, data: Path, port: int) -> None:
        self.data, self.port = data, port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> dict[str, float]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
        env |= {"SHOKUNIN_DATA_DIR": str(self.data), "SHOKUNIN_SANDBOX_POOL_SIZE": "0"}
        started = time.perf_counter()
        with open(self.data / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "shokunin", "serve", "--port", str(self.port),
                 "--log-level", "warning"], env=env, stdout=log, stderr=subprocess.STDOUT)
        figures: dict[str, float] = {}
        while "handshake" not in figures:
            if self.proc.poll() is not None:
                raise SystemExit((self.data / "server.log").read_text()[-3000:])
            if time.perf_counter() - started > 180:
                raise SystemExit("the server did not answer in 180 s")
            try:
                if "health" not in figures and httpx.get(
                        f"{self.url}/health", timeout=2).status_code == 200:
                    figures["health"] = time.perf_counter() - started
                    figures["cpu"] = cpu_seconds(self.proc.pid)
                if "health" in figures:
                    polled = httpx.get(f"{self.url}/socket.io/?EIO=4&transport=polling",
                                       timeout=2)
                    if polled.status_code == 200 and polled.text.startswith("0"):
                        figures["handshake"] = time.perf_counter() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
        figures["sync"] = asyncio.run(self.state_sync()) + figures["handshake"]
        return figures

    async def state_sync(self) -> float:
        """Seconds from a Socket.IO connect to the state sync of the newest project."""
        async with httpx.AsyncClient(base_url=self.url, timeout=30) as http:
            projects = (await http.get("/api/projects")).json()
            if not projects:
                return 0.0
            started = time.perf_counter()
            client = socketio.AsyncClient(reconnection=False)
            synced = asyncio.Event()
            client.on("connection:state_sync", lambda data: synced.set())
            await client.connect(self.url, transports=["websocket"])
            await client.emit("subscribe:project", projects[0]["id"])
            await asyncio.wait_for(synced.wait(), 30)
            await client.disconnect()
            return time.perf_counter() - started

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def waiting_projects(self, count: int) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            ids = []
            for n in range(count):
                project = http.post("/api/projects", json={"name": f"p{n}",
                                                           "concept": CONCEPT}).json()
                http.post(f"/api/projects/{project['id']}/start")
                ids.append(project["id"])
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                waiting = sum(any(c["status"] == "pending" for c in http.get(
                    f"/api/projects/{pid}/checkpoints").json()) for pid in ids)
                if waiting == count:
                    return
                time.sleep(0.2)
            raise SystemExit("the projects did not reach their checkpoints")


def median(runs: list[dict[str, float]], key: str) -> str:
    return f"{statistics.median(r[key] for r in runs):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--projects", type=int, default=5)
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    table = Table(title=f"kill -9 and start again (median of {args.repeat}; "
                        f"load average {load:.1f} on {os.cpu_count()} cores)")
    for column in ("case", "to /health", "server CPU to /health", "to Socket.IO handshake",
                   "to a project's state sync"):
        table.add_column(column, justify="right" if column != "case" else "left")
    runs = [imports() for _ in range(args.repeat)]
    table.add_row("imports alone (python -c)",
                  f"{statistics.median(r[0] for r in runs):.2f} s",
                  f"{statistics.median(r[1] for r in runs):.2f} s", "", "")
    for projects in (0, args.projects):
        with tempfile.TemporaryDirectory() as data:
            server = Server(Path(data), args.port)
            server.start()
            server.waiting_projects(projects)
            restarts = []
            for _ in range(args.repeat):
                server.kill()
                restarts.append(server.start())
            server.kill()
        table.add_row(f"restart, {projects} projects waiting",
                      median(restarts, "health") + " s", median(restarts, "cpu") + " s",
                      median(restarts, "handshake") + " s",
                      (median(restarts, "sync") + " s") if projects else "")
    Console().print(table)


if __name__ == "__main__":
    main()
