"""Sandbox figures beside a plain `python -c` subprocess and smolagents' LocalPythonExecutor.

    .venv/bin/python bench/sandbox_bench.py

The smolagents column needs its own venv (kept out of the project's dependencies):

    python -m venv /tmp/bench-venv && /tmp/bench-venv/bin/pip install smolagents pandas

and is skipped with a note when /tmp/bench-venv (or $SMOLAGENTS_PYTHON) is absent.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput, Sandbox

DESCRIBE = ("import numpy as np, pandas as pd\n"
            "df = pd.DataFrame({'a': np.arange(1_000_000), 'b': np.arange(1_000_000) % 7})\n"
            "df.describe()")
SMOL = os.environ.get("SMOLAGENTS_PYTHON", "/tmp/bench-venv/bin/python")
SMOL_SCRIPT = """
import sys, time, statistics
from smolagents.local_python_executor import LocalPythonExecutor
t = time.perf_counter(); ex = LocalPythonExecutor(additional_authorized_imports=['numpy', 'pandas'])
ex.send_tools({}); start = time.perf_counter() - t
rt = []
for _ in range(200):
    t = time.perf_counter(); ex('1+1'); rt.append(time.perf_counter() - t)
t = time.perf_counter(); ex(sys.argv[1]); describe = time.perf_counter() - t
rt.sort(); print(start, rt[100], rt[197], describe)
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def plain(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started


async def sandbox_figures() -> dict[str, str]:
    data = Path(tempfile.mkdtemp(prefix="shokunin-bench-"))
    data.chmod(0o755)
    sb = Sandbox(Settings(data_dir=data, sandbox_pool_size=1))
    await sb.start()
    started = time.perf_counter()
    await sb.execute("cold", ExecPythonInput(code="1"))
    cold = time.perf_counter() - started  # pool still filling: a cold start
    await sb.pool.wait_filled()
    started = time.perf_counter()
    await sb.execute("pooled", ExecPythonInput(code="1"))
    pooled = time.perf_counter() - started
    trips = []
    for _ in range(300):
        started = time.perf_counter()
        await sb.execute("pooled", ExecPythonInput(code="1+1"))
        trips.append(time.perf_counter() - started)
    started = time.perf_counter()
    await sb.execute("pooled", ExecPythonInput(code=DESCRIBE))
    describe = time.perf_counter() - started
    await sb.shutdown()
    trips.sort()
    return {"start": f"{ms(cold)} cold / {ms(pooled)} pooled",
            "p50": ms(statistics.median(trips)), "p99": ms(trips[int(len(trips) * 0.99) - 1]),
            "describe": ms(describe)}


def smol_figures() -> dict[str, str] | str:
    if not Path(SMOL).exists():
        return f"skipped: no {SMOL} (see this file's docstring)"
    out = subprocess.run([SMOL, "-c", SMOL_SCRIPT, DESCRIBE], capture_output=True, text=True)
    if out.returncode:
        return f"failed: {out.stderr.strip().splitlines()[-1]}"
    start, p50, p99, describe = map(float, out.stdout.split())
    return {"start": ms(start), "p50": ms(p50), "p99": ms(p99), "describe": ms(describe)}


def main() -> None:
    shokunin = asyncio.run(sandbox_figures())
    plain_start = plain("pass")
    plain_trip = statistics.median(plain("1+1") for _ in range(10))
    subprocess_col = {"start": ms(plain_start), "p50": ms(plain_trip),
                      "p99": "(new process each)", "describe": ms(plain(DESCRIBE))}
    smol = smol_figures()
    rows = [("kernel start", "start"), ("`1+1` round trip p50", "p50"),
            ("`1+1` round trip p99", "p99"), ("1M-row describe()", "describe")]
    print(f"| {'figure':<22} | {'shokunin sandbox':<28} | {'python -c':<20} | smolagents |")
    print(f"|{'-' * 24}|{'-' * 30}|{'-' * 22}|------------|")
    for label, key in rows:
        smol_cell = smol[key] if isinstance(smol, dict) else "-"
        print(f"| {label:<22} | {shokunin[key]:<28} | {subprocess_col[key]:<20} | {smol_cell} |")
    if isinstance(smol, str):
        print(f"\nsmolagents: {smol}")


if __name__ == "__main__":
    main()
