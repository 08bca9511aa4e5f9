"""``shokunin analyze`` from a cold start: the time to its first line (the file read and
profiled: the engine is open) and to its end, for a small question on the shipped sales CSV,
beside plain pandas doing the same sum in a fresh interpreter (``python -c``).

Each command runs ``--repeat`` times as a subprocess, the CLI on a fresh data folder each
time (no database, no kernel left from a run before); the table shows the median and the
fastest. ``shokunin --help`` is the cost of the interpreter and the CLI's imports alone.

    python bench/cli_startup.py [--repeat 3] [--question "revenue trend by month"]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "src/shokunin/data/analyst/sales_en.csv"
SHOKUNIN = str(Path(sys.executable).with_name("shokunin"))
PEER = ("import sys, pandas as pd; "
        "print(pd.read_csv(sys.argv[1]).groupby('month')['revenue'].sum().to_string())")


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds to the command's first line (stdout or stderr) and to its exit."""
    start = time.perf_counter()
    first = None
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if first is None and line.strip():
                first = time.perf_counter() - start
        code = process.wait()
    total = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{command[:3]} exited {code}")
    return (total if first is None else first), total


def measure(command: list[str], repeat: int, fresh_data: bool) -> list[tuple[float, float]]:
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "COLUMNS": "100"}
            env.pop("SHOKUNIN_MODEL", None)  # offline: no model call in the figures
            if fresh_data:
                env["SHOKUNIN_DATA_DIR"] = data
            runs.append(timed(command, env))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--question", default="revenue trend by month")
    args = parser.parse_args()
    rows = [
        ("shokunin analyze (offline)", [SHOKUNIN, "analyze", str(CSV), args.question], True),
        ("shokunin --help (imports only)", [SHOKUNIN, "--help"], False),
        ("peer: python -c pandas read_csv + groupby", [sys.executable, "-c", PEER, str(CSV)],
         False),
    ]
    table = Table(title=f"CLI start-up on {os.cpu_count()} cores, {CSV.name}, "
                  f"median (fastest) of {args.repeat} runs")
    for column in ("command", "first line (s)", "total (s)"):
        table.add_column(column, justify="left" if column == "command" else "right")
    for label, command, fresh in rows:
        runs = measure(command, args.repeat, fresh)
        firsts, totals = [r[0] for r in runs], [r[1] for r in runs]
        table.add_row(label, f"{statistics.median(firsts):.2f} ({min(firsts):.2f})",
                      f"{statistics.median(totals):.2f} ({min(totals):.2f})")
    Console().print(table)


if __name__ == "__main__":
    main()
