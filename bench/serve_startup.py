"""``shokunin serve`` from a cold start: seconds until ``/health`` answers 200, and until it
says nothing is starting any more (the kernel template and the warm kernel ready), beside a
hand-rolled FastAPI app with one ``/health`` route under uvicorn.

Each server runs ``--repeat`` times on a fresh data folder and a free port, the rows
interleaved round by round; the table shows the median and the fastest. ``--shokunin``
measures another installation's command in place of this venv's; ``--before`` adds others
(earlier commits' venvs) to the same rounds.

    python bench/serve_startup.py [--repeat 3] [--shokunin PATH] [--before PATH ...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

PEER = """
import sys
from fastapi import FastAPI
import uvicorn
app = FastAPI()

@app.get("/health")
def health():
    return {"status": "ok"}

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def started(command: list[str], port: int, env: dict[str, str]) -> tuple[float, float]:
    """Seconds to the first 200 of /health, and to one whose ``starting`` is empty (or
    absent: an installation that does not say)."""
    start = time.perf_counter()
    up = None
    with subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as process:
        try:
            with httpx.Client(timeout=5) as client:
                while time.perf_counter() - start < 300:
                    if process.poll() is not None:
                        raise SystemExit(f"{command[:3]} exited {process.returncode}")
                    try:
                        response = client.get(f"http://127.0.0.1:{port}/health")
                    except httpx.TransportError:
                        time.sleep(0.02)  # not listening yet
                        continue
                    if response.status_code == 200:
                        up = up or time.perf_counter() - start
                        if not response.json().get("starting"):
                            return up, time.perf_counter() - start
                    time.sleep(0.02)
        finally:
            process.terminate()
            process.wait(timeout=30)
    raise SystemExit(f"{command[:3]} did not start within 300 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shokunin", default=str(Path(sys.executable).with_name("shokunin")))
    parser.add_argument("--before", nargs="*", default=[],
                        help="other installations' shokunin, in the same rounds")
    args = parser.parse_args()
    commands = {"shokunin serve": [args.shokunin, "serve"]}
    for before in args.before:
        commands[f"shokunin serve, {before}"] = [before, "serve"]
    commands["peer: FastAPI + uvicorn, /health only"] = [sys.executable, "-c", PEER]
    rows: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(args.repeat):
        for label, command in commands.items():
            port = free_port()
            with tempfile.TemporaryDirectory() as data:
                env = {**os.environ, "SHOKUNIN_DATA_DIR": data}
                env.pop("SHOKUNIN_MODEL", None)
                argv = [*command, "--port", str(port)] if label.startswith("shokunin") \
                    else [*command, str(port)]
                rows[label].append(started(argv, port, env))
    table = Table(title=f"serve start-up on {os.cpu_count()} cores, median (fastest) of "
                  f"{args.repeat}, load {os.getloadavg()[0]:.1f}: {args.shokunin}")
    for column in ("server", "/health 200 (s)", "nothing starting (s)"):
        table.add_column(column, justify="left" if column == "server" else "right")
    for label, runs in rows.items():
        cells = [f"{statistics.median(v):.2f} ({min(v):.2f})" for v in zip(*runs, strict=True)]
        table.add_row(label, *cells)
    Console().print(table)


if __name__ == "__main__":
    main()
