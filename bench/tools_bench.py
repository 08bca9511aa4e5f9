"""Tool system figures: discovery of 200 tools, in-process call overhead, venv cold/warm calls.

Run: ``.venv/bin/python bench/tools_bench.py``. No network: the venv tool has a comment-only
requirements.txt.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from shokunin.tools import ToolRegistry
from shokunin.tools.venv import VenvManager

TOOL = '''
TOOL_NAME = "bench {i}"
TOOL_DESCRIPTION = "noop"
TOOL_ICON = "⏱"
def get_function_declaration():
    return {{"name": "bench_{i}", "description": "noop",
            "parameters": {{"type": "object", "properties": {{"x": {{"type": "integer"}}}}}}}}
def execute(args, context):
    return {{"success": True, "result": args.get("x")}}
'''


def write_tool(root: Path, i: int, *, venv: bool = False) -> Path:
    folder = root / f"bench_{i}"
    folder.mkdir(parents=True)
    (folder / f"bench_{i}_tool.py").write_text(TOOL.format(i=i), encoding="utf-8")
    if venv:
        (folder / "requirements.txt").write_text("# nothing\n")
    return folder


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def timed(n: int, call: Callable[[], Awaitable[object]],
                between: Callable[[], None] | None = None) -> list[float]:
    samples = []
    for _ in range(n):
        if between:
            between()
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def main() -> None:
    table = Table(title="shokunin tools bench")
    for column in ("measure", "n", "p50 ms", "p99 ms", "aim"):
        table.add_column(column, justify="right" if column != "measure" else "left")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        many = base / "many"
        for i in range(200):
            write_tool(many, i)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            registry = ToolRegistry([(many, "user")], base / "s.json",
                                    workspace_root=base / "ws")
            runs.append((time.perf_counter() - start) * 1000)
        assert all(info.ok for info in registry.list())
        p50, p99 = percentiles(runs)
        table.add_row("discovery of 200 tools", "5", f"{p50:.1f}", f"{p99:.1f}", "< 1000")

        one = ToolRegistry([(many, "user")], base / "s.json", workspace_root=base / "ws")
        await one.execute("bench_0", {"x": 1})
        samples = await timed(2000, lambda: one.execute("bench_0", {"x": 1}))
        p50, p99 = percentiles(samples)
        table.add_row("in-process call (overhead)", "2000", f"{p50:.3f}", f"{p99:.3f}", "< 1")

        venv_root = base / "venv"
        folder = write_tool(venv_root, 0, venv=True)
        start = time.perf_counter()
        VenvManager().ensure(folder)
        build_ms = (time.perf_counter() - start) * 1000
        table.add_row("venv build (no requirements)", "1", f"{build_ms:.0f}", "-", "once")
        vreg = ToolRegistry([(venv_root, "user")], base / "s.json", workspace_root=base / "ws")
        try:
            cold = await timed(20, lambda: vreg.execute("bench_0", {"x": 1}),
                               between=vreg.reload)  # reload stops warm children
            p50, p99 = percentiles(cold)
            table.add_row("venv call, cold (child start)", "20", f"{p50:.1f}", f"{p99:.1f}", "-")
            await vreg.execute("bench_0", {"x": 1})
            warm = await timed(500, lambda: vreg.execute("bench_0", {"x": 1}))
            p50, p99 = percentiles(warm)
            table.add_row("venv call, warm child", "500", f"{p50:.2f}", f"{p99:.2f}", "< 30")
        finally:
            await vreg.close()
    Console().print(table)


if __name__ == "__main__":
    asyncio.run(main())
