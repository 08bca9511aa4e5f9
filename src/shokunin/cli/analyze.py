"""``shokunin analyze FILE "question"``: the Analyst from the command line, in this process.

The same engine as the server (its data folder, database, sandbox and model settings): the
file is uploaded into a new Analyst thread, the question runs there, each node and cell is
shown as it happens, and the report is printed (and written with ``--out``). The exit
status is 0 for a report, 1 when the run failed or needs an answer, 2 for a bad file.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from shokunin import events as ev
from shokunin.config import Settings

console = Console(stderr=True)


def analyze(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, readable=True,
                                help="CSV, TSV or .xlsx table."),
    question: str = typer.Argument(..., help="What to find out, in Japanese or English."),
    model: str = typer.Option(None, help="Model spec (default SHOKUNIN_MODEL; none: offline)."),
    out: Path = typer.Option(None, help="Write the report here (.md, or .html for a page)."),
) -> None:
    """Analyse a table: the Analyst writes and runs pandas code, then reports."""
    settings = Settings(**({"model": model} if model else {}))
    status, report = asyncio.run(_run(settings, file, question))
    if report:
        Console().print(Markdown(report))
        if out is not None:
            out.write_text(_page(report) if out.suffix.lower() in (".html", ".htm") else report,
                           encoding="utf-8")
            console.print(f"report written to {out}")
    if status != "completed":
        raise typer.Exit(2 if status == "bad_file" else 1)


async def _run(settings: Settings, file: Path, question: str) -> tuple[str, str]:
    from shokunin.agents.analyst import DatasetError, DatasetStorage
    from shokunin.agents.analyst.isolated import ParseLimits
    from shokunin.engine import Engine
    from shokunin.runs import new_thread_id

    services = await Engine.open(settings, recover=False, mcp_clients=False)
    try:
        runner = services.runner
        thread_id = new_thread_id()
        await services.store.ensure_thread(thread_id, "analyst", title=file.name)
        storage = DatasetStorage(runner, int(settings.analyst_pandas_max_mb * 1024 * 1024),
                                 ParseLimits.from_settings(settings))
        try:
            with file.open("rb") as upload:
                record = await storage.add(thread_id, file.name, upload)
        except DatasetError as exc:
            console.print(f"[red]{file.name}: {exc}[/red]")
            return "bad_file", ""
        console.print(f"{file.name}: {record.profile.rows} rows x "
                      f"{record.profile.column_count} columns ({record.encoding or 'xlsx'})")
        run_id = await runner.start("analyst", thread_id,
                                    {"dataset_id": record.id, "question": question})
        return await _follow(runner, run_id)
    finally:
        await services.close()


async def _follow(runner: Any, run_id: str) -> tuple[str, str]:
    """Show the run's steps as they happen; its end status and report."""
    report, status = "", "failed"
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        step = progress.add_task("reason", total=None)
        try:
            async for event in runner.stream(run_id):
                match event:
                    case ev.Debug(content={"decision": decision}):
                        progress.update(step, description=f"reason → {decision['action']}")
                    case ev.Code(step=label):
                        progress.update(step, description=f"run_code: {label or 'cell'}")
                    case ev.CodeResult(ok=ok, error_type=error, error_message=message):
                        if not ok:
                            console.print(f"[yellow]cell failed: {error}: {message}[/yellow]")
                    case ev.Text(text=text):
                        report = text
                    case ev.RunInterrupted(payload=payload):
                        status = "interrupted"
                        report = str(payload.get("value", {}).get("question", ""))
                    case ev.RunCompleted():
                        status = "completed"
                    case ev.RunFailed(error=error):
                        console.print(f"[red]failed: {error}[/red]")
        except (KeyboardInterrupt, asyncio.CancelledError):
            await runner.cancel(run_id)
            raise
        progress.update(step, description=f"done: {status}", total=1, completed=1)
    return status, report


def _page(report: str) -> str:
    """The report as one self-contained HTML page (no network: the Markdown is rendered
    by rich's own HTML export)."""
    recorder = Console(record=True, width=100, file=io.StringIO())
    recorder.print(Markdown(report))
    return recorder.export_html(inline_styles=True)
