"""Root typer app; command groups register themselves here."""

from __future__ import annotations

import os

import typer

from shokunin.cli import analyze, auth, kb, mcp, models, serve, tools, worker
from shokunin.cli.logs import DEBUG_ENV

app = typer.Typer(help="shokunin: a workbench for tool-using LLM agents.", no_args_is_help=True)


@app.callback()
def root(debug: bool = typer.Option(
        False, "--debug", envvar=DEBUG_ENV,
        help="Show every log line, tracebacks included (one-shot commands print one line "
        "per problem otherwise).")) -> None:
    if debug:  # the commands (and the processes they start) read it from there
        os.environ[DEBUG_ENV] = "1"


app.command("serve")(serve.serve)
app.command("worker")(worker.worker)
app.command("analyze")(analyze.analyze)
app.add_typer(tools.app, name="tools")
app.add_typer(auth.app, name="auth")
app.add_typer(kb.app, name="kb")
app.add_typer(mcp.app, name="mcp")
app.add_typer(models.app, name="models")


def main() -> None:
    app()
