"""Sandbox density (issue 39): N live kernels, each after a typical Analyst cell (read a small
CSV with pandas, group, plot to PNG), their memory as PSS and USS, and the time to a new
thread's first cell result (read the CSV, print its length); shokunin's kernels forked from
the template (the default) and cold (one interpreter each, as before the template), each
without a warm pool and with a pool of one, beside bare jupyter_client kernels (no walls,
nothing shared).

Threads arrive one after the other, ``--gap`` seconds after the previous one's cells ended
(a team's threads do not all start in the same second; the pool refills in the gap).
Memory is read from ``/proc/<pid>/smaps_rollup`` of every process of each kernel (its
process group) and of the template: PSS shares each shared page among the processes that
map it, USS counts the pages only that process maps (Private_Clean + Private_Dirty), so what
many kernels share counts once in the PSS total and not at all in USS. RSS would count
shared pages once per kernel. Usage (needs root for the walls, like the server; up to 150
MB per kernel):

    .venv/bin/python bench/kernel_density.py                       # 100 kernels, every way
    .venv/bin/python bench/kernel_density.py --kernels 20 --ways shokunin-cold bare
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput, Sandbox
from shokunin.sandbox.memory import Memory, memory_of

SAMPLE = Path(__file__).resolve().parents[1] / "src/shokunin/data/analyst/sales_en.csv"
FIRST = """import pandas as pd
df = pd.read_csv("sales.csv")
print(len(df))
"""
CELL = """import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
df = pd.read_csv("sales.csv")
by_region = df.groupby("region")["revenue"].sum()
by_region.plot(kind="bar")
plt.savefig("by_region.png")
plt.close("all")
print(by_region.to_string())
"""
# way -> (warm pool size, fork from the template)
SHOKUNIN = {"shokunin-cold": (0, False), "shokunin-pooled": (1, False),
            "shokunin-forked": (0, True), "shokunin-forked-pooled": (1, True)}
WAYS = (*SHOKUNIN, "bare")


def group_of(pid: int) -> list[int]:
    """The processes of the kernel whose leader is ``pid`` (its process group)."""
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        return []
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == group:
                    found.append(int(entry.name))
            except ProcessLookupError:
                continue
    return found


Outcome = tuple[list[float], list[float], Memory]


async def shokunin_kernels(n: int, pool: int, template: bool, gap: float,
                           root: Path) -> Outcome:
    """Start ``n`` threads' kernels one after the other, each running the first cell then
    the Analyst cell; return the time to each thread's first result, each Analyst cell's
    time, and the kernels' (PSS, USS) with all of them live."""
    data = root / f"data-pool{pool}-{'forked' if template else 'cold'}"
    data.mkdir(parents=True)
    data.chmod(0o755)
    sandbox = Sandbox(Settings(data_dir=data, sandbox_pool_size=pool, sandbox_max_kernels=n,
                               sandbox_max_kernels_per_owner=n, sandbox_min_free_mb=0,
                               sandbox_idle_sec=3600, sandbox_template=template))
    await sandbox.start()
    firsts, cells = [], []
    try:
        for i in range(n):
            await asyncio.sleep(gap)
            workspace = data / "workspaces" / f"t{i}"
            workspace.mkdir(parents=True)
            shutil.copy(SAMPLE, workspace / "sales.csv")
            workspace.chmod(0o777)  # the kernel writes its plot as its own uid
            for code, times in ((FIRST, firsts), (CELL, cells)):
                started = time.perf_counter()
                result = await sandbox.execute(f"t{i}", ExecPythonInput(code=code,
                                                                        timeout_sec=120),
                                               workspace=workspace)
                times.append(time.perf_counter() - started)
                assert result.ok, result.stderr or result.error_message
        leaders = [k.pid for k in sandbox._kernels.values() if k.pid]  # noqa: SLF001
        # the template's pages are the kernels' too: its PSS is their share of them
        held = [sandbox.template.pid] if sandbox.template and sandbox.template.pid else []
        return firsts, cells, memory_of([p for pid in leaders for p in group_of(pid)] + held)
    finally:
        await sandbox.shutdown()


async def bare_kernels(n: int, gap: float, root: Path) -> Outcome:
    """``n`` plain jupyter_client kernels (ipykernel), each running the two cells."""
    from jupyter_client.manager import AsyncKernelManager

    managers, firsts, cells = [], [], []
    try:
        for i in range(n):
            await asyncio.sleep(gap)
            folder = root / f"bare{i}"
            folder.mkdir(parents=True)
            os.chdir(folder)  # ipc sockets are made in the working folder
            shutil.copy(SAMPLE, folder / "sales.csv")
            started = time.perf_counter()
            km = AsyncKernelManager(kernel_name="python3", transport="ipc")
            await km.start_kernel(cwd=str(folder))
            managers.append(km)
            client = km.client()
            client.start_channels()
            await client.wait_for_ready(timeout=60)
            for code, times in ((FIRST, firsts), (CELL, cells)):
                reply = await client.execute_interactive(code, timeout=120,
                                                         output_hook=lambda _msg: None)
                times.append(time.perf_counter() - started)
                assert reply["content"]["status"] == "ok", reply["content"]
                started = time.perf_counter()
            client.stop_channels()
        pids = [km.provisioner.pid for km in managers if km.provisioner]  # type: ignore[attr-defined]
        return firsts, cells, memory_of([p for pid in pids for p in group_of(pid)])
    finally:
        await asyncio.gather(*(km.shutdown_kernel(now=True) for km in managers),
                             return_exceptions=True)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * q) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=int, default=100)
    parser.add_argument("--gap", type=float, default=1.0,
                        help="seconds between one thread's last cell and the next thread")
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS))
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="shokunin-density-"))
    root.chmod(0o755)
    rows = []
    try:
        for way in args.ways:
            print(f"{way}: {args.kernels} kernels ...")
            if way == "bare":
                firsts, cells, used = asyncio.run(bare_kernels(args.kernels, args.gap, root))
            else:
                pool, template = SHOKUNIN[way]
                firsts, cells, used = asyncio.run(shokunin_kernels(
                    args.kernels, pool, template, args.gap, root))
            rows.append((way, used.pss_kb, used.uss_kb, firsts, cells))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    table = Table(title=f"{args.kernels} live kernels, each after one Analyst cell (read a "
                        f"CSV, group, plot to PNG); threads {args.gap:g} s apart")
    table.add_column("way", no_wrap=True)
    for column in ("PSS MB", "USS MB", "PSS/kernel MB", "first result p50 ms", "p95 ms",
                   "Analyst cell p50 ms"):
        table.add_column(column, justify="right")
    for way, pss, uss, firsts, cells in rows:
        table.add_row(way, f"{pss / 1024:.0f}", f"{uss / 1024:.0f}",
                      f"{pss / 1024 / args.kernels:.0f}", f"{statistics.median(firsts) * 1000:.0f}",
                      f"{_p(firsts, 0.95) * 1000:.0f}", f"{statistics.median(cells) * 1000:.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()
