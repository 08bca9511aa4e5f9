"""``shokunin analyze FILE "question"``: the Analyst from the command line, in this process.

The same engine as the server (its data folder, database, sandbox and model settings): the
file is uploaded into a new Analyst thread, the question runs there, each node and cell is
shown as it happens, and the report is printed. ``--out`` writes it as the web face's
download of the same run would be (``Datasets.report``: .md, .html or .ipynb). The exit
status is 0 for a report, 1 when the run failed or needs an answer, 2 for a bad file or
question.

It starts only what the Analyst uses: its agent alone, no tools (``Engine.open(faces=)``),
and the uploads' parser process first, while it imports the rest (``parsers.start``).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:  # the Analyst and the engine are imported to run, not by --help
    from shokunin.config import Settings
    from shokunin.runs import Runner

console = Console(stderr=True)
FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".ipynb": "ipynb"}


def analyze(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, readable=True,
                                help="CSV, TSV or .xlsx table."),
    question: str = typer.Argument(..., help="What to find out, in Japanese or English."),
    model: str = typer.Option(None, help="Model spec (default SHOKUNIN_MODEL; none: offline)."),
    out: Path = typer.Option(None, help="Write the report here: .md, .html (one page with "
                             "its charts) or .ipynb (a notebook that reads FILE beside it)."),
) -> None:
    """Analyse a table: the Analyst writes and runs pandas code, then reports."""
    fmt = None if out is None else FORMATS.get(out.suffix.lower())
    if out is not None and fmt is None:
        raise typer.BadParameter(f"{out.name}: write the report as .md, .html or .ipynb",
                                 param_hint="--out")
    from shokunin.cli.collector import starting

    # What the imports make lives until the process ends: frozen, no collection walks it
    # again, during the run or on the way out (a second, for the interpreter's last one).
    with starting():
        from shokunin.agents.analyst import parsers

        parsers.start()  # its imports (pandas, DuckDB) overlap ours, on the other core
        # The engine now, frozen with the rest; the Analyst is imported by Engine.open,
        # while the kernel starts.
        import shokunin.engine  # noqa: F401
        from shokunin.cli.logs import command_logs, debugging
        from shokunin.config import Settings
        from shokunin.store import RunStatus

    command_logs()
    if not debugging():  # the run's failure is printed below, once, in the user's words
        logging.getLogger("shokunin.runs").setLevel(logging.ERROR)
    settings = Settings(**({"model": model} if model else {}))
    status = asyncio.run(_run(settings, file, question, out, fmt))
    if status != RunStatus.COMPLETED:
        raise typer.Exit(2 if status == "bad_input" else 1)


async def _run(settings: Settings, file: Path, question: str, out: Path | None,
               fmt: str | None) -> str:
    """Run the question; print its report (or the question it asks) and write ``out`` as
    soon as the run ends, before the engine closes. Returns the run's end status."""
    from rich.markdown import Markdown

    from shokunin.agents.analyst.errors import DatasetError
    from shokunin.engine import Engine
    from shokunin.runs import InvalidRunInput
    from shokunin.store import RunStatus

    # Beside a server that may share the database: its unfinished runs are not ours.
    engine = await Engine.open(settings, recover=False, mcp_clients=False,
                                faces={"analyst"}, queue="none")
    try:
        try:
            record = await engine.datasets.upload_file(None, file)
        except DatasetError as exc:  # the thread made for it is gone again
            console.print(f"[red]{file.name}: {exc}[/red]")
            return "bad_input"
        console.print(f"{file.name}: {record.profile.rows} rows x "
                      f"{record.profile.column_count} columns ({record.encoding or 'xlsx'})")
        try:
            _, run_id = await engine.datasets.ask(None, record.id, question)
        except InvalidRunInput as exc:  # a question no face accepts (empty, too long)
            console.print(f"[red]{exc}[/red]")
            return "bad_input"
        status, report = await _follow(engine.runner, run_id)
        if report:
            Console().print(Markdown(report))
        if out is not None and fmt is not None and status == RunStatus.COMPLETED:
            # The stored run, as the web face's download builds it: one mechanism.
            out.write_text(await engine.datasets.report(None, run_id, fmt), encoding="utf-8")
            console.print(f"report written to {out}" + (
                f" (it reads {file.name} from beside it)" if fmt == "ipynb" else ""))
        return status
    finally:  # the kernel's shutdown comes after the answer is on screen
        await engine.close()


# the run's steps in words (what a person reads while it works), by the locale's language
_STEPS = {
    "en": {"start": "reading the question", "run_code": "computing",
           "report": "writing the answer", "ask_clarification": "asking back",
           "failed": "a calculation failed", "done": "done"},
    "ja": {"start": "質問を読んでいます", "run_code": "計算しています",
           "report": "回答をまとめています", "ask_clarification": "確認の質問をします",
           "failed": "計算が失敗しました", "done": "終了"},
}


async def _follow(runner: Runner, run_id: str) -> tuple[str, str]:
    """Show the run's steps as they happen; its end status and report (or the question it
    asks). Ctrl-C cancels the run (``follow_to_end``)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from shokunin import events as ev
    from shokunin.errors import locale_language
    from shokunin.runs import answer_of, follow_to_end
    from shokunin.store import RunStatus

    words = _STEPS.get(locale_language(), _STEPS["en"])
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        step = progress.add_task(words["start"], total=None)

        def show(event: ev.BaseEvent) -> None:
            match event:
                case ev.Debug(content={"decision": decision}):
                    action = str(decision.get("action"))
                    progress.update(step, description=words.get(action, words["start"]))
                case ev.Code(step=label):
                    said = f"{words['run_code']}: {label}" if label else words["run_code"]
                    progress.update(step, description=escape(said))
                case ev.CodeResult(ok=False, error_message=message):
                    console.print(f"[yellow]{words['failed']}: {escape(message or '')}[/yellow]")
                case ev.RunFailed(error=error, said=said):
                    said = (said or {}).get(locale_language())
                    console.print(f"[red]failed: {escape(said or error)}[/red]")

        events = await follow_to_end(runner, run_id, show)
        end = events[-1]
        status = {ev.RunCompleted: RunStatus.COMPLETED,
                  ev.RunInterrupted: RunStatus.INTERRUPTED}.get(type(end), RunStatus.FAILED)
        progress.update(step, description=f"{words['done']}: {status}", total=1, completed=1)
    if isinstance(end, ev.RunInterrupted):
        return status, str(end.payload.get("value", {}).get("question", ""))
    return status, answer_of(events)
