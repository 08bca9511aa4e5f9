"""`shokunin kb`: build and search the knowledge base the Advisor answers from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:  # the index (and its embedder) is imported when used, not by --help
    from shokunin.knowledge import KnowledgeIndex

app = typer.Typer(help="Knowledge base: ingest documents, search them.", no_args_is_help=True)


def _index(index: Path | None) -> KnowledgeIndex:
    from shokunin.config import Settings
    from shokunin.knowledge import EmbedderError, open_index

    settings = Settings()
    if index is not None:
        settings = settings.model_copy(update={"knowledge_index": index})
    try:
        return open_index(settings)
    except EmbedderError as exc:
        typer.echo(f"shokunin: {exc}", err=True)
        raise typer.Exit(2) from None


@app.command()
def ingest(
    folder: Path = typer.Argument(None, help="Folder of md, txt, html and pdf files "
                                  "(default SHOKUNIN_KNOWLEDGE_DIR)."),
    index: Path = typer.Option(None, help="Index file (default SHOKUNIN_KNOWLEDGE_INDEX)."),
) -> None:
    """Index the folder's documents; again, only what changed is re-read."""
    from shokunin.config import Settings

    folder = folder or Settings().knowledge_dir
    if not folder.is_dir():
        typer.echo(f"shokunin: {folder} is not a folder", err=True)
        raise typer.Exit(2)
    console = Console(stderr=True)
    kb = _index(index)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("ingest", total=None)
        report = kb.ingest(folder, lambda done, total, name: progress.update(
            task, completed=done, total=total, description=name[-40:]))
    documents, chunks = kb.counts()
    kb.close()
    for name, why in report.errors.items():
        console.print(f"[red]skipped[/] {name}: {why}")
    typer.echo(f"{report.added} added, {report.updated} updated, {report.removed} removed, "
               f"{report.unchanged} unchanged; the index holds {documents} documents, "
               f"{chunks} chunks")
    if report.errors:
        raise typer.Exit(1)


@app.command()
def search(
    query: str = typer.Argument(..., help="What to look for (Japanese or English)."),
    top: int = typer.Option(5, min=1, max=50, help="How many chunks to show."),
    index: Path = typer.Option(None, help="Index file (default SHOKUNIN_KNOWLEDGE_INDEX)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON for scripts."),
) -> None:
    """The chunks that best match the query, with their file, heading and score."""
    kb = _index(index)
    hits = kb.search(query, top)
    kb.close()
    if as_json:
        typer.echo(json.dumps([{"source": h.source, "heading": h.heading, "score": h.score,
                                "text": h.text} for h in hits], ensure_ascii=False))
        return
    if not hits:
        typer.echo("no match")
        raise typer.Exit(1)
    table = Table("score", "source", "heading", "text", show_lines=True)
    for hit in hits:
        table.add_row(f"{hit.score:.3f}", hit.source, hit.heading, hit.text[:200])
    Console(width=200).print(table)
