"""Root typer app; command groups register themselves here."""

from __future__ import annotations

import typer

from shokunin.cli import analyze, auth, kb, mcp, serve, tools, worker

app = typer.Typer(help="shokunin: a workbench for tool-using LLM agents.", no_args_is_help=True)
app.command("serve")(serve.serve)
app.command("worker")(worker.worker)
app.command("analyze")(analyze.analyze)
app.add_typer(tools.app, name="tools")
app.add_typer(auth.app, name="auth")
app.add_typer(kb.app, name="kb")
app.add_typer(mcp.app, name="mcp")


def main() -> None:
    app()
