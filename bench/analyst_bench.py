"""The Analyst offline on generated CSVs of growing size: time and peak memory per stage,
beside plain ``pandas.read_csv`` and DuckDB reading the same file.

Stages: ``upload`` (store, detect encoding and dialect, profile: pandas, or DuckDB past
SHOKUNIN_ANALYST_PANDAS_MAX_MB, which also writes the Parquet copy kernels read) and
``question`` (a run answering "total revenue by region": the sandbox kernel reads the table
and aggregates). Each size runs a fresh ``shokunin serve``, fed over HTTP by this process.
Peak memory is the largest resident set of the server process and of the kernels it ran;
"added" is that peak less the same process idle (the server after start, a kernel that has
only imported pandas), as the peers' figures are less a bare Python importing pandas.

    python bench/analyst_bench.py [--rows 100000 1000000 5000000]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
from peak_memory import descendants_hwm_mb, hwm_mb
from rich.console import Console
from rich.table import Table

_HWM = "from peak_memory import hwm_mb\n"  # for the scripts measure() runs

_PANDAS = _HWM + r"""
import json, sys, time
import pandas as pd
start = time.perf_counter()
frame = pd.read_csv(sys.argv[1])
total = frame.groupby("region")["revenue"].sum()
print(json.dumps({"s": time.perf_counter() - start,
                  "mb": hwm_mb()}))
"""

_IDLE = _HWM + r"""
import json
import pandas as pd
print(json.dumps({"mb": hwm_mb()}))
"""

_DUCKDB = _HWM + r"""
import json, sys, time
import duckdb
start = time.perf_counter()
duckdb.sql(f"SELECT region, sum(revenue) FROM read_csv('{sys.argv[1]}') GROUP BY region").fetchall()
print(json.dumps({"s": time.perf_counter() - start,
                  "mb": hwm_mb()}))
"""


def generate(path: Path, rows: int) -> None:
    rng = np.random.default_rng(7)
    units = rng.integers(1, 200, rows)
    price = rng.choice([4.0, 7.5, 12.5, 18.0, 35.0], rows)
    pd.DataFrame({
        "month": rng.choice([f"2024-{m:02d}" for m in range(1, 13)], rows),
        "region": rng.choice(["North", "South", "West", "East"], rows),
        "store": rng.choice([f"Store {i}" for i in range(40)], rows),
        "units": units, "unit_price": price, "revenue": units * price,
    }).to_csv(path, index=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def shokunin(path: Path, data_dir: Path) -> dict[str, float | str]:
    """Upload ``path`` to a fresh server, ask the question, read the peaks, stop it."""
    port = _free_port()
    env = {**os.environ, "SHOKUNIN_DATA_DIR": str(data_dir), "SHOKUNIN_TOOLS_DIRS": "[]",
           "SHOKUNIN_ANALYST_MAX_UPLOAD_MB": "4096", "SHOKUNIN_MAX_UPLOAD_BYTES": str(8 << 30)}
    server = subprocess.Popen([sys.executable, "-m", "shokunin", "serve", "--port", str(port),
                               "--log-level", "warning"], env=env)
    out: dict[str, float | str] = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=3600) as client:
            for _ in range(600):
                try:
                    client.get("/health")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            time.sleep(2)  # the warm kernel starts
            out["server_idle_mb"] = hwm_mb(server.pid)
            out["kernel_idle_mb"] = descendants_hwm_mb(server.pid)
            start = time.perf_counter()
            with path.open("rb") as f:
                dataset = client.post("/api/analyst/datasets",
                                      files={"file": (path.name, f)}).raise_for_status().json()
            out["upload_s"] = time.perf_counter() - start
            out["engine"] = dataset["engine"]
            start = time.perf_counter()
            run = client.post("/api/analyst/runs", json={
                "dataset_id": dataset["id"], "question": "total revenue by region"}).json()
            while (status := client.get(f"/api/runs/{run['run_id']}").json()["status"]) in (
                    "queued", "running"):
                time.sleep(0.05)
            out["status"] = status
            out["question_s"] = time.perf_counter() - start
            out["kernel_mb"] = descendants_hwm_mb(server.pid)
            out["server_mb"] = hwm_mb(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    return out


def measure(script: str, path: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, check=True, timeout=3600, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    table = Table(title="Analyst offline: 'total revenue by region' on a generated CSV")
    for column in ("rows", "file MB", "engine", "upload s", "question s", "shokunin total s",
                   "read_csv s", "DuckDB s", "total / read_csv", "server MB (idle)",
                   "kernel MB (idle)", "read_csv MB (idle)", "DuckDB MB",
                   "peak / file", "added peak / file", "read_csv added / file"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        idle = measure(_IDLE, Path(tmp))["mb"]
        for rows in args.rows:
            path = Path(tmp) / f"sales_{rows}.csv"
            subprocess.run([sys.executable, __file__, "--generate", str(path), str(rows)],
                           check=True)
            size_mb = path.stat().st_size / 2**20
            ours = shokunin(path, Path(tmp) / f"data_{rows}")
            plain = measure(_PANDAS, path)
            duck = measure(_DUCKDB, path)
            total = ours["upload_s"] + ours["question_s"]
            peak = max(ours["server_mb"], ours["kernel_mb"])
            added = max(ours["server_mb"] - ours["server_idle_mb"],
                        ours["kernel_mb"] - ours["kernel_idle_mb"])
            table.add_row(
                f"{rows:,}", f"{size_mb:.0f}", f"{ours['engine']} ({ours['status']})",
                f"{ours['upload_s']:.2f}", f"{ours['question_s']:.2f}", f"{total:.2f}",
                f"{plain['s']:.2f}", f"{duck['s']:.2f}", f"{total / plain['s']:.1f}x",
                f"{ours['server_mb']:.0f} ({ours['server_idle_mb']:.0f})",
                f"{ours['kernel_mb']:.0f} ({ours['kernel_idle_mb']:.0f})",
                f"{plain['mb']:.0f} ({idle:.0f})", f"{duck['mb']:.0f}",
                f"{peak / size_mb:.1f}x", f"{added / size_mb:.1f}x",
                f"{(plain['mb'] - idle) / size_mb:.1f}x")
            path.unlink()
    Console(width=220).print(table)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--generate"]:  # in its own process: see measure()
        generate(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
