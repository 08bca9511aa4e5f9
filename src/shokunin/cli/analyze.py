"""``shokunin analyze FILE "question"``: the Analyst from the command line, in this process.

The same engine as the server (its data folder, database, sandbox and model settings): the
file is uploaded into a new Analyst thread, the question runs there, each node and cell is
shown as it happens, and the report is printed (and written with ``--out``). The exit
status is 0 for a report, 1 when the run failed or needs an answer, 2 for a bad file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from shokunin import events as ev
from shokunin.agents.analyst import DatasetError, report_files
from shokunin.config import Settings
from shokunin.runs import Runner, answer_of, follow_to_end
from shokunin.store import RunStatus

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
    status, report, events = asyncio.run(_run(settings, file, question))
    if report:
        Console().print(Markdown(report))
    if out is not None and status == RunStatus.COMPLETED:
        html = out.suffix.lower() in (".html", ".htm")
        # The same files as the web face's report downloads (report_files).
        out.write_text(report_files.page(events) if html else report_files.markdown(events),
                       encoding="utf-8")
        console.print(f"report written to {out}")
    if status != RunStatus.COMPLETED:
        raise typer.Exit(2 if status == "bad_file" else 1)


async def _run(settings: Settings, file: Path, question: str
               ) -> tuple[str, str, list[ev.BaseEvent]]:
    """The run's end status, its report (or the question it asks), and its events."""
    from shokunin.engine import Engine

    # Beside a server that may share the database: its unfinished runs are not ours.
    engine = await Engine.open(settings, recover=False, mcp_clients=False)
    try:
        try:
            record = await engine.datasets.upload_file(None, file)
        except DatasetError as exc:  # the thread made for it is gone again
            console.print(f"[red]{file.name}: {exc}[/red]")
            return "bad_file", "", []
        console.print(f"{file.name}: {record.profile.rows} rows x "
                      f"{record.profile.column_count} columns ({record.encoding or 'xlsx'})")
        _, run_id = await engine.datasets.ask(None, record.id, question)
        return await _follow(engine.runner, run_id)
    finally:
        await engine.close()


async def _follow(runner: Runner, run_id: str) -> tuple[str, str, list[ev.BaseEvent]]:
    """Show the run's steps as they happen; its end status, report and events. Ctrl-C
    cancels the run (``follow_to_end``)."""
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        step = progress.add_task("reason", total=None)

        def show(event: ev.BaseEvent) -> None:
            match event:
                case ev.Debug(content={"decision": decision}):
                    progress.update(step, description=f"reason → {decision['action']}")
                case ev.Code(step=label):
                    progress.update(step, description=f"run_code: {label or 'cell'}")
                case ev.CodeResult(ok=False, error_type=error, error_message=message):
                    console.print(f"[yellow]cell failed: {error}: {message}[/yellow]")
                case ev.RunFailed(error=error):
                    console.print(f"[red]failed: {error}[/red]")

        events = await follow_to_end(runner, run_id, show)
        end = events[-1]
        status = {ev.RunCompleted: RunStatus.COMPLETED,
                  ev.RunInterrupted: RunStatus.INTERRUPTED}.get(type(end), RunStatus.FAILED)
        progress.update(step, description=f"done: {status}", total=1, completed=1)
    if isinstance(end, ev.RunInterrupted):
        return status, str(end.payload.get("value", {}).get("question", "")), events
    return status, answer_of(events), events
