"""The Analyst offline on generated CSVs of growing size: time and peak memory per stage,
beside plain ``pandas.read_csv`` and DuckDB reading the same file.

Stages: ``upload`` (store, detect encoding and dialect, profile: pandas, or DuckDB past
SHOKUNIN_ANALYST_PANDAS_MAX_MB) and ``question`` (a run answering "total revenue by region":
the sandbox kernel reads the file and aggregates). Peak memory is the largest resident set
of the server process and of the kernels it ran (each measured in a fresh process).

    python bench/analyst_bench.py [--rows 100000 1000000 5000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

# Peak memory is each process's VmHWM (reset by exec, unlike ru_maxrss, which a forked child
# inherits from its parent): the server's own, and the largest of its descendants' (kernels)
# read before they exit.
_HWM = r"""
import os
from pathlib import Path


def hwm_mb(pid="self"):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def descendants_hwm_mb():
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            ppid = next(int(l.split()[1]) for l in status.splitlines() if l.startswith("PPid:"))
            parents[int(entry.name)] = ppid
    mine, best = {os.getpid()}, 0.0
    for _ in range(6):  # a few generations: launcher, kernel
        mine |= {pid for pid, ppid in parents.items() if ppid in mine}
    for pid in mine - {os.getpid()}:
        try:
            best = max(best, hwm_mb(pid))
        except OSError:
            pass
    return best
"""

_SHOKUNIN = _HWM + r"""
import json, sys, tempfile, time
from fastapi.testclient import TestClient
from shokunin.api import create_app
from shokunin.config import Settings

path = Path(sys.argv[1])
out = {}
with tempfile.TemporaryDirectory() as tmp:
    settings = Settings(data_dir=Path(tmp), tools_dirs=[], analyst_max_upload_mb=4096)
    with TestClient(create_app(settings)) as client:
        start = time.perf_counter()
        with path.open("rb") as f:
            dataset = client.post("/api/analyst/datasets", files={"file": (path.name, f)},
                                  timeout=3600).json()
        out["upload_s"] = time.perf_counter() - start
        out["engine"] = dataset["engine"]
        start = time.perf_counter()
        run = client.post("/api/analyst/runs", json={
            "dataset_id": dataset["id"], "question": "total revenue by region"}).json()
        while client.get(f"/api/runs/{run['run_id']}").json()["status"] == "running":
            time.sleep(0.05)
        out["status"] = client.get(f"/api/runs/{run['run_id']}").json()["status"]
        out["question_s"] = time.perf_counter() - start
        out["kernel_mb"] = descendants_hwm_mb()
        out["server_mb"] = hwm_mb()
print(json.dumps(out))
"""

_PANDAS = _HWM + r"""
import json, sys, time
import pandas as pd
start = time.perf_counter()
frame = pd.read_csv(sys.argv[1])
total = frame.groupby("region")["revenue"].sum()
print(json.dumps({"s": time.perf_counter() - start,
                  "mb": hwm_mb()}))
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


def measure(script: str, path: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, check=True, timeout=3600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    table = Table(title="Analyst offline: 'total revenue by region' on a generated CSV")
    for column in ("rows", "file MB", "engine", "upload s", "question s", "shokunin total s",
                   "read_csv s", "DuckDB s", "total / read_csv", "server MB", "kernel MB",
                   "read_csv MB", "peak / file"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        for rows in args.rows:
            path = Path(tmp) / f"sales_{rows}.csv"
            subprocess.run([sys.executable, __file__, "--generate", str(path), str(rows)],
                           check=True)
            size_mb = path.stat().st_size / 2**20
            ours = measure(_SHOKUNIN, path)
            plain = measure(_PANDAS, path)
            duck = measure(_DUCKDB, path)
            total = ours["upload_s"] + ours["question_s"]
            peak = max(ours["server_mb"], ours["kernel_mb"])
            table.add_row(f"{rows:,}", f"{size_mb:.0f}", ours["engine"],
                          f"{ours['upload_s']:.2f}", f"{ours['question_s']:.2f}", f"{total:.2f}",
                          f"{plain['s']:.2f}", f"{duck['s']:.2f}", f"{total / plain['s']:.1f}x",
                          f"{ours['server_mb']:.0f}", f"{ours['kernel_mb']:.0f}",
                          f"{plain['mb']:.0f}", f"{peak / size_mb:.1f}x")
            path.unlink()
    Console(width=200).print(table)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--generate"]:  # in its own process: see measure()
        generate(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
