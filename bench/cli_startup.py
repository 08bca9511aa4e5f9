"""``shokunin analyze`` from a cold start: the time to its first line (the file read and
profiled: the engine is open), to its answer on stdout and to its end, for a small question
on the shipped sales CSV, beside plain pandas doing the same sum in a fresh interpreter
(``python -c``); ``shokunin --help`` beside ``python -c "import typer"``.

Each command runs ``--repeat`` times as a subprocess, the CLI on a fresh data folder each
time (no database, no kernel left from a run before), the rows interleaved round by round so
a change of the machine's load falls on all of them; the table shows the median and the
fastest, and each command's median as a multiple of its peer's. ``--before PATH`` adds the
rows of another installation's ``shokunin`` (an earlier commit's venv) to the same rounds.

    python bench/cli_startup.py [--repeat 3] [--question "revenue trend by month"]
                                [--before OTHER_VENV/bin/shokunin]
"""

from __future__ import annotations

import argparse
import os
import selectors
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


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds to the command's first line (stdout or stderr), to its first line on stdout
    (the answer) and to its exit."""
    start = time.perf_counter()
    first: dict[str, float] = {}
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None and process.stderr is not None
        streams = {process.stdout: "out", process.stderr: "err"}
        with selectors.DefaultSelector() as selector:
            for stream, name in streams.items():
                selector.register(stream, selectors.EVENT_READ, name)
            while selector.get_map():
                for key, _ in selector.select():
                    line = key.fileobj.readline()  # type: ignore[union-attr]
                    if not line:
                        selector.unregister(key.fileobj)
                    elif line.strip():
                        first.setdefault(key.data, time.perf_counter() - start)
        code = process.wait()
    total = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{command[:3]} exited {code}")
    return min(first.values(), default=total), first.get("out", total), total


def measure(command: list[str], fresh_data: bool) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "COLUMNS": "100"}
        env.pop("SHOKUNIN_MODEL", None)  # offline: no model call in the figures
        if fresh_data:
            env["SHOKUNIN_DATA_DIR"] = data
        return timed(command, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--question", default="revenue trend by month")
    parser.add_argument("--before", help="another installation's shokunin command")
    args = parser.parse_args()
    # label, command, fresh data folder, the row it is measured against
    rows = [
        ("shokunin analyze (offline)", [SHOKUNIN, "analyze", str(CSV), args.question], True,
         "peer: pandas read_csv + groupby"),
        ("peer: pandas read_csv + groupby", [sys.executable, "-c", PEER, str(CSV)], False,
         None),
        ("shokunin --help", [SHOKUNIN, "--help"], False, "peer: python -c 'import typer'"),
        ("peer: python -c 'import typer'", [sys.executable, "-c", "import typer"], False,
         None),
    ]
    if args.before:
        rows += [("before: shokunin analyze", [args.before, "analyze", str(CSV), args.question],
                  True, "peer: pandas read_csv + groupby"),
                 ("before: shokunin --help", [args.before, "--help"], False,
                  "peer: python -c 'import typer'")]
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label, *_ in rows}
    for _ in range(args.repeat):
        for label, command, fresh, _peer in rows:
            runs[label].append(measure(command, fresh))
    table = Table(title=f"CLI start-up on {os.cpu_count()} cores, {CSV.name}, "
                  f"median (fastest) of {args.repeat} rounds, load {os.getloadavg()[0]:.1f}")
    for column in ("command", "first line (s)", "answer (s)", "total (s)", "x peer"):
        table.add_column(column, justify="left" if column == "command" else "right")

    def cell(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ({min(values):.2f})"

    for label, _command, _fresh, peer in rows:
        firsts, answers, totals = (list(column) for column in zip(*runs[label], strict=True))
        ratio = "" if peer is None else (
            f"{statistics.median(totals) / statistics.median(r[2] for r in runs[peer]):.1f}x")
        table.add_row(label, cell(firsts), cell(answers), cell(totals), ratio)
    Console().print(table)


if __name__ == "__main__":
    main()
